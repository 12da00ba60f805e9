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
found the first time a time is shown or read (a page that shows no time costs no query).

``DatabaseOutageMiddleware`` answers a request whose database is away (the connection cannot
be made or is lost) with 503 and ``Retry-After``: the page, or the notice an htmx request gets,
says "try again in a moment" in the requester's language, and the board and the warm-up send
the request again by themselves (static/js/app.js; docs/reliability.md, "When the database is
away"). ``server_error``, Django's ``handler500``, answers the same for a database error raised
outside the view, where ``process_exception`` does not reach: the session, or a grown-up's user,
read by the middleware before it (``ChosenLanguageMiddleware``), the session saved after it. (With
``DEBUG`` on, Django shows its debug page there instead of calling ``handler500``.)

``NulRefusedMiddleware`` answers 422 to a request with a NUL character in a query or form field
(name or value), before any view: PostgreSQL refuses NUL in text, so such a value reaching a
lookup answered 500 (the admin's filters and autocomplete did: docs/reliability.md, "Hostile
paths"). Nobody types a NUL; paths are checked by their converters (config/converters.py)."""

import logging
import sys
from datetime import tzinfo
from functools import cached_property
from zoneinfo import ZoneInfo

from django.db import DatabaseError
from django.db import InterfaceError
from django.db import OperationalError
from django.http import HttpResponse
from django.http import JsonResponse
from django.template import loader
from django.utils import timezone
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext
from django.views import defaults

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


# --- the database away ---------------------------------------------------------------------------
logger = logging.getLogger(__name__)
# What a database that cannot be reached raises: the connection cannot be made, or is lost
# (Django wraps the driver's errors in these, subclasses included). Every other error stays what
# it is (a 500, logged with its traceback).
DATABASE_AWAY = (OperationalError, InterfaceError)
# Seconds the browser waits before it sends the request again (static/js/app.js waits longer
# each time it is told 503 again).
RETRY_AFTER_SECONDS = 3


def database_away(exception: BaseException | None) -> bool:
    return isinstance(exception, DATABASE_AWAY)


# The JSON endpoints that are not files ending in .json.
JSON_URL_NAMES = {"healthz", "healthz_web"}


def wants_json(request) -> bool:
    """A JSON endpoint's request (a file ending in .json, /healthz) or a client that prefers
    JSON to HTML."""
    match = getattr(request, "resolver_match", None)
    if request.path.endswith(".json") or (match and match.url_name in JSON_URL_NAMES):
        return True
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def database_away_response(request) -> HttpResponse:
    """503 with ``Retry-After``, in the language of the page asked for. Rendered without the
    request's context processors (they read the session, the user and the child: the database),
    so nothing here needs it. An htmx request gets the notice alone (templates/503.html#notice:
    the page keeps what it shows and says it is trying again); a page, the whole page, which
    asks again by itself when it was a GET; a JSON endpoint, JSON."""
    language = getattr(request, "LANGUAGE_CODE", None) or translation.get_language()
    with translation.override(language):
        if wants_json(request):
            response: HttpResponse = JsonResponse(
                {
                    "status": "error",
                    "error": "database_unavailable",
                    "message": gettext("We lost the connection for a moment. Trying again…"),
                    "retry_after": RETRY_AFTER_SECONDS,
                },
                status=503,
            )
        else:
            htmx = request.headers.get("HX-Request") == "true"
            template = loader.get_template("503.html#notice" if htmx else "503.html")
            context = {
                "retry_after": RETRY_AFTER_SECONDS,
                "again": request.method in ("GET", "HEAD"),
                "path": request.get_full_path(),
            }
            response = HttpResponse(template.render(context), status=503)
        response.headers["Content-Language"] = translation.get_language()
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    add_never_cache_headers(response)
    return response


class DatabaseOutageMiddleware:
    """A view (or its template) that finds the database away answers 503 "try again in a
    moment" (``database_away_response``), not 500; any other error goes on as before."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not database_away(exception):
            return None
        logger.warning(
            "The database is away: %s %s answered 503 (%s: %s)",
            request.method,
            request.path,
            type(exception).__name__,
            exception,
        )
        return database_away_response(request)


def server_error(request):
    """Django's ``handler500`` (config/urls.py). Django calls it while it handles the error
    that escaped (``sys.exception()``): the database away outside any view (the session or the
    user read before the view, the session saved after it) answers as in a view, 503; any other
    error gets Django's own 500 page."""
    if database_away(sys.exception()):
        return database_away_response(request)
    return defaults.server_error(request)


def holds_nul(query) -> bool:
    """Whether a ``QueryDict`` has a NUL in a name or a value."""
    return any("\x00" in key or any("\x00" in v for v in values) for key, values in query.lists())


class NulRefusedMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if holds_nul(request.GET) or (request.method == "POST" and holds_nul(request.POST)):
            return HttpResponse(
                gettext("This request held a character we cannot read."),
                status=422,
                content_type="text/plain; charset=utf-8",
            )
        return self.get_response(request)
