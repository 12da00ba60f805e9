"""The knowledge model's stored state (docs/analytics.md, "Pipeline"): each child's
``FactStat`` rows, one per fact as asked, hold the fold's state (``classroom.knowledge``).

- ``apply_child``: the live update. The child's attempts not yet counted
  (``Attempt.stats_applied`` false) are folded into their rows, in one transaction that marks
  them applied, under the child's row lock (idempotent: a second run finds nothing). When an
  attempt arrives older than one already counted (a game's attempts counted after a later
  warm-up's), the child is replayed from all their attempts instead, so the rows are always
  those of one fold in time order.
- ``rebuild_children``: the repair. Every attempt of these children replayed through the fold.

SQL only reads and writes the rows; every rule is in ``classroom.knowledge``. The day trend
rows (counts of attempts, ``DailyTrend``) are incremented in the same transaction.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable

from django.db import connections
from django.db import models
from django.db import transaction
from django.utils import timezone

from classroom import error_kinds
from classroom import knowledge

from .rebuild_sql import lock_rows
from .rebuild_sql import table_names

FIELDS = (
    "id",
    "a",
    "b",
    "answer",
    "correct",
    "kind",
    "context",
    "response_ms",
    "created_at",
    "af",
)
UPDATED = [
    "attempts",
    "correct",
    "omissions",
    "forced",
    "median_ms",
    "p_known",
    "model",
    "wrong_answers",
    "last_attempt_at",
    "updated_at",
]


def _accuracy_first():
    """Per attempt: made in an accuracy-first session or an untimed warm-up round."""
    from classroom.models import SessionMatch
    from classroom.models import WarmUp

    return models.Exists(
        SessionMatch.objects.filter(
            match_id=models.OuterRef("match_id"), assignment__accuracy_first=True
        )
    ) | models.Exists(WarmUp.objects.filter(pk=models.OuterRef("warm_up_id"), timed=False))


def attempt_rows(queryset) -> list[dict]:
    """The attempts as the fold reads them, oldest first (equal times: by id)."""
    return list(
        queryset.annotate(af=_accuracy_first())
        .order_by("student_id", "created_at", "id")
        .values("student_id", *FIELDS)
    )


def evidence(row: dict, zone) -> knowledge.Evidence:
    at = row["created_at"]
    keypad = (
        row["context"] == knowledge.TYPED
        and not row["correct"]
        and error_kinds.is_keypad_slip(row["a"], row["b"], row["answer"])
    )
    return knowledge.Evidence(
        id=row["id"],
        at=at,
        a=row["a"],
        b=row["b"],
        correct=bool(row["correct"]),
        context=row["context"],
        keypad=keypad,
        ms=row["response_ms"],
        untimed=bool(row["af"]),
        day=at.astimezone(zone).date().toordinal(),
    )


def orders_of(rows: Iterable) -> dict[tuple[int, int], knowledge.Order]:
    """The fold's state from a child's FactStat rows."""
    return {(r.a, r.b): knowledge.Order.from_json(r.model) for r in rows}


def _count(row, p: dict) -> None:
    """Add one attempt to its order's counts (a forced tap is counted apart)."""
    at = p["created_at"]
    if row.last_attempt_at is None or at > row.last_attempt_at:
        row.last_attempt_at = at
    if p["context"] == knowledge.FORCED:
        row.forced += 1
        return
    row.attempts += 1
    row.correct += bool(p["correct"])
    row.omissions += p["answer"] is None
    if not p["correct"] and p["answer"] is not None:
        key = str(p["answer"])
        row.wrong_answers[key] = row.wrong_answers.get(key, 0) + 1


def _finish(row, order: knowledge.Order, now) -> None:
    times = order.times or order.game_times
    row.median_ms = int(statistics.median(times)) if times else None
    row.p_known = order.p
    row.model = order.to_json()
    row.updated_at = now


def fold_rows(student_id: int, rows: dict, pending: list[dict], zone) -> dict:
    """The child's rows (``{(a, b): FactStat}``, changed in place; new ones added) after
    ``pending`` (oldest first): counts, and the fold's state of every order."""
    from classroom.models import FactStat

    orders = orders_of(rows.values())
    for p in pending:
        key = (p["a"], p["b"])
        if key not in rows:
            rows[key] = FactStat(student_id=student_id, a=p["a"], b=p["b"])
            rows[key].wrong_answers = {}
        _count(rows[key], p)
    folded = knowledge.fold(orders, [evidence(p, zone) for p in pending])
    now = timezone.now()
    for key, order in folded.items():
        if key in rows:
            _finish(rows[key], order, now)
    return rows


def _child(student_id: int, using: str):
    from classroom.models import Student

    return (
        Student.objects.using(using)
        .select_related("classroom__school")
        .filter(pk=student_id)
        .first()
    )


def apply_child(student_id: int, *, using: str = "default") -> int:
    """Count the child's pending attempts (see the module). Returns how many were counted."""
    from classroom.models import Attempt
    from classroom.models import FactStat
    from classroom.models import Student

    with transaction.atomic(using=using):
        lock_rows(Student, [student_id])
        student = _child(student_id, using)
        if student is None:
            return 0
        pending = attempt_rows(
            Attempt.objects.using(using).filter(student_id=student_id, stats_applied=False)
        )
        if not pending:
            return 0
        Attempt.objects.using(using).filter(pk__in=[p["id"] for p in pending]).update(
            stats_applied=True
        )
        rows = {(r.a, r.b): r for r in FactStat.objects.using(using).filter(student=student)}
        counted = max((r.last_attempt_at for r in rows.values() if r.last_attempt_at), default=None)
        if counted is not None and pending[0]["created_at"] <= counted:
            # An attempt older than one already counted: replay the child (a repair).
            _replay(using, [student])
        else:
            school = student.classroom.school
            fold_rows(student_id, rows, pending, school.zone)
            _save(using, list(rows.values()))
        _increment_trends(using, student, pending)
    return len(pending)


def _save(using: str, rows: list) -> None:
    from classroom.models import FactStat

    if rows:
        FactStat.objects.using(using).bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["student", "a", "b"],
            update_fields=UPDATED,
        )


def _replay(using: str, students: list) -> int:
    """Every attempt of these children through the fold: their rows rewritten."""
    from classroom.models import Attempt
    from classroom.models import FactStat

    ids = [s.pk for s in students]
    FactStat.objects.using(using).filter(student_id__in=ids).delete()
    by_child: dict[int, list[dict]] = defaultdict(list)
    for row in attempt_rows(Attempt.objects.using(using).filter(student_id__in=ids)):
        by_child[row["student_id"]].append(row)
    written = []
    for student in students:
        rows = fold_rows(student.pk, {}, by_child[student.pk], student.classroom.school.zone)
        written += rows.values()
    FactStat.objects.using(using).bulk_create(written)
    return len(written)


def rebuild_children(student_ids, *, using: str = "default") -> int:
    """Replay every attempt of these children (a repair: rules changed, an import, a hard
    delete, the teacher's button) and mark them all applied. The trend rows are the
    caller's (``FactStat.objects.rebuild_for``). Returns the rows written."""
    from classroom.models import Attempt
    from classroom.models import Student

    ids = sorted(set(student_ids))
    if not ids:
        return 0
    with transaction.atomic(using=using):
        lock_rows(Student, ids)
        students = list(
            Student.objects.using(using).select_related("classroom__school").filter(pk__in=ids)
        )
        Attempt.objects.using(using).filter(student_id__in=ids, stats_applied=False).update(
            stats_applied=True
        )
        return _replay(using, students)


def _increment_trends(using: str, student, pending: list[dict]) -> None:
    """Add the attempts to the child's, the class's and the school's rows of their local days
    (``INSERT … ON CONFLICT … DO UPDATE``, the same statement on both databases), under a
    share lock on the school's row (its trend rebuild takes it exclusively)."""
    from classroom.models import DailyTrend
    from classroom.models import School

    school = student.classroom.school
    days: dict = defaultdict(lambda: [0, 0])
    for p in pending:
        if p["context"] == knowledge.FORCED:
            continue
        day = p["created_at"].astimezone(school.zone).date()
        days[day][0] += 1
        days[day][1] += bool(p["correct"])
    if not days:
        return
    lock_rows(School, [school.pk], share=True)
    connection = connections[using]
    adapt = connection.ops.adapt_datefield_value
    scopes = (
        (DailyTrend.Scope.STUDENT.value, student.pk),
        (DailyTrend.Scope.CLASSROOM.value, student.classroom_id),
        (DailyTrend.Scope.SCHOOL.value, school.pk),
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
