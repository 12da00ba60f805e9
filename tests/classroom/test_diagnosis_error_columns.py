"""The kinds of wrong answer (issue 19) in the children's error columns: every kind has its
column, and the rebuild counts the stored wrong answers, named by ``diagnosis.classify``, into
them (SQLite and PostgreSQL). (This was the test of data migration 0011, which renamed the
answers stored under the old rules; the migrations have since been squashed, and what is left
to test is what the rebuild counts from attempts named by the rules of today.)"""

from datetime import UTC
from datetime import datetime

import pytest

from classroom import diagnosis
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from games.models import Match
from games.models import Move

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)


def test_the_error_columns_count_the_wrong_answers_by_kind(django_user_model):
    teacher = django_user_model.objects.create_user("t-mig", password="x-long-pass-1")
    school = School.objects.create(name="Kauri School")
    room = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    ada, ben = (Student.objects.create(classroom=room, name=n) for n in ("Ada", "Ben"))
    match = Match.objects.create(game="multiplipotion", options={}, seed=0, state={})
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    # (child, a, b, answer, the kind the old rules stored: the attempt stores today's)
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
            correct=answer == a * b, kind=diagnosis.classify(a, b, answer),
            context="missed" if answer is None else "capture",
            created_at=WHEN,
        )
        for child, a, b, answer, kind in old
    )  # fmt: skip
    FactStat.objects.rebuild_for([ada.pk, ben.pk])

    errors = {(s.student_id, s.a, s.b): s.errors for s in FactStat.objects.all()}
    zero = dict.fromkeys(diagnosis.ERROR_KINDS, 0)
    assert errors == {
        (ada.pk, 8, 7): {**zero, "close": 2, "operand": 1, "omission": 1},
        (ada.pk, 7, 7): {**zero, "zero_one": 1},
        (ada.pk, 4, 8): {**zero, "operand": 1},
        (ben.pk, 7, 8): {**zero, "reversed": 1},
    }
    columns = {f.name for f in FactStat._meta.get_fields()}
    assert {f"{kind}_errors" for kind in diagnosis.ERROR_KINDS} <= columns
