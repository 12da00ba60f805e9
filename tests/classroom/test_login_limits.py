"""The grown-ups' log-in limits (issue 40, items 3 and 4; docs/classroom/accounts-and-rosters.md,
"The log-in limits"), at /accounts/login/ and /admin/login/ alike:

- django-axes locks an account from the network that typed 10 wrong passwords only: the
  teacher logs in from anywhere else at once, so a stranger cannot lock a teacher out.
- A network has LOGIN_ATTEMPTS_PER_ADDRESS attempts per window for both pages together; past
  it, 429 with Retry-After and no password hashed, whatever the typed names; another network
  carries on. An IPv6 client is one network per /64. Counted in the database: it holds with
  the cache down.
- Sign-ups (a password hashed and a school made each) are limited per network too.

The parallel cases (threads on PostgreSQL) are in test_signin_races_pg.py."""

import re
from datetime import timedelta

import pytest
from counting_hasher import HASHER
from counting_hasher import CountingHasher
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.forms import LOGIN_FAILURE_LIMIT
from classroom.forms import LOGIN_LOCKOUT_SECONDS
from classroom.models import RateLimit
from classroom.models import School
from classroom.views import accounts

ME, STRANGER, NEIGHBOUR = "192.0.2.10", "198.51.100.7", "203.0.113.5"


def text(response) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


BROWSER = []  # one Client for every request: a Client builds the middleware anew (~0.5 s)


def fresh_browser() -> Client:
    if not BROWSER:
        BROWSER.append(Client())
    BROWSER[0].cookies.clear()
    return BROWSER[0]


def post(address, url, username, password, client=None, known=None):
    """A log-in from a fresh browser (no cookies; ``known``: its known-browser cookie) at
    ``address``, or from ``client``."""
    if client is None:
        client = fresh_browser()
        if known is not None:
            client.cookies[accounts.KNOWN_COOKIE] = known
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


def known_cookie(response) -> str:
    return response.cookies[accounts.KNOWN_COOKIE].value


@pytest.fixture
def counted(settings):
    """Every password hashed from here on is counted (CountingHasher.calls)."""
    settings.PASSWORD_HASHERS = [HASHER]
    CountingHasher.reset()
    return CountingHasher


# --- the lockout: an account from one network -------------------------------------------------
@pytest.mark.parametrize("page", ["login", "admin:login"])
def test_ten_wrong_passwords_lock_the_account_from_that_network_only(world, page):
    url = reverse(page)
    name = world.superuser.get_username()  # staff: the admin's log-in takes it too
    statuses = [post(STRANGER, url, name, f"wrong-{n}").status_code for n in range(12)]
    failed = 422 if page == "login" else 200  # the admin's form answers a wrong password 200
    assert statuses == [failed] * (LOGIN_FAILURE_LIMIT - 1) + [429] * 3
    locked = post(STRANGER, url, name, world.password)
    assert locked.status_code == 429
    assert "Too many wrong passwords" in text(locked)
    # The account's owner, on another network, logs in at once, on either page.
    for where in ("login", "admin:login"):
        mine = fresh_browser()
        assert post(ME, reverse(where), name, world.password, mine).status_code == 302
        assert mine.session["_auth_user_id"] == str(world.superuser.pk)
    # …and the stranger's network stays locked for this account, on both pages (one count).
    other = "admin:login" if page == "login" else "login"
    assert post(STRANGER, reverse(other), name, world.password).status_code == 429
    assert locked["Retry-After"] == str(LOGIN_LOCKOUT_SECONDS)


def test_the_lock_is_counted_over_both_pages_and_every_spelling_of_the_account(world):
    names = ["teacher_a", "TEACHER_A", "teacher_a@example.com"]
    pages = [reverse("login"), reverse("admin:login")]
    for n in range(LOGIN_FAILURE_LIMIT):
        post(STRANGER, pages[n % 2], names[n % 3], f"wrong-{n}")
    assert post(STRANGER, pages[0], "Teacher_A@Example.com", world.password).status_code == 429
    assert post(ME, pages[0], "teacher_a", world.password).status_code == 302


def test_an_ipv6_client_is_one_network_per_64(world):
    """Each of the 10 wrong passwords from another address of one /64: still one network."""
    url = reverse("login")
    for n in range(LOGIN_FAILURE_LIMIT):
        post(f"2001:db8:1:2::{n + 1:x}", url, "teacher_a", "wrong")
    assert post("2001:db8:1:2:ffff::1", url, "teacher_a", world.password).status_code == 429
    assert post("2001:db8:1:3::1", url, "teacher_a", world.password).status_code == 302


# --- the network's limit: no hash past it -----------------------------------------------------
def test_past_the_network_limit_no_password_is_hashed_whatever_the_names(world, settings, counted):
    settings.LOGIN_ATTEMPTS_PER_ADDRESS = 20
    pages = [reverse("login"), reverse("admin:login")]  # one count for both
    # 300 different names from one client, as the attack sent: 20 checked, 280 refused unhashed.
    responses = [
        post(STRANGER, pages[n % 2], f"nobody-{n}@example.com", "guess") for n in range(300)
    ]
    statuses = [r.status_code for r in responses]
    assert counted.calls == 20
    assert 429 not in statuses[:20] and statuses[20:] == [429] * 280
    refused = responses[-1]
    assert "Too many log-in attempts came from your network" in text(refused)
    assert "Wait 15 minutes and try again" in text(refused)
    assert 14 * 60 < int(refused["Retry-After"]) <= 15 * 60
    # A real account's right password from that network: refused too, unhashed.
    assert post(STRANGER, pages[0], "teacher_a", world.password).status_code == 429
    assert counted.calls == 20
    # A NAT neighbour (another network) logs in at once: one hash, its own.
    assert post(NEIGHBOUR, pages[0], "teacher_a", world.password).status_code == 302
    assert counted.calls == 21
    # The window ends: the network may try again.
    row = RateLimit.objects.get(key=RateLimit.key_for("login-address", STRANGER))
    RateLimit.objects.filter(pk=row.pk).update(
        window_start=row.window_start - timedelta(minutes=15)
    )
    assert post(STRANGER, pages[0], "teacher_a", world.password).status_code == 302


def test_the_network_limit_holds_while_the_cache_is_down(world, settings, counted, cache_away):
    settings.LOGIN_ATTEMPTS_PER_ADDRESS = 5
    statuses = [post(STRANGER, reverse("login"), f"n{n}", "x").status_code for n in range(8)]
    assert statuses == [422] * 5 + [429] * 3
    assert counted.calls == 5


def test_the_network_limit_counts_an_ipv6_client_per_64(world, settings, counted):
    settings.LOGIN_ATTEMPTS_PER_ADDRESS = 3
    url = reverse("login")
    statuses = [post(f"2001:db8:7:7::{n + 1:x}", url, f"n{n}", "x").status_code for n in range(5)]
    assert statuses == [422] * 3 + [429] * 2
    # IPv4 written as IPv6 is the IPv4 address; another /64 is another network.
    assert post("::ffff:192.0.2.99", url, "n", "x").status_code == 422
    assert post("2001:db8:7:8::1", url, "n", "x").status_code == 422
    assert counted.calls == 5


def test_a_whole_school_at_half_past_eight_stays_under_the_limit(world, settings, rf):
    """60 teachers on one school network each log in after 3 typos (the arithmetic in
    docs/classroom/accounts-and-rosters.md): 240 attempts, counted here as every log-in POST
    counts them first (``too_many_log_ins``), leave the network room; the limit is reached at
    LOGIN_ATTEMPTS_PER_ADDRESS attempts, not before."""
    limit, school = settings.LOGIN_ATTEMPTS_PER_ADDRESS, 60 * (3 + 1)
    assert limit - school >= 50  # room to spare
    attempt = rf.post(reverse("login"), REMOTE_ADDR=ME)
    assert all(accounts.too_many_log_ins(attempt) is None for _ in range(school - 1))
    assert post(ME, reverse("login"), "teacher_a", world.password).status_code == 302
    assert all(accounts.too_many_log_ins(attempt) is None for _ in range(limit - school - 1))
    assert post(ME, reverse("login"), "teacher_b", world.password).status_code == 302
    assert post(ME, reverse("login"), "teacher_b", world.password).status_code == 429


# --- known browsers: a neighbour cannot keep a teacher out -------------------------------------
def test_a_known_browser_logs_its_account_in_past_the_networks_limit(world, settings, counted):
    settings.LOGIN_ATTEMPTS_PER_ADDRESS = 3
    url = reverse("login")
    first = post(ME, url, "teacher_a@example.com", world.password)  # 1 of the school's 3
    assert first.status_code == 302
    cookie = known_cookie(first)
    assert first.cookies[accounts.KNOWN_COOKIE]["httponly"]
    assert "teacher_a" not in cookie and len(cookie) == 32  # a mark, not a name
    # A pupil on the school's network uses up its attempts.
    assert [post(ME, url, f"x{n}", "x").status_code for n in range(3)] == [422, 422, 429]
    assert post(ME, url, "teacher_a", world.password).status_code == 429  # a new browser
    calls = counted.calls
    # The teacher's own browser still logs the teacher in, by any spelling, on both pages.
    assert post(ME, url, "TEACHER_A", world.password, known=cookie).status_code == 302
    admin = post(ME, reverse("admin:login"), "teacher_a", "wrong", known=cookie)
    assert admin.status_code == 200 and counted.calls == calls + 2
    # The cookie opens nothing else: another account, or a made-up mark.
    assert post(ME, url, "teacher_b", world.password, known=cookie).status_code == 429
    assert post(ME, url, "teacher_a", world.password, known="0" * 32).status_code == 429
    assert counted.calls == calls + 2


def test_a_known_browser_is_not_locked_out_by_a_neighbours_guesses(world):
    url = reverse("login")
    cookie = known_cookie(post(ME, url, "teacher_a", world.password))
    # A second account in the same browser (a shared Chromebook): both marks kept.
    both = known_cookie(post(ME, url, "teacher_b", world.password, known=cookie))
    password_b = get_user_model().objects.get(username="teacher_b").password
    assert both.split(".") == [accounts.account_mark("teacher_b", password_b), cookie]
    for n in range(LOGIN_FAILURE_LIMIT):  # a pupil at school knows both e-mail addresses
        post(ME, url, "teacher_a@example.com", f"wrong-{n}")
        post(ME, url, "teacher_b@example.com", f"wrong-{n}")
    assert post(ME, url, "teacher_a", world.password).status_code == 429
    assert post(ME, url, "teacher_a", world.password, known=both).status_code == 302
    assert post(ME, url, "teacher_b", world.password, known=both).status_code == 302


def test_a_new_password_ends_every_known_browser_of_the_account(world, settings):
    """A reset (or a change) of the password: a browser that logged in with the old one, or
    a copy of its cookie, is an unknown browser again; logging in with the new password
    makes it known once more."""
    settings.LOGIN_ATTEMPTS_PER_ADDRESS = 2
    url = reverse("login")
    cookie = known_cookie(post(ME, url, "teacher_a", world.password))
    teacher = get_user_model().objects.get(username="teacher_a")
    teacher.set_password("a-brand-new-password-7")
    teacher.save()
    assert [post(ME, url, f"x{n}", "x").status_code for n in range(2)] == [422, 429]
    stale = post(ME, url, "teacher_a", "a-brand-new-password-7", known=cookie)
    assert stale.status_code == 429  # the old mark opens nothing now
    elsewhere = post(NEIGHBOUR, url, "teacher_a", "a-brand-new-password-7")
    assert elsewhere.status_code == 302
    fresh = known_cookie(elsewhere)
    assert fresh != cookie
    assert post(ME, url, "teacher_a", "a-brand-new-password-7", known=fresh).status_code == 302


def test_a_known_browsers_attempts_are_bounded_per_account_whatever_its_cookies(world, counted):
    """Copies of a known browser's cookie (one stolen from a shared Chromebook) get
    LOGIN_FAILURE_LIMIT guesses per account and window between them, then the usual lockout
    of their network: at most twice the limit of passwords checked, then 429."""
    url = reverse("login")
    cookie = known_cookie(post(ME, url, "teacher_a", world.password))
    counted.reset()
    statuses = [
        post(STRANGER, url, "teacher_a", f"guess-{n}", known=cookie).status_code
        for n in range(3 * LOGIN_FAILURE_LIMIT)
    ]
    assert statuses == [422] * (2 * LOGIN_FAILURE_LIMIT - 1) + [429] * (LOGIN_FAILURE_LIMIT + 1)
    assert counted.calls == 2 * LOGIN_FAILURE_LIMIT
    assert post(STRANGER, url, "teacher_a", world.password, known=cookie).status_code == 429
    assert post(NEIGHBOUR, url, "teacher_a", world.password).status_code == 302


# --- sign-ups ---------------------------------------------------------------------------------
GOOD = {
    "first_name": "Maya",
    "last_name": "Okafor",
    "school_name": "Hillside Primary",
    "time_zone": "Europe/Madrid",
    "password1": "tables-and-potions-42",
    "password2": "tables-and-potions-42",
}


def sign_up(address, n, **headers):
    client = fresh_browser()
    data = GOOD | {"email": f"maya{n}@school.example"}
    return client, client.post(reverse("classroom:signup"), data, REMOTE_ADDR=address, **headers)


@pytest.mark.django_db
def test_sign_ups_are_limited_per_network(settings, counted):
    settings.SIGNUPS_PER_ADDRESS = 2
    schools = School.objects.count()
    assert [sign_up(STRANGER, n)[1].status_code for n in range(2)] == [302, 302]
    _, refused = sign_up(STRANGER, 2)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 59 * 60
    assert "Too many accounts were made from your network" in text(refused)
    # htmx swaps a 429 like a 422 (templates/base.html): the form partial says why.
    _client, again = sign_up(STRANGER, 3, HTTP_HX_REQUEST="true")
    assert again.status_code == 429 and "Too many accounts" in text(again)
    assert "<html" not in again.content.decode()
    assert counted.calls == 2 and School.objects.count() == schools + 2
    assert sign_up(NEIGHBOUR, 4)[1].status_code == 302
