"""The report pages' context: a child's facts (heatmap, a fact's detail, errors, focus), a
class's (heatmap, table, wrong answers, the rebuild's job), the hardest facts of a range and a
fact's weeks. Shaping only: the statistics are read, never computed here (classroom/views/
reports.py has the views; docs/analytics.md, "What teachers see")."""

import dataclasses
from datetime import timedelta
from statistics import median

from django.db.models import Max
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django.utils import translation
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from classroom import charts
from classroom.diagnosis import CHECK_AGAIN
from classroom.diagnosis import ERROR_KINDS
from classroom.diagnosis import LEARNING
from classroom.diagnosis import RECENT
from classroom.diagnosis import RETRIEVAL_CONTEXTS
from classroom.diagnosis import STATES
from classroom.diagnosis import STRUGGLING
from classroom.diagnosis import TABLE
from classroom.diagnosis import fact_key
from classroom.diagnosis import focus_facts
from classroom.diagnosis import shown_kinds
from classroom.diagnosis import shown_state
from classroom.models import Attempt
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.models import hardest
from classroom.models.incremental import RIGHT as WINDOW_RIGHT
from classroom.models.report_queries import help_lists
from config.collation import by_name
from config.params import int_param

# An unfinished rebuild younger than this blocks a second one for the same class; an older
# one is taken as lost (a worker that never picked it up) and a new one may start.
RECOMPUTE_STALE_AFTER = timedelta(minutes=15)


# --- access ------------------------------------------------------------------------------------


def my_student(request, pk) -> Student:
    """A child of one of the signed-in teacher's classes (archived ones too), or 404."""
    return get_object_or_404(
        Student.objects.for_teacher(request.user).select_related("classroom__school", "group"),
        pk=pk,
    )


def my_class(request, pk) -> Classroom:
    return get_object_or_404(
        Classroom.objects.for_teacher(request.user).select_related("school"), pk=pk
    )


def admin_school(request) -> School:
    return get_object_or_404(School.objects.for_admin(request.user))


def check_fact(a: int, b: int) -> None:
    if a not in TABLE or b not in TABLE:
        raise Http404


def partial(request, template: str, name: str) -> str:
    return f"{template}#{name}" if request.htmx else template


# --- a child's facts -----------------------------------------------------------------------------


def numbers_of(stat: FactStat | None, now=None) -> charts.FactNumbers:
    """A row's numbers for the charts, its state as shown: "check again" for a mastered fact
    whose latest attempt in either order (``pooled_last_at``, set by ``child_stats``) is
    four weeks old or more (``diagnosis.shown_state``)."""
    if stat is None:
        return charts.FactNumbers()
    state = stat.state if stat.state in STATES else LEARNING
    last = getattr(stat, "pooled_last_at", stat.last_attempt_at)
    # A row written before the pooled figures existed (0 recent attempts: the next rebuild
    # or ``manage.py recompute`` fills them) shows its own counts instead.
    recent, right = stat.recent_attempts, stat.recent_correct
    speed, from_game = stat.speed_ms, stat.speed_from_game
    if not recent:
        recent, right = stat.attempts, stat.correct
        speed, from_game = stat.median_ms, stat.median_ms is not None  # games' times then
    return charts.FactNumbers(
        state=shown_state(state, last, now or timezone.now()),
        attempts=stat.attempts,
        correct=stat.correct,
        omissions=stat.omissions,
        recent_attempts=recent,
        recent_correct=right,
        speed_ms=speed,
        speed_from_game=from_game,
    )


def own_window(numbers: charts.FactNumbers, stat, twin) -> charts.FactNumbers:
    """``numbers`` with this order's own latest answers ("As asked": FactStat.latest), when
    the rows keep them: 0 for an order asked only the other way round; unchanged for a row
    written before the window existed."""
    if stat is not None and stat.latest:
        right = sum(1 for entry in stat.latest if entry[WINDOW_RIGHT])
        return dataclasses.replace(numbers, own_attempts=len(stat.latest), own_correct=right)
    if stat is None and twin is not None and twin.latest:
        return dataclasses.replace(numbers, own_attempts=0)
    return numbers


def child_stats(student) -> dict[tuple[int, int], FactStat]:
    """The child's rows by fact as asked, each with ``pooled_last_at``: the latest attempt of
    the fact in either order."""
    stats = {(s.a, s.b): s for s in FactStat.objects.filter(student=student)}
    for (a, b), stat in stats.items():
        twin = stats.get((b, a))
        times = [t.last_attempt_at for t in (stat, twin) if t and t.last_attempt_at]
        stat.pooled_last_at = max(times, default=None)
    return stats


def child_heatmap(student, stats, *, together=False, selected=None) -> list[dict]:
    query = "?view=together" if together else ""

    def cell(a, b):
        if together and a != b:  # a square (7 × 7) is its own twin: count it once
            numbers = charts.together(numbers_of(stats.get((a, b))), numbers_of(stats.get((b, a))))
        else:  # the state pools both orders: a fact met only the other way round shows it
            numbers = numbers_of(stats.get((a, b)) or stats.get((b, a)))
            numbers = own_window(numbers, stats.get((a, b)), stats.get((b, a)))
        href = reverse("classroom:child_fact", args=[student.pk, a, b]) + query
        return charts.child_cell(a, b, numbers, href=href, selected=selected == (a, b))

    return charts.heatmap(cell)


def timed_median(student, a: int, b: int) -> dict:
    """The median time of the right answers to a × b among its latest 10 attempts made
    outside "accuracy first" sessions (a game outside any session is timed). When every
    one of those attempts came from accuracy-first sessions, no time is shown at all."""
    rows = list(
        Attempt.objects.filter(student=student, a=a, b=b)
        .order_by("-created_at", "-pk")
        .values_list(
            "correct",
            "response_ms",
            "match__session_link__assignment__accuracy_first",
            "warm_up__timed",
            "context",
        )[:200]
    )
    timed = [
        (ok, ms, context)
        for ok, ms, accuracy_first, warm_up_timed, context in rows
        if not accuracy_first and warm_up_timed is not False
    ][:RECENT]
    times = [(ms, context) for ok, ms, context in timed if ok and ms is not None]
    values = [ms for ms, _context in times]
    return {
        "median_ms": int(median(values)) if values else None,
        "median_s": round(median(values) / 1000, 1) if values else None,
        "timed_attempts": len(timed),
        "all_accuracy_first": bool(rows) and not timed,
        # every time in it is a capture's: a game time, choosing the cards included
        "game_time": bool(times)
        and all(context not in RETRIEVAL_CONTEXTS for _ms, context in times),
    }


def fact_detail(student, stats, a: int, b: int, *, together: bool = False) -> dict:
    stat = stats.get((a, b))
    numbers = numbers_of(stat)
    twin = numbers_of(stats.get((b, a))) if a != b else None
    # "Twins together": the square the teacher tapped shows both orders; the panel says so
    # above the numbers of the fact as asked.
    both = charts.together(numbers, twin) if together and twin is not None else None
    errors = []
    if stat is not None:
        errors = [
            {"kind": k, "label": charts.kind_label(k), "count": int(stat.errors.get(k, 0))}
            for k in ERROR_KINDS
            if stat.errors.get(k)
        ]
    recent = list(
        Attempt.objects.filter(student=student, a=a, b=b)
        .select_related("match")
        .order_by("-created_at", "-pk")[:RECENT]
    )
    for attempt in recent:
        attempt.kind_label = "" if attempt.correct else charts.kind_label(attempt.kind)
    return {
        "a": a,
        "b": b,
        "product": a * b,
        "stat": stat,
        "numbers": numbers,
        "state_label": charts.state_label(numbers.shown),
        "state_mark": charts.state_mark(numbers.shown),
        "speed_words": charts.speed_words(numbers),
        "twin": twin,
        "twin_label": charts.state_label(twin.shown) if twin else "",
        "both": both,
        "both_label": charts.state_label(both.shown) if both else "",
        "wrong_answers": charts.wrong_answer_rows(a, b, stat.wrong_answers if stat else {}),
        "errors": errors,
        "recent": recent,
        "time": timed_median(student, a, b),
        **fact_history(student, a, b),
    }


def evidence_contexts(student) -> set[str]:
    """The contexts (capture, challenge, missed...) of the child's attempts: which kinds of
    wrong answer their evidence can contain (``diagnosis.CONTEXT_KINDS``)."""
    return set(
        Attempt.objects.filter(student=student)
        .order_by()
        .values_list("context", flat=True)
        .distinct()
    )


def error_summary(stats, contexts) -> list[dict]:
    """The child's wrong answers by kind, in ``ERROR_KINDS`` order: a kind counted at least
    once, or one the evidence's contexts can produce (game-only evidence never shows an
    empty row for a kind no game can give)."""
    totals = dict.fromkeys(ERROR_KINDS, 0)
    for stat in stats.values():
        for kind, n in (stat.errors or {}).items():
            if kind in totals:
                totals[kind] += int(n)
    biggest = max(totals.values(), default=0) or 1
    return [
        {
            "kind": kind,
            "label": charts.kind_label(kind),
            "help": charts.kind_help(kind),
            "count": totals[kind],
            "percent": round(100 * totals[kind] / biggest),
        }
        for kind in shown_kinds(totals, contexts)
    ]


def child_focus(student, stats) -> list[dict]:
    """The focus facts (``diagnosis.focus_facts``) over the pooled recent figures: one per
    fact and its twin, in the order the child got wrong most; "2 right of 5" are the
    latest answers of both orders together."""
    states = {key: stat.pooled_mastery() for key, stat in stats.items()}
    wrong = {key: stat.attempts - stat.correct for key, stat in stats.items()}
    out = []
    for a, b in focus_facts(states, wrong=wrong):
        n = numbers_of(stats[(a, b)])
        out.append(
            {
                "a": a,
                "b": b,
                "numbers": n,
                "href": reverse("classroom:child_fact", args=[student.pk, a, b]),
            }
        )
    return out


def trend_for(scope, scope_id, today) -> dict:
    first = charts.week_of(today) - timedelta(weeks=charts.TREND_WEEKS - 1)
    rows = DailyTrend.objects.filter(scope=scope, scope_id=scope_id, day__gte=first).values_list(
        "day", "attempts", "correct"
    )
    return charts.trend_chart(charts.weekly(rows, today))


def child_context(request, student, selected=None) -> dict:
    together = request.GET.get("view") == "together"
    stats = child_stats(student)
    school = student.classroom.school
    a, b = selected or (None, None)
    seen = [s for s in stats.values() if s.attempts]
    return {
        "student": student,
        "classroom": student.classroom,
        "school": school,
        "together": together,
        "rows": child_heatmap(student, stats, together=together, selected=selected),
        "detail": fact_detail(student, stats, a, b, together=together) if selected else None,
        "focus": child_focus(student, stats),
        "errors": error_summary(stats, evidence_contexts(student)),
        "trend": trend_for(DailyTrend.Scope.STUDENT, student.pk, school.local_today()),
        # a fact and its twin once, as the counts of states beside it
        "facts_seen": len({fact_key(s.a, s.b, commuted=True) for s in seen}),
        "counts": state_counts(stats),
        "updated": max((s.updated_at for s in stats.values()), default=None),
        "table_rows": fact_table(stats, together),
        # the "needs help" flag and its reasons (one query)
        "help": Student.reports.filter(pk=student.pk).with_help_flags().first(),
    }


def state_counts(stats) -> dict[str, int]:
    """How many facts (a fact and its twin once: they share a state) are in each state as
    shown, check again and right but slow included."""
    counts = dict.fromkeys([*STATES, CHECK_AGAIN, charts.SLOW], 0)
    for (a, b), stat in stats.items():
        if a > b and (b, a) in stats:
            continue
        counts[numbers_of(stat).shown] += 1
    return counts


def fact_table(stats, together: bool) -> list[dict]:
    """The numbers behind the heatmap, one row per fact (a ≤ b when together)."""
    rows = []
    for a in TABLE:
        for b in TABLE:
            if together and a > b:
                continue
            n = numbers_of(stats.get((a, b)))
            if together and a != b:
                n = charts.together(n, numbers_of(stats.get((b, a))))
            # the counts are this order's; the state pools both, as on the heatmap
            state = n.shown if n.attempts else numbers_of(stats.get((b, a))).shown
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "numbers": n,
                    "label": charts.state_label(state),
                    "speed": charts.speed_words(n),
                }
            )
    return rows


# --- a class ----------------------------------------------------------------------------------


def class_stats(classroom) -> dict[tuple[int, int], ClassFactStat]:
    return {(s.a, s.b): s for s in ClassFactStat.objects.filter(classroom=classroom)}


def group_heatmap(stats: dict, href=None, selected=None) -> list[dict]:
    """A class or school heatmap: both orders of a fact show the same commuted numbers."""

    def cell(a, b):
        stat = stats.get((min(a, b), max(a, b)))
        children = stat["children"] if stat else 0
        struggling = stat["struggling"] if stat else 0
        return charts.group_cell(
            a,
            b,
            children,
            struggling,
            href=href(a, b) if href else "",
            selected=selected == (a, b),
        )

    return charts.heatmap(cell)


def as_numbers(stat: ClassFactStat) -> dict:
    return {
        "children": stat.children,
        "struggling": stat.struggling,
        "attempts": stat.attempts,
        "correct": stat.correct,
        "omissions": stat.omissions,
        "wrong_answers": stat.wrong_answers or {},
    }


def group_table(stats: dict) -> list[dict]:
    rows = []
    for a in TABLE:
        for b in TABLE:
            if a > b:
                continue
            s = stats.get((a, b)) or {"children": 0, "struggling": 0, "attempts": 0, "correct": 0}
            rows.append(
                {
                    "a": a,
                    "b": b,
                    **s,
                    "band": charts.band_label(charts.group_band(s["children"], s["struggling"])),
                    "accuracy": percent(s["correct"], s["attempts"]),
                }
            )
    return rows


def percent(part, whole):
    return round(100 * part / whole) if whole else None


def common_wrong_answers(stats: dict, limit: int = 8) -> list[dict]:
    rows = []
    for (a, b), s in stats.items():
        for row in charts.wrong_answer_rows(a, b, s.get("wrong_answers") or {}, limit=100):
            rows.append({"a": a, "b": b, **row})
    rows.sort(key=lambda r: (-r["count"], r["a"], r["b"], r["answer"]))
    return rows[:limit]


def latest_job(classroom, pk=None):
    jobs = RecomputeJob.objects.filter(classroom=classroom)
    if pk is not None:
        return jobs.filter(pk=pk).first()
    return jobs.first()


def job_context(job) -> dict:
    finished = job.status in (RecomputeJob.Status.DONE, RecomputeJob.Status.FAILED)
    percent = round(100 * job.done / job.total) if job.total else (100 if finished else 0)
    return {"job": job, "finished": finished, "percent": min(percent, 100)}


def class_context(request, classroom, selected=None) -> dict:
    stats = {key: as_numbers(s) for key, s in class_stats(classroom).items()}
    school = classroom.school
    students = list(
        Student.reports.filter(classroom=classroom)
        .active()
        .with_help_flags()
        .order_by("sort_name", "name", "pk")
    )
    lists = help_lists(students)
    job_pk = int_param(request.GET.get("job", ""))
    job = latest_job(classroom, job_pk)
    if job is not None and job_pk is None and job.status == RecomputeJob.Status.DONE:
        job = None  # an old rebuild's "Rebuilt." is news only on the page that asked for it
    updated = ClassFactStat.objects.filter(classroom=classroom).aggregate(t=Max("updated_at"))["t"]
    return {
        "classroom": classroom,
        "school": school,
        "rows": group_heatmap(
            stats,
            href=lambda a, b: reverse("classroom:class_fact", args=[classroom.pk, a, b]),
            selected=selected,
        ),
        "table_rows": group_table(stats),
        "wrong": common_wrong_answers(stats),
        "students": students,
        "needing_help": lists["flagged"],
        "stuck": lists["stuck"],
        "detail": class_fact_detail(classroom, stats, *selected) if selected else None,
        "progress": job_context(job) if job else None,
        "updated": updated,
        "trend": trend_for(DailyTrend.Scope.CLASSROOM, classroom.pk, school.local_today()),
        "hardest": None if request.htmx else class_hardest_context(request, classroom),
    }


def class_fact_detail(classroom, stats, a: int, b: int) -> dict:
    """Which children struggle with a × b (either order), weakest first. Archived children
    count in the class's square (ClassFactStat), so they are listed too, marked archived; only
    active children are listed as "not met yet"."""
    students = {s.pk: s for s in classroom.students.all()}
    by_child = {}
    for stat in FactStat.objects.filter(student__in=list(students), a__in=(a, b), b__in=(a, b)):
        if {stat.a, stat.b} != {a, b}:
            continue
        by_child.setdefault(stat.student_id, {})[(stat.a, stat.b)] = stat
    rows = []
    for sid, mine in by_child.items():
        asked = numbers_of(mine.get((a, b)))
        twin = numbers_of(mine.get((b, a))) if a != b else charts.FactNumbers()
        both = charts.together(asked, twin) if a != b else asked
        rows.append(
            {
                "student": students[sid],
                "numbers": both,
                "state_label": charts.state_label(both.shown),
                "asked": charts.state_label(asked.shown),
                "twin": charts.state_label(twin.shown),
                "struggling": bool({asked.state, twin.state} & set(STRUGGLING)),
                "href": reverse("classroom:child_fact", args=[sid, a, b]),
            }
        )
    rows.sort(
        key=lambda r: (
            not r["struggling"],
            r["numbers"].accuracy if r["numbers"].accuracy is not None else 1,
            r["student"].sort_name,
            r["student"].name,
        )
    )
    stat = stats.get((min(a, b), max(a, b)))
    not_tried = sorted(
        (s for pk, s in students.items() if pk not in by_child and not s.is_archived),
        key=lambda s: (s.sort_name, s.name),
    )
    return {
        "a": a,
        "b": b,
        "product": a * b,
        "struggling": [r for r in rows if r["struggling"]],
        "fine": [r for r in rows if not r["struggling"]],
        "not_tried": not_tried,
        "stat": stat,
        "wrong_answers": charts.wrong_answer_rows(
            min(a, b), max(a, b), (stat or {}).get("wrong_answers") or {}
        ),
    }


# --- hardest facts, median times, a fact's weeks (classroom/models/hardest.py) ----------------


def range_choice(request) -> tuple[str, bool]:
    """The date range asked for (``?range=week|4w|all``) and whether it is one: none is this
    week; an unknown one shows this week too, with a message, and the page answers 422."""
    value = request.GET.get("range", "")
    if value in hardest.RANGES:
        return value, True
    return hardest.DEFAULT_RANGE, value == ""


def range_label(key: str) -> str:
    return {
        hardest.WEEK: _("This week"),
        hardest.FOUR_WEEKS: _("Last 4 weeks"),
        hardest.ALL_TIME: _("All time"),
    }[key]


def range_links(current: str, page_url: str, part_url: str) -> list[dict]:
    """The range choices as real links (the page, opened at the list) and their htmx
    address (the list alone); the current one is marked."""
    return [
        {
            "key": key,
            "label": range_label(key),
            "href": f"{page_url}?range={key}#hardest",
            "hx": f"{part_url}?range={key}",
            "current": key == current,
        }
        for key in hardest.RANGES
    ]


def time_rows(times: dict) -> list[dict]:
    """The class's median times of right answers, one row per kind of evidence."""
    labels = {
        "warm_up": (
            pgettext("median times table: answers typed in the warm-up", "warm-up"),
            _("typed answers in the warm-up"),
        ),
        "game": (
            pgettext("median times table: captures in a game", "game time"),
            _("captures in a game: includes choosing the cards"),
        ),
        "challenge": (
            pgettext("median times table: challenges", "challenges"),
            _("saying the other player missed a capture"),
        ),
    }
    rows = []
    for key, (label, help_text) in labels.items():
        t = times[key]
        ms = t["median_ms"]
        rows.append(
            {
                "key": key,
                "label": label,
                "help": help_text,
                "seconds": round(ms / 1000, 1) if ms is not None else None,
                "timed": t["timed"],
                "accuracy_first_only": ms is None and t["accuracy_first"] > 0,
            }
        )
    return rows


def hardest_rows(facts) -> list:
    """Each ranked fact with its typical wrong answers in words (``charts.explain_answer``)."""
    for f in facts:
        f.wrong_rows = charts.wrong_answer_rows(
            f.a, f.b, {str(answer): n for answer, n in f.wrong_answers}, limit=hardest.TYPICAL
        )
    return facts


def hardest_context(request, school, class_ids, page_url: str, part_url: str) -> dict:
    """The ranked list and the median times of these classes over the range asked for."""
    key, valid = range_choice(request)
    since = hardest.range_start(school, key)
    attempts = hardest.attempts_of(class_ids, since)
    return {
        "range": key,
        "range_label": range_label(key),
        "bad_range": not valid,
        "since": since,
        "ranges": range_links(key, page_url, part_url),
        "rows": hardest_rows(hardest.hardest_facts(attempts)),
        "times": time_rows(hardest.median_times(attempts)),
        "attempts": attempts,
    }


def class_hardest_context(request, classroom) -> dict:
    """The class's hardest facts, each with who struggles: names, right of attempts in the
    range, a link to their own fact panel (children not archived only)."""
    ctx = hardest_context(
        request,
        classroom.school,
        [classroom.pk],
        reverse("classroom:class_report", args=[classroom.pk]),
        reverse("classroom:class_hardest", args=[classroom.pk]),
    )
    rows = hardest.strugglers(ctx.pop("attempts"), ctx["rows"])
    children = Student.objects.in_bulk({r["student_id"] for r in rows})
    by_fact = {}
    for r in rows:
        child = children[r["student_id"]]
        by_fact.setdefault((r["lo"], r["hi"]), []).append(
            {
                "student": child,
                "attempts": r["n"],
                "correct": r["n_right"],
                "href": reverse("classroom:child_fact", args=[child.pk, r["lo"], r["hi"]]),
            }
        )
    for f in ctx["rows"]:
        f.who = sorted(
            by_fact.get((f.a, f.b), []),
            key=lambda w: (w["correct"] / w["attempts"], w["student"].sort_name, w["student"].pk),
        )
        f.href = reverse("classroom:class_fact", args=[classroom.pk, f.a, f.b])
    return {**ctx, "scope": "class", "classroom": classroom}


def school_hardest_context(request, school, classes) -> dict:
    """The school's hardest facts (active classes), each opening per class how many of its
    children struggle: a school admin sees no child's name (docs/classroom/school-admin.md)."""
    classes = by_name(classes.order_by("name", "pk"), translation.get_language())
    ctx = hardest_context(
        request,
        school,
        [c.pk for c in classes],
        reverse("classroom:school_report"),
        reverse("classroom:school_hardest"),
    )
    per_class = {
        (room, lo, hi): (y, x)
        for room, lo, hi, y, x, _n, _r in hardest.fact_totals(ctx.pop("attempts"), by_class=True)
    }
    for f in ctx["rows"]:
        f.who = [
            {"classroom": c, "children": per_class[key][0], "struggling": per_class[key][1]}
            for c in classes
            if (key := (c.pk, f.a, f.b)) in per_class and per_class[key][1]
        ]
    return {**ctx, "scope": "school"}


def fact_history(student, a: int, b: int) -> dict:
    """A fact of a child, both orders together: right of attempts per week for the last
    ``charts.TREND_WEEKS`` weeks (empty weeks kept), and when it was last practised."""
    school = student.classroom.school
    today = school.local_today()
    first = charts.week_of(today) - timedelta(weeks=charts.TREND_WEEKS - 1)
    days = hardest.fact_days(student, a, b, school.day_start(first), school.zone)
    last = hardest.last_practised(student, a, b)
    ago = None
    if last is not None:
        day = timezone.localtime(last, school.zone).date()
        ago = _("today") if day >= today else _("%(time)s ago") % {"time": timesince(day, today)}
    return {
        "fact_trend": fact_trend_chart(charts.weekly(days, today)),
        "last_practised": last,
        "last_practised_ago": ago,
    }


FACT_TREND_WIDTH, FACT_TREND_HEIGHT = 600, 150
FACT_TREND_TOP, FACT_TREND_BASELINE = 26, 116  # room for the value above the tallest bar


def fact_trend_chart(weeks: list[dict]) -> dict:
    """Bars for a fact's weeks: each week's height is its attempts (the busiest week the
    tallest), the right ones drawn solid at the bottom; a week without attempts has no bar
    and a dash. Whole numbers only (never localized in the SVG)."""
    column = FACT_TREND_WIDTH // max(len(weeks), 1)
    bar = column * 3 // 5
    plot = FACT_TREND_BASELINE - FACT_TREND_TOP
    busiest = max((w["attempts"] for w in weeks), default=0) or 1
    bars = []
    for i, w in enumerate(weeks):
        x = i * column + (column - bar) // 2
        total_h = round(plot * w["attempts"] / busiest)
        right_h = round(plot * w["correct"] / busiest)
        bars.append(
            {
                **w,
                "x": x,
                "cx": i * column + column // 2,
                "width": bar,
                "total_y": FACT_TREND_BASELINE - total_h,
                "total_h": total_h,
                "right_y": FACT_TREND_BASELINE - right_h,
                "right_h": right_h,
                "value_y": FACT_TREND_BASELINE - total_h - 6,
            }
        )
    return {
        "width": FACT_TREND_WIDTH,
        "height": FACT_TREND_HEIGHT,
        "baseline": FACT_TREND_BASELINE,
        "label_y": FACT_TREND_BASELINE + 20,
        "weeks": bars,
        "total": sum(w["attempts"] for w in weeks),
        "right": sum(w["correct"] for w in weeks),
        "weeks_with_data": sum(1 for w in weeks if w["attempts"]),
    }
