"""The incremental statistics (docs/analytics.md, "Pipeline"): a child's attempts not yet
counted (``Attempt.stats_applied`` false) are added to their ``FactStat`` rows, the touched
facts of their class's ``ClassFactStat`` are re-aggregated and the days' ``DailyTrend`` rows
of the child, the class and the school are incremented, in one transaction that marks those
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
from datetime import datetime
from datetime import timedelta

from django.db import connections
from django.db import models
from django.db import transaction
from django.utils import timezone

from classroom import diagnosis

from . import stats_sql
from .rebuild_sql import EPOCH
from .rebuild_sql import epoch_us
from .rebuild_sql import lock_rows
from .rebuild_sql import table_names
from .stats_sql import error_column

# A window entry: [id, µs since 1970, correct, response_ms, missed capture, af, game time].
ID, AT, RIGHT, MS, MISSED, AF, GAME = range(7)
RETRIEVAL = diagnosis.RETRIEVAL_CONTEXTS


def _newest_first(entries) -> list:
    """The latest ``RECENT`` entries, newest first (equal times: the later written first)."""
    unique = {e[ID]: e for e in entries}
    return sorted(unique.values(), key=lambda e: (e[AT], e[ID]), reverse=True)[: diagnosis.RECENT]


def _median_ms(window) -> int | None:
    """The median time of the right answers of a window (the rebuild's ``med``)."""
    times = [e[MS] for e in window if e[RIGHT] and e[MS] is not None]
    return int(statistics.median(times)) if times else None


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


def pending_attempts(student_id: int) -> list[dict]:
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
        Attempt.objects.filter(student_id=student_id, stats_applied=False)
        .annotate(af=accuracy_first)
        .values(
            *("id", "a", "b", "answer", "correct", "kind", "context", "response_ms"),
            *("created_at", "af"),
        )
    )


def apply_child(student_id: int, *, using: str = "default") -> int:
    """Count the child's pending attempts into their statistics (see the module). Idempotent:
    the attempts are marked applied in the same transaction, under the child's (and their
    class's) row lock, so
    a second run (or a concurrent one, which waits for the lock) finds nothing. Returns the
    number of attempts applied."""
    from classroom.models import Attempt
    from classroom.models import ClassFactStat
    from classroom.models import FactStat
    from classroom.models import School
    from classroom.models import Student

    with transaction.atomic(using=using):
        # The child's row and their class's, locked in one statement: the child's tasks run
        # one at a time, and so do the class's updates (each adds to the class's rows).
        student = (
            Student.objects.using(using)
            .select_for_update(of=("self", "classroom"))
            .select_related("classroom__school")
            .filter(pk=student_id)
            .first()
        )
        if student is None:
            return 0
        pending = pending_attempts(student_id)
        if not pending:
            return 0
        school = student.classroom.school
        zone = school.zone
        orders = {(p["a"], p["b"]) for p in pending}
        facts = {(min(a, b), max(a, b)) for a, b in orders}
        numbers = {n for fact in facts for n in fact}  # on the (student, a, b) index
        rows = {
            (row.a, row.b): row
            for row in FactStat.objects.using(using).filter(
                student_id=student_id, a__in=numbers, b__in=numbers
            )
            if (min(row.a, row.b), max(row.a, row.b)) in facts
        }
        if any(rows[o].attempts and not rows[o].latest for o in orders if o in rows):
            # Rows written before the windows existed: rebuild this child once (a repair).
            return _repair_legacy(student, using, len(pending))

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
        touched = [row for (a, b), row in rows.items() if (min(a, b), max(a, b)) in facts]
        _upsert_rows(using, touched)
        # The class's touched facts (its row is locked above): this child's changes added,
        # the median of medians taken again.
        ClassFactStat.objects.using(using).add_changes(
            student.classroom_id, _class_changes(pending, before, rows)
        )
        lock_rows(School, [school.pk], share=True)
        _increment_trends(using, student, zone, pending)
        Attempt.objects.using(using).filter(pk__in=[p["id"] for p in pending]).update(
            stats_applied=True
        )
    return len(pending)


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


def _upsert_rows(using, rows) -> None:
    """One INSERT for the child's new and known rows (the conflict finds the latter), the
    rows sent as one JSON parameter (``stats_sql.fact_upsert``)."""
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
    with connection.cursor() as cursor:
        cursor.execute(sql, [payload])


def _class_changes(pending, before, rows) -> list[dict]:
    """This child's changes to their class's rows of the touched pooled facts: the new
    attempts' counts and wrong answers; +1 child when the child had no row of the fact;
    ``struggling`` is the child's (pooled) state in ``diagnosis.STRUGGLING`` now (1 or 0) plus
    2 if it was before (``stats_sql.class_delta`` adds the first and takes away the second: a
    column of the proposed row may not be negative, and a fact the child had no row of is
    never "was struggling", so a new class row takes the value as it is)."""
    changes = {}
    for (lo, hi), (had, was) in before.items():
        row = rows.get((lo, hi)) or rows[(hi, lo)]
        now = row.state in diagnosis.STRUGGLING
        changes[(lo, hi)] = {
            "lo": lo,
            "hi": hi,
            "attempts": 0,
            "correct": 0,
            "omissions": 0,
            "children": 0 if had else 1,
            "struggling": int(now) + 2 * int(was),
            "wrong_answers": {},
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


def _increment_trends(using, student, zone, pending) -> None:
    """Add the attempts to the child's, the class's and the school's rows of their local
    days: one upsert (``ON CONFLICT … DO UPDATE``, atomic on both databases)."""
    from classroom.models import DailyTrend

    days: dict = defaultdict(lambda: [0, 0])
    for p in pending:
        day = p["created_at"].astimezone(zone).date()
        days[day][0] += 1
        days[day][1] += bool(p["correct"])
    connection = connections[using]
    adapt = connection.ops.adapt_datefield_value
    scopes = (
        (DailyTrend.Scope.STUDENT.value, student.pk),
        (DailyTrend.Scope.CLASSROOM.value, student.classroom_id),
        (DailyTrend.Scope.SCHOOL.value, student.classroom.school_id),
    )
    values, params = [], []
    for scope, scope_id in scopes:
        for day, (n, right) in sorted(days.items()):
            values.append("(%s, %s, %s, %s, %s)")
            params += [scope, scope_id, adapt(day), n, right]
    table = table_names()["trend"]
    sql = (
        f"INSERT INTO {table} (scope, scope_id, day, attempts, correct) "  # noqa: S608
        f"VALUES {', '.join(values)} ON CONFLICT (scope, scope_id, day) DO UPDATE SET "
        f"attempts = {table}.attempts + excluded.attempts, "
        f"correct = {table}.correct + excluded.correct"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _repair_legacy(student, using, pending: int) -> int:
    """A child whose rows have no window yet: rebuilt from every attempt, then the class's
    roll-up and the school's trend roll-ups (the rebuild marks every attempt applied)."""
    from classroom.models import ClassFactStat
    from classroom.models import DailyTrend
    from classroom.models import FactStat

    FactStat.objects.using(using).rebuild_for([student.pk])
    ClassFactStat.objects.using(using).rebuild_for([student.classroom_id])
    DailyTrend.objects.using(using).rebuild_rollups(student.classroom.school)
    return pending
