"""Security: production settings pass `check --deploy`; the CSP forbids inline scripts and
eval; CSRF is enforced on every POST endpoint; sign-in changes the session key (teachers and
children) and sign-out ends the session; both sign-ins lock out after too many failures (a
teacher's account from the address that typed them only).
(The browser walk that records every request is in test_browser_walk.py.)"""

import os
import secrets
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.forms import LOGIN_FAILURE_LIMIT
from classroom.models import Student
from classroom.models.signin import UNKNOWN_DEVICE_LIMIT

from .conftest import body
from .conftest import visible_text
from .test_bad_input import TARGETS
from .test_bad_input import choose_role

BASE_DIR = Path(__file__).absolute().parent.parent.parent


# --- production settings ------------------------------------------------------------------
def production_env(tmp_path) -> dict:
    """What a production deploy sets (README, "Running it in production")."""
    # (DJANGO_ALLOW_ASYNC_UNSAFE is the test run's own, for Playwright: never a deploy's)
    unset = {"DEBUG", "DJANGO_ENV", "DJANGO_ALLOW_ASYNC_UNSAFE", "REDIS_URL"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(
        DJANGO_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(60),
        ALLOWED_HOSTS="maths.example.org",
        CSRF_TRUSTED_ORIGINS="https://maths.example.org",
        VAR_DIR=str(tmp_path),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    return env


def test_production_settings_pass_check_deploy(tmp_path):
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR, env=production_env(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


def test_production_refuses_a_weak_secret(tmp_path):
    env = production_env(tmp_path) | {"SECRET_KEY": "short"}
    run = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode != 0 and "SECRET_KEY" in run.stderr


@pytest.mark.parametrize("url", ["/", "/accounts/login/", "/join/", "/play/new/", "/family/"])
def test_csp_has_no_unsafe_inline_or_eval(client, db, url):
    response = client.get(url)
    csp = response.headers.get("Content-Security-Policy", "")
    assert "script-src 'self'" in csp and "default-src 'self'" in csp, csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, csp
    # and no inline script or handler slips into the page (the CSP would block it)
    html = body(response)
    assert "<script>" not in html and " onclick=" not in html


# --- CSRF ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_post_endpoint_enforces_csrf(world, name):
    entry = TARGETS[name]
    url = entry["url"](world)
    data = entry["data"](world) if "data" in entry else {}
    score, role = choose_role(world, url, data)
    if score == 9:
        return  # GET only
    checked = Client(enforce_csrf_checks=True)
    checked.cookies = world.client(role).cookies
    with transaction.atomic():
        response = checked.post(url, data)
        transaction.set_rollback(True)
    assert response.status_code == 403, f"POST {url} as {role} without a CSRF token: {response}"
    assert "CSRF" in body(response), f"POST {url} as {role}: a 403, but not the CSRF check's"


# --- sessions: fixation and sign-out --------------------------------------------------------
def set_password(user, password):
    """(The module's world was made before the tests' fast hasher was set: hash again.)"""
    user.set_password(password)
    user.save(update_fields=["password"])


def test_teacher_login_changes_the_session_key_and_logout_ends_it(world):
    set_password(world.teacher_a, world.password)
    client = Client()
    client.get(reverse("login"))
    session = client.session
    session["planted"] = "by an attacker"
    session.save()
    client.cookies["sessionid"] = session.session_key
    before = session.session_key
    response = client.post(
        reverse("login"), {"username": "teacher_a@example.com", "password": world.password}
    )
    assert response.status_code == 302, visible_text(body(response))
    after = client.cookies["sessionid"].value
    # A new key (Django's login cycles it; the anonymous session's data may follow, as
    # Django keeps it: a guest's practice game stays theirs).
    assert after and after != before
    old = Client()
    old.cookies["sessionid"] = before
    assert (
        old.get(reverse("classroom:teacher_home")).status_code == 302
    )  # the planted key is nobody
    assert client.get(reverse("classroom:teacher_home")).status_code == 200
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("classroom:teacher_home")).status_code == 302  # to log in
    # the old cookie is dead too
    replay = Client()
    replay.cookies["sessionid"] = after
    assert replay.get(reverse("classroom:teacher_home")).status_code == 302


def test_a_teacher_logging_in_after_a_child_on_one_device_does_not_keep_the_child(world):
    set_password(world.teacher_a, world.password)
    child = Student.objects.get(pk=world.child_a.pk)
    client = Client()
    url = reverse("classroom:join_pictures", args=[child.classroom.code, child.pk])
    assert client.post(url, {"pictures": child.pictures.split(",")}).status_code == 302
    assert client.session.get("student_id") == child.pk
    child_key = client.session["player_key"]
    response = client.post(
        reverse("login"), {"username": "teacher_a@example.com", "password": world.password}
    )
    assert response.status_code == 302, visible_text(body(response))
    assert "student_id" not in client.session
    assert client.session.get("player_key") != child_key
    assert client.get(reverse("classroom:teacher_home")).status_code == 200
    assert client.get(reverse("classroom:child_home")).status_code == 302  # not the child any more


def test_child_signin_changes_the_session_key_and_sign_out_ends_it(world):
    child = Student.objects.get(pk=world.child_a.pk)
    client = Client()
    client.get(reverse("classroom:join_pictures", args=[child.classroom.code, child.pk]))
    session = client.session
    session["planted"] = "by an attacker"
    session.save()
    client.cookies["sessionid"] = session.session_key
    before = session.session_key
    url = reverse("classroom:join_pictures", args=[child.classroom.code, child.pk])
    response = client.post(url, {"pictures": child.pictures.split(",")})
    assert response.status_code == 302, visible_text(body(response))
    after = client.cookies["sessionid"].value
    assert after != before and "planted" not in client.session
    assert client.get(reverse("classroom:child_home")).status_code == 200
    client.post(reverse("classroom:child_switch"))
    assert client.get(reverse("classroom:child_home")).status_code == 302
    replay = Client()
    replay.cookies["sessionid"] = after
    assert replay.get(reverse("classroom:child_home")).status_code == 302


# --- lockouts ----------------------------------------------------------------------------------
def test_teacher_login_locks_out_after_repeated_failures(world):
    username = "teacher_b@example.com"
    set_password(world.teacher_b, world.password)
    client = Client()
    for n in range(LOGIN_FAILURE_LIMIT):
        wrong = client.post(reverse("login"), {"username": username, "password": "nope-nope"})
        # The tenth wrong password is the one that locks.
        assert wrong.status_code == (429 if n == LOGIN_FAILURE_LIMIT - 1 else 422)
    # Now even the right password is refused from this address, with a clear message, and
    # nobody is logged in.
    locked = client.post(reverse("login"), {"username": username, "password": world.password})
    assert locked.status_code == 429
    assert "Too many wrong passwords" in visible_text(body(locked))
    assert "_auth_user_id" not in client.session
    # The lock is the account's from this address only: whoever typed the wrong passwords
    # cannot lock the teacher out elsewhere (at home, at another school).
    other = Client(REMOTE_ADDR="10.1.2.3")
    welcome = other.post(reverse("login"), {"username": username, "password": world.password})
    assert welcome.status_code == 302 and "_auth_user_id" in other.session
    assert client.post(reverse("login"), {"username": username, "password": "x"}).status_code == 429
    # Once the cool-off has passed (django-axes ignores older failures), the right password
    # works here too.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert (
        client.post(
            reverse("login"), {"username": username, "password": world.password}
        ).status_code
        == 302
    )


def test_child_picture_signin_locks_out_after_repeated_failures(world):
    child = Student.objects.get(pk=world.child_a2.pk)
    url = reverse("classroom:join_pictures", args=[child.classroom.code, child.pk])
    right = child.pictures.split(",")
    wrong = [str(i) for i in range(9) if str(i) not in right][:3]
    # One new tablet each (a device alone is slowed first: test_signin_limits.py): new devices
    # are stopped for the child after UNKNOWN_DEVICE_LIMIT wrong answers.
    codes = [
        Client().post(url, {"pictures": wrong}, REMOTE_ADDR=f"10.0.0.{n}").status_code
        for n in range(UNKNOWN_DEVICE_LIMIT)
    ]
    client = Client()
    assert codes == [422] * (UNKNOWN_DEVICE_LIMIT - 1) + [403], codes
    locked = client.post(url, {"pictures": right})
    assert locked.status_code == 403 and visible_text(body(locked))
    assert "student_id" not in client.session
