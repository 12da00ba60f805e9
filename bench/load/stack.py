"""The production setup on this machine, for the load and scale-out tests: each web node's two
servers (docs/deploy.md, "Two servers": gunicorn's threaded workers serving the pages,
``config.wsgi``; uvicorn serving the streams, ``config.asgi``, on a port of its own that the
pages name, ``LIVE_STREAM_ORIGIN=:<port>``, as make run does without a proxy) with
``DJANGO_ENV=production``, and a Celery worker, on the database and Redis of the calling
process's ``DATABASE_URL`` and ``REDIS_URL``.

Ports are taken from 8100-8199 (``LOAD_PORTS`` changes the range, e.g. ``8100-8199``).
Every process is started by us and stopped by its own pid.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from contextlib import suppress
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def port_range() -> range:
    low, _, high = os.environ.get("LOAD_PORTS", "8100-8199").partition("-")
    return range(int(low), int(high or low) + 1)


def free_port(exclude=()) -> int:
    for port in port_range():
        if port in exclude:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {port_range()}")


def production_env(**extra: str) -> dict[str, str]:
    """The environment of a production web or worker process on this machine. Requests come
    from localhost as if through the TLS proxy (``X-Forwarded-Proto: https``)."""
    env = {
        **os.environ,
        "DJANGO_ENV": "production",
        # config.settings with the tasks on a queue of this run's own (see queue_settings.py)
        "DJANGO_SETTINGS_MODULE": "bench.load.queue_settings",
        "LOAD_TASK_QUEUE": f"load-{secrets.token_hex(5)}",
        "SECRET_KEY": os.environ.get("LOAD_SECRET_KEY") or secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        # Connections kept as in production (each gunicorn thread keeps its own: docs/deploy.md);
        # LOAD_CONN_MAX_AGE overrides it (0: a connection a request).
        "CONN_MAX_AGE": os.environ.get("LOAD_CONN_MAX_AGE", "60"),
    }
    env.pop("DEBUG", None)
    env.update(extra)
    return env


def collectstatic(env: dict[str, str]) -> None:
    """The manifest storage of production needs the collected files."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=REPO,
        env=env,
        check=True,
    )


def get(url: str, timeout: float = 2.0) -> int:
    request = urllib.request.Request(url, headers={"X-Forwarded-Proto": "https"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # localhost only
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


class Process:
    """A child process with its log file; stopped by its own pid (and its process group)."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log_dir: Path):
        self.name = name
        self.log = Path(log_dir) / f"{name}.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                args,
                cwd=REPO,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: we stop exactly what we started
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM, timeout: float = 20) -> None:
        if self.proc.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def web_args(port: int, workers: int | None = None) -> list[str]:
    """The pages' server as production runs it (docs/deploy.md: gunicorn with
    config/gunicorn.conf.py serving ``config.wsgi``) on a local port; ``workers`` overrides its
    number of processes (twice the cores)."""
    args = [
        sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi",
        "--bind", f"127.0.0.1:{port}", "--graceful-timeout", "5", "--log-level", "warning",
    ]  # fmt: skip
    return args + (["--workers", str(workers)] if workers else [])


def stream_args(port: int) -> list[str]:
    """The stream server as production runs it (docs/deploy.md: uvicorn serving
    ``config.asgi``, one process) on a local port."""
    return [
        sys.executable, "-m", "uvicorn", "config.asgi:application", "--reset-contextvars",
        "--host", "127.0.0.1", "--port", str(port), "--no-access-log", "--log-level", "warning",
        "--timeout-keep-alive", "10", "--timeout-graceful-shutdown", "5",
    ]  # fmt: skip


def start_web(
    port: int, stream_port: int, env, log_dir, *, workers=None, name=None
) -> list[Process]:
    """One web node without a proxy: the pages on ``port``, the streams on ``stream_port``
    (named to the pages: ``LIVE_STREAM_ORIGIN``). Both count as the web's CPU (``web-``)."""
    workers = workers or int(os.environ.get("LOAD_WEB_WORKERS", "0"))
    env = {**env, "LIVE_STREAM_ORIGIN": f":{stream_port}"}
    name = name or f"web-{port}"
    return [
        Process(name, web_args(port, workers), env, log_dir),
        Process(f"{name}-streams", stream_args(stream_port), env, log_dir),
    ]


def start_worker(env, log_dir, *, name="worker") -> Process:
    """One Celery worker process (prefork, one child) on the run's task queue."""
    args = [
        sys.executable, "-m", "celery", "-A", "config", "worker", "-c", "1",
        "-n", f"{name}-{os.getpid()}@%h", "--without-gossip", "--without-mingle", "-l", "INFO",
    ]  # fmt: skip
    if env.get("LOAD_TASK_QUEUE"):
        args += ["-Q", env["LOAD_TASK_QUEUE"]]
    return Process(name, args, env, log_dir)


def wait_until_up(url: str, procs: list[Process], timeout: float = 60, want=(200,)) -> None:
    deadline = time.monotonic() + timeout
    while True:
        status = get(url)
        if status in want:
            return
        for proc in procs:
            if not proc.alive():
                raise RuntimeError(f"{proc.name} stopped:\n{proc.tail()}")
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {p.name}\n{p.tail()}" for p in procs)
            raise RuntimeError(f"{url} answered {status} after {timeout} s\n{logs}")
        time.sleep(0.3)


@contextmanager
def production_stack(
    log_dir: Path, *, web_servers: int = 1, worker: bool = True, env_extra=None, **web_kw
):
    """Start ``web_servers`` web nodes (each its pages' and its streams' server, on ports of
    their own, one SECRET_KEY) and a Celery worker; wait until ``/healthz`` answers 200
    (database, cache, broker and the worker's heartbeat), yield ``{"urls": [...], "procs":
    [...], "env": {...}}`` (the pages' URLs), stop them all.
    ``env_extra`` (e.g. the test database's DATABASE_URL) goes to every process."""
    env = production_env(**(env_extra or {}))
    collectstatic(env)
    procs: list[Process] = []
    ports: list[int] = []
    try:
        if worker:
            procs.append(start_worker(env, log_dir))
        taken: list[int] = []
        for _ in range(web_servers):
            port = free_port(exclude=taken)
            stream_port = free_port(exclude=[*taken, port])
            ports.append(port)
            taken += [port, stream_port]
            procs += start_web(port, stream_port, env, log_dir, **web_kw)
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        for url in urls:
            # Without a worker /healthz is 503 (no heartbeat) but the server is up.
            wait_until_up(f"{url}/healthz", procs, want=(200,) if worker else (200, 503))
        yield {"urls": urls, "procs": procs, "env": env}
    finally:
        for proc in reversed(procs):
            proc.stop()
