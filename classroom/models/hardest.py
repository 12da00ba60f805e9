"""The facts a class (or a school) finds hardest over a date range, and a child's history
of one fact (docs/analytics.md, "What teachers see": "Hardest facts", "Median time", the
fact panel's weekly trend).

Read straight from the attempts, in the database: one ``GROUP BY`` child and pooled fact
(7 × 8 and 8 × 7 are one fact, a ≤ b), wrapped in a second ``GROUP BY`` fact, so no attempt
travels to Python; only the few rows of the ranked facts do.

**Struggle rule.** In the range, a child *struggles* with a fact when they answered it at
least once (either order) and at least half of those attempts were wrong or missed captures
(``2 × right ≤ attempts``): 1 wrong of 1, 1 of 2, 2 of 4 struggle; 1 wrong of 3 does not.
``children`` (y) counts the children who attempted it in the range, ``struggling`` (x) those
who struggle. Facts are ranked by x (most first), then x / y (highest first), then the
class's accuracy on it (lowest first), then the smaller fact; only facts with x ≥ 1 are
listed, at most ``TOP``.

Who counts: the children not archived of the class (of the school's classes that are not
archived), with every attempt they made in the range, wherever they were when they made it
(a child counts in their current class, as in the class heatmap).

**Ranges** (``RANGES``), rolling: ``7d`` the last 7 days (now minus 7 × 24 hours: on a
Monday morning last week still counts, as in "needs help"), ``4w`` the last 28 days, ``all``
every attempt.
"""

from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from datetime import timedelta
from fractions import Fraction

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db import models
from django.db.models import Count
from django.db.models import F
from django.db.models import Max
from django.db.models import Q
from django.db.models.functions import Greatest
from django.db.models.functions import Least
from django.db.models.functions import TruncDate
from django.utils import timezone

from .analytics import Attempt

WEEK, FOUR_WEEKS, ALL_TIME = "7d", "4w", "all"
RANGES = (WEEK, FOUR_WEEKS, ALL_TIME)
DEFAULT_RANGE = WEEK
RANGE_DAYS = {WEEK: 7, FOUR_WEEKS: 28}
TOP = 10  # facts listed
TYPICAL = 3  # typical wrong answers per fact


def range_start(school, key: str, now=None) -> datetime | None:
    """The first instant of range ``key`` (None: all time): now minus its days. ``school``
    is kept for the callers; a rolling range needs no time zone."""
    if key == ALL_TIME:
        return None
    return (now or timezone.now()) - timedelta(days=RANGE_DAYS[key])


# --- the evidence in scope ---------------------------------------------------------------


def attempts_of(class_ids, since=None):
    """The attempts of the children (not archived) of these classes, since ``since`` (the
    taps after being caught for a missed capture are no evidence: left out)."""
    qs = Attempt.objects.filter(
        student__classroom_id__in=class_ids, student__archived_at=None
    ).exclude(context=Attempt.Context.FORCED)
    if since is not None:
        qs = qs.filter(created_at__gte=since)
    return qs


def _pooled(qs):
    return qs.annotate(lo=Least("a", "b"), hi=Greatest("a", "b"))


def child_facts(attempts, by_class: bool = False):
    """One row per child and pooled fact: student_id, (room: the child's class, with
    ``by_class``), lo, hi, n (attempts), n_right."""
    qs = _pooled(attempts)
    columns = ()
    if by_class:
        qs, columns = qs.annotate(room=F("student__classroom_id")), ("room",)
    return (
        qs.values("student_id", *columns, "lo", "hi")
        .annotate(n=Count("pk"), n_right=Count("pk", filter=Q(correct=True)))
        .order_by()
    )


def struggling(rows):
    """Those rows where the child struggles (2 × right ≤ attempts): a HAVING clause."""
    return rows.filter(n__gte=2 * F("n_right"))


# --- the ranking ---------------------------------------------------------------------------


@dataclass
class HardFact:
    a: int  # a ≤ b
    b: int
    children: int  # y: children who attempted it in the range
    struggling: int  # x: children who struggle with it
    attempts: int  # the class's attempts of it (both orders)
    correct: int
    wrong_answers: list = field(default_factory=list)  # the typical ones, filled in later
    who: list = field(default_factory=list)  # who struggles (names or per-class counts)

    @property
    def accuracy_percent(self) -> int | None:
        return round(100 * self.correct / self.attempts) if self.attempts else None

    def rank_key(self):
        return (
            -self.struggling,
            -Fraction(self.struggling, self.children),
            Fraction(self.correct, self.attempts),
            self.a,
            self.b,
        )


def fact_totals(attempts, by_class: bool = False) -> list:
    """Per pooled fact (per class and fact with ``by_class``): (classroom_id or None, lo,
    hi, y children, x struggling, attempts, right), from one ``GROUP BY`` child and fact
    inside one ``GROUP BY`` fact."""
    try:
        inner, params = child_facts(attempts, by_class).query.get_compiler(attempts.db).as_sql()
    except EmptyResultSet:  # no class at all
        return []
    group = "q.room, q.lo, q.hi" if by_class else "q.lo, q.hi"
    head = "q.room" if by_class else "NULL"
    sql = (
        f"SELECT {head}, q.lo, q.hi, COUNT(*), "  # noqa: S608 (column names only)
        "SUM(CASE WHEN 2 * q.n_right <= q.n THEN 1 ELSE 0 END), SUM(q.n), SUM(q.n_right) "
        f"FROM ({inner}) q GROUP BY {group}"
    )
    with connections[attempts.db].cursor() as cursor:
        cursor.execute(sql, params)
        return [tuple(int(v) if v is not None else None for v in row) for row in cursor]


def rank(totals, limit: int = TOP) -> list[HardFact]:
    """The facts with at least one child struggling, hardest first (module docstring)."""
    facts = [
        HardFact(a=lo, b=hi, children=y, struggling=x, attempts=n, correct=r)
        for _class, lo, hi, y, x, n, r in totals
        if x >= 1
    ]
    facts.sort(key=HardFact.rank_key)
    return facts[:limit]


def _only(facts) -> Q:
    q = Q(pk__in=[])
    for f in facts:
        q |= Q(lo=f.a, hi=f.b)
    return q


def typical_wrong_answers(attempts, facts) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """{(a, b): [(answer, times), ...]} for these facts: the wrong answers given (a missed
    capture has none), most frequent first, ties the smaller answer first."""
    if not facts:
        return {}
    rows = (
        _pooled(attempts.filter(correct=False, answer__isnull=False))
        .filter(_only(facts))
        .values("lo", "hi", "answer")
        .annotate(n=Count("pk"))
        .order_by("lo", "hi", "-n", "answer")
    )
    out: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for row in rows:
        out.setdefault((row["lo"], row["hi"]), []).append((row["answer"], row["n"]))
    return out


def strugglers(attempts, facts, by_class: bool = False) -> list[dict]:
    """The (child, fact) rows of these facts where the child struggles."""
    if not facts:
        return []
    return list(struggling(child_facts(attempts, by_class).filter(_only(facts))))


def hardest_facts(attempts, limit: int = TOP) -> list[HardFact]:
    """The ranked facts of these attempts, each with its typical wrong answers (the rows
    ``who`` are filled in by the caller: names for a class, counts for a school)."""
    facts = rank(fact_totals(attempts), limit)
    wrong = typical_wrong_answers(attempts, facts)
    for f in facts:
        f.wrong_answers = wrong.get((f.a, f.b), [])[:TYPICAL]
    return facts


# --- median times --------------------------------------------------------------------------


class Median(models.Aggregate):
    """The median (the two middle values averaged): PERCENTILE_CONT on PostgreSQL, the
    MEDIAN aggregate registered on SQLite connections (classroom.models.rebuild_sql)."""

    function = "MEDIAN"
    name = "Median"
    output_field = models.FloatField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            function="PERCENTILE_CONT",
            template="%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)%(filter)s",
            **extra,
        )


# What the median time separates (docs/analytics.md, "Median time").
TIME_GROUPS = {
    "warm_up": Attempt.Context.WARM_UP,
    "game": Attempt.Context.CAPTURE,
    "challenge": Attempt.Context.CHALLENGE,
}
ACCURACY_FIRST = Q(match__session_link__assignment__accuracy_first=True) | Q(warm_up__timed=False)


def median_times(attempts) -> dict[str, dict]:
    """For each of ``TIME_GROUPS``: the median ``response_ms`` of the right answers of that
    context made outside accuracy-first evidence (a session's ``accuracy_first``, or a
    warm-up round with ``timed`` False), how many were timed, and how many right answers
    were accuracy-first (no time shown for those). One query."""
    right = attempts.filter(correct=True)
    aggregates = {}
    for name, context in TIME_GROUPS.items():
        timed = Q(context=context, response_ms__isnull=False) & ~ACCURACY_FIRST
        aggregates[f"{name}_ms"] = Median("response_ms", filter=timed)
        aggregates[f"{name}_n"] = Count("pk", filter=timed)
        aggregates[f"{name}_af"] = Count("pk", filter=Q(context=context) & ACCURACY_FIRST)
    row = right.aggregate(**aggregates)
    return {
        name: {
            "median_ms": int(row[f"{name}_ms"]) if row[f"{name}_ms"] is not None else None,
            "timed": row[f"{name}_n"],
            "accuracy_first": row[f"{name}_af"],
        }
        for name in TIME_GROUPS
    }


# --- one child's fact over time ----------------------------------------------------------


def _both_orders(student, a: int, b: int):
    """The child's attempts of a × b and b × a, the taps after being caught left out."""
    return (
        Attempt.objects.filter(student=student)
        .filter(Q(a=a, b=b) | Q(a=b, b=a))
        .exclude(context=Attempt.Context.FORCED)
    )


def fact_days(student, a: int, b: int, since, zone) -> list[tuple]:
    """(local day, attempts, right) of a × b and b × a together since ``since``."""
    rows = (
        _both_orders(student, a, b)
        .filter(created_at__gte=since)
        .annotate(day=TruncDate("created_at", tzinfo=zone))
        .values("day")
        .annotate(n=Count("pk"), n_right=Count("pk", filter=Q(correct=True)))
        .order_by("day")
    )
    return [(r["day"], r["n"], r["n_right"]) for r in rows]


def last_practised(student, a: int, b: int):
    """When the child last met a × b in either order (None: never)."""
    return _both_orders(student, a, b).aggregate(t=Max("created_at"))["t"]
