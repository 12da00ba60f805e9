"""Plays family games with computer players against a running stack, as families would.

Run by tests/reliability/test_default_stack_soak.py in a process of its own, with the same
environment as the stack it drives (its database and broker): ``python
tests/reliability/stack_soak_driver.py BASE_URL GAMES SECONDS``. (``... broker COUNT
PRODUCERS`` races producers against a consumer on the settings' broker instead.) Each of
GAMES tables has a person (one browser, over HTTP) and computers (played by the stack's Celery
worker); a table that ends starts a new game. The person posts a move as soon as it is their
turn and the board polls as an open page does. Prints one JSON line of figures:

- ``bot_turns``: moves the computers played; ``human_moves``: moves the people posted;
- ``lost``: waits for a computer longer than LOST_AFTER seconds (the worker never played
  the turn its task asked for; beat's sweep may have caught it up later);
- ``max_bot_wait``: the longest wait for a computer, in seconds;
- ``errors``: answers of 500 and above, and requests that got no answer at all.
"""

import json
import os
import random
import sys
import threading
import time
import uuid
from pathlib import Path

BASE_DIR = Path(__file__).absolute().parent.parent.parent
LOST_AFTER = float(os.environ.get("SOAK_LOST_AFTER", "30"))

# (game, options, computers): a person and this many computer players.
TABLES = [
    ("muertoons", {}, 3),
    ("multiplipotion", {"tier": "green"}, 1),
    ("trono", {}, 2),
    ("mortadelo", {}, 2),
    ("munchkin", {}, 2),
]


class Figures:
    def __init__(self):
        self.lock = threading.Lock()
        self.games = self.finished = self.bot_turns = self.human_moves = self.lost = 0
        self.max_bot_wait = 0.0
        self.errors: list[str] = []

    def add(self, **counts):
        with self.lock:
            for name, value in counts.items():
                if name == "max_bot_wait":
                    self.max_bot_wait = max(self.max_bot_wait, value)
                elif name == "error":
                    self.errors.append(value)
                else:
                    setattr(self, name, getattr(self, name) + value)


def person_move(match, seat: int, state) -> dict:
    """What the person plays: the best computer level's choice (seeded: repeatable)."""
    module = match.engine
    level = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
    rng = random.Random(f"person:{seat}:{match.version}")
    legal = module.legal_actions(state, seat)
    return module.bot_action(module.view(state, seat), legal, level, rng)


def move_form(action: dict, version: int) -> dict:
    data = {"version": str(version), "move_id": uuid.uuid4().hex}
    for key, value in action.items():
        data[key] = [str(v) for v in value] if isinstance(value, list | tuple) else str(value)
    return data


def new_table(index: int):
    from games.models import Match
    from games.models import Seat

    game, options, computers = TABLES[index % len(TABLES)]
    key = f"soak-{index}-{uuid.uuid4().hex[:8]}"
    seats = [{"kind": Seat.Kind.GUEST, "name": "Ada", "owner_key": key}] + [
        {"kind": Seat.Kind.BOT, "name": f"Computer {i + 1}", "bot_level": None}
        for i in range(computers)
    ]
    from games import registry

    for seat in seats[1:]:
        module = registry.get(game).rules
        seat["bot_level"] = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
    return Match.create(game, seats, options=options, family=True), key


def play_game(index: int, base: str, deadline: float, figures: Figures):
    """One game at table ``index``, until it ends or the time is up."""
    from http_client import Browser  # beside this script, which Python runs as a file

    from games.models import Move
    from games.models import Seat

    match, key = new_table(index)
    figures.add(games=1)
    browser = Browser(base, key, store="cached_db", timeout=60)
    if (status := browser.request("GET", f"/play/{match.public_id}/", htmx=False)[0]) >= 500:
        figures.add(error=f"GET board {status}")
    waiting_since = None
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if match.is_over:
            figures.add(finished=1)
            break
        state = match.engine.load(match.state)
        if 0 in match.engine.to_act(state):
            if waiting_since is not None:
                figures.add(max_bot_wait=time.monotonic() - waiting_since)
                waiting_since = None
            form = move_form(person_move(match, 0, state), match.version)
            status = browser.request("POST", f"/play/{match.public_id}/move/", form)[0]
            if status >= 500:
                figures.add(error=f"POST move {status}")
            elif status == 200:
                figures.add(human_moves=1)
            continue
        # A computer's turn: the board polls, as an open page does.
        now = time.monotonic()
        if waiting_since is None:
            waiting_since = now
        elif now - waiting_since > LOST_AFTER:
            figures.add(lost=1, max_bot_wait=now - waiting_since)
            waiting_since = now  # the next LOST_AFTER seconds count as another
        status = browser.request("GET", f"/play/{match.public_id}/poll/?v={match.version}")[0]
        if status >= 500:
            figures.add(error=f"GET poll {status}")
        time.sleep(0.5)
    bots = match.seats.filter(kind=Seat.Kind.BOT).values("number")
    figures.add(bot_turns=Move.objects.filter(match=match, seat__in=bots).count())


def play_table(index: int, base: str, deadline: float, figures: Figures):
    from django.db import close_old_connections

    while time.monotonic() < deadline:
        try:
            play_game(index, base, deadline, figures)
        except Exception as exc:  # a refused connection, a timeout: the stack did not answer
            figures.add(error=f"{type(exc).__name__}: {exc}")
            time.sleep(1)
        finally:
            close_old_connections()


def produce(count: int):
    """One process sending ``count`` messages to the ``race`` queue of the settings' broker."""
    with broker_connection() as conn:
        queue = conn.SimpleQueue("race")
        for i in range(count):
            queue.put({"i": i, "pad": "x" * 1000})
            time.sleep(0.002)


def broker_connection():
    from django.conf import settings
    from kombu import Connection

    return Connection(
        settings.CELERY_BROKER_URL,
        transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS,
    )


def broker_race(count: int, producers: int):
    """Producers in processes of their own, one consumer taking each message as soon as it
    is there (as a worker does): the consumer must get every message and never fail."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    procs = [context.Process(target=produce, args=(count,)) for _ in range(producers)]
    got, started, error = 0, time.monotonic(), ""
    with broker_connection() as conn:
        queue = conn.SimpleQueue("race")
        queue.clear()
        for proc in procs:
            proc.start()
        try:
            while got < count * producers and time.monotonic() - started < 120:
                try:
                    message = queue.get(timeout=0.01)
                except queue.Empty:
                    continue
                message.ack()
                got += 1
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        for proc in procs:
            proc.join(timeout=60) if not error else proc.kill()
    result = {"sent": count * producers, "received": got, "error": error}
    result["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(result), flush=True)


def main():
    sys.path.insert(0, str(BASE_DIR))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if sys.argv[1] == "broker":
        broker_race(int(sys.argv[2]), int(sys.argv[3]))
        return
    base, games, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    figures = Figures()
    started = time.monotonic()
    deadline = started + seconds
    threads = [
        threading.Thread(target=play_table, args=(i, base, deadline, figures), daemon=True)
        for i in range(games)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    result = {
        "tables": games,
        "seconds": round(time.monotonic() - started),
        "games": figures.games,
        "finished": figures.finished,
        "bot_turns": figures.bot_turns,
        "human_moves": figures.human_moves,
        "lost": figures.lost,
        "max_bot_wait": round(figures.max_bot_wait, 1),
        "errors": figures.errors[:20],
        "error_count": len(figures.errors),
    }
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
