"""The signed-in child on the request, the time zone of the requester's school, and the
requester's language (``ChosenLanguageMiddleware``, docs/languages.md).

``request.child`` is the child signed in on this device with their pictures or badge
(``child_session.current_student``), looked up the first time it is read (a lazy object: a
page that never asks costs no query), and falsy when nobody is. The games app reads it
from the request, never by importing the classroom (docs/platform.md).

The games platform's seat-key hook (``games.views.player_keys``) is set here too: a child's
seats are owned by their seat key (``Student.seat_key``, ``classroom.models.child_seat``), and
the requests of the signed-in child hold it:

- ``request.seat_keys``: the signed-in child's seat key, checked (reading it reads
  ``request.child``), or none;
- ``request.claimed_seat_keys``: the seat key of the child the session names, without the check
  and without a query: the board's poll looks up a version with it, and renders nothing but
  through the checked keys (``games.views.poll``).

``SchoolTimeZoneMiddleware`` activates, for the whole request, the time zone of the
requester's school: a signed-in child's class's school, a grown-up's school (their
membership: a grown-up is in one school at most), else the site's ``TIME_ZONE``. The zone is
found the first time a time is shown or read (a page that shows no time costs no query)."""

from datetime import tzinfo
from functools import cached_property
from zoneinfo import ZoneInfo

from django.db import DatabaseError
from django.utils import timezone
from django.utils import translation
from django.utils.functional import SimpleLazyObject

from classroom.child_session import current_student
from classroom.languages import chosen_language
from classroom.languages import use_language
from classroom.models import School
from classroom.models import seat_key_of


def claimed_seat_keys(request) -> tuple[str, ...]:
    student_id = request.session.get("student_id")
    return (seat_key_of(student_id),) if isinstance(student_id, int) else ()


class SignedInChildMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        set_child(request)
        # For a long-lived request (a page's stream): how to give a new request of this
        # browser, rebuilt from its session (games.stream.Revisit), the child and the keys.
        request.set_seat_keys = set_child
        return self.get_response(request)


def set_child(request) -> None:
    request.child = SimpleLazyObject(lambda: current_student(request))
    request.seat_keys = SimpleLazyObject(lambda: (request.child.seat_key,) if request.child else ())
    request.claimed_seat_keys = SimpleLazyObject(lambda: claimed_seat_keys(request))


def requester_zone(request) -> ZoneInfo:
    """The time zone of the school of whoever makes the request (the site's for a visitor,
    a family guest or a grown-up without a school)."""
    try:
        child = request.child
        if child:
            return child.classroom.school.zone  # loaded with the child
        user = request.user
        if user.is_authenticated:
            school = School.objects.of_member(user).only("timezone").first()
            if school is not None:
                return school.zone
    except DatabaseError:
        pass  # the times in the site's zone rather than no page
    return timezone.get_default_timezone()


class RequesterZone(tzinfo):
    """A time zone that is the requester's school's, looked up when first used: every
    datetime localised with it comes back in that ``ZoneInfo`` (``fromutc``), and a time
    read from a form in it is that zone's wall time."""

    def __init__(self, request):
        self.request = request

    @cached_property
    def zone(self) -> ZoneInfo:
        return requester_zone(self.request)

    def utcoffset(self, dt):
        return self.zone.utcoffset(dt)

    def dst(self, dt):
        return self.zone.dst(dt)

    def tzname(self, dt):
        return self.zone.tzname(dt)

    def fromutc(self, dt):
        return self.zone.fromutc(dt.replace(tzinfo=self.zone))

    def __str__(self):
        return str(self.zone)  # timezone.get_current_timezone_name(): the zone's key

    def __repr__(self):
        return f"RequesterZone({self.zone!r})"

    def __reduce__(self):
        return ZoneInfo, (self.zone.key,)  # pickled or copied: the zone itself


class SchoolTimeZoneMiddleware:
    """After the authentication and the child middleware: times in the requester's
    school's zone (``timezone.activate``), back to the site's after the response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.activate(RequesterZone(request))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class ChosenLanguageMiddleware:
    """After LocaleMiddleware (which reads the cookie and Accept-Language) and the child's and
    the grown-up's middleware: activates ``chosen_language`` when there is one, for the whole
    request, and sets Content-Language from the language the page was written in."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.language_chosen_for_page = False
        child_session = bool(request.session.get("student_id"))
        use_language(request, chosen_language(request), for_page=child_session)
        response = self.get_response(request)
        # The language the page was written in (a view may have chosen it: use_language), and
        # none left active on this thread once the response is done.
        response.headers.setdefault("Content-Language", translation.get_language())
        translation.deactivate()
        return response
