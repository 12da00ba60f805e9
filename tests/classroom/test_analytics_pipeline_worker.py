"""The analytics pipeline through a real Celery worker process: a game's end reaches the
child's statistics, and a recompute survives a worker killed with SIGKILL mid-task.

Its own module: a module-scoped ``world`` elsewhere holds a transaction open, which a worker
process on SQLite would wait behind."""

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC
from datetime import datetime
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.tasks import recompute_job
from games.models import Match
from games.models import Move
from games.models import Seat

from ..conftest import stop_process
from ..conftest import worker_database_url
from .conftest import attempt_fields

BASE_DIR = Path(__file__).resolve().parents[2]
VISIBILITY_TIMEOUT = 2  # seconds, for the worker that picks up the killed worker's task


def wait_for(predicate, timeout=60.0, every=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(every)
    return None


def stat_rows(model):
    fields = [f.name for f in model._meta.fields if f.name not in {"id", "updated_at"}]
    return sorted(model.objects.values_list(*fields), key=lambda row: tuple(str(x) for x in row))


def everything():
    return stat_rows(FactStat), stat_rows(DailyTrend)


def counted():
    """Attempts in the children's FactStat rows: answers and misses, and the taps after
    being caught (counted apart)."""
    return sum(a + f for a, f in FactStat.objects.values_list("attempts", "forced"))


def school_with_children(n):
    teacher = get_user_model().objects.create_user(f"t-{uuid.uuid4().hex[:6]}", password="x")
    school = School.objects.create(name="Worker school")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="W")
    children = Student.objects.bulk_create(
        Student(classroom=classroom, name=f"Child {i}", badge_token=uuid.uuid4().hex)
        for i in range(n)
    )
    return classroom, children


# --- the game's end reaches the statistics -------------------------------------------------


@pytest.mark.slow
def test_a_finished_game_updates_the_statistics_in_the_worker(celery_routes_to_worker):
    classroom, (ada, ben) = school_with_children(2)
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": ada.name, "owner_key": ada.seat_key},
            {"kind": Seat.Kind.STUDENT, "name": ben.name, "owner_key": ben.seat_key},
        ],
        options={"tier": "green"},
        seed=21,
    )
    module, rng = match.engine, random.Random(4)
    while not match.is_over:  # two children, one of them guessing now and then
        state = module.load(match.state)
        seat = module.to_act(state)[0]
        legal = module.legal_actions(state, seat)
        claims = [a for a in legal if a["type"] in {"capture", "challenge"}]
        if claims and rng.random() < 0.2:
            action = rng.choice(claims)
        else:
            action = module.bot_action(module.view(state, seat), legal, "apprentice", rng)
        match.play(seat, action, version=match.version)  # with follow-ups, as the view does
    assert Attempt.objects.filter(match=match).exists()
    assert not FactStat.objects.exists()  # nothing computed in this process

    expected_attempts = Attempt.objects.filter(match=match).count()
    assert wait_for(
        lambda: (
            counted() == expected_attempts
            and not Attempt.objects.filter(match=match, stats_applied=False).exists()
            and DailyTrend.objects.filter(scope="school").exists()
        ),
        timeout=30,
        every=0.2,
    ), "the worker never updated the statistics"
    from_worker = everything()
    FactStat.objects.rebuild_for([ada.pk, ben.pk])  # a replay of every attempt
    DailyTrend.objects.rebuild_for_school(classroom.school)
    assert everything() == from_worker


@pytest.mark.slow
def test_the_load_runs_heatmap_probe_times_a_game_counted_by_the_worker(celery_routes_to_worker):
    """bench/load/heatmap.py, as the load run uses it: a thread beside the play, then stopped."""
    from bench.analytics import game_before_last_move
    from bench.load.heatmap import HeatmapProbe

    _classroom, (ada,) = school_with_children(1)
    match, seat, action = game_before_last_move(ada, 11)
    probe = HeatmapProbe(interval=0.05)
    probe.start()
    try:
        start = time.monotonic()
        match.play(seat, action, version=match.version)  # commits, then enqueues the task
        assert match.is_over
        assert wait_for(
            lambda: not Attempt.objects.filter(match=match, stats_applied=False).exists(),
            timeout=30,
        ), "the worker never counted the game"
        counted_within_ms = (time.monotonic() - start) * 1000
    finally:
        probe.stop()
    figures = probe.figures()
    assert figures["error"] is None
    assert figures["games"] == 1 and figures["counted"] == 1 and figures["not_counted"] == 0
    # From the game's end to a poll that saw it counted: more than nothing, and no later than
    # this test saw it plus one poll.
    assert 0 < figures["p95_ms"] <= counted_within_ms + 50 + 100


# --- a worker killed mid-task ----------------------------------------------------------------


def start_worker(queue, log: Path, **env):
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **env,
    }
    out = log.open("a")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo",
         "-Q", queue, "-n", f"{queue}-{uuid.uuid4().hex[:4]}@%h", "--without-gossip",
         "--without-mingle", "-l", "INFO"],
        cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
    )  # fmt: skip
    out.close()
    return proc


def many_attempts(children, per_child=40):
    """Attempts for every child, spread over a fortnight (one match and move for all)."""
    seat = {"kind": Seat.Kind.STUDENT, "name": children[0].name, "owner_key": children[0].seat_key}
    match = Match.create("multiplipotion", [seat, {"kind": Seat.Kind.BOT, "name": "Pip"}])
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    rng = random.Random(8)
    start = datetime(2026, 3, 1, 8, tzinfo=UTC)
    rows = []
    for child in children:
        for _ in range(per_child):
            a, b = rng.randint(2, 9), rng.randint(2, 9)
            answer = rng.choice([a * b, a * b, a * b, a * (b + 1), a + b, None])
            rows.append(
                Attempt(
                    **attempt_fields(
                        child,
                        a,
                        b,
                        answer,
                        ms=None if answer is None else rng.randint(800, 9000),
                        match=match,
                        move=move,
                        context="missed" if answer is None else "capture",
                    ),
                    created_at=start + timedelta(minutes=rng.randint(0, 20000)),
                )
            )
    Attempt.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


@pytest.mark.slow
@pytest.mark.services
def test_a_recompute_survives_a_worker_killed_mid_task(redis_url, transactional_db, tmp_path):
    classroom, children = school_with_children(400)
    attempts = many_attempts(children)
    job = RecomputeJob.objects.create(classroom=classroom)
    queue = f"test-kill-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "workers.log"
    first = start_worker(queue, log)
    second = None
    try:
        assert wait_for(lambda: "ready." in log.read_text(), timeout=60), log.read_text()[-3000:]
        recompute_job.apply_async(args=[job.pk], queue=queue)

        def mid_way():
            job.refresh_from_db()
            return job.status == "running" and 0 < job.done < job.total

        assert wait_for(mid_way, timeout=30, every=0.02), f"job never seen mid-way: {job}"
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        killed_at = time.monotonic()
        job.refresh_from_db()
        assert job.status == "running", "killed too late: the job had finished"

        # The message was never acknowledged: once its visibility timeout has passed, a new
        # worker puts it back on the queue and runs it again.
        time.sleep(max(0.0, VISIBILITY_TIMEOUT + 0.5 - (time.monotonic() - killed_at)))
        second = start_worker(queue, log, CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT))

        def finished():
            job.refresh_from_db()
            return job.status == "done"

        assert wait_for(finished, timeout=90, every=0.2), (
            f"the redelivered job never finished: {job}\n{log.read_text()[-3000:]}"
        )
    finally:
        stop_process(first)
        if second is not None:
            stop_process(second)
    assert job.total == len(children) and job.done == job.total
    # Counted once: every attempt in exactly one child's fact row, and the same rows as a
    # clean rebuild from scratch.
    assert counted() == attempts
    after_kill = everything()
    FactStat.objects.all().delete()
    DailyTrend.objects.all().delete()
    FactStat.objects.rebuild_for([c.pk for c in children])
    DailyTrend.objects.rebuild_for_school(classroom.school)
    assert everything() == after_kill


@pytest.mark.slow
@pytest.mark.services
def test_a_game_end_update_survives_a_worker_killed_mid_task(
    postgres, redis_url, transactional_db, tmp_path
):
    """The incremental path (docs/analytics.md, "Pipeline"): ``knowledge_store.apply_child``
    locks the child's row, claims their pending attempts, folds them and upserts the
    FactStat rows, then takes a share lock on the school's row to add the day's trend rows
    (``_increment_trends``). That lock is held here, exclusively, on a connection of this
    test: the worker waits for it with the first child's FactStat rows written (its
    transaction holds the table's write lock), and is killed there. Its transaction is rolled
    back, no attempt is marked applied, and the redelivered task counts every attempt once:
    the same rows as a rebuild from scratch."""
    import psycopg

    classroom, (ada, ben) = school_with_children(2)
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": kid.name, "owner_key": kid.seat_key}
        for kid in (ada, ben)
    ]
    match = Match.create("multiplipotion", seats)
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    rng = random.Random(5)
    rows = []
    for kid in (ada, ben):
        for i in range(60):
            a, b = rng.randint(2, 9), rng.randint(2, 9)
            answer = rng.choice([a * b, a * b, a * b + 1, None])
            rows.append(
                Attempt(
                    **attempt_fields(
                        kid, a, b, answer, match=match, move=move,
                        context="missed" if answer is None else "capture",
                    ),
                    created_at=datetime(2026, 3, 2, 9, tzinfo=UTC) + timedelta(minutes=7 * i),
                )
            )  # fmt: skip
    Attempt.objects.bulk_create(rows)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)

    from classroom.tasks import update_match_stats

    queue = f"test-kill-inc-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "workers.log"
    holder = psycopg.connect(worker_database_url().replace("postgres://", "postgresql://"))
    holder.execute(
        "SELECT id FROM classroom_school WHERE id = %s FOR UPDATE", [classroom.school_id]
    )
    watcher = psycopg.connect(
        worker_database_url().replace("postgres://", "postgresql://"), autocommit=True
    )
    first = start_worker(queue, log)
    second = None
    try:
        assert wait_for(lambda: "ready." in log.read_text(), timeout=60), log.read_text()[-3000:]
        update_match_stats.apply_async(args=[match.pk], queue=queue)

        def waiting_for_the_school():
            return watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query ILIKE '%%classroom_school%%FOR SHARE%%'"
            ).fetchone()[0]

        assert wait_for(waiting_for_the_school, timeout=30, every=0.05), log.read_text()[-3000:]
        # Blocked after the fold: the waiting transaction has written FactStat rows.
        assert watcher.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.relation = 'classroom_factstat'::regclass AND l.mode = 'RowExclusiveLock' "
            "AND a.wait_event_type = 'Lock'"
        ).fetchone()[0]
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        killed_at = time.monotonic()
        holder.rollback()  # the dead worker's statement ends; its transaction rolls back

        def rolled_back():
            return (
                not waiting_for_the_school()
                and not watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND state LIKE 'idle in transaction%%' AND pid <> pg_backend_pid()"
                ).fetchone()[0]
            )

        assert wait_for(rolled_back, timeout=30)
        assert not FactStat.objects.exists()
        assert Attempt.objects.filter(stats_applied=False).count() == len(rows)

        time.sleep(max(0.0, VISIBILITY_TIMEOUT + 0.5 - (time.monotonic() - killed_at)))
        second = start_worker(queue, log, CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT))
        assert wait_for(
            lambda: not Attempt.objects.filter(stats_applied=False).exists(), timeout=90, every=0.2
        ), f"the redelivered task never ran\n{log.read_text()[-3000:]}"
    finally:
        holder.close()
        watcher.close()
        stop_process(first)
        if second is not None:
            stop_process(second)
    assert counted() == len(rows)
    after_kill = everything()
    for model in (FactStat, DailyTrend):
        model.objects.all().delete()
    Attempt.objects.update(stats_applied=False)
    RecomputeJob.objects.create(classroom=classroom).run()
    assert everything() == after_kill
