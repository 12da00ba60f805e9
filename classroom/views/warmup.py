"""The potion warm-up (docs/classroom/warm-up.md): the child's round page, the home round,
and the wall's "Skip the warm-up" for the teacher."""

from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_POST

from classroom import live
from classroom.models import Assignment
from classroom.models import WarmUp
from classroom.models.warmup import AnsweredAlready
from classroom.models.warmup import BadAnswer
from classroom.models.warmup import NotYourWarmUp
from classroom.models.warmup import WarmUpOver
from classroom.models.warmup import WarmUpRefused
from classroom.views.responses import finish
from classroom.views.sessions import after_wall_action
from classroom.views.sessions import child_page
from classroom.views.sessions import go_to_game
from classroom.views.sessions import my_class
from classroom.views.sessions import paused_text
from classroom.views.sessions import teacher_page

TEMPLATE = "classroom/warmup/round.html"
CHEERS = (
    pgettext_lazy("warm-up: cheer for a right answer", "Yes!"),
    pgettext_lazy("warm-up: cheer for a right answer", "Brilliant!"),
    pgettext_lazy("warm-up: cheer for a right answer", "Spot on!"),
    pgettext_lazy("warm-up: cheer for a right answer", "Great!"),
)
# What a refused answer answers (the round comes back with the reason either way): a forged
# token or an answer that is not a number 422, another child's round 404, a question answered
# already or a round that is over 409.
REFUSED_STATUS = {BadAnswer: 422, NotYourWarmUp: 404, AnsweredAlready: 409, WarmUpOver: 409}


def my_round(student, pk) -> WarmUp:
    """The signed-in child's own round (another child's: 404)."""
    return get_object_or_404(
        WarmUp.objects.filter(student=student).select_related("assignment"), pk=pk
    )


def render_round(request, student, warm_up, *, result=None, error="", token="", status=200):
    """The round as it stands: the feedback of the answer just sent (if any), then the next
    question, or the end when the round is over. A skipped round of an open session sends
    the child on to the game."""
    now = timezone.now()
    assignment = warm_up.assignment
    if warm_up.skipped and assignment is not None and assignment.is_open:
        return go_to_game(request, student, assignment)
    # "Pause all" on the wall: the clock stands still and no question is served until the
    # teacher resumes (the answer to the question on the screen was still taken).
    paused = warm_up.is_paused(now) and not warm_up.is_over(now)
    question = None
    if not paused:
        question = warm_up.question_for(token, now) if token else None
        question = question or warm_up.ask(now)
        if question is None:
            warm_up.finish(now)
    seconds_left = warm_up.seconds_left(now)
    ctx = {
        "student": student,
        "warm_up": warm_up,
        "question": question,
        "result": result,
        "error": error,
        "seconds_left": seconds_left,
        "clock": f"{seconds_left // 60}:{seconds_left % 60:02d}" if seconds_left else "0:00",
        "cheer": CHEERS[result.index % len(CHEERS)] if result else "",
        "paused": paused,
        "summary": warm_up.summary() if question is None and not paused else None,
        "session_open": assignment is not None and assignment.is_open,
    }
    template = f"{TEMPLATE}#round" if request.htmx else TEMPLATE
    return render(request, template, ctx, status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@child_page
def warm_up_round(request, student, pk):
    """GET: the next question (or the end). POST: an answer; the feedback and the next
    question (htmx swaps them in; a plain form gets the whole page). A bad answer (422), a
    question answered already or a round that is over (409) store nothing and say so. While
    the teacher has paused the class: the feedback and "paused", no question; the paused
    page's poll (``?paused=1``) answers 204 until the round is resumed."""
    warm_up = my_round(student, pk)
    if request.method in ("GET", "HEAD"):
        if request.GET.get("paused") and warm_up.is_paused() and not warm_up.is_over():
            return HttpResponse(status=204)  # the paused round's poll: still paused
        return render_round(request, student, warm_up)
    token = request.POST.get("token", "")
    typed = request.POST.get("answer", "")
    try:
        result = WarmUp.objects.answer(student, token, typed)
    except WarmUpRefused as refused:
        # Nothing stored. While the token is still the next question (an answer that was
        # not a number), the same question comes back with its clock still running.
        warm_up.refresh_from_db()
        status = REFUSED_STATUS.get(type(refused), 422)
        return render_round(
            request, student, warm_up, error=refused.message, token=token, status=status
        )
    warm_up.refresh_from_db()
    return render_round(request, student, warm_up, result=result)


@require_POST
@child_page
def warm_up_home(request, student):
    """A warm-up outside any session (from the child's home page). A round at home still
    under way is carried on, not started again: a double tap, or a second tab, makes one
    round (decided under a lock on the child's row, so parallel taps make one too). While the
    teacher has paused the class ("Pause all" on the wall) no new round starts."""
    running = WarmUp.objects.running().filter(student=student, home=True).exists()
    if (
        not running
        and Assignment.objects.open_now()
        .for_student(student)
        .filter(status=Assignment.Status.PAUSED)
        .exists()
    ):
        messages.info(request, paused_text())
        return finish(request, reverse("classroom:child_home"))
    with transaction.atomic():
        type(student).objects.select_for_update().filter(pk=student.pk).exists()
        warm_up = WarmUp.objects.running().filter(student=student, home=True).first()
        warm_up = warm_up or WarmUp.objects.start(student)
    return finish(request, warm_up.get_absolute_url())


# --- the teacher's wall -----------------------------------------------------------------------


def set_warm_up_skipped(classroom, skipped: bool) -> None:
    """Skip (or turn back on) the warm-up of every open session of the class; skipping ends
    the rounds under way, so each child's next request goes to the game."""
    now = timezone.now()
    with transaction.atomic():
        ids = list(classroom.assignments.open_now().values_list("pk", flat=True))
        Assignment.objects.filter(pk__in=ids).update(warm_up_skipped=skipped)
        live.class_changed(classroom.pk)
        if skipped:
            WarmUp.objects.skip_for(ids, now)


@teacher_page
@require_POST
def wall_warm_up(request, pk, *, skipped: bool):
    """The wall's "Skip the warm-up" (skipped) and "Warm-up on" buttons (classroom/urls.py)."""
    classroom = my_class(request, pk)
    set_warm_up_skipped(classroom, skipped)
    return after_wall_action(request, classroom)
