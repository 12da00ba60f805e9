"""``recompute_vs_baseline``, ``stats_task_db_ms``, ``stats_task_growth`` and
``heatmap_after_game_idle_p95_ms`` (docs/performance.md, "Analytics").

The statistics are the knowledge model's state (``classroom.knowledge``, a fold in Python over
each child's attempts in time order) kept in ``FactStat`` rows by
``classroom.models.knowledge_store``. No SQL statement computes them any more, so the
baseline is no longer "one SQL statement of the same outputs": it is the same code path with
the model taken out, timed side by side in the same run.

One school (40 classes × 25 children; 4 × 5 in quick mode) gets N attempts of the 2–9 tables
(typed warm-up answers, claims in games, missed captures; over the last 60 days),
bulk-inserted (PostgreSQL: COPY through psycopg's ``cursor.copy``; SQLite: ``executemany``
in one transaction), all pointing at one Match and one Move per class.

The full rebuild (a repair: the teacher's button, ``manage.py recompute``):
A is ``RecomputeJob.objects.create().run()`` (what the worker's ``recompute_job`` runs): every
child's attempts replayed through the fold (``knowledge_store.rebuild_children``), in batches
on ``RecomputeJob.connections()`` connections, with their trend rows, then each school's
class and school trend rows.
B, the baseline, is the same job with the fold taken out (``baseline``:
``knowledge_store.fold_rows`` replaced by the attempts' counts alone): the same batches,
connections, transactions and locks, the same query reading the same attempts, the same
number of FactStat rows written with the same counts (an empty model), the same trend rows.
What any rebuild of these rows must do, so A ÷ B is what the model costs on top of it (the
fold and its JSON). After one untimed B, A and B run in turn three times;
``recompute_vs_baseline`` = median A ÷ median B, ``recompute_attempts_per_s`` = N ÷ median A.

The game-end task (``time_stats_task``): the body of ``update_match_stats``
(``FactStat.objects.update_for_match``, the live update: ``knowledge_store.apply_child``) for
one child whose game of 20 attempts ends, with 100, 1,000 and 10,000 attempts of history: the
database time of its statements (``stats_task_db_ms``: at 1,000) and how it grows with the
history (``stats_task_growth``: the larger of the two tenfold steps' ratios). Side by side, on
twin children with the same histories, the same task with the fold taken out (the baseline
above): ``stats_task_wall_ms`` against ``stats_task_baseline_wall_ms`` (the model's cost is
Python time, not database time), and ``stats_task_roundtrips_ms`` (as many ``SELECT 1``).

Then, on the same database, a real Celery worker process (started like tests/conftest.py's
``celery_worker``: its own queue, every task of this process routed to it) and K games of
children of that school: the last move of each game is played through ``Match.play`` (which
enqueues ``update_match_stats`` on commit) and this process polls the database until every
attempt of the game is counted into the child's FactStat rows. p95 of those times, in ms.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db import transaction
from django.db.models import F
from django.db.models import Sum
from django.utils import timezone

from bench.moves import percentile
from classroom import error_kinds
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.models import knowledge_store
from games.models import Match
from games.models import Move
from games.models import Seat

REPO = Path(__file__).resolve().parent.parent
FULL = {"classes": 40, "children": 25, "games": 40}
QUICK = {"classes": 4, "children": 5, "games": 2, "attempts": 4_000}
# The fold runs in Python (about 0.1 ms an attempt, one core whatever the connections), so
# the full rebuild of a million attempts would take minutes a run: 200,000 keeps `make bench`
# within reach and the ratio at a size where the database's share is measured.
FULL_ATTEMPTS = {"postgresql": 200_000, "sqlite": 100_000}
DAYS = 60  # attempts spread over the last 60 days
COLUMNS = (
    "student_id, match_id, move_id, a, b, answer, correct, kind, context, response_ms, "
    "home, created_at"
)


# --- data ------------------------------------------------------------------------------------


def make_school(classes: int, children: int):
    """A school, its classes, their children and one guest Match + Move per class (the rows
    every attempt of that class points at). Returns (school, classrooms, {class: [ids]},
    {class: move})."""
    tag = uuid.uuid4().hex[:8]
    teacher = get_user_model().objects.create_user(f"bench-teacher-{tag}", password=None)
    school = School.objects.create(name=f"Bench school {tag}")
    rooms = [
        Classroom.objects.create(school=school, teacher=teacher, name=f"C{i}")
        for i in range(classes)
    ]
    Student.objects.bulk_create(
        Student(classroom=room, name=f"Child {i}") for room in rooms for i in range(children)
    )
    kids = {room.pk: [] for room in rooms}
    for pk, room_id in Student.objects.filter(classroom__in=rooms).values_list(
        "pk", "classroom_id"
    ):
        kids[room_id].append(pk)
    moves = {}
    for room in rooms:
        match = Match.objects.create(
            game="multiplipotion", options={}, seed=0, state={}, status=Match.Status.FINISHED
        )
        moves[room.pk] = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    return school, rooms, kids, moves


def attempt_rows(n: int, kids: dict, moves: dict, seed: int = 7, *, typed: float = 0.45):
    """``n`` attempt tuples (COLUMNS order) of the 2–9 tables: 5 % missed captures, a share
    ``typed`` of answers typed in a warm-up, the rest claims in games (one in ten of them a
    challenge); 80 % of the answers right. Each kind as the pipeline names it
    (``error_kinds.classify``)."""
    rng = random.Random(seed)
    children = [(sid, moves[room]) for room, ids in kids.items() for sid in ids]
    now = timezone.now()
    kinds = {}
    for _ in range(n):
        sid, move = children[rng.randrange(len(children))]
        a, b = rng.randint(2, 9), rng.randint(2, 9)
        roll = rng.random()
        if roll < 0.05:
            answer, context, ms = None, Attempt.Context.MISSED.value, None
        else:
            answer = a * b if rng.random() < 0.8 else a * b + rng.choice((-a, a, -b, b, 1, -1, 10))
            answer = max(answer, 0)
            if roll < 0.05 + typed:
                context = Attempt.Context.WARM_UP.value
            elif rng.random() < 0.9:
                context = Attempt.Context.CAPTURE.value
            else:
                context = Attempt.Context.CHALLENGE.value
            ms = rng.randint(800, 12_000)
        kind = kinds.get((a, b, answer, context))
        if kind is None:
            kind = kinds[(a, b, answer, context)] = error_kinds.classify(
                a, b, answer, context=context
            )
        created = now - dt.timedelta(seconds=rng.randrange(DAYS * 86_400))
        yield (sid, move.match_id, move.pk, a, b, answer, answer == a * b, kind, context, ms,
               False, created)  # fmt: skip


def insert_attempts(rows, *, analyze: bool = True) -> None:
    table = Attempt._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({COLUMNS}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(COLUMNS.split(",")))
            sql = f"INSERT INTO {table} ({COLUMNS}) VALUES ({marks})"
            batch = []
            for row in rows:
                batch.append(row)
                if len(batch) == 20_000:
                    cursor.executemany(sql, batch)
                    batch = []
            if batch:
                cursor.executemany(sql, batch)
    if analyze and connection.vendor == "postgresql":
        # What autovacuum does soon after tables grow like this. Without fresh statistics on
        # the student and classroom tables too, the planner takes the school's 40 classes for 2
        # and DailyTrend's day query walks every child's attempts (3 s instead of 0.15 s).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


# --- A and B ---------------------------------------------------------------------------------


def counts_only(student_id: int, rows: dict, pending: list[dict], zone) -> dict:
    """The baseline's ``knowledge_store.fold_rows``: the same rows with the same counts
    (``knowledge_store._count``: answers, right ones, misses, taps after being caught, wrong
    answers, the latest attempt), written by the same statements, without the model: no
    fold, no probability, no JSON state."""
    now = timezone.now()
    for p in pending:
        key = (p["a"], p["b"])
        if key not in rows:
            rows[key] = FactStat(student_id=student_id, a=p["a"], b=p["b"], wrong_answers={})
        knowledge_store._count(rows[key], p)
    for row in rows.values():
        row.updated_at = now
    return rows


@contextmanager
def baseline():
    """Within: the statistics' writers run with the model taken out (``counts_only``), on
    every thread of this process (a recompute's connections too)."""
    with mock.patch.object(knowledge_store, "fold_rows", counts_only):
        yield


def time_recompute() -> float:
    start = time.perf_counter()
    job = RecomputeJob.objects.create()
    job.run()
    elapsed = time.perf_counter() - start
    job.refresh_from_db()
    if job.status != RecomputeJob.Status.DONE:
        raise RuntimeError(f"the recompute ended {job.status}")
    return elapsed


def time_baseline() -> float:
    """B: the same job, the model taken out."""
    with baseline():
        return time_recompute()


def fact_rows(school) -> int:
    return FactStat.objects.filter(student__classroom__school=school).count()


# --- the worker --------------------------------------------------------------------------------


def worker_database_url() -> str:
    """This process's database (the bench's, or pytest's test database) for another process."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path=f"/{name}"))


class Worker:
    """A real Celery worker process on its own queue; every task of this process goes there."""

    def __init__(self):
        self.queue = f"bench-{uuid.uuid4().hex[:10]}"
        self.log = Path(settings.VAR_DIR) / f"{self.queue}.log"
        self.proc = None
        self.old_routes, self.routed = None, False

    def __enter__(self):
        from config.celery import app

        env = {
            **os.environ,
            "DATABASE_URL": worker_database_url(),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo",
                 "-Q", self.queue, "-n", f"{self.queue}@%h", "--without-gossip",
                 "--without-mingle", "-l", "INFO"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while "ready." not in self.log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                text = self.log.read_text()[-3000:]
                self.__exit__(None, None, None)
                raise RuntimeError(f"the Celery worker did not start:\n{text}")
            time.sleep(0.1)
        self.old_routes, self.routed = app.conf.task_routes, True
        app.conf.task_routes = {"*": {"queue": self.queue}}
        app.amqp.flush_routes()
        app.amqp.__dict__.pop("router", None)
        return self

    def wait_for_tasks(self, n: int, timeout: float = 120.0) -> None:
        """Until the worker has finished ``n`` tasks (its INFO log line "succeeded in")."""
        deadline = time.monotonic() + timeout
        while self.log.read_text().count(" succeeded in ") < n:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not finish task {n} within {timeout:.0f} s")
            time.sleep(0.02)

    def task_seconds(self) -> list[float]:
        """The run time of every finished task, as the worker logged it."""
        parts = self.log.read_text().split(" succeeded in ")[1:]
        return [float(p.split("s", 1)[0]) for p in parts]

    def __exit__(self, *exc):
        from config.celery import app

        if self.routed:
            self.routed = False
            app.conf.task_routes = self.old_routes
            app.amqp.flush_routes()
            app.amqp.__dict__.pop("router", None)
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if exc[0] is None:
            self.log.unlink(missing_ok=True)  # kept when something failed


# --- games -----------------------------------------------------------------------------------


def game_before_last_move(student: Student, seed: int):
    """A green-tier match of ``student`` (seat 0) against a guest on the same device, played
    without follow-ups up to its last move. Returns (match, seat, action) of that move."""
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": student.name, "owner_key": student.seat_key},
            {"kind": Seat.Kind.GUEST, "name": "Guest", "owner_key": "bench-guest"},
        ],
        options={"tier": "green"},
        seed=seed,
    )
    module, rng = match.engine, random.Random(seed)
    for _ in range(2000):
        state = module.load(match.state)
        seat = module.to_act(state)[0]
        legal = module.legal_actions(state, seat)
        action = module.bot_action(module.view(state, seat), legal, "apprentice", rng)
        new_state, _events = module.apply(state, seat, action)
        if module.outcome(new_state) is not None:
            return match, seat, action
        match.play(seat, action, version=match.version, follow_ups=False)
    raise RuntimeError("a bench game did not end")


def reflected(student: Student, match) -> bool:
    """Every attempt of the game is counted into the child's FactStat rows (marked applied
    in the transaction that wrote them), and the rows count every attempt the child made."""
    if Attempt.objects.filter(match=match, stats_applied=False).exists():
        return False
    rows = FactStat.objects.filter(student=student).aggregate(n=Sum(F("attempts") + F("forced")))
    return rows["n"] == Attempt.objects.filter(student=student).count()


def time_games(children: list[Student], games: int, *, timeout=60.0) -> tuple[list, list]:
    prepared = [game_before_last_move(children[i % len(children)], 1000 + i) for i in range(games)]
    elapsed = []
    with Worker() as worker:
        for done, (match, seat, action) in enumerate(prepared, 1):
            student = match.seats.get(number=0).child_link.student
            start = time.perf_counter()
            match.play(seat, action, version=match.version)  # commits, then enqueues
            if not match.is_over:
                raise RuntimeError("the last move did not finish the bench game")
            deadline = time.monotonic() + timeout
            while not reflected(student, match):
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the worker did not update the statistics within {timeout:.0f} s"
                    )
                time.sleep(0.01)
            elapsed.append((time.perf_counter() - start) * 1000)
            # Let the task end (its log line), so that every game meets an idle worker (no
            # queueing behind the last game).
            worker.wait_for_tasks(done)
        task_ms = [t * 1000 for t in worker.task_seconds()]
    return elapsed, task_ms


# --- the game-end task: database time and growth with history ---------------------------------

HISTORIES = (100, 1_000, 10_000)  # attempts of history of the child whose game ends
GAME_ATTEMPTS = 20  # a game's attempts for one child (a typical green-tier match)


class DatabaseTime:
    """The time spent in the database by this connection's statements (``execute_wrapper``:
    each statement's round trip, from the call to the cursor's return), in ms."""

    def __init__(self):
        self.ms, self.statements = 0.0, 0

    def __call__(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.ms += (time.perf_counter() - start) * 1000
            self.statements += 1


def child_with_history(room, n: int, seed: int, name: str) -> Student:
    """A child of ``room`` with ``n`` attempts already counted (a rebuild: their rows), over
    the last 60 days."""
    child = Student.objects.create(classroom=room, name=name)
    match = Match.objects.create(
        game="multiplipotion", options={}, seed=0, state={}, status=Match.Status.FINISHED
    )
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    insert_attempts(
        attempt_rows(n, {room.pk: [child.pk]}, {room.pk: move}, seed=seed), analyze=False
    )
    FactStat.objects.rebuild_for([child.pk])
    return child


def a_game_of(child: Student, seed: int) -> int:
    """A finished match of the child against a computer player with ``GAME_ATTEMPTS``
    attempts written as its moves would (not yet counted). Returns the match's id."""
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": child.name, "owner_key": child.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
        ],
        options={"tier": "green"},
        seed=seed,
    )
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    rows = list(attempt_rows(GAME_ATTEMPTS, {0: [child.pk]}, {0: move}, seed=seed, typed=0))
    now = timezone.now()
    rows = [(*row[:-1], now) for row in rows]  # played just now
    insert_attempts(rows, analyze=False)  # (the tables were analysed with the histories)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=now)
    return match.pk


def time_task(match_id: int) -> tuple[float, float, int]:
    """The game-end task's body for one match: (database ms, wall ms, statements)."""
    clock = DatabaseTime()
    start = time.perf_counter()
    with connection.execute_wrapper(clock):
        applied = FactStat.objects.update_for_match(match_id)
    wall = (time.perf_counter() - start) * 1000
    if applied != GAME_ATTEMPTS:
        raise RuntimeError(f"the task counted {applied} attempts, not {GAME_ATTEMPTS}")
    return clock.ms, wall, clock.statements


def time_stats_task(quick: bool) -> tuple[dict, dict]:
    """The game-end task's body (``FactStat.objects.update_for_match``, what
    ``update_match_stats`` runs) in this process, for children of one class (25 classmates
    with 200 attempts each, so the class's and the school's trend rows are there to add to)
    with 100, 1,000 and 10,000 attempts of history, and for twin children with the same
    histories the same task with the model taken out (``baseline``); the sizes in turn, the
    two sides in turn (ABBA), ``runs`` games each; medians of the statements' database time
    and of the wall time."""
    runs = 7 if quick else 25
    _school, rooms, kids, moves = make_school(1, 25)
    room = rooms[0]
    insert_attempts(attempt_rows(25 * 200, kids, moves, seed=11))
    FactStat.objects.rebuild_for(kids[room.pk])
    sides = ("model", "baseline")
    children = {
        (side, n): child_with_history(room, n, seed=n, name=f"History {n} {side}")
        for side in sides
        for n in HISTORIES
    }
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE")
    db_ms = {key: [] for key in children}
    wall_ms = {key: [] for key in children}
    statements: dict[tuple[str, int], int] = {}
    trivial_ms: list[float] = []
    for run in range(runs + 1):  # the first round warms the caches, untimed
        for n in HISTORIES:
            order = sides if run % 2 else sides[::-1]
            for side in order:
                match_id = a_game_of(children[(side, n)], seed=run * 10 + HISTORIES.index(n))
                if side == "baseline":
                    with baseline():
                        db, wall, count = time_task(match_id)
                else:
                    db, wall, count = time_task(match_id)
                if run:
                    db_ms[(side, n)].append(db)
                    wall_ms[(side, n)].append(wall)
                    statements[(side, n)] = count
        # Side by side, the same number of the cheapest statements in one transaction: what
        # the machine's round trips cost at that moment (a busy machine's share of each).
        clock = DatabaseTime()
        with transaction.atomic(), connection.execute_wrapper(clock), connection.cursor() as c:
            for _ in range(statements.get(("model", HISTORIES[0]), 10)):
                c.execute("SELECT 1")
        if run:
            trivial_ms.append(clock.ms)
    median_db = {key: statistics.median(v) for key, v in db_ms.items()}
    median_wall = {key: statistics.median(v) for key, v in wall_ms.items()}
    growth = max(
        median_db[("model", b)] / median_db[("model", a)] for a, b in itertools.pairwise(HISTORIES)
    )
    middle = HISTORIES[1]
    figures = {
        "stats_task_db_ms": median_db[("model", middle)],
        "stats_task_growth": growth,
        "stats_task_wall_ms": median_wall[("model", middle)],
        "stats_task_baseline_db_ms": median_db[("baseline", middle)],
        "stats_task_baseline_wall_ms": median_wall[("baseline", middle)],
        "stats_task_roundtrips_ms": statistics.median(trivial_ms),
    }

    def by_history(values, side):
        return {n: values[(side, n)] for n in HISTORIES}

    details = {
        "stats_task_runs": runs,
        "stats_task_game_attempts": GAME_ATTEMPTS,
        "stats_task_db_ms_by_history": by_history(median_db, "model"),
        "stats_task_wall_ms_by_history": by_history(median_wall, "model"),
        "stats_task_baseline_db_ms_by_history": by_history(median_db, "baseline"),
        "stats_task_baseline_wall_ms_by_history": by_history(median_wall, "baseline"),
        "stats_task_statements": by_history(statements, "model"),
        "stats_task_baseline_statements": by_history(statements, "baseline"),
    }
    return figures, details


# --- the benchmark ---------------------------------------------------------------------------


def bench_analytics(quick: bool = False, *, attempts=None, games=None):
    """Return (figures, details)."""
    size = QUICK if quick else FULL
    n = attempts or size.get("attempts") or FULL_ATTEMPTS.get(connection.vendor, 100_000)
    k = games or size["games"]
    school, rooms, kids, moves = make_school(size["classes"], size["children"])
    start = time.perf_counter()
    insert_attempts(attempt_rows(n, kids, moves))
    insert_s = time.perf_counter() - start

    time_baseline()  # warm-up: the same pages in the cache for A and B
    baseline_rows = fact_rows(school)
    # A and B in turn, three times each; the medians. Each run deletes the rows the one
    # before wrote and writes them again (what the teacher's button and `manage.py
    # recompute` meet).
    recomputes, baselines = [], []
    for _ in range(3):
        recomputes.append(time_recompute())
        rows = fact_rows(school)
        baselines.append(time_baseline())
    if rows != baseline_rows or fact_rows(school) != rows:
        raise RuntimeError("the recompute and the baseline wrote different numbers of rows")
    recompute_s = statistics.median(recomputes)
    baseline_s = statistics.median(baselines)
    time_recompute()  # the model's rows again, for the games that follow

    # One child per class, in turn: each game's class holds N / classes attempts.
    children = [Student.objects.get(pk=kids[room.pk][0]) for room in rooms]
    heat_ms, task_ms = time_games(children, k)
    task_figures, task_details = time_stats_task(quick)
    figures = {
        **task_figures,
        "recompute_vs_baseline": recompute_s / baseline_s,
        "recompute_s": recompute_s,
        "recompute_baseline_s": baseline_s,
        "recompute_attempts_per_s": n / recompute_s,
        # An idle worker: the goal's figure is measured under load (bench/load/heatmap.py).
        "heatmap_after_game_idle_p95_ms": percentile(heat_ms, 95),
        "heatmap_after_game_idle_median_ms": statistics.median(heat_ms),
        "stats_task_median_ms": statistics.median(task_ms),
    }
    details = {
        "attempts": n,
        "classes": size["classes"],
        "children": size["classes"] * size["children"],
        "groups": rows,
        "insert_s": insert_s,
        "games": k,
        "broker": settings.CELERY_BROKER_URL.split(":", 1)[0],
        "recompute_connections": RecomputeJob.connections(),
        "recompute_runs_s": recomputes,
        "baseline_runs_s": baselines,
        **task_details,
    }
    return figures, details
