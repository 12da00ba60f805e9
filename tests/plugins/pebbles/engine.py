"""Pebbles, the test-only game's rules: each player holds three secret pebbles worth 1 to 6;
in turn each puts one on the table face up; once every hand is empty the highest total wins.

Small on purpose, but it has what the platform's tests look for: hidden hands, 2 or 3 players,
two computer levels, and event texts written once (``EVENT_TEXTS``, ``gettext_noop``
templates filled from the event's fields; the presenter translates the same template).
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.base import IllegalAction
from games.engine.base import check_bot_call
from games.engine.base import describe_with
from games.engine.base import gettext_noop
from games.engine.base import load_checked
from games.engine.base import ngettext_noop

SLUG = "pebbles"
NAME = "Pebbles"
MIN_PLAYERS = 2
MAX_PLAYERS = 3
OPTIONS: dict[str, dict] = {}
LEVELS = ["random", "greedy"]
BEST_LEVEL = "greedy"
HAND = 3
# Every pebble: its value and a letter (three of each value), e.g. "pb5b".
ALL_IDS = [f"pb{value}{copy}" for value in range(1, 7) for copy in "abc"]

EVENT_TEXTS = {
    "played": ngettext_noop(
        "%(who)s put a pebble worth %(n)s point on the table.",
        "%(who)s put a pebble worth %(n)s points on the table.",
    ),
    "won": gettext_noop("%(who)s wins with %(total)s."),
    "draw": gettext_noop("It is a draw at %(total)s."),
}

State = dict[str, Any]
Action = dict[str, Any]


def value(card: str) -> int:
    return int(card[2])


def setup(players: int, seed: int, options: dict | None = None) -> State:
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError("players must be a whole number")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Pebbles takes {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if options:
        raise ValueError(f"Pebbles has no option {next(iter(options))!r}")
    deck = list(ALL_IDS)
    random.Random(f"{seed}:deal").shuffle(deck)
    hands = [sorted(deck[i * HAND : (i + 1) * HAND]) for i in range(players)]
    return {
        "game": SLUG,
        "players": players,
        "hands": hands,
        "stock": sorted(deck[players * HAND :]),
        "table": [[] for _ in range(players)],
        "current": 0,
        "result": None,
    }


def cards(state: State) -> list[str]:
    """Test support: every pebble anywhere."""
    out = list(state["stock"])
    for group in (*state["hands"], *state["table"]):
        out.extend(group)
    return out


def to_act(state: State) -> tuple[int, ...]:
    return () if state["result"] else (state["current"],)


def legal_actions(state: State, seat: int) -> list[Action]:
    if seat not in to_act(state):
        return []
    return [{"type": "play", "card": card} for card in state["hands"][seat]]


def outcome(state: State) -> dict | None:
    return state["result"]


def private(state: State, seat: int) -> set[str]:
    return set(state["hands"][seat])


def totals(state: State) -> list[int]:
    return [sum(value(c) for c in row) for row in state["table"]]


def view(state: State, seat: int | None) -> dict:
    return {
        "players": state["players"],
        "to_act": list(to_act(state)),
        "phase": "over" if state["result"] else "play",
        "hand": list(state["hands"][seat]) if seat is not None else [],
        "hand_counts": [len(h) for h in state["hands"]],
        "table": [[{"id": c, "value": value(c)} for c in row] for row in state["table"]],
        "totals": totals(state),
        "outcome": state["result"],
    }


def apply(state: State, seat: int, action: Action) -> tuple[State, list[dict]]:
    if state["result"]:
        raise IllegalAction(gettext_noop("This game is over."))
    if seat != state["current"]:
        raise IllegalAction(gettext_noop("It is not your turn yet."))
    if not isinstance(action, dict) or action.get("type") != "play":
        raise IllegalAction(gettext_noop("Put one of your pebbles on the table."))
    card = action.get("card")
    if card not in state["hands"][seat]:
        raise IllegalAction(gettext_noop("That pebble is not in your hand."))
    new = dump(state)
    new["hands"][seat].remove(card)
    new["table"][seat].append(card)
    events = [{"kind": "played", "seat": seat, "card": card, "value": value(card)}]
    if any(new["hands"]):
        new["current"] = (seat + 1) % new["players"]
        return new, events
    scores = totals(new)
    best = max(scores)
    winners = [s for s, total in enumerate(scores) if total == best]
    ranking = [[s for s, t in enumerate(scores) if t == total] for total in sorted(set(scores))]
    ranking.reverse()
    if len(winners) == 1:
        new["result"] = {"winners": winners, "ranking": ranking, "reason": "highest"}
        events.append({"kind": "won", "seat": winners[0], "total": best})
    else:
        new["result"] = {"winners": [], "ranking": ranking, "reason": "draw"}
        events.append({"kind": "draw", "total": best})
    return new, events


def dump(state: State) -> dict:
    d = dict(state)
    d["hands"] = [list(h) for h in state["hands"]]
    d["table"] = [list(t) for t in state["table"]]
    d["stock"] = list(state["stock"])
    return d


def _read(d: dict) -> tuple[State, bool, None]:
    s = dump(d)
    ok = MIN_PLAYERS <= s["players"] <= MAX_PLAYERS and len(s["hands"]) == s["players"]
    return s, ok and sorted(cards(s)) == sorted(ALL_IDS), None


def load(d: dict) -> State:
    return load_checked(d, SLUG, NAME, _read)[0]


def event_fields(event: dict, who) -> tuple[str, dict] | None:
    """Which of ``EVENT_TEXTS`` the event takes, and its fields; ``who(seat)`` names a seat."""
    kind = event.get("kind")
    if kind == "played":
        return kind, {"who": who(event["seat"]), "n": event["value"]}
    if kind == "won":
        return kind, {"who": who(event["seat"]), "total": event["total"]}
    if kind == "draw":
        return kind, {"total": event["total"]}
    return None


def describe(event: dict) -> str:
    return describe_with(EVENT_TEXTS, event_fields, event)


def bot_action(
    view: dict, legal: list, level: str, rng: random.Random, focus: Any = None
) -> Action:
    check_bot_call(legal, level, LEVELS)
    if level == "greedy":
        return max(legal, key=lambda a: (value(a["card"]), a["card"]))
    return rng.choice(legal)
