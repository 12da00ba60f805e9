"""The school admin's dashboard: the figures on a small known dataset, time-zone edges, the
SVG chart and its table, and a query count that does not grow with the number of classes."""

import re
from datetime import date
from datetime import datetime
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import School
from classroom.models import Student
from games.models import Match
from games.models import Move
from games.models import Seat

AUCKLAND = ZoneInfo("Pacific/Auckland")  # UTC+13 in November: local days differ from UTC's
# Wednesday 5 November 2025, 01:30 in Auckland = Tuesday 4 November, 12:30 UTC.
NOW = datetime(2025, 11, 5, 1, 30, tzinfo=AUCKLAND)


def local(*args):
    return datetime(*args, tzinfo=AUCKLAND)


def make_user(name, school=None, role=Membership.Role.TEACHER):
    user = get_user_model().objects.create_user(name, f"{name}@example.com", "pw-123456789")
    if school is not None:
        Membership.objects.create(user=user, school=school, role=role)
    return user


def make_match(*players, finished_at=None, status=None):
    """A match with a seat per player (a Student, or None for the computer)."""
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": p.name, "owner_key": p.seat_key}
        if p is not None
        else {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"}
        for p in players
    ]
    match = Match.create("multiplipotion", seats, options={"tier": "green"}, seed=3)
    if finished_at is not None:
        match.status, match.finished_at = Match.Status.FINISHED, finished_at
    if status is not None:
        match.status = status
    match.save()
    return match


def move(match, seat, when):
    ply = match.moves.count() + 1
    return Move.objects.create(
        match=match, ply=ply, seat=seat, action={"type": "end_turn"}, created_at=when
    )


@pytest.fixture
def school(db):
    school = School.objects.create(name="Kauri School", timezone="Pacific/Auckland")
    teacher = make_user("kauri_teacher", school)
    school.class_1 = Classroom.objects.create(school=school, teacher=teacher, name="Room 1")
    school.class_2 = Classroom.objects.create(school=school, teacher=teacher, name="Room 2")
    school.kids = [
        Student.objects.create(classroom=school.class_1 if i < 3 else school.class_2, name=n)
        for i, n in enumerate(["Aroha", "Ben", "Cai", "Dev", "Eru"])
    ]
    return school


@pytest.fixture
def other_school(db):
    other = School.objects.create(name="Elsewhere", timezone="Pacific/Auckland")
    teacher = make_user("elsewhere_teacher", other)
    room = Classroom.objects.create(school=other, teacher=teacher, name="Far")
    other.kid = Student.objects.create(classroom=room, name="Zed")
    return other


def test_active_children_counts_local_days_and_weeks(school, other_school):
    aroha, ben, cai, dev, eru = school.kids
    # Aroha: two moves today (local), in two matches: counted once.
    m1 = make_match(aroha, None)
    move(m1, 0, local(2025, 11, 5, 0, 10))
    m2 = make_match(aroha, ben)
    move(m2, 0, local(2025, 11, 5, 1, 0))
    # Ben sits in m2 but only Aroha moved there today; Ben moved yesterday 23:50 local,
    # which is the same UTC day as NOW: this week, not today.
    move(m2, 1, local(2025, 11, 4, 23, 50))
    # Cai: Monday 00:05 local, the first minutes of the school week.
    m3 = make_match(cai, None)
    move(m3, 0, local(2025, 11, 3, 0, 5))
    # Dev: Sunday 23:55 local, last week.
    m4 = make_match(dev, None)
    move(m4, 0, local(2025, 11, 2, 23, 55))
    # Eru is seated against another school's child, who moved today; Eru did not.
    m5 = make_match(eru, other_school.kid)
    move(m5, 1, local(2025, 11, 5, 1, 0))
    # A move after "now" is not counted yet.
    move(m4, 0, local(2025, 11, 5, 2, 0))

    assert school.active_children(now=NOW) == {"today": 1, "week": 3}
    assert other_school.active_children(now=NOW) == {"today": 1, "week": 1}
    # Seen from UTC, Ben's move is "today": the school's own time zone decides.
    assert NOW.astimezone(ZoneInfo("UTC")).date() == date(2025, 11, 4)
    assert school.local_today(NOW) == date(2025, 11, 5)


def test_week_starts_on_monday_local_midnight(school):
    assert school.week_start(NOW) == local(2025, 11, 3, 0, 0)
    monday_morning = local(2025, 11, 3, 0, 30)
    assert school.week_start(monday_morning) == local(2025, 11, 3, 0, 0)
    sunday_night = local(2025, 11, 2, 23, 59)
    assert school.week_start(sunday_night) == local(2025, 10, 27, 0, 0)


def test_games_per_day_counts_finished_games_on_their_local_day(school, other_school):
    aroha, ben, *_rest = school.kids
    make_match(aroha, None, finished_at=local(2025, 11, 5, 0, 10))  # today
    make_match(aroha, None, finished_at=local(2025, 11, 4, 23, 50))  # yesterday (same UTC day)
    # Two children of the school in one game: one game.
    make_match(aroha, ben, finished_at=local(2025, 10, 26, 12, 0))
    make_match(ben, None, finished_at=local(2025, 10, 26, 13, 0))
    make_match(ben, None, finished_at=local(2025, 10, 9, 9, 0))  # first day of 28
    make_match(ben, None, finished_at=local(2025, 10, 8, 23, 59))  # 28 days ago: outside
    # Not games of this school, or not finished.
    make_match(other_school.kid, None, finished_at=local(2025, 11, 5, 0, 20))
    make_match(aroha, None, status=Match.Status.ACTIVE)
    make_match(ben, None, status=Match.Status.ABANDONED)
    make_match(aroha, None, finished_at=local(2025, 11, 5, 1, 45))  # after NOW

    days = school.games_per_day(now=NOW)
    assert len(days) == 28
    assert days[0] == (date(2025, 10, 9), 1)
    assert days[-1] == (date(2025, 11, 5), 1)
    counts = dict(days)
    assert counts[date(2025, 11, 4)] == 1
    assert counts[date(2025, 10, 26)] == 2
    assert sum(counts.values()) == 5
    assert [d for d, _n in days] == [date(2025, 10, 9) + timedelta(days=i) for i in range(28)]


def test_staff_and_classes_are_counted(school):
    admin = make_user("kauri_admin", school, Membership.Role.ADMIN)
    idle = make_user("kauri_idle", school)
    Classroom.objects.create(
        school=school, teacher=school.class_1.teacher, name="Old", archived_at=timezone.now()
    )
    school.kids[0].archived_at = timezone.now()
    school.kids[0].save()

    staff = {m.user.username: m.class_count for m in school.staff()}
    assert staff == {"kauri_admin": 0, "kauri_teacher": 2, "kauri_idle": 0}
    assert next(iter(school.staff())).user == admin  # admins first
    assert idle.membership.school == school

    classes = [
        (c.name, c.child_count, c.archived_at is not None) for c in school.classes_with_counts()
    ]
    assert classes == [("Room 1", 2, False), ("Room 2", 2, False), ("Old", 0, True)]


# --- the page -------------------------------------------------------------------------------


def test_dashboard_shows_the_figures_the_chart_and_its_table(world, client):
    now = timezone.now()
    move(world.match_a, 0, now)  # child_a moves now: active today
    finished = make_match(world.child_a2, None, finished_at=now)
    client.force_login(world.admin_a)
    response = client.get(reverse("classroom:school_dashboard"))
    assert response.status_code == 200
    html = response.content.decode()
    assert response.context["active"]["today"] >= 1
    # world.match_b (child_b, finished by the computer) and the one above.
    assert response.context["chart"]["total"] == 2
    assert finished.finished_at is not None

    # Teachers with their e-mail, role and classes; classes with teacher and children.
    for text in ["Admin_A", "admin_a@example.com", "Teacher_A", "3A", "3B", "School admin"]:
        assert text in html

    # A server-rendered SVG chart: 28 bars, each with a <title>; axis labels; a caption.
    svg = re.search(r"<svg class=\"bar-chart\".*?</svg>", html, re.S).group(0)
    assert svg.count('<g class="bar') == 28
    assert svg.count("<title") == 29  # the chart's own title and one per bar
    assert "<rect" in svg and "Games" in svg
    assert "<figcaption>" in html
    # The same numbers in a table behind a <details>.
    table = re.search(r"<details class=\"chart-data\">.*?</details>", html, re.S).group(0)
    assert table.count("<tr>") == 29  # header + 28 days
    assert re.search(r"\(today\)</th><td class=\"num\">2</td>", table)
    # CSP: no inline style attribute, no inline script.
    assert "style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    # Links to the other pages of the school admin.
    assert reverse("classroom:invite_list") in html and reverse("classroom:school_year_end") in html


def test_dashboard_is_the_admins_own_school(world, client):
    client.force_login(world.admin_b)
    html = client.get(reverse("classroom:school_dashboard")).content.decode()
    assert "School B" in html
    # Whole words: the page's random CSRF token (hx-headers) may contain "3A".
    assert not re.search(r"\bTeacher_A\b", html) and not re.search(r"\b3A\b", html)


@pytest.mark.parametrize("role", ["teacher_a", "teacher_b", "superuser"])
def test_dashboard_is_404_for_non_admins(world, role):
    assert world.client(role).get(reverse("classroom:school_dashboard")).status_code == 404


def test_dashboard_sends_anonymous_to_log_in(world, client):
    response = client.get(reverse("classroom:school_dashboard"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def count_queries(client):
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(reverse("classroom:school_dashboard")).status_code == 200
    return len(ctx.captured_queries)


def test_query_count_does_not_grow_with_classes(world, client, django_assert_max_num_queries):
    client.force_login(world.admin_a)
    before = count_queries(client)
    for i in range(12):
        teacher = make_user(f"extra_teacher_{i}", world.school_a)
        room = Classroom.objects.create(school=world.school_a, teacher=teacher, name=f"C{i}")
        kid = Student.objects.create(classroom=room, name=f"Kid{i}")
        m = make_match(kid, None, finished_at=timezone.now())
        move(m, 0, timezone.now())
    after = count_queries(client)
    assert after == before
    with django_assert_max_num_queries(10):
        client.get(reverse("classroom:school_dashboard"))


def test_the_busiest_day_is_named_only_when_one_day_stands_out():
    from datetime import date as day_

    from classroom.views.school import games_chart

    days = [day_(2026, 11, d) for d in range(25, 31)]
    assert games_chart([(d, 1) for d in days])["busiest"] is None  # every day had one game
    assert games_chart([(d, 0) for d in days])["busiest"] is None
    two_tops = [(d, 3 if i in {1, 4} else 1) for i, d in enumerate(days)]
    assert games_chart(two_tops)["busiest"] is None
    one_top = [(d, 4 if i == 2 else 1) for i, d in enumerate(days)]
    assert games_chart(one_top)["busiest"] == (days[2], 4)


def test_the_day_axis_title_sits_under_the_month_labels():
    """ "(the last bar is today)" used to share the month labels' line and overlap "Dec" on the
    first days of a month: its own line, under them, inside the chart."""
    from datetime import date as day_

    from classroom.views.school import games_chart

    days = [day_(2026, 11, 28), day_(2026, 11, 29), day_(2026, 11, 30), day_(2026, 12, 1)]
    chart = games_chart([(d, 1) for d in days])
    assert chart["bars"][-1]["new_month"]
    assert chart["axis_title_y"] >= chart["month_label_y"] + 18
    assert chart["axis_title_y"] + 6 <= chart["height"]


def test_the_dashboard_names_the_schools_zone_by_its_place(world):
    """ "Days are counted in the school's time zone (United Kingdom (London))", in the page's
    language, not the zone's database name."""
    from classroom.models import School

    School.objects.filter(pk=world.school_a.pk).update(timezone="Europe/Rome")
    admin = world.client("admin_a")
    assert "time zone (Italy (Rome))" in admin.get(reverse("classroom:school_dashboard")).text
    admin.cookies["django_language"] = "es"
    assert "(Italia (Roma))" in admin.get(reverse("classroom:school_dashboard")).text
