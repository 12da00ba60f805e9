"""Mortadelo Multiverso: interdimensional slap duels for 2-6 players.

The rules and the rulings are written down in docs/rules/mortadelo-multiverso.md; the cards are
in games/mortadelo/cards.py.

Seats go clockwise: "the player on your left" is the next seat number that is still in play.

The state is a plain JSON-able dict. ``apply`` never mutates its input: it deep-copies the
state (a few small lists) and works on the copy.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from games.engine.base import LIST_TEXT as LIST_TEXT  # re-exported: its tests read it
from games.engine.base import IllegalAction
from games.engine.base import Phrase
from games.engine.base import Word
from games.engine.base import check_bot_call
from games.engine.base import check_known_options
from games.engine.base import check_setup
from games.engine.base import describe_with
from games.engine.base import gettext_noop
from games.engine.base import hand_and_choice
from games.engine.base import listing
from games.engine.base import load_checked
from games.engine.base import ngettext_noop

from .cards import ATTACKS
from .cards import BASIC
from .cards import CARDS
from .cards import CHARACTERS
from .cards import COLOURS
from .cards import KIND_NAMES
from .cards import PLUS
from .cards import blow_effects
from .cards import character_card

SLUG = "mortadelo"
NAME = "Mortadelo Multiverso"
MIN_PLAYERS = 2
MAX_PLAYERS = 6
OPTIONS: dict[str, dict] = {}
LEVELS = ["random", "odds"]
BEST_LEVEL = "odds"
# The events of a secret simultaneous choice (a duel card chosen face down while another player
# still chooses): a move with only these tells the others no more than that the seat has chosen
# (their view lists who has), so their boards' forms stay good (games.models.Match.moved_on_for).
COMMITMENTS = frozenset({"chose"})

HAND_SIZE = 5
KO_WOUNDS = 6
MARKET_SIZE = 4
# Ruling (a game must end): after this many turns the Mortadelos with the fewest wounds win.
TURN_CAP = 120

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

PHASES = ("pick", "challenge", "duel", "effect", "over")

MSG_OVER = gettext_noop("The game is over.")
MSG_NOT_TURN = gettext_noop("It is not your turn yet.")
MSG_CHOSEN = gettext_noop("You already chose your card. Wait for your opponent.")
MSG_UNKNOWN = gettext_noop("I do not understand that move.")
MSG_NOT_NOW = gettext_noop("You cannot do that now.")
MSG_NOT_IN_HAND = gettext_noop("That card is not in your hand.")
MSG_TAKEN = gettext_noop("Somebody already chose that Mortadelo. Pick another one.")
MSG_NO_CHARACTER = gettext_noop("There is no Mortadelo with that name.")
MSG_BAD_OPPONENT = gettext_noop("Choose another Mortadelo who is still in the game.")
MSG_NOT_IN_MARKET = gettext_noop("Choose one of the four Mamporros Plus in the middle.")
MSG_BAD_TARGET = gettext_noop("Choose one of the two players in the duel.")


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------
def _rng(s: State, purpose: str) -> random.Random:
    s["draws"] = s["draws"] + 1
    return random.Random(f"{s['seed']}:{purpose}:{s['draws']}")


def _active(s: State) -> list[int]:
    return [p for p in range(s["players"]) if s["out"][p] is None]


def _next_active(s: State, seat: int) -> int:
    n = s["players"]
    for k in range(1, n + 1):
        p = (seat + k) % n
        if s["out"][p] is None:
            return p
    return seat


def _seat_arg(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    # ASCII digits only: str.isdigit() is true for "²", which int() refuses.
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 3:
        return int(value)
    return None


def public_card(cid: str) -> dict[str, Any]:
    """A card without its id: what the log and the last duel show (the id of a card that was
    seen once may later hide in a hand again)."""
    c = CARDS[cid]
    return {"name": c["name"], "kind": c["kind"], "effects": c["effects"], "plus": c["plus"]}


def card(cid: str) -> dict[str, Any]:
    """A card with its id (hands, the market, discard piles)."""
    return {"id": cid, **public_card(cid)}


# --------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------
def setup(players: int, seed: int, options: dict | None = None) -> State:
    check_known_options(
        check_setup(players, seed, options, MIN_PLAYERS, MAX_PLAYERS, NAME), OPTIONS
    )
    decks, hands = [], []
    for p in range(players):
        deck = [cid for cid, c in BASIC.items() if c["colour"] == COLOURS[p]]
        random.Random(f"{seed}:deck:{p}").shuffle(deck)
        hands.append(deck[-HAND_SIZE:][::-1])
        decks.append(deck[:-HAND_SIZE])
    plus = list(PLUS)
    random.Random(f"{seed}:plus").shuffle(plus)
    return {
        "game": SLUG,
        "seed": seed,
        "players": players,
        "ply": 0,
        "draws": 0,
        "turn": 0,
        "phase": "pick",
        "current": 0,
        # Who starts the duels: drawn from the seed (docs/rules/mortadelo-multiverso.md, "Seat
        # order"); the Mortadelos are still picked from seat 0 on.
        "first": random.Random(f"{seed}:first").randrange(players),
        "characters": [None] * players,
        "hands": hands,
        "decks": decks,  # the top card is the last one
        "discards": [[] for _ in range(players)],  # face up, the top card is the last one
        "wounds": [[] for _ in range(players)],  # face down under the Mortadelo
        "out": [None] * players,  # the duel number of the elimination, else None
        "plus_deck": plus[:-MARKET_SIZE],
        "market": plus[-MARKET_SIZE:][::-1],
        "duel": None,
        "duels": 0,
        "table": [],  # [seat, card] revealed and played this duel, face up
        "queue": [],
        "last_duel": None,
        "result": None,
    }


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------
def to_act(state: State) -> tuple[int, ...]:
    phase = state["phase"]
    if phase in ("pick", "challenge"):
        return (state["current"],)
    if phase == "duel":
        duel = state["duel"]
        return tuple(p for p in duel["seats"] if duel["choices"][p] is None)
    if phase == "effect":
        return (state["queue"][0]["seat"],)
    return ()


def legal_actions(state: State, seat: int) -> list[Action]:
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    if phase == "pick":
        taken = set(state["characters"])
        return [{"type": "pick", "character": k} for k in CHARACTERS if k not in taken]
    if phase == "challenge":
        return [{"type": "challenge", "target": p} for p in _active(state) if p != seat]
    if phase == "duel":
        return [{"type": "choose", "card": c} for c in state["hands"][seat]]
    task = state["queue"][0]
    if task["do"] == "upgrade":
        return [{"type": "upgrade", "card": c} for c in state["market"]]
    if task["do"] == "combo":
        return [{"type": "combo", "card": c} for c in state["hands"][seat]] + [{"type": "no_combo"}]
    # meddle
    return [{"type": "meddle", "target": p} for p in _meddle_targets(state)]


def _meddle_targets(s: State) -> list[int]:
    duel = s["duel"]
    return [p for p in duel["seats"] if s["out"][p] is None] if duel else []


def outcome(state: State) -> dict | None:
    return state["result"]


def private(state: State, seat: int) -> set[str]:
    return hand_and_choice(state, seat, "duel")


def cards(state: State) -> list[str]:
    """Test support: every card id anywhere (each player's zones, the table, the Plus cards)."""
    out = list(state["plus_deck"]) + list(state["market"])
    for p in range(state["players"]):
        out += state["hands"][p] + state["decks"][p] + state["discards"][p] + state["wounds"][p]
    out += [c for _p, c in state["table"]]
    duel = state["duel"]
    if duel is not None:
        out += [c for c in duel["choices"] if c is not None]
    return out


def owned(state: State, seat: int) -> list[str]:
    """Test support: every card of one player (hand, deck, discard, wounds, on the table, the
    secret duel choice)."""
    out = state["hands"][seat] + state["decks"][seat] + state["discards"][seat]
    out = out + state["wounds"][seat] + [c for p, c in state["table"] if p == seat]
    duel = state["duel"]
    if duel is not None and duel["choices"][seat] is not None:
        out.append(duel["choices"][seat])
    return out


def success(mine: str, theirs: str) -> bool:
    """Step 1 of Resolving Duels: does a card of kind ``mine`` succeed against ``theirs``?"""
    if mine in ATTACKS:
        blocked = theirs == "total" or theirs == "block_" + mine
        return not blocked
    if mine == "total":
        return theirs in ATTACKS
    return theirs == mine.removeprefix("block_")


def view(state: State, seat: int | None) -> dict:
    n = state["players"]
    duel = state["duel"]
    task = state["queue"][0] if state["phase"] == "effect" else None
    v: dict[str, Any] = {
        "game": SLUG,
        "seat": seat,
        "players": n,
        "phase": state["phase"],
        "turn": state["turn"],
        "turn_cap": TURN_CAP,
        "current": state["current"],
        "to_act": list(to_act(state)),
        "characters": [
            character_card(k, n) if k is not None else None for k in state["characters"]
        ],
        "free_characters": [k for k in CHARACTERS if k not in state["characters"]],
        "colours": list(COLOURS[:n]),
        "hand_counts": [len(h) for h in state["hands"]],
        "deck_counts": [len(d) for d in state["decks"]],
        "discards": [[card(c) for c in d] for d in state["discards"]],
        "wound_counts": [len(w) for w in state["wounds"]],
        # every card of the player, the secret duel choice included (leaving it out would tell
        # the opponent whether that choice is a Plus card)
        "plus_counts": [sum(1 for c in owned(state, p) if c in PLUS) for p in range(n)],
        "out": list(state["out"]),
        "market": [card(c) for c in state["market"]],
        "plus_deck_count": len(state["plus_deck"]),
        "duel": None,
        "table": [{"seat": p, "card": public_card(c)} for p, c in state["table"]],
        "task": dict(task) if task is not None else None,
        "meddle_targets": _meddle_targets(state) if task and task["do"] == "meddle" else [],
        "last_duel": copy.deepcopy(state["last_duel"]),
        "outcome": copy.deepcopy(state["result"]),
    }
    if duel is not None:
        v["duel"] = {
            "seats": list(duel["seats"]),
            "chosen": [p for p in duel["seats"] if duel["choices"][p] is not None],
            "round": duel["round"],
        }
    if seat is not None:
        v["hand"] = [card(c) for c in state["hands"][seat]]
        mine = duel["choices"][seat] if duel is not None else None
        v["my_choice"] = card(mine) if mine is not None else None
    return v


# --------------------------------------------------------------------------------------------
# Apply
# --------------------------------------------------------------------------------------------
def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    phase = state["phase"]
    if phase == "over":
        raise IllegalAction(MSG_OVER)
    if seat not in to_act(state):
        duel = state["duel"]
        if (
            phase == "duel"
            and isinstance(seat, int)
            and seat in duel["seats"]
            and duel["choices"][seat] is not None
        ):
            raise IllegalAction(MSG_CHOSEN)
        raise IllegalAction(MSG_NOT_TURN)
    if not isinstance(action, dict):
        raise IllegalAction(MSG_UNKNOWN)
    kind = action.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalAction(MSG_UNKNOWN)
    want_phase, want_task, fn = handler
    if want_phase != phase or (want_task and state["queue"][0]["do"] != want_task):
        raise IllegalAction(MSG_NOT_NOW)
    s = copy.deepcopy(state)
    s["ply"] += 1
    events: list[Event] = []
    fn(s, seat, action, events)
    return s, events


def _pick(s: State, seat: int, action: Action, events: list[Event]) -> None:
    key = action.get("character")
    if not isinstance(key, str) or key not in CHARACTERS:
        raise IllegalAction(MSG_NO_CHARACTER)
    if key in s["characters"]:
        raise IllegalAction(MSG_TAKEN)
    s["characters"][seat] = key
    events.append({"kind": "picked", "seat": seat, "character": key})
    if None in s["characters"]:
        s["current"] = s["characters"].index(None)
    else:
        _start_turn(s, s.get("first", 0), events)


def _start_turn(s: State, seat: int, events: list[Event]) -> None:
    s["turn"] += 1
    s["current"] = seat
    if s["turn"] > TURN_CAP:
        _time_up(s, events)
        return
    events.append({"kind": "turn", "seat": seat, "turn": s["turn"]})
    others = [p for p in _active(s) if p != seat]
    if len(others) == 1:
        _start_duel(s, seat, others[0], events, 1)
    else:
        s["phase"] = "challenge"


def _challenge(s: State, seat: int, action: Action, events: list[Event]) -> None:
    target = _seat_arg(action.get("target"))
    if target is None or target == seat or target not in _active(s):
        raise IllegalAction(MSG_BAD_OPPONENT)
    _start_duel(s, seat, target, events, 1)


def _start_duel(s: State, a: int, b: int, events: list[Event], rnd: int) -> None:
    s["duels"] += 1
    events.append({"kind": "challenged", "seat": a, "target": b, "round": rnd})
    if not s["hands"][a] or not s["hands"][b]:
        events.append({"kind": "no_cards", "seat": a if not s["hands"][a] else b})
        s["duel"] = None
        _end_turn(s, events)
        return
    s["phase"] = "duel"
    s["duel"] = {"seats": [a, b], "choices": [None] * s["players"], "round": rnd}


def _choose(s: State, seat: int, action: Action, events: list[Event]) -> None:
    cid = action.get("card")
    hand = s["hands"][seat]
    if not isinstance(cid, str) or cid not in hand:
        raise IllegalAction(MSG_NOT_IN_HAND)
    hand.remove(cid)
    duel = s["duel"]
    duel["choices"][seat] = cid
    events.append({"kind": "chose", "seat": seat})
    if any(duel["choices"][p] is None for p in duel["seats"]):
        return
    _reveal(s, events)


def _reveal(s: State, events: list[Event]) -> None:
    duel = s["duel"]
    a, b = duel["seats"]
    ca, cb = duel["choices"][a], duel["choices"][b]
    ka, kb = CARDS[ca]["kind"], CARDS[cb]["kind"]
    ok = {a: success(ka, kb), b: success(kb, ka)}
    s["table"] += [[a, ca], [b, cb]]
    duel["choices"] = [None] * s["players"]
    shown = [{"seat": p, "card": public_card(c), "success": ok[p]} for p, c in ((a, ca), (b, cb))]
    s["last_duel"] = {"seats": [a, b], "cards": shown, "round": duel["round"]}
    events.append({"kind": "reveal", "seat": a, "target": b, "cards": copy.deepcopy(shown)})
    queue: list[dict] = []
    # "Whoever has the turn acts first": the challenger's effects, then the other's.
    for p, c in ((a, ca), (b, cb)):
        if ok[p]:
            queue += _tasks(p, b if p == a else a, CARDS[c]["effects"])
    both_combo = all(
        ok[p] and any(e[0] == "combo" for e in CARDS[c]["effects"]) for p, c in ((a, ca), (b, cb))
    )
    if both_combo:
        # "If both opponents activate this effect, start a new duel."
        queue = [t for t in queue if t["do"] != "combo"] + [{"do": "new_duel", "seat": a}]
    s["queue"] = queue
    _run(s, events)


def _tasks(owner: int, opponent: int, effects: list, meddler: bool = False) -> list[dict]:
    out: list[dict] = []
    for name, amount in effects:
        if name == "tortazo":
            out.append({"do": "tortazo", "seat": owner, "target": opponent, "n": amount})
        elif name == "recover":
            out.append({"do": "recover", "seat": opponent if meddler else owner, "n": amount})
        elif name == "upgrade":
            for step in range(1, amount + 1):
                task = {"do": "upgrade", "seat": opponent if meddler else owner}
                if amount > 1:  # "take 2 of 3" on the board
                    task |= {"step": step, "of": amount}
                out.append(task)
        elif name == "combo":
            if not meddler:
                out.append({"do": "combo", "seat": owner})
        elif name == "special":
            out.append({"do": "special", "seat": owner, "target": opponent})
    return out


# Tasks that "concern the next turn" or help their owner: skipped once the owner is out.
_HELPING = ("upgrade", "combo", "recover")


def _can_still_wound(s: State) -> bool:
    for t in s["queue"]:
        if t["do"] == "tortazo" and s["out"][t["target"]] is None:
            return True
        if t["do"] in ("special", "meddle"):
            return True
    return False


def _run(s: State, events: list[Event]) -> None:
    """Work through the queue of effects until a player must decide, or the duel is over."""
    queue = s["queue"]
    while True:
        if len(_active(s)) <= 1 and not _can_still_wound(s):
            _finish(s, events)
            return
        if not queue:
            break
        t = queue[0]
        do, p = t["do"], t["seat"]
        if do in _HELPING and s["out"][p] is not None:
            queue.pop(0)
            events.append({"kind": "skipped", "seat": p, "effect": do})
            continue
        if do == "upgrade":
            if s["market"]:
                s["phase"] = "effect"
                return
            queue.pop(0)
            events.append({"kind": "no_plus", "seat": p})
            continue
        if do == "combo":
            if s["hands"][p]:
                s["phase"] = "effect"
                return
            queue.pop(0)
            events.append({"kind": "no_combo", "seat": p, "empty": True})
            continue
        if do == "meddle":
            if _meddle_targets(s):
                s["phase"] = "effect"
                return
            queue.pop(0)
            continue
        queue.pop(0)
        if do == "tortazo":
            _tortazo(s, p, t["target"], t["n"], events, t.get("meddler", False))
        elif do == "recover":
            _recover(s, p, t["n"], events)
        elif do == "special":
            _special(s, p, t["target"], events)
        elif do == "new_duel":
            a, b = s["duel"]["seats"]
            rnd = s["duel"]["round"] + 1
            _clear_table(s)
            if s["out"][a] is None and s["out"][b] is None:
                events.append({"kind": "new_duel", "seat": a, "target": b})
                _start_duel(s, a, b, events, rnd)
                return
    # The duel is over.
    _clear_table(s)
    _end_turn(s, events)


def _special(s: State, p: int, target: int, events: list[Event]) -> None:
    key = s["characters"][p]
    events.append({"kind": "special", "seat": p, "character": key, "target": target})
    tasks = _tasks(p, target, blow_effects(key, s["players"]))
    # "When any player activates the special effect of their Mortadelo, every eliminated
    # player also activates it", in turn order from the player whose turn it is. Ruling: the
    # two duellists take part in the duel, so neither meddles in it (not even one knocked out
    # a moment ago by this duel's effects).
    n = s["players"]
    start = s["current"]
    duellists = s["duel"]["seats"] if s["duel"] else []
    for k in range(n):
        m = (start + k) % n
        if s["out"][m] is not None and m not in duellists:
            tasks.append({"do": "meddle", "seat": m})
    s["queue"][:0] = tasks


def _take_wound_card(s: State, p: int, events: list[Event]) -> str | None:
    if not s["decks"][p] and s["discards"][p]:
        _reshuffle(s, p, events)
    if s["decks"][p]:
        return s["decks"][p].pop()
    hand = s["hands"][p]
    if hand:
        return hand.pop(_rng(s, "wound").randrange(len(hand)))
    mine = [i for i, (q, _c) in enumerate(s["table"]) if q == p]
    if mine:
        return s["table"].pop(mine[-1])[1]
    return None


def _tortazo(
    s: State, by: int, target: int, n: int, events: list[Event], meddler: bool = False
) -> None:
    if s["out"][target] is not None:
        events.append({"kind": "tortazo", "seat": by, "target": target, "stars": n, "wounds": 0})
        return
    got = 0
    for _ in range(n):
        cid = _take_wound_card(s, target, events)
        if cid is None:
            break
        s["wounds"][target].append(cid)
        got += 1
        if len(s["wounds"][target]) >= KO_WOUNDS:
            break
    events.append(
        {
            "kind": "tortazo",
            "seat": by,
            "target": target,
            "stars": n,
            "wounds": got,
            "total": len(s["wounds"][target]),
        }
    )
    if len(s["wounds"][target]) >= KO_WOUNDS:
        s["out"][target] = s["duels"]
        events.append({"kind": "eliminated", "seat": target, "by": by})
        if not meddler and by != target and s["out"][by] is None:
            # "Whoever eliminates another Mortadelo takes a Mamporro Plus card": once the
            # effects of this duel that are still waiting have been applied (they are
            # simultaneous, so the player just eliminated may still hit back).
            queue = s["queue"]
            at = len(queue) - 1 if queue and queue[-1]["do"] == "new_duel" else len(queue)
            queue.insert(at, {"do": "upgrade", "seat": by, "why": "ko"})


def _recover(s: State, p: int, n: int, events: list[Event]) -> None:
    got = 0
    for _ in range(n):
        if not s["wounds"][p]:
            break
        s["discards"][p].append(s["wounds"][p].pop())
        got += 1
    events.append({"kind": "recovered", "seat": p, "wounds": got, "total": len(s["wounds"][p])})


def _reshuffle(s: State, p: int, events: list[Event]) -> None:
    deck = s["discards"][p]
    s["discards"][p] = []
    _rng(s, f"reshuffle:{p}").shuffle(deck)
    s["decks"][p] = deck + s["decks"][p]
    events.append({"kind": "reshuffled", "seat": p})


def _clear_table(s: State) -> None:
    for p, c in s["table"]:
        s["discards"][p].append(c)
    s["table"] = []


def _end_turn(s: State, events: list[Event]) -> None:
    s["duel"] = None
    s["queue"] = []
    if len(_active(s)) <= 1:
        _finish(s, events)
        return
    # "Draw cards until you have 5 in your hand": every Mortadelo still in play.
    for p in _active(s):
        drawn = 0
        while len(s["hands"][p]) < HAND_SIZE:
            if not s["decks"][p]:
                if not s["discards"][p]:
                    break
                _reshuffle(s, p, events)
            s["hands"][p].append(s["decks"][p].pop())
            drawn += 1
        if drawn:
            events.append({"kind": "drew", "seat": p, "n": drawn})
    _start_turn(s, _next_active(s, s["current"]), events)


def _ranking(s: State, winners: list[int]) -> list[list[int]]:
    """Winners first; then the Mortadelos still in play (fewer wounds first); then the
    eliminated ones, the last eliminated first (a double KO shares a place)."""
    alive: dict[int, list[int]] = {}
    groups: dict[int, list[int]] = {}
    for p in range(s["players"]):
        if p in winners:
            continue
        if s["out"][p] is None:
            alive.setdefault(len(s["wounds"][p]), []).append(p)
        else:
            groups.setdefault(s["out"][p], []).append(p)
    ranking = [sorted(winners)] if winners else []
    ranking += [alive[k] for k in sorted(alive)]
    ranking += [groups[k] for k in sorted(groups, reverse=True)]
    return ranking


def _finish(s: State, events: list[Event]) -> None:
    alive = _active(s)
    if len(alive) == 1:
        winners, reason = alive, "last_standing"
    else:
        times = sorted({t for t in s["out"] if t is not None}, reverse=True)
        last = [p for p in range(s["players"]) if s["out"][p] == times[0]]
        before = [p for p in range(s["players"]) if len(times) > 1 and s["out"][p] == times[1]]
        if s["players"] == 2 or not before:
            winners, reason = [], "double_ko"
        elif len(before) == 1:
            winners, reason = before, "double_ko_previous"
        else:
            winners, reason = [], "collapse"
        events.append({"kind": "double_ko", "seats": last})
    _over(s, winners, reason, events)


def _time_up(s: State, events: list[Event]) -> None:
    alive = _active(s)
    fewest = min(len(s["wounds"][p]) for p in alive)
    winners = [p for p in alive if len(s["wounds"][p]) == fewest]
    events.append({"kind": "time_up", "turns": TURN_CAP})
    _over(s, winners, "time", events)


def _over(s: State, winners: list[int], reason: str, events: list[Event]) -> None:
    winners = sorted(winners)
    _clear_table(s)
    s["duel"] = None
    s["queue"] = []
    s["phase"] = "over"
    s["result"] = {"winners": winners, "ranking": _ranking(s, winners), "reason": reason}
    events.append({"kind": "game_over", "winners": winners, "reason": reason})


# --- decisions during the effects ------------------------------------------------------------
def _upgrade(s: State, seat: int, action: Action, events: list[Event]) -> None:
    cid = action.get("card")
    if not isinstance(cid, str) or cid not in s["market"]:
        raise IllegalAction(MSG_NOT_IN_MARKET)
    task = s["queue"].pop(0)
    s["market"].remove(cid)
    s["hands"][seat].append(cid)
    events.append(
        {"kind": "upgrade", "seat": seat, "card": public_card(cid), "why": task.get("why", "")}
    )
    if s["plus_deck"]:
        # "Immediately refill the space so that there are always 4 available."
        s["market"].append(s["plus_deck"].pop())
        events.append({"kind": "market_refilled"})
    _run(s, events)


def _combo(s: State, seat: int, action: Action, events: list[Event]) -> None:
    cid = action.get("card")
    if not isinstance(cid, str) or cid not in s["hands"][seat]:
        raise IllegalAction(MSG_NOT_IN_HAND)
    s["queue"].pop(0)
    s["hands"][seat].remove(cid)
    s["table"].append([seat, cid])
    duel = s["duel"]
    a, b = duel["seats"]
    other = b if seat == a else a
    events.append({"kind": "combo", "seat": seat, "card": public_card(cid)})
    # "Do not consider whether it is an Attack or a Defence; only its effect counts."
    s["queue"][:0] = _tasks(seat, other, CARDS[cid]["effects"])
    _run(s, events)


def _no_combo(s: State, seat: int, action: Action, events: list[Event]) -> None:
    s["queue"].pop(0)
    events.append({"kind": "no_combo", "seat": seat, "empty": False})
    _run(s, events)


def _meddle(s: State, seat: int, action: Action, events: list[Event]) -> None:
    target = _seat_arg(action.get("target"))
    if target is None or target not in _meddle_targets(s):
        raise IllegalAction(MSG_BAD_TARGET)
    s["queue"].pop(0)
    key = s["characters"][seat]
    events.append({"kind": "meddle", "seat": seat, "target": target, "character": key})
    tasks = _tasks(seat, target, blow_effects(key, s["players"]), meddler=True)
    for t in tasks:
        if t["do"] == "tortazo":
            t["meddler"] = True
    s["queue"][:0] = tasks
    _run(s, events)


_HANDLERS = {
    "pick": ("pick", None, _pick),
    "challenge": ("challenge", None, _challenge),
    "choose": ("duel", None, _choose),
    "upgrade": ("effect", "upgrade", _upgrade),
    "combo": ("effect", "combo", _combo),
    "no_combo": ("effect", "combo", _no_combo),
    "meddle": ("effect", "meddle", _meddle),
}


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------
def dump(state: State) -> dict:
    return copy.deepcopy(state)


_KEYS = {
    "game",
    "seed",
    "players",
    "ply",
    "draws",
    "turn",
    "phase",
    "current",
    "characters",
    "hands",
    "decks",
    "discards",
    "wounds",
    "out",
    "plus_deck",
    "market",
    "duel",
    "duels",
    "table",
    "queue",
    "last_duel",
    "result",
}


def _read(d: dict) -> tuple[State, bool, list[str]]:
    """A copy of a stored state, whether it holds together, and its cards."""
    if set(d) - {"first"} != _KEYS:
        return d, False, []
    s = copy.deepcopy(d)
    n = s["players"]
    s.setdefault("first", 0)  # a game stored before the first player was drawn
    ok = (
        isinstance(s["first"], int)
        and 0 <= s["first"] < n
        and s["phase"] in PHASES
        and MIN_PLAYERS <= n <= MAX_PLAYERS
        and all(len(s[k]) == n for k in ("hands", "decks", "discards", "wounds", "out"))
    )
    every = sorted(cards(s))
    for p in range(n):
        mine = owned(s, p)
        basic = sorted(c for c in mine if c in BASIC)
        ok = ok and basic == sorted(c for c in BASIC if BASIC[c]["colour"] == COLOURS[p])
    return s, ok, every


def load(d: dict) -> State:
    s, every = load_checked(d, SLUG, NAME, _read, (KeyError, TypeError, AttributeError, IndexError))
    n = s["players"]
    expected = sorted(list(PLUS) + [c for c in BASIC if BASIC[c]["colour"] in COLOURS[:n]])
    if every != expected:
        raise ValueError("the cards of this Mortadelo Multiverso state do not add up")
    return s


# --------------------------------------------------------------------------------------------
# Event texts
# --------------------------------------------------------------------------------------------
# Event texts, written once (games/engine/base.py): the same templates give ``describe`` (plain
# English) and the board's log (translated, games.presenters.event_lines). A duel card chosen
# face down is never named before both flip over ("reveal").
EVENT_TEXTS = {
    "picked": gettext_noop("%(who)s is %(character)s."),
    "challenged": gettext_noop("%(who)s challenges %(target)s to a duel!"),
    "chose": gettext_noop("%(who)s chose a card, face down."),
    "reveal": gettext_noop("Both cards flip over: %(parts)s."),
    "tortazo": ngettext_noop(
        "Tortazo! %(target)s gets %(n)s wound (%(total)s in all).",
        "Tortazo! %(target)s gets %(n)s wounds (%(total)s in all).",
    ),
    "eliminated": gettext_noop("%(who)s has 6 wounds and goes into the cloning machine!"),
    "recovered_none": gettext_noop("%(who)s has no wound to recover."),
    "recovered": ngettext_noop("%(who)s recovers %(n)s wound.", "%(who)s recovers %(n)s wounds."),
    "upgrade": gettext_noop("%(who)s takes the Mamporro Plus %(card)s."),
    "combo": gettext_noop("%(who)s plays another card: %(card)s (%(effects)s)."),
    "no_combo": gettext_noop("%(who)s plays no other card."),
    "special": gettext_noop("%(who)s uses the secret blow %(blow)s!"),
    "meddle": gettext_noop("%(who)s meddles from the cloning machine: %(blow)s on %(target)s!"),
    "new_duel": gettext_noop("Both played another card: %(who)s and %(target)s duel again!"),
    "skipped": gettext_noop("%(who)s is out, so that effect is skipped."),
    "no_cards": gettext_noop("%(who)s has no cards left: no new duel."),
    "reshuffled": gettext_noop("%(who)s shuffles the discard pile into a new deck."),
    "double_ko": gettext_noop("Double KO!"),
    "time_up": gettext_noop("Time is up for the multiverse: the fewest wounds win."),
}
# A flipped card in the "reveal" sentence: whether it succeeds.
REVEAL_TEXTS = {
    True: gettext_noop("%(who)s: %(card)s (%(kind)s) succeeds"),
    False: gettext_noop("%(who)s: %(card)s (%(kind)s) fails"),
}
# A card's effect icon in words (the board's cards, and a card played in a combo).
EFFECT_TEXTS = {
    # Translators: no brackets (the secret blow is written "Bonk (Tortazo ★★: 2 wounds)").
    "tortazo": ngettext_noop("Tortazo %(stars)s: %(n)s wound", "Tortazo %(stars)s: %(n)s wounds"),
    "upgrade": ngettext_noop(
        "⬆ Upgrade: take %(n)s Mamporro Plus", "⬆ Upgrade: take %(n)s Mamporros Plus"
    ),
    "combo": gettext_noop("⇄ Play another card"),
    "recover": ngettext_noop("♥ Recover %(n)s wound", "♥ Recover %(n)s wounds"),
    "special": gettext_noop("ϟ Special Mamporro"),
}
# Translators: one more card of a duel flipped over ("Ana: Jab (Punch attack) succeeds; Ben: …").
PARTS_TEXT = gettext_noop("%(first)s; %(rest)s")
# The events told by their player's name alone, and by the two duellists' names.
_WHO_ONLY = ("chose", "eliminated", "no_combo", "skipped", "no_cards", "reshuffled")
_WHO_AND_TARGET = ("challenged", "new_duel")


def effect_phrase(name: str, amount: int) -> Phrase | str:
    """One effect of a card (``[name, amount]``) as a text field (an unknown one: its name)."""
    if name not in EFFECT_TEXTS:
        return name
    return Phrase(EFFECT_TEXTS[name], {"n": amount, "stars": "★" * amount})


def _card_part(c: dict, who) -> Phrase:
    card = c["card"]
    kind = Word(KIND_NAMES.get(card["kind"], card["kind"]))
    return Phrase(
        REVEAL_TEXTS[bool(c["success"])],
        {"who": who(c["seat"]), "card": Word(card["name"]), "kind": kind},
    )


def event_fields(event: Event, who) -> tuple[str, dict] | None:
    """Which of ``EVENT_TEXTS`` the event takes, and its fields (None: the log leaves it out,
    like a turn's start, a duel again after a combo, a Tortazo that wounds nobody or the end,
    which the board's result tells); ``who(seat)`` names a seat."""
    kind = event.get("kind")
    seat, target = event.get("seat"), event.get("target")
    if kind in ("double_ko", "time_up"):
        return kind, {}
    if kind in _WHO_ONLY or (kind == "recovered" and not event["wounds"]):
        return ("recovered_none" if kind == "recovered" else kind), {"who": who(seat)}
    if (kind == "challenged" and event.get("round", 1) == 1) or kind == "new_duel":
        return kind, {"who": who(seat), "target": who(target)}
    if kind == "picked":
        return kind, {"who": who(seat), "character": Word(CHARACTERS[event["character"]]["name"])}
    if kind == "reveal":
        return kind, {"parts": listing([_card_part(c, who) for c in event["cards"]], PARTS_TEXT)}
    if kind == "tortazo" and event.get("wounds", 0):
        fields = {"target": who(target), "n": event["wounds"], "total": event.get("total", 0)}
        return kind, fields
    if kind == "recovered":
        return kind, {"who": who(seat), "n": event["wounds"]}
    if kind in ("upgrade", "combo"):
        fields = {"who": who(seat), "card": Word(event["card"]["name"])}
        if kind == "combo":
            fields["effects"] = listing([effect_phrase(n, a) for n, a in event["card"]["effects"]])
        return kind, fields
    if kind in ("special", "meddle"):
        fields = {"who": who(seat), "blow": Word(CHARACTERS[event["character"]]["blow"])}
        if kind == "meddle":
            fields["target"] = who(target)
        return kind, fields
    return None


def describe(event: Event) -> str:
    return describe_with(EVENT_TEXTS, event_fields, event)


# --------------------------------------------------------------------------------------------
# Bots: they see only their view and their legal actions.
# --------------------------------------------------------------------------------------------
# Rough worth of each effect for the "odds" bot.
W_STAR, W_KO, W_RECOVER, W_UPGRADE, W_COMBO = 1.0, 3.0, 0.8, 1.4, 0.9


def _effects_value(effects: list, me: int, opp: int | None, view: dict, depth: int = 0) -> float:
    wounds = view["wound_counts"]
    total = 0.0
    for name, amount in effects:
        if name == "tortazo" and opp is not None:
            total += amount * W_STAR + (W_KO if wounds[opp] + amount >= KO_WOUNDS else 0.0)
        elif name == "recover":
            total += min(amount, wounds[me]) * W_RECOVER * (1.5 if wounds[me] >= 4 else 1.0)
        elif name == "upgrade":
            total += amount * W_UPGRADE if view["market"] else 0.0
        elif name == "combo":
            total += W_COMBO if view["hand_counts"][me] > 1 else 0.0
        elif name == "special" and depth == 0:
            mine = view["characters"][me]
            total += _effects_value(mine["effects"], me, opp, view, 1) if mine else 0.0
    return total


def _stars(effects: list) -> int:
    return sum(a for n, a in effects if n == "tortazo")


def _opponent_odds(view: dict, opp: int) -> dict[str, tuple[float, float]]:
    """Probability of each kind for the opponent's hidden card, and its average harm."""
    seen = {c["id"] for c in view["discards"][opp]}
    colour = view["colours"][opp]
    pool = [c for cid, c in BASIC.items() if c["colour"] == colour and cid not in seen]
    pool += [{"kind": "punch", "effects": [["tortazo", 2]]}] * view["plus_counts"][opp]
    odds: dict[str, tuple[float, float]] = {}
    total = len(pool) or 1
    for kind in ("punch", "kick", "block_punch", "block_kick", "total"):
        same = [c for c in pool if c["kind"] == kind]
        harm = sum(_stars(c["effects"]) for c in same) / len(same) if same else 0.0
        odds[kind] = (len(same) / total, harm)
    return odds


def _choose_value(cid: str, me: int, opp: int, odds: dict, view: dict) -> float:
    c = CARDS[cid]
    mine = _effects_value(c["effects"], me, opp, view)
    danger = 1.0 + (1.5 if view["wound_counts"][me] >= 4 else 0.0)
    value = 0.0
    for kind, (p, harm) in odds.items():
        if not p:
            continue
        if success(c["kind"], kind):
            value += p * mine
        if success(kind, c["kind"]):
            value -= p * harm * danger
    return value


KO_HUNT = 3  # the bot hunts a knockout on an opponent with this many wounds (of KO_WOUNDS)


def bot_action(
    view: dict, legal: list, level: str, rng: random.Random, focus: Any = None
) -> Action:
    check_bot_call(legal, level, LEVELS)
    if level == "random" or view["phase"] == "pick":
        return rng.choice(legal)
    me = view["seat"]
    phase = view["phase"]
    wounds = view["wound_counts"]
    if phase == "challenge":
        # An opponent with KO_HUNT wounds or more may be knocked out this turn (a Plus card for
        # the knockout): the most wounded of them. Otherwise the leader, the opponent with the
        # fewest wounds, rather than the whole table ganging up on one Mortadelo, which made a
        # Recover worth far more with 5 or 6 players (issue 24). Ties broken by chance.
        hunt = [a for a in legal if wounds[a["target"]] >= KO_HUNT]
        pool = hunt or legal
        pick = max if hunt else min
        best = pick(wounds[a["target"]] for a in pool)
        return rng.choice([a for a in pool if wounds[a["target"]] == best])
    duel = view["duel"]
    opp = None
    if duel is not None and me in duel["seats"]:
        opp = next(p for p in duel["seats"] if p != me)
    if phase == "duel":
        odds = _opponent_odds(view, opp)
        scored = [
            (_choose_value(a["card"], me, opp, odds, view) + rng.random() * 0.3, i)
            for i, a in enumerate(legal)
        ]
        return legal[max(scored)[1]]
    task = view["task"]
    if task["do"] == "upgrade":
        scored = [
            (_effects_value(CARDS[a["card"]]["effects"], me, opp, view) + rng.random() * 0.1, i)
            for i, a in enumerate(legal)
        ]
        return legal[max(scored)[1]]
    if task["do"] == "combo":
        plays = [a for a in legal if a["type"] == "combo"]
        scored = [
            (_effects_value(CARDS[a["card"]]["effects"], me, opp, view), i)
            for i, a in enumerate(plays)
        ]
        best = max(scored, default=(0.0, -1))
        return plays[best[1]] if best[0] > 0 else {"type": "no_combo"}
    # Meddling: a blow that hurts goes to the duellist with the most wounds (to finish them
    # off); a blow that helps goes to the one with fewest wounds... of the player to the left.
    mine = view["characters"][me]
    hurts = mine is not None and _stars(mine["effects"]) > 0
    targets = [a["target"] for a in legal]
    if hurts:
        pick = max(targets, key=lambda t: (wounds[t], -t))
    else:
        pick = min(targets, key=lambda t: (wounds[t], t))
    return {"type": "meddle", "target": pick}


# --------------------------------------------------------------------------------------------
# Balance: win rates per Mortadelo (docs/rules/mortadelo-multiverso.md records them)
# --------------------------------------------------------------------------------------------
def win_labels(state: State) -> list[str]:
    """Each seat's Mortadelo (``simulate`` reports wins by character with it)."""
    return [str(key) for key in state["characters"]]


def character_win_rates(
    games: int, seed: int = 0, level: str = "odds", counts: tuple[int, ...] = (2, 3, 4, 5, 6)
) -> dict[str, dict[str, float]]:
    """Bot games (every seat at ``level``, Mortadelos picked at random by the bots), cycling
    through the player ``counts``. For each Mortadelo: games played, wins (a shared win counts
    as a fraction), its win rate, and its index: wins divided by the wins a fair share would
    give (1/players per game), so 1.0 is perfectly fair whatever the number of players."""
    wins: dict[str, float] = dict.fromkeys(CHARACTERS, 0.0)
    fair: dict[str, float] = dict.fromkeys(CHARACTERS, 0.0)
    played: dict[str, int] = dict.fromkeys(CHARACTERS, 0)
    for i in range(games):
        players = counts[i % len(counts)]
        state = setup(players, seed + i, {})
        rngs = [random.Random(f"{seed + i}:bot:{p}") for p in range(players)]
        while True:
            acting = to_act(state)
            if not acting:
                break
            p = acting[0]
            action = bot_action(view(state, p), legal_actions(state, p), level, rngs[p])
            state, _events = apply(state, p, action)
        winners = state["result"]["winners"]
        for p, key in enumerate(state["characters"]):
            played[key] += 1
            fair[key] += 1 / players
            if p in winners:
                wins[key] += 1 / len(winners)
    return {
        k: {
            "games": played[k],
            "wins": round(wins[k], 2),
            "win_rate": round(wins[k] / played[k], 3) if played[k] else 0.0,
            "index": round(wins[k] / fair[k], 2) if fair[k] else 0.0,
        }
        for k in CHARACTERS
    }
