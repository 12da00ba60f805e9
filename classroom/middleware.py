"""The signed-in child on the request, for the games platform and any view.

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
  through the checked keys (``games.views.poll``)."""

from django.utils.functional import SimpleLazyObject

from classroom.child_session import current_student
from classroom.models import seat_key_of


def claimed_seat_keys(request) -> tuple[str, ...]:
    student_id = request.session.get("student_id")
    return (seat_key_of(student_id),) if isinstance(student_id, int) else ()


class SignedInChildMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.child = SimpleLazyObject(lambda: current_student(request))
        request.seat_keys = SimpleLazyObject(
            lambda: (request.child.seat_key,) if request.child else ()
        )
        request.claimed_seat_keys = SimpleLazyObject(lambda: claimed_seat_keys(request))
        return self.get_response(request)
