"""classroom.middleware.SchoolTimeZoneMiddleware: a request's times are in the requester's
school's zone (a grown-up's school, a signed-in child's class's school), the site's
TIME_ZONE for anybody else, and finding the zone costs no query on a page that shows no time."""

from datetime import UTC
from datetime import datetime
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.db import connection
from django.http import HttpResponse
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import include
from django.urls import path
from django.urls import reverse
from django.utils import timezone

from classroom.models import School
from classroom.models import Student

ROME, NEW_YORK = ZoneInfo("Europe/Rome"), ZoneInfo("America/New_York")
# 1 July 2025, 16:00 UTC: 18:00 in Rome, 12:00 in New York, 17:00 in London (TIME_ZONE).
NOON_IN_NEW_YORK = datetime(2025, 7, 1, 16, 0, tzinfo=UTC)


def what_time(request):
    """The active zone and NOON_IN_NEW_YORK in it (a test page that reads no child or user)."""
    here = timezone.localtime(NOON_IN_NEW_YORK)
    return HttpResponse(f"{timezone.get_current_timezone_name()} {here:%H:%M}")


def no_time(request):
    return HttpResponse("nothing")


urlpatterns = [
    path("test/what-time/", what_time),
    path("test/no-time/", no_time),
    path("", include("config.urls")),
]


def set_zone(school: School, zone: ZoneInfo):
    School.objects.filter(pk=school.pk).update(timezone=zone.key)


@pytest.fixture
def rome(world):
    set_zone(world.school_a, ROME)  # teacher_a, admin_a, class A and child_a
    assert settings.TIME_ZONE != "Europe/Rome"
    return world


# --- pages that had their own timezone.override ----------------------------------------------


def test_a_teacher_sees_the_lockout_time_in_their_schools_zone(rome):
    locked_until = timezone.now() + timedelta(minutes=10)
    Student.objects.filter(pk=rome.child_a.pk).update(
        failed_signins=6, failed_since=timezone.now(), locked_until=locked_until
    )
    page = rome.client("teacher_a").get(reverse("classroom:class_detail", args=[rome.class_a.pk]))
    assert page.status_code == 200
    in_rome = timezone.localtime(locked_until, ROME).strftime("%H:%M")
    in_london = timezone.localtime(locked_until, ZoneInfo(settings.TIME_ZONE)).strftime("%H:%M")
    assert in_rome != in_london
    assert f"New devices stopped until {in_rome}" in page.text


def test_a_teacher_in_new_york_sees_and_types_session_times_in_new_york(world):
    set_zone(world.school_a, NEW_YORK)
    world.assignment_a.opens_at = NOON_IN_NEW_YORK
    world.assignment_a.save(update_fields=["opens_at"])
    client = world.client("teacher_a")
    page = client.get(reverse("classroom:assignment_list", args=[world.class_a.pk]))
    assert "Tue 1 Jul, 12:00" in page.text and "17:00" not in page.text
    # The form shows and reads a time as New York's wall time.
    url = reverse("classroom:assignment_edit", args=[world.assignment_a.pk])
    assert 'value="2025-07-01T12:00"' in client.get(url).text
    typed = {
        "title": "Practice",
        "tier": "green",
        "opponents": "classmates_then_bot",
        "bot_level": "apprentice",
        "target_kind": "games",
        "target_value": "5",
        "opens_at": "2025-07-01T13:30",
        "who": "class",
    }
    assert client.post(url, typed).status_code == 302
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.opens_at == datetime(2025, 7, 1, 17, 30, tzinfo=UTC)


# --- who the requester is ------------------------------------------------------------------------


@override_settings(ROOT_URLCONF=__name__)
def test_a_teacher_gets_their_schools_zone(rome):
    assert rome.client("teacher_a").get("/test/what-time/").text == "Europe/Rome 18:00"


@override_settings(ROOT_URLCONF=__name__)
def test_a_signed_in_child_gets_their_classs_schools_zone(rome):
    assert rome.client("child_a").get("/test/what-time/").text == "Europe/Rome 18:00"


@override_settings(ROOT_URLCONF=__name__)
def test_a_child_of_another_school_gets_that_schools_zone(rome):
    set_zone(rome.school_b, NEW_YORK)
    rome.class_b.school = rome.school_b
    rome.class_b.save(update_fields=["school"])
    assert rome.client("child_b").get("/test/what-time/").text == "America/New_York 12:00"
    assert rome.client("admin_b").get("/test/what-time/").text == "America/New_York 12:00"


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.parametrize("role", ["anonymous", "superuser"])
def test_anybody_without_a_school_gets_the_sites_zone(rome, role):
    """A visitor, a family guest, a grown-up in no school (the superuser)."""
    london = timezone.localtime(NOON_IN_NEW_YORK, ZoneInfo(settings.TIME_ZONE))
    expected = f"{settings.TIME_ZONE} {london:%H:%M}"
    assert rome.client(role).get("/test/what-time/").text == expected


@override_settings(ROOT_URLCONF=__name__)
def test_the_zone_is_deactivated_after_the_response(rome):
    rome.client("teacher_a").get("/test/what-time/")
    assert timezone.get_current_timezone_name() == settings.TIME_ZONE


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.parametrize("role", ["teacher_a", "child_a", "anonymous"])
def test_a_page_that_shows_no_time_costs_no_query(rome, role):
    client = rome.client(role)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/test/no-time/").text == "nothing"
    assert not [q["sql"] for q in queries.captured_queries if "classroom_" in q["sql"]]
