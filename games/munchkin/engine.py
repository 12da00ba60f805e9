"""Munchkin: kick open the door, fight the monster, grab the treasure, reach level 10.

3 to 6 players, a Dungeon (door) deck and a Treasure deck: the 168 cards of our own design in
``munchkin_cards``. The rules as implemented, and every ruling with the rulebook passage it settles,
are written down in docs/rules/munchkin.md.

Seats go clockwise (the player to your left is the next seat number). Only one seat acts at a time:
the player whose turn it is, or, in a combat, the player whose "anyone?" window is open (every
player in turn may play a card or pass; the combat resolves when every player has passed in a row),
or the player who was asked for help, or who runs away, or who picks from a body, or who answers a
trade.

The state is a plain JSON dict; ``apply`` works on a deep copy and never mutates its input. An
action is legal exactly when it is in ``legal_actions`` (apply checks membership), so the screen,
the bots and the engine can never disagree about what may be done.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from games.engine.base import LIST_TEXT as LIST_TEXT  # re-exported: its tests read it
from games.engine.base import IllegalAction
from games.engine.base import Phrase
from games.engine.base import Word
from games.engine.base import check_bot_call
from games.engine.base import check_setup
from games.engine.base import describe_with
from games.engine.base import gettext_noop
from games.engine.base import listing
from games.engine.base import load_checked
from games.engine.base import ngettext_noop

from .cards import ALL_IDS
from .cards import CARDS
from .cards import CLASSES as CLASSES  # re-exported: tests and presenters read mk.CLASSES
from .cards import DOORS
from .cards import KIND_NAMES
from .cards import RACES as RACES
from .cards import TREASURES

SLUG = "munchkin"
NAME = "Munchkin"
MIN_PLAYERS = 3
MAX_PLAYERS = 6
OPTIONS: dict[str, dict] = {
    "listen": {"choices": ["no", "yes"], "default": "no"},
    "shared_victory": {"choices": ["no", "yes"], "default": "no"},
}
LEVELS = ["random", "munchkin"]
BEST_LEVEL = "munchkin"

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

WIN_LEVEL = 10
HAND_LIMIT = 5
ROUND_CAP = 30  # the dungeon closes after 30 rounds: the highest level wins
PLY_CAP = 2500  # a safety net: no game is longer than this many moves
START_CARDS = 4
ESCAPE_ON = 5
SELL_PRICE = 1000

PHASES = (
    "create",
    "prep",
    "trouble",
    "combat",
    "help",
    "run",
    "loot_body",
    "charity",
    "give",
    "trade",
    "over",
)
TURN_PHASES = ("prep", "trouble", "charity")
INT_KEYS = ("to", "target", "monster", "treasures", "victim")
LOG_SIZE = 16  # the public log of the last events (every event is public: no hand card in it)
QUIET_EVENTS = ("passed", "ready", "turn_over", "reshuffled")

MSG_OVER = gettext_noop("The game is over.")
MSG_NOT_TURN = gettext_noop("It is not your turn yet.")
MSG_UNKNOWN = gettext_noop("I do not understand that move.")
MSG_ILLEGAL = gettext_noop("You cannot do that now.")
MSG_NOT_IN_HAND = gettext_noop("That card is not in your hand.")


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------
_FLAT = (
    "door_deck",
    "door_discard",
    "treasure_deck",
    "treasure_discard",
    "levels",
    "mixed",
    "double",
    "dead",
    "given",
)
_NESTED = ("hands", "races", "classes", "items", "used", "curses")


def _deep(x: Any) -> Any:
    if type(x) is dict:
        return {k: _deep(v) for k, v in x.items()}
    if type(x) is list:
        return [_deep(v) for v in x]
    return x


def _clone(state: State) -> State:
    """A deep copy (faster than a generic one: most of the state is lists of card ids)."""
    s = dict(state)
    for key in _FLAT:
        s[key] = list(state[key])
    for key in _NESTED:
        s[key] = [list(x) for x in state[key]]
    for key, value in state.items():
        if key not in _FLAT and key not in _NESTED and type(value) in (dict, list):
            s[key] = _deep(value)
    return s


def _rng(s: State, tag: str) -> random.Random:
    s["rng_n"] += 1
    return random.Random(f"{s['seed']}:{tag}:{s['rng_n']}")


def _roll(s: State) -> int:
    return _rng(s, "die").randint(1, 6)


def _kind(cid: str) -> str:
    return CARDS[cid]["kind"]


def _name(cid: str) -> str:
    return CARDS[cid]["name"]


def _gold(cid: str) -> int:
    return CARDS[cid].get("gold", 0)


def _races(s: State, p: int) -> set[str]:
    return {CARDS[c]["race"] for c in s["races"][p]}


def _classes(s: State, p: int) -> set[str]:
    return {CARDS[c]["cls"] for c in s["classes"][p]}


def _is(s: State, p: int, who: str) -> bool:
    return who in _races(s, p) or who in _classes(s, p)


def _valid(s: State, p: int, cid: str) -> bool:
    """May ``p`` use this item (its restriction)?"""
    r = CARDS[cid].get("restriction")
    if not r:
        return True
    return _is(s, p, r[1]) if r[0] == "only" else not _is(s, p, r[1])


def _active(s: State, p: int) -> list[str]:
    """The items ``p`` uses that help: in use and allowed for this character."""
    return [c for c in s["used"][p] if _valid(s, p, c)]


def _slot_free(s: State, p: int, cid: str) -> bool:
    slot = CARDS[cid].get("slot", "none")
    if slot == "none":
        return True
    used = [CARDS[c].get("slot", "none") for c in s["used"][p]]
    if slot == "hand1" or slot == "hand2":
        hands = used.count("hand1") + 2 * used.count("hand2")
        return hands + (1 if slot == "hand1" else 2) <= 2
    return slot not in used


def _big_ok(s: State, p: int, adding: str, removing: str | None = None) -> bool:
    if not CARDS[adding].get("big") or "stoutling" in _races(s, p):
        return True
    return not any(CARDS[c].get("big") and c != removing for c in s["items"][p])


def _levels_alive(s: State) -> list[int]:
    return [p for p in range(s["players"]) if not s["dead"][p]]


def _discard(s: State, cid: str) -> None:
    s["door_discard" if CARDS[cid]["deck"] == "door" else "treasure_discard"].append(cid)


def _draw(s: State, deck: str, events: list[Event] | None = None) -> str | None:
    pile = s[f"{deck}_deck"]
    if not pile:
        discard = s[f"{deck}_discard"]
        if not discard:
            return None
        pile.extend(discard)
        discard.clear()
        _rng(s, f"shuffle-{deck}").shuffle(pile)
        if events is not None:
            events.append({"kind": "reshuffled", "deck": deck})
    return pile.pop()


def _hand_limit(s: State, p: int) -> int:
    return HAND_LIMIT + 1 if "stoutling" in _races(s, p) else HAND_LIMIT


def _take_from_hand(s: State, p: int, cid: str) -> None:
    s["hands"][p].remove(cid)


def _remove_item(s: State, p: int, cid: str) -> None:
    s["items"][p].remove(cid)
    if cid in s["used"][p]:
        s["used"][p].remove(cid)


def _place_item(s: State, p: int, cid: str, may_use: bool = True) -> None:
    """Put an item on ``p``'s table: in use when it fits and may be used, else carried."""
    s["items"][p].append(cid)
    if (
        may_use
        and _kind(cid) == "item"
        and _valid(s, p, cid)
        and _slot_free(s, p, cid)
        and s["phase"] not in ("combat", "help", "run")
    ):
        s["used"][p].append(cid)


def _least_useful(s: State, p: int, cands: list[str]) -> str:
    """Where the victim chooses what to lose, the game chooses for them the least useful."""
    return min(cands, key=lambda c: (c in _active(s, p), CARDS[c].get("bonus", 0), _gold(c), c))


# --------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------
def setup(players: int, seed: int, options: dict | None = None) -> State:
    given = check_setup(players, seed, options, MIN_PLAYERS, MAX_PLAYERS, NAME)
    opts = {name: spec["default"] for name, spec in OPTIONS.items()}
    for name, value in given.items():
        if name not in OPTIONS:
            raise ValueError(f"unknown option {name!r}")
        if value not in OPTIONS[name]["choices"]:
            raise ValueError(f"bad choice {value!r} for {name!r}")
        opts[name] = value
    doors = list(DOORS)
    treasures = list(TREASURES)
    random.Random(f"{seed}:door:0").shuffle(doors)
    random.Random(f"{seed}:treasure:0").shuffle(treasures)
    hands: list[list[str]] = [[] for _ in range(players)]
    for _ in range(START_CARDS):
        for p in range(players):
            hands[p].append(doors.pop())
            hands[p].append(treasures.pop())
    n = players
    return {
        "game": SLUG,
        "seed": seed,
        "players": players,
        "options": opts,
        "ply": 0,
        "rng_n": 0,
        "door_deck": doors,
        "door_discard": [],
        "treasure_deck": treasures,
        "treasure_discard": [],
        "hands": hands,
        "levels": [1] * n,
        "races": [[] for _ in range(n)],
        "classes": [[] for _ in range(n)],
        "mixed": [None] * n,
        "double": [None] * n,
        "items": [[] for _ in range(n)],
        "used": [[] for _ in range(n)],
        "curses": [[] for _ in range(n)],
        "dead": [False] * n,
        "current": 0,
        "phase": "create",
        "turns": 0,
        "turn": _fresh_turn(),
        "combat": None,
        "run": None,
        "loot": None,
        "loot_queue": [],
        "trade": None,
        "given": [0] * n,
        "door": None,
        "last_roll": None,
        "log": [],
        "result": None,
    }


def _fresh_turn() -> dict:
    return {"purse": 0, "pocket_sold": False, "flipped": [], "offered": []}


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------
def to_act(state: State) -> tuple[int, ...]:
    phase = state["phase"]
    if phase == "over":
        return ()
    if phase == "combat":
        return (state["combat"]["turn"],)
    if phase == "help":
        return (state["combat"]["asking"],)
    if phase == "run":
        return (state["run"]["runner"],)
    if phase == "loot_body":
        return (state["loot"]["order"][0],)
    if phase == "trade":
        return (state["trade"]["to"],)
    return (state["current"],)


def outcome(state: State) -> dict | None:
    return state["result"]


def private(state: State, seat: int) -> set[str]:
    return set(state["hands"][seat])


def cards(state: State) -> list[str]:
    """Test support: every card id, wherever it is."""
    s = state
    out = list(s["door_deck"]) + s["door_discard"] + s["treasure_deck"] + s["treasure_discard"]
    for p in range(s["players"]):
        out += s["hands"][p] + s["races"][p] + s["classes"][p] + s["items"][p] + s["curses"][p]
        out += [c for c in (s["mixed"][p], s["double"][p]) if c]
    c = s["combat"]
    if c is not None:
        for m in c["monsters"] + c["removed"]:
            out.append(m["card"])
            out += m["enh"]
        out += [o[0] for o in c["oneshots"]]
    if s["loot"] is not None:
        out += s["loot"]["cards"]
    for body in s["loot_queue"]:
        out += body["cards"]
    return out


def _live(c: dict) -> list[int]:
    return list(range(len(c["monsters"])))


# --- strengths ------------------------------------------------------------------------------
def _char_parts(s: State, p: int, c: dict | None) -> list[dict]:
    parts = [{"kind": "level", "seat": p, "value": s["levels"][p]}]
    for cid in _active(s, p):
        b = CARDS[cid].get("bonus", 0)
        if b:
            parts.append({"kind": "item", "seat": p, "name": _name(cid), "value": b})
    if c is not None:
        for cid in s["curses"][p]:
            eff = CARDS[cid]["effect"]
            if eff[0] == "next_combat":
                parts.append({"kind": "curse", "seat": p, "name": _name(cid), "value": -eff[1]})
        fury = c["fury"][p]
        if fury:
            parts.append({"kind": "fury", "seat": p, "value": fury})
        shoo = c["shoo"][p]
        if shoo:
            parts.append({"kind": "shoo", "seat": p, "value": 3 * shoo})
        for by, victim in c["pokes"]:
            if victim == p:
                parts.append({"kind": "poke", "seat": p, "by": by, "value": -2})
    return parts


def _combatants(c: dict) -> list[int]:
    return [c["fighter"]] + ([c["helper"]] if c["helper"] is not None else [])


def _monster_parts(s: State, c: dict, i: int) -> list[dict]:
    m = c["monsters"][i]
    card = CARDS[m["card"]]
    parts = [{"kind": "level", "name": card["name"], "value": card["level"]}]
    for e in m["enh"]:
        parts.append({"kind": "enhancer", "name": _name(e), "value": CARDS[e]["bonus"]})
    bonus = card.get("bonus")
    if bonus and any(_is(s, p, bonus[0]) for p in _combatants(c)):
        parts.append({"kind": "against", "who": bonus[0], "value": bonus[1]})
    return parts


def strengths(s: State) -> dict | None:
    """Both sides of the current combat with every modifier (public)."""
    c = s["combat"]
    if c is None:
        return None
    players: list[dict] = []
    for p in _combatants(c):
        players += _char_parts(s, p, c)
    for cid, side in c["oneshots"]:
        if side == "players":
            players.append(
                {"kind": "oneshot", "name": _name(cid), "value": CARDS[cid]["effect"][1]}
            )
    monsters = []
    for i in _live(c):
        parts = _monster_parts(s, c, i)
        monsters.append(
            {
                "index": i,
                "card": _public(c["monsters"][i]["card"]),
                "parts": parts,
                "total": sum(x["value"] for x in parts),
                "treasures": _treasure_of(c["monsters"][i]),
            }
        )
    mon_extra = [
        {"kind": "oneshot", "name": _name(cid), "value": CARDS[cid]["effect"][1]}
        for cid, side in c["oneshots"]
        if side == "monsters"
    ]
    p_total = sum(x["value"] for x in players)
    m_total = sum(m["total"] for m in monsters) + sum(x["value"] for x in mon_extra)
    ties = any("brawler" in _classes(s, p) for p in _combatants(c))
    win = not monsters or p_total > m_total or (ties and p_total == m_total)
    return {
        "players": players,
        "players_total": p_total,
        "monsters": monsters,
        "monster_extra": mon_extra,
        "monsters_total": m_total,
        "ties_win": ties,
        "winning": win,
    }


def _treasure_of(m: dict) -> int:
    return max(0, CARDS[m["card"]]["treasures"] + sum(CARDS[e]["treasure"] for e in m["enh"]))


def _total_treasure(c: dict) -> int:
    return sum(_treasure_of(m) for m in c["monsters"]) + sum(
        _treasure_of(m) for m in c["removed"] if m["keep"]
    )


def _run_bonus(s: State, p: int) -> int:
    b = sum(CARDS[c].get("run", 0) for c in _active(s, p))
    if "sprite" in _races(s, p):
        b += 1
    if "sneak" in _classes(s, p):
        b += 1
    b -= sum(1 for c in s["curses"][p] if CARDS[c]["effect"][0] == "chicken")
    return b


def timeout_action(state: State, seat: int) -> Action | None:
    """What the table does for ``seat`` when its time is up (the optional protocol hook), so a
    person who closed the page never stalls the others (docs/rules, "Waiting for somebody"):
    in a combat's "anyone?" window, pass; asked for help or offered a trade, say no; due to
    run away, roll for the first monster left. Nothing else in Munchkin has a clock."""
    if seat not in to_act(state):
        return None
    phase = state["phase"]
    if phase == "combat":
        return {"type": "pass"}
    if phase in ("help", "trade"):
        return {"type": "decline"}
    if phase == "run" and state["run"]["left"]:
        return {"type": "roll", "monster": state["run"]["left"][0]}
    return None


# --------------------------------------------------------------------------------------------
# Legal actions
# --------------------------------------------------------------------------------------------
def legal_actions(state: State, seat: int) -> list[Action]:
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    acts: list[Action] = []
    if phase == "create":
        _create_actions(state, seat, acts)
        acts.append({"type": "ready"})
    elif phase in TURN_PHASES:
        _turn_actions(state, seat, acts)
        if phase == "prep":
            acts.append({"type": "kick"})
        elif phase == "trouble":
            for cid in state["hands"][seat]:
                if _kind(cid) == "monster":
                    acts.append({"type": "fight", "card": cid})
            acts.append({"type": "loot"})
            acts.append({"type": "end_turn"})  # looting is optional ("puedes saquear")
        else:
            acts.append({"type": "end_turn"})
    elif phase == "give":
        _give_actions(state, seat, acts)
    elif phase == "combat":
        _window_actions(state, seat, acts)
    elif phase == "help":
        acts += [{"type": "accept"}, {"type": "decline"}]
    elif phase == "run":
        _run_actions(state, seat, acts)
    elif phase == "loot_body":
        acts += [{"type": "take", "card": cid} for cid in state["loot"]["cards"]]
    elif phase == "trade":
        give = state["trade"]["card"]
        frm = state["trade"]["from"]
        for cid in state["items"][seat]:
            if _big_ok(state, seat, give, cid) and _big_ok(state, frm, cid, give):
                acts.append({"type": "swap", "card": cid})
        acts.append({"type": "decline"})
    return acts


def _can_race(s: State, p: int, cid: str) -> bool:
    return CARDS[cid]["race"] not in _races(s, p)


def _can_class(s: State, p: int, cid: str) -> bool:
    return CARDS[cid]["cls"] not in _classes(s, p)


def _create_actions(s: State, p: int, acts: list[Action]) -> None:
    """Race, class, Half-and-Half, Double Major and items from the hand (character creation)."""
    for cid in s["hands"][p]:
        k = _kind(cid)
        ok = (
            (k == "race" and _can_race(s, p, cid))
            or (k == "class" and _can_class(s, p, cid))
            or (k == "mixed" and bool(s["races"][p]) and s["mixed"][p] is None)
            or (k == "double" and bool(s["classes"][p]) and s["double"][p] is None)
            or (k in ("item", "oneshot") and _big_ok(s, p, cid))
        )
        if ok:
            acts.append({"type": "play", "card": cid})


def _turn_actions(s: State, p: int, acts: list[Action]) -> None:
    _create_actions(s, p, acts)
    level = s["levels"][p]
    living = _levels_alive(s)
    purse = s["turn"]["purse"]
    for cid in s["hands"][p]:
        k = _kind(cid)
        if k == "levelup" and level < WIN_LEVEL - 1:
            acts.append({"type": "levelup", "card": cid})
        elif k == "curse":
            acts += [{"type": "curse", "card": cid, "target": t} for t in living]
        if k in ("item", "oneshot"):
            acts += _sales(s, p, cid, purse, level)
    for cid in s["items"][p]:
        acts += _sales(s, p, cid, purse, level)
        if cid not in s["turn"]["flipped"] and _kind(cid) == "item":
            if cid in s["used"][p]:
                acts.append({"type": "stow", "card": cid})
            elif _valid(s, p, cid) and _slot_free(s, p, cid):
                acts.append({"type": "use", "card": cid})
    _uncurse_actions(s, p, acts)
    for cid in s["races"][p] + s["classes"][p]:
        acts.append({"type": "drop", "card": cid})
    if s["items"][p]:
        for q in living:
            if q != p and q not in s["turn"]["offered"] and s["items"][q]:
                acts += [{"type": "offer", "card": cid, "to": q} for cid in s["items"][p]]
        # A gift, nothing asked back ("también puedes regalar objetos sin recibir nada a
        # cambio"): to a living player who may hold it (one Big item, unless a Stoutling).
        for q in living:
            if q != p:
                acts += [
                    {"type": "gift", "card": cid, "to": q}
                    for cid in s["items"][p]
                    if _big_ok(s, q, cid)
                ]


def _sales(s: State, p: int, cid: str, purse: int, level: int) -> list[Action]:
    """Selling ``cid``: at its price, and for a Pocketkin who has not yet this turn, at twice
    it ("one sale a turn at double price": the player chooses which sale, docs/rules)."""
    out = []
    if _sell_ok(s, p, cid, purse, level, double=False):
        out.append({"type": "sell", "card": cid})
    if _pocket_double(s, p) and _sell_ok(s, p, cid, purse, level, double=True):
        out.append({"type": "sell", "card": cid, "price": "double"})
    return out


def _pocket_double(s: State, p: int) -> bool:
    return "pocketkin" in _races(s, p) and not s["turn"]["pocket_sold"]


def _sell_ok(s: State, p: int, cid: str, purse: int, level: int, *, double: bool) -> bool:
    value = _gold(cid) * (2 if double else 1)
    if not value:
        return False
    return level + (purse + value) // SELL_PRICE < WIN_LEVEL


def _uncurse_actions(s: State, p: int, acts: list[Action]) -> None:
    if not s["curses"][p]:
        return
    for cid in s["hands"][p] + s["items"][p]:
        if _kind(cid) == "oneshot" and CARDS[cid]["effect"][0] == "uncurse":
            acts += [{"type": "uncurse", "card": cid, "curse": k} for k in s["curses"][p]]


def _give_actions(s: State, p: int, acts: list[Action]) -> None:
    targets = _charity_targets(s, p)
    for cid in s["hands"][p]:
        if targets:
            acts += [{"type": "give", "card": cid, "to": q} for q in targets]
        else:
            acts.append({"type": "discard", "card": cid})


def _charity_targets(s: State, p: int) -> list[int]:
    others = [q for q in _levels_alive(s) if q != p]
    if not others:
        return []
    low = min(s["levels"][q] for q in others)
    if s["levels"][p] <= low:
        return []  # you are the lowest (or tied): discard
    lowest = [q for q in others if s["levels"][q] == low]
    least = min(s["given"][q] for q in lowest)
    return [q for q in lowest if s["given"][q] == least]


def _window_actions(s: State, q: int, acts: list[Action]) -> None:
    c = s["combat"]
    acts.append({"type": "pass"})
    live = _live(c)
    combatants = _combatants(c)
    hand = s["hands"][q]
    for cid in hand + [x for x in s["items"][q] if _kind(x) == "oneshot"]:
        k = _kind(cid)
        if k == "oneshot":
            eff = CARDS[cid]["effect"][0]
            if eff == "bonus":
                acts.append({"type": "oneshot", "card": cid, "side": "players"})
                acts.append({"type": "oneshot", "card": cid, "side": "monsters"})
            elif eff == "remove":
                acts += [{"type": "oneshot", "card": cid, "monster": i} for i in live]
        elif k == "enhancer":
            acts += [{"type": "enhance", "card": cid, "monster": i} for i in live]
        elif k == "wander":
            for m in hand:
                if _kind(m) == "monster":
                    acts.append({"type": "wander", "card": cid, "monster_card": m})
        elif k == "curse":
            acts += [{"type": "curse", "card": cid, "target": t} for t in _levels_alive(s)]
    _uncurse_actions(s, q, acts)
    fuel = hand + s["items"][q]
    if q in combatants:
        for cid in s["races"][q] + s["classes"][q]:
            acts.append({"type": "drop", "card": cid})
        cls = _classes(s, q)
        if "brawler" in cls and c["fury"][q] < 3:
            acts += [{"type": "fury", "card": cid} for cid in fuel]
        spooky = any(CARDS[c["monsters"][i]["card"]]["undead"] for i in live)
        if "healer" in cls and c["shoo"][q] < 3 and spooky:
            acts += [{"type": "shoo", "card": cid} for cid in fuel]
        if "spellsinger" in cls and len(hand) >= 3:
            acts += [{"type": "lullaby", "monster": i} for i in live]
    if "sneak" in _classes(s, q):
        for v in combatants:
            if v != q and [q, v] not in c["pokes"]:
                acts += [{"type": "poke", "victim": v, "card": cid} for cid in fuel]
    if q == c["fighter"] and c["helper"] is None:
        total = _total_treasure(c)
        for h in _levels_alive(s):
            if h != q and h not in c["asked"]:
                acts += [{"type": "ask_help", "to": h, "treasures": k} for k in range(total + 1)]
                acts += [
                    {"type": "ask_help", "to": h, "item": cid}
                    for cid in s["items"][q]
                    if _big_ok(s, h, cid)
                ]


def _run_actions(s: State, p: int, acts: list[Action]) -> None:
    r = s["run"]
    for i in r["left"]:
        acts.append({"type": "roll", "monster": i})
    for i in r["left"]:
        for cid in s["hands"][p] + s["items"][p]:
            if _kind(cid) == "oneshot" and CARDS[cid]["effect"][0] == "escape":
                acts.append({"type": "escape", "card": cid, "monster": i})
    if "spellsinger" in _classes(s, p) and r["flutter"] < 3:
        acts += [{"type": "flutter", "card": cid} for cid in s["hands"][p] + s["items"][p]]


# --------------------------------------------------------------------------------------------
# Apply
# --------------------------------------------------------------------------------------------
def _normalise(action: Any) -> Action:
    if not isinstance(action, dict):
        raise IllegalAction(MSG_UNKNOWN)
    out = dict(action)
    for key in INT_KEYS:
        v = out.get(key)
        if isinstance(v, str):
            # ASCII digits only, one sign at most: str.isdigit() is true for "²", which
            # int() refuses, and so it does "--1".
            digits = v.removeprefix("-")
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 6):
                raise IllegalAction(MSG_UNKNOWN)
            out[key] = int(v)
    return out


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if state["phase"] == "over":
        raise IllegalAction(MSG_OVER)
    if seat not in to_act(state):
        raise IllegalAction(MSG_NOT_TURN)
    action = _normalise(action)
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _HANDLERS:
        raise IllegalAction(MSG_UNKNOWN)
    if action not in legal_actions(state, seat):
        card = action.get("card")
        if isinstance(card, str) and card in CARDS and "card" in action:
            mine = state["hands"][seat] + state["items"][seat]
            mine += state["races"][seat] + state["classes"][seat]
            if state["phase"] == "loot_body":
                mine += state["loot"]["cards"]
            if card not in mine:
                raise IllegalAction(MSG_NOT_IN_HAND)
        raise IllegalAction(_why_not(state, seat, action))
    s = _clone(state)
    s["ply"] += 1
    events: list[Event] = []
    _HANDLERS[kind](s, seat, action, events)
    if s["phase"] != "over" and s["ply"] >= PLY_CAP:
        _finish(s, "time", events)
    shown = [dict(e, by=seat) for e in events if e["kind"] not in QUIET_EVENTS]
    if shown:
        s["log"] = (s["log"] + shown)[-LOG_SIZE:]
    return s, events


def _why_not(s: State, seat: int, action: Action) -> str:
    kind = action.get("type")
    card = action.get("card")
    if kind == "levelup":
        if s["phase"] in ("combat", "run", "help"):
            return gettext_noop("You cannot go up a level in the middle of a combat.")
        return gettext_noop("You can only reach level 10 by killing a monster.")
    if kind == "sell":
        if s["phase"] not in TURN_PHASES:
            return gettext_noop("You can only sell items on your own turn, outside a combat.")
        return gettext_noop("You cannot buy level 10: you must kill a monster to win.")
    if kind == "play" and isinstance(card, str) and card in CARDS:
        k = _kind(card)
        if k in ("item", "oneshot"):
            return gettext_noop("You can carry only one Big item (unless you are a Stoutling).")
        if k == "race":
            return gettext_noop("You already are that race.")
        if k == "class":
            return gettext_noop("You already have that class.")
        if k == "mixed":
            return gettext_noop("Play a race first, then Half-and-Half.")
        if k == "double":
            return gettext_noop("Play a class first, then Double Major.")
    if kind == "use":
        return gettext_noop("That item does not fit: that slot is full, or you may not use it.")
    if kind == "kick" and s["phase"] != "prep":
        return gettext_noop("You already opened the door this turn.")
    if kind == "ask_help":
        return gettext_noop(
            "Only the fighter may ask for help, once per player, and only one can help."
        )
    if kind == "end_turn" and s["phase"] not in ("charity", "trouble"):
        return gettext_noop("Finish this part of your turn first.")
    return MSG_ILLEGAL


# --- character creation and the turn's own actions ---------------------------------------
def _h_play(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    _take_from_hand(s, p, cid)
    k = _kind(cid)
    if k == "race":
        cap = 2 if s["mixed"][p] else 1
        if len(s["races"][p]) >= cap:
            old = s["races"][p].pop(0)
            _discard(s, old)
            ev.append({"kind": "dropped", "seat": p, "name": _name(old)})
        s["races"][p].append(cid)
        _fix_big(s, p, ev)
    elif k == "class":
        cap = 2 if s["double"][p] else 1
        if len(s["classes"][p]) >= cap:
            old = s["classes"][p].pop(0)
            _discard(s, old)
            ev.append({"kind": "dropped", "seat": p, "name": _name(old)})
        s["classes"][p].append(cid)
    elif k == "mixed":
        s["mixed"][p] = cid
    elif k == "double":
        s["double"][p] = cid
    else:
        _place_item(s, p, cid)
    ev.append({"kind": "played", "seat": p, "name": _name(cid), "what": k})


def _h_ready(s: State, p: int, a: Action, ev: list[Event]) -> None:
    ev.append({"kind": "ready", "seat": p})
    if p + 1 < s["players"]:
        s["current"] = p + 1
    else:
        _start_turn(s, 0, ev)


def _h_levelup(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    _take_from_hand(s, p, cid)
    _discard(s, cid)
    s["levels"][p] += 1
    ev.append({"kind": "levelup", "seat": p, "name": _name(cid), "level": s["levels"][p]})


def _h_sell(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    if cid in s["hands"][p]:
        _take_from_hand(s, p, cid)
    else:
        _remove_item(s, p, cid)
    _discard(s, cid)
    value = _gold(cid)
    double = a.get("price") == "double"  # legal only for a Pocketkin's first sale of the turn
    if double:
        value *= 2
        s["turn"]["pocket_sold"] = True
    purse = s["turn"]["purse"] + value
    gained = purse // SELL_PRICE
    s["turn"]["purse"] = purse % SELL_PRICE
    s["levels"][p] += gained
    ev.append(
        {
            "kind": "sold",
            "seat": p,
            "name": _name(cid),
            "gold": value,
            "double": double,
            "levels": gained,
            "purse": s["turn"]["purse"],
            "level": s["levels"][p],
        }
    )


def _h_use(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    s["used"][p].append(cid)
    s["turn"]["flipped"].append(cid)
    ev.append({"kind": "use", "seat": p, "name": _name(cid)})


def _h_stow(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    s["used"][p].remove(cid)
    s["turn"]["flipped"].append(cid)
    ev.append({"kind": "stow", "seat": p, "name": _name(cid)})


def _h_drop(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    if _kind(cid) == "race":
        s["races"][p].remove(cid)
        if not s["races"][p] and s["mixed"][p]:
            _discard(s, s["mixed"][p])
            s["mixed"][p] = None
    else:
        s["classes"][p].remove(cid)
        if not s["classes"][p] and s["double"][p]:
            _discard(s, s["double"][p])
            s["double"][p] = None
    _discard(s, cid)
    ev.append({"kind": "dropped", "seat": p, "name": _name(cid)})
    _fix_big(s, p, ev)
    _after_card_in_window(s, p, ev)


def _fix_big(s: State, p: int, ev: list[Event]) -> None:
    """Not a Stoutling any more with several Big items: keep the most valuable one; the others
    go to the lowest-level players who can carry them, or to the discards."""
    if "stoutling" in _races(s, p):
        return
    bigs = sorted((c for c in s["items"][p] if CARDS[c].get("big")), key=lambda c: (-_gold(c), c))
    for cid in bigs[1:]:
        _remove_item(s, p, cid)
        takers = [
            q
            for q in _levels_alive(s)
            if q != p
            and ("stoutling" in _races(s, q) or not any(CARDS[x].get("big") for x in s["items"][q]))
        ]
        if takers:
            low = min(s["levels"][q] for q in takers)
            q = min(q for q in takers if s["levels"][q] == low)
            _place_item(s, q, cid)
            ev.append({"kind": "big_given", "seat": p, "to": q, "name": _name(cid)})
        else:
            _discard(s, cid)
            ev.append({"kind": "big_discarded", "seat": p, "name": _name(cid)})


def _h_curse(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    _take_from_hand(s, p, cid)
    ev.append({"kind": "curse", "seat": p, "target": a["target"], "name": _name(cid)})
    _apply_curse(s, a["target"], cid, ev)
    _after_card_in_window(s, p, ev)


def _apply_curse(s: State, t: int, cid: str, ev: list[Event]) -> None:
    eff = CARDS[cid]["effect"]
    if eff[0] in ("next_combat", "chicken"):
        s["curses"][t].append(cid)
        ev.append({"kind": "curse_kept", "seat": t, "name": _name(cid)})
        return
    _discard(s, cid)
    _bad(s, t, eff, ev)


def _bad(s: State, t: int, eff: list, ev: list[Event]) -> None:
    """A curse or Bad Stuff hits ``t``. Something ``t`` does not have is simply ignored."""
    kind = eff[0]
    if kind == "levels":
        before = s["levels"][t]
        s["levels"][t] = max(1, before - eff[1])
        ev.append({"kind": "lost_levels", "seat": t, "n": before - s["levels"][t]})
        return
    if kind == "death":
        _die(s, t, ev)
        return
    if kind == "hand" or kind == "cards":
        hand = s["hands"][t]
        n = len(hand) if kind == "hand" else min(eff[1], len(hand))
        gone = sorted(hand, key=lambda c: (_gold(c), c))[:n]
        for cid in gone:
            hand.remove(cid)
            _discard(s, cid)
        ev.append({"kind": "lost_cards", "seat": t, "n": n})
        return
    if kind == "race" or kind == "class":
        zone = "races" if kind == "race" else "classes"
        extra = "mixed" if kind == "race" else "double"
        lost = list(s[zone][t])
        for cid in lost:
            _discard(s, cid)
        s[zone][t] = []
        if s[extra][t]:
            _discard(s, s[extra][t])
            s[extra][t] = None
        ev.append({"kind": f"lost_{kind}", "seat": t, "names": [_name(c) for c in lost]})
        if kind == "race":
            _fix_big(s, t, ev)
        return
    items = s["items"][t]
    if kind == "slot":
        cands = [c for c in items if CARDS[c].get("slot") == eff[1]]
        used = [c for c in cands if c in s["used"][t]]
        cands = used or cands
    elif kind == "small":
        cands = [c for c in items if not CARDS[c].get("big")]
    else:  # big
        cands = [c for c in items if CARDS[c].get("big")]
    if not cands:
        ev.append({"kind": "nothing_to_lose", "seat": t})
        return
    cid = _least_useful(s, t, cands) if kind != "slot" or len(cands) > 1 else cands[0]
    _remove_item(s, t, cid)
    _discard(s, cid)
    ev.append({"kind": "lost_item", "seat": t, "name": _name(cid)})


def _die(s: State, t: int, ev: list[Event]) -> None:
    body = list(s["hands"][t]) + list(s["items"][t])
    s["hands"][t] = []
    s["items"][t] = []
    s["used"][t] = []
    s["dead"][t] = True
    s["loot_queue"].append({"seat": t, "cards": body})
    ev.append({"kind": "died", "seat": t, "n": len(body)})


def _h_uncurse(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid, curse = a["card"], a["curse"]
    if cid in s["hands"][p]:
        _take_from_hand(s, p, cid)
    else:
        _remove_item(s, p, cid)
    _discard(s, cid)
    s["curses"][p].remove(curse)
    _discard(s, curse)
    ev.append({"kind": "uncursed", "seat": p, "name": _name(curse)})
    _after_card_in_window(s, p, ev)


def _h_offer(s: State, p: int, a: Action, ev: list[Event]) -> None:
    s["turn"]["offered"].append(a["to"])
    s["trade"] = {"from": p, "to": a["to"], "card": a["card"], "back": s["phase"]}
    s["phase"] = "trade"
    ev.append({"kind": "offer", "seat": p, "to": a["to"], "name": _name(a["card"])})


def _h_gift(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid, q = a["card"], a["to"]
    _remove_item(s, p, cid)
    _place_item(s, q, cid)
    ev.append({"kind": "gifted", "seat": p, "to": q, "name": _name(cid)})


def _h_swap(s: State, q: int, a: Action, ev: list[Event]) -> None:
    t = s["trade"]
    p, give, take = t["from"], t["card"], a["card"]
    s["phase"] = t["back"]
    s["trade"] = None
    _remove_item(s, p, give)
    _remove_item(s, q, take)
    _place_item(s, q, give)
    _place_item(s, p, take)
    ev.append({"kind": "swapped", "seat": q, "to": p, "name": _name(take), "got": _name(give)})


def _h_decline(s: State, q: int, a: Action, ev: list[Event]) -> None:
    if s["phase"] == "trade":
        t = s["trade"]
        s["phase"] = t["back"]
        s["trade"] = None
        ev.append({"kind": "trade_declined", "seat": q, "to": t["from"]})
        return
    c = s["combat"]
    s["phase"] = "combat"
    c["bribe"] = None
    c["asking"] = None
    c["turn"] = c["fighter"]
    c["passes"] = 0
    ev.append({"kind": "help_declined", "seat": q, "to": c["fighter"]})


# --- the turn: door, trouble, loot, charity -----------------------------------------------
def _start_turn(s: State, p: int, ev: list[Event]) -> None:
    s["turns"] += 1
    if s["turns"] > ROUND_CAP * s["players"]:
        _finish(s, "rounds", ev)
        return
    s["current"] = p
    s["phase"] = "prep"
    s["turn"] = _fresh_turn()
    s["given"] = [0] * s["players"]
    s["door"] = None
    ev.append({"kind": "turn", "seat": p, "number": s["turns"]})
    if s["dead"][p]:
        s["dead"][p] = False
        for _ in range(START_CARDS):
            for deck in ("door", "treasure"):
                cid = _draw(s, deck, ev)
                if cid:
                    s["hands"][p].append(cid)
        ev.append({"kind": "reborn", "seat": p})
    if s["options"]["listen"] == "yes":
        cid = _draw(s, "door", ev)
        if cid:
            s["hands"][p].append(cid)
        ev.append({"kind": "listened", "seat": p, "got": cid is not None})


def _h_kick(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = _draw(s, "door", ev)
    s["phase"] = "trouble"
    if cid is None:
        ev.append({"kind": "kicked", "seat": p, "name": None, "what": None})
        return
    k = _kind(cid)
    s["door"] = {"name": _name(cid), "kind": k}
    ev.append({"kind": "kicked", "seat": p, "name": _name(cid), "what": k})
    if k == "monster":
        _start_combat(s, p, cid, ev)
    elif k == "curse":
        _apply_curse(s, p, cid, ev)
    else:
        s["hands"][p].append(cid)


def _h_fight(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    _take_from_hand(s, p, cid)
    ev.append({"kind": "trouble", "seat": p, "name": _name(cid)})
    _start_combat(s, p, cid, ev)


def _h_loot(s: State, p: int, a: Action, ev: list[Event]) -> None:
    deck = "treasure" if s["options"]["listen"] == "yes" else "door"
    cid = _draw(s, deck, ev)
    if cid:
        s["hands"][p].append(cid)
    s["phase"] = "charity"
    ev.append({"kind": "looted", "seat": p, "deck": deck, "got": cid is not None})


def _h_end_turn(s: State, p: int, a: Action, ev: list[Event]) -> None:
    if len(s["hands"][p]) > _hand_limit(s, p):
        s["phase"] = "give"
        ev.append({"kind": "charity", "seat": p, "n": len(s["hands"][p]) - _hand_limit(s, p)})
        return
    _next_turn(s, p, ev)


def _next_turn(s: State, p: int, ev: list[Event]) -> None:
    ev.append({"kind": "turn_over", "seat": p})
    _start_turn(s, (p + 1) % s["players"], ev)


def _h_give(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid, q = a["card"], a["to"]
    _take_from_hand(s, p, cid)
    s["hands"][q].append(cid)
    s["given"][q] += 1
    ev.append({"kind": "gave", "seat": p, "to": q})
    if len(s["hands"][p]) <= _hand_limit(s, p):
        _next_turn(s, p, ev)


def _h_discard(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    _take_from_hand(s, p, cid)
    _discard(s, cid)
    ev.append({"kind": "discarded", "seat": p, "name": _name(cid)})
    if len(s["hands"][p]) <= _hand_limit(s, p):
        _next_turn(s, p, ev)


# --- combat ---------------------------------------------------------------------------------
def _start_combat(s: State, p: int, cid: str, ev: list[Event]) -> None:
    n = s["players"]
    s["phase"] = "combat"
    s["combat"] = {
        "fighter": p,
        "helper": None,
        "asked": [],
        "asking": None,
        "bribe": None,
        "deal": None,
        "monsters": [{"card": cid, "enh": []}],
        "removed": [],
        "oneshots": [],
        "fury": [0] * n,
        "shoo": [0] * n,
        "pokes": [],
        "turn": p,
        "passes": 0,
    }
    ev.append({"kind": "combat", "seat": p, "name": _name(cid)})
    _skip_empty(s, ev)


def _skip_empty(s: State, ev: list[Event]) -> None:
    """Seats with nothing at all (no card in hand, nothing on the table) pass at once: this
    shows nothing that the table does not already show."""
    c = s["combat"]
    n = s["players"]
    while c["passes"] < n:
        q = c["turn"]
        if s["hands"][q] or s["items"][q] or q in _combatants(c):
            return
        c["passes"] += 1
        c["turn"] = (q + 1) % n
    _resolve(s, ev)


def _after_card_in_window(s: State, p: int, ev: list[Event]) -> None:
    """A card played in a combat window: every player gets a new chance (passes start again)."""
    c = s["combat"]
    if s["phase"] != "combat" or c is None:
        return
    c["passes"] = 0
    c["turn"] = (p + 1) % s["players"]
    _skip_empty(s, ev)


def _h_pass(s: State, p: int, a: Action, ev: list[Event]) -> None:
    c = s["combat"]
    c["passes"] += 1
    c["turn"] = (p + 1) % s["players"]
    ev.append({"kind": "passed", "seat": p})
    if c["passes"] >= s["players"]:
        _resolve(s, ev)
    else:
        _skip_empty(s, ev)


def _from_hand_or_table(s: State, p: int, cid: str) -> None:
    if cid in s["hands"][p]:
        _take_from_hand(s, p, cid)
    else:
        _remove_item(s, p, cid)


def _h_oneshot(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    c = s["combat"]
    _from_hand_or_table(s, p, cid)
    if "side" in a:
        c["oneshots"].append([cid, a["side"]])
        ev.append({"kind": "oneshot", "seat": p, "name": _name(cid), "side": a["side"]})
    else:
        m = c["monsters"].pop(a["monster"])
        m["keep"] = False
        c["removed"].append(m)
        _discard(s, cid)
        ev.append({"kind": "removed", "seat": p, "name": _name(cid), "monster": _name(m["card"])})
    _after_card_in_window(s, p, ev)


def _h_enhance(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid = a["card"]
    _take_from_hand(s, p, cid)
    m = s["combat"]["monsters"][a["monster"]]
    m["enh"].append(cid)
    ev.append({"kind": "enhanced", "seat": p, "name": _name(cid), "monster": _name(m["card"])})
    _after_card_in_window(s, p, ev)


def _h_wander(s: State, p: int, a: Action, ev: list[Event]) -> None:
    cid, mon = a["card"], a["monster_card"]
    _take_from_hand(s, p, cid)
    _take_from_hand(s, p, mon)
    _discard(s, cid)
    s["combat"]["monsters"].append({"card": mon, "enh": []})
    ev.append({"kind": "wandered", "seat": p, "name": _name(mon)})
    _after_card_in_window(s, p, ev)


def _spend(s: State, p: int, cid: str) -> None:
    """Discard a card from hand or table to power a race or class ability."""
    _from_hand_or_table(s, p, cid)
    _discard(s, cid)


def _h_fury(s: State, p: int, a: Action, ev: list[Event]) -> None:
    _spend(s, p, a["card"])
    s["combat"]["fury"][p] += 1
    ev.append({"kind": "fury", "seat": p, "n": s["combat"]["fury"][p]})
    _after_card_in_window(s, p, ev)


def _h_shoo(s: State, p: int, a: Action, ev: list[Event]) -> None:
    _spend(s, p, a["card"])
    s["combat"]["shoo"][p] += 1
    ev.append({"kind": "shoo", "seat": p, "n": s["combat"]["shoo"][p]})
    _after_card_in_window(s, p, ev)


def _h_poke(s: State, p: int, a: Action, ev: list[Event]) -> None:
    _spend(s, p, a["card"])
    s["combat"]["pokes"].append([p, a["victim"]])
    ev.append({"kind": "poke", "seat": p, "victim": a["victim"]})
    _after_card_in_window(s, p, ev)


def _h_lullaby(s: State, p: int, a: Action, ev: list[Event]) -> None:
    c = s["combat"]
    for cid in list(s["hands"][p]):
        _spend(s, p, cid)
    m = c["monsters"].pop(a["monster"])
    m["keep"] = True
    c["removed"].append(m)
    ev.append({"kind": "lullaby", "seat": p, "monster": _name(m["card"])})
    _after_card_in_window(s, p, ev)


def _h_ask_help(s: State, p: int, a: Action, ev: list[Event]) -> None:
    c = s["combat"]
    h = a["to"]
    c["asked"].append(h)
    c["asking"] = h
    c["bribe"] = {"treasures": a.get("treasures", 0), "item": a.get("item")}
    s["phase"] = "help"
    ev.append(
        {
            "kind": "ask_help",
            "seat": p,
            "to": h,
            "treasures": a.get("treasures", 0),
            "item": _name(a["item"]) if a.get("item") else None,
        }
    )


def _h_accept(s: State, h: int, a: Action, ev: list[Event]) -> None:
    c = s["combat"]
    p = c["fighter"]
    c["helper"] = h
    c["asking"] = None
    c["deal"] = c["bribe"]
    c["bribe"] = None
    s["phase"] = "combat"
    item = c["deal"]["item"]
    if item:
        _remove_item(s, p, item)
        s["items"][h].append(item)  # received in a combat: carried until the helper's turn
    ev.append({"kind": "helps", "seat": h, "to": p})
    c["passes"] = 0
    c["turn"] = (h + 1) % s["players"]
    _skip_empty(s, ev)


def _resolve(s: State, ev: list[Event]) -> None:
    """Everybody passed in a row: the combat is decided."""
    c = s["combat"]
    st = strengths(s)
    p, h = c["fighter"], c["helper"]
    if st["winning"]:
        killed = list(c["monsters"])
        levels = sum(CARDS[m["card"]]["levels"] for m in killed)
        treasures = _total_treasure(c)
        ev.append(
            {
                "kind": "won",
                "seat": p,
                "helper": h,
                "killed": [_name(m["card"]) for m in killed],
                "players": st["players_total"],
                "monsters": st["monsters_total"],
                "levels": levels,
                "treasures": treasures,
            }
        )
        _cleanup(s)
        s["levels"][p] += levels
        if h is not None and "sprite" in _races(s, h) and killed:
            s["levels"][h] += len(killed)
            ev.append({"kind": "sprite_level", "seat": h, "n": len(killed)})
        deal = c["deal"] or {"treasures": 0}
        drawn_names: list[list] = []
        for i in range(treasures):
            cid = _draw(s, "treasure", ev)
            if cid is None:
                break
            taker = h if h is not None and i < deal["treasures"] else p
            s["hands"][taker].append(cid)
            drawn_names.append([taker, _name(cid)])
        if h is None:
            ev.append({"kind": "treasure", "seat": p, "n": len(drawn_names)})
        else:  # drawn face up when somebody helped
            ev.append({"kind": "treasure_shown", "seat": p, "cards": drawn_names})
        winners = [q for q in range(s["players"]) if s["levels"][q] >= WIN_LEVEL]
        if winners:
            if h is not None and p in winners and s["options"]["shared_victory"] == "yes":
                winners = sorted({*winners, h})
            _finish(s, "level10", ev, winners)
            return
        s["phase"] = "charity"
        return
    ev.append(
        {
            "kind": "lost",
            "seat": p,
            "helper": h,
            "players": st["players_total"],
            "monsters": st["monsters_total"],
        }
    )
    runners = _combatants(c)
    s["run"] = {"runner": runners[0], "queue": runners[1:], "left": [], "flutter": 0}
    s["phase"] = "run"
    _next_runner(s, ev, first=True)


def _next_runner(s: State, ev: list[Event], first: bool = False) -> None:
    r = s["run"]
    c = s["combat"]
    while True:
        if not first:
            if not r["queue"]:
                _end_run(s, ev)
                return
            r["runner"] = r["queue"].pop(0)
            r["flutter"] = 0
        first = False
        q = r["runner"]
        r["left"] = []
        for i, m in enumerate(c["monsters"]):
            limit = CARDS[m["card"]]["nochase"]
            if limit and s["levels"][q] <= limit:
                ev.append({"kind": "not_chased", "seat": q, "name": _name(m["card"])})
            else:
                r["left"].append(i)
        if r["left"]:
            return


def _run_step_done(s: State, q: int, i: int, ev: list[Event]) -> None:
    r = s["run"]
    r["left"].remove(i)
    if s["dead"][q]:
        r["left"] = []
    if not r["left"]:
        _next_runner(s, ev)


def _h_roll(s: State, q: int, a: Action, ev: list[Event]) -> None:
    i = a["monster"]
    c = s["combat"]
    mon = c["monsters"][i]["card"]
    die = _roll(s)
    bonus = _run_bonus(s, q) + CARDS[mon]["run"] + s["run"]["flutter"]
    ok = die + bonus >= ESCAPE_ON
    s["last_roll"] = {"seat": q, "die": die, "bonus": bonus, "escaped": ok, "name": _name(mon)}
    ev.append(
        {"kind": "rolled", "seat": q, "die": die, "bonus": bonus, "escaped": ok, "name": _name(mon)}
    )
    if not ok:
        ev.append({"kind": "bad_stuff", "seat": q, "name": _name(mon)})
        _bad(s, q, CARDS[mon]["bad"], ev)
    _run_step_done(s, q, i, ev)


def _h_escape(s: State, q: int, a: Action, ev: list[Event]) -> None:
    cid, i = a["card"], a["monster"]
    _from_hand_or_table(s, q, cid)
    _discard(s, cid)
    mon = s["combat"]["monsters"][i]["card"]
    ev.append({"kind": "escaped", "seat": q, "name": _name(cid), "monster": _name(mon)})
    _run_step_done(s, q, i, ev)


def _h_flutter(s: State, q: int, a: Action, ev: list[Event]) -> None:
    _spend(s, q, a["card"])
    s["run"]["flutter"] += 1
    ev.append({"kind": "flutter", "seat": q, "n": s["run"]["flutter"]})


def _end_run(s: State, ev: list[Event]) -> None:
    s["run"] = None
    _cleanup(s)
    _after_combat(s, ev)


def _cleanup(s: State) -> None:
    """Discard the monsters, their enhancers, the one-shots and the 'next combat' curses."""
    c = s["combat"]
    for m in c["monsters"] + c["removed"]:
        _discard(s, m["card"])
        for e in m["enh"]:
            _discard(s, e)
    for cid, _side in c["oneshots"]:
        _discard(s, cid)
    c["monsters"], c["removed"], c["oneshots"] = [], [], []
    for p in _combatants(c):
        for cid in list(s["curses"][p]):
            if CARDS[cid]["effect"][0] == "next_combat":
                s["curses"][p].remove(cid)
                _discard(s, cid)
    s["combat"] = None


def _after_combat(s: State, ev: list[Event]) -> None:
    if s["loot_queue"]:
        _start_loot(s, ev)
        return
    s["phase"] = "charity"


def _start_loot(s: State, ev: list[Event]) -> None:
    while s["loot_queue"]:
        body = s["loot_queue"].pop(0)
        dead = body["seat"]
        pickers = [q for q in _levels_alive(s) if q != dead]
        rolls = {q: _roll(s) for q in pickers}
        order = sorted(pickers, key=lambda q: (-s["levels"][q], -rolls[q], q))
        if not body["cards"]:
            continue
        if not order:
            for cid in body["cards"]:
                _discard(s, cid)
            continue
        s["loot"] = {"dead": dead, "cards": body["cards"], "order": order}
        s["phase"] = "loot_body"
        ev.append({"kind": "loot_body", "seat": dead, "order": order})
        return
    s["loot"] = None
    s["phase"] = "charity"


def _h_take(s: State, q: int, a: Action, ev: list[Event]) -> None:
    loot = s["loot"]
    cid = a["card"]
    loot["cards"].remove(cid)
    s["hands"][q].append(cid)
    loot["order"].pop(0)
    ev.append({"kind": "took", "seat": q, "from": loot["dead"], "name": _name(cid)})
    if not loot["order"] or not loot["cards"]:
        for rest in loot["cards"]:
            _discard(s, rest)
        s["loot"] = None
        _start_loot(s, ev)


# --- the end --------------------------------------------------------------------------------
def _finish(s: State, reason: str, ev: list[Event], winners: list[int] | None = None) -> None:
    levels = s["levels"]
    if winners is None:
        top = max(levels)
        winners = [p for p in range(s["players"]) if levels[p] == top]
    groups: dict[int, list[int]] = {}
    for p in range(s["players"]):
        if p not in winners:
            groups.setdefault(levels[p], []).append(p)
    ranking = [sorted(winners)] + [groups[k] for k in sorted(groups, reverse=True)]
    s["result"] = {"winners": sorted(winners), "ranking": ranking, "reason": reason}
    s["phase"] = "over"
    ev.append({"kind": "game_over", "winners": sorted(winners), "reason": reason})


_HANDLERS = {
    "play": _h_play,
    "ready": _h_ready,
    "levelup": _h_levelup,
    "sell": _h_sell,
    "use": _h_use,
    "stow": _h_stow,
    "drop": _h_drop,
    "curse": _h_curse,
    "uncurse": _h_uncurse,
    "offer": _h_offer,
    "gift": _h_gift,
    "swap": _h_swap,
    "decline": _h_decline,
    "kick": _h_kick,
    "fight": _h_fight,
    "loot": _h_loot,
    "end_turn": _h_end_turn,
    "give": _h_give,
    "discard": _h_discard,
    "pass": _h_pass,
    "oneshot": _h_oneshot,
    "enhance": _h_enhance,
    "wander": _h_wander,
    "fury": _h_fury,
    "shoo": _h_shoo,
    "poke": _h_poke,
    "lullaby": _h_lullaby,
    "ask_help": _h_ask_help,
    "accept": _h_accept,
    "roll": _h_roll,
    "escape": _h_escape,
    "flutter": _h_flutter,
    "take": _h_take,
}


# --------------------------------------------------------------------------------------------
# View
# --------------------------------------------------------------------------------------------
def _public(cid: str) -> dict:
    return dict(CARDS[cid])


def _character(s: State, p: int) -> dict:
    items = []
    for cid in s["items"][p]:
        d = _public(cid)
        d["used"] = cid in s["used"][p]
        d["valid"] = _valid(s, p, cid)
        items.append(d)
    return {
        "seat": p,
        "level": s["levels"][p],
        "races": [_public(c) for c in s["races"][p]],
        "classes": [_public(c) for c in s["classes"][p]],
        "mixed": _public(s["mixed"][p]) if s["mixed"][p] else None,
        "double": _public(s["double"][p]) if s["double"][p] else None,
        "items": items,
        "curses": [_public(c) for c in s["curses"][p]],
        "hand_count": len(s["hands"][p]),
        "hand_limit": _hand_limit(s, p),
        "dead": s["dead"][p],
        "strength": s["levels"][p] + sum(CARDS[c].get("bonus", 0) for c in _active(s, p)),
        "run_bonus": _run_bonus(s, p),
    }


def view(state: State, seat: int | None) -> dict:
    s = state
    v: dict[str, Any] = {
        "game": SLUG,
        "seat": seat,
        "players": s["players"],
        "options": dict(s["options"]),
        "phase": s["phase"],
        "current": s["current"],
        "to_act": list(to_act(s)),
        "turns": s["turns"],
        "round": (s["turns"] - 1) // s["players"] + 1 if s["turns"] else 0,
        "round_cap": ROUND_CAP,
        "characters": [_character(s, p) for p in range(s["players"])],
        "door_count": len(s["door_deck"]),
        "door_discard_count": len(s["door_discard"]),
        "treasure_count": len(s["treasure_deck"]),
        "treasure_discard_count": len(s["treasure_discard"]),
        "door": s["door"],
        "purse": s["turn"]["purse"],
        "last_roll": s["last_roll"],
        "log": list(s["log"]),
        "combat": None,
        "run": None,
        "loot": None,
        "trade": None,
        "charity": None,
        "outcome": s["result"],
    }
    if s["combat"] is not None:
        v["combat"] = _combat_view(s)
    if s["run"] is not None:
        v["run"] = _run_view(s)
    if s["loot"] is not None:
        v["loot"] = {
            "dead": s["loot"]["dead"],
            "cards": [_public(x) for x in s["loot"]["cards"]],
            "order": list(s["loot"]["order"]),
        }
    if s["trade"] is not None:
        t = s["trade"]
        v["trade"] = {"from": t["from"], "to": t["to"], "card": _public(t["card"])}
    if s["phase"] == "give":
        p = s["current"]
        v["charity"] = {
            "seat": p,
            "excess": len(s["hands"][p]) - _hand_limit(s, p),
            "targets": _charity_targets(s, p),
        }
    if seat is not None:
        v["hand"] = [_public(x) for x in s["hands"][seat]]
    return v


def _combat_view(s: State) -> dict:
    c = s["combat"]
    return {
        "fighter": c["fighter"],
        "helper": c["helper"],
        "asked": list(c["asked"]),
        "asking": c["asking"],
        "bribe": _bribe_view(c["bribe"]),
        "deal": _bribe_view(c["deal"]),
        "turn": c["turn"],
        "passes": c["passes"],
        "removed": [_name(m["card"]) for m in c["removed"]],
        "strengths": strengths(s),
        "treasures": _total_treasure(c),
    }


def _run_view(s: State) -> dict:
    c, r = s["combat"], s["run"]
    return {
        "runner": r["runner"],
        "left": [
            {
                "index": i,
                "name": _name(c["monsters"][i]["card"]),
                "bad": CARDS[c["monsters"][i]["card"]]["bad"],
                # The die roll that escapes this monster (1: any roll; 7: none).
                "need": max(
                    1,
                    min(
                        7,
                        ESCAPE_ON
                        - _run_bonus(s, r["runner"])
                        - r["flutter"]
                        - CARDS[c["monsters"][i]["card"]]["run"],
                    ),
                ),
            }
            for i in r["left"]
        ],
        "flutter": r["flutter"],
        "bonus": _run_bonus(s, r["runner"]) + r["flutter"],
    }


def _bribe_view(b: dict | None) -> dict | None:
    if b is None:
        return None
    return {"treasures": b["treasures"], "item": _public(b["item"]) if b["item"] else None}


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------
def dump(state: State) -> dict:
    return json.loads(json.dumps(state))


def _read(d: dict) -> tuple[State, bool, list[str]]:
    """A copy of a stored state, whether it holds together, and its cards."""
    s = json.loads(json.dumps(d))
    ok = (
        s["phase"] in PHASES
        and MIN_PLAYERS <= s["players"] <= MAX_PLAYERS
        and len(s["hands"]) == s["players"]
        and len(s["levels"]) == s["players"]
    )
    return s, ok, sorted(cards(s))


def load(d: dict) -> State:
    s, deck = load_checked(d, SLUG, NAME, _read, (KeyError, TypeError, AttributeError, ValueError))
    if deck != sorted(ALL_IDS):
        raise ValueError("the cards of this Munchkin state do not add up")
    return s


# --------------------------------------------------------------------------------------------
# Event texts, written once (games/engine/base.py): ``describe`` says them in plain English, the
# board's log translates the same templates with the seats' names. Every event is public.
# --------------------------------------------------------------------------------------------
EVENT_TEXTS = {
    "turn": gettext_noop("%(who)s's turn."),
    "played": gettext_noop("%(who)s played %(card)s."),
    "levelup": gettext_noop("%(who)s: %(card)s! Now level %(level)s."),
    "sold": gettext_noop("%(who)s sold %(card)s for %(gold)s gold."),
    "use": gettext_noop("%(who)s uses %(card)s."),
    "stow": gettext_noop("%(who)s carries %(card)s without using it."),
    "dropped": gettext_noop("%(who)s discarded %(card)s."),
    "curse": gettext_noop("%(who)s cursed %(target)s: %(card)s!"),
    "curse_kept": gettext_noop("%(who)s keeps the curse %(card)s."),
    "lost_no_level": gettext_noop("%(who)s stays at level 1."),
    "lost_levels": ngettext_noop("%(who)s lost %(n)s level.", "%(who)s lost %(n)s levels."),
    "lost_cards": ngettext_noop("%(who)s discarded %(n)s card.", "%(who)s discarded %(n)s cards."),
    "lost_item": gettext_noop("%(who)s lost %(card)s."),
    "lost_race": gettext_noop("%(who)s lost their race."),
    "lost_class": gettext_noop("%(who)s lost their class."),
    "nothing_to_lose": gettext_noop("%(who)s had nothing like that to lose."),
    "died": gettext_noop("%(who)s was knocked out cold!"),
    "uncursed": gettext_noop("%(who)s removed the curse %(card)s."),
    "offer": gettext_noop("%(who)s offers %(card)s to %(to)s."),
    "swapped": gettext_noop("%(who)s traded %(card)s for %(got)s."),
    "trade_declined": gettext_noop("%(who)s said no to the trade."),
    "help_declined": gettext_noop("%(who)s will not help %(to)s."),
    "kicked_nothing": gettext_noop("%(who)s kicked open the door: nothing there."),
    "kicked": gettext_noop("%(who)s kicked open the door: %(card)s (%(kind)s)."),
    "trouble": gettext_noop("%(who)s went looking for trouble: %(card)s!"),
    "looted": gettext_noop("%(who)s looted the room."),
    "charity": gettext_noop("%(who)s has too many cards."),
    "gave": gettext_noop("%(who)s gave %(to)s a card."),
    "discarded": gettext_noop("%(who)s discarded %(card)s."),
    "combat": gettext_noop("%(who)s fights %(card)s!"),
    "oneshot": gettext_noop("%(who)s used %(card)s for %(side)s."),
    "removed": gettext_noop("%(who)s used %(card)s: %(monster)s leaves the fight."),
    "enhanced": gettext_noop("%(who)s played %(card)s on %(monster)s."),
    "wandered": gettext_noop("%(who)s sent %(card)s into the fight!"),
    "fury": gettext_noop("%(who)s used Pillow Fury."),
    "shoo": gettext_noop("%(who)s used Shoo, Spooks!"),
    "poke": gettext_noop("%(who)s gave %(victim)s a sneaky poke."),
    "lullaby": gettext_noop("%(who)s sang %(monster)s to sleep."),
    "ask_help": gettext_noop("%(who)s asks %(to)s for help, offering %(bribe)s."),
    "helps": gettext_noop("%(who)s helps %(to)s!"),
    "won": gettext_noop("%(who)s won the fight (%(p)s against %(m)s)!"),
    "sprite_level": gettext_noop("%(who)s goes up a level for helping."),
    "treasure": ngettext_noop(
        "%(who)s takes %(n)s treasure face down.", "%(who)s takes %(n)s treasures face down."
    ),
    "treasure_shown": gettext_noop("The treasure, face up: %(cards)s."),
    "lost": gettext_noop("%(who)s lost the fight (%(p)s against %(m)s) and must run away!"),
    "not_chased": gettext_noop("%(monster)s does not bother chasing %(who)s."),
    "rolled_escaped": gettext_noop("%(who)s rolled %(die)s and escaped %(monster)s."),
    "rolled": gettext_noop("%(who)s rolled %(die)s: caught by %(monster)s!"),
    "bad_stuff": gettext_noop("Bad Stuff from %(monster)s for %(who)s!"),
    "escaped": gettext_noop("%(who)s used %(card)s and got away from %(monster)s."),
    "flutter": gettext_noop("%(who)s used Flutter Spell."),
    "loot_body": gettext_noop("Everybody takes a card from %(who)s's things."),
    "took": gettext_noop("%(who)s took %(card)s."),
    "reborn": gettext_noop("%(who)s is back, with new cards."),
    "listened": gettext_noop("%(who)s listened at the door."),
    "big_given": gettext_noop("%(who)s gave %(card)s to %(to)s."),
    "gifted": gettext_noop("%(who)s gave %(card)s to %(to)s."),
    "big_discarded": gettext_noop("%(who)s discarded %(card)s."),
    "game_over": gettext_noop("The game is over."),
}
# The side a one-shot card helps in a combat.
SIDE_NAMES = {"players": gettext_noop("the players"), "monsters": gettext_noop("the monsters")}
# Parts of the texts above (base.Phrase fields): who takes each face-up treasure, listed; what
# a call for help offers (the combat panel says it too).
TREASURE_TAKER = gettext_noop("%(who)s takes %(card)s")
BRIBE_ITEM = gettext_noop("the item %(item)s")
BRIBE_NOTHING = gettext_noop("nothing")
BRIBE_TREASURES = ngettext_noop("%(n)s treasure", "%(n)s treasures")
# Events the log leaves out (QUIET_EVENTS: a pass, "ready", the end of a turn, a reshuffle) have
# no text.

# The kinds of event whose text names the acting seat only ("who"), or it and a card ("card",
# the event's "name"), or it and another seat ("to").
_WHO_ONLY = frozenset(
    (
        *("turn", "lost_race", "lost_class", "nothing_to_lose", "died", "trade_declined"),
        *("looted", "charity", "fury", "shoo", "sprite_level", "flutter", "loot_body"),
        *("reborn", "listened"),
    )
)
_WHO_CARD = frozenset(
    (
        *("played", "use", "stow", "dropped", "curse_kept", "lost_item", "uncursed"),
        *("trouble", "discarded", "combat", "wandered", "took", "big_discarded"),
    )
)
_WHO_TO = frozenset(("help_declined", "gave", "helps"))


def _word(text: str | None) -> Word | str:
    """A card's name as a translated field ("" for none: gettext("") is a catalogue's header)."""
    return Word(text) if text else ""


def bribe_phrase(treasures: int, item: str | None) -> Phrase:
    """What a call for help offers, to be rendered: an item (its name), treasures, or nothing."""
    if item:
        return Phrase(BRIBE_ITEM, {"item": Word(item)})
    if not treasures:
        return Phrase(BRIBE_NOTHING, {})
    return Phrase(BRIBE_TREASURES, {"n": treasures})


def event_fields(event: Event, who: Callable) -> tuple[str, dict] | None:
    """Which of ``EVENT_TEXTS`` the event takes, and its fields; ``who(seat)`` names a seat.
    None for an event the log leaves out."""
    kind = event.get("kind")
    fields: dict[str, Any] = {"who": who(event.get("seat"))}
    if kind in _WHO_ONLY:
        return kind, fields
    if kind in _WHO_CARD:
        return kind, {**fields, "card": _word(event.get("name"))}
    if kind in _WHO_TO:
        return kind, {**fields, "to": who(event.get("to"))}
    found = _card_event_fields(event, kind, fields, who)
    if found is None:
        found = _fight_event_fields(event, kind, fields, who)
    return found


def _card_event_fields(event: Event, kind: Any, fields: dict, who: Callable):
    """The texts of cards played, sold, traded and lost, and of the door."""
    card = _word(event.get("name"))
    if kind == "levelup":
        return kind, {**fields, "card": card, "level": event["level"]}
    if kind == "sold":
        return kind, {**fields, "card": card, "gold": event["gold"]}
    if kind == "curse":
        return kind, {**fields, "target": who(event["target"]), "card": card}
    if kind == "lost_levels":
        if not event["n"]:
            return "lost_no_level", fields
        return kind, {**fields, "n": event["n"]}
    if kind == "lost_cards":
        return kind, {**fields, "n": event["n"]}
    if kind in ("offer", "big_given", "gifted"):
        return kind, {**fields, "card": card, "to": who(event.get("to"))}
    if kind == "swapped":
        return kind, {**fields, "card": card, "got": _word(event["got"])}
    if kind == "kicked":
        if not event.get("name"):
            return "kicked_nothing", fields
        what = event["what"]
        return kind, {**fields, "card": card, "kind": Word(KIND_NAMES.get(what, what))}
    if kind == "game_over":
        return kind, {}
    return None


def _fight_event_fields(event: Event, kind: Any, fields: dict, who: Callable):
    """The texts of a combat, its treasure and running away."""
    card = _word(event.get("name"))
    if kind == "oneshot":
        return kind, {**fields, "card": card, "side": Word(SIDE_NAMES[event["side"]])}
    if kind in ("removed", "enhanced", "escaped"):
        return kind, {**fields, "card": card, "monster": _word(event["monster"])}
    if kind == "lullaby":
        return kind, {**fields, "monster": _word(event["monster"])}
    if kind == "poke":
        return kind, {**fields, "victim": who(event["victim"])}
    if kind == "ask_help":
        bribe = bribe_phrase(event.get("treasures", 0), event.get("item"))
        return kind, {**fields, "to": who(event.get("to")), "bribe": bribe}
    if kind in ("won", "lost"):
        return kind, {**fields, "p": event["players"], "m": event["monsters"]}
    if kind == "treasure":
        return kind, {**fields, "n": event["n"]}
    if kind == "treasure_shown":
        takers = [
            Phrase(TREASURE_TAKER, {"who": who(seat), "card": _word(name)})
            for seat, name in event["cards"]
        ]
        return kind, {"cards": listing(takers)}
    if kind in ("not_chased", "bad_stuff"):
        return kind, {**fields, "monster": card}
    if kind == "rolled":
        key = "rolled_escaped" if event["escaped"] else "rolled"
        return key, {**fields, "die": event["die"], "monster": card}
    return None


def describe(event: Event) -> str:
    """The event in plain English ("" for one the log leaves out)."""
    return describe_with(EVENT_TEXTS, event_fields, event)


# --------------------------------------------------------------------------------------------
# Bots: they see only their view and their legal actions.
# --------------------------------------------------------------------------------------------
def bot_action(
    view: dict, legal: list, level: str, rng: random.Random, focus: Any = None
) -> Action:
    check_bot_call(legal, level, LEVELS)
    if level == "random":
        return rng.choice(legal)
    return _Bot(view, legal, rng).choose()


class _Bot:
    """The Munchkin bot: fights what it can beat, asks for help with a bribe, helps others for
    a bribe (never the leader to victory), curses the leader, sells junk for levels."""

    def __init__(self, view: dict, legal: list, rng: random.Random):
        self.v = view
        self.legal = legal
        self.rng = rng
        self.me = view["seat"]
        self.chars = view["characters"]
        self.hand = [c["id"] for c in view.get("hand", [])]
        self.by_type: dict[str, list[Action]] = {}
        for a in legal:
            self.by_type.setdefault(a["type"], []).append(a)

    def first(self, kind: str, **match: Any) -> Action | None:
        for a in self.by_type.get(kind, []):
            if all(a.get(k) == val for k, val in match.items()):
                return a
        return None

    def leader(self) -> int:
        others = [ch for ch in self.chars if ch["seat"] != self.me]
        return max(others, key=lambda ch: (ch["level"], ch["strength"]))["seat"]

    def choose(self) -> Action:
        phase = self.v["phase"]
        if phase in ("create", "prep", "trouble", "charity"):
            return self.turn()
        if phase == "combat":
            return self.window()
        if phase == "help":
            return self.answer_help()
        if phase == "run":
            return self.run()
        if phase == "give":
            return self.give()
        if phase == "loot_body":
            return max(self.legal, key=lambda a: _value(a["card"]))
        if phase == "trade":
            return self.answer_trade()
        return self.legal[0]

    # -- own turn -------------------------------------------------------------------------
    def turn(self) -> Action:
        me = self.chars[self.me]
        phase = self.v["phase"]
        for a in self.by_type.get("play", []):
            k = _kind(a["card"])
            if k in ("race", "class") and (
                (k == "race" and not me["races"]) or (k == "class" and not me["classes"])
            ):
                return a
            if k in ("mixed", "double"):
                return a
            if k == "item" and self._would_use(a["card"]):
                return a
        for a in self.by_type.get("use", []):
            return a
        if phase != "create":
            a = self.first("levelup")
            if a:
                return a
            cursed = self._curse_leader()
            if cursed:
                return cursed
            sale = self._sale()
            if sale:
                return sale
            a = self.first("uncurse")
            if a:
                return a
        if phase == "create":
            return self.first("ready")
        if phase == "prep":
            return self.first("kick")
        if phase == "trouble":
            mine = me["strength"]
            fights = [
                a for a in self.by_type.get("fight", []) if CARDS[a["card"]]["level"] < mine - 1
            ]
            if fights:
                return max(fights, key=lambda a: CARDS[a["card"]]["level"])
            return self.first("loot")
        # charity: put items on the table rather than give them away
        for a in self.by_type.get("play", []):
            if _kind(a["card"]) in ("item", "oneshot") and len(self.hand) > me["hand_limit"]:
                return a
        return self.first("end_turn")

    def _would_use(self, cid: str) -> bool:
        me = self.chars[self.me]
        card = CARDS[cid]
        slot = card["slot"]
        if slot == "none":
            return True
        used = [i for i in me["items"] if i["used"]]
        if slot in ("hand1", "hand2"):
            hands = sum(
                1 if i["slot"] == "hand1" else 2 for i in used if i["slot"].startswith("hand")
            )
            return hands + (1 if slot == "hand1" else 2) <= 2
        return all(i["slot"] != slot for i in used)

    def _sale(self) -> Action | None:
        sells = self.by_type.get("sell", [])
        if not sells:
            return None
        me = self.chars[self.me]
        used = {i["id"] for i in me["items"] if i["used"] and i["valid"]}
        junk = [a for a in sells if a["card"] not in used]
        total = self.v["purse"] + sum(_gold(a["card"]) for a in junk)
        if total >= SELL_PRICE and junk:
            # The dearest item, and a Pocketkin's double price on it when it may.
            return max(junk, key=lambda a: (_gold(a["card"]), a.get("price") == "double"))
        return None

    def _curse_leader(self) -> Action | None:
        curses = self.by_type.get("curse", [])
        if not curses:
            return None
        lead = self.leader()
        if self.chars[lead]["level"] < self.chars[self.me]["level"]:
            return None
        for a in curses:
            if a["target"] == lead:
                return a
        return None

    # -- combat windows ---------------------------------------------------------------------
    def window(self) -> Action:
        c = self.v["combat"]
        st = c["strengths"]
        gap = st["players_total"] - st["monsters_total"]
        winning = st["winning"]
        me = self.me
        if me in (c["fighter"], c["helper"]):
            if winning:
                return self.first("pass")
            for kind in ("fury", "shoo"):
                opts = self.by_type.get(kind, [])
                if opts:
                    return min(opts, key=lambda a: _value(a["card"]))
            boosts = [a for a in self.by_type.get("oneshot", []) if a.get("side") == "players"]
            need = -gap + (0 if st["ties_win"] else 1)
            if boosts:
                total = sum(CARDS[a["card"]]["effect"][1] for a in boosts)
                if total >= need or c["helper"] is not None:
                    return max(boosts, key=lambda a: CARDS[a["card"]]["effect"][1])
            if me == c["fighter"]:
                ask = self._ask(need)
                if ask:
                    return ask
            lull = self.by_type.get("lullaby")
            if lull and len(st["monsters"]) == 1:
                return lull[0]
            return self.first("pass")
        # someone else's fight: stop the leader from winning (and anybody from reaching 10)
        fighter = self.chars[c["fighter"]]
        threat = fighter["level"] >= 7 or c["fighter"] == self.leader()
        if winning and threat and fighter["level"] >= self.chars[me]["level"]:
            for kind in ("enhance", "wander"):
                opts = self.by_type.get(kind, [])
                good = [a for a in opts if kind == "wander" or CARDS[a["card"]]["bonus"] > 0]
                if good:
                    return good[0]
            opts = [a for a in self.by_type.get("oneshot", []) if a.get("side") == "monsters"]
            if opts:
                return opts[0]
            for a in self.by_type.get("curse", []):
                if a["target"] in (c["fighter"], c["helper"]):
                    return a
            pokes = self.by_type.get("poke", [])
            if pokes:
                return min(pokes, key=lambda a: _value(a["card"]))
        cursed = self._curse_leader()
        if cursed and self.rng.random() < 0.5:
            return cursed
        return self.first("pass")

    def _ask(self, need: int) -> Action | None:
        asks = self.by_type.get("ask_help", [])
        if not asks:
            return None
        best = None
        for ch in self.chars:
            if ch["seat"] == self.me or ch["dead"] or ch["strength"] < need:
                continue
            if best is None or ch["strength"] > best["strength"]:
                best = ch
        if best is None:
            return None
        opts = [a for a in asks if a["to"] == best["seat"] and "treasures" in a]
        if not opts:
            return None
        total = max(a["treasures"] for a in opts)
        want = (total + 1) // 2
        return min(opts, key=lambda a: abs(a["treasures"] - want))

    def answer_help(self) -> Action:
        c = self.v["combat"]
        st = c["strengths"]
        fighter = self.chars[c["fighter"]]
        mine = self.chars[self.me]
        with_me = st["players_total"] + mine["strength"]
        wins = with_me > st["monsters_total"] or (
            with_me == st["monsters_total"] and (st["ties_win"] or _brawler(mine))
        )
        gain = sum(CARDS[m["card"]["id"]]["levels"] for m in st["monsters"])
        shared = self.v["options"]["shared_victory"] == "yes"
        if fighter["level"] + gain >= WIN_LEVEL and not shared:
            return self.first("decline")
        bribe = c["bribe"] or {"treasures": 0, "item": None}
        sprite = any(r["race"] == "sprite" for r in mine["races"])
        paid = bribe["treasures"] > 0 or bribe["item"] is not None or sprite
        if wins and paid and fighter["level"] <= mine["level"] + 3:
            return self.first("accept")
        return self.first("decline")

    def answer_trade(self) -> Action:
        """Swap its least useful item for the offered one when that one is clearly better."""
        offered = CARDS[self.v["trade"]["card"]["id"]]
        swaps = self.by_type.get("swap", [])
        if not swaps or offered["kind"] != "item" or not self._would_use(offered["id"]):
            return self.first("decline")
        mine = {i["id"]: i for i in self.chars[self.me]["items"]}
        worst = min(swaps, key=lambda a: _value(a["card"]) + 1000 * mine[a["card"]]["used"])
        if _value(offered["id"]) > _value(worst["card"]) + 100 and not mine[worst["card"]]["used"]:
            return worst
        return self.first("decline")

    # -- running, charity ------------------------------------------------------------------
    def run(self) -> Action:
        r = self.v["run"]
        worst = max(r["left"], key=lambda m: _badness(m["bad"]))
        if _badness(worst["bad"]) >= 5:
            a = self.first("escape", monster=worst["index"])
            if a:
                return a
        flutters = self.by_type.get("flutter", [])
        if flutters and r["bonus"] < 2:
            return min(flutters, key=lambda a: _value(a["card"]))
        return self.first("roll", monster=worst["index"]) or self.by_type["roll"][0]

    def give(self) -> Action:
        return min(self.legal, key=lambda a: (_value(a["card"]), a.get("to", 0)))


def _brawler(ch: dict) -> bool:
    return any(c["cls"] == "brawler" for c in ch["classes"])


def _badness(bad: list) -> int:
    k = bad[0]
    if k == "death":
        return 9
    if k == "levels":
        return 2 + 2 * bad[1]
    if k in ("hand", "race", "class", "big"):
        return 3
    return 2


def _value(cid: str) -> int:
    card = CARDS[cid]
    k = card["kind"]
    if k == "item":
        return 100 * card["bonus"] + card["gold"] // 10 + 50 * card.get("run", 0)
    if k == "levelup":
        return 400
    if k == "oneshot":
        return 150 + card["gold"] // 10
    if k == "monster":
        return 20
    return 60
