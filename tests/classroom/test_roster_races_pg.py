"""Two tabs adding or renaming children at once on PostgreSQL: never two children of the same
name in a class (the sign-in screen could not tell them apart). Threads released together by a
barrier, each with its own connection, through the real views; the check and the write happen
under the class's row lock (``Classroom.lock_names``). Each test fails without the lock (the
check passes in every thread before any of them writes)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import School
from classroom.models import Student

from .test_signin_races_pg import race

pytestmark = [pytest.mark.slow, pytest.mark.services]
PASSWORD = "roster-race-pass-42"


def teacher_and_classes(*names):
    school = School.objects.create(name="Race school")
    teacher = get_user_model().objects.create_user("racer", "racer@example.org", PASSWORD)
    Membership.objects.create(user=teacher, school=school, role=Membership.Role.TEACHER)
    classes = [Classroom.objects.create(school=school, teacher=teacher, name=n) for n in names]
    return teacher, classes


def teacher_client(teacher) -> Client:
    client = Client()
    client.force_login(teacher)
    return client


def test_the_same_names_pasted_by_six_tabs_at_once_are_added_once(postgres, transactional_db):
    teacher, (room,) = teacher_and_classes("4B")
    url = reverse("classroom:roster_add", args=[room.pk])
    clients = [teacher_client(teacher) for _ in range(6)]
    statuses = race(
        [lambda c=c: c.post(url, {"names": "Ben\nCleo\nDan"}).status_code for c in clients]
    )
    # A tab whose request is read after another tab's paste has committed finds every name
    # already in the class and is refused whole (422), as the same paste sent twice would be;
    # one that got past the form first is re-read under the lock (302, lines left to fix).
    assert set(statuses) <= {302, 422} and 302 in statuses, statuses
    names = sorted(Student.objects.filter(classroom=room).values_list("name", flat=True))
    assert names == ["Ben", "Cleo", "Dan"]


def test_two_children_renamed_to_one_name_at_once_one_is_refused(postgres, transactional_db):
    teacher, (room,) = teacher_and_classes("4B")
    kids = [Student.objects.create(classroom=room, name=f"Kid {i}") for i in range(4)]
    clients = [teacher_client(teacher) for _ in kids]

    def rename(client, kid):
        url = reverse("classroom:student_edit", args=[kid.pk])
        return client.post(url, {"name": "Zed", "group": ""}).status_code

    statuses = race([lambda c=c, k=k: rename(c, k) for c, k in zip(clients, kids, strict=True)])
    assert sorted(statuses) == [302, 422, 422, 422]
    assert Student.objects.filter(classroom=room, name="Zed").count() == 1


def test_two_children_of_one_name_moved_into_a_class_at_once_one_is_refused(
    postgres, transactional_db
):
    teacher, (a, b, target) = teacher_and_classes("4A", "4B", "5C")
    maxes = [Student.objects.create(classroom=room, name="Max") for room in (a, b)]
    clients = [teacher_client(teacher) for _ in maxes]

    def move(client, kid):
        url = reverse("classroom:student_move", args=[kid.pk])
        return client.post(url, {"classroom": target.pk}).status_code

    statuses = race([lambda c=c, k=k: move(c, k) for c, k in zip(clients, maxes, strict=True)])
    assert sorted(statuses) == [302, 422]
    assert Student.objects.filter(classroom=target, name="Max").count() == 1
