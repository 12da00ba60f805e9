"""Assignments, the child's home, the waiting room and the live session wall."""

import hashlib
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.db.models import Count
from django.db.models import Q
from django.http import Http404
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.shortcuts import redirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_POST
from django.views.decorators.http import require_safe

from classroom import live
from classroom.child_session import SIGNED_OUT_BY_TEACHER
from classroom.child_session import current_student
from classroom.forms import AssignmentForm
from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import Student
from classroom.models import WaitingEntry
from classroom.models import WarmUp
from classroom.models import session_of
from classroom.models.assignment import BOT_LEVELS
from classroom.models.assignment import LIVE_MATCH_STATUSES
from classroom.models.child_seat import student_pk_of
from classroom.views.access import teacher_page
from classroom.views.responses import finish
from classroom.views.responses import render_page
from config.params import int_param
from games.models import Match

# Nobody has moved for this long: the wall flags the match as stalled.
STALLED_AFTER = 60


# --- helpers ----------------------------------------------------------------------------------


def signed_out_url(request) -> str:
    """Where a child page sends a browser with no child signed in: the class-code page, or,
    once, for a child the teacher has just signed out (the session ended), their class's names
    with why, in the school's language (the rest of that page speaks it too)."""
    signed_out = request.session.pop(SIGNED_OUT_BY_TEACHER, None)
    if not (isinstance(signed_out, list) and len(signed_out) == 2):
        return reverse("classroom:join")
    code, language = (str(x) for x in signed_out)
    with translation.override(language if language in dict(settings.LANGUAGES) else None):
        messages.info(request, _("Your teacher has signed you out. Tap your name to come back in."))
    return reverse("classroom:join_class", args=[code])


def child_page(view):
    """Signed-in children only: anybody else is sent to the class-code page."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        student = current_student(request)
        if student is None:
            return finish(request, signed_out_url(request))
        return view(request, student, *args, **kwargs)

    return wrapped


def my_class(request, pk) -> Classroom:
    """The signed-in teacher's class (another teacher's class: 404)."""
    return get_object_or_404(
        Classroom.objects.for_teacher(request.user).select_related("school"), pk=pk
    )


# --- teacher: assignments ---------------------------------------------------------------------


@teacher_page
@require_safe
def assignment_list(request, pk):
    classroom = my_class(request, pk)
    assignments = classroom.assignments.prefetch_related("groups", "students").annotate(
        live_count=Count(
            "matches", filter=Q(matches__status__in=LIVE_MATCH_STATUSES), distinct=True
        )
    )
    students = {s.pk: s for s in classroom.students.active()}
    assignments = list(assignments)
    for assignment in assignments:
        assignment.n_other_tables = assignment.children_on_other_tables(students)
    return render(
        request,
        "classroom/sessions/list.html",
        {"classroom": classroom, "assignments": assignments},
    )


def assignment_form_page(request, classroom, assignment=None, initial=None):
    form = AssignmentForm(
        request.POST or None, instance=assignment, classroom=classroom, initial=initial
    )
    ctx = {"classroom": classroom, "form": form, "assignment": assignment}
    if request.method == "POST":
        if not form.is_valid():
            template = (
                "classroom/sessions/form.html#form"
                if request.htmx
                else "classroom/sessions/form.html"
            )
            return render(request, template, ctx, status=422)
        if assignment is None:
            form.instance.created_by = request.user
        with transaction.atomic():
            saved = form.save()
        messages.success(
            request,
            _("“%(title)s” is saved.") % {"title": saved.title},
        )
        return finish(request, reverse("classroom:assignment_list", args=[classroom.pk]))
    return render(request, "classroom/sessions/form.html", ctx)


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def assignment_new(request, pk):
    """A new session; ``?again=<id>`` starts from one of this class's sessions (an ended one,
    say): its settings and who plays, opening now."""
    classroom = my_class(request, pk)
    initial = None
    again = request.GET.get("again", "")
    if request.method in ("GET", "HEAD") and again:
        if (again_pk := int_param(again)) is None:
            raise Http404("no such session")
        source = get_object_or_404(classroom.assignments.all(), pk=again_pk)
        initial = source.settings_for_again()
    return assignment_form_page(request, classroom, initial=initial)


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def assignment_edit(request, pk):
    assignment = get_object_or_404(
        Assignment.objects.for_teacher(request.user).select_related("classroom__school"), pk=pk
    )
    return assignment_form_page(request, assignment.classroom, assignment)


@teacher_page
@require_POST
def assignment_end(request, pk):
    assignment = get_object_or_404(Assignment.objects.for_teacher(request.user), pk=pk)
    Assignment.objects.filter(pk=assignment.pk).end()
    messages.success(request, _("“%(title)s” has ended.") % {"title": assignment.title})
    return finish(request, reverse("classroom:assignment_list", args=[assignment.classroom_id]))


# --- children: home, play, waiting room -------------------------------------------------------


@never_cache
@require_safe
@child_page
def child_home(request, student):
    cards = []
    for assignment in Assignment.objects.open_now().for_student(student).order_by("opens_at"):
        cards.append({"assignment": assignment, "progress": assignment.progress_for(student)})
    matches = (
        Match.objects.filter(seats__child_link__student=student, status__in=LIVE_MATCH_STATUSES)
        .distinct()
        .select_related("session_link__assignment")
        .prefetch_related("seats")
        .order_by("-changed_at")
    )
    in_progress = [
        {
            "match": match,
            "session": session_of(match),
            "opponents": [s.name for s in match.seat_list() if s.owner_key != student.seat_key],
        }
        for match in matches
    ]
    paused = any(c["assignment"].status == Assignment.Status.PAUSED for c in cards)
    return render(
        request,
        "classroom/child/home.html",
        {"student": student, "cards": cards, "in_progress": in_progress, "paused": paused},
    )


def paused_text() -> str:
    """What a child reads who taps Play or Warm up while their teacher has paused the class."""
    return _("Your teacher has paused the games. Wait until they start again.")


@require_POST
@child_page
def child_play(request, student, pk):
    assignment = get_object_or_404(Assignment.objects.open_now().for_student(student), pk=pk)
    active = assignment.active_match_for(student)
    if active is None and assignment.status == Assignment.Status.PAUSED:
        # "Pause all" on the wall: no new warm-up or game until the teacher resumes (a game
        # under way is shown, paused).
        messages.info(request, paused_text())
        return finish(request, reverse("classroom:child_home"))
    if active is None:
        # The potion warm-up first, once before each game (docs/classroom/warm-up.md).
        warm_up = WarmUp.objects.before_game(student, assignment)
        if warm_up is not None:
            return finish(request, warm_up.get_absolute_url())
    return go_to_game(request, student, assignment)


def go_to_game(request, student, assignment):
    """The child's game in this session: the one in progress, or the waiting room."""
    active = assignment.active_match_for(student)
    if active is not None:
        return finish(request, active.get_absolute_url())
    WaitingEntry.objects.enter(assignment, student)
    assignment.pair_waiting()
    entry = WaitingEntry.objects.filter(assignment=assignment, student=student).first()
    if entry is not None and entry.match_id is not None:
        return finish(request, entry.match.get_absolute_url())
    return finish(request, reverse("classroom:waiting_room", args=[assignment.pk]))


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@child_page
def waiting_room(request, student, pk):
    assignment = get_object_or_404(Assignment.objects.for_student(student), pk=pk)
    entry = WaitingEntry.objects.filter(assignment=assignment, student=student).first()
    if request.method == "POST":  # Leave
        if entry is not None and entry.match_id is None:
            entry.delete()
            live.class_changed(assignment.classroom_id, waiting=True)
        return finish(request, reverse("classroom:child_home"))
    if not assignment.is_open:
        if WaitingEntry.objects.filter(assignment=assignment, student=student).delete()[0]:
            live.class_changed(assignment.classroom_id, waiting=True)
        messages.info(request, _("This game session is over. Well played!"))
        return finish(request, reverse("classroom:child_home"))
    if entry is None:
        active = assignment.active_match_for(student)
        return finish(
            request, active.get_absolute_url() if active else reverse("classroom:child_home")
        )
    if entry.match_id is None:
        entry.touch()
        assignment.pair_waiting()
        entry.refresh_from_db()
    if entry.match_id is not None:
        match = entry.match
        if match is not None and not match.is_over:
            return finish(request, match.get_absolute_url())
        entry.delete()
        return finish(request, reverse("classroom:child_home"))
    # Only children on the same tables can be paired with this one, so only they are named.
    others = [
        e.student.name
        for e in assignment.waiting.filter(match__isnull=True, tier=entry.tier)
        .exclude(pk=entry.pk)
        .select_related("student")
    ]
    waited = entry.waited_seconds()
    fallback = assignment.fallback_after()
    ctx = {
        "assignment": assignment,
        "student": student,
        "entry": entry,
        "waited": waited,
        "others": others,
        "bot_in": max(0, fallback - waited),
        "bot_name": assignment.bot_seat()["name"],
    }
    template = (
        "classroom/child/waiting.html#room" if request.htmx else "classroom/child/waiting.html"
    )
    return render(request, template, ctx)


# --- teacher: the live session wall -----------------------------------------------------------


def live_matches(classroom):
    return (
        Match.objects.filter(
            session_link__assignment__classroom=classroom, status__in=LIVE_MATCH_STATUSES
        )
        .select_related("session_link__assignment")
        .order_by("created_at", "pk")
    )


def wall_version(classroom, now=None) -> str:
    """Changes whenever something on the wall would change: a move, a pause, a new or
    ended match, a stalled flag, a child arriving in or leaving a waiting room, a child
    signing in or out, added, renamed, regrouped or archived."""
    now = now or timezone.now()
    rows = list(
        live_matches(classroom).values_list("pk", "version", "paused_at", "status", "changed_at")
    )
    parts = [
        (
            pk,
            version,
            paused.isoformat() if paused else "",
            status,
            stalled(status, paused, changed, now),
        )
        for pk, version, paused, status, changed in rows
    ]
    waiting = list(
        WaitingEntry.objects.filter(assignment__classroom=classroom, match__isnull=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    sessions = list(
        classroom.assignments.open_now()
        .order_by("pk")
        .values_list("pk", "status", "warm_up_skipped")
    )
    warming = list(warming_up(classroom, now).values_list("pk", flat=True))
    # The children panel: who is in the class (added, renamed, moved to a group, archived)
    # and who is signed in now (a sign-in also ends by itself, at the end of the day).
    children = [
        (pk, name, group, until is not None and until > now)
        for pk, name, group, until in Student.objects.active()
        .filter(classroom=classroom)
        .order_by("pk")
        .values_list("pk", "name", "group_id", "signed_in_until")
    ]
    raw = repr((parts, waiting, sessions, warming, children)).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def warming_up(classroom, now=None):
    """The class's potion warm-up rounds under way (classroom.models.warmup)."""
    return (
        WarmUp.objects.running(now)
        .filter(assignment__classroom=classroom)
        .select_related("student")
        .order_by("started_at", "pk")
    )


def stalled(status, paused_at, changed_at, now) -> bool:
    return (
        status == Match.Status.ACTIVE
        and paused_at is None
        and (now - changed_at).total_seconds() >= STALLED_AFTER
    )


# A child's state on the wall, most telling first: (state, icon, words).
CHILD_STATES = {
    "playing": ("▶", lambda: pgettext("a child's state on the live wall", "Playing")),
    "waiting": (
        "⌛",
        lambda: pgettext("a child's state on the live wall", "Waiting for a partner"),
    ),
    "warming_up": ("⚗", lambda: pgettext("a child's state on the live wall", "Warming up")),
    "done": ("✓", lambda: pgettext("a child's state on the live wall", "Target reached")),
    "signed_in": ("●", lambda: pgettext("a child's state on the live wall", "Signed in")),
    "not_signed_in": (
        "○",
        lambda: pgettext("a child's state on the live wall", "Not signed in yet"),
    ),
}


def signed_out_words() -> str:
    """A child not signed in who has played in the session already: not "yet"."""
    return pgettext("a child's state on the live wall: played, now not signed in", "Not signed in")


def progress_text(done: int, target: int, kind: str) -> str:
    if kind == Assignment.Target.GAMES:
        text = ngettext("%(done)s of %(target)s game", "%(done)s of %(target)s games", target)
    else:
        text = ngettext("%(done)s of %(target)s minute", "%(done)s of %(target)s minutes", target)
    return text % {"done": done, "target": target}


def wall_children(classroom, open_sessions, cards, waiting, warming, now) -> dict:
    """Each child an open session is set for, with what they are doing and how far they are
    towards the session's target (games finished or minutes played): a query for the class's
    children and one per open session."""
    if not open_sessions:
        return {"rows": [], "signed_in": 0, "done": 0}
    session_for = {}
    students = list(Student.objects.active().filter(classroom=classroom))
    for student in students:
        session = next((a for a in open_sessions if a.covers(student)), None)
        if session is not None:
            session_for[student.pk] = session
    done = {}
    for session in open_sessions:
        ids = [pk for pk, a in session_for.items() if a.pk == session.pk]
        if ids:
            done.update(session.done_by(ids))
    playing = {student_pk_of(seat) for card in cards for seat in card["match"].seat_list()}
    waiting_ids = {entry.student_id for entry in waiting}
    warming_ids = {round_.student_id for round_ in warming}
    rows = []
    for student in students:
        session = session_for.get(student.pk)
        if session is None:
            continue
        count = done.get(student.pk, 0)
        complete = count >= session.target_value
        if student.pk in playing:
            state = "playing"
        elif student.pk in waiting_ids:
            state = "waiting"
        elif student.pk in warming_ids:
            state = "warming_up"
        elif complete:
            state = "done"
        elif student.is_signed_in(now):
            state = "signed_in"
        else:
            state = "not_signed_in"
        icon, words = CHILD_STATES[state]
        if state == "not_signed_in" and count:  # played earlier: not "yet"
            words = signed_out_words
        shown = min(count, session.target_value)
        rows.append(
            {
                "student": student,
                "state": state,
                "icon": icon,
                "words": words(),
                "complete": complete,
                "done": shown,
                "target": session.target_value,
                "progress": progress_text(shown, session.target_value, session.target_kind),
                "percent": round(100 * shown / session.target_value) if session.target_value else 0,
            }
        )
    return {
        "rows": rows,
        "signed_in": sum(1 for row in rows if row["state"] != "not_signed_in"),
        "done": sum(1 for row in rows if row["complete"]),
    }


def wall_context(classroom) -> dict:
    now = timezone.now()
    # The version first, then what it stands for: a change committed while the wall is read
    # leaves the page an older version, so the next poll fetches the wall again. (Read last,
    # it could name a new match the cards read before it do not show, and every later poll
    # answered "nothing changed": a game missing from the wall until something else moved.)
    version = wall_version(classroom, now)
    cards = []
    for match in live_matches(classroom).prefetch_related("seats"):
        view = match.view_for(None)
        seats = list(match.seat_list())
        players = [
            {
                # A computer player by its level's name in the teacher's language: the seat
                # keeps the name in the language of the child who started the game.
                "name": str(BOT_LEVELS[seat.bot_level])
                if seat.is_bot and seat.bot_level in BOT_LEVELS
                else seat.name,
                "bot": seat.is_bot,
                "trophies": len(view["trophies"][seat.number]),
                "to_act": seat.number in view["to_act"] and match.status == Match.Status.ACTIVE,
            }
            for seat in seats
        ]
        acting = [p["name"] for p in players if p["to_act"]]
        cards.append(
            {
                "match": match,
                "players": players,
                "goal": view["goal"],
                "acting": acting[0] if acting else "",
                "paused": match.paused_at is not None,
                "waiting_for_players": match.status == Match.Status.WAITING,
                "stalled": stalled(match.status, match.paused_at, match.changed_at, now),
                "idle_seconds": int((now - match.changed_at).total_seconds()),
            }
        )
    # With games of several sessions on the wall, each card names its session.
    several = len({card["match"].session_link.assignment_id for card in cards}) > 1
    for card in cards:
        card["session"] = card["match"].session_link.assignment.title if several else ""
    open_sessions = list(
        classroom.assignments.open_now().order_by("opens_at").prefetch_related("groups", "students")
    )
    waiting = list(
        WaitingEntry.objects.filter(assignment__classroom=classroom, match__isnull=True)
        .select_related("student")
        .order_by("created_at")
    )
    warming = list(warming_up(classroom, now))
    return {
        "classroom": classroom,
        "cards": cards,
        "open_sessions": open_sessions,
        "waiting": waiting,
        "warming_up": warming,
        "children": wall_children(classroom, open_sessions, cards, waiting, warming, now),
        "warm_up_sessions": [a for a in open_sessions if a.warm_up_minutes],
        "any_paused": any(c["paused"] for c in cards)
        or any(a.status == Assignment.Status.PAUSED for a in open_sessions),
        "any_live": any(not c["paused"] for c in cards)
        or any(a.status == Assignment.Status.LIVE for a in open_sessions),
        "stalled_count": sum(1 for c in cards if c["stalled"]),
        "goal": cards[0]["goal"] if cards else None,
        "version": version,
    }


def render_wall(request, classroom, *, status=200, error="", partial="board"):
    ctx = wall_context(classroom)
    ctx["error"] = error
    return render_page(request, "classroom/sessions/wall.html", partial, ctx, status=status)


@never_cache
@teacher_page
@require_safe
def session_wall(request, pk):
    classroom = my_class(request, pk)
    return render_wall(request, classroom)


@never_cache
@teacher_page
@require_safe
def wall_board(request, pk):
    """The live part of the wall. 204 while nothing changed since the page's version."""
    classroom = my_class(request, pk)
    if request.GET.get("v") == wall_version(classroom):
        return HttpResponse(status=204)
    ctx = wall_context(classroom)
    ctx["error"] = ""
    return render(request, "classroom/sessions/wall.html#board", ctx)


def after_wall_action(request, classroom):
    if request.htmx:  # the board, and the buttons out of band (only the one that applies now)
        ctx = wall_context(classroom)
        ctx.update(error="", controls_oob=True)
        return render(request, "classroom/sessions/wall.html#board", ctx)
    return redirect("classroom:session_wall", pk=classroom.pk)


@teacher_page
@require_POST
def wall_pause(request, pk):
    classroom = my_class(request, pk)
    now = timezone.now()
    with transaction.atomic():
        classroom.assignments.open_now().filter(status=Assignment.Status.LIVE).update(
            status=Assignment.Status.PAUSED
        )
        live.class_changed(classroom.pk, waiting=True)
        live_matches(classroom).filter(paused_at__isnull=True).update_boards(paused_at=now)
        WarmUp.objects.filter(student__classroom=classroom).pause(now)
    return after_wall_action(request, classroom)


@teacher_page
@require_POST
def wall_resume(request, pk):
    classroom = my_class(request, pk)
    with transaction.atomic():
        classroom.assignments.filter(status=Assignment.Status.PAUSED).update(
            status=Assignment.Status.LIVE
        )
        live.class_changed(classroom.pk, waiting=True)
        # Lock the matches only (of=self: not the session rows the wall's join reaches).
        paused = (
            live_matches(classroom).select_for_update(of=("self",)).filter(paused_at__isnull=False)
        )
        for match in paused:
            match.paused_at = None
            # The wait while paused is not thinking time, and not a stall.
            match.changed_at = timezone.now()
            match.save_board(["paused_at", "changed_at"])
            match.after_change()  # bots to act are enqueued once this commits
        WarmUp.objects.filter(student__classroom=classroom).resume()
    return after_wall_action(request, classroom)


@teacher_page
@require_POST
def wall_end(request, pk):
    classroom = my_class(request, pk)
    if request.POST.get("confirm") != "yes":
        return render_wall(
            request,
            classroom,
            status=422,
            error=_("To end the session, tick “Yes, end it” and press the button again."),
            partial="controls",
        )
    now = timezone.now()
    with transaction.atomic():
        classroom.assignments.filter(opens_at__lte=now).end()
        live_matches(classroom).update_boards(
            status=Match.Status.ABANDONED, finished_at=now, paused_at=None
        )
        for warm_up in WarmUp.objects.filter(student__classroom=classroom, paused_at__isnull=False):
            warm_up.finish(now)  # a paused round would wait for a "Resume all" that never comes
        classroom.end_signins()
    messages.success(request, _("The session has ended. Every child is signed out."))
    return finish(request, reverse("classroom:session_wall", args=[classroom.pk]))
