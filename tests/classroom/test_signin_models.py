"""The sign-in rules on the models, and when a child's session ends (fixed times)."""

import uuid
from datetime import UTC
from datetime import datetime
from datetime import time
from datetime import timedelta

import pytest
from django.utils import timezone

from classroom.child_session import AFTER_HOURS_SESSION
from classroom.child_session import session_end
from classroom.models import Classroom
from classroom.models import PictureTries
from classroom.models import School
from classroom.models import SignInDevice
from classroom.models import signin as rules


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):
    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "default": default}


def test_check_pictures_ignores_order_and_rejects_everything_else(world):
    # a copy: the module's other tests use world.child_a's pictures as stored
    child = type(world.child_a).objects.get(pk=world.child_a.pk)
    child.pictures = "1,4,7"
    assert child.check_pictures(["7", "1", "4"])
    assert child.check_pictures([4, 7, 1])
    assert not child.check_pictures(["1", "4"])
    assert not child.check_pictures(["1", "4", "8"])
    assert not child.check_pictures(["1", "4", "7", "8"])
    assert not child.check_pictures(["one", "four", "seven"])


def wrong(child) -> list[int]:
    """Three pictures that are not the child's, as stored."""
    stored = type(child).objects.get(pk=child.pk).picture_indexes
    return [i for i in range(9) if i not in stored][:3]


def test_new_devices_are_stopped_for_the_child_after_six_wrong_answers(world):
    child = world.child_a
    now = timezone.now()
    verdicts = [
        child.answer_pictures(wrong(child), f"device-{n}", now).verdict
        for n in range(rules.UNKNOWN_DEVICE_LIMIT)
    ]
    limit = rules.UNKNOWN_DEVICE_LIMIT
    assert verdicts == [rules.Verdict.WRONG] * (limit - 1) + [rules.Verdict.LOCKED]
    child.refresh_from_db()
    assert child.is_locked
    assert child.locked_until == child.failed_since + timedelta(hours=rules.UNKNOWN_WINDOW_HOURS)
    assert child.is_locked_at(child.locked_until - timedelta(seconds=1))
    assert not child.is_locked_at(child.locked_until)
    # Another new device: even the right pictures are refused, and nothing more is counted.
    refused = child.answer_pictures(child.picture_indexes, "device-x", now)
    assert (refused.verdict, refused.lock) == (rules.Verdict.LOCKED, "unknown")
    child.refresh_from_db()
    assert child.failed_signins == limit
    # A device the class knows signs the child in.
    known = child.answer_pictures(child.picture_indexes, "class-tablet", now, known=True)
    assert known.verdict is rules.Verdict.SIGNED_IN
    child.unlock()
    child.refresh_from_db()
    assert (child.failed_signins, child.locked_until, child.is_locked) == (0, None, False)


def test_five_wrong_in_a_row_on_one_device_lock_it_out_of_that_child(world):
    child = world.child_a
    t = timezone.now()
    step = timedelta(seconds=rules.DEVICE_WAIT_SECONDS)  # the device throttle's wait
    verdicts = []
    for n in range(rules.LOCKOUT_AFTER):
        verdicts.append(child.answer_pictures(wrong(child), "tablet", t + n * step, known=True))
    assert [v.verdict for v in verdicts] == [rules.Verdict.WRONG] * (rules.LOCKOUT_AFTER - 1) + [
        rules.Verdict.LOCKED
    ]
    assert verdicts[-1].lock == "device"
    t += rules.LOCKOUT_AFTER * step
    assert child.lock_on("tablet", True, t) == "device"
    assert child.lock_on("other", True, t) is None
    assert child.answer_pictures(child.picture_indexes, "tablet", t, known=True).verdict is (
        rules.Verdict.LOCKED
    )
    child.refresh_from_db()
    assert child.failed_signins == 0  # a known device: not counted against the child
    assert child.answer_pictures(child.picture_indexes, "other", t, known=True).verdict is (
        rules.Verdict.SIGNED_IN
    )
    later = t + timedelta(minutes=rules.LOCKOUT_MINUTES)
    assert child.answer_pictures(child.picture_indexes, "tablet", later, known=True).verdict is (
        rules.Verdict.SIGNED_IN
    )


def test_a_device_is_slowed_then_stopped_and_its_window_runs_out(world):
    child, device = world.child_a, "one-tablet"
    t = timezone.now()
    for _ in range(rules.DEVICE_SLOW_AFTER):
        assert child.answer_pictures(wrong(child), device, t, known=True).verdict is (
            rules.Verdict.WRONG
        )
        child.unlock()
    # From now on it waits DEVICE_WAIT_SECONDS after each wrong answer.
    soon = child.answer_pictures(
        child.picture_indexes, device, t + timedelta(seconds=1), known=True
    )
    assert soon.verdict is rules.Verdict.DEVICE_WAIT
    assert soon.wait_seconds == rules.DEVICE_WAIT_SECONDS - 1
    step = timedelta(seconds=rules.DEVICE_WAIT_SECONDS)
    for _ in range(rules.DEVICE_SLOW_AFTER, rules.DEVICE_STOP_AFTER):
        t += step
        assert child.answer_pictures(wrong(child), device, t, known=True).verdict is (
            rules.Verdict.WRONG
        )
        child.unlock()
    t += step
    stopped = child.answer_pictures(child.picture_indexes, device, t)
    assert stopped.verdict is rules.Verdict.DEVICE_STOPPED
    assert SignInDevice.objects.get(key=device).failures == rules.DEVICE_STOP_AFTER
    # Another device is not affected; the stopped one is free once its window ends.
    assert child.answer_pictures(child.picture_indexes, "other", t).verdict is (
        rules.Verdict.SIGNED_IN
    )
    start = SignInDevice.objects.get(key=device).window_start
    later = start + timedelta(minutes=rules.DEVICE_WINDOW_MINUTES)
    assert child.answer_pictures(child.picture_indexes, device, later).verdict is (
        rules.Verdict.SIGNED_IN
    )


def test_a_right_answer_forgives_the_device(world):
    t = timezone.now()
    for _ in range(rules.DEVICE_SLOW_AFTER - 1):
        world.child_a.answer_pictures(wrong(world.child_a), "shared", t)
    assert world.child_a2.answer_pictures(world.child_a2.picture_indexes, "shared", t).verdict is (
        rules.Verdict.SIGNED_IN
    )
    assert SignInDevice.objects.get(key="shared").failures == 0


def test_unlock_children_unlocks_the_class_and_forgives_its_devices(world):
    t = timezone.now()
    step = timedelta(seconds=rules.DEVICE_WAIT_SECONDS)  # the device throttle's wait
    for n in range(rules.LOCKOUT_AFTER):
        world.child_a.answer_pictures(wrong(world.child_a), f"d{n}", t)
        world.child_a2.answer_pictures(wrong(world.child_a2), "tablet", t + n * step, known=True)
    world.child_b.answer_pictures(wrong(world.child_b), "elsewhere", t)
    assert PictureTries.objects.filter(student=world.child_a2, locked_until__gt=t).exists()
    assert world.class_a.unlock_children() == 2
    assert not world.class_a.students.filter(failed_signins__gt=0).exists()
    assert not PictureTries.objects.filter(student__classroom=world.class_a).exists()
    assert PictureTries.objects.filter(student=world.child_b).exists()
    assert set(SignInDevice.objects.filter(failures__gt=0).values_list("key", flat=True)) == {
        "elsewhere"
    }


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
