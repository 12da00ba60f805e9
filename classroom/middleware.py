"""The signed-in child on the request, for the games platform and any view.

``request.child`` is the child signed in on this device with their pictures or badge
(``child_session.current_student``), looked up the first time it is read (a lazy object: a
page that never asks costs no query), and falsy when nobody is. The games app reads it
from the request, never by importing the classroom (docs/platform.md)."""

from django.utils.functional import SimpleLazyObject

from classroom.child_session import current_student


class SignedInChildMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.child = SimpleLazyObject(lambda: current_student(request))
        return self.get_response(request)
