"""``analytics_vs_floor``, ``stats_task_db_ms``, ``stats_task_growth`` and
``heatmap_after_game_idle_p95_ms`` (docs/performance.md, "Analytics").

One school (40 classes × 25 children; 4 × 5 in quick mode) gets N attempts, bulk-inserted
(PostgreSQL: COPY through psycopg's ``cursor.copy``; SQLite: ``executemany`` in one
transaction), all pointing at one Match and one Move per class (``Attempt.move`` is a required
foreign key; the statistics never read the move).

A: the product's full recompute, ``RecomputeJob.objects.create().run()`` (what ``manage.py
recompute`` and the worker's ``recompute_job`` run): every child's FactStat, every class's
ClassFactStat, the school's DailyTrend for every day.
B: the floor, one plain SQL statement computing the same outputs per child × fact (counts,
error kinds, the latest ten's count, right answers and median; ``floor_sql``) on the same
number of connections with the same settings. After one untimed B, A and B run in turn three
times; ``analytics_vs_floor`` = median A ÷ median B.

The game-end task (``time_stats_task``): its database time for one child whose game of 20
attempts ends, with 100, 1,000 and 10,000 attempts of history (``stats_task_db_ms``: at
1,000; ``stats_task_growth``: the larger of the two tenfold steps' ratios).

Then, on the same database, a real Celery worker process (started like tests/conftest.py's
``celery_worker``: its own queue, every task of this process routed to it) and K games of
children of that school: the last move of each game is played through ``Match.play`` (which
enqueues ``update_match_stats`` on commit) and this process polls the database until the
child's FactStat and the class's ClassFactStat reflect the game. p95 of those times, in ms.
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
from pathlib import Path
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db import transaction
from django.db.models import Max
from django.db.models import Sum
from django.utils import timezone

from bench.moves import percentile
from classroom import diagnosis
from classroom.models import Attempt
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from games.models import Match
from games.models import Move
from games.models import Seat

REPO = Path(__file__).resolve().parent.parent
FULL = {"classes": 40, "children": 25, "games": 40}
QUICK = {"classes": 4, "children": 5, "games": 2, "attempts": 4_000}
# PostgreSQL: the figure. SQLite: smaller, to keep `make bench` within ~6 minutes
# on two cores (its recompute runs the mastery in Python per fact either way).
FULL_ATTEMPTS = {"postgresql": 1_000_000, "sqlite": 200_000}
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


def attempt_rows(n: int, kids: dict, moves: dict, seed: int = 7):
    """``n`` attempt tuples (COLUMNS order): 75 % right, 20 % wrong, 5 % missed captures."""
    rng = random.Random(seed)
    children = [(sid, moves[room]) for room, ids in kids.items() for sid in ids]
    now = timezone.now()
    kinds = {}
    for _ in range(n):
        sid, move = children[rng.randrange(len(children))]
        a, b = rng.randint(1, 10), rng.randint(1, 10)
        roll = rng.random()
        if roll < 0.05:
            answer, context, ms = None, Attempt.Context.MISSED.value, None
        else:
            answer = a * b if roll < 0.80 else a * b + rng.choice((-a, a, -b, b, 1, -1, 7))
            answer = max(answer, 0)
            context = Attempt.Context.CAPTURE.value if roll < 0.9 else "challenge"
            ms = rng.randint(800, 12_000)
        kind = kinds.get((a, b, answer))
        if kind is None:
            kind = kinds[(a, b, answer)] = diagnosis.classify(a, b, answer)
        created = now - dt.timedelta(seconds=rng.randrange(DAYS * 86_400))
        yield (sid, move.match_id, move.pk, a, b, answer, answer == a * b, kind, context, ms,
               False, created)  # fmt: skip


def insert_attempts(rows) -> None:
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
    if connection.vendor == "postgresql":
        # What autovacuum does soon after tables grow like this. Without fresh statistics on
        # the student and classroom tables too, the planner takes the school's 40 classes for 2
        # and DailyTrend's day query walks every child's attempts (3 s instead of 0.15 s).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


# --- A and B ---------------------------------------------------------------------------------


def floor_sql(vendor: str, part: int, parts: int) -> str:
    """B, the floor: one plain SQL statement over a school's attempts (the children with
    ``student_id % parts = part``) that computes what the rebuild's figures are made of, per
    child × fact as asked: count, right answers, omissions, last attempt, the wrong answers of
    each kind, and over the latest ten (newest first, ties by id) how many, how many right and
    the median time of the right ones. No state, no pooling, no JSON, nothing written: what
    any rebuild of these outputs must at least do. Printed in docs/performance.md."""
    kinds = ",\n  ".join(
        f"COUNT(*) FILTER (WHERE NOT correct AND kind = '{kind}') AS {kind}_errors"
        for kind in diagnosis.ERROR_KINDS
    )
    median = (
        "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY {0})"
        if vendor == "postgresql"
        else "MEDIAN({0})"
    ).format("CASE WHEN rk <= 10 AND correct THEN response_ms END")
    return f"""SELECT student_id, a, b, COUNT(*) AS n,
  COUNT(*) FILTER (WHERE correct) AS right_n,
  COUNT(*) FILTER (WHERE answer IS NULL) AS omissions,
  MAX(created_at) AS last_at,
  {kinds},
  COUNT(*) FILTER (WHERE rk <= 10) AS latest_n,
  COUNT(*) FILTER (WHERE rk <= 10 AND correct) AS latest_right,
  {median} AS latest_median_ms
FROM (
  SELECT t.student_id, t.a, t.b, t.answer, t.correct, t.kind, t.response_ms, t.created_at,
         ROW_NUMBER() OVER (PARTITION BY t.student_id, t.a, t.b
                            ORDER BY t.created_at DESC, t.id DESC) AS rk
  FROM {Attempt._meta.db_table} t
  JOIN {Student._meta.db_table} s ON s.id = t.student_id
  JOIN {Classroom._meta.db_table} c ON c.id = s.classroom_id
  WHERE c.school_id = %s AND t.student_id %% {parts} = {part}
) ranked
GROUP BY student_id, a, b"""


def _floor_part(school_id: int, part: int, parts: int) -> int:
    """One connection's share of the floor, with the rebuild's settings (JIT off, the same
    work_mem: ``rebuild_sql.no_jit``) in a transaction, as the rebuild's batches run."""
    from django.db import connections

    from classroom.models.rebuild_sql import no_jit

    try:
        with transaction.atomic():
            no_jit(FactStat.objects.all())
            with connections["default"].cursor() as cursor:
                cursor.execute(floor_sql(connection.vendor, part, parts), [school_id])
                return len(cursor.fetchall())
    finally:
        if parts > 1:
            connections.close_all()  # this thread's connection


def time_floor(school_id: int) -> tuple[float, int]:
    """B on as many connections as the rebuild uses (``RecomputeJob.connections()``: 2 on
    PostgreSQL, 1 on SQLite), the children shared out between them; the wall time."""
    from concurrent.futures import ThreadPoolExecutor

    parts = RecomputeJob.connections()
    start = time.perf_counter()
    if parts == 1:
        rows = _floor_part(school_id, 0, 1)
    else:
        with ThreadPoolExecutor(parts) as pool:
            rows = sum(pool.map(lambda k: _floor_part(school_id, k, parts), range(parts)))
    return time.perf_counter() - start, rows


def time_recompute() -> float:
    start = time.perf_counter()
    job = RecomputeJob.objects.create()
    job.run()
    elapsed = time.perf_counter() - start
    job.refresh_from_db()
    if job.status != RecomputeJob.Status.DONE:
        raise RuntimeError(f"the recompute ended {job.status}")
    return elapsed


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


def reflected(student: Student, finished_at) -> bool:
    """The child's FactStat and the class's ClassFactStat were rebuilt after the game ended and
    the child's rows count every attempt the child made (this game's included)."""
    child = FactStat.objects.filter(student=student).aggregate(
        n=Sum("attempts"), t=Max("updated_at")
    )
    if child["t"] is None or child["t"] < finished_at:
        return False
    room = ClassFactStat.objects.filter(classroom_id=student.classroom_id).aggregate(
        t=Max("updated_at")
    )
    if room["t"] is None or room["t"] < finished_at:
        return False
    return child["n"] == Attempt.objects.filter(student=student).count()


def time_games(children: list[Student], games: int, *, timeout=60.0) -> list[float]:
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
            while not reflected(student, match.finished_at):
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the worker did not update the statistics within {timeout:.0f} s"
                    )
                time.sleep(0.01)
            elapsed.append((time.perf_counter() - start) * 1000)
            # The task goes on with the school's trends after the heatmap's rows: let it end,
            # so that every game meets an idle worker (no queueing behind the last game).
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


def child_with_history(room, n: int, seed: int) -> Student:
    """A child of ``room`` with ``n`` attempts already counted (a rebuild: their rows and
    windows), over the last 60 days."""
    child = Student.objects.create(classroom=room, name=f"History {n}")
    match = Match.objects.create(
        game="multiplipotion", options={}, seed=0, state={}, status=Match.Status.FINISHED
    )
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    insert_attempts(attempt_rows(n, {room.pk: [child.pk]}, {room.pk: move}, seed=seed))
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
    rows = list(attempt_rows(GAME_ATTEMPTS, {0: [child.pk]}, {0: move}, seed=seed))
    now = timezone.now()
    rows = [(*row[:-1], now) for row in rows]  # played just now
    insert_attempts(rows)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=now)
    return match.pk


def time_stats_task(quick: bool) -> tuple[dict, dict]:
    """``stats_task_db_ms`` and ``stats_task_growth``: the game-end task's body
    (``FactStat.objects.update_for_match``, what ``update_match_stats`` runs) in this process,
    for children of one class (25 classmates with 200 attempts each, so the class's roll-up
    has rows to add up) with 100, 1,000 and 10,000 attempts of history; the sizes in turn,
    ``runs`` games each; the database time of the statements and the wall time, medians."""
    runs = 7 if quick else 25
    _school, rooms, kids, moves = make_school(1, 25)
    room = rooms[0]
    insert_attempts(attempt_rows(25 * 200, kids, moves, seed=11))
    FactStat.objects.rebuild_for(kids[room.pk])
    ClassFactStat.objects.rebuild_for([room.pk])
    children = {n: child_with_history(room, n, seed=n) for n in HISTORIES}
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE")
    db_ms = {n: [] for n in HISTORIES}
    wall_ms = {n: [] for n in HISTORIES}
    statements: dict[int, int] = {}
    trivial_ms: list[float] = []
    for run in range(runs + 1):  # the first round warms the caches, untimed
        for n in HISTORIES:
            match_id = a_game_of(children[n], seed=run * 10 + HISTORIES.index(n))
            clock = DatabaseTime()
            start = time.perf_counter()
            with connection.execute_wrapper(clock):
                applied = FactStat.objects.update_for_match(match_id)
            wall = (time.perf_counter() - start) * 1000
            if applied != GAME_ATTEMPTS:
                raise RuntimeError(f"the task counted {applied} attempts, not {GAME_ATTEMPTS}")
            if run:
                db_ms[n].append(clock.ms)
                wall_ms[n].append(wall)
                statements[n] = clock.statements
        # Side by side, the same number of the cheapest statements in one transaction: what
        # the machine's round trips cost at that moment (a busy machine's share of each).
        clock = DatabaseTime()
        with transaction.atomic(), connection.execute_wrapper(clock), connection.cursor() as c:
            for _ in range(statements.get(HISTORIES[0], 10)):
                c.execute("SELECT 1")
        if run:
            trivial_ms.append(clock.ms)
    median_db = {n: statistics.median(db_ms[n]) for n in HISTORIES}
    growth = max(median_db[b] / median_db[a] for a, b in itertools.pairwise(HISTORIES))
    figures = {
        "stats_task_db_ms": median_db[HISTORIES[1]],
        "stats_task_growth": growth,
        "stats_task_roundtrips_ms": statistics.median(trivial_ms),
    }
    details = {
        "stats_task_runs": runs,
        "stats_task_game_attempts": GAME_ATTEMPTS,
        "stats_task_db_ms_by_history": median_db,
        "stats_task_wall_ms_by_history": {n: statistics.median(wall_ms[n]) for n in HISTORIES},
        "stats_task_statements": statements,
    }
    return figures, details


# --- the benchmark ---------------------------------------------------------------------------


def bench_analytics(quick: bool = False, *, attempts=None, games=None):
    """Return (figures, details)."""
    size = QUICK if quick else FULL
    n = attempts or size.get("attempts") or FULL_ATTEMPTS.get(connection.vendor, 200_000)
    k = games or size["games"]
    school, rooms, kids, moves = make_school(size["classes"], size["children"])
    start = time.perf_counter()
    insert_attempts(attempt_rows(n, kids, moves))
    insert_s = time.perf_counter() - start

    time_floor(school.pk)  # warm-up: the same pages in the cache for A and B
    # A and B in turn, three times each; the medians. The first recompute writes into empty
    # tables, the next two over the rows the one before wrote (what the teacher's button and
    # `manage.py recompute` meet).
    recomputes, runs = [], []
    for _ in range(3):
        recomputes.append(time_recompute())
        runs.append(time_floor(school.pk))
    recompute_s = statistics.median(recomputes)
    floor_s = statistics.median(t for t, _rows in runs)
    groups = runs[0][1]
    if FactStat.objects.filter(student__classroom__school=school).count() != groups:
        raise RuntimeError("the recompute and the floor disagree on the child × fact rows")

    # One child per class, in turn: each game's class holds N / classes attempts.
    children = [Student.objects.get(pk=kids[room.pk][0]) for room in rooms]
    heat_ms, task_ms = time_games(children, k)
    task_figures, task_details = time_stats_task(quick)
    figures = {
        **task_figures,
        "analytics_vs_floor": recompute_s / floor_s,
        "recompute_s": recompute_s,
        "recompute_floor_s": floor_s,
        # An idle worker: the goal's figure is measured under load (bench/load/heatmap.py).
        "heatmap_after_game_idle_p95_ms": percentile(heat_ms, 95),
        "heatmap_after_game_idle_median_ms": statistics.median(heat_ms),
        "stats_task_median_ms": statistics.median(task_ms),
    }
    details = {
        "attempts": n,
        "classes": size["classes"],
        "children": size["classes"] * size["children"],
        "groups": groups,
        "insert_s": insert_s,
        "games": k,
        "broker": settings.CELERY_BROKER_URL.split(":", 1)[0],
        "recompute_connections": RecomputeJob.connections(),
        "recompute_runs_s": recomputes,
        "floor_runs_s": [t for t, _rows in runs],
        "floor_connections": RecomputeJob.connections(),
        **task_details,
    }
    return figures, details
