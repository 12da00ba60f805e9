"""Sign-in limits that hold under parallel requests (issue 18, items 1–5).

- A child's pictures: lock, check, compare and count in one transaction; 30 threads with 30
  different combinations for one child get at most LOCKOUT_AFTER wrong answers compared
  (PostgreSQL).
- A device that sends wrong answers is slowed, then stopped, on its own: 200 wrong answers from
  one client across a class leave a child on another device signing in at the first try; the
  teacher unlocks the whole class with one button.
- A new badge or new pictures end the child's sessions obtained with the old ones.
- The teacher's log-in lockout (django-axes) is per account and network (here all from one
  address; the other networks' side: test_login_limits.py), counted in the database, and one
  account's guesses are checked one at a time: 30 parallel wrong guesses get at most 10
  passwords checked, and it still locks with the cache down.
- Password-reset e-mails are limited per e-mail address and per client; grown-ups' sessions end
  with the browser and after a working day.
"""

import re
from collections import Counter
from itertools import combinations

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from classroom.forms import LOGIN_FAILURE_LIMIT
from classroom.models import PICTURES
from classroom.models import Student
from classroom.models import signin as rules
from classroom.views import accounts

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def pictures_url(student):
    return reverse("classroom:join_pictures", args=[student.classroom.code, student.pk])


def as_form(picks) -> dict:
    return {"pictures": [str(p) for p in picks]}


def wrong_combinations(student):
    right = tuple(student.picture_indexes)
    return [c for c in combinations(range(len(PICTURES)), 3) if c != right]


def signed_in_as(client):
    response = client.get(reverse("classroom:child_home"))
    return response.context.get("student") if response.status_code == 200 else None


class Clock:
    """timezone.now() for the sign-in rules, moved on by the test."""

    def __init__(self, monkeypatch):
        from django.utils import timezone

        self.now = timezone.now()
        monkeypatch.setattr(rules.timezone, "now", lambda: self.now)

    def tick(self, seconds: float):
        from datetime import timedelta

        self.now += timedelta(seconds=seconds)


# --- a child's pictures --------------------------------------------------------------------


def test_two_hundred_wrong_answers_from_one_client_leave_the_class_signing_in(world, monkeypatch):
    clock = Clock(monkeypatch)  # 200 answers in 2 minutes: one every 0.6 s
    attacker = Client()
    attacker.get(
        reverse("classroom:join_class", args=[world.class_a.code])
    )  # a device like any other
    children = [world.child_a, world.child_a2] + [
        Student.objects.create(classroom=world.class_a, name=f"Kid {n}") for n in range(8)
    ]
    statuses = Counter()
    sent = 0
    while sent < 200:
        for child in children:
            picks = wrong_combinations(child)[sent % 50]
            statuses[attacker.post(pictures_url(child), as_form(picks)).status_code] += 1
            sent += 1
            clock.tick(0.6)
    counted = sum(
        Student.objects.filter(classroom=world.class_a).values_list("failed_signins", flat=True)
    )
    locked = [c.name for c in Student.objects.filter(classroom=world.class_a) if c.is_locked]
    print(f"\n200 wrong answers: {dict(statuses)}; counted {counted}; locked {locked}")
    assert counted == rules.DEVICE_STOP_AFTER == statuses[422] + statuses[403]
    assert statuses[429] == 200 - rules.DEVICE_STOP_AFTER
    assert not locked  # eight wrong answers spread over ten children lock none of them
    # Ada, on a tablet of her own, signs in at the first try.
    tablet = Client()
    tablet.get(reverse("classroom:join_class", args=[world.class_a.code]))
    response = tablet.post(pictures_url(world.child_a), as_form(world.child_a.picture_indexes))
    assert response.status_code == 302
    assert signed_in_as(tablet) == world.child_a


def test_a_client_without_cookies_is_stopped_by_its_address(world):
    statuses = Counter(
        Client().post(pictures_url(world.child_a2), as_form(picks)).status_code
        for picks in wrong_combinations(world.child_a2)[:30]
    )
    assert statuses[429] >= 30 - rules.DEVICE_STOP_AFTER
    world.child_a2.refresh_from_db()
    assert world.child_a2.failed_signins == 30 - statuses[429] <= rules.DEVICE_STOP_AFTER
    tablet = Client()
    tablet.get(reverse("classroom:join_class", args=[world.class_a.code]))
    assert (
        tablet.post(pictures_url(world.child_a), as_form(world.child_a.picture_indexes)).status_code
        == 302
    )


def test_a_slowed_device_is_told_how_long_to_wait(world):
    client = Client()
    client.get(reverse("classroom:join_class", args=[world.class_a.code]))
    # Ali's wrong pictures (one of Ada's wrong ones could be Ali's right one)
    for picks in wrong_combinations(world.child_a2)[: rules.DEVICE_SLOW_AFTER]:
        assert client.post(pictures_url(world.child_a2), as_form(picks)).status_code == 422
    response = client.post(pictures_url(world.child_a), as_form(world.child_a.picture_indexes))
    assert response.status_code == 429
    text = response.content.decode()
    assert "Slow down a little" in text and "seconds, then tap your pictures again" in text
    assert signed_in_as(client) is None


def test_the_teacher_unlocks_every_child_with_one_button(world):
    for child in [world.child_a, world.child_a2]:
        child.failed_signins = rules.LOCKOUT_AFTER
        child.save()
    from django.utils import timezone

    Student.objects.filter(classroom=world.class_a).update(
        locked_until=timezone.now() + timezone.timedelta(minutes=5)
    )
    cards = world.client("teacher_a").get(reverse("classroom:login_cards", args=[world.class_a.pk]))
    assert "Unlock every child" in cards.content.decode()
    teacher = world.client("teacher_a")
    response = teacher.post(
        reverse("classroom:class_signins_unlock", args=[world.class_a.pk]), follow=True
    )
    assert "2 children of 3A can sign in again." in response.content.decode()
    assert not Student.objects.filter(classroom=world.class_a, failed_signins__gt=0).exists()
    assert not Student.objects.filter(locked_until__isnull=False, classroom=world.class_a).exists()
    # Another teacher's class: 404, nothing unlocked there.
    world.child_b.failed_signins = 3
    world.child_b.save()
    other = teacher.post(reverse("classroom:class_signins_unlock", args=[world.class_b.pk]))
    assert other.status_code == 404
    world.child_b.refresh_from_db()
    assert world.child_b.failed_signins == 3


# --- revoking ends sessions ------------------------------------------------------------------


@pytest.mark.parametrize(
    "action", ["classroom:student_badge_revoke", "classroom:student_pictures_new"]
)
def test_a_new_badge_or_new_pictures_signs_the_child_out(world, action):
    child = Client()
    assert (
        child.post(pictures_url(world.child_a), as_form(world.child_a.picture_indexes)).status_code
        == 302
    )
    assert child.get(reverse("classroom:child_home")).status_code == 200
    world.client("teacher_a").post(reverse(action, args=[world.child_a.pk]))
    response = child.get(reverse("classroom:child_home"))
    assert response.status_code == 302 and signed_in_as(child) is None
    # Unlocking does not sign a child out.
    other = Client()
    assert (
        other.post(
            pictures_url(world.child_a2), as_form(world.child_a2.picture_indexes)
        ).status_code
        == 302
    )
    world.client("teacher_a").post(reverse("classroom:student_unlock", args=[world.child_a2.pk]))
    assert other.get(reverse("classroom:child_home")).status_code == 200


# --- the teacher's log-in ------------------------------------------------------------------


def log_in(username, password, client=None):
    return (client or Client()).post(reverse("login"), {"username": username, "password": password})


def test_ten_wrong_passwords_lock_the_account_whatever_name_was_typed(world):
    names = ["teacher_a", "TEACHER_A", "teacher_a@example.com", " Teacher_A@Example.com "]
    statuses = [log_in(names[n % 4], f"wrong-{n}").status_code for n in range(12)]
    assert statuses == [422] * 9 + [429] * 3
    locked = log_in("teacher_a", world.password)
    assert locked.status_code == 429
    assert "Too many wrong passwords for this account" in locked.content.decode()
    # Another account is not affected.
    get_user_model().objects.create_user("tom", "tom@example.com", "pw-long-enough-1")
    assert log_in("tom@example.com", "pw-long-enough-1").status_code == 302


def test_unknown_names_are_counted_by_the_typed_name(world):
    statuses = [log_in("Nobody@Example.com", "x").status_code for _ in range(10)]
    assert statuses[-1] == 429 and statuses[:9] == [422] * 9
    assert log_in("nobody@example.com", "x").status_code == 429


def test_the_lockout_holds_while_the_cache_is_down(world, cache_away):
    statuses = [log_in("teacher_a", "wrong").status_code for _ in range(11)]
    assert statuses[9:] == [429, 429]


def test_a_password_reset_lifts_the_lockout(world):
    for _ in range(LOGIN_FAILURE_LIMIT):
        log_in("teacher_a", "wrong")
    assert log_in("teacher_a", world.password).status_code == 429
    client = Client()
    client.post(reverse("password_reset"), {"email": "teacher_a@example.com"})
    link = re.search(r"https?://[^/]+(/\S+)", mail.outbox[-1].body).group(1)
    page = client.get(link, follow=True)
    set_url = page.redirect_chain[-1][0]
    done = client.post(
        set_url, {"new_password1": "brand-new-potion-7", "new_password2": "brand-new-potion-7"}
    )
    assert done.status_code == 302
    assert log_in("teacher_a", "brand-new-potion-7").status_code == 302


# --- password-reset e-mails and grown-ups' sessions ---------------------------------------------


def test_password_reset_emails_are_limited_per_address_and_per_client(world):
    client = Client()
    statuses = [
        client.post(reverse("password_reset"), {"email": "teacher_a@example.com"}).status_code
        for _ in range(accounts.RESET_PER_ADDRESS + 1)
    ]
    assert statuses == [302] * accounts.RESET_PER_ADDRESS + [429]
    assert len(mail.outbox) == accounts.RESET_PER_ADDRESS
    assert (
        "Too many password-reset e-mails"
        in client.post(
            reverse("password_reset"), {"email": "teacher_a@example.com"}
        ).content.decode()
    )
    others = [
        client.post(reverse("password_reset"), {"email": f"x{n}@example.com"}).status_code
        for n in range(accounts.RESET_PER_CLIENT)
    ]
    # The client's window already holds the five requests for the first address.
    assert others.count(302) == accounts.RESET_PER_CLIENT - (accounts.RESET_PER_ADDRESS + 2)
    assert others[-1] == 429


def test_a_grown_ups_session_ends_with_the_browser_and_after_a_working_day(world, settings):
    get_user_model().objects.create_user("tom", "tom@example.com", "pw-long-enough-1")
    client = Client()
    response = log_in("tom@example.com", "pw-long-enough-1", client)
    assert response.status_code == 302
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert not cookie["max-age"] and not cookie["expires"]  # a browser-session cookie
    session = client.session
    assert session.get_expire_at_browser_close()
    assert session.get_expiry_age() == settings.SESSION_COOKIE_AGE == 10 * 3600
