"""Simulated children for locust (headless, FastHttpUser). Run by bench/load/run.py:

    LOAD_CHILDREN=children.json LOAD_SUMMARY=summary.json \\
    locust -f bench/load/locustfile.py --headless -u N -r R -t 300s --host http://127.0.0.1:8100

Every user is one child of the JSON file written by bench/load/seed.py. It signs in as a child
does (class page, three pictures), taps "Play" in its game session (which sends it to the match
it was paired into), loads the play screen, and then does what the page does: poll the board
as its poller says (``/poll/?v=<token>``, 204 while nothing changed; every second, every 3 s
on the child's own turn) and, on its turn, make a move about every 5 s (place a card, capture
with a right multiplication when it can, end the turn), each a POST with the version and the
move id of the form, as htmx sends it. When the game is over it taps "Play" again and waits in
the waiting room (polled every 2 s) for a new partner.

The server runs with DJANGO_ENV=production (secure cookies, HTTPS behind a proxy): requests
carry ``X-Forwarded-Proto: https`` as the proxy would, and cookies are kept by hand (the
client's jar would not send secure cookies over plain HTTP to localhost).

Measures (written as JSON to LOAD_SUMMARY when the run stops):
- every request's time by kind; the step's verdict uses the requests after the ramp-up;
- ``update_latency``: a move sent by one seat → the first poll of the other seat whose board
  has that version (the time a child waits to see the partner's move).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from locust import FastHttpUser
from locust import constant
from locust import events
from locust import task

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.load.board import Board

CHILDREN = json.loads(Path(os.environ.get("LOAD_CHILDREN", "children.json")).read_text())
SUMMARY = os.environ.get("LOAD_SUMMARY", "")
THINK_S = float(os.environ.get("LOAD_THINK_S", "5"))
WAITING_POLL_S = 2.0  # the waiting room's hx-trigger="every 2s"
NEXT_CHILD = itertools.count()

# --- what the run records (one process: the users share these) ---------------------------
SAMPLES: list[tuple[float, str, float, bool]] = []  # (time, kind, ms, ok)
ERRORS: dict[str, int] = {}
UPDATE_LATENCY: list[tuple[float, float]] = []  # (time seen, ms)
SENT: dict[tuple[str, int], tuple[float, int]] = {}  # (match, version) -> (sent at, seat)
COUNTS = {"moves": 0, "games_finished": 0, "signed_in": 0, "repaired": 0}
STARTED = {"spawned_at": None, "start": time.time()}


@events.request.add_listener
def _record(request_type, name, response_time, response_length, exception=None, **kwargs):
    ok = exception is None
    SAMPLES.append((time.time(), name, float(response_time), ok))
    if not ok:
        key = f"{name}: {str(exception)[:120]}"
        ERRORS[key] = ERRORS.get(key, 0) + 1


@events.spawning_complete.add_listener
def _spawned(user_count, **kwargs):
    STARTED["spawned_at"] = time.time()


@events.quitting.add_listener
def _write_summary(environment, **kwargs):
    if SUMMARY:
        Path(SUMMARY).write_text(json.dumps(summary(), indent=1), encoding="utf-8")


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest rank, as bench/moves.py."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def summary() -> dict:
    settle = float(os.environ.get("LOAD_SETTLE_S", "5"))
    steady_from = (STARTED["spawned_at"] or STARTED["start"]) + settle
    steady = [s for s in SAMPLES if s[0] >= steady_from]
    kinds: dict[str, dict] = {}
    for name in sorted({s[1] for s in SAMPLES}):
        all_ms = [s[2] for s in SAMPLES if s[1] == name]
        steady_ms = [s[2] for s in steady if s[1] == name]
        kinds[name] = {
            "count": len(all_ms),
            "failures": sum(1 for s in SAMPLES if s[1] == name and not s[3]),
            "p50_ms": percentile(all_ms, 50),
            "p95_ms": percentile(all_ms, 95),
            "max_ms": max(all_ms) if all_ms else None,
            "steady_count": len(steady_ms),
            "steady_p95_ms": percentile(steady_ms, 95),
        }
    steady_ms = [s[2] for s in steady]
    window = (SAMPLES[-1][0] - steady_from) if steady and SAMPLES else 0
    latency = [ms for at, ms in UPDATE_LATENCY if at >= steady_from]
    return {
        "children": len(CHILDREN),
        "requests": len(SAMPLES),
        "failures": sum(1 for s in SAMPLES if not s[3]),
        "errors": ERRORS,
        "p95_ms": percentile(steady_ms, 95),
        "p50_ms": percentile(steady_ms, 50),
        "p99_ms": percentile(steady_ms, 99),
        "all_p95_ms": percentile([s[2] for s in SAMPLES], 95),
        "steady_requests": len(steady_ms),
        "steady_seconds": window,
        "requests_per_s": len(steady_ms) / window if window > 0 else None,
        "update_latency_p95_ms": percentile(latency, 95),
        "update_latency_p50_ms": percentile(latency, 50),
        "update_latency_samples": len(latency),
        "kinds": kinds,
        **COUNTS,
    }


class Child(FastHttpUser):
    """One child on one Chromebook."""

    wait_time = constant(0)
    # The server is on localhost: one keep-alive connection per child, as a browser tab.
    concurrency = 1

    def on_start(self):
        self.rng = random.Random()
        self.me = CHILDREN[next(NEXT_CHILD) % len(CHILDREN)]
        self.cookies: dict[str, str] = {}
        self.match = self.me["match"]
        self.seat = self.me["seat"]
        self.seen_version = 0
        self.sign_in()
        self.play_page()

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
    def sign_in(self):
        me = self.me
        page = f"/join/{me['code']}/{me['student']}/"
        self.request("GET", page, "sign-in page", {200}, htmx=False)
        fields = [("pictures", p) for p in me["pictures"]]
        response = self.request("POST", page, "sign-in pictures", {200}, fields=fields)
        if response.headers and response.headers.get("HX-Redirect"):
            COUNTS["signed_in"] += 1
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
        self.board = Board(response.text or "")
        self.seen_version = self.board.version or 0
        self.turn_seen_at = time.monotonic()

    def saw(self, board: Board) -> None:
        """A board came back from a poll: time the partner's moves it shows for the first time."""
        if board.version is None:
            return
        now = time.time()
        for version in range(self.seen_version + 1, board.version + 1):
            sent = SENT.get((self.match, version))
            if sent is not None and sent[1] != self.seat:
                UPDATE_LATENCY.append((now, (now - sent[0]) * 1000))
        self.seen_version = max(self.seen_version, board.version)

    @task
    def play(self):
        """Poll as the board's poller says (every second, every 3 s on this child's own turn);
        on this child's turn, a move about every THINK_S seconds. Every new board (a move's
        answer, a poll that brought one) is a new poller element whose timer starts afresh,
        as in htmx; a 204 leaves the element, and its timer, as they were."""
        next_poll = time.monotonic() + self.board.poll_s
        move_at = time.monotonic() + self.think()
        while True:
            board = self.board
            if board.over:
                COUNTS["games_finished"] += 1
                time.sleep(self.rng.uniform(2, 6))  # reads the result, taps "Back", "Play"
                self.tap_play()
                COUNTS["repaired"] += 1
                self.play_page()
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
                self.poll()
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

    def poll(self):
        token = self.board.token or str(self.board.version or 0)
        response = self.request("GET", f"/play/{self.match}/poll/?v={token}", "poll", {200, 204})
        if response.status_code == 200 and response.text:
            board = Board(response.text)
            self.saw(board)
            self.board = board

    def move(self, board: Board, action: list[tuple[str, str]]):
        version = board.version or 0
        SENT[(self.match, version + 1)] = (time.time(), self.seat)
        fields = [*action, ("version", str(version)), ("move_id", board.move_id)]
        response = self.request(
            "POST", f"/play/{self.match}/move/", f"move {action[0][1]}", {200}, fields=fields
        )
        if response.status_code == 200 and response.text:
            COUNTS["moves"] += 1
            self.board = Board(response.text)
            self.seen_version = max(self.seen_version, self.board.version or 0)
        else:
            SENT.pop((self.match, version + 1), None)
