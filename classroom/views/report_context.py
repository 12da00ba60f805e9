"""The report pages' context: a child's facts (heatmap, a fact's detail, errors, focus), a
class's (heatmap, table, wrong answers, the rebuild's job), the hardest facts of a range and a
fact's weeks. Shaping only: the statistics are read, never computed here (classroom/views/
reports.py has the views; docs/analytics.md, "What teachers see")."""

import dataclasses
from collections import Counter
from datetime import date
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
from classroom import error_kinds as ek
from classroom import knowledge
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.models import hardest
from classroom.models.report_queries import add_help_flags
from classroom.models.report_queries import help_lists
from config.collation import by_name
from config.params import int_param

TABLE = knowledge.FACTORS
RECENT = 10  # the latest answers listed in a fact's panel
WEEK_DAYS = 7  # "the last 7 days", day by day

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


def child_stats(student) -> dict[tuple[int, int], FactStat]:
    """The child's rows by fact as asked."""
    return {(s.a, s.b): s for s in FactStat.objects.filter(student=student)}


def pooled_square(x: knowledge.Square, y: knowledge.Square) -> knowledge.Square:
    """A fact and its twin in one square ("Twins together"): the weaker of the two (its
    fact and state), their latest answers added up."""
    weaker = min((x, y), key=lambda s: knowledge.SHOWN_STATES.index(s.state))
    return dataclasses.replace(
        weaker,
        answered=x.answered or y.answered,
        right=x.right + y.right,
        latest=x.latest + y.latest,
    )


def child_heatmap(student, summary: knowledge.Summary, *, together=False, selected=None):
    query = "?view=together" if together else ""
    squares = summary.squares

    def cell(a, b):
        square, twin = squares[(a, b)], squares[(b, a)]
        if together and a != b:
            # Both squares of the fact alike: the weaker order's state, the other order's
            # mark beside ⇄ when they differ.
            weaker = pooled_square(square, twin)
            stronger = twin if (weaker.a, weaker.b) == (a, b) else square
            square, twin = weaker, stronger
        href = reverse("classroom:child_fact", args=[student.pk, a, b]) + query
        return charts.child_cell(square, twin, href=href, selected=selected == (a, b), at=(a, b))

    return charts.heatmap(cell)


def timed_median(student, a: int, b: int) -> dict:
    """The median time of the right answers to a × b among its latest 10 attempts made
    outside "accuracy first" sessions (a game outside any session is timed). When every
    one of those attempts came from accuracy-first sessions, no time is shown at all."""
    rows = list(
        Attempt.objects.filter(student=student, a=a, b=b)
        .exclude(context=Attempt.Context.FORCED)
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
        and all(context not in knowledge.RETRIEVAL for _ms, context in times),
    }


def last_days(school) -> list[date]:
    today = school.local_today()
    return [today - timedelta(days=n) for n in range(WEEK_DAYS - 1, -1, -1)]


def fact_detail(student, stats, summary: knowledge.Summary, a: int, b: int) -> dict:
    stat, twin_stat = stats.get((a, b)), stats.get((b, a))
    square, twin = summary.squares[(a, b)], summary.squares[(b, a)]
    named = {x: kind for (p, q, x), kind in summary.named.items() if (p, q) == (a, b)}
    by_kind = Counter()
    for answer, n in (stat.wrong_answers if stat else {}).items():
        by_kind[named.get(int(answer), ek.UNCLEAR)] += int(n)
    if stat is not None and stat.omissions:
        by_kind[ek.OMISSION] += stat.omissions
    errors = [
        {"kind": k, "label": charts.kind_label(k), "count": by_kind[k]}
        for k in ek.ERROR_KINDS
        if by_kind[k]
    ]
    recent = list(
        Attempt.objects.filter(student=student, a=a, b=b)
        .select_related("match")
        .order_by("-created_at", "-pk")[:RECENT]
    )
    for attempt in recent:
        kind = summary.named.get((a, b, attempt.answer), attempt.kind)
        attempt.kind_label = "" if attempt.correct else charts.kind_label(kind)
    days = last_days(student.classroom.school)
    orders = [(a, b, stat)] if a == b else [(a, b, stat), (b, a, twin_stat)]
    return {
        "a": a,
        "b": b,
        "product": a * b,
        "stat": stat,
        "square": square,
        "twin": twin if a != b else None,
        "state_label": charts.state_label(square.state),
        "state_mark": charts.state_mark(square.state),
        "words": charts.square_words(square),
        "twin_words": charts.square_words(twin) if a != b else "",
        "differs": charts.differs(square, twin),
        "speed_words": charts.speed_words(square.speed_ms, square.speed_from_game),
        "accuracy_percent": round(100 * stat.correct / stat.attempts)
        if stat and stat.attempts
        else None,
        "wrong_answers": charts.wrong_answer_rows(a, b, stat.wrong_answers if stat else {}, named),
        "errors": errors,
        "recent": recent,
        "time": timed_median(student, a, b),
        # the last 7 days, day by day, of each order: learning shows within the week
        "week_orders": [(x, y) for x, y, _row in orders],
        "week_rows": [
            {
                "day": day,
                "cells": [
                    {"state": state, "label": charts.state_label(state) if state else "—"}
                    for state in (
                        knowledge.state_on(row.order if row else None, day)
                        for _x, _y, row in orders
                    )
                ],
            }
            for day in days
        ],
        **fact_history(student, a, b),
    }


def error_summary(summary: knowledge.Summary) -> list[dict]:
    """The child's wrong answers by kind, as the reports name them, in ``ERROR_KINDS``
    order: the kinds counted at least once."""
    totals = summary.errors
    biggest = max(totals.values(), default=0) or 1
    return [
        {
            "kind": kind,
            "label": charts.kind_label(kind),
            "help": charts.kind_help(kind),
            "count": totals[kind],
            "percent": round(100 * totals[kind] / biggest),
        }
        for kind in ek.ERROR_KINDS
        if totals.get(kind)
    ]


def child_focus(student, summary: knowledge.Summary) -> list[dict]:
    """The focus facts (``knowledge.summarise``: a stuck fact first, then the least known),
    each with its latest answers."""
    return [
        {
            "a": a,
            "b": b,
            "square": summary.squares[(a, b)],
            "href": reverse("classroom:child_fact", args=[student.pk, a, b]),
        }
        for a, b in summary.focus
    ]


def main_error_context(summary: knowledge.Summary, errors: list[dict]) -> dict | None:
    """The child's main kind of mistake, in words, with what to do; None when no kind is
    shared by enough answers (``error_kinds.main_error``)."""
    kind = summary.main_error
    if kind is None:
        return None
    named = sum(e["count"] for e in errors if e["kind"] in ek.MECHANISMS)
    count = next((e["count"] for e in errors if e["kind"] == kind), 0)
    return {
        "kind": kind,
        "label": charts.kind_label(kind),
        "help": charts.kind_help(kind),
        "advice": charts.kind_advice(kind),
        "count": count,
        "named": named,
    }


def order_pattern_context(student, summary: knowledge.Summary) -> dict | None:
    """ "Knows 3 × 7 but not 7 × 3": the facts known one way round and not yet the other,
    named once there are enough of them (``knowledge.ORDER_PATTERN_FACTS``)."""
    if not summary.order_pattern:
        return None
    return {
        "facts": [
            {
                "known": (a, b),
                "not_yet": (b, a),
                "href": reverse("classroom:child_fact", args=[student.pk, b, a]),
            }
            for a, b in summary.order_gaps
        ],
        "count": len(summary.order_gaps),
    }


def trend_for(scope, scope_id, today) -> dict:
    first = today - timedelta(days=charts.TREND_DAYS - 1)
    rows = DailyTrend.objects.filter(scope=scope, scope_id=scope_id, day__gte=first).values_list(
        "day", "attempts", "correct"
    )
    return charts.trend_chart(charts.daily(rows, today))


def week_counts(stats, days: list[date]) -> list[dict]:
    """The child's facts known and not yet at the end of each of the last 7 days, from the
    rows' day-by-day history (``knowledge.state_on``)."""
    orders = [row.order for row in stats.values()]
    out = []
    for day in days:
        states = [knowledge.state_on(order, day) for order in orders]
        out.append(
            {
                "day": day,
                "known": sum(1 for s in states if s in (knowledge.KNOWN, knowledge.SLOW)),
                "not_yet": states.count(knowledge.NOT_YET),
            }
        )
    return out


def child_context(request, student, selected=None) -> dict:
    together = request.GET.get("view") == "together"
    now = timezone.now()
    stats = child_stats(student)
    (help_row,) = add_help_flags([student], now)
    summary = help_row.summary
    school = student.classroom.school
    errors = error_summary(summary)
    counts = Counter(s.state for s in summary.squares.values())
    return {
        "student": student,
        "classroom": student.classroom,
        "school": school,
        "together": together,
        "summary": summary,
        "rows": child_heatmap(student, summary, together=together, selected=selected),
        "detail": fact_detail(student, stats, summary, *selected) if selected else None,
        "focus": child_focus(student, summary),
        "errors": errors,
        "main_error": main_error_context(summary, errors),
        "order_pattern": order_pattern_context(student, summary),
        "trend": trend_for(DailyTrend.Scope.STUDENT, student.pk, school.local_today(now)),
        "week": week_counts(stats, last_days(school)),
        "counts": {state: counts.get(state, 0) for state in knowledge.SHOWN_STATES},
        # "not yet" squares of facts never answered: guessed from the other answers
        "estimated": sum(
            1 for s in summary.squares.values() if s.state == knowledge.NOT_YET and not s.answered
        ),
        "answered": summary.answered,
        "updated": max((s.updated_at for s in stats.values()), default=None),
        "table_rows": fact_table(summary, together),
        "help": help_row,
    }


def fact_table(summary: knowledge.Summary, together: bool) -> list[dict]:
    """The numbers behind the heatmap, one row per fact as asked (a ≤ b when together)."""
    rows = []
    for a in TABLE:
        for b in TABLE:
            if together and a > b:
                continue
            square = summary.squares[(a, b)]
            if together and a != b:
                square = dataclasses.replace(
                    pooled_square(square, summary.squares[(b, a)]), a=a, b=b
                )
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "square": square,
                    "label": charts.state_label(square.state),
                    "speed": charts.speed_words(square.speed_ms, square.speed_from_game),
                }
            )
    return rows


# --- a class ----------------------------------------------------------------------------------


def group_heatmap(counts: dict, href=None, selected=None) -> list[dict]:
    """A class or school heatmap: each fact as asked, its children counted by state."""

    def cell(a, b):
        return charts.group_cell(
            a,
            b,
            counts.get((a, b), charts.GroupCounts()),
            href=href(a, b) if href else "",
            selected=selected == (a, b),
        )

    return charts.heatmap(cell)


def group_table(counts: dict) -> list[dict]:
    rows = []
    for a in TABLE:
        for b in TABLE:
            c = counts.get((a, b), charts.GroupCounts())
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "counts": c,
                    "band": charts.band_label(charts.group_band(c)),
                }
            )
    return rows


def class_wrong_answers(students) -> tuple[dict, dict]:
    """The children's wrong answers per fact as asked, added up ({(7, 8): {"48": 3}}), and
    the kind of each answer ({(7, 8): {48: "operand"}}): the kind most of the children who
    gave it had it named (each child's answers are named with their own shares of kinds)."""
    out: dict[tuple[int, int], dict] = {}
    for a, b, wrong in FactStat.objects.filter(student__in=[s.pk for s in students]).values_list(
        "a", "b", "wrong_answers"
    ):
        merged = out.setdefault((a, b), {})
        for key, n in (wrong or {}).items():
            merged[key] = merged.get(key, 0) + int(n)
    votes: dict[tuple[int, int], dict[int, Counter]] = {}
    for student in students:
        for (a, b, answer), kind in student.summary.named.items():
            votes.setdefault((a, b), {}).setdefault(answer, Counter())[kind] += 1
    named = {
        fact: {answer: count.most_common(1)[0][0] for answer, count in answers.items()}
        for fact, answers in votes.items()
    }
    return out, named


def common_wrong_answers(wrong: dict, named: dict, limit: int = 8) -> list[dict]:
    rows = []
    for (a, b), answers in wrong.items():
        for row in charts.wrong_answer_rows(a, b, answers, named.get((a, b)), limit=100):
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
    school = classroom.school
    students = (
        Student.reports.filter(classroom=classroom)
        .active()
        .order_by("sort_name", "name", "pk")
        .with_help_flags()
    )
    lists = help_lists(students)
    counts = charts.count_squares([s.summary for s in students])
    wrong, named = class_wrong_answers(students)
    job_pk = int_param(request.GET.get("job", ""))
    job = latest_job(classroom, job_pk)
    if job is not None and job_pk is None and job.status == RecomputeJob.Status.DONE:
        job = None  # an old rebuild's "Rebuilt." is news only on the page that asked for it
    updated = FactStat.objects.filter(student__in=[s.pk for s in students]).aggregate(
        t=Max("updated_at")
    )["t"]
    return {
        "classroom": classroom,
        "school": school,
        "rows": group_heatmap(
            counts,
            href=lambda a, b: reverse("classroom:class_fact", args=[classroom.pk, a, b]),
            selected=selected,
        ),
        "table_rows": group_table(counts),
        "wrong": common_wrong_answers(wrong, named),
        "students": students,
        "needing_help": lists["flagged"],
        "stuck": lists["stuck"],
        "detail": class_fact_detail(classroom, students, wrong, named, *selected)
        if selected
        else None,
        "progress": job_context(job) if job else None,
        "updated": updated,
        "trend": trend_for(DailyTrend.Scope.CLASSROOM, classroom.pk, school.local_today()),
        "hardest": None if request.htmx else class_hardest_context(request, classroom),
    }


def class_fact_detail(classroom, students, wrong, named, a: int, b: int) -> dict:
    """The class's children on a × b as asked, by what their own square says (not yet
    first, the least known first), each with the twin's state."""
    rows = []
    for student in students:
        square = student.summary.squares[(a, b)]
        twin = student.summary.squares[(b, a)]
        rows.append(
            {
                "student": student,
                "square": square,
                "state_label": charts.state_label(square.state),
                "twin_label": charts.state_label(twin.state),
                "href": reverse("classroom:child_fact", args=[student.pk, a, b]),
            }
        )
    rows.sort(key=lambda r: (r["square"].p, r["student"].sort_name, r["student"].name))
    known = (knowledge.KNOWN, knowledge.SLOW)
    return {
        "a": a,
        "b": b,
        "product": a * b,
        "not_yet": [r for r in rows if r["square"].state == knowledge.NOT_YET],
        "unsure": [r for r in rows if r["square"].state == knowledge.UNSURE],
        "known": [r for r in rows if r["square"].state in known],
        "wrong_answers": charts.wrong_answer_rows(a, b, wrong.get((a, b), {}), named.get((a, b))),
    }


# --- hardest facts, median times, a fact's weeks (classroom/models/hardest.py) ----------------


def range_choice(request) -> tuple[str, bool]:
    """The date range asked for (``?range=7d|4w|all``) and whether it is one: none is the
    last 7 days; an unknown one shows the last 7 days too, with a message, and the page
    answers 422."""
    value = request.GET.get("range", "")
    if value in hardest.RANGES:
        return value, True
    return hardest.DEFAULT_RANGE, value == ""


def range_label(key: str) -> str:
    return {
        hardest.WEEK: _("Last 7 days"),
        hardest.FOUR_WEEKS: _("Last 28 days"),
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
