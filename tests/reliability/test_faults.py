"""Faults, with real processes:

(a) a Celery worker SIGKILLed in the middle of a bot turn: the task is redelivered to another
    worker and the turn is played exactly once (the moves are exactly the ones the bot's
    seeded choice gives, and a sweep afterwards plays nothing);
(b) Redis (broker and cache) stopped mid-game (our own redis-server on a spare port, never
    the shared one): every request answers without a 5xx, every accepted move is stored, the
    computer player catches up through the sweep and the child's statistics through the
    roll-up once Redis is back;
(c) the web server (gunicorn) killed and started again mid-game: the game resumes where it
    was, with the same browser cookies;
(d) PostgreSQL out of reach for a few seconds (a proxy of our own between the web server, gunicorn
    as in production, and PostgreSQL, cut; never the shared server): every move, warm-up answer
    and page asked for meanwhile answers 503 with Retry-After, is sent again as the page does,
    and goes through once PostgreSQL is back; each answer is stored exactly once.
"""

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

import pytest
from django.db import connection
from django.db import transaction

from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from games import registry
from games.models import Match
from games.models import Move
from games.models import Seat

from ..conftest import worker_database_url
from .conftest import move_data
from .conftest import worker_game_params
from .http_client import Browser

BASE_DIR = Path(__file__).absolute().parent.parent.parent


# --- processes --------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout=60.0, every=0.1, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def process_env(tmp_path: Path, **extra) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "VAR_DIR": str(tmp_path),
        "LOG_LEVEL": "WARNING",
    }
    env.update({k: v for k, v in extra.items() if v is not None})
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
    return env


def start(cmd, env, log: Path) -> subprocess.Popen:
    """A process in a process group of its own (so a crash can take its children too)."""
    out = log.open("a")
    proc = subprocess.Popen(
        cmd, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
    )
    out.close()
    return proc


def crash(proc: subprocess.Popen):
    """SIGKILL the process and its children (its own process group), as a power cut would."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=20)


def stop(proc: subprocess.Popen, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def start_worker(env, log: Path, queue: str) -> subprocess.Popen:
    proc = start(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue,
         "-n", f"{queue}-{uuid.uuid4().hex[:4]}@%h", "--without-gossip", "--without-mingle",
         "-l", "INFO"],
        env, log,
    )  # fmt: skip
    wait_for(lambda: "ready." in log.read_text() or proc.poll() is not None, what="the worker")
    assert proc.poll() is None, log.read_text()[-3000:]
    return proc


def start_web(env, log: Path, port: int) -> subprocess.Popen:
    """The pages' server as production runs it (bench.load.stack.web_args), one worker."""
    from bench.load.stack import web_args

    proc = start([*web_args(port, workers=1), "--threads", "4", "--timeout", "60"], env, log)

    def up():
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            return True
        except urllib.error.HTTPError:
            return True  # 503: up, with something unhealthy
        except OSError:
            return False

    wait_for(up, timeout=60, what="the web server")
    return proc


class RedisServer:
    """Our own redis-server on a spare port (the shared one on 6379 is never touched)."""

    def __init__(self, tmp_path: Path):
        self.port = free_port()
        self.dir = tmp_path
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for(self.ping, timeout=20, what="redis-server")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self):
        if self.proc is not None:
            stop(self.proc, signal.SIGKILL)  # no save, no goodbye: a crash
            self.proc = None


def acting_human(match: Match, humans: set[int]):
    state = match.engine.load(match.state)
    acting = [s for s in match.engine.to_act(state) if s in humans]
    return (acting[0], state) if acting else (None, state)


def first_legal(match: Match, seat: int, state) -> dict:
    """A sensible move for a person: the best computer level's choice (seeded: repeatable)."""
    import random

    module = match.engine
    level = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
    rng = random.Random(f"person:{seat}:{match.version}")
    return module.bot_action(
        module.view(state, seat), module.legal_actions(state, seat), level, rng
    )


def expected_bot_moves(match: Match, state, version: int, seat_levels: dict) -> list[dict]:
    """The moves the bots make from ``state`` at ``version`` (their seeded choices)."""
    import random

    module = match.engine
    actions = []
    while module.outcome(state) is None:
        bots = [s for s in module.to_act(state) if s in seat_levels]
        if not bots:
            break
        seat = bots[0]
        rng = random.Random(f"{match.seed}:bot:{seat}:{version}")
        action = module.bot_action(
            module.view(state, seat), module.legal_actions(state, seat), seat_levels[seat], rng
        )
        state, _ = module.apply(state, seat, action)
        actions.append(action)
        version += 1
    return actions


# --- (a) a worker killed in the middle of a bot turn ------------------------------------------
@pytest.mark.slow
@pytest.mark.services
@pytest.mark.parametrize("slug", worker_game_params())
def test_a_bot_turn_survives_a_worker_killed_mid_task(slug, redis_url, transactional_db, tmp_path):
    from config.celery import app
    from games.tasks import play_bots
    from games.tasks import sweep_stalled_bots

    module = registry.get(slug).rules
    players = module.MIN_PLAYERS
    seats = [{"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "ana"}] + [
        {"kind": Seat.Kind.BOT, "name": f"Bot {i}", "bot_level": module.LEVELS[-1]}
        for i in range(1, players)
    ]
    levels = {i: module.LEVELS[-1] for i in range(1, players)}
    match = Match.create(slug, seats, seed=11)
    # People play until a bot must act (bots' turns at the start are played in-process).
    for _ in range(50):
        match.refresh_from_db()
        if match.bot_to_act():
            break
        seat, state = acting_human(match, {0})
        assert seat is not None
        match.play(seat, first_legal(match, seat, state), version=match.version, follow_ups=False)
    match.refresh_from_db()
    assert match.bot_to_act(), "no bot turn to kill"
    version, state = match.version, module.load(match.state)
    expected = expected_bot_moves(match, state, version, levels)
    assert expected

    queue = f"test-kill-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    env = process_env(tmp_path, CELERY_VISIBILITY_TIMEOUT="2")
    first = start_worker(env, log, queue)
    second = None
    try:
        # Hold the match row: the worker's bot turn blocks inside Match.play, mid-task.
        with transaction.atomic():
            Match.objects.select_for_update().get(pk=match.pk)
            play_bots.apply_async(args=[match.pk], queue=queue)
            wait_for(lambda: "play_bots" in log.read_text(), what="the task to arrive")
            if connection.vendor == "postgresql":
                with connection.cursor() as cur:

                    def waiting():
                        # (inside a transaction the statistics views keep one snapshot)
                        cur.execute("SELECT pg_stat_clear_snapshot()")
                        cur.execute(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                            "'Lock' AND datname = current_database()"
                        )
                        return cur.fetchone()[0] > 0

                    wait_for(waiting, what="the worker to wait on the match row")
            else:
                time.sleep(1.5)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=20)
        match.refresh_from_db()
        assert match.version == version, "the killed worker's turn was committed"
        # Another worker gets the unacknowledged task once its visibility timeout is over.
        time.sleep(2.5)
        second = start_worker(env, log, queue)
        wait_for(
            lambda: Match.objects.get(pk=match.pk).version >= version + len(expected),
            timeout=90,
            what="the redelivered bot turn",
        )
        time.sleep(1.0)  # anything extra would show now
    finally:
        stop(first)
        if second is not None:
            stop(second)
        app.amqp.__dict__.pop("router", None)
    match.refresh_from_db()
    stored = [m.action for m in match.moves.filter(ply__gt=version).order_by("ply")]
    assert stored == expected, "the bot turn was not played exactly once"
    assert match.version == version + len(expected)
    # The beat sweep finds nothing left to do.
    assert sweep_stalled_bots() == 0
    match.refresh_from_db()
    assert match.version == version + len(expected)


# --- a game over real HTTP ------------------------------------------------------------------
def child_match(bot: bool) -> tuple[Match, Student]:
    from django.contrib.auth import get_user_model

    school = School.objects.create(name="Fault School")
    teacher = get_user_model().objects.create_user(f"t-{uuid.uuid4().hex[:8]}")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4F")
    child = Student.objects.create(classroom=classroom, name="Ada")
    other = (
        {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "wizard"}
        if bot
        else {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": f"ben-{uuid.uuid4().hex}"}
    )
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": child.seat_key},
        other,
    ]
    return Match.create("multiplipotion", seats, options={"tier": "green"}, seed=21), child


def play_over_http(match, browsers, *, moves=None, stop_before_last=False, allow_refusal=False):
    """Post moves of the people (browsers: seat -> Browser) until the game is over, ``moves``
    were posted, or (``stop_before_last``) the next move would end it. Returns the answers."""
    answers = []
    while len(answers) < (moves or 500):
        match.refresh_from_db()
        if match.is_over:
            break
        seat, state = acting_human(match, set(browsers))
        if seat is None:
            break  # a bot's turn
        action = first_legal(match, seat, state)
        new_state, _ = match.engine.apply(state, seat, action)
        if stop_before_last and match.engine.outcome(new_state) is not None:
            break
        before = match.version
        status, text = browsers[seat].post(
            f"/play/{match.public_id}/move/", move_data(action, before)
        )
        assert status < 500, text[:2000]
        match.refresh_from_db()
        if status == 200:
            assert match.version == before + 1, "an accepted move was not stored"
        else:
            assert allow_refusal, (status, text[:500])
            assert match.version == before and text.strip()
        answers.append(status)
    return answers


# --- (b) Redis stopped mid-game -------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.services
def test_redis_stopped_mid_game(transactional_db, tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server (apt-get install redis-server)")
    from config.celery import app
    from games.tasks import sweep_stalled_bots  # noqa: F401 (its name is sent below)

    redis = RedisServer(tmp_path)
    redis.start()
    port = free_port()
    env = process_env(tmp_path, REDIS_URL=redis.url, CELERY_VISIBILITY_TIMEOUT="5")
    web_log, worker_log = tmp_path / "web.log", tmp_path / "worker.log"
    web = worker = None
    try:
        web = start_web(env, web_log, port)
        worker = start_worker(env, worker_log, "celery")
        base = f"http://127.0.0.1:{port}"
        # Match A: a child against the computer. Match B: a child against a friend.
        match_a, child_a = child_match(bot=True)
        match_b, child = child_match(bot=False)
        ben = match_b.seats.get(number=1).owner_key
        ada_a = Browser(base, "ada-a-key", child=child_a)
        ada = Browser(base, "ada-key", child=child)
        friend = Browser(base, ben)
        for b, m in ((ada_a, match_a), (ada, match_b), (friend, match_b)):
            assert b.get(f"/play/{m.public_id}/", htmx=False)[0] == 200
        # With Redis up: the computer answers through the worker.
        played = play_over_http(match_a, {0: ada_a}, moves=1)
        assert played == [200]
        wait_for(lambda: acting_human(Match.objects.get(pk=match_a.pk), {0})[0] is not None,
                 timeout=60, what="the computer's reply")  # fmt: skip
        play_over_http(match_b, {0: ada, 1: friend}, stop_before_last=True)

        redis.stop()
        # Redis down: every request answers (no 5xx), every accepted move is stored.
        outage = play_over_http(match_a, {0: ada_a}, moves=1, allow_refusal=True)
        outage += play_over_http(match_b, {0: ada, 1: friend}, allow_refusal=True)
        match_b.refresh_from_db()
        assert match_b.is_over, "the last move of match B did not go through"
        for b, m in ((ada_a, match_a), (ada, match_b)):
            status, _ = b.get(f"/play/{m.public_id}/", htmx=False)
            assert status == 200
            status, _ = b.get(f"/play/{m.public_id}/poll/?v=0")
            assert status in (200, 204)
        attempts_b = Attempt.objects.filter(match=match_b).count()
        assert attempts_b > 0  # recorded with the moves, whatever the broker
        assert not FactStat.objects.filter(student=child).exists()  # the task was lost
        match_a.refresh_from_db()
        stalled_version = match_a.version

        redis.start()
        # Back: beat's sweeps (sent as beat sends them) let the computer play its lost turn
        # and build the statistics of the game whose task was lost.
        time.sleep(10.5)  # both sweeps take what has waited for over 10 s
        with app.connection_for_write(redis.url) as conn:
            app.send_task("games.tasks.sweep_stalled_bots", connection=conn, queue="celery")
            app.send_task("classroom.tasks.sweep_missed_stats", connection=conn, queue="celery")
        wait_for(
            lambda: Match.objects.get(pk=match_a.pk).version > stalled_version,
            timeout=90,
            what="the swept bot turn",
        )
        wait_for(lambda: FactStat.objects.filter(student=child).exists(), timeout=90,
                 what="the statistics sweep")  # fmt: skip
        counted = sum(FactStat.objects.filter(student=child).values_list("attempts", flat=True))
        facts = Attempt.objects.filter(student=child).count()
        assert counted == facts, (counted, facts)
        assert "Internal Server Error" not in web_log.read_text()
        print(f"\nRedis outage: answers {outage}; {facts} attempts counted after it returned")
    finally:
        for proc in (web, worker):
            if proc is not None:
                stop(proc)
        redis.stop()


# --- (c) the web server restarted mid-game ---------------------------------------------------
@pytest.mark.slow
def test_web_server_restarted_mid_game(transactional_db, tmp_path):
    port = free_port()
    env = process_env(tmp_path)
    log = tmp_path / "web.log"
    match, child = child_match(bot=False)
    ben = match.seats.get(number=1).owner_key
    web = start_web(env, log, port)
    try:
        base = f"http://127.0.0.1:{port}"
        ada, friend = Browser(base, "ada-key", child=child), Browser(base, ben)
        for b in (ada, friend):
            assert b.get(f"/play/{match.public_id}/", htmx=False)[0] == 200
        assert play_over_http(match, {0: ada, 1: friend}, moves=6) == [200] * 6
        match.refresh_from_db()
        version = match.version
        crash(web)  # not a graceful stop
        web = start_web(env, log, port)
        # The same cookies find the same board: the version the forms carry is the stored one.
        status, page = ada.get(f"/play/{match.public_id}/", htmx=False)
        assert status == 200 and f'name="version" value="{version}"' in page
        status, _ = friend.get(f"/play/{match.public_id}/poll/?v={version}")
        assert status == 204  # nothing changed while the server was away
        play_over_http(match, {0: ada, 1: friend})
        match.refresh_from_db()
        assert match.is_over
        *_, (_m, replayed) = match.replay_states()
        assert match.engine.dump(replayed) == match.state
    finally:
        stop(web)


# --- the cache while Redis is down -------------------------------------------------------------
def test_a_dead_redis_cache_is_a_miss_and_healthz_still_sees_it(client, db, settings):
    from django.core.cache import caches

    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 1,
                "SOCKET_TIMEOUT": 1,
            },
        }
    }
    cache = caches["default"]
    assert cache.get("k", "miss") == "miss"
    cache.set("k", 1)
    assert not cache.add("k", 1) and cache.incr("k") is None and cache.get_many(["k"]) == {}
    # a page that uses the cached session still answers
    assert client.get("/play/new/").status_code == 200
    settings.HEALTHZ_TOKEN = "t"  # the details name what failed
    response = client.get("/healthz", HTTP_AUTHORIZATION="Bearer t")
    assert response.status_code == 503 and "cache" in response.json()["failing"]


# --- (d) PostgreSQL out of reach for a few seconds -------------------------------------------
class CuttableProxy:
    """A TCP proxy of our own (threads, pure Python) on a spare port, between the web server
    and PostgreSQL: ``cut()`` drops every connection through it and closes each new one at
    once, as a database gone away does; ``mend()`` lets them through again. The shared
    PostgreSQL server is never touched, nor any other test's connection."""

    def __init__(self, host: str, port: int):
        self.upstream = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.cut_off = threading.Event()
        self.stopped = threading.Event()
        self.lock = threading.Lock()
        self.open: set[socket.socket] = set()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self.cut_off.is_set():
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            client.settimeout(None)
            server.settimeout(None)
            with self.lock:
                self.open |= {client, server}
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, source: socket.socket, sink: socket.socket):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            self.drop({source, sink})

    def drop(self, sockets):
        with self.lock:
            self.open -= sockets
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def cut(self):
        self.cut_off.set()
        with self.lock:
            sockets = set(self.open)
        self.drop(sockets)

    def mend(self):
        self.cut_off.clear()

    def close(self):
        self.stopped.set()
        self.cut()
        self.listener.close()


def send_until_answered(browser, method, path, data=None, htmx=True):
    """A device's request sent as static/js/app.js sends it: on 503, again after Retry-After
    seconds, then half as long again each time (at most 30 s). Returns the answers' statuses
    and the Retry-After of each 503."""
    statuses, waits, delay = [], [], 0.0
    while True:
        status, _ = browser.request(method, path, data, htmx=htmx)
        statuses.append(status)
        if status != 503:
            return statuses, waits
        after = float(browser.headers["Retry-After"])
        waits.append(after)
        delay = max(after, min(delay * 1.5, 30)) if delay else after
        time.sleep(delay)


@pytest.mark.slow
@pytest.mark.services
def test_postgresql_out_of_reach_for_a_few_seconds(postgres, transactional_db, tmp_path):
    from django.contrib.auth import get_user_model

    from classroom.models import WarmUp

    settings_dict = connection.settings_dict
    proxy = CuttableProxy(settings_dict["HOST"] or "127.0.0.1", int(settings_dict["PORT"] or 5432))
    parts = urlsplit(worker_database_url())
    netloc = parts.netloc.rpartition("@")[0]
    through_proxy = urlunsplit(
        parts._replace(netloc=f"{netloc}@127.0.0.1:{proxy.port}" if netloc else
                       f"127.0.0.1:{proxy.port}")
    )  # fmt: skip
    # Three children, each at a board (their turn, against a friend) and in a warm-up round.
    teacher = get_user_model().objects.create_user(f"t-{uuid.uuid4().hex[:8]}")
    school = School.objects.create(name="Away School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4P")
    devices = []
    for i in range(3):
        child = Student.objects.create(classroom=classroom, name=f"Child {i}")
        seats = [
            {"kind": Seat.Kind.STUDENT, "name": child.name, "owner_key": child.seat_key},
            {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": f"ben-{uuid.uuid4().hex}"},
        ]
        match = Match.create("multiplipotion", seats, options={"tier": "green"}, seed=30 + i)
        if match.to_act() != (0,):
            _, state = acting_human(match, {1})
            match.play(1, first_legal(match, 1, state), version=match.version, follow_ups=False)
            match.refresh_from_db()
        devices.append((child, match, WarmUp.objects.start(child)))

    port = free_port()
    log = tmp_path / "web.log"
    env = process_env(tmp_path, DATABASE_URL=through_proxy, DEBUG="0", LOG_LEVEL="WARNING")
    web = None
    try:
        web = start_web(env, log, port)
        base = f"http://127.0.0.1:{port}"
        sends = []  # (browser, method, path, data, htmx)
        for i, (child, match, warm_up) in enumerate(devices):
            browser = Browser(base, f"device-{i}", child=child)
            status, page = browser.get(f"/me/warm-up/{warm_up.pk}/", htmx=False)
            assert status == 200, page[:500]
            token = re.search(r'name="token" value="([^"]+)"', page).group(1)
            assert browser.get(f"/play/{match.public_id}/", htmx=False)[0] == 200
            _, state = acting_human(match, {0})
            move = move_data(first_legal(match, 0, state), match.version)
            answer = {"token": token, "answer": "7"}
            sends += [
                (browser, "POST", f"/play/{match.public_id}/move/", move, True),
                (browser, "POST", f"/me/warm-up/{warm_up.pk}/", answer, True),
                (browser, "GET", f"/play/{match.public_id}/", None, False),
            ]
        versions = {match.pk: match.version for _, match, _ in devices}

        proxy.cut()
        cut_at = time.monotonic()
        answers: dict[int, tuple] = {}
        with ThreadPoolExecutor(len(sends)) as pool:
            futures = {
                pool.submit(send_until_answered, b, m, p, d, htmx=h): n
                for n, (b, m, p, d, h) in enumerate(sends)
            }
            time.sleep(4.0)  # the database away for 4 s
            proxy.mend()
            mended_at = time.monotonic()
            for future, n in futures.items():
                answers[n] = (*future.result(timeout=60), time.monotonic())
        back_at = max(done for *_, done in answers.values())
        # Sent once more, as if the answer that went through had been lost on its way back.
        again = [b.request(m, p, d, htmx=h)[0] for b, m, p, d, h in sends if m == "POST"]
        assert again == [200, 409] * len(devices), again  # the move as stored; answered already
    finally:
        proxy.close()
        if web is not None:
            stop(web)
    # Every request sent while the database was away: 503 with Retry-After, sent again until
    # it went through; no other 5xx.
    for n, (statuses, waits, _) in answers.items():
        assert statuses[0] == 503 and statuses[-1] == 200, (sends[n][1:3], statuses)
        assert set(statuses[:-1]) == {503} and all(1 <= w <= 30 for w in waits), statuses
    # Every move and every warm-up answer stored exactly once.
    for _child, match, warm_up in devices:
        match.refresh_from_db()
        assert match.version == versions[match.pk] + 1
        assert Attempt.objects.filter(warm_up=warm_up).count() == 1
    move_ids = [data["move_id"] for _, _, path, data, _ in sends if path.endswith("/move/")]
    assert sorted(
        Move.objects.filter(client_move_id__in=move_ids).values_list("client_move_id", flat=True)
    ) == sorted(move_ids)
    text = log.read_text()
    assert "Internal Server Error" not in text and '" 500' not in text
    tries = [len(statuses) for statuses, _, _ in answers.values()]
    print(
        f"\nPostgreSQL away 4.0 s: {len(sends)} requests, {sum(t - 1 for t in tries)} answered "
        f"503 (each {min(tries) - 1}-{max(tries) - 1} times), all through "
        f"{back_at - mended_at:.1f} s after it came back ({back_at - cut_at:.1f} s after the cut)"
    )
