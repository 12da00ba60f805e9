"""Migration 0011: the stored wrong answers are named by the new rules and the children's error
columns counted again, so the reports are right before the next rebuild (SQLite and
PostgreSQL)."""

import importlib
from datetime import UTC, datetime

import pytest
from django.apps import apps

from classroom import diagnosis
from classroom.models import Attempt, Classroom, FactStat, School, Student
from games.models import Match, Move

pytestmark = pytest.mark.django_db

migration = importlib.import_module("classroom.migrations.0011_diagnosis_kinds")
WHEN = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)


def test_old_names_are_replaced_and_the_columns_recounted(django_user_model):
    teacher = django_user_model.objects.create_user("t-mig", password="x-long-pass-1")
    school = School.objects.create(name="Kauri School")
    room = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    ada, ben = (Student.objects.create(classroom=room, name=n) for n in ("Ada", "Ben"))
    match = Match.objects.create(game="multiplipotion", options={}, seed=0, state={})
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    # (child, a, b, answer, the kind the old rules stored)
    old = [
        (ada, 8, 7, 54, "table"),  # now a near miss
        (ada, 8, 7, 54, "table"),
        (ada, 8, 7, 48, "operand"),  # unchanged
        (ada, 8, 7, None, "omission"),
        (ada, 8, 7, 56, "correct"),
        (ada, 7, 7, 0, "operation"),  # now the zero rule
        (ada, 4, 8, 48, "operation"),  # now a neighbour (6 × 8)
        (ben, 7, 8, 65, "other"),  # now reversed digits
    ]
    Attempt.objects.bulk_create(
        Attempt(
            student=child, match=match, move=move, a=a, b=b, answer=answer,
            correct=answer == a * b, kind=kind, context="missed" if answer is None else "capture",
            created_at=WHEN,
        )
        for child, a, b, answer, kind in old
    )  # fmt: skip
    FactStat.objects.create(student=ada, a=8, b=7, state="learning", errors={"table": 2})
    FactStat.objects.create(student=ada, a=7, b=7, state="learning", errors={"operation": 1})
    FactStat.objects.create(student=ada, a=4, b=8, state="learning", errors={"operation": 1})
    FactStat.objects.create(student=ben, a=7, b=8, state="learning", errors={"other": 1})

    migration.rename_wrong_answers(apps, None)

    for row in Attempt.objects.all():
        assert row.kind == diagnosis.classify(row.a, row.b, row.answer)
    errors = {(s.student_id, s.a, s.b): s.errors for s in FactStat.objects.all()}
    zero = dict.fromkeys(diagnosis.ERROR_KINDS, 0)
    assert errors == {
        (ada.pk, 8, 7): {**zero, "close": 2, "operand": 1, "omission": 1},
        (ada.pk, 7, 7): {**zero, "zero_one": 1},
        (ada.pk, 4, 8): {**zero, "operand": 1},
        (ben.pk, 7, 8): {**zero, "reversed": 1},
    }
    # What the rebuild counts from the same attempts: the same.
    FactStat.objects.rebuild_for([ada.pk, ben.pk])
    assert {(s.student_id, s.a, s.b): s.errors for s in FactStat.objects.all()} == errors
    assert set(migration.KINDS) == set(diagnosis.ERROR_KINDS)
