"""The live update of the knowledge model against the replay (docs/analytics.md, "Pipeline"):
random sequences of matches (two children, or a child and a computer player), warm-ups, hard
deletes, archives and moves of a child to another class (into a school in another time zone
too), each applied through the tasks the app enqueues, then every row (the fold's state in
FactStat, and the trend rows) compared with a rebuild from scratch. On SQLite and PostgreSQL
(DATABASE_URL). And the idempotency record under a task run twice and under concurrent tasks
(threads on PostgreSQL), and an attempt counted after a newer one (the child is replayed)."""

import threading
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest
from django.db import connection
from django.db import connections
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from classroom import tasks
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from games.models import Match
from games.models import Move
from games.models import Seat

from .conftest import attempt_fields

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 9, 20, 0, tzinfo=UTC)
FACTS = [(7, 8), (8, 7), (3, 3), (2, 9), (9, 2), (6, 7)]
WRONG = (48, 63, 15, 55, 1000)


def stat_rows(model):
    fields = [f.name for f in model._meta.fields if f.name not in {"id", "updated_at"}]
    return sorted(model.objects.values_list(*fields), key=lambda row: tuple(map(str, row)))


def everything():
    return {m.__name__: stat_rows(m) for m in (FactStat, DailyTrend)}


class Place:
    """Two schools half a world apart; three classes (two in the first school); four
    children; an accuracy-first session in each class."""

    def __init__(self, teacher):
        self.schools = [
            School.objects.create(name="Rata", timezone="Pacific/Auckland"),
            School.objects.create(name="Oak", timezone="America/Los_Angeles"),
        ]
        self.rooms = [
            Classroom.objects.create(school=self.schools[i], teacher=teacher, name=name)
            for i, name in ((0, "A"), (0, "B"), (1, "C"))
        ]
        self.slow = {
            room.pk: Assignment.objects.create(
                classroom=room, title="Slow", opens_at=START, accuracy_first=True
            )
            for room in self.rooms
        }
        self.kids = [
            Student.objects.create(classroom=self.rooms[i % 2], name=f"K{i}") for i in range(4)
        ]

    def alive(self, k):
        kid = self.kids[k]
        return kid if Student.objects.filter(pk=kid.pk).exists() else None


def seat(kid):
    return {"kind": Seat.Kind.STUDENT, "name": kid.name, "owner_key": kid.seat_key}


def attempt_rows(kid, draws, **where):
    rows = []
    for n, ((a, b), how, w, ms, (day, minute), source) in enumerate(draws):
        answer = {"right": a * b, "wrong": WRONG[w], "missed": None}[how]
        context = "missed" if how == "missed" else source
        if where.get("warm_up") is not None:
            context = "warm-up" if how != "missed" else "missed"
            where = {**where, "question": n}
        rows.append(
            Attempt(
                **attempt_fields(kid, a, b, answer, ms=ms, context=context, **where),
                created_at=START + timedelta(days=day, minutes=minute),
            )
        )
    return rows


def play_match(place, who, draws, slow, twice):
    """A match of one or two children (the other seat a computer player), its attempts
    written as its moves would, then its end's task (twice: a redelivery)."""
    kids = [place.alive(k) for k in who]
    kids = [k for k in dict.fromkeys(kids) if k is not None]
    if not kids:
        return
    seats = [seat(k) for k in kids] + [{"kind": Seat.Kind.BOT, "name": "Pip"}] * (2 - len(kids))
    room = kids[0].classroom
    if slow:
        match = place.slow[room.pk].new_match(seats, options={"tier": "full"}, seed=1)
    else:
        match = Match.create("multiplipotion", seats, options={"tier": "full"}, seed=1)
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    rows = []
    for i, kid in enumerate(kids):
        rows += attempt_rows(kid, draws[i::2] if len(kids) > 1 else draws, match=match, move=move)
    Attempt.objects.bulk_create(rows)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=START)
    tasks.update_match_stats(match.pk)
    if twice:
        tasks.update_match_stats(match.pk)


def play_warm_up(place, k, draws, timed, twice):
    kid = place.alive(k)
    if kid is None:
        return
    warm_up = WarmUp.objects.create(student=kid, timed=timed, started_at=START)
    Attempt.objects.bulk_create(attempt_rows(kid, draws, warm_up=warm_up))
    warm_up.finish(START + timedelta(minutes=1))
    tasks.update_warm_up_stats(warm_up.pk)
    if twice:
        tasks.update_warm_up_stats(warm_up.pk)


draw = st.tuples(
    st.sampled_from(FACTS),
    st.sampled_from(["right"] * 5 + ["wrong", "missed"]),
    st.integers(0, len(WRONG) - 1),
    st.sampled_from([900, 2500, 3001, 5000, 6001, 9000]),
    # day and minute: ties, and both sides of Auckland's and Los Angeles' midnights
    st.tuples(st.integers(0, 3), st.sampled_from([0, 0, 1, 180, 420, 899, 900])),
    st.sampled_from(["capture"] * 3 + ["challenge"]),
)
step = st.one_of(
    st.tuples(
        st.just("match"),
        st.lists(st.integers(0, 3), min_size=1, max_size=2),
        st.lists(draw, min_size=1, max_size=14),
        st.booleans(),  # in the accuracy-first session
        st.booleans(),  # its task delivered twice
    ),
    st.tuples(
        st.just("warm_up"),
        st.integers(0, 3),
        st.lists(draw, min_size=1, max_size=10),
        st.booleans(),  # timed
        st.booleans(),
    ),
    st.tuples(st.just("delete"), st.integers(0, 3)),
    st.tuples(st.just("archive"), st.integers(0, 3)),
    st.tuples(st.just("move"), st.integers(0, 3), st.integers(0, 2)),
    st.tuples(st.just("abandoned"), st.integers(0, 3), st.lists(draw, min_size=1, max_size=6)),
)


def run_step(place, action):
    kind = action[0]
    if kind == "match":
        play_match(place, action[1], action[2], action[3], action[4])
    elif kind == "warm_up":
        play_warm_up(place, action[1], action[2], action[3], action[4])
    elif kind == "delete" and (kid := place.alive(action[1])):
        kid.delete_everything()
    elif kind == "archive" and (kid := place.alive(action[1])):
        kid.archive()
    elif kind == "move" and (kid := place.alive(action[1])):
        room = place.rooms[action[2]]
        if room.pk != kid.classroom_id:
            kid.move_to(room)
    elif kind == "abandoned" and (kid := place.alive(action[1])):
        # A match nobody finished: no task at its end; the nightly run counts it.
        match = Match.create("multiplipotion", [seat(kid), {"kind": Seat.Kind.BOT, "name": "P"}])
        move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
        Attempt.objects.bulk_create(attempt_rows(kid, action[2], match=match, move=move))
        tasks.nightly_rollups()


def rebuild_from_scratch():
    for model in (FactStat, DailyTrend):
        model.objects.all().delete()
    Attempt.objects.update(stats_applied=False)
    RecomputeJob.objects.create().run()


@pytest.fixture
def tasks_run_at_commit(monkeypatch, django_capture_on_commit_callbacks):
    """What a worker does with the tasks the models enqueue on commit, in this process."""
    monkeypatch.setattr("games.queue.enqueue", lambda task, *args, **kw: task(*args))
    return django_capture_on_commit_callbacks


@settings(
    max_examples=int(__import__("os").environ.get("INCREMENTAL_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(step, min_size=1, max_size=10))
def test_incremental_statistics_equal_a_rebuild_from_scratch(
    django_user_model, tasks_run_at_commit, actions
):
    for model in (FactStat, DailyTrend, Attempt, Match, WarmUp, Student):
        model.objects.all().delete()  # hypothesis' examples share the test's database
    Classroom.objects.all().delete()
    School.objects.all().delete()
    teacher = django_user_model.objects.get_or_create(username="t-incremental")[0]
    place = Place(teacher)
    for action in actions:
        with tasks_run_at_commit(execute=True):
            run_step(place, action)
    assert not Attempt.objects.filter(stats_applied=False).exists()
    incremental = everything()
    rebuild_from_scratch()
    assert everything() == incremental


# --- the idempotency record ------------------------------------------------------------------


@pytest.fixture
def place(django_user_model):
    return Place(django_user_model.objects.create_user("t-inc", password="x-long-pass-1"))


def some_draws(n, seed):
    import random

    rng = random.Random(seed)
    return [
        (
            rng.choice(FACTS),
            rng.choice(["right", "right", "wrong", "missed"]),
            rng.randrange(len(WRONG)),
            rng.choice([900, 2500, 5000]),
            (rng.randrange(3), rng.choice([0, 1, 899, 900])),
            "capture",
        )
        for _ in range(n)
    ]


def test_a_task_run_twice_changes_nothing(place, tasks_run_at_commit):
    play_match(place, [0, 1], some_draws(20, 1), slow=False, twice=False)
    once = everything()
    match = Match.objects.get()
    assert FactStat.objects.update_for_match(match.pk) == 0
    tasks.update_match_stats(match.pk)
    tasks.sweep_missed_stats()
    tasks.nightly_rollups()
    assert everything() == once


def test_a_rolled_back_update_leaves_the_attempts_to_count(place, monkeypatch):
    """A failure inside the task's transaction (what a killed worker's rollback amounts to)
    leaves nothing behind and nothing marked: the retry counts every attempt once."""
    from classroom.models import knowledge_store

    kid = place.kids[0]
    Attempt.objects.bulk_create(
        attempt_rows(kid, some_draws(12, 2), match=None, warm_up=None, move=None)
    )

    def broken(*args):
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(knowledge_store, "_increment_trends", broken)
    with pytest.raises(RuntimeError):
        FactStat.objects.apply_pending([kid.pk])
    assert not FactStat.objects.exists()
    assert Attempt.objects.filter(stats_applied=False).count() == 12
    monkeypatch.undo()
    assert FactStat.objects.apply_pending([kid.pk]) == 12
    assert sum(FactStat.objects.values_list("attempts", flat=True)) == 12


@pytest.mark.django_db(transaction=True)
def test_concurrent_updates_of_one_child_and_a_classmate_count_once(postgres, django_user_model):
    """Threads on PostgreSQL: three tasks for the same child and two for a classmate at
    once, while more attempts arrive; every attempt is counted once and the class's and the
    trends' rows equal a rebuild."""
    place = Place(django_user_model.objects.create_user("t-race", password="x-long-pass-1"))
    ada, ben = place.kids[0], place.kids[2]  # both in class A
    for round_ in range(3):
        for kid, seed in ((ada, round_), (ben, 10 + round_)):
            Attempt.objects.bulk_create(
                attempt_rows(kid, some_draws(15, seed), match=None, warm_up=None, move=None)
            )
        barrier = threading.Barrier(5)
        errors = []

        def count(pk, barrier, errors):
            try:
                barrier.wait(timeout=10)
                FactStat.objects.apply_pending([pk])
            except Exception as error:
                errors.append(error)
            finally:
                connections.close_all()

        threads = [
            threading.Thread(target=count, args=(pk, barrier, errors))
            for pk in [ada.pk] * 3 + [ben.pk] * 2
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert errors == []
    assert sum(FactStat.objects.values_list("attempts", flat=True)) == 90
    assert not Attempt.objects.filter(stats_applied=False).exists()
    incremental = everything()
    rebuild_from_scratch()
    assert everything() == incremental
    assert connection.vendor == "postgresql"


def test_an_attempt_older_than_one_counted_replays_the_child(place, tasks_run_at_commit):
    """A game's attempts counted after a later warm-up's (the game was still going): the
    child is replayed from all their attempts, so their rows are those of one fold in time
    order, as a rebuild's."""
    kid = place.kids[0]
    early = attempt_rows(kid, some_draws(12, 3), match=None, warm_up=None, move=None)
    late = attempt_rows(kid, some_draws(12, 4), match=None, warm_up=None, move=None)
    for row in late:
        row.created_at += timedelta(days=5)
    Attempt.objects.bulk_create(late)
    FactStat.objects.apply_pending([kid.pk])
    Attempt.objects.bulk_create(early)  # older than every attempt counted
    FactStat.objects.apply_pending([kid.pk])
    assert not Attempt.objects.filter(stats_applied=False).exists()
    live = everything()
    rebuild_from_scratch()
    assert everything() == live
