"""A signed-in child's board and moves: CPU per request, side by side, in one run.

Three requests of a child signed in with their pictures, on a classroom MultipliPotion match
against a classmate (two children's seats: no computer player, nothing sent to Celery):

- ``board``: ``GET /play/<id>/`` with ``HX-Request`` (the board partial);
- ``poll``: ``GET /play/<id>/poll/?v=<an old token>`` with ``HX-Request`` (the poll's full
  answer: the token lookup, then the board);
- ``move``: ``POST /play/<id>/move/``, a legal place on a match of its own (every timed move
  is the first move of a new match; bench/moves.py times moves in the middle of games).

Each goes in process through two servers' paths, with the full middleware stack:

- ``wsgi``: Django's WSGI handler (what the pages' server, a gunicorn gthread worker, runs:
  docs/deploy.md, "Two servers"), the connection kept as the settings say (``CONN_MAX_AGE``);
- ``asgi``: Django's own ``ASGIHandler`` (the stream server's, ``config.asgi``) with
  ``CONN_MAX_AGE=0``, as a page would cost under an ASGI server: a new thread and a new
  database connection a request, and the middleware's thread hops.

The board and the full poll also go through a bare view on the WSGI path (``bench/views.py``:
the same middleware, the same queries and the same check of the seat, no engine view, no
presenter, no template): ``board_vs_bare`` and ``poll_vs_bare`` are the real view's CPU ÷ the
bare view's, the guard against a board that grows dearer (bench/report.py has the goals).

The figure is the CPU time of this process (``time.process_time``: every thread of it, not the
database server's) per request, median over the rounds; the sides alternate within every
round (ABBA), so that a machine that speeds up or slows down weighs on all of them. The
queries of one request of each kind are counted too (``CaptureQueriesContext``, on the WSGI
path). Setup (the children, the matches, the session) is not timed.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
import uuid
from contextlib import contextmanager
from importlib import import_module
from urllib.parse import urlencode

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection
from django.db import connections
from django.test.utils import CaptureQueriesContext
from django.test.utils import override_settings
from django.utils import timezone
from django.utils.crypto import get_random_string

from bench import wsgi

KINDS = ("board", "poll", "move")
SIDES = ("wsgi", "asgi")
# The kinds also timed through a bare view making the same queries (bench/views.py), on the
# WSGI path: ``{kind}_vs_bare`` is the real view's CPU ÷ the bare view's.
BARE_KINDS = ("board", "poll")


def make_world(matches: int):
    """A school, a class, two children, an open session and ``matches`` matches of the two;
    the browser headers of the first child, signed in."""
    from django.contrib.auth import get_user_model

    from classroom.child_session import session_end
    from classroom.languages import CHILD_LANGUAGE
    from classroom.models import Assignment
    from classroom.models import Classroom
    from classroom.models import School
    from classroom.models import Student
    from games.models import Seat

    tag = get_random_string(8)
    teacher = get_user_model().objects.create_user(
        f"bench-{tag}", f"bench-{tag}@example.com", get_random_string(20)
    )
    school = School.objects.create(name=f"Bench {tag}")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="3A")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ben = Student.objects.create(classroom=classroom, name="Ben")
    session = Assignment.objects.create(
        classroom=classroom, created_by=teacher, title="Practice", opens_at=timezone.now()
    )
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": ada.seat_key},
        {"kind": Seat.Kind.STUDENT, "name": "Ben", "owner_key": ben.seat_key},
    ]
    made = [session.new_match(seats, seed=seed) for seed in range(matches)]
    # The session the child's sign-in leaves (classroom.child_session.sign_in_student).
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["student_id"] = ada.pk
    store["signin_generation"] = classroom.signin_generation
    store["signin_key"] = ada.signin_key
    store["player_key"] = get_random_string(24)
    store[CHILD_LANGUAGE] = school.language
    store.set_expiry(session_end(school))
    store.save()
    csrf = get_random_string(32)
    headers = {
        "Cookie": f"{settings.SESSION_COOKIE_NAME}={store.session_key}; "
        f"{settings.CSRF_COOKIE_NAME}={csrf}",
        "X-CSRFToken": csrf,
        "Accept": "text/html",
        "User-Agent": "multiplipotion-bench",
        "HX-Request": "true",
        "HX-Target": "board",
    }
    return made, headers


def place_body(match) -> bytes:
    module = match.engine
    actions = module.legal_actions(module.load(match.state), 0)
    action = next(a for a in actions if a["type"] == "place")
    fields = {**action, "version": match.version, "move_id": uuid.uuid4().hex}
    return urlencode(fields, doseq=True).encode()


class AsgiCaller:
    """Calls an ASGI application in process, on an event loop of its own."""

    def __init__(self, application):
        self.application = application
        self.loop = asyncio.new_event_loop()

    def call(self, method, path, *, query="", body=b"", headers=None) -> tuple[int, bytes]:
        raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        if body:
            raw.append((b"content-type", b"application/x-www-form-urlencoded"))
            raw.append((b"content-length", str(len(body)).encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": raw,
            "client": ("127.0.0.1", 40000),
            "server": ("testserver", 80),
        }
        inbox = [{"type": "http.request", "body": body, "more_body": False}]
        answer = {"status": 0, "body": b""}
        done = asyncio.Event()

        async def receive():
            if inbox:
                return inbox.pop()
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
            elif message["type"] == "http.response.body":
                answer["body"] += message.get("body", b"")
                if not message.get("more_body"):
                    done.set()

        self.loop.run_until_complete(self.application(scope, receive, send))
        return answer["status"], answer["body"]

    def close(self):
        self.loop.close()


class WsgiCaller:
    def __init__(self):
        self.handler = WSGIHandler()

    def call(self, method, path, *, query="", body=b"", headers=None) -> tuple[int, bytes]:
        response = wsgi.call(self.handler, method, path, body=body, headers=headers, query=query)
        return response.status, response.body


@contextmanager
def conn_max_age(seconds):
    """``CONN_MAX_AGE`` for the connections opened meanwhile (a new thread's connection reads
    the settings when it opens; the WSGI path's connection is this thread's)."""
    db = connections.settings["default"]
    before = db["CONN_MAX_AGE"]
    if seconds is not None:
        db["CONN_MAX_AGE"] = seconds
    try:
        yield
    finally:
        db["CONN_MAX_AGE"] = before


def request(caller, kind: str, match, headers, body=b"", *, bare=False) -> tuple[int, bytes]:
    if bare:
        path = f"/bench/bare-{kind}/{match.public_id}/"
        return caller.call("GET", path, query="v=old" if kind == "poll" else "", headers=headers)
    if kind == "board":
        return caller.call("GET", f"/play/{match.public_id}/", headers=headers)
    if kind == "poll":
        return caller.call("GET", f"/play/{match.public_id}/poll/", query="v=old", headers=headers)
    return caller.call("POST", f"/play/{match.public_id}/move/", body=body, headers=headers)


def count_queries(caller, kind, match, headers, body=b"") -> int:
    with CaptureQueriesContext(connection) as queries:
        status, _body = request(caller, kind, match, headers, body)
    if status != 200:
        raise RuntimeError(f"{kind} answered {status}")
    return len(queries)


def bench_renders(quick: bool = False, *, rounds=None, warmup=None, keep_connection=False):
    """Return (figures, details). ``keep_connection``: True inside a test transaction (the
    WSGI path then keeps the test's connection; the ASGI paths' threads open their own, so
    the test database must be a committed one)."""
    from games.models import Seat

    rounds = rounds or (4 if quick else 300)
    warmup = warmup if warmup is not None else (2 if quick else 20)
    total = rounds + warmup
    boards = 4
    matches, headers = make_world(boards + len(SIDES) * total + 2)
    board_matches = matches[:boards]
    move_matches = {
        side: matches[boards + n * total : boards + (n + 1) * total] for n, side in enumerate(SIDES)
    }
    counting = matches[-2:]
    bodies = {side: [place_body(m) for m in move_matches[side]] for side in SIDES}

    callers = {
        "wsgi": WsgiCaller(),
        "asgi": AsgiCaller(ASGIHandler()),
    }
    max_age = {"wsgi": None, "asgi": 0}
    cpu = {(kind, side): [] for kind in KINDS for side in SIDES}
    cpu |= {(kind, "bare"): [] for kind in BARE_KINDS}
    sizes = {}
    with wsgi.keep_connection(keep_connection), override_settings(ROOT_URLCONF="bench.urls"):
        # Counted once the board has been shown (its last_seen_at written) and the session
        # read, as in play: the throttled presence UPDATE is not a board's cost.
        request(callers["wsgi"], "board", counting[0], headers)
        Seat.objects.filter(match=counting[1]).mark_seen()
        queries = {
            "board": count_queries(callers["wsgi"], "board", counting[0], headers),
            "poll": count_queries(callers["wsgi"], "poll", counting[0], headers),
            "move": count_queries(
                callers["wsgi"], "move", counting[1], headers, place_body(counting[1])
            ),
        }
        gc.collect()
        for i in range(total):
            for kind in KINDS:
                sides = (*SIDES, "bare") if kind in BARE_KINDS else SIDES
                order = sides if i % 2 == 0 else tuple(reversed(sides))
                for side in order:
                    match = move_matches[side][i] if kind == "move" else board_matches[i % boards]
                    body = bodies[side][i] if kind == "move" else b""
                    if kind == "move":
                        # The child's device showed this board before the move, and that
                        # wrote the seat's last_seen_at (untimed, as in bench/moves.py).
                        Seat.objects.filter(match=match).mark_seen()
                    bare = side == "bare"
                    caller = callers["wsgi" if bare else side]
                    with conn_max_age(max_age["wsgi" if bare else side]):
                        start = time.process_time()
                        status, content = request(caller, kind, match, headers, body, bare=bare)
                        used = time.process_time() - start
                    if status != 200:
                        raise RuntimeError(f"{kind} on {side} answered {status}: {content[:200]!r}")
                    if i >= warmup:
                        cpu[kind, side].append(used * 1000)
                        sizes[kind, side] = len(content)
    for caller in callers.values():
        if isinstance(caller, AsgiCaller):
            caller.close()
    # The connections of the ended request threads of Django's handler (left open when the
    # test transaction's keep_connection takes close_old_connections off the signals).
    gc.collect()

    figures, details = {}, {"rounds": rounds, "warmup": warmup, "queries": queries, "cpu_ms": {}}
    for kind in KINDS:
        for side in (*SIDES, "bare") if kind in BARE_KINDS else SIDES:
            values = cpu[kind, side]
            median = statistics.median(values)
            figures[f"{kind}_cpu_ms_{side}"] = median
            details["cpu_ms"][f"{kind}_{side}"] = {
                "median": median,
                "mean": statistics.fmean(values),
                "bytes": sizes[kind, side],
            }
        figures[f"{kind}_wsgi_speedup"] = (
            figures[f"{kind}_cpu_ms_asgi"] / figures[f"{kind}_cpu_ms_wsgi"]
        )
        if kind in BARE_KINDS:
            figures[f"{kind}_vs_bare"] = (
                figures[f"{kind}_cpu_ms_wsgi"] / figures[f"{kind}_cpu_ms_bare"]
            )
        figures[f"{kind}_queries"] = queries[kind]
    return figures, details


def main() -> None:
    """``python -m bench.renders``: this benchmark alone, on the bench database
    (bench/environment.py), printed as a table."""
    import sys

    from bench.environment import setup_database

    setup_database()
    quick = "--quick" in sys.argv
    figures, details = bench_renders(quick)
    print(f"{details['rounds']} rounds; CPU ms per request (median)")
    heads = ("wsgi", 7), ("asgi", 7), ("speedup", 8), ("bare", 7), ("÷ bare", 7)
    print(f"{'request':8} " + " ".join(f"{h:>{w}}" for h, w in heads) + " queries")
    for kind in KINDS:
        bare = (
            f"{figures[f'{kind}_cpu_ms_bare']:7.2f} {figures[f'{kind}_vs_bare']:7.2f}"
            if kind in BARE_KINDS
            else f"{'—':>7} {'—':>7}"
        )
        print(
            f"{kind:8} {figures[f'{kind}_cpu_ms_wsgi']:7.2f} "
            f"{figures[f'{kind}_cpu_ms_asgi']:7.2f} "
            f"{figures[f'{kind}_wsgi_speedup']:8.2f} {bare} {figures[f'{kind}_queries']}"
        )


if __name__ == "__main__":
    main()
