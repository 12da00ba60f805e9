"""Questions the teachers' reports ask about many rows (see docs/analytics.md, "What teachers
see"). The statistics themselves are filled by the pipeline (FactStat, ClassFactStat,
DailyTrend); these QuerySets only read them.

``Student.reports`` is a second manager on Student (the roster's ``objects`` stays the
default): ``Student.reports.for_teacher(user).needing_help()``.
"""

from datetime import timedelta

from django.db import models
from django.db.models import Count
from django.db.models import Exists
from django.db.models import ExpressionWrapper
from django.db.models import F
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models import Subquery
from django.db.models.functions import Coalesce
from django.db.models.functions import Greatest
from django.db.models.functions import Least
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import ngettext

from classroom.diagnosis import LEARNING

from .analytics import Attempt
from .analytics import FactStat
from .roster import Student
from .roster import StudentQuerySet

# "Needs help" (docs/analytics.md, "Needs help."): a child is flagged for one reason, low
# accuracy: at least RECENT_MIN_ATTEMPTS attempts and RECENT_MIN_FACTS facts (a fact and its
# twin, 7 × 8 and 8 × 7, together) in the last RECENT_DAYS days (a rolling window: now minus
# 7 × 24 h), and under 60 % of those facts right at the child's first try in the window. Each
# fact counts once, at its first try: the warm-up asks a child's weak facts again and again
# (that is its job), so a count of every answer would weigh the facts the child is worst at
# most and flag a child who is good at the tables and stuck on three facts. A missed capture
# is a wrong try.
# Shown beside the flag, not raising it (they name what to practise, not who to sit with):
# - Stuck: at least STUCK_IN_A_ROW attempts of one fact (either way round) in that window,
#   all wrong or missed, after the child's latest right answer to it (or with none ever).
# - Weak facts: facts still being learned with an accuracy under 60 % over at least
#   WEAK_MIN_ATTEMPTS attempts (all-time, from FactStat), a fact and its twin together.
# The window rolls (not "since Monday"), so on a Monday morning last week's play still counts.
RECENT_DAYS = 7
RECENT_MIN_ATTEMPTS = 15
RECENT_MIN_FACTS = 8  # the green tables have 10 facts (2–5 × 2–5, a fact and its twin once)
STUCK_IN_A_ROW = 3
WEAK_MIN_ATTEMPTS = 5
WEAK_ACCURACY_NUM, WEAK_ACCURACY_DEN = 3, 5  # accuracy < 3/5 = 60 %


class FactStatReportQuerySet(models.QuerySet):
    def weak(self):
        """Facts still being learned with accuracy under 60 % over at least 5 attempts, a fact
        and its twin together (their state is one, so they count once): one row per fact, the
        order with the smaller number first or the only order seen, annotated with the two
        orders' ``pooled_attempts`` and ``pooled_correct``."""
        integer = models.IntegerField()
        twin = FactStat.objects.filter(
            student=OuterRef("student"), a=OuterRef("b"), b=OuterRef("a")
        ).exclude(a=OuterRef("a"))  # a square (7 × 7) is its own twin: counted once

        def twin_sum(field):
            return Coalesce(Subquery(twin.values(field)[:1], output_field=integer), 0)

        return (
            self.filter(state=LEARNING)
            .filter(Q(a__lte=F("b")) | ~Exists(twin))
            .annotate(
                pooled_attempts=ExpressionWrapper(
                    F("attempts") + twin_sum("attempts"), output_field=integer
                ),
                pooled_correct=ExpressionWrapper(
                    F("correct") + twin_sum("correct"), output_field=integer
                ),
            )
            .filter(pooled_attempts__gte=WEAK_MIN_ATTEMPTS)
            .annotate(
                _margin=ExpressionWrapper(
                    F("pooled_correct") * WEAK_ACCURACY_DEN
                    - F("pooled_attempts") * WEAK_ACCURACY_NUM,
                    output_field=integer,
                )
            )
            .filter(_margin__lt=0)
        )


def weak_facts():
    return FactStatReportQuerySet(model=FactStat)


def _count(queryset):
    """One number per child from an Attempt or FactStat queryset on ``OuterRef("pk")``."""
    counted = queryset.order_by().values("student").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=models.IntegerField()), 0)


def _stuck_facts(since):
    """The child's facts (both orders together: 7 × 8 and 8 × 7 are one fact, as in its
    state) answered wrong or missed at least STUCK_IN_A_ROW times since ``since`` and after
    the latest right answer to them either way round, longest run first; ``lo`` ≤ ``hi``."""
    same_fact = Q(a=OuterRef("a"), b=OuterRef("b")) | Q(a=OuterRef("b"), b=OuterRef("a"))
    latest_right = (
        Attempt.objects.filter(same_fact, student=OuterRef("student"), correct=True)
        .order_by("-created_at")
        .values("created_at")[:1]
    )
    return (
        Attempt.objects.filter(student=OuterRef("pk"), created_at__gte=since, correct=False)
        .annotate(latest_right=Subquery(latest_right), lo=Least("a", "b"), hi=Greatest("a", "b"))
        .filter(Q(latest_right__isnull=True) | Q(created_at__gt=F("latest_right")))
        .order_by()
        .values("lo", "hi")
        .annotate(run=Count("pk"))
        .filter(run__gte=STUCK_IN_A_ROW)
        .order_by("-run", "lo", "hi")
    )


def _first_tries(since):
    """The child's first attempt at each fact since ``since`` (a fact and its twin together:
    the first of 7 × 8 and 8 × 7), on ``OuterRef("pk")``. An attempt is a first try when no
    attempt of the same fact, either way round, came before it in the window (at the same
    instant, the smaller id is the earlier)."""
    before = Attempt.objects.filter(student=OuterRef("student"), created_at__gte=since).filter(
        Q(created_at__lt=OuterRef("created_at"))
        | Q(created_at=OuterRef("created_at"), pk__lt=OuterRef("pk"))
    )
    same = before.filter(a=OuterRef("a"), b=OuterRef("b"))
    twin = before.filter(a=OuterRef("b"), b=OuterRef("a"))
    return Attempt.objects.filter(student=OuterRef("pk"), created_at__gte=since).filter(
        ~Exists(same), ~Exists(twin)
    )


# Several counts of one subquery as one number, so that each set of rows is read once:
# count × 2**40 + count × 2**20 + count (each count below 2**20, a million, a week).
COUNT_UNIT = 2**20
# The stuck fact as one number, so that one subquery gives all three (run, smaller number,
# larger number): run × 65,536 + lo × 256 + hi (lo and hi are below 256).
STUCK_RUN_UNIT, STUCK_LO_UNIT = 65536, 256


def _packed_counts(queryset, *conditions):
    """One number per child (``OuterRef("pk")``) from an Attempt queryset: its rows' count,
    then the count of the rows meeting each condition, packed by COUNT_UNIT (0 when none)."""
    packed = Count("pk")
    for condition in conditions:
        packed = packed * COUNT_UNIT + Count("pk", filter=condition)
    counted = queryset.order_by().values("student").annotate(n=packed).values("n")
    return Coalesce(Subquery(counted, output_field=models.BigIntegerField()), 0)


def _unpack(key: int, parts: int) -> list[int]:
    out = []
    for _ in range(parts):
        key, part = divmod(key, COUNT_UNIT)
        out.append(part)
    return out[::-1]


def _stuck_key(since):
    """The child's stuck fact with the longest run (``_stuck_facts``' first row) packed into one
    number (STUCK_RUN_UNIT); NULL when the child is stuck on nothing."""
    key = F("run") * STUCK_RUN_UNIT + F("lo") * STUCK_LO_UNIT + F("hi")
    stuck = _stuck_facts(since).annotate(key=ExpressionWrapper(key, models.BigIntegerField()))
    return Subquery(stuck.values("key")[:1], output_field=models.BigIntegerField())


def add_help_flags(student) -> None:
    """The figures and flags of a child annotated by ``with_help_flags``: the counts unpacked
    (``recent_attempts``, ``recent_correct``, ``recent_omissions``; ``recent_facts``,
    ``recent_first_right``), then the flags decided from them (the rule above):
    ``low_accuracy`` and ``needs_help``, ``stuck`` and the stuck fact's ``stuck_a``,
    ``stuck_b`` and ``stuck_run`` (None when not stuck)."""
    student.recent_attempts, student.recent_correct, student.recent_omissions = _unpack(
        student.recent_key, 3
    )
    student.recent_facts, student.recent_first_right = _unpack(student.first_key, 2)
    low = (
        student.recent_attempts >= RECENT_MIN_ATTEMPTS
        and student.recent_facts >= RECENT_MIN_FACTS
        and student.recent_first_right * WEAK_ACCURACY_DEN
        < student.recent_facts * WEAK_ACCURACY_NUM
    )
    student.low_accuracy = student.needs_help = low
    key = student.stuck_key
    student.stuck = key is not None
    if key is None:
        student.stuck_a = student.stuck_b = student.stuck_run = None
    else:
        student.stuck_run = key // STUCK_RUN_UNIT
        student.stuck_a = key % STUCK_RUN_UNIT // STUCK_LO_UNIT
        student.stuck_b = key % STUCK_LO_UNIT


class _WithHelpFlags(models.query.ModelIterable):
    def __iter__(self):
        for student in super().__iter__():
            add_help_flags(student)
            yield student


class ReportStudentQuerySet(StudentQuerySet):
    def with_help_flags(self, now=None):
        """Annotate the "needs help" figures and flags (the rule: the constants above):
        ``recent_attempts`` and ``recent_correct`` (every attempt of the last RECENT_DAYS
        days), ``recent_facts`` and ``recent_first_right`` (the facts met in those days and
        those right at the first try) and ``low_accuracy``; ``stuck_a``, ``stuck_b``,
        ``stuck_run`` (the stuck fact with the longest run, else None) and ``stuck``;
        ``weak_facts`` (FactStatReportQuerySet.weak); ``recent_omissions`` (missed captures
        in the window); ``needs_help`` (= ``low_accuracy``). ``help_reasons(student)`` says
        why in words, ``stuck_reason(student)`` names the stuck fact.

        The figures are correlated subqueries of one statement, each set of rows read once (no
        join that multiplies rows): the week's attempts give three counts and the first tries
        two, packed into one number each; the flags are decided from them as each row is read
        (``add_help_flags``), not in SQL, where every use of a figure would repeat its
        subquery (the statement had 53 SELECTs; docs/performance.md, "JIT off")."""
        since = (now or timezone.now()) - timedelta(days=RECENT_DAYS)
        recent = Attempt.objects.filter(student=OuterRef("pk"), created_at__gte=since)
        first = _first_tries(since)
        flagged = self.annotate(
            weak_facts=_count(weak_facts().weak().filter(student=OuterRef("pk"))),
            recent_key=_packed_counts(recent, Q(correct=True), Q(context=Attempt.Context.MISSED)),
            first_key=_packed_counts(first, Q(correct=True)),
            stuck_key=_stuck_key(since),
        )
        flagged._iterable_class = _WithHelpFlags
        return flagged

    def needing_help(self, now=None) -> list:
        """The flagged children, in this queryset's order (a list: the flag is decided as the
        rows are read)."""
        return help_lists(self.with_help_flags(now))["flagged"]

    def stuck_not_flagged(self, now=None) -> list:
        """Children stuck on a fact who are not flagged: their stuck fact is shown on its own
        (a flagged child's is among the flag's reasons). A list, as ``needing_help``."""
        return help_lists(self.with_help_flags(now))["stuck"]

    def with_any_stats(self):
        return self.filter(Exists(FactStat.objects.filter(student=OuterRef("pk"))))


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
    """Why a child annotated by ``with_help_flags`` needs help, then what they are stuck on
    and how many weak facts they have, one sentence each (empty when not flagged). No name in
    them: the page shows the name, isolated, beside them."""
    if not student.needs_help:
        return []
    reasons = [
        gettext(
            "Right at the first try on %(right)s of %(total)s facts in the last %(days)s days "
            "(%(percent)s %%)"
        )
        % {
            "days": RECENT_DAYS,
            "right": student.recent_first_right,
            "total": student.recent_facts,
            # floor, so a child under 60 % never reads "60 %"
            "percent": 100 * student.recent_first_right // student.recent_facts,
        }
    ]
    if student.stuck:
        reasons.append(stuck_reason(student))
    if student.weak_facts:
        reasons.append(
            ngettext("%(n)s weak fact", "%(n)s weak facts", student.weak_facts)
            % {"n": student.weak_facts}
        )
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
