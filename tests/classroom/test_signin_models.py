"""The sign-in rules on the models, and when a child's session ends (fixed times)."""

import uuid
from datetime import UTC, datetime, time, timedelta

import pytest
from django.utils import timezone

from classroom.child_session import AFTER_HOURS_SESSION, session_end
from classroom.models import Classroom, School
from classroom.models import signin as rules


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):
    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "default": default}


def test_check_pictures_ignores_order_and_rejects_everything_else(world):
    child = world.child_a
    child.pictures = "1,4,7"
    assert child.check_pictures(["7", "1", "4"])
    assert child.check_pictures([4, 7, 1])
    assert not child.check_pictures(["1", "4"])
    assert not child.check_pictures(["1", "4", "8"])
    assert not child.check_pictures(["1", "4", "7", "8"])
    assert not child.check_pictures(["one", "four", "seven"])


def test_register_failure_locks_on_the_fifth(world):
    child = world.child_a
    results = [child.register_failure() for _ in range(rules.LOCKOUT_AFTER)]
    assert results == [False] * (rules.LOCKOUT_AFTER - 1) + [True]
    child.refresh_from_db()
    assert child.is_locked
    assert child.is_locked_at(child.locked_until - timedelta(seconds=1))
    assert not child.is_locked_at(child.locked_until)
    child.unlock()
    child.refresh_from_db()
    assert (child.failed_signins, child.locked_until, child.is_locked) == (0, None, False)


def test_new_badge_and_new_pictures_change_them(world):
    child = world.child_a
    token, pictures = child.badge_token, child.pictures
    child.new_badge()
    child.new_pictures()
    child.refresh_from_db()
    assert child.badge_token != token and child.pictures != pictures


def test_end_signins_moves_the_generation_on(world):
    before = world.class_a.signin_generation
    world.class_a.end_signins()
    assert world.class_a.signin_generation == before + 1
    assert Classroom.objects.get(pk=world.class_a.pk).signin_generation == before + 1


def test_find_for_signin_skips_archived_classes(world):
    assert Classroom.find_for_signin(world.class_a.code.lower()) == world.class_a
    world.class_a.archived_at = timezone.now()
    world.class_a.save()
    assert Classroom.find_for_signin(world.class_a.code) is None


def test_the_rate_window_is_per_class_and_per_minute(world, settings):
    settings.CLASS_SIGNIN_FAILURES_PER_MINUTE = 2
    t = 1_800_000_020.0
    assert not world.class_a.signin_rate_exceeded(t)
    assert world.class_a.count_signin_failure(t) == 1
    assert world.class_a.count_signin_failure(t + 10) == 2
    assert world.class_a.signin_rate_exceeded(t + 30)
    assert not world.class_b.signin_rate_exceeded(t)
    assert not world.class_a.signin_rate_exceeded(t + 60)


# --- the end of the school day -------------------------------------------------------------


def school(day_ends_at=time(15, 30), tz="Europe/London"):
    return School(name="S", day_ends_at=day_ends_at, timezone=tz)


def test_a_morning_sign_in_lasts_until_the_end_of_the_school_day():
    now = datetime(2026, 1, 15, 9, 5, tzinfo=UTC)  # 09:05 in London (winter)
    assert session_end(school(), now) == datetime(2026, 1, 15, 15, 30, tzinfo=UTC)


def test_the_end_of_the_day_is_local_time_in_summer_and_elsewhere():
    now = datetime(2026, 6, 15, 8, 0, tzinfo=UTC)  # 09:00 in London (BST)
    assert session_end(school(), now) == datetime(2026, 6, 15, 14, 30, tzinfo=UTC)
    paris = school(time(16, 0), "Europe/Paris")  # 10:00 in Paris
    assert session_end(paris, now) == datetime(2026, 6, 15, 14, 0, tzinfo=UTC)


def test_a_sign_in_just_before_the_bell_still_lasts_an_hour():
    now = datetime(2026, 1, 15, 15, 25, tzinfo=UTC)  # five minutes before 15:30 in London
    assert session_end(school(), now) == now + AFTER_HOURS_SESSION
    an_hour_before = datetime(2026, 1, 15, 14, 30, tzinfo=UTC)
    assert session_end(school(), an_hour_before) == datetime(2026, 1, 15, 15, 30, tzinfo=UTC)


def test_after_school_a_sign_in_lasts_an_hour():
    now = datetime(2026, 1, 15, 17, 0, tzinfo=UTC)
    assert session_end(school(), now) == now + AFTER_HOURS_SESSION
    at_the_bell = datetime(2026, 1, 15, 15, 30, tzinfo=UTC)
    assert session_end(school(), at_the_bell) == at_the_bell + AFTER_HOURS_SESSION
