"""MultipliPotion: a two-player card game to practise the 2-9 times tables.

The rules and the rulings are written down in docs/rules/multiplipotion.md.

The state is a plain JSON-able dict. ``apply`` never mutates its input: it copies the top-level dict
and only the lists it changes (lists in a state are never mutated once the state is returned).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from games.engine.base import IllegalAction
from games.engine.base import check_bot_call
from games.engine.base import check_known_options
from games.engine.base import check_setup
from games.engine.base import describe_with
from games.engine.base import gettext_noop
from games.engine.base import load_checked
from games.engine.base import ngettext_noop

SLUG = "multiplipotion"
NAME = "MultipliPotion"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
OPTIONS = {"tier": {"choices": ["green", "purple", "full"], "default": "full"}}
LEVELS = ["random", "apprentice", "wizard", "coach"]
BEST_LEVEL = "wizard"  # the default of `manage.py simulate`

GOAL = 5  # trophies needed to win at once

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

# --------------------------------------------------------------------------------------------
# The deck (see docs/rules/multiplipotion.md, "Deck design").  (potion, monster) per card.
# --------------------------------------------------------------------------------------------
GREEN_DECK: tuple[tuple[int, int], ...] = (
    (2, 4), (3, 4), (4, 6), (5, 6), (2, 8), (3, 8), (4, 9), (5, 9),
    (2, 10), (3, 10), (4, 12), (5, 12), (2, 12), (3, 15), (4, 15), (5, 15),
    (2, 16), (3, 16), (4, 16), (5, 20), (2, 20), (3, 20), (4, 25), (5, 25),
)  # fmt: skip
PURPLE_DECK: tuple[tuple[int, int], ...] = (
    (6, 12), (7, 14), (8, 16), (9, 18), (2, 18), (3, 21), (6, 24), (7, 24), (8, 27),
    (9, 28), (4, 28), (5, 30), (6, 32), (7, 35), (8, 36), (9, 36), (2, 40), (3, 42),
    (6, 42), (7, 45), (8, 48), (9, 48), (4, 49), (5, 49), (6, 54), (7, 54), (8, 56),
    (9, 56), (2, 63), (3, 63), (6, 64), (7, 64), (8, 72), (9, 72), (4, 81), (5, 81),
)  # fmt: skip

CARDS: dict[str, dict[str, Any]] = {}
for _i, (_p, _m) in enumerate(GREEN_DECK, 1):
    CARDS[f"mp-g{_i:02d}"] = {"id": f"mp-g{_i:02d}", "potion": _p, "monster": _m, "colour": "green"}
for _i, (_p, _m) in enumerate(PURPLE_DECK, 1):
    CARDS[f"mp-p{_i:02d}"] = {
        "id": f"mp-p{_i:02d}",
        "potion": _p,
        "monster": _m,
        "colour": "purple",
    }

POTION: dict[str, int] = {cid: c["potion"] for cid, c in CARDS.items()}
MONSTER: dict[str, int] = {cid: c["monster"] for cid, c in CARDS.items()}

TIER_IDS: dict[str, tuple[str, ...]] = {
    "green": tuple(c for c in CARDS if CARDS[c]["colour"] == "green"),
    "purple": tuple(c for c in CARDS if CARDS[c]["colour"] == "purple"),
    "full": tuple(CARDS),
}

# "last_call": every card is played; the other player may still check the last turn (FAQ)
# before the game ends (docs/rules, "The last turn can be checked").
PHASES = ("place", "capture_or_end", "end", "forced_capture", "last_call", "over")

# Child-friendly messages.
MSG_OVER = gettext_noop("The game is over.")
MSG_NOT_TURN = gettext_noop("It is not your turn yet.")
MSG_UNKNOWN = gettext_noop("I do not understand that move.")
MSG_NOT_IN_HAND = gettext_noop("That card is not in your hand.")
MSG_ALREADY_PLACED = gettext_noop("You already placed a card this turn.")
MSG_PLACE_FIRST = gettext_noop("Place a card first, then capture.")
MSG_PLACE_BEFORE_END = gettext_noop("Place a card first, then end your turn.")
MSG_ONE_CAPTURE = gettext_noop("You can capture only one monster in a turn.")
MSG_TWO_POTIONS = gettext_noop("Tap exactly two of your potions, then the monster they make.")
MSG_CH_TWO_POTIONS = gettext_noop("Tap exactly two of their potions, then your monster they make.")
MSG_SAME_CARD = gettext_noop("Pick two different potion cards.")
MSG_OWN_POTIONS = gettext_noop("Use two potions from your own play area.")
MSG_OPP_MONSTER = gettext_noop("Pick a monster in your opponent's play area.")
MSG_NO_CHALLENGE = gettext_noop(
    "You can only check your opponent's turn at the start of your turn."
)
MSG_CH_POTIONS = gettext_noop("Pick two potions in your opponent's play area.")
MSG_CH_MONSTER = gettext_noop("Pick one of your own monsters.")
MSG_MUST_CAPTURE = gettext_noop("You were caught! Capture a monster now.")


# --------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------
def setup(players: int, seed: int, options: dict | None = None) -> State:
    options = check_setup(players, seed, options, MIN_PLAYERS, MAX_PLAYERS, NAME)
    check_known_options(options, OPTIONS)
    tier = options.get("tier", OPTIONS["tier"]["default"])
    if tier not in OPTIONS["tier"]["choices"]:
        raise ValueError(f"tier must be one of {OPTIONS['tier']['choices']}")
    deck = list(TIER_IDS[tier])
    random.Random(f"{seed}:shuffle:0").shuffle(deck)
    areas = [[deck[0]], [deck[1]]]
    hands = [deck[2:5], deck[5:8]]
    pile = deck[8:]
    # Seat 0 begins; the engine draws for it at once (start of turn).
    hands[0] = [*hands[0], pile[0]]
    pile = pile[1:]
    return {
        "game": SLUG,
        "seed": seed,
        "tier": tier,
        "ply": 0,
        "turn_no": 1,
        "current": 0,
        "phase": "place",
        "pile": pile,
        "hands": hands,
        "areas": areas,
        "trophies": [[], []],
        "captured": False,  # the current player has captured this turn
        "challenge": False,  # the current player may still challenge the previous turn
        "missed": False,  # the previous player ended a turn while a capture was possible
        "wrong": [0, 0],  # wrong claims per seat (no penalty: just counted)
        "last": None,  # the last multiplication claim, for a kind message on screen
        "drawn": hands[0][-1],  # the card the current player drew for this turn
        "result": None,
    }


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------
def to_act(state: State) -> tuple[int, ...]:
    phase = state["phase"]
    if phase == "over":
        return ()
    if phase == "forced_capture":
        return (1 - state["current"],)
    return (state["current"],)


def _claims(potions: list[str], monsters: list[str], kind: str) -> list[Action]:
    return [
        {"type": kind, "potions": [a, b], "monster": m}
        for a, b in combinations(potions, 2)
        for m in monsters
    ]


def _may_challenge(state: State) -> bool:
    cur = state["current"]
    return (
        state["challenge"]
        and state["phase"] in ("place", "capture_or_end", "last_call")
        and len(state["areas"][1 - cur]) >= 2
        and bool(state["areas"][cur])
    )


def legal_actions(state: State, seat: int) -> list[Action]:
    phase = state["phase"]
    if phase == "over" or seat not in to_act(state):
        return []
    areas = state["areas"]
    if phase == "forced_capture":
        return _claims(areas[seat], areas[1 - seat], "capture")
    actions: list[Action] = []
    if phase == "place":
        actions = [{"type": "place", "card": c} for c in state["hands"][seat]]
    elif phase == "capture_or_end":
        actions = _claims(areas[seat], areas[1 - seat], "capture")
    # In the last call: a check of the last turn, or the end of the game (end_turn).
    if _may_challenge(state):
        actions += _claims(areas[1 - seat], areas[seat], "challenge")
    if phase != "place":
        actions.append({"type": "end_turn"})
    return actions


def outcome(state: State) -> dict | None:
    return state["result"]


def private(state: State, seat: int) -> set[str]:
    return set(state["hands"][seat])


def cards(state: State) -> list[str]:
    """Test support: every card id held anywhere in the state (pile, hands, areas, trophies)."""
    out = list(state["pile"])
    for key in ("hands", "areas", "trophies"):
        for lst in state[key]:
            out.extend(lst)
    return out


_CARDS = CARDS  # view() copies every card, so callers may change what they get


def _card(cid: str) -> dict[str, Any]:
    return dict(CARDS[cid])


def view(state: State, seat: int | None) -> dict:
    cur = state["current"]
    phase = state["phase"]
    hands = state["hands"]
    v: dict[str, Any] = {
        "game": SLUG,
        "seat": seat,
        "tier": state["tier"],
        "goal": GOAL,
        "turn": cur,
        "turn_no": state["turn_no"],
        "phase": phase,
        "to_act": list(to_act(state)),
        "areas": [[dict(_CARDS[c]) for c in area] for area in state["areas"]],
        "trophies": [[dict(_CARDS[c]) for c in t] for t in state["trophies"]],
        "hand_counts": [len(hands[0]), len(hands[1])],
        "pile_count": len(state["pile"]),
        "can_challenge": seat is not None and seat == cur and _may_challenge(state),
        "last": dict(state["last"]) if state["last"] else None,
        "outcome": state["result"],
    }
    if seat is not None:
        v["hand"] = [dict(_CARDS[c]) for c in hands[seat]]
    return v


# --------------------------------------------------------------------------------------------
# Apply
# --------------------------------------------------------------------------------------------
def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if state["phase"] == "over":
        raise IllegalAction(MSG_OVER)
    if seat not in to_act(state):
        raise IllegalAction(MSG_NOT_TURN)
    if not isinstance(action, dict):
        raise IllegalAction(MSG_UNKNOWN)
    kind = action.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalAction(MSG_UNKNOWN)
    if state["phase"] == "forced_capture" and kind != "capture":
        raise IllegalAction(MSG_MUST_CAPTURE)
    return handler(state, seat, action)


def _claim_ids(action: Action, how_many_msg: str = MSG_TWO_POTIONS) -> tuple[str, str, str]:
    potions = action.get("potions")
    monster = action.get("monster")
    if potions is None and isinstance(monster, str):
        potions = []  # a monster tapped before any potion was ticked: no box sends nothing
    if not isinstance(potions, (list, tuple)) or not isinstance(monster, str):
        raise IllegalAction(MSG_UNKNOWN)
    if len(potions) != 2:
        raise IllegalAction(how_many_msg)
    a, b = potions
    if not isinstance(a, str) or not isinstance(b, str):
        raise IllegalAction(MSG_UNKNOWN)
    if a == b:
        raise IllegalAction(MSG_SAME_CARD)
    return a, b, monster


def _fact(
    seat: int,
    a: int,
    b: int,
    answer: int | None,
    correct: bool,
    context: str,
    options: list[str] | None = None,
) -> Event:
    """A multiplication the seat asserted or missed. ``context``: "capture", "challenge",
    "missed", or "forced" (a capture tapped after being caught: the child must capture, so
    it is stored apart and is no evidence of the pair). A claim carries ``options``, the
    values of the monsters the seat could tap (public), which its kind is weighed against."""
    fact: Event = {
        "kind": "fact",
        "seat": seat,
        "a": a,
        "b": b,
        "answer": answer,
        "correct": correct,
        "context": context,
    }
    if options is not None:
        fact["options"] = sorted(MONSTER[m] for m in options)
    return fact


def _wrong(state: State, seat: int, fact: Event, extra: list[Event]) -> tuple[State, list[Event]]:
    s = dict(state)
    s["ply"] = state["ply"] + 1
    wrong = list(state["wrong"])
    wrong[seat] += 1
    s["wrong"] = wrong
    s["last"] = _last(fact, state["ply"])
    return s, [fact, *extra]


def _last(fact: Event, ply: int) -> dict:
    return {
        "seat": fact["seat"],
        "a": fact["a"],
        "b": fact["b"],
        "answer": fact["answer"],
        "product": fact["a"] * fact["b"],
        "correct": fact["correct"],
        "context": fact["context"],
        "ply": ply,
    }


def _over(s: State, winners: list[int], reason: str) -> Event:
    t = [len(s["trophies"][0]), len(s["trophies"][1])]
    if t[0] == t[1]:
        ranking = [[0, 1]]
    else:
        best = 0 if t[0] > t[1] else 1
        ranking = [[best], [1 - best]]
    s["result"] = {"winners": winners, "ranking": ranking, "reason": reason, "trophies": t}
    s["phase"] = "over"
    s["challenge"] = False
    return {"kind": "game_over", "winners": winners, "reason": reason, "trophies": t}


def _do_capture(
    state: State, seat: int, a: str, b: str, m: str, context: str, board: list[str]
) -> tuple[State, list[Event]]:
    """Move the cards of a correct capture; returns a fresh state (phase not yet updated)."""
    opp = 1 - seat
    s = dict(state)
    s["ply"] = state["ply"] + 1
    areas = list(state["areas"])
    areas[seat] = [c for c in areas[seat] if c != a and c != b]
    areas[opp] = [c for c in areas[opp] if c != m]
    s["areas"] = areas
    trophies = list(state["trophies"])
    trophies[seat] = [*trophies[seat], m]
    s["trophies"] = trophies
    s["pile"] = [*state["pile"], a, b]
    fact = _fact(seat, POTION[a], POTION[b], MONSTER[m], True, context, board)
    s["last"] = _last(fact, state["ply"])
    events: list[Event] = [
        fact,
        {
            "kind": "captured",
            "seat": seat,
            "from": opp,
            "potions": [a, b],
            "monster": m,
            "a": POTION[a],
            "b": POTION[b],
            "value": MONSTER[m],
        },
    ]
    if len(trophies[seat]) >= GOAL:
        events.append(_over(s, [seat], "five_trophies"))
    return s, events


def _place(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    card = action.get("card")
    hand = state["hands"][seat]
    if state["phase"] != "place":
        raise IllegalAction(MSG_ALREADY_PLACED if hand else MSG_NOT_IN_HAND)
    if not isinstance(card, str) or card not in hand:
        raise IllegalAction(MSG_NOT_IN_HAND)
    s = dict(state)
    s["ply"] = state["ply"] + 1
    hands = list(state["hands"])
    hands[seat] = [c for c in hand if c != card]
    s["hands"] = hands
    areas = list(state["areas"])
    areas[seat] = [*areas[seat], card]
    s["areas"] = areas
    s["phase"] = "capture_or_end"
    s["challenge"] = False
    return s, [{"kind": "placed", "seat": seat, "card": _card(card)}]


def _capture(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    phase = state["phase"]
    if phase == "place":
        raise IllegalAction(MSG_PLACE_FIRST)
    if phase == "end":
        raise IllegalAction(MSG_ONE_CAPTURE)
    a, b, m = _claim_ids(action)
    own = state["areas"][seat]
    if a not in own or b not in own:
        raise IllegalAction(MSG_OWN_POTIONS)
    if m not in state["areas"][1 - seat]:
        raise IllegalAction(MSG_OPP_MONSTER)
    pa, pb, mv = POTION[a], POTION[b], MONSTER[m]
    context = "forced" if phase == "forced_capture" else "capture"
    board = state["areas"][1 - seat]
    if pa * pb != mv:
        return _wrong(state, seat, _fact(seat, pa, pb, mv, False, context, board), [])
    s, events = _do_capture(state, seat, a, b, m, context, board)
    if phase == "forced_capture":
        # The vigilant player (whose turn it is) takes the top card of the pile as a trophy.
        # Ruling: the pile as it was before the two used potions went under it; if it was
        # empty, there is no trophy (the used potions are never taken).
        cur = state["current"]
        if s["phase"] != "over":
            drawn = state.get("drawn")
            if state["pile"] or drawn in s["hands"][cur]:
                if state["pile"]:
                    top = s["pile"][0]
                    s["pile"] = s["pile"][1:]
                else:
                    # Ruling (docs/rules, "The last card of the pile"): the pile's last card
                    # went to the vigilant player's hand at the start of this turn, before the
                    # challenge; it was the top of the pile, so it is the reward.
                    top = drawn
                    hands = list(s["hands"])
                    hands[cur] = [c for c in hands[cur] if c != drawn]
                    s["hands"] = hands
                trophies = list(s["trophies"])
                trophies[cur] = [*trophies[cur], top]
                s["trophies"] = trophies
                events.append({"kind": "vigilance_trophy", "seat": cur, "card": _card(top)})
                if len(trophies[cur]) >= GOAL:
                    events.append(_over(s, [cur], "five_trophies"))
            else:
                events.append({"kind": "vigilance_trophy", "seat": cur, "card": None})
        if s["phase"] != "over" and state.get("last_call"):
            events.append(_cards_out(s))  # the check of the last turn was the game's last move
        elif s["phase"] != "over":
            s["phase"] = "place" if s["hands"][cur] else "capture_or_end"
    elif s["phase"] != "over":
        s["phase"] = "end"
        s["captured"] = True
        s["challenge"] = False
    return s, events


def _challenge(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if state["phase"] not in ("place", "capture_or_end", "last_call") or not state["challenge"]:
        raise IllegalAction(MSG_NO_CHALLENGE)
    a, b, m = _claim_ids(action, MSG_CH_TWO_POTIONS)
    prev = 1 - seat
    theirs = state["areas"][prev]
    if a not in theirs or b not in theirs:
        raise IllegalAction(MSG_CH_POTIONS)
    if m not in state["areas"][seat]:
        raise IllegalAction(MSG_CH_MONSTER)
    pa, pb, mv = POTION[a], POTION[b], MONSTER[m]
    correct = pa * pb == mv
    fact = _fact(seat, pa, pb, mv, correct, "challenge", state["areas"][seat])
    ev = {"kind": "challenge", "seat": seat, "against": prev, "correct": correct}
    if not correct:
        return _wrong(state, seat, fact, [ev])
    s = dict(state)
    s["ply"] = state["ply"] + 1
    s["phase"] = "forced_capture"
    s["challenge"] = False
    s["last"] = _last(fact, state["ply"])
    return s, [fact, ev]


def _missed_facts(state: State, seat: int) -> list[tuple[int, int]]:
    """The omissions of a turn ended without a capture (docs/rules/multiplipotion.md, "Missed
    captures"): one fact per monster value the seat could have captured, in the order the
    opponent's monsters lie. Of several pairs that make the value, the pair whose later card
    was placed most recently (two such pairs share that card, so they are the same fact); its
    potions in the order they lie in the seat's area, the order a capture names them."""
    own = state["areas"][seat]
    found: dict[int, tuple[int, int]] = {}  # value -> (i, j), positions in the seat's area
    for i, j in combinations(range(len(own)), 2):
        value = POTION[own[i]] * POTION[own[j]]
        if value not in found or (j, i) > found[value][::-1]:
            found[value] = (i, j)
    facts: list[tuple[int, int]] = []
    seen: set[int] = set()
    for m in state["areas"][1 - seat]:
        value = MONSTER[m]
        if value in found and value not in seen:
            seen.add(value)
            i, j = found[value]
            facts.append((POTION[own[i]], POTION[own[j]]))
    return facts


def _cards_out(s: State) -> Event:
    """The end when no card is left in the pile or the hands: the most monsters wins."""
    t0, t1 = len(s["trophies"][0]), len(s["trophies"][1])
    return _over(s, [] if t0 == t1 else [0 if t0 > t1 else 1], "cards_out")


def _end_turn(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    phase = state["phase"]
    if phase == "place":
        raise IllegalAction(MSG_PLACE_BEFORE_END)
    if phase == "forced_capture":
        raise IllegalAction(MSG_MUST_CAPTURE)
    if phase == "last_call":  # no check of the last turn: the game ends
        s = dict(state)
        s["ply"] = state["ply"] + 1
        return s, [_cards_out(s)]
    events: list[Event] = []
    missed = False
    if not state["captured"]:
        for a, b in _missed_facts(state, seat):
            missed = True
            events.append(_fact(seat, a, b, None, False, "missed"))
    s = dict(state)
    s["ply"] = state["ply"] + 1
    s["missed"] = missed
    nxt = 1 - seat
    events.append({"kind": "turn_ended", "seat": seat, "next": nxt})
    pile = state["pile"]
    hands = state["hands"]
    if not pile and not hands[0] and not hands[1]:
        s["challenge"] = not state["captured"]
        s["current"] = nxt
        if _may_challenge(s):
            # Every card is played, but the FAQ lets the other player check this turn "when
            # [it] announces the end of the turn": one last call before the end.
            s["phase"] = "last_call"
            s["last_call"] = True
            s["captured"] = False
            return s, events
        s["current"] = seat
        events.append(_cards_out(s))
        return s, events
    s["challenge"] = not state["captured"]
    s["captured"] = False
    s["current"] = nxt
    s["turn_no"] = state["turn_no"] + 1
    s["drawn"] = pile[0] if pile else None  # the card drawn for this turn (see _capture)
    if pile:
        hands = list(hands)
        hands[nxt] = [*hands[nxt], pile[0]]
        s["hands"] = hands
        s["pile"] = pile[1:]
        events.append({"kind": "drew", "seat": nxt, "pile_count": len(pile) - 1})
    s["phase"] = "place" if hands[nxt] else "capture_or_end"
    return s, events


_HANDLERS = {
    "place": _place,
    "capture": _capture,
    "challenge": _challenge,
    "end_turn": _end_turn,
}


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------
_LIST_KEYS = ("pile",)
_NESTED_KEYS = ("hands", "areas", "trophies")


def dump(state: State) -> dict:
    d = dict(state)
    d["pile"] = list(state["pile"])
    for k in _NESTED_KEYS:
        d[k] = [list(x) for x in state[k]]
    d["wrong"] = list(state["wrong"])
    d["last"] = dict(state["last"]) if state["last"] else None
    if state["result"] is not None:
        r = state["result"]
        d["result"] = {
            "winners": list(r["winners"]),
            "ranking": [list(x) for x in r["ranking"]],
            "reason": r["reason"],
            "trophies": list(r["trophies"]),
        }
    return d


def load(d: dict) -> State:
    s, _ = load_checked(d, SLUG, NAME, lambda d: (dump(d), True, None))
    if s["phase"] not in PHASES or s["tier"] not in TIER_IDS:
        raise ValueError("bad MultipliPotion state")
    if sorted(cards(s)) != sorted(TIER_IDS[s["tier"]]):
        raise ValueError("the cards of this MultipliPotion state do not add up")
    return s


# --------------------------------------------------------------------------------------------
# Log lines (games/engine/base.py, "Event texts, written once"): the same for describe and the
# board. A fact a player missed is never told (their opponent must spot it), a right claim is
# told by its capture or challenge, and no event names a hidden card (the vigilance trophy).
# --------------------------------------------------------------------------------------------
EVENT_TEXTS = {
    "placed": gettext_noop("%(who)s placed potion %(p)s (monster %(m)s)."),
    "captured": gettext_noop("%(who)s captured monster %(v)s: %(a)s × %(b)s."),
    "wrong_fact": gettext_noop("%(who)s tried %(a)s × %(b)s = %(n)s. It is %(p)s."),
    "challenge": gettext_noop("%(who)s spotted a capture that %(other)s missed!"),
    "vigilance_trophy": gettext_noop("%(who)s takes the top card of the pile as a reward."),
    "vigilance_no_card": gettext_noop("%(who)s was vigilant, but the draw pile is empty."),
    "turn_ended": gettext_noop("%(who)s ended the turn."),
    "drew": ngettext_noop("%(who)s drew a card (%(n)s left).", "%(who)s drew a card (%(n)s left)."),
}


def event_fields(event: Event, who) -> tuple[str, dict] | None:
    """Which of ``EVENT_TEXTS`` the event takes, and its fields; ``who(seat)`` names a seat."""
    kind = event.get("kind")
    fields: dict[str, Any] = {"who": who(event.get("seat"))}
    if kind == "placed":
        return kind, {**fields, "p": event["card"]["potion"], "m": event["card"]["monster"]}
    if kind == "captured":
        a, b = event["a"], event["b"]
        return kind, {**fields, "v": a * b, "a": a, "b": b}
    if kind == "fact" and event["context"] != "missed" and not event["correct"]:
        a, b = event["a"], event["b"]
        return "wrong_fact", {**fields, "a": a, "b": b, "n": event["answer"], "p": a * b}
    if kind == "challenge" and event["correct"]:
        return kind, {**fields, "other": who(event.get("against"))}
    if kind == "vigilance_trophy":
        return ("vigilance_no_card" if event.get("card") is None else kind), fields
    if kind == "turn_ended":
        return kind, fields
    if kind == "drew":
        return kind, {**fields, "n": event.get("pile_count", 0)}
    return None


def describe(event: Event) -> str:
    return describe_with(EVENT_TEXTS, event_fields, event)


# --------------------------------------------------------------------------------------------
# Bots: they see only their view and their legal actions.
# --------------------------------------------------------------------------------------------
def _pairs_products(values: list[int]) -> set[int]:
    return {a * b for a, b in combinations(values, 2)}


# value -> the potions f (2..9) such that value = f x g with g in 2..9 too
_FACTORS: dict[int, frozenset[int]] = {
    v: frozenset(f for f in range(2, 10) if v % f == 0 and 2 <= v // f <= 9) for v in range(82)
}


def _card_values(view: dict) -> tuple[dict[str, int], dict[str, int]]:
    pot: dict[str, int] = {}
    mon: dict[str, int] = {}
    for c in [*view["areas"][0], *view["areas"][1], *view.get("hand", ())]:
        pot[c["id"]] = c["potion"]
        mon[c["id"]] = c["monster"]
    return pot, mon


def _sort_legal(legal: list, pot: dict, mon: dict) -> tuple[list, list, list, list]:
    """Places, right captures, right challenges and ends (bots never make a wrong claim)."""
    places: list[Action] = []
    captures: list[Action] = []
    challenges: list[Action] = []
    ends: list[Action] = []
    for a in legal:
        kind = a["type"]
        if kind == "place":
            places.append(a)
        elif kind == "end_turn":
            ends.append(a)
        else:
            p = a["potions"]
            if pot[p[0]] * pot[p[1]] == mon[a["monster"]]:
                (captures if kind == "capture" else challenges).append(a)
    return places, captures, challenges, ends


def bot_action(
    view: dict,
    legal: list,
    level: str,
    rng: random.Random,
    focus: list[tuple[int, int]] | None = None,
) -> Action:
    check_bot_call(legal, level, LEVELS)
    pot, mon = _card_values(view)
    places, captures, challenges, ends = _sort_legal(legal, pot, mon)
    if level == "random":
        options = places + captures + challenges + ends
        return rng.choice(options) if options else legal[0]
    # The Coach with no focus facts (nobody's facts to practise) plays exactly like the wizard.
    facts = _focus_facts(focus) if level == "coach" else {}
    if view["phase"] == "forced_capture":
        if level == "apprentice":
            return rng.choice(captures)
        return _best_capture(view, captures, mon, rng, facts)
    if challenges and (level != "apprentice" or rng.random() < 0.5):
        return challenges[0]
    if places:
        if level == "apprentice":
            return _apprentice_place(view, places, pot, rng)
        if facts:
            return _coach_place(view, places, pot, mon, rng, facts)
        return _wizard_place(view, places, pot, mon, rng)
    if captures:
        if level == "apprentice":
            if rng.random() < 2 / 3:
                return rng.choice(captures)
        else:
            return _best_capture(view, captures, mon, rng, facts)
    return ends[0] if ends else legal[0]


def _pick_best(scored: list[tuple[float, Action]], rng: random.Random) -> Action:
    """The best-scored action; equal scores: a random one (the rng is used even for one)."""
    top = max(score for score, _a in scored)
    return rng.choice([a for score, a in scored if score == top])


def _apprentice_place(view: dict, places: list, pot: dict, rng: random.Random) -> Action:
    me = view["seat"]
    my_potions = [c["potion"] for c in view["areas"][me]]
    mset = {c["monster"] for c in view["areas"][1 - me]}
    good = [a for a in places if any(pot[a["card"]] * q in mset for q in my_potions)]
    return rng.choice(good or places)


def _wizard_place(view: dict, places: list, pot: dict, mon: dict, rng: random.Random) -> Action:
    """A potion that captures now, or that goes with the opponent's monsters next turn; never
    a monster the opponent's placed potions capture."""
    me = view["seat"]
    my_potions = [c["potion"] for c in view["areas"][me]]
    opp_monsters = [c["monster"] for c in view["areas"][1 - me]]
    opp_potions = [c["potion"] for c in view["areas"][1 - me]]
    mset = set(opp_monsters)
    threats = _pairs_products(opp_potions)
    scored: list[tuple[float, Action]] = []
    for a in places:
        p, m = pot[a["card"]], mon[a["card"]]
        if any(p * q in mset for q in my_potions):
            scored.append((10.0, a))
            continue
        score = float(min(3, sum(1 for v in opp_monsters if p in _FACTORS[v])))
        if m in threats:
            score -= 8
        elif not _FACTORS[m].isdisjoint(opp_potions):
            score -= 1
        scored.append((score, a))
    return _pick_best(scored, rng)


# The Coach (docs/rules/multiplipotion.md, "Bots" and "Measuring the Coach"). The weights of
# its card choice, tuned with games.engine.coach_measure on seeds 0-999 only.
COACH_REACH = {2: 14.0, 1: 6.0, 0: 2.0}  # a focus monster; the child holds both / one / no factor
COACH_KEEP = 10.0  # a capture using a card whose monster is a focus product: less worth
COACH_SPARE = 6.0  # a capture of a child's card whose potion is a focus factor: less worth
COACH_GUARD = 2.0  # a monster the child could take with a focus-factor potion: less worth


def _focus_facts(focus) -> dict[int, list[tuple[int, int]]]:
    """Focus facts by product (7 x 8 and 8 x 7 are one fact here)."""
    out: dict[int, list[tuple[int, int]]] = {}
    for a, b in focus or ():
        fact = (a, b) if a <= b else (b, a)
        if fact not in out.setdefault(a * b, []):
            out[a * b].append(fact)
    return out


def _reach(facts: list[tuple[int, int]], potions: list[int]) -> int:
    """2 when the potions hold both factors of one of the facts, 1 when one factor, else 0."""
    best = 0
    for a, b in facts:
        if (potions.count(a) >= 2) if a == b else (a in potions and b in potions):
            return 2
        if a in potions or b in potions:
            best = 1
    return best


def _capture_value(
    mine: list[str], child: list[dict], card: str, pot: dict, kept: set, spare: set
) -> float | None:
    """The best capture the Coach has once ``card`` is placed (10, less for one that takes
    away a focus monster of its own or a child's focus-factor potion); None: no capture."""
    best = None
    for x, y in combinations([*mine, card], 2):
        for t in child:
            if pot[x] * pot[y] == t["monster"]:
                v = 10 - COACH_KEEP * ((x in kept) + (y in kept)) - COACH_SPARE * (t["id"] in spare)
                best = v if best is None else max(best, v)
    return best


def _coach_place(
    view: dict, places: list, pot: dict, mon: dict, rng: random.Random, facts: dict
) -> Action:
    """The wizard's choice, but a card whose monster is the product of a focus fact comes
    first, the more so when the child's placed potions already hold its factors; a capture
    the card opens counts less when it would take away a focus monster or a child's potion
    that is a focus factor, and so does a monster the child could take with such a potion."""
    me = view["seat"]
    mine = [c["id"] for c in view["areas"][me]]
    child = view["areas"][1 - me]
    child_potions = [c["potion"] for c in child]
    threats = _pairs_products(child_potions)
    factors = {f for fs in facts.values() for fact in fs for f in fact}
    guarded = factors & set(child_potions)
    keep = {c for c in mine if mon[c] in facts}
    spare = {c["id"] for c in child if c["potion"] in factors}
    scored: list[tuple[float, Action]] = []
    for a in places:
        card = a["card"]
        p, m = pot[card], mon[card]
        cap = _capture_value(mine, child, card, pot, keep | {card} if m in facts else keep, spare)
        future = sum(1 for c in child if p in _FACTORS[c["monster"]] and c["id"] not in spare)
        score = float(cap if cap is not None and cap > min(3, future) else min(3, future))
        if m in facts:
            score += COACH_REACH[_reach(facts[m], child_potions)]
        elif cap is None or cap < 10:
            if m in threats:
                score -= 8
            elif not _FACTORS[m].isdisjoint(child_potions):
                score -= 1
            if not _FACTORS[m].isdisjoint(guarded):
                score -= COACH_GUARD
        scored.append((score, a))
    return _pick_best(scored, rng)


def _best_capture(
    view: dict, captures: list[Action], mon: dict, rng: random.Random, facts: dict | None = None
) -> Action:
    """Prefer captures that also take away our own monsters the opponent could capture; the
    Coach keeps its focus monsters in front of the child instead."""
    me = view["seat"]
    opp_potions = [c["potion"] for c in view["areas"][1 - me]]
    threats = _pairs_products(opp_potions)
    factors = {f for fs in (facts or {}).values() for fact in fs for f in fact}
    potion_of = {c["id"]: c["potion"] for c in view["areas"][1 - me]}
    best: list[Action] = []
    best_score = -1e9
    for a in captures:
        score = 0.0
        for p in a["potions"]:
            if facts and mon[p] in facts:
                score -= COACH_KEEP
            elif mon[p] in threats:
                score += 2
        if potion_of.get(a["monster"]) in factors:
            score -= COACH_SPARE
        score += mon[a["monster"]] / 100
        if score > best_score:
            best_score, best = score, [a]
        elif score == best_score:
            best.append(a)
    return best[0] if len(best) == 1 else rng.choice(best)
