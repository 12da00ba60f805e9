"""Each pytest-xdist worker gets its own files, Redis database and load-test ports.

`make test` runs the suite on every core (``-n auto`` in the Makefile). pytest-django gives
each worker its own test database (``test_<name>_gw0``, ``_gw1``, ...); this plugin separates
the rest, before Django reads its settings (hence a ``-p`` plugin, not a conftest: pytest-django
loads the settings before any conftest is imported). The worker's environment changes, so the
processes a test starts (Celery workers, gunicorn servers) inherit the same separation:

* ``VAR_DIR`` -> ``<VAR_DIR>/xdist-gw<N>``: the SQLite test database, the file cache, the
  filesystem Celery broker, ``collectstatic``'s output.
* ``REDIS_URL`` -> database number + N (``redis://host:6379/9`` -> ``/9`` for gw0, ``/10`` for
  gw1): the cache (sessions, the room-code throttle, presence keys built from row ids that
  repeat across the workers' databases) and the Celery broker (kombu's unacked-message
  bookkeeping is per Redis database: a test's short visibility timeout must not redeliver
  another worker's tasks).
* ``LOAD_PORTS`` (bench/load/stack.py, 8100-8199) -> one slice of the range per worker, so two
  workers never pick the same free port for their gunicorn servers.

With ``-n 0`` (one process) nothing changes. Redis has 16 databases unless configured
otherwise: a run whose workers would go past database 15 stops with a message (set
``-n`` lower, a lower database in ``REDIS_URL``, or start Redis with ``--databases``).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl
from urllib.parse import urlencode
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]
REDIS_DATABASES = int(os.environ.get("REDIS_DATABASES", "16"))  # redis.conf's "databases"


def worker_redis_url(url: str, index: int) -> str:
    """``url`` with its database number (path ``/N`` or ``?db=N``, default 0) moved up by
    ``index``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(key == "db" for key, _ in query):
        query = [(k, str(int(v) + index) if k == "db" else v) for k, v in query]
        return urlunsplit(parts._replace(query=urlencode(query)))
    db = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{db + index}"))


def redis_db(url: str) -> int:
    """The database number of a Redis URL (path ``/N`` or ``?db=N``, default 0)."""
    parts = urlsplit(url)
    for key, value in parse_qsl(parts.query):
        if key == "db":
            return int(value)
    return int(parts.path.strip("/") or 0)


def worker_ports(ports: str, index: int, count: int) -> str:
    """Slice ``index`` of ``count`` of the port range ``low-high``."""
    low, _, high = ports.partition("-")
    low, high = int(low), int(high or low)
    size = (high - low + 1) // count
    if size < 1:
        raise pytest.UsageError(f"LOAD_PORTS={ports} has fewer ports than xdist workers")
    start = low + index * size
    return f"{start}-{start + size - 1}"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or os.environ.get("XDIST_WORKER_ENV") == worker:
        return
    index = int(worker[2:])
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    var_dir = Path(os.environ.get("VAR_DIR") or BASE_DIR / "var") / f"xdist-{worker}"
    os.environ["VAR_DIR"] = str(var_dir)
    if os.environ.get("REDIS_URL"):
        last = worker_redis_url(os.environ["REDIS_URL"], count - 1)
        if redis_db(last) > REDIS_DATABASES - 1:
            raise pytest.UsageError(
                f"{count} xdist workers need Redis databases up to {last}; Redis has "
                f"{REDIS_DATABASES} by default. Use fewer workers (-n) or a lower database."
            )
        os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"], index)
    os.environ["LOAD_PORTS"] = worker_ports(os.environ.get("LOAD_PORTS", "8100-8199"), index, count)
    os.environ["XDIST_WORKER_ENV"] = worker  # done once per worker process
