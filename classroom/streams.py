"""The live wall's and the waiting room's streams of server-sent events (docs/platform.md,
"Live updates"): async views over the class's channels (``classroom.live``), served by the
ASGI server, on ``games.stream.serve`` as the boards' streams are.

- ``GET /teacher/classes/<pk>/wall/stream/?v=<version>``: the class's teacher (as the wall's
  GET; anybody else 404). Its check, at connect and at every heartbeat, reads the session
  again (still this teacher?) and the wall's version (``wall_version``): what changes with
  time alone (a game stalled, a warm-up round's end) shows by the next heartbeat. At most one
  ``changed`` a ``LIVE_WALL_GAP_SECONDS``: a busy class's wall fetches itself once a second.
- ``GET /me/waiting/<pk>/stream/?v=w``: the signed-in child of a session of theirs (as the
  waiting room's GET; anybody else 404). Its check keeps the child present in the waiting
  room (the page's polls did), every ``WAITING_PRESENCE / 3`` seconds, and pairs the child
  with the computer when the wait is over (the poll did that too); a paired child hears
  ``changed`` and the page's GET takes them to their game.

Without push (no Redis, a WSGI server: ``presenters.streams_here``) both answer 204 after the
same authorization, and the pages poll every 2 s as before."""

from django.conf import settings
from django.http import Http404
from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from classroom import live as class_live
from classroom.models import Assignment
from classroom.models import WaitingEntry
from classroom.models.assignment import WAITING_PRESENCE
from classroom.views.sessions import my_class
from classroom.views.sessions import wall_version
from games import presenters
from games.stream import EVENT_STREAM
from games.stream import Check
from games.stream import Revisit
from games.stream import db_released
from games.stream import serve
from games.stream import stream_view

# The waiting room's page token while the child waits (any other: fetch the page).
WAITING = "w"


@stream_view
async def wall_stream(request, pk):

    def authorize() -> None:
        if not request.user.is_authenticated:
            raise Http404
        my_class(request, pk)

    await db_released(authorize)()
    if not presenters.streams_here(request):
        return HttpResponse(status=204)
    if request.method == "HEAD":  # a monitor's check: the stream's headers, no stream
        return HttpResponse(content_type=EVENT_STREAM)

    def check(again: Revisit) -> Check:
        asking = again.request()  # a new request of this browser (the session read again)
        if not asking.user.is_authenticated:
            return Check(allowed=False)
        try:
            classroom = my_class(asking, pk)
        except Http404:
            return Check(allowed=False)
        return Check(token=wall_version(classroom))

    return await serve(
        request,
        class_live.wall_channel(pk),
        request.GET.get("v", "")[:40],
        check,
        gap=settings.LIVE_WALL_GAP_SECONDS,
    )


def waiting_token(assignment_pk, student) -> tuple[str, float | None]:
    """What the child's waiting room would show (``WAITING`` while the child still waits, else
    something else: the page's GET moves the child on) and when to look again: the child is
    kept present, and paired with the computer once the wait is over."""
    entry = (
        WaitingEntry.objects.filter(assignment_id=assignment_pk, student=student)
        .select_related("assignment")
        .first()
    )
    if entry is None:
        return "left", None
    if entry.match_id is not None:
        return f"m{entry.match_id}", None
    assignment = entry.assignment
    if not assignment.is_open:
        return "closed", None
    entry.touch()
    left = assignment.fallback_after() - entry.waited_seconds()
    if left <= 0:
        assignment.pair_waiting()
        entry.refresh_from_db(fields=["match"])
        if entry.match_id is not None:
            return f"m{entry.match_id}", None
        left = 1
    return WAITING, min(WAITING_PRESENCE / 3, left)


@stream_view
async def waiting_stream(request, pk):

    def authorize() -> int:
        student = request.child
        if not student:
            raise Http404
        get_object_or_404(Assignment.objects.for_student(student), pk=pk)
        return student.pk

    student_pk = await db_released(authorize)()
    if not presenters.streams_here(request):
        return HttpResponse(status=204)
    if request.method == "HEAD":  # a monitor's check: the stream's headers, no stream
        return HttpResponse(content_type=EVENT_STREAM)
    classroom_id = request.child.classroom_id

    def check(again: Revisit) -> Check:
        student = again.request().child
        if not student or student.pk != student_pk:
            return Check(allowed=False)
        token, soon = waiting_token(pk, student)
        return Check(token=token, soon=soon)

    return await serve(
        request, class_live.waiting_channel(classroom_id), request.GET.get("v", "")[:40], check
    )
