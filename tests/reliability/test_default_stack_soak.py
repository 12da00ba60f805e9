"""The development stack as `make run` starts it (honcho, the Procfile: the pages' and the
streams' servers, a Celery worker and beat), with no servers: SQLite and the embedded broker
(config/broker.py).

- the embedded broker under concurrent writers: every message arrives, the consumer never
  fails (kombu's own filesystem transport fails here within a second);
- a soak: STACK_SOAK_TABLES (10) family games with computer players at once for
  STACK_SOAK_SECONDS (25 in the suite, 1200 in `make soak`): no worker crash, no bot turn
  lost, no request without an answer;
- a worker killed mid-game: the web server stays up, the worker is started again and the
  computers' turns are caught up;
- on PostgreSQL, the pages' server keeps a bounded number of database connections.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .conftest import count

BASE_DIR = Path(__file__).absolute().parent.parent.parent
DRIVER = Path(__file__).with_name("stack_soak_driver.py")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_env(var_dir: Path, **extra) -> dict:
    """The environment of `make run` with nothing configured: no DATABASE_URL, no REDIS_URL."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="config.settings", **extra)
    return env


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def answers(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (127.0.0.1)
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


class Stack:
    """`honcho start -f Procfile` in a directory of its own, as `make run` runs it."""

    def __init__(self, tmp_path: Path):
        self.var_dir = tmp_path / "var"
        self.var_dir.mkdir()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = default_env(
            self.var_dir,
            APP_PORT=str(self.port),
            APP_STREAM_PORT=str(free_port()),  # the stream server's, as make run gives it
            PYTHONUNBUFFERED="1",
        )
        self.log = tmp_path / "honcho.log"
        self.proc = None

    def start(self):
        python = BASE_DIR / ".venv" / "bin" / "python"
        if not python.exists():
            pytest.skip("the Procfile runs .venv/bin/python: run `make install` first")
        migrate = subprocess.run(
            [str(python), "manage.py", "migrate", "--noinput"],
            cwd=BASE_DIR, env=self.env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert migrate.returncode == 0, migrate.stdout[-2000:] + migrate.stderr[-2000:]
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [str(python), "-m", "honcho", "start", "-f", "Procfile"],
                cwd=BASE_DIR, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        wait_for(lambda: self.text().count("ready.") >= 1 or self.proc.poll() is not None,
                 timeout=120, what="the worker")  # fmt: skip
        wait_for(
            lambda: answers(f"{self.base}/healthz/web") == 200, timeout=60, what="the pages' server"
        )
        assert self.proc.poll() is None, self.text()[-3000:]
        return self

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def worker_starts(self) -> int:
        return self.text().count("ready.")

    def worker_pids(self) -> list[int]:
        """The Celery worker's main process and its pool (children of the Procfile's loop)."""
        shells = [int(line.rsplit("pid=", 1)[1].rstrip(")")) for line in self.text().splitlines()
                  if "worker.1 started (pid=" in line]  # fmt: skip
        main = children(shells[-1]) if shells else []
        return main + [pid for m in main for pid in children(m)]

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # Ctrl+C
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def drive(self, tables: int, seconds: float, **env) -> dict:
        """Run the family games (stack_soak_driver.py) and return its figures."""
        result = subprocess.run(
            [sys.executable, str(DRIVER), self.base, str(tables), str(seconds)],
            cwd=BASE_DIR, env={**self.env, **env}, capture_output=True, text=True,
            timeout=seconds + 300,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-3000:]
        return json.loads(result.stdout.strip().splitlines()[-1])


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


@pytest.fixture
def stack(tmp_path):
    running = Stack(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def crashes(log: str) -> list[str]:
    return [
        line
        for line in log.splitlines()
        if "Unrecoverable error" in line or "CRITICAL" in line or "the worker stopped" in line
    ]


# --- the embedded broker ------------------------------------------------------------------
def test_the_embedded_broker_never_hands_out_a_half_written_message(tmp_path):
    """Two producer processes and a consumer that takes each message as soon as it appears,
    on the broker of the default settings. kombu's own filesystem transport hands out an
    empty file here within a second (JSONDecodeError, the worker's crash of issue 18)."""
    result = subprocess.run(
        [sys.executable, str(DRIVER), "broker", "1000", "2"],
        cwd=BASE_DIR, env=default_env(tmp_path), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["error"] == "", figures
    assert figures["received"] == figures["sent"] == 2000, figures


# --- the soak -----------------------------------------------------------------------------
@pytest.mark.slow
def test_family_games_with_computers_on_the_default_stack(stack):
    tables = count("STACK_SOAK_TABLES", 10)
    seconds = count("STACK_SOAK_SECONDS", 25)
    stack.start()
    figures = stack.drive(tables, seconds)
    log = stack.text()
    print(f"\nDefault stack soak: {json.dumps(figures)}; worker starts {stack.worker_starts()}")
    assert crashes(log) == [], crashes(log)[:5]
    assert stack.worker_starts() == 1, "the worker was started again: it died"
    assert figures["error_count"] == 0, figures["errors"]
    assert figures["lost"] == 0, figures
    assert figures["bot_turns"] > 0 and figures["human_moves"] > 0, figures
    assert figures["finished"] > 0, figures
    assert "Traceback" not in log, log[log.index("Traceback") - 500 :][:3000]


# --- a worker that dies anyway ------------------------------------------------------------
@pytest.mark.slow
def test_a_dead_worker_is_started_again_and_the_computers_catch_up(stack):
    stack.start()
    seconds = 75
    figures = {}
    # A computer's turn may wait for beat's sweep (every 20 s, for a turn idle for 10 s),
    # not longer: lost means no move for 60 s.
    driver = threading.Thread(
        target=lambda: figures.update(stack.drive(3, seconds, SOAK_LOST_AFTER="60"))
    )
    driver.start()
    time.sleep(15)
    pids = stack.worker_pids()
    assert pids, stack.text()[-3000:]
    for pid in pids:  # as a power cut would: no warm shutdown, the task in hand is lost
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: stack.worker_starts() >= 2, timeout=60, what="the worker started again")
    driver.join(timeout=seconds + 300)
    print(f"\nWorker killed mid-game: {json.dumps(figures)}")
    assert stack.proc.poll() is None, "honcho stopped the stack"
    assert answers(f"{stack.base}/healthz/web") == 200
    assert figures["error_count"] == 0, figures["errors"]  # the web server answered throughout
    assert figures["lost"] == 0, figures
    assert figures["bot_turns"] > 0, figures


# --- database connections of the development server ----------------------------------------
@pytest.mark.services
def test_the_development_server_keeps_few_database_connections(postgres, db, tmp_path):
    """The pages' server as the Procfile starts it keeps at most one connection a thread
    (CONN_MAX_AGE), whatever the number of requests. (runserver once opened a thread a request,
    each keeping its connection: 84 requests left 85 idle connections, "too many clients".)"""
    import runpy
    from urllib.parse import urlsplit
    from urllib.parse import urlunsplit

    from django.db import connection

    test_database = urlsplit(os.environ["DATABASE_URL"])._replace(
        path=f"/{connection.settings_dict['NAME']}"
    )
    web = next(
        line.split(":", 1)[1].strip()
        for line in (BASE_DIR / "Procfile").read_text().splitlines()
        if line.startswith("web:")
    )
    port = free_port()
    env = default_env(tmp_path, APP_PORT=str(port), DATABASE_URL=urlunsplit(test_database))
    conf = runpy.run_path(str(BASE_DIR / "config" / "gunicorn.conf.py"))
    threads = conf["workers"] * conf["threads"]
    log = (tmp_path / "web.log").open("w")
    proc = subprocess.Popen(["/bin/sh", "-c", web], cwd=BASE_DIR, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        wait_for(lambda: answers(f"http://127.0.0.1:{port}/healthz/web") == 200, 60, "gunicorn")
        for _ in range(100):
            assert answers(f"http://127.0.0.1:{port}/healthz/web") == 200
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            (kept,) = cursor.fetchone()
        print(f"\nthe pages' server after 101 requests: {kept} connections open, {threads} threads")
        assert 1 <= kept <= threads, f"{kept} connections kept open by {threads} threads"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()
