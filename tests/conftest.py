"""Shared fixtures: real services, a real Celery worker process and a real browser.

Tests that need a server or a browser skip with a stated reason when it is absent.
With REQUIRE_ALL_TESTS=1 (the second run of .ci/run) a skip is turned into a failure.
"""

import asyncio
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

import pytest
from browser_kit import record_errors
from django.conf import settings
from django.test.utils import override_settings
from expected import ALL

# The test-only game, Pebbles (tests/plugins/pebbles/), is registered as every game is: by its
# line in INSTALLED_APPS. The registry, and every test that loops over it, then has six games.
override_settings(INSTALLED_APPS=[*settings.INSTALLED_APPS, "pebbles"]).enable()

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


@pytest.fixture(autouse=True)
def _no_wrong_codes_counted():
    """Every test types codes from 127.0.0.1 with a clean count (config/throttle.py)."""
    from config import throttle

    throttle.forget("127.0.0.1")


FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """Hashing a password the production way takes ~0.3 s; tests make many users."""
    settings.PASSWORD_HASHERS = FAST_HASHERS


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


def stop_process(proc) -> None:
    """Stop a process this test started: SIGTERM, then SIGKILL after 20 seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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
        # what the worker sends itself (a computer's move ending a game sends the game's
        # statistics task) comes back to this worker, as one queue carries all in production
        "CELERY_TASK_DEFAULT_QUEUE": queue,
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
        stop_process(proc)
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


@pytest.fixture(scope="session", autouse=True)
def _threads_let_the_test_database_go(django_db_setup):
    """Threads that outlive a test keep their database connections: the streams' threads
    (``games.stream.pooled``) and asgiref's one thread for synchronous views called by the
    async test client outside a request context. They are closed before the test database is
    dropped (PostgreSQL will not drop a database with sessions on it)."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    from games.stream import close_pool_connections

    close_pool_connections()
    SyncToAsync.single_thread_executor.submit(connections.close_all).result(10)


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


@pytest.fixture(autouse=True)
def _no_playwright_loop_outside_browser_tests(request):
    """Playwright's sync API (the session's ``browser``) leaves its event loop marked as running
    in the worker's main thread once a browser test has run there, and Django's test client
    cannot call an async view (a board's stream) from a thread with a running loop. A test
    that does not use the browser runs with no loop marked; the mark is put back after it."""
    loop = asyncio._get_running_loop()
    if loop is None or "browser" in request.fixturenames:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


BROWSER_POLL_SECONDS = 0.25


@pytest.fixture(autouse=True)
def _browser_boards_poll_faster(request):
    """In a browser test a polling board asks four times a second, not once (LIVE_POLL_SECONDS):
    the tests wait for the other side's moves, mostly for the next poll. The intervals the
    product uses are tested in tests/games/test_play_views.py."""
    if request.node.get_closest_marker("browser") is None:
        yield
        return
    settings_ = request.getfixturevalue("settings")
    settings_.LIVE_POLL_SECONDS = BROWSER_POLL_SECONDS
    yield


@pytest.fixture
def page(browser, live_server):
    """A 1366×768 touch-capable page that records console errors and foreign requests."""
    context = browser.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    pg = context.new_page()
    pg.console_errors = []
    pg.foreign_requests = []
    origin = live_server.url
    record_errors(pg, pg.console_errors)
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


# --- the world of the authorization matrix --------------------------------------------------

ROLES = ALL  # tests/matrix/expected.py: every role, in this order


def without_tokens(html: str) -> str:
    """``html`` without its random 64-character tokens (the CSRF token, in forms and in
    ``hx-headers``), so a test can say a short name is *not* on a page without failing when
    the name turns up by chance inside a token."""
    import re

    return re.sub(r"[A-Za-z0-9]{64}", "", html)


def child_client(student, player_key="", **kwargs):
    """A test client with `student` signed in, as the child sign-in leaves the session."""
    from django.test import Client

    client = Client(**kwargs)
    session = client.session
    session["student_id"] = student.pk
    session["signin_generation"] = student.classroom.signin_generation
    session["signin_key"] = student.signin_key
    session["player_key"] = player_key or f"key-{student.pk}"
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client


class World:
    """Two schools. School A: admin_a, teacher_a (class A: child_a in group A, child_a2) and
    teacher_b (class B: child_b). School B: admin_b. Plus a superuser. An assignment and a
    match (child_a against the computer) in class A, a finished match of child_b, an invite."""

    def __init__(self):
        from django.contrib.auth import get_user_model
        from django.utils import timezone

        from classroom.models import Assignment
        from classroom.models import Classroom
        from classroom.models import Group
        from classroom.models import Invite
        from classroom.models import Membership
        from classroom.models import School
        from classroom.models import Student
        from games.models import Match
        from games.models import Seat

        User = get_user_model()
        self.password = "correct-horse-battery-9"
        self._sessions = {}  # log_in's sessions, by user, password and language

        def user(name, school=None, role=Membership.Role.TEACHER, **extra):
            u = User.objects.create_user(
                name, f"{name}@example.com", self.password, first_name=name.title(), **extra
            )
            if school is not None:
                Membership.objects.create(user=u, school=school, role=role)
            return u

        self.school_a = School.objects.create(name="School A")
        self.school_b = School.objects.create(name="School B")
        self.admin_a = user("admin_a", self.school_a, Membership.Role.ADMIN)
        self.admin_b = user("admin_b", self.school_b, Membership.Role.ADMIN)
        self.teacher_a = user("teacher_a", self.school_a)
        self.teacher_b = user("teacher_b", self.school_a)
        self.superuser = user("root", is_superuser=True, is_staff=True)
        self.class_a = Classroom.objects.create(
            school=self.school_a, teacher=self.teacher_a, name="3A"
        )
        self.class_b = Classroom.objects.create(
            school=self.school_a, teacher=self.teacher_b, name="3B"
        )
        self.group_a = Group.objects.create(classroom=self.class_a, name="Owls")
        self.child_a = Student.objects.create(
            classroom=self.class_a, name="Ada", group=self.group_a
        )
        self.child_a2 = Student.objects.create(classroom=self.class_a, name="Ali")
        self.child_b = Student.objects.create(classroom=self.class_b, name="Bea")
        self.invite_a = Invite.objects.create(school=self.school_a, created_by=self.admin_a)
        self.assignment_a = Assignment.objects.create(
            classroom=self.class_a,
            created_by=self.teacher_a,
            title="Practice",
            opens_at=timezone.now(),
        )
        self.match_a = self.assignment_a.new_match(
            [
                {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": self.child_a.seat_key},
                {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
            ],
            options={"tier": "green"},
            seed=1,
        )
        self.match_b = Match.create(
            "multiplipotion",
            [
                {"kind": Seat.Kind.STUDENT, "name": "Bea", "owner_key": self.child_b.seat_key},
                {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
            ],
            options={"tier": "green"},
            seed=2,
        )
        self.match_b.seats.filter(number=0).update(kind=Seat.Kind.BOT, bot_level="wizard")
        self.match_b.play_bot_turns()

    def client(self, role: str):
        from django.test import Client

        if role in {"child_a", "child_b"}:
            return child_client(getattr(self, role), player_key=f"key-{role}")
        client = Client()
        if role != "anonymous":
            # The user as stored now: a test that changed the shared object in memory (a new
            # password, rolled back in the database) must not log the next tests' clients out.
            user = getattr(self, role)
            self.log_in(client, type(user).objects.get(pk=user.pk))
        return client

    def log_in(self, client, user) -> None:
        """``client.force_login(user)``, made cheaper: the session a log-in leaves is made
        once per user, password and language and copied into a new session for each client
        (a log-in cycles the session key, runs the signals and writes ``last_login``: about
        20 ms on PostgreSQL and Redis, and the bad-input fuzz asks for thousands)."""
        from importlib import import_module

        from classroom.models import Preferences

        language = Preferences.objects.filter(user=user).values_list("language", flat=True)
        key = (user.pk, user.get_session_auth_hash(), language.first())
        data = self._sessions.get(key)
        if data is None:
            client.force_login(user)
            self._sessions[key] = dict(client.session.items())
            return
        session = import_module(settings.SESSION_ENGINE).SessionStore()
        session.update(data)
        session.save()
        client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key


@pytest.fixture(scope="module")
def _module_world(django_db_setup, django_db_blocker):
    """One World per test module, rolled back at its end; each test runs in a savepoint. Its
    users' passwords are hashed the tests' fast way too (this fixture runs before the
    per-test ``_fast_password_hasher``: seven production hashes were about 2 s a module)."""
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
            world = World()
        yield world
        transaction.set_rollback(True)


@pytest.fixture
def world(_module_world, db):
    return _module_world
