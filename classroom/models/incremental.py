"""The incremental statistics (docs/analytics.md, "Pipeline"): a child's attempts not yet
counted (``Attempt.stats_applied`` false) are added to their ``FactStat`` rows and to the
touched facts of their class's ``ClassFactStat`` rows (whose ``medians`` give the class's
median without reading the classmates' rows), and the days' ``DailyTrend`` rows of the
child, the class and the school are incremented, in one transaction that marks those
attempts applied. The cost follows the new attempts and the class's size, never the child's
history: the latest-ten window each row keeps (``FactStat.latest``) is all the state and the
median need.

The arithmetic mirrors the rebuild's SQL (``stats_sql.fact_stats``), and the state is
``diagnosis.mastery``'s, so the full rebuild and this path write the same rows
(tests/classroom/test_incremental_stats.py plays random histories both ways).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from datetime import timedelta
from zoneinfo import ZoneInfo

from django.db import connections
from django.db import models
from django.db import transaction
from django.db.models.functions import Greatest
from django.db.models.functions import Least
from django.utils import timezone

from classroom import diagnosis

from . import stats_sql
from .rebuild_sql import EPOCH
from .rebuild_sql import db_now
from .rebuild_sql import epoch_us
from .rebuild_sql import table_names
from .stats_sql import error_column

# A window entry: [id, µs since 1970, correct, response_ms, missed capture, af, game time].
ID, AT, RIGHT, MS, MISSED, AF, GAME = range(7)
RETRIEVAL = diagnosis.RETRIEVAL_CONTEXTS
PACK = 65536  # a pooled fact as one integer, lo * PACK + hi (as stats_sql's keys)


def _newest_first(entries) -> list:
    """The latest ``RECENT`` entries, newest first (equal times: the later written first)."""
    unique = {e[ID]: e for e in entries}
    return sorted(unique.values(), key=lambda e: (e[AT], e[ID]), reverse=True)[: diagnosis.RECENT]


def _median_ms(window) -> int | None:
    """The median time of the right answers of a window (the rebuild's ``med``)."""
    times = [e[MS] for e in window if e[RIGHT] and e[MS] is not None]
    return int(statistics.median(times)) if times else None


def _median_of(times) -> int | None:
    """The median of these median times (the rebuild's median of medians, nulls left out)."""
    known = [t for t in times if t is not None]
    return int(statistics.median(known)) if known else None


def _pooled(window, zone) -> diagnosis.Mastery:
    """``diagnosis.mastery`` over a fact's pooled latest ten (newest first)."""
    evidence = [
        diagnosis.Attempt(
            correct=bool(e[RIGHT]),
            ms=e[MS],
            omission=bool(e[MISSED]),
            game_time=bool(e[GAME]),
            untimed=bool(e[AF]),
            day=(EPOCH + timedelta(microseconds=e[AT])).astimezone(zone).date(),
        )
        for e in reversed(window)  # oldest first
    ]
    return diagnosis.mastery(evidence)


def pending_attempts(student_id: int, using: str = "default") -> list[dict]:
    """The child's attempts not yet counted, with what the counts need ("accuracy first"
    decided per attempt as the rebuild does). One query on the pending index."""
    from classroom.models import Attempt
    from classroom.models import SessionMatch
    from classroom.models import WarmUp

    accuracy_first = models.Exists(
        SessionMatch.objects.filter(
            match_id=models.OuterRef("match_id"), assignment__accuracy_first=True
        )
    ) | models.Exists(WarmUp.objects.filter(pk=models.OuterRef("warm_up_id"), timed=False))
    return list(
        Attempt.objects.using(using)
        .filter(student_id=student_id, stats_applied=False)
        .annotate(af=accuracy_first)
        .values(
            *("id", "a", "b", "answer", "correct", "kind", "context", "response_ms"),
            *("created_at", "af"),
        )
    )


@dataclass(frozen=True)
class Child:
    """What the counts need of the child besides their attempts."""

    id: int
    classroom_id: int
    school_id: int
    zone: ZoneInfo


def _claim(student_id: int, using: str) -> tuple[Child | None, list[dict]]:
    """Lock the child's row and their class's, and take their pending attempts, marked
    applied at once (the transaction counts them or rolls the marks back with it).
    PostgreSQL: one statement (``stats_sql.claim_pending``). SQLite, whose IMMEDIATE
    transaction holds the only write lock already: a read of the child, one of the
    attempts (``pending_attempts``) and an UPDATE."""
    from classroom.models import Attempt
    from classroom.models import School
    from classroom.models import Student

    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(stats_sql.claim_pending(table_names()), [student_id, student_id])
            names = [column.name for column in cursor.description]
            pending = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        if not pending:
            return None, []
        p = pending[0]
        zone = School(timezone=p["timezone"]).zone
        return Child(student_id, p["classroom_id"], p["school_id"], zone), pending
    student = (
        Student.objects.using(using)
        .select_related("classroom__school")
        .filter(pk=student_id)
        .first()
    )
    if student is None:
        return None, []
    pending = pending_attempts(student_id, using)
    Attempt.objects.using(using).filter(pk__in=[p["id"] for p in pending]).update(
        stats_applied=True
    )
    school = student.classroom.school
    return Child(student_id, student.classroom_id, school.pk, school.zone), pending


def apply_child(student_id: int, *, using: str = "default") -> int:
    """Count the child's pending attempts into their statistics (see the module). Idempotent:
    the attempts are marked applied in the same transaction, under the child's (and their
    class's) row lock, so a second run (or a concurrent one, which waits for the lock) finds
    nothing. Returns the number of attempts applied.

    On PostgreSQL three statements: the lock and the claim of the attempts
    (``_claim``), the read of the child's rows of the touched facts, and every write
    (``_write``); SQLite takes seven."""
    from classroom.models import FactStat

    with transaction.atomic(using=using):
        child, pending = _claim(student_id, using)
        if child is None or not pending:
            return 0
        zone = child.zone
        orders = {(p["a"], p["b"]) for p in pending}
        facts = {(min(a, b), max(a, b)) for a, b in orders}
        numbers = {n for fact in facts for n in fact}  # on the (student, a, b) index
        keys = {lo * PACK + hi for lo, hi in facts}  # then only the touched facts' rows
        pooled = Least("a", "b") * PACK + Greatest("a", "b")
        rows = {
            (row.a, row.b): row
            for row in FactStat.objects.using(using)
            .filter(student_id=student_id, a__in=numbers, b__in=numbers)
            .alias(pooled=pooled)
            .filter(pooled__in=keys)
        }
        if any(rows[o].attempts and not rows[o].latest for o in orders if o in rows):
            # Rows written before the windows existed: rebuild this child once (a repair).
            return _repair_legacy(child, using, len(pending))

        # What the class's rows need of this child's old rows: had they a row of the fact
        # (either order), and was it a fact they were struggling with.
        before = {}
        for lo, hi in facts:
            old = [rows[o] for o in {(lo, hi), (hi, lo)} if o in rows]
            before[(lo, hi)] = (bool(old), bool(old) and old[0].state in diagnosis.STRUGGLING)
        now = timezone.now()
        for p in sorted(pending, key=lambda p: (p["created_at"], p["id"])):
            key = (p["a"], p["b"])
            row = rows.get(key)
            if row is None:
                row = rows[key] = FactStat(student_id=student_id, a=p["a"], b=p["b"])
                row.wrong_answers, row.latest = {}, []
            _count(row, p)
        for lo, hi in facts:
            pair = [rows[o] for o in {(lo, hi), (hi, lo)} if o in rows]
            window = _newest_first(e for row in pair for e in row.latest)
            m = _pooled(window, zone)
            for row in pair:
                row.state, row.recent_attempts, row.recent_correct = m.state, m.attempts, m.correct
                row.recent_days, row.speed_ms = m.days, m.speed_ms
                row.speed_from_game = m.speed_from_game
                row.median_ms = _median_ms(row.latest)
                row.updated_at = now
        _write(using, child, list(rows.values()), _class_changes(pending, before, rows), pending)
    return len(pending)


def _write(using, child: Child, rows, changes, pending) -> None:
    """The child's FactStat rows (``_upsert_rows``), their class's rows of the touched facts
    (``ClassFactStat.objects.add_changes``: the class's row is locked by ``_claim``), then,
    under a share lock on the school's row (its trend rebuild, ``DailyTrend.objects.
    rebuild_rollups``, takes it exclusively), the days' trend rows (``_increment_trends``).
    PostgreSQL: one statement, the first and the last as data-modifying CTEs
    (``stats_sql.class_delta``'s ``first``): the trend rows come through the lock. SQLite
    (no row locks; its writer is alone): three statements."""
    from classroom.models import ClassFactStat

    connection = connections[using]
    fact_sql, fact_params = _upsert_rows(using, rows)
    trend_sql, trend_params = _increment_trends(using, child, pending)
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(fact_sql, fact_params)
        ClassFactStat.objects.using(using).add_changes(child.classroom_id, changes)
        with connection.cursor() as cursor:
            cursor.execute(trend_sql, trend_params)
        return
    t = table_names()
    # The lock first in the text: pg_stat_activity shows a statement's first 1 kB (what
    # tests/classroom/test_analytics_pipeline_worker.py watches for); it runs when ``trend``
    # reads it, after the class's and the child's rows are written.
    first = (
        f"school AS (SELECT id FROM {t['school']} WHERE id = %s FOR SHARE),\n"  # noqa: S608
        f"facts AS ({fact_sql}),\n"
        f"trend AS ({trend_sql})"
    )
    sql = stats_sql.class_delta(connection.vendor, t, first=first)
    params = [child.school_id, *fact_params, *trend_params, json.dumps(changes)]
    params += [child.classroom_id, db_now(ClassFactStat.objects.using(using))]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


UPDATED_FIELDS = [
    "attempts",
    "correct",
    "omissions",
    "median_ms",
    "state",
    "recent_attempts",
    "recent_correct",
    "recent_days",
    "speed_ms",
    "speed_from_game",
    *(error_column(kind) for kind in diagnosis.ERROR_KINDS),
    "wrong_answers",
    "last_attempt_at",
    "latest",
    "updated_at",
]


def _upsert_rows(using, rows) -> tuple[str, list]:
    """The INSERT of the child's new and known rows (the conflict finds the latter), the
    rows sent as one JSON parameter (``stats_sql.fact_upsert``): its SQL and parameters."""
    from classroom.models import FactStat

    connection = connections[using]
    fields = {f.column: f for f in FactStat._meta.concrete_fields}
    columns = ["student_id", "a", "b", *UPDATED_FIELDS]
    kinds = {c: fields[c].db_type(connection) for c in columns}
    adapt = connection.ops.adapt_datetimefield_value

    def value(row, column):
        v = getattr(row, column)
        if isinstance(v, datetime):
            v = adapt(v)
            return v if isinstance(v, str) else v.isoformat()
        return v

    payload = json.dumps([{c: value(row, c) for c in columns} for row in rows])
    sql = stats_sql.fact_upsert(connection.vendor, table_names(), kinds, UPDATED_FIELDS)
    return sql, [payload]


def _class_changes(pending, before, rows) -> list[dict]:
    """This child's changes to their class's rows of the touched pooled facts: the new
    attempts' counts and wrong answers; the median time of each of the child's rows of the
    fact (``medians``, keyed as ``stats_sql.medians_key``) and their median (what a new class
    row takes); +1 child when the child had no row of the fact;
    ``struggling`` is the child's (pooled) state in ``diagnosis.STRUGGLING`` now (1 or 0) plus
    2 if it was before (``stats_sql.class_delta`` adds the first and takes away the second: a
    column of the proposed row may not be negative, and a fact the child had no row of is
    never "was struggling", so a new class row takes the value as it is)."""
    changes = {}
    for (lo, hi), (had, was) in before.items():
        pair = [rows[o] for o in {(lo, hi), (hi, lo)} if o in rows]
        now = pair[0].state in diagnosis.STRUGGLING
        changes[(lo, hi)] = {
            "lo": lo,
            "hi": hi,
            "attempts": 0,
            "correct": 0,
            "omissions": 0,
            "children": 0 if had else 1,
            "struggling": int(now) + 2 * int(was),
            "wrong_answers": {},
            "medians": {f"{r.student_id}:{r.a}:{r.b}": r.median_ms for r in pair},
            "median_ms": _median_of([r.median_ms for r in pair]),
        }
    for p in pending:
        change = changes[(min(p["a"], p["b"]), max(p["a"], p["b"]))]
        change["attempts"] += 1
        change["correct"] += bool(p["correct"])
        change["omissions"] += p["answer"] is None
        if not p["correct"] and p["answer"] is not None:
            key = str(p["answer"])
            change["wrong_answers"][key] = change["wrong_answers"].get(key, 0) + 1
    return [changes[fact] for fact in sorted(changes)]


def _count(row, p: dict) -> None:
    """Add one attempt to its order's row: all-time counts and the window."""
    row.attempts += 1
    row.correct += bool(p["correct"])
    row.omissions += p["answer"] is None
    at = p["created_at"]
    if row.last_attempt_at is None or at > row.last_attempt_at:
        row.last_attempt_at = at
    if not p["correct"]:
        if p["kind"] in diagnosis.ERROR_KINDS:
            column = error_column(p["kind"])
            setattr(row, column, getattr(row, column) + 1)
        if p["answer"] is not None:
            key = str(p["answer"])
            row.wrong_answers[key] = row.wrong_answers.get(key, 0) + 1
    entry = [
        p["id"],
        epoch_us(at),
        int(bool(p["correct"])),
        p["response_ms"],
        int(p["context"] == "missed"),
        int(bool(p["af"])),
        0 if p["context"] in RETRIEVAL else 1,
    ]
    row.latest = _newest_first([*row.latest, entry])


def _increment_trends(using, child: Child, pending) -> tuple[str, list]:
    """The upsert that adds the attempts to the child's, the class's and the school's rows
    of their local days (``ON CONFLICT … DO UPDATE``, atomic on both databases): its SQL and
    parameters. On PostgreSQL its rows come through the ``school`` CTE of ``_write``'s
    statement, which holds the school's share lock first."""
    from classroom.models import DailyTrend

    days: dict = defaultdict(lambda: [0, 0])
    for p in pending:
        day = p["created_at"].astimezone(child.zone).date()
        days[day][0] += 1
        days[day][1] += bool(p["correct"])
    connection = connections[using]
    adapt = connection.ops.adapt_datefield_value
    scopes = (
        (DailyTrend.Scope.STUDENT.value, child.id),
        (DailyTrend.Scope.CLASSROOM.value, child.classroom_id),
        (DailyTrend.Scope.SCHOOL.value, child.school_id),
    )
    values, params = [], []
    for scope, scope_id in scopes:
        for day, (n, right) in sorted(days.items()):
            values.append("(%s, %s, %s, %s, %s)")
            params += [scope, scope_id, adapt(day), n, right]
    table = table_names()["trend"]
    rows = f"VALUES {', '.join(values)}"
    if connection.vendor == "postgresql":
        rows = f"SELECT v.* FROM ({rows}) v CROSS JOIN school"  # noqa: S608
    sql = (
        f"INSERT INTO {table} (scope, scope_id, day, attempts, correct) "
        f"{rows} ON CONFLICT (scope, scope_id, day) DO UPDATE SET "
        f"attempts = {table}.attempts + excluded.attempts, "
        f"correct = {table}.correct + excluded.correct"
    )
    return sql, params


def _repair_legacy(child: Child, using, pending: int) -> int:
    """A child whose rows have no window yet: rebuilt from every attempt, then the class's
    roll-up and the school's trend roll-ups (the rebuild marks every attempt applied)."""
    from classroom.models import ClassFactStat
    from classroom.models import DailyTrend
    from classroom.models import FactStat
    from classroom.models import School

    FactStat.objects.using(using).rebuild_for([child.id])
    ClassFactStat.objects.using(using).rebuild_for([child.classroom_id])
    DailyTrend.objects.using(using).rebuild_rollups(
        School.objects.using(using).get(pk=child.school_id)
    )
    return pending
