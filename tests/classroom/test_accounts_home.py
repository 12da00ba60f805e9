"""The teacher's home: their classes, archived ones apart, and no 500 without a school."""

import pytest
from django.urls import reverse

from classroom.models import Classroom

pytestmark = pytest.mark.django_db


def test_teacher_home_lists_my_classes_not_my_colleagues(world):
    old = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="Old 2B")
    old.archive()
    response = world.client("teacher_a").get(reverse("classroom:teacher_home"))
    assert response.status_code == 200
    text = response.text
    assert "School A" in text
    assert reverse("classroom:class_detail", args=[world.class_a.pk]) in text
    assert reverse("classroom:class_detail", args=[world.class_b.pk]) not in text
    assert "Archived classes" in text
    assert reverse("classroom:class_restore", args=[old.pk]) in text
    assert reverse("classroom:class_new") in text
    assert "2 children" in text


def test_a_grown_up_without_a_school_gets_a_friendly_page(world):
    response = world.client("superuser").get(reverse("classroom:teacher_home"))
    assert response.status_code == 200
    assert "not in a school" in response.text


def test_a_child_or_a_visitor_is_sent_to_log_in(world):
    for role in ("anonymous", "child_a"):
        response = world.client(role).get(reverse("classroom:teacher_home"))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_logging_in_lands_a_teacher_at_home_and_a_classless_head_on_the_school(world):
    from django.test import Client

    # Fresh copies: changing the module's shared user objects would log out the later tests'
    # clients (their session hash follows the password).
    for user in type(world.teacher_a).objects.filter(pk__in=[world.teacher_a.pk, world.admin_a.pk]):
        user.set_password("known-potion-31")
        user.save()

    def log_in(name, next_url=""):
        form = {"username": name, "password": "known-potion-31"}
        if next_url:
            form["next"] = next_url
        response = Client().post(reverse("login"), form)
        assert response.status_code == 302, response.text[-1500:]
        return response

    assert log_in("teacher_a")["Location"] == reverse("classroom:teacher_home")
    assert log_in("admin_a")["Location"] == reverse("classroom:school_dashboard")
    assert log_in("admin_a", reverse("classroom:class_new"))["Location"] == reverse(
        "classroom:class_new"
    )
    # A head who also teaches a class lands on their classes, like any teacher.
    Classroom.objects.create(school=world.school_a, teacher=world.admin_a, name="Head's 6C")
    assert log_in("admin_a")["Location"] == reverse("classroom:teacher_home")


def test_archive_dates_are_the_schools_day(world):
    """20:00 UTC on 15 December is already 16 December in Auckland."""
    from datetime import UTC
    from datetime import datetime

    type(world.school_a).objects.filter(pk=world.school_a.pk).update(timezone="Pacific/Auckland")
    old = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="Old 2B")
    Classroom.objects.filter(pk=old.pk).update(archived_at=datetime(2026, 12, 15, 20, tzinfo=UTC))
    response = world.client("teacher_a").get(reverse("classroom:teacher_home"))
    assert response.status_code == 200, response
    text = response.text
    assert "archived 16 Dec 2026" in text and "15 Dec" not in text


def test_after_the_year_end_archive_the_home_offers_this_years_class_not_a_first_one(world):
    """Every class archived (the year-end archive): not "No classes yet — Make my first class"
    above the archived list, but a new year's start, the archived classes below."""
    world.class_a.archive()
    text = world.client("teacher_a").get(reverse("classroom:teacher_home")).text
    assert "No classes yet" not in text and "Make my first class" not in text
    assert "No active classes" in text and "Make a new class" in text
    assert text.index("No active classes") < text.index("Archived classes")
    assert reverse("classroom:class_restore", args=[world.class_a.pk]) in text
    fresh = Classroom.objects.create(school=world.school_a, teacher=world.admin_a, name="1A")
    fresh.delete()  # a teacher who never had a class still gets the first-class page
    home = world.client("admin_a").get(reverse("classroom:teacher_home")).text
    assert "Make my first class" in home
