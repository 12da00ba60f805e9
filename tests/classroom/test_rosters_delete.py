"""Hard delete: the child and every row about them are gone."""

from datetime import date

import pytest
from django.apps import apps
from django.db import models
from django.urls import reverse

from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import Student
from classroom.models import WaitingEntry
from games.models import Match
from games.models import Move
from games.models import Seat

pytestmark = pytest.mark.django_db


def rows_referring_to(student_pk):
    """Every row of every model (auto-created M2M tables too) with a key to this Student."""
    found = []
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.get_fields():
            if (
                isinstance(field, models.ForeignKey | models.OneToOneField)
                and field.related_model is Student
                and model.objects.filter(**{field.name: student_pk}).exists()
            ):
                found.append(f"{model._meta.label}.{field.name}")
    return found


def test_the_reference_finder_sees_every_kind_of_link(world):
    world.assignment_a.students.add(world.child_a)
    WaitingEntry.objects.create(assignment=world.assignment_a, student=world.child_a, tier="green")
    found = rows_referring_to(world.child_a.pk)
    assert "classroom.ChildSeat.student" in found
    assert "classroom.WaitingEntry.student" in found
    assert "classroom.Assignment_students.student" in found
    assert "classroom.Student" not in " ".join(found)  # the child itself is not a reference


def test_the_confirmation_page_names_the_child_and_deletes_nothing(world):
    response = world.client("teacher_a").get(
        reverse("classroom:student_delete", args=[world.child_a.pk])
    )
    assert response.status_code == 200
    assert "Delete <bdi>Ada</bdi> for good?" in response.text
    assert "1 game" in response.text
    assert Student.objects.filter(pk=world.child_a.pk).exists()


def test_hard_delete_leaves_no_row_that_refers_to_the_child(world):
    child = world.child_a
    world.assignment_a.students.add(child)
    world.assignment_a.tier_overrides = {str(child.pk): "purple", str(world.child_a2.pk): "full"}
    world.assignment_a.save()
    WaitingEntry.objects.create(assignment=world.assignment_a, student=child, tier="green")
    # The child's statistics too (rows_referring_to then covers FactStat).
    FactStat.objects.create(
        student=child, a=7, b=8, attempts=1, correct=0, omissions=0, wrong_answers={"48": 1}
    )
    # Their trend rows name them by id (no foreign key): they go too.
    DailyTrend.objects.create(scope="student", scope_id=child.pk, day=date(2026, 3, 10), attempts=1)
    match_pk = world.match_a.pk
    assert (
        Move.objects.filter(match_id=match_pk).exists()
        or Seat.objects.filter(match_id=match_pk).exists()
    )
    assert rows_referring_to(child.pk)

    response = world.client("teacher_a").post(reverse("classroom:student_delete", args=[child.pk]))

    assert response.status_code == 302
    assert not Student.objects.filter(pk=child.pk).exists()
    assert rows_referring_to(child.pk) == []
    assert not FactStat.objects.filter(student_id=child.pk).exists()
    assert not DailyTrend.objects.filter(scope="student", scope_id=child.pk).exists()
    # Their matches (their answers to facts) are gone with their seats and moves.
    assert not Match.objects.filter(pk=match_pk).exists()
    assert not Move.objects.filter(match_id=match_pk).exists()
    assert not Seat.objects.filter(name="Ada").exists()
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.tier_overrides == {str(world.child_a2.pk): "full"}
    # Everyone else is untouched.
    assert Student.objects.filter(pk=world.child_a2.pk).exists()
    assert Match.objects.filter(pk=world.match_b.pk).exists()


def test_another_teacher_cannot_delete_the_child(world):
    response = world.client("teacher_b").post(
        reverse("classroom:student_delete", args=[world.child_a.pk])
    )
    assert response.status_code == 404
    assert Student.objects.filter(pk=world.child_a.pk).exists()
