"""Sign-in limits under parallel requests on PostgreSQL (issue 18, items 1 and 2; the log-in's
limit per network and its lockout per account and network, issue 40, items 3 and 4): threads
released together by a barrier, each with its own database connection, through the real
views. (A module of its own: the shared ``world`` fixture holds a transaction open for its
module, which threads could not see.)"""

import copy
import threading
from collections import Counter
from http.cookies import SimpleCookie
from itertools import combinations

import pytest
from counting_hasher import HASHER
from counting_hasher import CountingHasher
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse

from classroom.forms import LOGIN_FAILURE_LIMIT
from classroom.models import PICTURES
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import signin as rules
from classroom.models.signin import StudentSignIn


def pictures_url(student):
    return reverse("classroom:join_pictures", args=[student.classroom.code, student.pk])


def wrong_combinations(student):
    right = tuple(student.picture_indexes)
    return [c for c in combinations(range(len(PICTURES)), 3) if c != right]


def log_in(username, password):
    return Client().post(reverse("login"), {"username": username, "password": password})


def race(calls):
    """Run the callables at once in threads (each with its own connection)."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, fn):
        try:
            barrier.wait(timeout=20)
            results[i] = fn()
        except Exception as exc:  # reported by the test
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def browsers(n):
    """``n`` browsers (cookie jars of their own) that share one handler: building a Client's
    middleware takes about half a second of CPU, 30 of them most of a race's time."""
    first = Client()
    first.get(reverse("login"))  # the handler's middleware is built
    made = [copy.copy(first) for _ in range(n)]
    for browser in made:
        browser.cookies = SimpleCookie()
    return made


class Spy:
    """Counts the calls of a method in every thread (wraps the real method)."""

    def __init__(self, monkeypatch, owner, name, counted=lambda result: True):
        self.calls = Counter()
        self.lock = threading.Lock()
        real = getattr(owner, name)

        def wrapper(*args, **kwargs):
            result = real(*args, **kwargs)
            with self.lock:
                self.calls[bool(result) if counted(result) else "other"] += 1
            return result

        monkeypatch.setattr(owner, name, wrapper)


def small_class():
    teacher = get_user_model().objects.create_user("tess", "tess@example.com", "pw-long-enough-1")
    school = School.objects.create(name="Hill School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    return teacher, classroom


@pytest.mark.slow
@pytest.mark.services
def test_thirty_parallel_answers_for_one_child_from_new_devices_compare_at_most_six_wrong(
    postgres, transactional_db, monkeypatch
):
    """Thirty fresh devices (a stranger taking a new cookie for every guess) answer for one
    child at once: at most ``UNKNOWN_DEVICE_LIMIT`` wrong answers are compared, and then new
    devices are stopped for the child."""
    _, classroom = small_class()
    child = Student.objects.create(classroom=classroom, name="Ada")
    spy = Spy(monkeypatch, StudentSignIn, "check_pictures")
    guesses = [*wrong_combinations(child)[:29], tuple(child.picture_indexes)]
    url = pictures_url(child)

    def answer(picks):
        client = Client()  # its own device (the cookie of its own names page)
        client.get(reverse("classroom:join_class", args=[classroom.code]))
        return client.post(url, {"pictures": [str(p) for p in picks]}).status_code

    statuses = race([lambda p=p: answer(p) for p in guesses])
    assert not [s for s in statuses if isinstance(s, Exception)], statuses
    child.refresh_from_db()
    wrong_compared = spy.calls[False]
    print(f"\n30 parallel answers: {Counter(statuses)}; wrong compared {wrong_compared}")
    # A right answer does not forgive new devices' wrong answers: the bound holds either way.
    assert wrong_compared == child.failed_signins <= rules.UNKNOWN_DEVICE_LIMIT
    assert statuses.count(302) == spy.calls[True] <= 1
    if not spy.calls[True]:
        assert wrong_compared == rules.UNKNOWN_DEVICE_LIMIT and child.is_locked
    assert statuses.count(422) + statuses.count(403) == len(guesses) - statuses.count(302)


@pytest.mark.slow
@pytest.mark.services
def test_thirty_children_at_once_on_new_devices_of_one_network_all_sign_in(
    postgres, transactional_db, monkeypatch
):
    """A school's first morning: thirty children answer right at once, each on a new device,
    all from one address, with the network's limit for new devices at 4: every one is signed in
    (a right answer is counted and given back under the same row lock). Thirty wrong answers at
    once from new devices of that network then compare exactly 4; the other 26 get 429."""
    monkeypatch.setattr(rules, "NETWORK_UNKNOWN_LIMIT", 4)
    _, classroom = small_class()
    children = [Student.objects.create(classroom=classroom, name=f"Child {i}") for i in range(30)]
    names_url = reverse("classroom:join_class", args=[classroom.code])

    def answer(child, picks):
        client = Client()  # a new device
        client.get(names_url)
        return client.post(pictures_url(child), {"pictures": [str(p) for p in picks]}).status_code

    right = race([lambda c=c: answer(c, c.picture_indexes) for c in children])
    assert right == [302] * 30, Counter(right)
    wrong = race([lambda c=c: answer(c, wrong_combinations(c)[0]) for c in children])
    assert not [s for s in wrong if isinstance(s, Exception)], wrong
    assert Counter(wrong) == {422: 4, 429: 26}, Counter(wrong)


@pytest.mark.slow
@pytest.mark.services
def test_thirty_parallel_guesses_check_at_most_ten_passwords(
    postgres, transactional_db, monkeypatch
):
    user = get_user_model().objects.create_user("teacher", "teacher@example.com", "the-right-one-7")
    spy = Spy(monkeypatch, type(user), "check_password")
    names = ["teacher", "teacher@example.com", "TEACHER"]
    statuses = race([lambda n=n: log_in(names[n % 3], f"guess-{n}").status_code for n in range(30)])
    assert not [s for s in statuses if isinstance(s, Exception)], statuses
    from axes.models import AccessAttempt

    stored = sum(AccessAttempt.objects.values_list("failures_since_start", flat=True))
    print(f"\n30 parallel guesses: {Counter(statuses)}; passwords checked {spy.calls[False]}")
    assert spy.calls[False] <= LOGIN_FAILURE_LIMIT
    assert stored == spy.calls[False] == LOGIN_FAILURE_LIMIT
    assert statuses.count(429) >= 30 - LOGIN_FAILURE_LIMIT
    assert 302 not in statuses


@pytest.mark.slow
@pytest.mark.services
def test_thirty_parallel_guesses_at_the_admin_log_in_check_at_most_ten_passwords(
    postgres, transactional_db, monkeypatch
):
    user = get_user_model().objects.create_user(
        "operator", "operator@example.com", "the-right-one-8", is_staff=True
    )
    spy = Spy(monkeypatch, type(user), "check_password")
    url = reverse("admin:login")

    def guess(n):
        return Client().post(url, {"username": "operator", "password": f"guess-{n}"}).status_code

    statuses = race([lambda n=n: guess(n) for n in range(30)])
    assert not [s for s in statuses if isinstance(s, Exception)], statuses
    print(f"\n30 parallel admin guesses: {Counter(statuses)}; checked {spy.calls[False]}")
    assert spy.calls[False] == LOGIN_FAILURE_LIMIT
    assert statuses.count(429) >= 30 - LOGIN_FAILURE_LIMIT
    assert 302 not in statuses


@pytest.mark.slow
@pytest.mark.services
def test_thirty_parallel_log_ins_from_one_network_hash_at_most_its_limit(
    postgres, transactional_db, settings
):
    """30 log-ins at once from one address, over both log-in pages, each with a name of its
    own (most matching no account: Django hashes for those too): the network's limit (10
    here) lets exactly 10 reach a password hash; 20 × 429. Another network logs in at once."""
    settings.LOGIN_ATTEMPTS_PER_ADDRESS = 10
    settings.PASSWORD_HASHERS = [HASHER]
    get_user_model().objects.create_user("teacher", "teacher@example.com", "the-right-one-7")
    CountingHasher.reset()
    pages, clients = [reverse("login"), reverse("admin:login")], browsers(30)

    def attempt(n):
        name = "teacher" if n == 0 else f"nobody-{n}@example.com"
        data = {"username": name, "password": f"guess-{n}"}
        return clients[n].post(pages[n % 2], data, REMOTE_ADDR="198.51.100.7").status_code

    statuses = race([lambda n=n: attempt(n) for n in range(30)])
    assert not [s for s in statuses if isinstance(s, Exception)], statuses
    print(
        f"\n30 parallel log-ins from one address: {Counter(statuses)};"
        f" hashed {CountingHasher.calls}"
    )
    assert CountingHasher.calls == 10
    assert statuses.count(429) == 20
    right = {"username": "teacher", "password": "the-right-one-7"}
    assert Client().post(pages[0], right, REMOTE_ADDR="203.0.113.5").status_code == 302


@pytest.mark.slow
@pytest.mark.services
def test_a_stranger_guessing_in_parallel_does_not_lock_the_teacher_out(postgres, transactional_db):
    """29 wrong passwords at once from a stranger's address and the teacher's right one from
    school at the same moment: the teacher is in, whatever the order; the stranger's network
    is locked for that account after 10 checked (parallel guesses from one network are
    checked one at a time)."""
    get_user_model().objects.create_user("teacher", "teacher@example.com", "the-right-one-7")
    clients = browsers(30)

    def attempt(n):
        address, password = (
            ("192.0.2.10", "the-right-one-7") if n == 0 else ("198.51.100.7", f"guess-{n}")
        )
        data = {"username": "teacher@example.com", "password": password}
        return clients[n].post(reverse("login"), data, REMOTE_ADDR=address).status_code

    statuses = race([lambda n=n: attempt(n) for n in range(30)])
    assert not [s for s in statuses if isinstance(s, Exception)], statuses
    print(f"\nstranger's 29 guesses and the teacher: {statuses[0]}, {Counter(statuses[1:])}")
    assert statuses[0] == 302
    assert statuses[1:].count(422) == LOGIN_FAILURE_LIMIT - 1
    assert statuses[1:].count(429) == 29 - (LOGIN_FAILURE_LIMIT - 1)
