"""Questions the teachers' reports ask about many children (docs/analytics.md, "What teachers
see"). The knowledge model's state is filled by the pipeline (``FactStat``, ``DailyTrend``);
these only read it and ask ``classroom.knowledge.summarise`` what it says, so every page,
export and the bench read one definition.

``Student.reports`` is a second manager on Student (the roster's ``objects`` stays the
default): ``Student.reports.for_teacher(user).with_help_flags()``.
"""

from collections import defaultdict
from datetime import timedelta

from django.db import models
from django.db.models import Count
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import ngettext

from classroom import error_kinds
from classroom import knowledge

from .analytics import Attempt
from .analytics import FactStat
from .knowledge_store import orders_of
from .roster import Student
from .roster import StudentQuerySet

RECENT_DAYS = 7  # "the last 7 days": a rolling window (now minus 7 × 24 h)


def wrong_answers(student_ids) -> dict[int, list]:
    """Each child's wrong answers and missed captures as ``error_kinds.Answer`` (oldest
    first; the taps after being caught are not counted). One query."""
    out: dict[int, list] = defaultdict(list)
    rows = (
        Attempt.objects.filter(student_id__in=list(student_ids), correct=False)
        .exclude(context=Attempt.Context.FORCED)
        .order_by("created_at", "pk")
        .values_list("student_id", "a", "b", "answer", "context", "options")
    )
    for pk, a, b, answer, context, options in rows:
        out[pk].append(
            error_kinds.Answer(a, b, answer, context, tuple(options) if options else None)
        )
    return out


def summaries(student_ids, now=None) -> dict[int, knowledge.Summary]:
    """Each child's ``knowledge.Summary``: what every page, export and the bench say of
    them. Two queries for any number of children."""
    now = now or timezone.now()
    ids = list(student_ids)
    rows = defaultdict(list)
    for stat in FactStat.objects.filter(student_id__in=ids).only("student_id", "a", "b", "model"):
        rows[stat.student_id].append(stat)
    wrong = wrong_answers(ids)
    return {pk: knowledge.summarise(orders_of(rows[pk]), wrong[pk], now) for pk in ids}


def add_help_flags(students, now=None) -> list:
    """The children with what the flags need, set on each (``with_help_flags``): ``summary``
    (``knowledge.Summary``); ``needs_help`` (likely right on under 60 % of the facts);
    ``stuck`` and the stuck fact's ``stuck_a``, ``stuck_b`` and ``stuck_run``;
    ``known_facts``, ``not_yet_facts``, ``answered_facts``, ``likely_percent``; and the
    week's figures ``recent_attempts``, ``recent_correct`` (answers of the last 7 days)
    and ``recent_omissions`` (captures left on the board). Three queries for any number."""
    students = list(students)
    now = now or timezone.now()
    ids = [s.pk for s in students]
    found = summaries(ids, now)
    since = now - timedelta(days=RECENT_DAYS)
    recent = {
        row["student_id"]: row
        for row in Attempt.objects.filter(student_id__in=ids, created_at__gte=since)
        .exclude(context=Attempt.Context.FORCED)
        .values("student_id")
        .annotate(
            n=Count("pk"),
            right=Count("pk", filter=Q(correct=True)),
            missed=Count("pk", filter=Q(context=Attempt.Context.MISSED)),
        )
        .order_by()
    }
    for student in students:
        summary = found[student.pk]
        week = recent.get(student.pk, {})
        student.summary = summary
        student.needs_help = student.low_accuracy = summary.needs_help
        student.known_facts, student.not_yet_facts = summary.known, summary.not_yet
        student.answered_facts, student.likely_percent = summary.answered, summary.likely_percent
        student.recent_attempts = week.get("n", 0)
        student.recent_correct = week.get("right", 0)
        student.recent_omissions = week.get("missed", 0)
        student.stuck = summary.stuck is not None
        student.stuck_a, student.stuck_b, student.stuck_run = summary.stuck or (None, None, None)
    return students


class ReportStudentQuerySet(StudentQuerySet):
    def with_help_flags(self, now=None) -> list:
        """These children (a list, in this queryset's order) with the "needs help" flag, the
        stuck fact and their figures (``add_help_flags``): what the knowledge model says.
        ``help_reasons(student)`` says why in words, ``stuck_reason(student)`` names the
        stuck fact."""
        return add_help_flags(self, now)

    def needing_help(self, now=None) -> list:
        """The flagged children, in this queryset's order."""
        return help_lists(self.with_help_flags(now))["flagged"]

    def stuck_not_flagged(self, now=None) -> list:
        """Children stuck on a fact who are not flagged: their stuck fact is shown on its own
        (a flagged child's is among the flag's reasons)."""
        return help_lists(self.with_help_flags(now))["stuck"]


def help_lists(students) -> dict[str, list]:
    """Children annotated by ``with_help_flags``, in their order, as the pages list them:
    ``flagged`` (need help) and ``stuck`` (stuck on a fact and not flagged: a flagged child's
    stuck fact is among the flag's reasons)."""
    students = list(students)
    return {
        "flagged": [s for s in students if s.needs_help],
        "stuck": [s for s in students if s.stuck and not s.needs_help],
    }


def help_reasons(student) -> list[str]:
    """Why a child annotated by ``with_help_flags`` needs help, then what they are stuck on,
    one sentence each (empty when not flagged). No name in them: the page shows the name,
    isolated, beside them."""
    if not student.needs_help:
        return []
    reasons = [
        ngettext(
            "Likely right on about %(percent)s %% of the 64 facts: not yet on %(not_yet)s of them",
            "Likely right on about %(percent)s %% of the 64 facts: not yet on %(not_yet)s of them",
            student.not_yet_facts,
        )
        % {"percent": student.likely_percent, "not_yet": student.not_yet_facts}
    ]
    if student.stuck:
        reasons.append(stuck_reason(student))
    return reasons


def stuck_reason(student) -> str:
    """ "Stuck on 7 × 8: wrong or missed 3 times in a row" for a child annotated by
    ``with_help_flags`` with ``stuck``; empty otherwise."""
    if not student.stuck:
        return ""
    return ngettext(
        "Stuck on %(a)s × %(b)s: wrong or missed %(run)s time in a row",
        "Stuck on %(a)s × %(b)s: wrong or missed %(run)s times in a row",
        student.stuck_run,
    ) % {"a": student.stuck_a, "b": student.stuck_b, "run": student.stuck_run}


class ReportStudentManager(models.Manager.from_queryset(ReportStudentQuerySet)):
    use_in_migrations = False


# A second, non-default manager: ``Student.objects`` (the roster's) stays the default.
Student.add_to_class("reports", ReportStudentManager())
