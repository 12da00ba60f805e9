"""Il Trono di Mortadella: dice, secret roles and tokens, for 2 to 7 players.

The rules as implemented, and every ruling, are in docs/rules/trono-di-mortadella.md.

Seats go clockwise: "the left" of a seat is the next seat number (seat + 1, wrapping round) and
"the right" is the previous one. The first player is found by the start roll (highest Mortadella
plus Wine), not by the seat number.

The state is a plain JSON-able dict. ``apply`` copies it (a JSON round trip) and never mutates its
input. Every die comes from ``random.Random(f"{seed}:roll:{n}")`` where ``n`` counts the rolls of
the game, so the seed and the moves replay a game exactly.
"""

from __future__ import annotations

import json
import math
import random
from functools import lru_cache
from itertools import combinations
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
from games.engine.base import listing
from games.engine.base import load_checked
from games.engine.base import ngettext_noop

SLUG = "trono"
NAME = "Il Trono di Mortadella"
MIN_PLAYERS = 2
MAX_PLAYERS = 7
ON_OFF = ["on", "off"]
OPTIONS: dict[str, dict] = {
    "lombard": {"choices": ON_OFF, "default": "on"},
    "sins": {"choices": ON_OFF, "default": "on"},
    "porchetta": {"choices": ON_OFF, "default": "on"},
    "earthquake": {"choices": ON_OFF, "default": "on"},
    "carnival": {"choices": ON_OFF, "default": "on"},
}
LEVELS = ["random", "heuristic"]
BEST_LEVEL = "heuristic"

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

# --------------------------------------------------------------------------------------------
# Dice, tokens and roles
# --------------------------------------------------------------------------------------------
FACES = ("people", "tower", "book", "mortadella", "wine", "rat")
SYMS = ("people", "tower", "book", "mortadella")  # the symbols of the tokens
P, T, B, M = range(4)
IDX = {s: i for i, s in enumerate(SYMS)}
RESERVE = 30  # tokens of each symbol in the box (ruling)
SIN_LIMIT = 7  # "No more than 7 tokens of each symbol may be held"
ROUND_CAP = 30  # every player has at most 30 turns (ruling): then the game ends with no winner

FACE_NAMES = {
    "people": gettext_noop("People"),
    "tower": gettext_noop("Tower"),
    "book": gettext_noop("Book"),
    "mortadella": gettext_noop("Mortadella"),
    "wine": gettext_noop("Wine"),
    "rat": gettext_noop("Rat"),
}

# A condition is a list of (symbol, op, n): op "min" means at least n ("n+"), "exact" exactly n.
ROLES: dict[str, dict[str, Any]] = {
    "prince": {
        "name": gettext_noop("Prince of Tortellini"),
        "need": [
            ("people", "min", 2),
            ("tower", "min", 2),
            ("book", "min", 2),
            ("mortadella", "min", 5),
        ],
    },
    "rector": {
        "name": gettext_noop("Magnificent Rector"),
        "need": [("people", "min", 4), ("tower", "min", 2), ("book", "min", 5)],
    },
    "lord": {
        "name": gettext_noop("Lord of Silk"),
        "need": [("people", "min", 4), ("tower", "min", 6), ("mortadella", "exact", 0)],
    },
    "mercenary": {
        "name": gettext_noop("Mercenary Captain"),
        "need": [("people", "min", 5), ("book", "exact", 0), ("mortadella", "min", 4)],
    },
    # Not in the rulebook's table: ruled and balanced with simulate (docs/rules).
    "cardinal": {
        "name": gettext_noop("Cardinal"),
        "need": [("people", "min", 4), ("tower", "min", 3), ("mortadella", "min", 3)],
    },
    "innkeeper": {
        "name": gettext_noop("Master of the Innkeepers"),
        "need": [("people", "min", 2), ("tower", "min", 2), ("mortadella", "min", 3)],
    },
    # The Brigand: at least 8 of one of People, Book, Mortadella and 0 of the other two.
    "brigand": {"name": gettext_noop("Brigand"), "need": []},
}
BRIGAND_SYMS = ("people", "book", "mortadella")
BASE_ROLES = ("prince", "rector", "lord", "mercenary", "cardinal")
ROLE_ORDER = (*BASE_ROLES, "innkeeper", "brigand")
NEED: dict[str, list[tuple[int, str, int]]] = {
    k: [(IDX[s], op, n) for s, op, n in v["need"]] for k, v in ROLES.items()
}


def role_card(role: str) -> str:
    """The id of a role card: a seat's secret (searched for by the leak tests)."""
    return f"tr-secret-{role}"


def roles_for(players: int) -> list[str]:
    if players == 2:
        return list(BASE_ROLES)
    if players <= 6:
        return [*BASE_ROLES, "innkeeper"]
    return list(ROLE_ORDER)


PHASES = ("pick_start", "roll", "lombard", "choose", "resolve", "cancel", "plague", "over")

MSG_OVER = gettext_noop("The game is over.")
MSG_NOT_TURN = gettext_noop("It is not your turn yet.")
MSG_UNKNOWN = gettext_noop("I do not understand that move.")
MSG_NOT_NOW = gettext_noop("You cannot do that now.")
MSG_DICE = gettext_noop("Choose three dice (or one die, if you kept the two you were given).")
MSG_EFFECT = gettext_noop(
    "That effect cannot be used like that. Choose a player who has that token."
)
MSG_GUESS = gettext_noop("You cannot make that guess now.")
MSG_REROLL = gettext_noop("You cannot re-roll now.")
MSG_LOSE = gettext_noop("Choose to give back a People token or a Tower token that you have.")
MSG_PICK = gettext_noop("Choose People, Tower, Book or Mortadella.")


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------
def _copy(state: State) -> State:
    return json.loads(json.dumps(state))


def _opt(s: State, name: str) -> bool:
    return s["options"][name] == "on"


def _alive(s: State) -> list[int]:
    return [p for p in range(s["players"]) if not s["out"][p]]


def _next_alive(s: State, seat: int) -> int:
    n = s["players"]
    for k in range(1, n + 1):
        p = (seat + k) % n
        if not s["out"][p]:
            return p
    return seat


def _prev_alive(s: State, seat: int) -> int:
    n = s["players"]
    for k in range(1, n + 1):
        p = (seat - k) % n
        if not s["out"][p]:
            return p
    return seat


def _order_from(s: State, seat: int) -> list[int]:
    """Alive seats clockwise starting with ``seat``."""
    n = s["players"]
    return [p for p in ((seat + k) % n for k in range(n)) if not s["out"][p]]


def meets(role: str, tokens: list[int]) -> bool:
    """Do these tokens meet the role's token condition (the table)?"""
    if role == "brigand":
        for sym in BRIGAND_SYMS:
            others = [IDX[o] for o in BRIGAND_SYMS if o != sym]
            if tokens[IDX[sym]] >= 8 and all(tokens[o] == 0 for o in others):
                return True
        return False
    for i, op, n in NEED[role]:
        if op == "min" and tokens[i] < n:
            return False
        if op == "exact" and tokens[i] != n:
            return False
    return True


def distance(role: str, tokens: list[int]) -> float:
    """How far the tokens are from the role's condition (0 = met). Used by bots and the docs."""
    if role == "brigand":
        best = 99.0
        for sym in BRIGAND_SYMS:
            d = max(0, 8 - tokens[IDX[sym]]) + sum(
                1.5 * tokens[IDX[o]] for o in BRIGAND_SYMS if o != sym
            )
            best = min(best, d)
        return best
    d = 0.0
    for i, op, n in NEED[role]:
        if op == "min":
            d += max(0, n - tokens[i])
        else:
            d += 1.5 * abs(tokens[i] - n)
    return d


def _roll(s: State, n: int) -> list[str]:
    rng = random.Random(f"{s['seed']}:roll:{s['rolls']}")
    s["rolls"] += 1
    return [FACES[rng.randrange(6)] for _ in range(n)]


def group_effects(dice: list[str]) -> list[str]:
    """The effects of the chosen dice: two alike People, Wines or Rats make one pair effect."""
    out: list[str] = []
    for face in FACES:
        c = dice.count(face)
        if face in ("people", "wine", "rat"):
            out.extend([f"{face}2"] * (c // 2))
            out.extend([face] * (c % 2))
        else:
            out.extend([face] * c)
    return out


# --------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------
def _check_setup(players: int, seed: int, options: dict | None) -> dict[str, str]:
    """The table options, every one set (ValueError for a bad player count, seed or option)."""
    options = check_setup(players, seed, options, MIN_PLAYERS, MAX_PLAYERS, NAME)
    check_known_options(options, OPTIONS)
    opts = {}
    for name, spec in OPTIONS.items():
        value = options.get(name, spec["default"])
        if value not in spec["choices"]:
            raise ValueError(f"bad value for option {name}")
        opts[name] = value
    return opts


def _deal_roles(players: int, seed: int) -> tuple[list[str], list[str]]:
    """Everybody's secret role, and the role cards left over."""
    deck = roles_for(players)
    rng = random.Random(f"{seed}:roles")
    if players == 7:
        rng.shuffle(deck)
        return deck, []
    rng.shuffle(deck)
    return deck[:players], deck[players:]


def _start_roll(players: int, seed: int) -> tuple[list[list[dict]], int]:
    """The start roll: everybody rolls five dice, highest Mortadella + Wine starts; ties roll
    again. (Every round of rolls, the first player.)"""
    start_rng = random.Random(f"{seed}:start")
    start_rolls: list[list[dict]] = []
    contenders = list(range(players))
    while len(contenders) > 1:
        rnd = []
        for p in contenders:
            dice = [FACES[start_rng.randrange(6)] for _ in range(5)]
            rnd.append({"seat": p, "dice": dice})
        start_rolls.append(rnd)
        score = {r["seat"]: sum(d in ("mortadella", "wine") for d in r["dice"]) for r in rnd}
        top = max(score.values())
        contenders = [p for p in contenders if score[p] == top]
    return start_rolls, contenders[0]


def _starting_tokens(players: int) -> tuple[list[list[int]], list[int]]:
    """Everybody's tokens at the start (6 and 7 players start with some), and the reserve."""
    tokens = [[0, 0, 0, 0] for _ in range(players)]
    reserve = [RESERVE] * 4
    if players == 6:
        for t in tokens:
            t[P] += 1
            t[M] += 1
        reserve[P] -= 6
        reserve[M] -= 6
    if players == 7:
        for t in tokens:
            t[P] += 2
        reserve[P] -= 14
    return tokens, reserve


def setup(players: int, seed: int, options: dict | None = None) -> State:
    opts = _check_setup(players, seed, options)
    roles, rest = _deal_roles(players, seed)
    start_rolls, first = _start_roll(players, seed)
    tokens, reserve = _starting_tokens(players)
    s: State = {
        "game": SLUG,
        "seed": seed,
        "players": players,
        "options": opts,
        "ply": 0,
        "rolls": 0,
        "roles": roles,
        "deck": rest if players == 2 else [],  # 2 players: the role cards left to draw
        "removed": [[] for _ in range(players)],  # 2 players: one's own removed role cards
        "revealed": [r == "brigand" for r in roles],
        "tokens": tokens,
        "reserve": reserve,
        "skip": [False] * players,
        "out": [False] * players,
        "lombard": (first - 1) % players if opts["lombard"] == "on" else None,
        "first": first,
        "start_rolls": start_rolls,
        "current": first,
        "turn": 0,
        "phase": "roll",
        "passed": [],
        "kept": [],
        "rolled": [],
        "rerolled": False,
        "carnival": False,
        "effects": [],
        "pending": None,
        "picks": [],
        "guesses": [],
        "result": None,
    }
    if players == 7:
        s["phase"] = "pick_start"
        s["picks"] = _order_from(s, first)
    else:
        _start_turn(s, [])
    return s


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------
def to_act(state: State) -> tuple[int, ...]:
    phase = state["phase"]
    if phase == "over":
        return ()
    if phase == "pick_start":
        return (state["picks"][0],)
    if phase == "lombard":
        return (state["lombard"],)
    if phase == "cancel":
        return (state["pending"]["target"],)
    if phase == "plague":
        return (state["pending"]["queue"][0],)
    return (state["current"],)


def _can_guess(s: State, seat: int) -> bool:
    """At the start of one's turn: anybody in a 2-player game; the Innkeeper once his tokens meet
    his condition."""
    if s["phase"] != "roll" or seat != s["current"]:
        return False
    if s["players"] == 2:
        return True
    role = s["roles"][seat]
    return role == "innkeeper" and meets(role, s["tokens"][seat])


def guess_targets(s: State, seat: int) -> list[int]:
    return [
        p for p in _alive(s) if p != seat and s["roles"][p] != "brigand" and not s["revealed"][p]
    ]


def guess_roles(s: State, seat: int) -> list[str]:
    """Roles one may name: those of the game's deck but one's own and the Brigand."""
    own = {s["roles"][seat], *s["removed"][seat]}
    return [r for r in roles_for(s["players"]) if r not in own and r != "brigand"]


def _victims(s: State, sym: int) -> list[int]:
    return [p for p in _alive(s) if p != s["current"] and s["tokens"][p][sym] > 0]


def _steal_mode(s: State) -> bool:
    return s["carnival"] or s["roles"][s["current"]] == "brigand"


def _effect_actions(s: State, eff: dict) -> list[Action]:
    kind, eid = eff["kind"], eff["id"]
    base = {"type": "effect", "effect": eid}
    steal = _steal_mode(s)
    alive = _alive(s)
    out: list[Action] = []

    def take(sym: str, extra: dict) -> None:
        if steal:
            victims = _victims(s, IDX[sym])
            if victims:
                out.extend({**base, **extra, "target": v} for v in victims)
                return
        out.append({**base, **extra})

    if kind in ("people", "tower", "mortadella"):
        take(kind, {})
    elif kind == "book":
        for sym in SYMS:
            take(sym, {"symbol": sym})
    elif kind == "people2":
        take("people", {"mode": "take"})
        for sym in ("tower", "book"):
            for p in alive:
                if s["tokens"][p][IDX[sym]] > 0:
                    out.append({**base, "mode": "revolution", "symbol": sym, "target": p})
    elif kind in ("wine", "wine2"):
        out.extend({**base, "target": p} for p in alive)
    else:  # rat, rat2
        out.append(dict(base))
    return out


def legal_actions(state: State, seat: int) -> list[Action]:
    if seat not in to_act(state):
        return []
    s = state
    phase = s["phase"]
    if phase == "pick_start":
        return [{"type": "pick", "symbol": sym} for sym in SYMS]
    if phase == "roll":
        acts: list[Action] = (
            [{"type": "keep"}, {"type": "refuse"}] if s["passed"] else [{"type": "roll"}]
        )
        if _can_guess(s, seat):
            for t in guess_targets(s, seat):
                for r in guess_roles(s, seat):
                    acts.append({"type": "guess", "target": t, "role": r})
        return acts
    if phase == "lombard":
        return [{"type": "reroll"}, {"type": "no_reroll"}]
    if phase == "choose":
        n = len(s["rolled"])
        k = 1 if s["kept"] else 3
        acts = [{"type": "choose", "dice": list(c)} for c in combinations(range(n), k)]
        if s["lombard"] == seat and not s["rerolled"] and _opt(s, "lombard"):
            acts.append({"type": "reroll"})
        return acts
    if phase == "resolve":
        acts = []
        for eff in s["effects"]:
            acts.extend(_effect_actions(s, eff))
        return acts
    if phase == "cancel":
        return [{"type": "cancel"}, {"type": "accept"}]
    if phase == "plague":
        return [{"type": "lose", "symbol": "people"}, {"type": "lose", "symbol": "tower"}]
    return []


def outcome(state: State) -> dict | None:
    return state["result"]


def private(state: State, seat: int) -> set[str]:
    """A seat's role card, while it is secret (the Brigand's is face up; all show at the end)."""
    if state["result"] is not None or state["revealed"][seat]:
        return set()
    return {role_card(state["roles"][seat])}


def cards(state: State) -> list[str]:
    """Test support: one id per token of the box (reserve and players), numbered per symbol.

    The ids are the same set as long as no token is created or lost."""
    out = []
    for i, sym in enumerate(SYMS):
        total = state["reserve"][i] + sum(t[i] for t in state["tokens"])
        out.extend(f"tr-{sym}-{k:02d}" for k in range(1, total + 1))
    return out


def role_info(role: str) -> dict:
    return {
        "key": role,
        "name": ROLES[role]["name"],
        "need": [list(x) for x in ROLES[role]["need"]],
    }


def view(state: State, seat: int | None) -> dict:
    s = state
    over = s["result"] is not None
    pending = s["pending"]
    v: dict[str, Any] = {
        "game": SLUG,
        "seat": seat,
        "players": s["players"],
        "options": dict(s["options"]),
        "phase": s["phase"],
        "current": s["current"],
        "first": s["first"],
        "to_act": list(to_act(s)),
        "turn": s["turn"],
        "turn_cap": ROUND_CAP * s["players"],
        "start_rolls": s["start_rolls"],
        "tokens": [dict(zip(SYMS, t, strict=True)) for t in s["tokens"]],
        "reserve": dict(zip(SYMS, s["reserve"], strict=True)),
        "skip": list(s["skip"]),
        "out": list(s["out"]),
        "lombard": s["lombard"],
        "passed": list(s["passed"]),
        "kept": list(s["kept"]),
        "rolled": list(s["rolled"]),
        "rerolled": s["rerolled"],
        "carnival": s["carnival"],
        "steal": s["phase"] == "resolve" and _steal_mode(s),
        "effects": [dict(e) for e in s["effects"]],
        "pending": None,
        "picks": list(s["picks"]),
        "guesses": [dict(g) for g in s["guesses"]],
        "roles_in_game": roles_for(s["players"]),
        "revealed": [
            s["roles"][p] if (over or s["revealed"][p]) else None for p in range(s["players"])
        ],
        "outcome": s["result"],
    }
    if pending is not None:
        if pending["kind"] == "cancel":
            v["pending"] = {
                "kind": "cancel",
                "effect": pending["effect"],
                "target": pending["target"],
                "cost": pending["cost"],
            }
        else:
            v["pending"] = {
                "kind": "plague",
                "black": pending["black"],
                "queue": list(pending["queue"]),
            }
    if seat is not None:
        role = s["roles"][seat]
        v["my_role"] = {**role_info(role), "card": role_card(role)}
        v["my_removed"] = list(s["removed"][seat])
    return v


# --------------------------------------------------------------------------------------------
# Flow
# --------------------------------------------------------------------------------------------
def _over(s: State, winners: list[int], reason: str) -> Event:
    winners = sorted(winners)
    others = [p for p in _alive(s) if p not in winners]
    out = [p for p in range(s["players"]) if s["out"][p] and p not in winners]
    ranking = [winners] if winners else []
    if others:
        ranking.append(others)
    if out:
        ranking.append(out)
    s["result"] = {"winners": winners, "ranking": ranking, "reason": reason}
    s["phase"] = "over"
    s["pending"] = None
    s["effects"] = []
    s["picks"] = []
    return {
        "kind": "game_over",
        "winners": winners,
        "reason": reason,
        "roles": list(s["roles"]),
    }


def _eliminate(s: State, seat: int, why: str, events: list[Event]) -> None:
    s["out"][seat] = True
    s["skip"][seat] = False
    for i in range(4):
        s["reserve"][i] += s["tokens"][seat][i]
        s["tokens"][seat][i] = 0
    events.append({"kind": "eliminated", "seat": seat, "why": why})
    if s["lombard"] == seat:
        s["lombard"] = _prev_alive(s, seat) if len(_alive(s)) > 0 else None
    alive = _alive(s)
    if len(alive) == 1 and s["result"] is None:
        events.append(_over(s, alive, "last_standing"))


def _gain(s: State, seat: int, sym: int, n: int, events: list[Event], source: str) -> int:
    """``seat`` takes up to ``n`` tokens from the reserve; the 7 deadly sins are checked."""
    got = min(n, s["reserve"][sym])
    s["reserve"][sym] -= got
    s["tokens"][seat][sym] += got
    events.append({"kind": "gained", "seat": seat, "symbol": SYMS[sym], "n": got, "source": source})
    _check_sins(s, seat, events)
    return got


def _check_sins(s: State, seat: int, events: list[Event]) -> None:
    if (
        _opt(s, "sins")
        and not s["out"][seat]
        and s["roles"][seat] != "brigand"
        and max(s["tokens"][seat]) > SIN_LIMIT
    ):
        _eliminate(s, seat, "sins", events)


def _discard(s: State, seat: int, sym: int, n: int) -> int:
    lost = min(n, s["tokens"][seat][sym])
    s["tokens"][seat][sym] -= lost
    s["reserve"][sym] += lost
    return lost


def _steal(s: State, thief: int, victim: int, sym: int, n: int, events: list[Event]) -> None:
    got = min(n, s["tokens"][victim][sym])
    s["tokens"][victim][sym] -= got
    s["tokens"][thief][sym] += got
    events.append({"kind": "stole", "seat": thief, "target": victim, "symbol": SYMS[sym], "n": got})
    _check_sins(s, thief, events)


def _check_outside_wins(s: State, events: list[Event]) -> None:
    """After a Porchetta Festival or an Earthquake: the first player clockwise from the one
    playing now whose tokens meet the condition wins (the Innkeeper must declare on his turn)."""
    for p in _order_from(s, s["current"]):
        role = s["roles"][p]
        if role != "innkeeper" and meets(role, s["tokens"][p]):
            events.append(_over(s, [p], "outside_turn" if p != s["current"] else "victory"))
            return


def _check_current_win(s: State, events: list[Event]) -> bool:
    cur = s["current"]
    role = s["roles"][cur]
    if (
        s["result"] is None
        and not s["out"][cur]
        and role != "innkeeper"
        and meets(role, s["tokens"][cur])
    ):
        events.append(_over(s, [cur], "victory"))
    return s["result"] is not None


def _start_turn(s: State, events: list[Event]) -> None:
    """Begin the turn of ``current`` (skipping those with the Skip Turn token)."""
    while s["result"] is None:
        if s["turn"] >= ROUND_CAP * s["players"]:
            events.append(_over(s, [], "turn_cap"))
            return
        cur = s["current"]
        s["turn"] += 1
        if s["skip"][cur]:
            s["skip"][cur] = False
            s["passed"] = []
            events.append({"kind": "skipped", "seat": cur})
            s["current"] = _next_alive(s, cur)
            continue
        s["phase"] = "roll"
        s["kept"] = []
        s["rolled"] = []
        s["rerolled"] = False
        s["carnival"] = False
        s["effects"] = []
        s["pending"] = None
        events.append({"kind": "turn", "seat": cur, "turn": s["turn"]})
        _check_current_win(s, events)
        return


def _pass_turn(s: State, events: list[Event]) -> None:
    s["effects"] = []
    s["pending"] = None
    s["kept"] = []
    s["rolled"] = []
    s["carnival"] = False
    s["current"] = _next_alive(s, s["current"])
    _start_turn(s, events)


def _do_roll(s: State, n: int, events: list[Event]) -> None:
    cur = s["current"]
    s["rolled"] = _roll(s, n)
    events.append({"kind": "rolled", "seat": cur, "kept": list(s["kept"]), "dice": s["rolled"]})
    five = s["kept"] + s["rolled"]
    kinds = set(five)
    if _opt(s, "porchetta") and len(kinds) == 1 and five[0] in SYMS:
        sym = IDX[five[0]]
        events.append({"kind": "porchetta", "seat": cur, "symbol": five[0]})
        for p in _order_from(s, cur):
            if not s["out"][p]:
                _gain(s, p, sym, 1, events, "porchetta")
        if s["result"] is None:
            _check_outside_wins(s, events)
    elif _opt(s, "earthquake") and kinds <= {"wine", "rat"}:
        events.append({"kind": "earthquake", "seat": cur})
        for p in _alive(s):
            _discard(s, p, T, 99)
            _discard(s, p, B, 99)
        _check_outside_wins(s, events)
    s["carnival"] = _opt(s, "carnival") and len(kinds) == 5
    if s["carnival"]:
        events.append({"kind": "carnival", "seat": cur})
    if s["result"] is not None:
        return
    if s["out"][cur]:
        s["passed"] = []
        _pass_turn(s, events)
        return
    holder = s["lombard"]
    if _opt(s, "lombard") and holder is not None and holder != cur and not s["rerolled"]:
        s["phase"] = "lombard"
    else:
        s["phase"] = "choose"


def _after_effect(s: State, events: list[Event]) -> None:
    s["pending"] = None
    if s["result"] is not None:
        return
    cur = s["current"]
    if s["out"][cur]:
        _pass_turn(s, events)
        return
    if _check_current_win(s, events):
        return
    if s["effects"]:
        s["phase"] = "resolve"
    else:
        _pass_turn(s, events)


# --------------------------------------------------------------------------------------------
# Apply
# --------------------------------------------------------------------------------------------
def _as_int(value: Any) -> Any:
    # ASCII digits only: str.isdigit() is true for "²", which int() refuses.
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 4:
        return int(value)
    return value


def _normal(action: dict) -> Action:
    """Only the known fields of an action; digits sent by a form become numbers."""
    out: Action = {"type": action.get("type")}
    for key in ("effect", "target"):
        if key in action and action[key] not in (None, ""):
            out[key] = _as_int(action[key])
    for key in ("symbol", "mode", "role"):
        if key in action and action[key] not in (None, ""):
            out[key] = action[key]
    if "dice" in action:
        dice = action["dice"]
        if isinstance(dice, (str, int)):
            dice = [dice]
        if isinstance(dice, list):
            out["dice"] = (
                sorted(_as_int(d) for d in dice)
                if all(isinstance(_as_int(d), int) for d in dice)
                else dice
            )
        else:
            out["dice"] = dice
    return out


_MESSAGES = {
    "pick_start": MSG_PICK,
    "roll": MSG_NOT_NOW,
    "lombard": MSG_NOT_NOW,
    "choose": MSG_DICE,
    "resolve": MSG_EFFECT,
    "cancel": MSG_NOT_NOW,
    "plague": MSG_LOSE,
}


def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if state["phase"] == "over":
        raise IllegalAction(MSG_OVER)
    if seat not in to_act(state):
        raise IllegalAction(MSG_NOT_TURN)
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction(MSG_UNKNOWN)
    act = _normal(action)
    legal = legal_actions(state, seat)
    if act not in legal:
        kind = act["type"]
        if kind not in {a["type"] for a in legal}:
            if kind == "guess":
                raise IllegalAction(MSG_GUESS)
            if kind == "reroll":
                raise IllegalAction(MSG_REROLL)
            known = {
                "pick",
                "roll",
                "keep",
                "refuse",
                "reroll",
                "no_reroll",
                "choose",
                "effect",
                "cancel",
                "accept",
                "lose",
                "guess",
            }
            raise IllegalAction(MSG_NOT_NOW if kind in known else MSG_UNKNOWN)
        if kind == "guess":
            raise IllegalAction(MSG_GUESS)
        raise IllegalAction(_MESSAGES.get(state["phase"], MSG_NOT_NOW))
    s = _copy(state)
    s["ply"] += 1
    events: list[Event] = []
    _HANDLERS[act["type"]](s, seat, act, events)
    return s, events


def _h_pick(s: State, seat: int, act: Action, events: list[Event]) -> None:
    sym = IDX[act["symbol"]]
    _gain(s, seat, sym, 1, events, "start")
    s["picks"] = s["picks"][1:]
    if not s["picks"]:
        _start_turn(s, events)


def _h_roll(s: State, seat: int, act: Action, events: list[Event]) -> None:
    s["kept"] = []
    s["passed"] = []
    _do_roll(s, 5, events)


def _h_keep(s: State, seat: int, act: Action, events: list[Event]) -> None:
    s["kept"] = list(s["passed"])
    s["passed"] = []
    events.append({"kind": "kept", "seat": seat, "dice": list(s["kept"])})
    _do_roll(s, 3, events)


def _h_refuse(s: State, seat: int, act: Action, events: list[Event]) -> None:
    events.append({"kind": "refused", "seat": seat, "dice": list(s["passed"])})
    s["kept"] = []
    s["passed"] = []
    _do_roll(s, 5, events)


def _h_reroll(s: State, seat: int, act: Action, events: list[Event]) -> None:
    cur = s["current"]
    n = len(s["rolled"])
    s["rerolled"] = True
    if seat == cur:
        s["lombard"] = _prev_alive(s, seat)  # used on one's own roll: to the holder's right
    else:
        s["lombard"] = cur  # used on an opponent's roll: to that player
    events.append({"kind": "lombard", "seat": seat, "for": cur, "to": s["lombard"], "n": n})
    _do_roll(s, n, events)


def _h_no_reroll(s: State, seat: int, act: Action, events: list[Event]) -> None:
    s["phase"] = "choose"


def _h_choose(s: State, seat: int, act: Action, events: list[Event]) -> None:
    idx = act["dice"]
    chosen = s["kept"] + [s["rolled"][i] for i in idx]
    s["passed"] = [d for i, d in enumerate(s["rolled"]) if i not in idx]
    effects = group_effects(chosen)
    s["effects"] = [{"id": i, "kind": k} for i, k in enumerate(effects)]
    events.append({"kind": "chose", "seat": seat, "dice": chosen, "effects": effects})
    s["phase"] = "resolve"


def _h_effect(s: State, seat: int, act: Action, events: list[Event]) -> None:
    eid = act["effect"]
    eff = next(e for e in s["effects"] if e["id"] == eid)
    s["effects"] = [e for e in s["effects"] if e["id"] != eid]
    kind = eff["kind"]
    target = act.get("target")
    steal = _steal_mode(s)
    ev: Event = {"kind": "effect", "seat": seat, "effect": kind}
    if target is not None:
        ev["target"] = target
    if "symbol" in act:
        ev["symbol"] = act["symbol"]
    if "mode" in act:
        ev["mode"] = act["mode"]
    events.append(ev)
    if kind in ("people", "tower", "mortadella", "book") or (
        kind == "people2" and act["mode"] == "take"
    ):
        sym = IDX[act.get("symbol", kind if kind != "people2" else "people")]
        n = 2 if kind == "people2" else 1
        if steal:
            if target is not None:
                _steal(s, seat, target, sym, n, events)
            else:
                events.append({"kind": "nothing", "seat": seat, "symbol": SYMS[sym]})
        else:
            _gain(s, seat, sym, n, events, "dice")
        _after_effect(s, events)
        return
    if kind == "people2":  # the Revolution
        lost = _discard(s, target, IDX[act["symbol"]], 1)
        events.append({"kind": "discarded", "seat": target, "symbol": act["symbol"], "n": lost})
        _after_effect(s, events)
        return
    if kind in ("wine", "wine2"):
        cost = 1 if kind == "wine" else 2
        has_effect = kind == "wine2" or s["tokens"][target][P] > 0
        if has_effect and target != seat and s["tokens"][target][M] >= cost:
            s["phase"] = "cancel"
            s["pending"] = {"kind": "cancel", "effect": kind, "target": target, "cost": cost}
            return
        _wine(s, kind, target, events)
        _after_effect(s, events)
        return
    # rat / rat2: everybody, from the player who rolled, clockwise
    black = kind == "rat2"
    queue = []
    for p in _order_from(s, s["current"]):
        if black:
            lost = _discard(s, p, M, 1)
            if lost:
                events.append({"kind": "discarded", "seat": p, "symbol": "mortadella", "n": 1})
        t = s["tokens"][p]
        if t[P] > 0 and t[T] > 0:
            queue.append(p)
        elif t[P] > 0:
            _discard(s, p, P, 1)
            events.append({"kind": "discarded", "seat": p, "symbol": "people", "n": 1})
    if queue:
        s["phase"] = "plague"
        s["pending"] = {"kind": "plague", "black": black, "queue": queue}
        return
    _after_effect(s, events)


def _wine(s: State, kind: str, target: int, events: list[Event]) -> None:
    if kind == "wine":
        lost = _discard(s, target, P, 1)
        events.append({"kind": "discarded", "seat": target, "symbol": "people", "n": lost})
    else:
        s["skip"][target] = True
        events.append({"kind": "skip_token", "seat": target})


def _h_cancel(s: State, seat: int, act: Action, events: list[Event]) -> None:
    pending = s["pending"]
    _discard(s, seat, M, pending["cost"])
    events.append(
        {"kind": "cancelled", "seat": seat, "effect": pending["effect"], "cost": pending["cost"]}
    )
    _after_effect(s, events)


def _h_accept(s: State, seat: int, act: Action, events: list[Event]) -> None:
    pending = s["pending"]
    events.append({"kind": "accepted", "seat": seat, "effect": pending["effect"]})
    _wine(s, pending["effect"], seat, events)
    _after_effect(s, events)


def _h_lose(s: State, seat: int, act: Action, events: list[Event]) -> None:
    sym = IDX[act["symbol"]]
    _discard(s, seat, sym, 1)
    events.append({"kind": "discarded", "seat": seat, "symbol": act["symbol"], "n": 1})
    queue = s["pending"]["queue"][1:]
    if queue:
        s["pending"]["queue"] = queue
        return
    _after_effect(s, events)


def _h_guess(s: State, seat: int, act: Action, events: list[Event]) -> None:
    target, role = act["target"], act["role"]
    right = s["roles"][target] == role
    s["guesses"].append({"seat": seat, "target": target, "role": role, "right": right})
    events.append({"kind": "guess", "seat": seat, "target": target, "role": role, "right": right})
    if right:
        events.append(_over(s, [seat], "guess"))
        return
    if s["players"] == 2:
        for i in range(4):
            _discard(s, seat, i, 99)
        if s["deck"]:  # with no card left to draw, one keeps one's role (ruling)
            s["removed"][seat].append(s["roles"][seat])
            s["roles"][seat] = s["deck"][0]
            s["deck"] = s["deck"][1:]
            events.append({"kind": "new_role", "seat": seat})
    else:
        s["revealed"][seat] = True  # only the Innkeeper guesses: now everybody knows
        _eliminate(s, seat, "guess", events)
        if s["result"] is not None:
            return
    s["passed"] = []
    _pass_turn(s, events)


_HANDLERS = {
    "pick": _h_pick,
    "roll": _h_roll,
    "keep": _h_keep,
    "refuse": _h_refuse,
    "reroll": _h_reroll,
    "no_reroll": _h_no_reroll,
    "choose": _h_choose,
    "effect": _h_effect,
    "cancel": _h_cancel,
    "accept": _h_accept,
    "lose": _h_lose,
    "guess": _h_guess,
}


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------
def dump(state: State) -> dict:
    return _copy(state)


def _read(d: dict) -> tuple[State, bool, list[int]]:
    """A copy of a stored state, whether it holds together, and its tokens of each kind."""
    s = _copy(d)
    n = s["players"]
    ok = (
        s["phase"] in PHASES
        and MIN_PLAYERS <= n <= MAX_PLAYERS
        and len(s["tokens"]) == n
        and len(s["roles"]) == n
        and all(r in ROLES for r in s["roles"])
        and all(len(t) == 4 and min(t) >= 0 for t in s["tokens"])
        and min(s["reserve"]) >= 0
    )
    return s, ok, [s["reserve"][i] + sum(t[i] for t in s["tokens"]) for i in range(4)]


def load(d: dict) -> State:
    errors = (KeyError, TypeError, AttributeError, IndexError)
    s, totals = load_checked(d, SLUG, NAME, _read, errors, article="an")
    if totals != [RESERVE] * 4:
        raise ValueError("the tokens of this state do not add up")
    return s


# --------------------------------------------------------------------------------------------
# Event texts, written once (games/engine/base.py): the same templates give ``describe`` (plain
# English) and the board's log (translated, games.presenters.event_lines). Only public events
# are told: a role is named only in a guess, which says it aloud.
# --------------------------------------------------------------------------------------------
EVENT_TEXTS = {
    "rolled": gettext_noop("%(who)s rolled %(dice)s."),
    "kept": gettext_noop("%(who)s kept the two dice passed on."),
    "refused": gettext_noop("%(who)s refused the two dice passed on."),
    "chose": gettext_noop("%(who)s chose %(dice)s."),
    "gained": gettext_noop("%(who)s took %(tokens)s."),
    "stole": gettext_noop("%(who)s stole %(tokens)s from %(target)s."),
    "discarded": gettext_noop("%(who)s gave back %(tokens)s."),
    "skip_token": gettext_noop("%(who)s takes the Skip Turn token."),
    "skipped": gettext_noop("%(who)s misses this turn."),
    "cancelled": gettext_noop("%(who)s gave back %(tokens)s to cancel it."),
    "nothing": gettext_noop("%(who)s found nothing to steal."),
    "porchetta": gettext_noop("Porchetta Festival! Everybody takes a token."),
    "earthquake": gettext_noop("Earthquake! Everybody gives back all Towers and Books."),
    "carnival": gettext_noop("Carnival! %(who)s steals instead of taking from the reserve."),
    "lombard": gettext_noop("%(who)s used the Lombard Company token to re-roll."),
    "guess": gettext_noop("%(who)s guessed that %(target)s is the %(role)s: %(res)s"),
    "new_role": gettext_noop("%(who)s draws a new role card and starts again."),
    "eliminated": gettext_noop("%(who)s is out of the game."),
    "game_over": gettext_noop("%(who)s takes the throne!"),
    "game_over_nobody": gettext_noop("The game is over: nobody took the throne."),
}
# A number of tokens of one symbol (SYMS), in the log ("2 Towers"): with the plural forms.
TOKEN_COUNTS = {
    "people": ngettext_noop("%(n)s People token", "%(n)s People tokens"),
    "tower": ngettext_noop("%(n)s Tower", "%(n)s Towers"),
    "book": ngettext_noop("%(n)s Book", "%(n)s Books"),
    "mortadella": ngettext_noop("%(n)s Mortadella", "%(n)s Mortadellas"),
}
GUESS_RESULTS = {True: gettext_noop("right!"), False: gettext_noop("wrong!")}
# The events told by their player's name alone.
_WHO_ONLY = (
    "kept",
    "refused",
    "skip_token",
    "skipped",
    "nothing",
    "carnival",
    "lombard",
    "new_role",
    "eliminated",
)


def face_word(face: str) -> Word:
    return Word(FACE_NAMES.get(face, face))


def tokens_phrase(face: str, n: int) -> Phrase:
    """``n`` tokens of the symbol ``face``, in the reader's language and plural."""
    return Phrase(TOKEN_COUNTS[face], {"n": n})


def event_fields(event: Event, who) -> tuple[str, dict] | None:
    """Which of ``EVENT_TEXTS`` the event takes, and its fields (None: the log leaves it out,
    like a turn's start or a take of nothing); ``who(seat)`` names a seat."""
    kind = event.get("kind")
    if kind in _WHO_ONLY:
        return kind, {"who": who(event.get("seat"))}
    if kind in ("porchetta", "earthquake"):
        return kind, {}
    if kind in ("rolled", "chose"):
        dice = listing([face_word(d) for d in event["dice"]])
        return kind, {"who": who(event.get("seat")), "dice": dice}
    # A take or a give-back of nothing is left out; a theft of nothing is told.
    if (kind in ("gained", "discarded") and event.get("n")) or kind == "stole":
        fields = {
            "who": who(event.get("seat")),
            "tokens": tokens_phrase(event["symbol"], event["n"]),
        }
        if kind == "stole":
            fields["target"] = who(event.get("target"))
        return kind, fields
    if kind == "cancelled":
        return kind, {
            "who": who(event.get("seat")),
            "tokens": tokens_phrase("mortadella", event["cost"]),
        }
    if kind == "guess":
        return kind, {
            "who": who(event.get("seat")),
            "target": who(event.get("target")),
            "role": Word(ROLES[event["role"]]["name"]),
            "res": Word(GUESS_RESULTS[bool(event["right"])]),
        }
    if kind == "game_over":
        winners = event.get("winners") or []
        if not winners:
            return "game_over_nobody", {}
        return kind, {"who": who(winners[0])}
    return None


def describe(event: Event) -> str:
    return describe_with(EVENT_TEXTS, event_fields, event)


# --------------------------------------------------------------------------------------------
# Bots: they see only their view and their legal actions.
# --------------------------------------------------------------------------------------------
TIE = 1e-9  # values this close are a tie, broken at random (from the bot's seeded rng)


def _pick_best(items: list, values: list[float], rng: random.Random) -> tuple[float, Any]:
    """The best value and an item with it; ties (the first guess of a game, two equal dice
    choices) are broken at random with the bot's rng, so a seed still replays the game but no
    role, seat or die is favoured by the order of the list (issue 24, item 14)."""
    best = max(values)
    tied = [item for item, v in zip(items, values, strict=True) if v >= best - TIE]
    return best, tied[0] if len(tied) == 1 else rng.choice(tied)


def _toklists(view: dict) -> list[list[int]]:
    return [[t[s] for s in SYMS] for t in view["tokens"]]


def role_beliefs(view: dict) -> dict[int, dict[str, float]]:
    """For every other seat still in the game, how likely each role is from what it collects:
    a player collects towards its goal, so roles it has come closer to get more weight (with no
    tokens yet, every possible role is as likely as the others)."""
    me = view["seat"]
    tokens = _toklists(view)
    mine = view["my_role"]["key"]
    known = {r for r in view["revealed"] if r}
    excluded = {mine, *view.get("my_removed", []), *known}
    wrong = {(g["target"], g["role"]) for g in view["guesses"] if not g["right"]}
    out: dict[int, dict[str, float]] = {}
    for p in range(view["players"]):
        if p == me or view["out"][p]:
            continue
        if view["revealed"][p]:
            out[p] = {view["revealed"][p]: 1.0}
            continue
        weights = {}
        for r in view["roles_in_game"]:
            if r in excluded or r == "brigand" or (p, r) in wrong:
                continue
            progress = distance(r, [0, 0, 0, 0]) - distance(r, tokens[p])
            weights[r] = math.exp(0.8 * progress)
        total = sum(weights.values()) or 1.0
        out[p] = {r: w / total for r, w in weights.items()}
    # Each role card is held by one player at most: a role two players seem to share is split
    # between them, which makes the others' roles clearer (a few rounds of rescaling).
    hidden = [p for p in out if not view["revealed"][p]]
    for _ in range(6):
        for r in {r for p in hidden for r in out[p]}:
            col = sum(out[p].get(r, 0.0) for p in hidden)
            if col > 1.0:
                for p in hidden:
                    if r in out[p]:
                        out[p][r] /= col
        for p in hidden:
            total = sum(out[p].values()) or 1.0
            out[p] = {r: w / total for r, w in out[p].items()}
    return out


def _threat(beliefs: dict[str, float], tokens: list[int]) -> float:
    """How bad it is for the others that this player holds these tokens (high when near a win)."""
    key = tuple(tokens)
    return sum(
        p * 4.0 / (1.0 + THREAT_PACE * (_turns(r, key) + (INN_LATE if r == "innkeeper" else 0.0)))
        for r, p in beliefs.items()
    )


# The heuristic bot's weights (issue #8: tuned with role_win_rates, docs/rules/trono-...md).
THREAT_W = 1.2  # how much a bot cares about the others' progress against its own
THREAT_PACE = 3.0  # a player n turns from a win is a threat of 4 / (1 + 3 n)
PACE_SOFT = 1.0  # the softness (in turns) of the maximum over the groups of missing symbols
MARGINS: dict[str, tuple[int, ...]] = {"rector": (1, 0, 0, 0)}  # tokens kept above the need
INN_LATE = 1.0  # the Innkeeper still has his guess to make: he counts as a turn further away
INN_MARGIN = (1, 2)  # the Innkeeper's margin of each symbol, at 3-6 players and at 7
GUESS_SURE = 0.45  # the Innkeeper guesses when this sure of one role
GUESS_RISK = 0.3  # or this sure when somebody looks about to win (threat GUESS_DANGER)
GUESS_DANGER = 2.0
# 0: a bot aiming a Wine assumes it works; 1: that a target with the Mortadella cancels it when
# that suits him. 1 is shrewder but sends every Wine at the players without Mortadella (the Lord
# of Silk, the Rector), which unbalanced the roles: measured 0, 0.25, 0.5 and 1, kept 0.
CANCEL_GUESS = 0.0
FACE_RATE = 5 / 6  # how many dice of one face a roll of five shows, on average
EXCESS_TURNS = 1.0  # a token too many for an "exact" condition costs about a turn to lose


@lru_cache(maxsize=65536)
def _turns(role: str, tokens: tuple[int, ...]) -> float:
    """About how many turns these tokens are from the role's condition (0 = met).

    Each turn a player keeps three dice of five. A symbol comes from its own face or from a Book
    used as a Joker, but a Book comes only from a Book face: so every group of missing symbols is
    bounded by the dice that can fill it, and the slowest group sets the pace. The Rector's five
    Books take about six turns however many People he already holds."""
    if role == "brigand":
        return distance(role, list(tokens)) / 2.0
    deficit = [0, 0, 0, 0]
    excess = 0
    for i, op, n in NEED[role]:
        if op == "min":
            deficit[i] = max(0, n - tokens[i])
        else:
            deficit[i] = max(0, n - tokens[i])
            excess += max(0, tokens[i] - n)
    missing = [i for i in range(4) if deficit[i]]
    total = sum(deficit)
    paces = [total / 3.0]
    for k in range(1, len(missing) + 1):
        for group in combinations(missing, k):
            faces = len(set(group) | {B})
            paces.append(sum(deficit[i] for i in group) / (FACE_RATE * faces))
    # The slowest group sets the pace, but luck decides which one is slowest: a soft maximum.
    top = max(paces)
    soft = top + PACE_SOFT * math.log(sum(math.exp((x - top) / PACE_SOFT) for x in paces))
    return soft + 0.1 * total + EXCESS_TURNS * excess


def _shortfall(role: str, tokens: list[int]) -> float:
    """The turns still needed, in the units of the bots' scores (about one per token)."""
    return 3.0 * _turns(role, tuple(tokens))


def _margin(role: str, players: int) -> tuple[int, ...]:
    """How many tokens of each symbol a bot collects above its condition, as the others take
    some: the Innkeeper's tokens must still meet his condition when his turn comes round again."""
    if role == "innkeeper":
        m = INN_MARGIN[1] if players == 7 else INN_MARGIN[0]
        return (m, m, m, m)
    return MARGINS.get(role, (0, 0, 0, 0))


def _my_value(role: str, tokens: list[int], sins: bool, players: int = 4) -> float:
    if sins and role != "brigand" and max(tokens) > SIN_LIMIT:
        return -1000.0
    margin = _margin(role, players)
    if any(margin):
        need = {i for i, _op, _n in NEED[role]}
        short = [max(0, t - margin[i]) if i in need else t for i, t in enumerate(tokens)]
        v = -_shortfall(role, short) - 0.5 * _shortfall(role, tokens)
    else:
        v = -_shortfall(role, tokens)
    if meets(role, tokens):
        v += 50.0
    if sins and role != "brigand":
        v -= 0.4 * sum(1 for t in tokens if t == SIN_LIMIT)
    return v


def _score(view: dict, tokens: list[list[int]], beliefs: dict, skips: dict | None = None) -> float:
    me = view["seat"]
    role = view["my_role"]["key"]
    sins = view["options"]["sins"] == "on"
    v = _my_value(role, tokens[me], sins, view["players"])
    for p, b in beliefs.items():
        v -= THREAT_W * _threat(b, tokens[p])
    if skips:
        for p, flag in skips.items():
            if flag and p in beliefs:
                v += 0.8 * _threat(beliefs[p], tokens[p]) + 0.4
            if flag and p == me:
                v -= 2.0
    return v


def _simulate_effect(view: dict, tokens: list[list[int]], act: Action, kind: str, steal: bool):
    """Tokens after an effect action (no cancel assumed), and who gets the Skip Turn token."""
    me = view["seat"]
    t = [list(x) for x in tokens]
    skip = None
    target = act.get("target")
    if kind in ("people", "tower", "mortadella", "book") or (
        kind == "people2" and act.get("mode") == "take"
    ):
        sym = IDX[act.get("symbol", kind if kind != "people2" else "people")]
        n = 2 if kind == "people2" else 1
        if steal:
            if target is not None:
                got = min(n, t[target][sym])
                t[target][sym] -= got
                t[me][sym] += got
        else:
            t[me][sym] += min(n, view["reserve"][SYMS[sym]])
    elif kind == "people2":
        sym = IDX[act["symbol"]]
        t[target][sym] = max(0, t[target][sym] - 1)
    elif kind == "wine":
        t[target][P] = max(0, t[target][P] - 1)
    elif kind == "wine2":
        skip = target
    else:
        for p in range(len(t)):
            if view["out"][p]:
                continue
            if kind == "rat2":
                t[p][M] = max(0, t[p][M] - 1)
            if t[p][P] > 0:
                t[p][P] -= 1
    return t, skip


def _effect_value(view, tokens, beliefs, act, kind, steal) -> float:
    """My score after an effect. Drunkenness or Inebriation on another player who holds the
    Mortadella to cancel it: that player picks the outcome better for him (worse for me)."""
    t, skip = _simulate_effect(view, tokens, act, kind, steal)
    v = _score(view, t, beliefs, {skip: True} if skip is not None else None)
    target = act.get("target")
    if kind in ("wine", "wine2") and target != view["seat"]:
        cost = 1 if kind == "wine" else 2
        if tokens[target][M] >= cost and (kind == "wine2" or tokens[target][P] > 0):
            paid = [list(x) for x in tokens]
            paid[target][M] -= cost
            paid_v = _score(view, paid, beliefs)
            v = CANCEL_GUESS * min(v, paid_v) + (1 - CANCEL_GUESS) * v
    return v


def _best_effect_value(view, tokens, beliefs, kind, acts, steal) -> tuple[float, Action | None]:
    best, best_act = -1e9, None
    for a in acts:
        v = _effect_value(view, tokens, beliefs, a, kind, steal)
        if v > best:
            best, best_act = v, a
    return best, best_act


def _hypothetical_actions(view: dict, kind: str, steal: bool) -> list[Action]:
    """The actions an effect would offer (as legal_actions does) for planning a choice."""
    tokens = _toklists(view)
    me = view["seat"]
    alive = [p for p in range(view["players"]) if not view["out"][p]]
    out: list[Action] = []

    def take(sym: str, extra: dict) -> None:
        if steal:
            victims = [p for p in alive if p != me and tokens[p][IDX[sym]] > 0]
            if victims:
                out.extend({**extra, "target": v} for v in victims)
                return
        out.append(dict(extra))

    if kind in ("people", "tower", "mortadella"):
        take(kind, {})
    elif kind == "book":
        for sym in SYMS:
            take(sym, {"symbol": sym})
    elif kind == "people2":
        take("people", {"mode": "take"})
        for sym in ("tower", "book"):
            out.extend(
                {"mode": "revolution", "symbol": sym, "target": p}
                for p in alive
                if tokens[p][IDX[sym]] > 0
            )
    elif kind in ("wine", "wine2"):
        out.extend({"target": p} for p in alive if p != me)
        if not out:
            out.append({"target": me})
    else:
        out.append({})
    return out


def bot_action(
    view: dict, legal: list, level: str, rng: random.Random, focus: Any = None
) -> Action:
    check_bot_call(legal, level, LEVELS)
    if level == "random":
        return rng.choice(legal)
    phase = view["phase"]
    me = view["seat"]
    role = view["my_role"]["key"]
    tokens = _toklists(view)
    beliefs = role_beliefs(view)
    if phase == "pick_start":
        values = [_my_value(role, _plus(tokens[me], a["symbol"]), True, 7) for a in legal]
        return _pick_best(legal, values, rng)[1]
    if phase == "roll":
        guesses = [a for a in legal if a["type"] == "guess"]
        if guesses:
            g = _bot_guess(view, guesses, beliefs, tokens[me], rng)
            if g is not None:
                return g
        if legal[0]["type"] == "keep":
            steal = role == "brigand"
            keep_value = sum(_die_value(view, tokens, beliefs, d, steal) for d in view["passed"])
            return legal[0] if keep_value > 2 * _AVERAGE_DIE else legal[1]
        return legal[0]
    if phase == "lombard":
        cur = view["current"]
        threat = _threat(beliefs.get(cur, {}), tokens[cur]) if cur in beliefs else 0.0
        five = view["kept"] + view["rolled"]
        useful = sum(1 for d in five if d in SYMS)
        return legal[0] if threat > 1.6 and useful >= 4 else legal[1]
    if phase == "choose":
        return _bot_choose(view, legal, tokens, beliefs, role, rng)
    if phase == "resolve":
        steal = view["steal"]
        kinds = {e["id"]: e["kind"] for e in view["effects"]}
        values = [_effect_value(view, tokens, beliefs, a, kinds[a["effect"]], steal) for a in legal]
        return _pick_best(legal, values, rng)[1]
    if phase == "cancel":
        pending = view["pending"]
        cost = pending["cost"]
        after_cancel = list(tokens[me])
        after_cancel[M] -= cost
        after_accept = list(tokens[me])
        if pending["effect"] == "wine":
            after_accept[P] -= 1
            v_accept = _my_value(role, after_accept, True, view["players"])
        else:
            v_accept = _my_value(role, after_accept, True, view["players"]) - 2.0
        v_cancel = _my_value(role, after_cancel, True, view["players"])
        return legal[0] if v_cancel >= v_accept else legal[1]
    if phase == "plague":
        a = list(tokens[me])
        a[P] -= 1
        b = list(tokens[me])
        b[T] -= 1
        n = view["players"]
        return legal[0] if _my_value(role, a, True, n) >= _my_value(role, b, True, n) else legal[1]
    return legal[0]


def _plus(tokens: list[int], sym: str, n: int = 1) -> list[int]:
    t = list(tokens)
    t[IDX[sym]] += n
    return t


_AVERAGE_DIE = 0.6


def _die_value(view, tokens, beliefs, face, steal) -> float:
    """How much one die is worth to me now (the gain of its effect, on its own)."""
    base = _score(view, tokens, beliefs)
    acts = _hypothetical_actions(view, face, steal)
    best, _ = _best_effect_value(view, tokens, beliefs, face, acts, steal)
    return best - base


def _bot_choose(view, legal, tokens, beliefs, role, rng) -> Action:
    choices = [a for a in legal if a["type"] == "choose"]
    kept, rolled = view["kept"], view["rolled"]
    five = kept + rolled
    steal = view["carnival"] or role == "brigand"
    base = _score(view, tokens, beliefs)
    gains: dict[str, float] = {}

    def gain(kind: str) -> float:
        if kind not in gains:
            acts = _hypothetical_actions(view, kind, steal)
            best, _ = _best_effect_value(view, tokens, beliefs, kind, acts, steal)
            gains[kind] = best - base
        return gains[kind]

    values = []
    for a in choices:
        dice = kept + [rolled[i] for i in a["dice"]]
        effects = group_effects(dice)
        value = sum(gain(k) for k in effects)
        # Sins: several gains of one symbol at once may be one too many.
        counts: dict[str, int] = {}
        for k in effects:
            sym = {"people2": "people"}.get(k, k)
            if sym in SYMS:
                counts[sym] = counts.get(sym, 0) + (2 if k == "people2" else 1)
        if view["options"]["sins"] == "on" and role != "brigand":
            for sym, c in counts.items():
                if tokens[view["seat"]][IDX[sym]] + c > SIN_LIMIT:
                    value -= 100.0
        values.append(value)
    best, best_act = _pick_best(choices, values, rng)
    if "reroll" in {a["type"] for a in legal} and best < 0.3 and len(set(five)) < 5:
        return {"type": "reroll"}
    return best_act


def _bot_guess(view, guesses, beliefs, my_tokens, rng) -> Action | None:
    """The likeliest (seat, role), ties broken at random: in a 2-player game every role the
    other player may hold is as likely at first, and taking the first one in the deck's order
    (always the Prince) made the Prince lose 3 games of 4 (issue 24, item 14)."""
    values = [beliefs.get(g["target"], {}).get(g["role"], 0.0) for g in guesses]
    best_p, best = _pick_best(guesses, values, rng)
    if best_p <= 0.0:
        return None
    if view["players"] == 2:
        # A wrong guess costs every token: guess when sure enough, or while there is little to lose.
        held = sum(my_tokens)
        if best_p >= 0.5 or held <= 3:
            return best
        return None
    # The Innkeeper: sure enough, or somebody looks close to winning (guess before it is late).
    danger = max((_threat(b, _toklists(view)[p]) for p, b in beliefs.items()), default=0.0)
    return (
        best if best_p >= GUESS_SURE or (best_p >= GUESS_RISK and danger >= GUESS_DANGER) else None
    )


def dealt_roles(state: State) -> list[str]:
    """Each seat's role card dealt at the start. With 2 players a wrong guess changes one's
    role: the first removed card is the one dealt (issue 24 asks how a player dealt the Prince
    fares, so the balance tables count the role dealt)."""
    return [
        str(removed[0] if removed else role)
        for role, removed in zip(state["roles"], state["removed"], strict=True)
    ]


def win_labels(state: State) -> list[str]:
    """Each seat's role dealt at the start (``simulate`` reports wins by role with it)."""
    return dealt_roles(state)


def role_win_rates(
    players: int, games: int, seed: int = 0, options: dict | None = None, level: str = "heuristic"
) -> dict:
    """Bot games in process: how often each role wins (for the docs and the balance test)."""
    dealt: dict[str, int] = {}
    wins: dict[str, int] = {}
    reasons: dict[str, int] = {}
    plies = 0
    for i in range(games):
        state = setup(players, seed + i, options or {})
        rngs = [random.Random(f"{seed + i}:bot:{p}") for p in range(players)]
        while True:
            acting = to_act(state)
            if not acting:
                break
            p = acting[0]
            act = bot_action(view(state, p), legal_actions(state, p), level, rngs[p])
            state, _ = apply(state, p, act)
            plies += 1
        start_roles = dealt_roles(state)
        for r in start_roles:
            dealt[r] = dealt.get(r, 0) + 1
        res = state["result"]
        reasons[res["reason"]] = reasons.get(res["reason"], 0) + 1
        for w in res["winners"]:
            r = start_roles[w]
            wins[r] = wins.get(r, 0) + 1
    rates = {r: round(wins.get(r, 0) / dealt[r], 3) for r in sorted(dealt)}
    return {
        "players": players,
        "games": games,
        "dealt": dealt,
        "wins": wins,
        "win_rate": rates,
        "reasons": reasons,
        "mean_plies": plies / games if games else 0,
    }
