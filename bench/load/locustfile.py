"""Simulated children for locust (headless, FastHttpUser). Run by bench/load/run.py:

    LOAD_CHILDREN=children.json LOAD_SUMMARY=summary.json \\
    locust -f bench/load/locustfile.py --headless -u N -r R -t 300s --host http://127.0.0.1:8100

Every user is one child of the JSON file written by bench/load/seed.py. It signs in as a child
does (class page, three pictures), taps "Play" in its game session (which sends it to the match
it was paired into), loads the play screen, and then does what the board does:

- a pushed page (``sse-connect`` on the ``.live-stream`` around its board; docs/platform.md,
  "Live updates") holds its server-sent-events stream open (``/play/<id>/stream/?v=<token>``,
  read by a greenlet of its own on a socket of its own, as a browser's EventSource) for as
  long as the page is on screen: the boards swapped in (a move's answer, a fetched board)
  keep listening on it. An event ``changed`` with a token other than the board's makes the
  board fetch itself once (``/poll/?v=<token>``, the "board GET"); it still asks every
  ``safety`` ms (the safety poll). A stream that says nothing (no event, no heartbeat) for
  ``data-live-stale`` ms counts as a failure and is opened again;
- a polling board (no push) asks as its poller says (every second, every 3 s on the child's
  own turn; 204 while nothing changed).

On its turn, a move about every 5 s (place a card, capture with a right multiplication when it
can, end the turn), each a POST with the version and the move id of the form, as htmx sends
it. When the game is over it taps "Play" again and waits in the waiting room (polled every 2 s)
for a new partner.

The server runs with DJANGO_ENV=production (secure cookies, HTTPS behind a proxy): requests
carry ``X-Forwarded-Proto: https`` as the proxy would, and cookies are kept by hand (the
client's jar would not send secure cookies over plain HTTP to localhost).

Records (written as JSON to LOAD_SUMMARY when the run stops; bench/load/run.py sums up the
records of every load process, ``summarize``):
- every request's time, stamped with when it was sent; its name says its kind (move, board
  GET, stream connect, page: ``bench.load.run.kind_of``); a stream's time is from its request
  to its first event (the board is live from then on);
- ``update_latency``: a move's answer to the mover → the other seat's board showing it (its
  stream's event and its board GET, or its poll); also from the move's request, for reference.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlencode
from urllib.parse import urlsplit

import gevent
from gevent import socket as gsocket
from gevent.queue import Empty
from gevent.queue import Queue
from locust import FastHttpUser
from locust import constant
from locust import events
from locust import task
from locust.exception import StopUser

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.load.board import Board
from bench.load.sse import sse_events

CHILDREN = json.loads(Path(os.environ.get("LOAD_CHILDREN", "children.json")).read_text())
SUMMARY = os.environ.get("LOAD_SUMMARY", "")
THINK_S = float(os.environ.get("LOAD_THINK_S", "5"))
WAITING_POLL_S = 2.0  # the waiting room's hx-trigger="every 2s"
NEXT_CHILD = itertools.count()

# --- what the run records (one process: the users share these) ---------------------------
SAMPLES: list[tuple[float, str, float, bool]] = []  # (time sent, name, ms, ok)
ERRORS: dict[str, int] = {}
UPDATE_LATENCY: list[tuple[float, float, float]] = []  # (time seen, ms from answer, from send)
SENT: dict[tuple[str, int], list] = {}  # (match, version) -> [sent at, answered at, seat]
COUNTS = {
    "moves": 0,
    "games_finished": 0,
    "signed_in": 0,
    "sign_in_retries": 0,
    "sign_in_given_up": 0,
    "repaired": 0,
    "streams_opened": 0,
    "stream_events": 0,
    "boards_pushed": 0,
    "boards_polled": 0,
}
STARTED = {"spawned_at": None, "start": time.time()}


@events.request.add_listener
def _record(request_type, name, response_time, response_length, exception=None, **kwargs):
    ok = exception is None
    # Stamped with when it was sent: a sign-in sent during the ramp-up stays out of the
    # verdict even when its answer comes after.
    SAMPLES.append((time.time() - response_time / 1000, name, float(response_time), ok))
    if not ok:
        key = f"{name}: {str(exception)[:120]}"
        ERRORS[key] = ERRORS.get(key, 0) + 1


@events.spawning_complete.add_listener
def _spawned(user_count, **kwargs):
    STARTED["spawned_at"] = time.time()


@events.quitting.add_listener
def _write_summary(environment, **kwargs):
    if SUMMARY:
        Path(SUMMARY).write_text(json.dumps(raw()), encoding="utf-8")


def raw() -> dict:
    """Everything this process recorded; bench/load/run.py merges the processes' and sums up
    (``summarize``)."""
    return {
        "children": len(CHILDREN),
        "samples": SAMPLES,
        "update_latency": UPDATE_LATENCY,
        "counts": COUNTS,
        "errors": ERRORS,
        "spawned_at": STARTED["spawned_at"] or STARTED["start"],
    }


def fire(name: str, started: float, exception=None, length: int = 0) -> None:
    events.request.fire(
        request_type="GET",
        name=name,
        response_time=(time.perf_counter() - started) * 1000,
        response_length=length,
        exception=exception,
        context={},
    )


class Stream:
    """One board's EventSource: ``GET <url>`` on a socket of its own, read by a greenlet that
    puts ``(stream, event, data)`` in the child's inbox. Its time (request → first event) is
    recorded as "stream connect"; a refusal or an end the child did not ask for, as a failure."""

    def __init__(self, child: Child, url: str):
        self.child, self.url = child, url
        self.closed = False
        self.sock = None
        self.greenlet = gevent.spawn(self.run)

    def close(self) -> None:
        self.closed = True
        self.greenlet.kill(block=False)
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()

    def request_bytes(self, host: str, path: str) -> bytes:
        headers = self.child.headers(htmx=False)
        headers.update({"Host": host, "Accept": "text/event-stream", "Cache-Control": "no-cache"})
        if "://" in self.url:  # the stream server on a port of its own: a browser says whence
            headers["Origin"] = self.child.host.rstrip("/")
        lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
        return "\r\n".join(lines).encode()

    def run(self) -> None:
        started = time.perf_counter()
        first = True
        try:
            # The page's server, or the stream server's origin when the page names one.
            parts = urlsplit(self.url if "://" in self.url else self.child.host)
            url = urlsplit(self.url)
            path = url.path + (f"?{url.query}" if url.query else "")
            self.sock = gsocket.create_connection((parts.hostname, parts.port), timeout=60)
            self.sock.sendall(self.request_bytes(parts.netloc, path))
            reader = self.sock.makefile("rb")
            status = reader.readline().decode("latin-1").split()
            headers = {}
            while True:
                line = reader.readline().decode("latin-1").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            if len(status) < 2 or status[1] != "200":
                code = status[1] if len(status) > 1 else "no answer"
                fire("stream connect", started, RuntimeError(f"{code}"))
                self.child.inbox.put((self, "refused", code))
                return
            self.sock.settimeout(None)  # the child watches the heartbeats itself
            chunked = "chunked" in headers.get("transfer-encoding", "")
            for event, data in sse_events(reader, chunked):
                if first:
                    first = False
                    fire("stream connect", started)
                    COUNTS["streams_opened"] += 1
                COUNTS["stream_events"] += 1
                self.child.inbox.put((self, event, data))
        except (OSError, ValueError) as exc:
            if not self.closed:
                if first:
                    fire("stream connect", started, exc)
                self.child.inbox.put((self, "ended", str(exc)[:80]))
            return
        if not self.closed:
            if first:
                fire("stream connect", started, RuntimeError("ended before its first event"))
            self.child.inbox.put((self, "ended", "by the server"))


class Child(FastHttpUser):
    """One child on one Chromebook."""

    wait_time = constant(0)
    # The server is on localhost: one keep-alive connection per child, as a browser tab (the
    # board's stream is a second connection, as a browser's EventSource).
    concurrency = 1

    def on_start(self):
        self.rng = random.Random()
        self.me = CHILDREN[next(NEXT_CHILD) % len(CHILDREN)]
        self.cookies: dict[str, str] = {}
        self.match = self.me["match"]
        self.seat = self.me["seat"]
        self.seen_version = 0
        self.inbox: Queue = Queue()
        self.stream: Stream | None = None
        self.sign_in()
        self.play_page()

    def on_stop(self):
        self.close_stream()

    # --- HTTP with the cookies and headers of a browser behind the school's HTTPS proxy ----
    def headers(self, htmx: bool, post: bool = False) -> dict[str, str]:
        h = {"X-Forwarded-Proto": "https", "Accept-Encoding": "identity"}
        if self.cookies:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if htmx:
            h["HX-Request"] = "true"
        if post:
            h["Content-Type"] = "application/x-www-form-urlencoded"
            h["Origin"] = self.host.replace("http://", "https://")
            h["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        return h

    def keep_cookies(self, response) -> None:
        if response.headers is None:
            return
        for raw in response.headers.getlist("set-cookie"):
            name, _, rest = raw.partition("=")
            value = rest.split(";", 1)[0]
            if value in {"", '""'} or "max-age=0" in raw.lower():
                self.cookies.pop(name.strip(), None)
            else:
                self.cookies[name.strip()] = value

    def request(self, method, path, kind, expect, *, htmx=True, fields=None):
        """One request; a status outside ``expect`` is an error. Returns the response."""
        body = urlencode(fields or [], doseq=True) if method == "POST" else None
        with self.client.request(
            method,
            path,
            name=kind,
            data=body,
            headers=self.headers(htmx, post=method == "POST"),
            catch_response=True,
            allow_redirects=False,
        ) as response:
            self.keep_cookies(response)
            if response.status_code not in expect:
                response.failure(f"{response.status_code}")
            else:
                response.success()
        return response

    # --- the child's day ----------------------------------------------------------------
    def sign_in(self, tries: int = 3):
        """The class page and the three pictures. A sign-in the server did not answer (an
        error, a refusal) is tried again a few seconds later, as the child taps the pictures
        again; after ``tries`` the child stops, rather than play a board that is not theirs
        (every later request of it would fail: 404, and count against the server). Every
        failed answer is still recorded."""
        me = self.me
        page = f"/join/{me['code']}/{me['student']}/"
        fields = [("pictures", p) for p in me["pictures"]]
        for attempt in range(tries):
            if attempt:
                COUNTS["sign_in_retries"] += 1
                time.sleep(self.rng.uniform(2, 5))
            self.request("GET", page, "sign-in page", {200}, htmx=False)
            response = self.request("POST", page, "sign-in pictures", {200}, fields=fields)
            if response.headers and response.headers.get("HX-Redirect"):
                COUNTS["signed_in"] += 1
                break
        else:
            COUNTS["sign_in_given_up"] += 1
            raise StopUser()
        self.tap_play()

    def tap_play(self):
        """The session's Play button: to the child's match, or the waiting room."""
        response = self.request("POST", f"/me/play/{self.me['assignment']}/", "play button", {200})
        target = (response.headers or {}).get("HX-Redirect", "") or ""
        waited = 0.0
        while "/play/" not in target and waited < 120:
            time.sleep(WAITING_POLL_S)
            waited += WAITING_POLL_S
            response = self.request(
                "GET", f"/me/waiting/{self.me['assignment']}/", "waiting room", {200}
            )
            target = (response.headers or {}).get("HX-Redirect", "") or ""
        match = re.search(r"/play/(\w+)/", target)
        if match:
            self.match = match.group(1)

    def play_page(self):
        response = self.request("GET", f"/play/{self.match}/", "play page", {200}, htmx=False)
        self.show(Board(response.text or ""))
        self.seen_version = self.board.version or 0

    def show(self, board: Board) -> None:
        """A new board on screen. A play page opens the page's stream; the boards swapped in
        after it (a move's answer, a fetched board) keep listening on it, as the page's
        ``.live-stream`` does in the browser (docs/platform.md, "Live updates")."""
        self.board = board
        if board.stream_url:
            self.stream_path, self.stale_s = board.stream_url, board.stale_s
            self.open_stream(board.stream_url)

    def open_stream(self, url: str) -> None:
        self.close_stream()
        self.stream = Stream(self, url)
        self.heard_at = time.monotonic()

    def reopen_stream(self) -> None:
        """The page's stream again, after it ended, was refused or went silent: asked with the
        board's token and a count, as static/js/app.js does."""
        self.retries = getattr(self, "retries", 0) + 1
        base = self.stream_path.split("?")[0]
        self.open_stream(f"{base}?v={self.board.token or ''}&retry={self.retries}")

    def close_stream(self) -> None:
        if getattr(self, "stream", None) is not None:
            self.stream.close()
            self.stream = None

    def saw(self, board: Board) -> None:
        """A board came back from a board GET: time the partner's moves it shows first."""
        if board.version is None:
            return
        now = time.time()
        for version in range(self.seen_version + 1, board.version + 1):
            sent = SENT.get((self.match, version))
            if sent is not None and sent[2] != self.seat:
                # Seen before the mover had its answer: 0 from the answer.
                from_answer = max(0.0, now - sent[1]) * 1000 if sent[1] else 0.0
                UPDATE_LATENCY.append((now, from_answer, (now - sent[0]) * 1000))
        self.seen_version = max(self.seen_version, board.version)

    def game_over(self) -> None:
        COUNTS["games_finished"] += 1
        self.close_stream()
        time.sleep(self.rng.uniform(2, 6))  # reads the result, taps "Back", "Play"
        self.tap_play()
        COUNTS["repaired"] += 1
        self.play_page()

    @task
    def play(self):
        if self.board.pushed:
            self.play_pushed()
        else:
            self.play_polling()

    def play_pushed(self):
        """The board listens on its stream; a ``changed`` event with another token fetches
        it once; a safety poll every ``safety_s``; a move about every THINK_S seconds on this
        child's turn. Events of a stream already replaced are ignored (the page closed it)."""
        next_safety = time.monotonic() + self.board.safety_s
        move_at = time.monotonic() + self.think()
        while True:
            board = self.board
            if board.over:
                self.game_over()
                next_safety = time.monotonic() + self.board.safety_s
                move_at = time.monotonic() + self.think()
                continue
            if not self.board.pushed:  # push switched off: the board polls
                return self.play_polling()
            action = board.next_action(self.rng)
            now = time.monotonic()
            if action is not None and now >= move_at:
                self.move(board, action)
                move_at = time.monotonic() + self.think()
                if self.board is not board:  # a new poller: its safety timer starts now
                    next_safety = time.monotonic() + self.board.safety_s
                continue
            stale_at = self.heard_at + self.stale_s
            wake = min(next_safety, stale_at, move_at if action is not None else next_safety)
            try:
                stream, event, data = self.inbox.get(timeout=max(0.0, wake - now))
            except Empty:
                stream = None
            now = time.monotonic()
            if stream is not None and stream is self.stream:
                self.heard_at = now
                if event == "changed" and data != board.token:
                    self.board_get("board GET")
                elif event in {"refused", "ended"}:  # a refusal was recorded by the stream
                    if event == "ended":
                        fire("stream ended", time.perf_counter(), RuntimeError(data))
                    time.sleep(1.0)
                    self.reopen_stream()  # as the page would, after its fallback
            elif now >= stale_at and self.stream is not None:
                # Nothing heard for data-live-stale ms: the board would fall back to polling.
                fire("stream stale", time.perf_counter(), RuntimeError("no event, no heartbeat"))
                self.reopen_stream()
            if time.monotonic() >= next_safety:
                self.board_get("board GET (safety)")
                next_safety = time.monotonic() + self.board.safety_s
            if self.board is not board:
                next_safety = time.monotonic() + self.board.safety_s

    def board_get(self, name: str) -> None:
        """The board fetches itself (``/poll/?v=<token>``): 204 when it has that token."""
        token = self.board.token or str(self.board.version or 0)
        response = self.request("GET", f"/play/{self.match}/poll/?v={token}", name, {200, 204})
        if response.status_code == 200 and response.text:
            board = Board(response.text)
            self.saw(board)
            COUNTS["boards_pushed" if name == "board GET" else "boards_polled"] += 1
            self.show(board)

    def play_polling(self):
        """Poll as the board's poller says (every second, every 3 s on this child's own turn);
        on this child's turn, a move about every THINK_S seconds. Every new board (a move's
        answer, a poll that brought one) is a new poller element whose timer starts afresh,
        as in htmx; a 204 leaves the element, and its timer, as they were."""
        next_poll = time.monotonic() + self.board.poll_s
        move_at = time.monotonic() + self.think()
        while True:
            board = self.board
            if board.over:
                self.game_over()
                next_poll = time.monotonic() + self.board.poll_s
                move_at = time.monotonic() + self.think()
                continue
            action = board.next_action(self.rng)
            now = time.monotonic()
            if action is not None and now >= move_at and now < next_poll:
                self.move(board, action)
                move_at = time.monotonic() + self.think()
                if self.board is not board:  # swapped in: its poller starts counting now
                    next_poll = time.monotonic() + self.board.poll_s
                continue
            wake = min(next_poll, move_at) if action is not None else next_poll
            if wake > now:
                time.sleep(wake - now)
            if time.monotonic() >= next_poll:
                next_poll += board.poll_s
                if next_poll < time.monotonic():  # we are late: htmx's timer kept its beat
                    next_poll = time.monotonic() + board.poll_s
                was_my_turn = board.my_turn
                self.board_get("poll")
                if self.board is not board:
                    next_poll = time.monotonic() + self.board.poll_s
                else:
                    # A tick that fell while this poll was in flight is dropped
                    # (hx-sync="closest #board:drop"): the next one is on the beat after.
                    while next_poll <= time.monotonic():
                        next_poll += board.poll_s
                if self.board.my_turn and not was_my_turn:
                    move_at = time.monotonic() + self.think()

    def think(self) -> float:
        return self.rng.uniform(0.6 * THINK_S, 1.4 * THINK_S)

    def move(self, board: Board, action: list[tuple[str, str]]):
        version = board.version or 0
        sent = SENT[(self.match, version + 1)] = [time.time(), None, self.seat]
        fields = [*action, ("version", str(version)), ("move_id", board.move_id)]
        response = self.request(
            "POST", f"/play/{self.match}/move/", f"move {action[0][1]}", {200}, fields=fields
        )
        if response.status_code == 200 and response.text:
            sent[1] = time.time()
            COUNTS["moves"] += 1
            self.show(Board(response.text))
            self.seen_version = max(self.seen_version, self.board.version or 0)
        else:
            SENT.pop((self.match, version + 1), None)
