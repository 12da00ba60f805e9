"""Slow and idle clients cannot block a web node (the security issue's item 5).

The attack, on the app server alone (then uvicorn serving ``config.asgi``): connections trickling a
``POST /join/`` body a byte every few seconds each held one of the app's request threads while
the body came, so a few hundred of them made every other request wait; connections that sent
nothing, or half their headers, were never closed, and with a limit of 256 open files a few
hundred of them made every request fail.

Production now runs nginx in front (``deploy/nginx.conf``; docs/deploy.md, "nginx in front of
the app server"). This test starts the production app servers (the commands of docs/deploy.md,
``bench.load.stack.web_args`` for the pages and ``stream_args`` for the streams, each with the
attack's limit of 256 open files) and nginx with the
shipped file (only ports, paths, the user and the balancer's address filled in; the limits and
timeouts as shipped), then makes both attacks at once, each from an address of its own (all
of 127/8 is this machine): more slow bodies than the per-address limit, 150 silent and 150
half-header connections. Meanwhile a device of a school, through the "balancer" (127.0.0.1),
keeps a board's stream open and loads pages and starts games:

- every one of its requests answers (every page 200, every game it starts stored), with a
  p95 under 200 ms, and its stream beats on time;
- the slow bodies never reach the app: nginx holds as many as the per-address limit (its
  access log shows no upstream for any of them) and refuses the rest at once (429);
- nginx closes every idle connection after its header timeout, not before;
- the app is told the device's address as the balancer added it, not one the device made up
  (the log-in lockout records it); a client going round the balancer is not believed to have
  come over HTTPS.

docs/deploy.md has the figures, with those measured without nginx, where the same attacks
block the node (a development measurement, not part of this test).
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import os
import pwd
import re
import resource
import selectors
import shutil
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytestmark = [pytest.mark.services, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
NGINX_CONF = REPO / "deploy" / "nginx.conf"

# Who connects from where: the test's device comes through the "balancer", which reports the
# school's address; the attackers connect directly, each kind from an address of its own.
BALANCER = "127.0.0.1"
SCHOOL = "10.20.30.40"
TRICKLER = "127.0.0.2"
IDLER = "127.0.0.3"
OUTSIDER = "127.0.0.4"
HOST = "127.0.0.1"  # the site's host name, as the balancer passes it on

TRICKLE_EVERY = 2.0  # seconds between two bytes of a slow body
IDLE_SILENT = 150  # connections that send nothing
IDLE_HALF = 150  # connections that send half their headers
P95_LIMIT = 0.200  # seconds
HEARTBEAT = 2  # seconds between two beats of a stream (the app's LIVE_HEARTBEAT_SECONDS)


# --- the shipped nginx configuration ----------------------------------------------------------
def placeholders(text: str) -> set[str]:
    """The ``${NAME}``s of the file's directives (its comments not counted)."""
    directives = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return set(re.findall(r"\$\{(\w+)\}", directives))


def documented_names(text: str) -> set[str]:
    """The names the file's own envsubst command fills in (its header comment)."""
    found = re.search(r"envsubst '([^']*)'", text.replace("\n#", " "))
    assert found, "deploy/nginx.conf no longer shows its envsubst command"
    return set(re.findall(r"\$(\w+)", found.group(1)))


def render(values: dict[str, str]) -> str:
    text = NGINX_CONF.read_text()
    assert placeholders(text) == set(values) == documented_names(text)
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    return text


def shipped_seconds(text: str, directive: str) -> float:
    found = re.search(rf"^\s*{directive}\s+(\d+)s;", text, re.M)
    assert found, f"deploy/nginx.conf sets no {directive}"
    return float(found.group(1))


def shipped_limit(text: str) -> int:
    found = re.search(r"^\s*limit_conn\s+per_address\s+(\d+);", text, re.M)
    assert found, "deploy/nginx.conf sets no limit_conn per_address"
    return int(found.group(1))


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def static_collected(env: dict[str, str]) -> None:
    """``collectstatic`` as production runs it (the manifest storage needs it), unless its
    manifest is newer than every static file of the project: it compresses every file again
    each time, which took 20 s here."""
    from django.conf import settings
    from django.contrib.staticfiles import finders

    from bench.load.stack import collectstatic

    manifest = Path(env.get("VAR_DIR") or settings.VAR_DIR) / "staticfiles" / "staticfiles.json"
    if manifest.exists():
        newest = max(
            os.stat(storage.path(path)).st_mtime
            for finder in finders.get_finders()
            for path, storage in finder.list([])
        )
        if newest < manifest.stat().st_mtime:
            return
    collectstatic(env)


def with_open_files(limit: int, args: list[str]) -> list[str]:
    """``args`` run with at most ``limit`` open files (``ulimit -n``)."""
    return ["sh", "-c", f'ulimit -n {limit} && exec "$@"', "sh", *args]


# --- a device of a school ---------------------------------------------------------------------
class Device:
    """A Chromebook behind the balancer: each request on a new connection from ``address``,
    with the balancer's ``X-Forwarded-For`` and ``X-Forwarded-Proto``; cookies kept by hand
    (the production cookies are Secure), CSRF as htmx sends it."""

    def __init__(self, port: int, address: str = BALANCER, forwarded_for: str | None = SCHOOL):
        self.port = port
        self.address = address
        self.forwarded_for = forwarded_for
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, fields=None, timeout: float = 5.0):
        """-> (status, headers, seconds); status 0 when no answer came."""
        headers = {"Host": HOST, "X-Forwarded-Proto": "https", "HX-Request": "true"}
        if self.forwarded_for:
            headers["X-Forwarded-For"] = self.forwarded_for
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if method == "POST":
            body = urlencode(fields or {})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"https://{HOST}"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        started = time.perf_counter()
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=timeout, source_address=(self.address, 0)
        )
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
        except OSError:
            return 0, {}, time.perf_counter() - started
        finally:
            conn.close()
        elapsed = time.perf_counter() - started
        for raw in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = raw.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, {k.lower(): v for k, v in response.getheaders()}, elapsed


class Stream(threading.Thread):
    """A board's stream of server-sent events, read through nginx: when each event came."""

    def __init__(self, device: Device, path: str):
        super().__init__(daemon=True)
        headers = {"Host": HOST, "X-Forwarded-Proto": "https", "Accept": "text/event-stream"}
        headers["X-Forwarded-For"] = device.forwarded_for or ""
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in device.cookies.items())
        self.conn = http.client.HTTPConnection(
            "127.0.0.1", device.port, timeout=30, source_address=(device.address, 0)
        )
        self.stopped = 0.0
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.events: list[tuple[float, str]] = []

    def run(self) -> None:
        try:
            while line := self.response.readline():
                if line.startswith(b"event: "):
                    self.events.append((time.monotonic(), line[7:].strip().decode()))
        except (OSError, ValueError, http.client.HTTPException):
            pass  # closed by stop()

    def stop(self) -> None:
        self.stopped = self.stopped or time.monotonic()
        if self.conn.sock is not None:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.join(timeout=10)
        self.conn.close()


def school_traffic(device: Device, seconds: float, *, requests: int = 80) -> list:
    """Pages and new games (a database write each, every fourth request) for at least
    ``seconds`` and ``requests`` requests (but no more than three times ``seconds``):
    -> [(kind, status, headers, seconds)]."""
    done = []
    started = time.monotonic()
    i = 0
    while (elapsed := time.monotonic() - started) < seconds or (
        len(done) < requests and elapsed < 3 * seconds
    ):
        if i % 4 == 3:
            fields = {"name": "Ada", "tier": "green", "opponent": "here", "friend_name": "Ben"}
            fields["first"] = "me"
            done.append(("game", *device.request("POST", "/play/new/", fields)))
        else:
            done.append(("page", *device.request("GET", "/join/" if i % 2 else "/play/new/")))
        i += 1
        time.sleep(0.1)
    return done


def p95(seconds: list[float]) -> float:
    ordered = sorted(seconds)
    return ordered[max(0, int(len(ordered) * 0.95 + 0.5) - 1)]


# --- the attackers ----------------------------------------------------------------------------
@dataclass
class Sock:
    kind: str  # "slow body", "silent", "half headers"
    sock: socket.socket
    opened: float
    answer: bytes = b""
    answered: float | None = None
    closed: float | None = None


class Attack(threading.Thread):
    """Slow bodies from ``TRICKLER`` and idle connections from ``IDLER``, all opened by
    ``open()``, then kept (a byte of each body every ``TRICKLE_EVERY`` s) until ``stop()``;
    records when the server answered or closed each."""

    def __init__(self, port: int, *, slow: int, silent: int = IDLE_SILENT, half=IDLE_HALF):
        super().__init__(daemon=True)
        self.port = port
        self.counts = {"slow body": slow, "silent": silent, "half headers": half}
        self.socks: list[Sock] = []
        self.stopping = threading.Event()

    def connect(self, source: str) -> socket.socket:
        return socket.create_connection(
            ("127.0.0.1", self.port), timeout=10, source_address=(source, 0)
        )

    def open(self) -> None:
        body_start = (
            f"POST /join/ HTTP/1.1\r\nHost: {HOST}\r\nX-Forwarded-Proto: https\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n"
            "\r\ncode="
        ).encode()
        half = f"GET /join/ HTTP/1.1\r\nHost: {HOST}\r\n".encode()
        for kind, n in self.counts.items():
            for _ in range(n):
                sock = self.connect(TRICKLER if kind == "slow body" else IDLER)
                if kind == "slow body":
                    sock.sendall(body_start)
                elif kind == "half headers":
                    sock.sendall(half)
                sock.setblocking(False)
                self.socks.append(Sock(kind, sock, time.monotonic()))

    def of(self, kind: str) -> list[Sock]:
        return [s for s in self.socks if s.kind == kind]

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        for s in self.socks:
            selector.register(s.sock, selectors.EVENT_READ, s)
        next_byte = time.monotonic() + TRICKLE_EVERY
        while not self.stopping.is_set():
            for key, _ in selector.select(timeout=0.1):
                s = key.data
                try:
                    data = s.sock.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    s.answered = s.answered or time.monotonic()
                    s.answer += data
                else:
                    s.closed = time.monotonic()
                    selector.unregister(s.sock)
            if time.monotonic() >= next_byte:
                next_byte += TRICKLE_EVERY
                for s in self.of("slow body"):
                    if s.closed is None and s.answered is None:
                        with contextlib.suppress(OSError):  # its close shows on reading
                            s.sock.send(b"x")
        selector.close()

    def stop(self) -> None:
        self.stopping.set()
        if self.is_alive():
            self.join(timeout=10)
        for s in self.socks:
            s.sock.close()


# --- the test ---------------------------------------------------------------------------------
@pytest.fixture
def open_files():
    """This process holds the attackers' sockets: raise its soft limit (as a deploy would)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096
    if hard != resource.RLIM_INFINITY and hard < want:
        pytest.skip(
            f"needs `ulimit -n` {want} for the attackers' sockets (the hard limit is {hard})"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_slow_and_idle_clients_do_not_block_a_web_node(
    postgres, redis_url, transactional_db, tmp_path, open_files
):
    from axes.models import AccessAttempt
    from django.core.management import call_command

    from bench.load.stack import Process
    from bench.load.stack import production_env
    from bench.load.stack import stream_args
    from bench.load.stack import wait_until_up
    from bench.load.stack import web_args
    from games.models import Match

    from ..conftest import worker_database_url

    nginx = nginx_binary()
    if nginx is None:
        pytest.skip("needs nginx: apt-get install nginx-light (.ci/run installs it)")
    shipped = NGINX_CONF.read_text()
    header_timeout = shipped_seconds(shipped, "client_header_timeout")
    body_timeout = shipped_seconds(shipped, "client_body_timeout")
    limit = shipped_limit(shipped)
    # The shape of the shipped values this test relies on (and waits for).
    assert header_timeout <= 15, "idle connections must be closed within seconds"
    assert body_timeout > TRICKLE_EVERY
    assert limit <= 2000, "this test opens more connections than the per-address limit"

    app_port, stream_port, proxy_port = free_port(), free_port(), free_port()
    prefix = tmp_path / "nginx"
    for folder in ("temp", "logs"):
        (prefix / folder).mkdir(parents=True)
    conf = prefix / "nginx.conf"
    call_command("edge_pages", str(prefix / "edge"))
    conf.write_text(
        render(
            {
                "NGINX_USER": pwd.getpwuid(os.getuid()).pw_name,
                "NGINX_LISTEN": f"127.0.0.1:{proxy_port}",
                "NGINX_PID": str(prefix / "nginx.pid"),
                "NGINX_TEMP": str(prefix / "temp"),
                "NGINX_LOGS": str(prefix / "logs"),
                "BALANCER": BALANCER,
                "APP_PAGES": f"127.0.0.1:{app_port}",
                "APP_STREAMS": f"127.0.0.1:{stream_port}",
                "NGINX_PAGES": str(prefix / "edge"),
            }
        )
    )
    env = production_env(
        DATABASE_URL=worker_database_url(),
        FORWARDED_HOPS="1",
        LIVE_HEARTBEAT_SECONDS=str(HEARTBEAT),
    )
    static_collected(env)
    logs = tmp_path / "logs"
    # The app server as in production, with the attack's limit of 256 open files; two workers
    # (production runs twice the cores): each one takes seconds to start, and behind nginx
    # the attack reaches none of them.
    app = Process("app", with_open_files(256, web_args(app_port, workers=2)), env, logs)
    streams = Process("streams", with_open_files(256, stream_args(stream_port)), env, logs)
    proxy = Process(
        "nginx", [nginx, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"], env, logs
    )
    attack = stream = None
    try:
        wait_until_up(f"http://127.0.0.1:{proxy_port}/healthz/web", [app, streams, proxy])
        device = Device(proxy_port)
        for _ in range(12):  # every app worker process warm, the CSRF cookie set
            assert device.request("GET", "/play/new/")[0] == 200
        # A board of the device, with its stream open through the attack.
        fields = {"name": "Ada", "tier": "green", "opponent": "here", "friend_name": "Ben"}
        status, headers, _ = device.request("POST", "/play/new/", {**fields, "first": "me"})
        assert status == 200, headers
        stream = Stream(device, headers["hx-redirect"] + "stream/?v=0")
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
        stream.start()
        games_before = Match.objects.count()

        attack = Attack(proxy_port, slow=limit + 20)
        attack.open()
        attack.start()
        done = school_traffic(device, seconds=header_timeout + 2.5)
        time.sleep(max(0.0, attack.socks[-1].opened + header_timeout + 3 - time.monotonic()))
        attack.stopping.set()
        attack.join(timeout=10)
        stream.stop()

        # The school's device: every answer, every game stored, quickly.
        times = [seconds for *_, seconds in done]
        pages = [status for kind, status, *_ in done if kind == "page"]
        games = [(status, headers) for kind, status, headers, _ in done if kind == "game"]
        print(
            f"\nbehind nginx, {limit + 20} slow bodies and {IDLE_SILENT + IDLE_HALF} idle "
            f"connections: {len(pages)} pages and {len(games)} new games, "
            f"p95 {p95(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
        )
        assert len(done) >= 80, "the device's requests were too slow to send them all"
        assert pages == [200] * len(pages)
        assert all(
            status == 200 and headers.get("hx-redirect", "").startswith("/play/")
            for status, headers in games
        ), games
        assert Match.objects.count() == games_before + len(games)
        assert p95(times) < P95_LIMIT, sorted(times)[-10:]

        # The board's stream: a beat every HEARTBEAT seconds all through the attack.
        beats = [at for at, event in stream.events if event == "beat"]
        gaps = [b - a for a, b in itertools.pairwise([*beats, stream.stopped])]
        assert len(beats) > header_timeout / HEARTBEAT and max(gaps) < HEARTBEAT + 1.5, gaps

        # The slow bodies: nginx holds `limit` of them (no answer, still open), refuses the
        # rest at once.
        slow = attack.of("slow body")
        refused = [s for s in slow if s.answer.startswith(b"HTTP/1.1 429")]
        held = [s for s in slow if s.answered is None and s.closed is None]
        assert len(refused) == len(slow) - limit and len(held) == limit
        assert all(s.answered - s.opened < 2 for s in refused)
        assert all(b"Too many pages are open from your network" in s.answer for s in refused)
        # The idle connections: closed after the header timeout, not before.
        idle = attack.of("silent") + attack.of("half headers")
        assert all(s.closed is not None for s in idle), "nginx kept an idle connection"
        waited = [s.closed - s.opened for s in idle]
        print(f"idle connections closed after {min(waited):.1f}-{max(waited):.1f} s")
        assert header_timeout - 1 <= min(waited) and max(waited) <= header_timeout + 3
        attack.stop()

        # No slow body ever reached the app: nginx logs each with no upstream time.
        access = prefix / "logs" / "access.log"

        def slow_lines():
            return [line for line in access.read_text().splitlines() if line.startswith(TRICKLER)]

        deadline = time.monotonic() + 10
        while len(slow_lines()) < len(slow) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(slow_lines()) == len(slow)
        assert all(line.split()[-2] == "-" for line in slow_lines())

        # The app hears the device's address as the balancer added it, not the one the
        # device made up before it (the log-in lockout records it); a client that goes round
        # the balancer is not believed to have come over HTTPS (it is sent to the HTTPS site).
        AccessAttempt.objects.all().delete()
        liar = Device(proxy_port, forwarded_for=f"203.0.113.9, {SCHOOL}")
        assert liar.request("GET", "/accounts/login/")[0] == 200
        fields = {"username": "nobody@example.com", "password": "not-this-one"}
        assert liar.request("POST", "/accounts/login/", fields)[0] < 500
        addresses = set(AccessAttempt.objects.values_list("ip_address", flat=True))
        assert addresses == {SCHOOL}
        outsider = Device(proxy_port, address=OUTSIDER, forwarded_for=SCHOOL)
        status, headers, _ = outsider.request("GET", "/accounts/login/")
        assert status == 301 and headers["location"].startswith("https://")

        for proc in (app, streams, proxy):
            assert proc.alive(), proc.tail()
        for server in (app, streams):
            log = server.log.read_text(errors="replace")
            assert "Traceback" not in log and "Too many open files" not in log, log[-3000:]
    finally:
        if attack is not None:
            attack.stop()
        if stream is not None:
            stream.stop()
        proxy.stop()
        streams.stop()
        app.stop()
