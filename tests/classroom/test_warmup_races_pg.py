"""The warm-up under parallel requests on PostgreSQL: 30 threads released together by a
barrier, each with its own database connection, through the real views. A question is
answered once however many copies of its answer arrive; 30 taps on "Warm up" at home make
one round."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp

from .test_signin_races_pg import race
from .test_warmup_views import child_client

THREADS = 30


@pytest.fixture
def ada(django_user_model):
    teacher = django_user_model.objects.create_user("t-race", password="x-long-pass-1")
    school = School.objects.create(name="Race School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4R")
    student = Student.objects.create(classroom=classroom, name="Ada")
    Assignment.objects.create(
        classroom=classroom,
        title="Potions",
        tier="green",
        opens_at=timezone.now() - timedelta(minutes=5),
    )
    return student


@pytest.mark.slow
@pytest.mark.services
def test_thirty_copies_of_one_answer_store_one_attempt(postgres, transactional_db, ada):
    warm_up = WarmUp.objects.start(ada)
    page = child_client(ada).get(warm_up.get_absolute_url())
    token = re.search(r'name="token" value="([^"]+)"', page.text).group(1)
    a, b = (int(x) for x in warm_up.facts[0])
    clients = [child_client(ada) for _ in range(THREADS)]  # 30 tabs of the same child

    def answer(client):
        return client.post(warm_up.get_absolute_url(), {"token": token, "answer": str(a * b)})

    statuses = [
        r if isinstance(r, Exception) else r.status_code
        for r in race([lambda c=c: answer(c) for c in clients])
    ]
    assert not [s for s in statuses if isinstance(s, Exception)], statuses
    assert sorted(statuses) == [200] + [409] * (THREADS - 1), statuses
    stored = Attempt.objects.filter(warm_up=warm_up)
    assert list(stored.values_list("question", "a", "b", "correct")) == [(0, a, b, True)]


@pytest.mark.slow
@pytest.mark.services
def test_thirty_taps_on_warm_up_at_home_make_one_round(postgres, transactional_db, ada):
    clients = [child_client(ada) for _ in range(THREADS)]
    results = race([lambda c=c: c.post(reverse("classroom:warm_up_home")) for c in clients])
    assert not [r for r in results if isinstance(r, Exception)], results
    assert {r.status_code for r in results} == {302}
    rounds = WarmUp.objects.filter(student=ada)
    assert rounds.count() == 1
    assert {r["Location"] for r in results} == {rounds.get().get_absolute_url()}


@pytest.mark.slow
@pytest.mark.services
def test_no_warm_up_runs_on_through_a_pause_all_sent_at_the_same_moment(
    postgres, transactional_db, ada
):
    """Twelve children press Play as their teacher presses "Pause all", five times over: a
    round started as the pause lands starts paused (the session's status is read under the
    lock the pause takes), so once both are done no round of the class is running on."""
    from django.test import Client

    classroom = ada.classroom
    session = Assignment.objects.get(classroom=classroom)
    Assignment.objects.filter(pk=session.pk).update(warm_up_minutes=1)
    children = [ada] + [
        Student.objects.create(classroom=classroom, name=f"Child {i}") for i in range(11)
    ]
    teacher = Client()
    teacher.force_login(classroom.teacher)
    play = reverse("classroom:child_play", args=[session.pk])
    pause = reverse("classroom:wall_pause", args=[classroom.pk])
    for _ in range(5):
        WarmUp.objects.all().delete()
        Assignment.objects.filter(pk=session.pk).update(status=Assignment.Status.LIVE)
        clients = [child_client(c) for c in children]
        results = race([lambda c=c: c.post(play) for c in clients] + [lambda: teacher.post(pause)])
        assert not [r for r in results if isinstance(r, Exception)], results
        assert Assignment.objects.get(pk=session.pk).status == Assignment.Status.PAUSED
        running_on = WarmUp.objects.running().filter(paused_at__isnull=True)
        assert list(running_on.values_list("student__name", flat=True)) == []
