"""Sign-in limits under parallel requests on PostgreSQL (issue 18, items 1 and 2): threads
released together by a barrier, each with its own database connection, through the real
views. (A module of its own: the shared ``world`` fixture holds a transaction open for its
module, which threads could not see.)"""

import threading
from collections import Counter
from itertools import combinations

import pytest
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
def test_thirty_parallel_answers_for_one_child_compare_at_most_five_wrong(
    postgres, transactional_db, monkeypatch
):
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
    assert child.failed_signins <= rules.LOCKOUT_AFTER
    if spy.calls[True]:  # the right one came in before the lock: a fair sign-in
        assert statuses.count(302) == 1
        # …which forgives the wrong ones before it (by design: the child knows them), so a
        # run of at most LOCKOUT_AFTER − 1 before it and LOCKOUT_AFTER after it
        assert wrong_compared <= 2 * rules.LOCKOUT_AFTER - 1
        assert statuses.count(422) + statuses.count(403) == len(guesses) - 1
    else:
        assert wrong_compared <= rules.LOCKOUT_AFTER
        assert child.is_locked and 302 not in statuses


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
