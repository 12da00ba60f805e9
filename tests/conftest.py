"""Shared fixtures: real services, a real Celery worker process and a real browser.

Tests that need a server or a browser skip with a stated reason when it is absent.
With REQUIRE_ALL_TESTS=1 (the second run of .ci/run) a skip is turned into a failure.
"""

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

# Playwright's sync API runs an event loop in this thread; Django must still allow
# its ORM calls from the test body.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

BASE_DIR = Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def require_all() -> bool:
    return os.environ.get("REQUIRE_ALL_TESTS", "") not in {"", "0", "false"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if require_all() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped while REQUIRE_ALL_TESTS is set: {reason}"


# --- services -----------------------------------------------------------------------


@pytest.fixture
def postgres(settings):
    if not settings.USING_POSTGRES:
        pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://... (see README)")


@pytest.fixture
def redis_url(settings):
    if not settings.REDIS_URL:
        pytest.skip("needs Redis: set REDIS_URL=redis://... (see README)")
    return settings.REDIS_URL


def worker_database_url() -> str:
    """A DATABASE_URL that points another process at this run's test database."""
    from django.db import connection

    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
def celery_worker(transactional_db):
    """A real Celery worker in its own process, on this run's broker and test database.

    It listens on a queue of its own, so a developer's `make run` cannot steal its tasks.
    Yields the queue name.
    """
    queue = f"test-{uuid.uuid4().hex[:10]}"
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    log = BASE_DIR / "var" / f"{queue}.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo",
             "-Q", queue, "-n", f"{queue}@%h", "--without-gossip", "--without-mingle",
             "-l", "INFO"],
            cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while "ready." not in log.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Celery worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield queue
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.unlink(missing_ok=True)


@pytest.fixture
def celery_routes_to_worker(celery_worker):
    """Send every task of this process (e.g. from the live server thread) to the test worker."""
    from config.celery import app

    old = app.conf.task_routes
    app.conf.task_routes = {"*": {"queue": celery_worker}}
    app.amqp.flush_routes()
    app.amqp.__dict__.pop("router", None)
    yield celery_worker
    app.conf.task_routes = old
    app.amqp.flush_routes()
    app.amqp.__dict__.pop("router", None)


# --- browser ------------------------------------------------------------------------


def chromium_path() -> str | None:
    for candidate in (
        os.environ.get("CHROMIUM_PATH"),
        shutil.which("chromium"),
        "/usr/bin/chromium",
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        pytest.skip("needs Debian's chromium (apt-get install chromium) for browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, live_server):
    """A 1366×768 touch-capable page that records console errors and foreign requests."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    pg = context.new_page()
    pg.console_errors = []
    pg.foreign_requests = []
    origin = live_server.url
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.on(
        "request",
        lambda r: (
            None
            if r.url.startswith(origin) or r.url.startswith("data:")
            else pg.foreign_requests.append(r.url)
        ),
    )
    pg.set_default_timeout(10_000)
    yield pg
    context.close()
