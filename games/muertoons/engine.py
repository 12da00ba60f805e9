"""Muertoons: a shedding card game for 3-5 players on the way to the Dia de los Muertos party.

The rules and the rulings are written down in docs/rules/muertoons.md.

Seats go clockwise: "the left" of a seat is the next seat number (seat + 1, wrapping round) and
"the right" is the previous one. Seat 0 is the player to the left of the dealer; the dealer is the
last seat.

The state is a plain JSON-able dict. ``apply`` never mutates its input: it copies the top-level dict
and only the lists it changes (lists in a state are never mutated once the state is returned).
"""

from __future__ import annotations

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

SLUG = "muertoons"
NAME = "Muertoons"
MIN_PLAYERS = 3
MAX_PLAYERS = 5
OPTIONS: dict[str, dict] = {}
LEVELS = ["random", "heuristic"]
BEST_LEVEL = "heuristic"
# The events of a secret simultaneous choice (a contest card chosen face down while another player
# still chooses): a move with only these tells the others no more than that the seat has chosen
# (their view lists who has), so their boards' forms stay good (games.models.Match.moved_on_for).
COMMITMENTS = frozenset({"contest_choice"})

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]

# --------------------------------------------------------------------------------------------
# The cards
# --------------------------------------------------------------------------------------------
GIRLS = ("rosita", "bibi", "rubi", "gabi", "lupita")
GIRL_NAMES = {
    "rosita": "Rosita",
    "bibi": "Bibi",
    "rubi": "Rubi",
    "gabi": "Gabi",
    "lupita": "Lupita",
    "spirit": "Spirit",
}
SPIRIT = "mu-spirit"
START = "mu-rosita-01"  # Rosita 1 starts the pile

CARDS: dict[str, dict[str, Any]] = {}
for _g in GIRLS:
    for _n in range(1, 12):
        _cid = f"mu-{_g}-{_n:02d}"
        CARDS[_cid] = {"id": _cid, "girl": _g, "number": _n, "name": f"{GIRL_NAMES[_g]} {_n}"}
CARDS[SPIRIT] = {"id": SPIRIT, "girl": "spirit", "number": None, "name": "the Spirit"}

ALL_IDS: tuple[str, ...] = tuple(CARDS)
GIRL: dict[str, str] = {c: v["girl"] for c, v in CARDS.items()}
NUM: dict[str, int] = {c: (v["number"] or 0) for c, v in CARDS.items()}  # Spirit: 0
ORDER: dict[str, int] = {c: i for i, c in enumerate(sorted(CARDS, key=lambda c: (NUM[c], c)))}
ORDER[SPIRIT] = 99  # the Spirit sorts last in a hand

PHASES = ("play", "contest", "give", "straight", "over")

# Child-friendly messages.
MSG_OVER = gettext_noop("The game is over.")
MSG_NOT_TURN = gettext_noop("It is not your turn yet.")
MSG_CHOSEN = gettext_noop("You already chose your card. Wait for the others.")
MSG_UNKNOWN = gettext_noop("I do not understand that move.")
MSG_NOT_IN_HAND = gettext_noop("That card is not in your hand.")
MSG_MUST_LEAD = gettext_noop("You must play a card now. Any card you like!")
MSG_NOT_NOW = gettext_noop("You cannot do that now.")
MSG_STRAIGHT_SPIRIT = gettext_noop("The Spirit has no number, so it cannot be in a straight.")
MSG_STRAIGHT_NEXT = gettext_noop(
    "Add a card whose number comes just before or just after your straight."
)
MSG_STRAIGHT_EMPTY = gettext_noop("Put down at least one card first, or say no straight.")
MSG_STRAIGHT_STARTED = gettext_noop(
    "You already started your straight. Add a card or say you are done."
)


def _sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=ORDER.__getitem__)


def _can_play(top: str, card: str) -> bool:
    """May ``card`` go on ``top`` (when the player is not leading)?"""
    if card == SPIRIT or top == SPIRIT:
        return True
    g = GIRL[top]
    n = NUM[top]
    if g == "rosita" or g == "bibi":
        return n < 11 and NUM[card] == n + 1
    if g == "gabi" or g == "lupita":
        return NUM[card] == n or GIRL[card] == g
    return True  # a Rubi on top is always followed by a contest and then a lead


# --------------------------------------------------------------------------------------------
# Setup
# --------------------------------------------------------------------------------------------
def setup(players: int, seed: int, options: dict | None = None) -> State:
    check_known_options(
        check_setup(players, seed, options, MIN_PLAYERS, MAX_PLAYERS, NAME), OPTIONS
    )
    deck = [c for c in ALL_IDS if c != START]
    random.Random(f"{seed}:shuffle:0").shuffle(deck)
    # Dealt one at a time, starting with seat 0 (left of the dealer); Tio Rico's hand is dealt
    # after the dealer's in every round, as if he sat at the dealer's left before seat 0.
    hands: list[list[str]] = [[] for _ in range(players + 1)]
    for i, card in enumerate(deck):
        hands[i % (players + 1)].append(card)
    return {
        "game": SLUG,
        "seed": seed,
        "players": players,
        "ply": 0,
        "hands": [_sorted(h) for h in hands[:players]],
        "box": _sorted(hands[players]),
        "pile": [START],
        "current": 0,
        "phase": "play",
        "lead": False,  # the current player must play, and may play any card
        "top_by": players - 1,  # the dealer laid out the Rosita 1
        "passes": 0,  # passes since the top card was put on the pile
        "contest": None,
        "give": None,
        "straight": None,
        "last_contest": None,
        "received": None,
        "result": None,
    }


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------
def to_act(state: State) -> tuple[int, ...]:
    phase = state["phase"]
    if phase == "play":
        return (state["current"],)
    if phase == "contest":
        ch = state["contest"]["choices"]
        return tuple(p for p in state["contest"]["players"] if ch[p] is None)
    if phase == "give":
        return (state["give"]["givers"][0],)
    if phase == "straight":
        return (state["straight"]["chooser"],)
    return ()


def _playable(state: State, seat: int) -> list[str]:
    hand = state["hands"][seat]
    if state["lead"]:
        return list(hand)
    top = state["pile"][-1]
    return [c for c in hand if _can_play(top, c)]


def _extensions(hand: list[str], chosen: list[str]) -> list[str]:
    if not chosen:
        return [c for c in hand if c != SPIRIT]
    lo, hi = NUM[chosen[0]] - 1, NUM[chosen[-1]] + 1
    return [c for c in hand if c != SPIRIT and (NUM[c] == lo or NUM[c] == hi)]


def legal_actions(state: State, seat: int) -> list[Action]:
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    hand = state["hands"][seat]
    if phase == "play":
        acts: list[Action] = [{"type": "play", "card": c} for c in _playable(state, seat)]
        if not state["lead"]:
            acts.append({"type": "pass"})
        return acts
    if phase == "contest":
        return [{"type": "choose", "card": c} for c in hand]
    if phase == "give":
        return [{"type": "give", "card": c} for c in hand]
    # straight
    chosen = state["straight"]["cards"]
    acts = [{"type": "straight", "card": c} for c in _extensions(hand, chosen)]
    acts.append({"type": "straight_done"} if chosen else {"type": "no_straight"})
    return acts


def outcome(state: State) -> dict | None:
    return state["result"]


def private(state: State, seat: int) -> set[str]:
    return hand_and_choice(state, seat, "contest")


def cards(state: State) -> list[str]:
    """Test support: every card id anywhere (hands, pile, Tio Rico's box, contest, straight)."""
    out = list(state["pile"]) + list(state["box"])
    for h in state["hands"]:
        out.extend(h)
    if state["contest"] is not None:
        out.extend(c for c in state["contest"]["choices"] if c is not None)
    if state["straight"] is not None:
        out.extend(state["straight"]["cards"])
    return out


def _card(cid: str) -> dict[str, Any]:
    return dict(CARDS[cid])


def asks(top: str, lead: bool = False) -> dict[str, Any]:
    """What may go on ``top``: a rule name, its number and girl, and a sentence for the screen."""
    if lead:
        return {"rule": "any", "number": None, "girl": None, "text": "Play any card you like."}
    if top == SPIRIT:
        return {"rule": "any", "number": None, "girl": None, "text": "Play any card."}
    g, n = GIRL[top], NUM[top]
    if g in ("rosita", "bibi"):
        if n == 11:
            return {
                "rule": "spirit_only",
                "number": None,
                "girl": None,
                "text": "Only the Spirit can go on an 11.",
            }
        return {
            "rule": "next_number",
            "number": n + 1,
            "girl": None,
            "text": f"Play any {n + 1}, or the Spirit.",
        }
    if g in ("gabi", "lupita"):
        return {
            "rule": "same_number_or_girl",
            "number": n,
            "girl": g,
            "text": f"Play any {n} or any {GIRL_NAMES[g]}, or the Spirit.",
        }
    return {"rule": "any", "number": None, "girl": None, "text": "Play any card."}


def _penalty(state: State) -> str | None:
    """What happens if the current player passes now: "gabi", "lupita" or None."""
    if state["phase"] != "play" or state["lead"] or state["passes"]:
        return None
    g = GIRL[state["pile"][-1]]
    return g if g in ("gabi", "lupita") else None


def view(state: State, seat: int | None) -> dict:
    top = state["pile"][-1]
    hands = state["hands"]
    phase = state["phase"]
    v: dict[str, Any] = {
        "game": SLUG,
        "seat": seat,
        "players": state["players"],
        "phase": phase,
        "turn": state["current"],
        "to_act": list(to_act(state)),
        "lead": state["lead"],
        "top": _card(top),
        "top_by": state["top_by"],
        "asks": asks(top, state["lead"]),
        "penalty": _penalty(state),
        "passes": state["passes"],
        "pile": list(state["pile"]),  # face up: public, bottom first
        "pile_count": len(state["pile"]),
        "hand_counts": [len(h) for h in hands],
        "box_count": len(state["box"]),
        "contest": None,
        "give": None,
        "straight": None,
        "last_contest": state["last_contest"]
        and {
            "starter": state["last_contest"]["starter"],
            "winner": state["last_contest"]["winner"],
            "choices": [{"seat": p, "card": _card(c)} for p, c in state["last_contest"]["choices"]],
        },
        "outcome": state["result"],
    }
    contest = state["contest"]
    if contest is not None:
        v["contest"] = {
            "starter": contest["starter"],
            "players": list(contest["players"]),
            "chosen": [p for p in contest["players"] if contest["choices"][p] is not None],
        }
    if state["give"] is not None:
        v["give"] = {
            "receiver": state["give"]["receiver"],
            "giver": state["give"]["givers"][0],
            "givers": list(state["give"]["givers"]),
        }
    if state["straight"] is not None:
        st = state["straight"]
        v["straight"] = {
            "chooser": st["chooser"],
            "then": st["then"],
            "cards": [_card(c) for c in st["cards"]],
        }
    if seat is not None:
        hand = hands[seat]
        v["hand"] = [_card(c) for c in hand]
        mine = contest["choices"][seat] if contest is not None else None
        v["my_choice"] = _card(mine) if mine is not None else None
        rec = state["received"]
        v["received"] = (
            [{"from": f, "card": _card(c)} for f, c in rec["cards"] if c in hand]
            if rec is not None and rec["seat"] == seat
            else []
        )
    return v


# --------------------------------------------------------------------------------------------
# Apply
# --------------------------------------------------------------------------------------------
def apply(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    phase = state["phase"]
    if phase == "over":
        raise IllegalAction(MSG_OVER)
    if seat not in to_act(state):
        contest = state["contest"]
        if (
            phase == "contest"
            and isinstance(seat, int)
            and 0 <= seat < state["players"]
            and contest["choices"][seat] is not None
        ):
            raise IllegalAction(MSG_CHOSEN)
        raise IllegalAction(MSG_NOT_TURN)
    if not isinstance(action, dict):
        raise IllegalAction(MSG_UNKNOWN)
    kind = action.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalAction(MSG_UNKNOWN)
    if handler[0] != phase:
        raise IllegalAction(MSG_NOT_NOW)
    return handler[1](state, seat, action)


def _card_arg(state: State, seat: int, action: Action) -> str:
    card = action.get("card")
    if not isinstance(card, str) or card not in state["hands"][seat]:
        raise IllegalAction(MSG_NOT_IN_HAND)
    return card


def _without(state: State, s: State, seat: int, card: str) -> list[str]:
    """Copy the hands into ``s`` with ``card`` taken out of ``seat``'s hand; return that hand."""
    hands = list(state["hands"])
    hands[seat] = [c for c in hands[seat] if c != card]
    s["hands"] = hands
    return hands[seat]


def _ranking(s: State, winners: list[int]) -> list[list[int]]:
    counts: dict[int, list[int]] = {}
    for p in range(s["players"]):
        if p not in winners:
            counts.setdefault(len(s["hands"][p]), []).append(p)
    return [sorted(winners)] + [counts[k] for k in sorted(counts)]


def _over(s: State, winners: list[int], reason: str) -> Event:
    winners = sorted(winners)
    s["result"] = {"winners": winners, "ranking": _ranking(s, winners), "reason": reason}
    s["phase"] = "over"
    s["lead"] = False
    s["contest"] = None
    s["give"] = None
    s["straight"] = None
    return {"kind": "game_over", "winners": winners, "reason": reason}


def _lead(s: State, seat: int, why: str) -> Event:
    s["phase"] = "play"
    s["current"] = seat
    s["lead"] = True
    s["passes"] = 0
    return {"kind": "lead", "seat": seat, "why": why}


def _start_contest(s: State, starter: int) -> Event:
    n = s["players"]
    players = [p for p in range(n) if s["hands"][p]]
    s["phase"] = "contest"
    s["current"] = starter
    s["lead"] = False
    s["contest"] = {"starter": starter, "players": players, "choices": [None] * n}
    return {"kind": "contest_started", "seat": starter, "players": players}


def _after_card_on_pile(s: State, seat: int, events: list[Event]) -> None:
    """``seat`` just put the top card on the pile (a play or the top of a straight)."""
    s["top_by"] = seat
    s["passes"] = 0
    s["lead"] = False
    if not s["hands"][seat]:
        events.append(_over(s, [seat], "empty_hand"))
    elif GIRL[s["pile"][-1]] == "rubi":
        events.append(_start_contest(s, seat))
    else:
        s["phase"] = "play"
        s["current"] = (seat + 1) % s["players"]


def _play(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    card = _card_arg(state, seat, action)
    if not state["lead"] and not _can_play(state["pile"][-1], card):
        # What the pile asks for is on the board next to it (the presenter's words).
        raise IllegalAction(gettext_noop("That card cannot go there."))
    s = dict(state)
    s["ply"] = state["ply"] + 1
    _without(state, s, seat, card)
    s["pile"] = [*state["pile"], card]
    events: list[Event] = [{"kind": "played", "seat": seat, "card": _card(card)}]
    _after_card_on_pile(s, seat, events)
    return s, events


def _advance_after_pass(s: State, passer: int, events: list[Event]) -> None:
    nxt = (passer + 1) % s["players"]
    s["phase"] = "play"
    s["passes"] = s["passes"] + 1
    if nxt == s["top_by"]:
        events.append(_lead(s, nxt, "all_passed"))
    else:
        s["current"] = nxt
        s["lead"] = False


def _pass(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if state["lead"]:
        raise IllegalAction(MSG_MUST_LEAD)
    penalty = _penalty(state)
    s = dict(state)
    s["ply"] = state["ply"] + 1
    events: list[Event] = [{"kind": "passed", "seat": seat}]
    n = state["players"]
    if penalty == "gabi":
        # Every other player gives one card, starting with the one who played the Gabi and
        # moving right (decreasing seat numbers).
        g = state["top_by"]
        givers = [(g - k) % n for k in range(n)]
        s["give"] = {"receiver": seat, "givers": [p for p in givers if p != seat]}
        s["received"] = {"seat": seat, "cards": []}
        s["phase"] = "give"
        events.append({"kind": "gabi_gifts", "seat": seat})
        _next_giver(s, events)
    elif penalty == "lupita":
        s["straight"] = {"chooser": state["top_by"], "then": seat, "cards": []}
        s["phase"] = "straight"
        events.append({"kind": "lupita_straight", "seat": state["top_by"], "after": seat})
    else:
        _advance_after_pass(s, seat, events)
    return s, events


def _next_giver(s: State, events: list[Event]) -> None:
    """Skip the givers who hold only one card; when nobody is left, the receiver leads."""
    give = s["give"]
    givers = give["givers"]
    while givers and len(s["hands"][givers[0]]) < 2:
        events.append({"kind": "gave", "seat": givers[0], "to": give["receiver"], "nothing": True})
        givers = givers[1:]
    if givers:
        s["give"] = {"receiver": give["receiver"], "givers": givers}
    else:
        s["give"] = None
        events.append(_lead(s, give["receiver"], "gabi"))


def _give(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    card = _card_arg(state, seat, action)
    give = state["give"]
    to = give["receiver"]
    s = dict(state)
    s["ply"] = state["ply"] + 1
    _without(state, s, seat, card)
    s["hands"][to] = _sorted([*state["hands"][to], card])
    rec = state["received"]
    s["received"] = {"seat": to, "cards": [*rec["cards"], [seat, card]]}
    s["give"] = {"receiver": to, "givers": give["givers"][1:]}
    events: list[Event] = [{"kind": "gave", "seat": seat, "to": to, "nothing": False}]
    _next_giver(s, events)
    return s, events


def _choose(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    card = _card_arg(state, seat, action)
    contest = state["contest"]
    s = dict(state)
    s["ply"] = state["ply"] + 1
    _without(state, s, seat, card)
    choices = list(contest["choices"])
    choices[seat] = card
    events: list[Event] = [{"kind": "contest_choice", "seat": seat}]
    players = contest["players"]
    if any(choices[p] is None for p in players):
        s["contest"] = {"starter": contest["starter"], "players": players, "choices": choices}
        return s, events
    # Everybody has chosen: reveal together.
    n = state["players"]
    starter = contest["starter"]
    order = [p for p in ((starter + k) % n for k in range(n)) if p in players]
    winner = None
    best = 0
    for p in order:
        c = choices[p]
        if c == SPIRIT:
            winner, best = p, 99
        elif GIRL[c] == "rubi" and NUM[c] > best:
            winner, best = p, NUM[c]
    on_pile = [p for p in order if p != winner] + ([winner] if winner is not None else [])
    s["pile"] = [*state["pile"], *(choices[p] for p in on_pile)]
    s["contest"] = None
    s["last_contest"] = {
        "starter": starter,
        "winner": winner,
        "choices": [[p, choices[p]] for p in order],
    }
    events.append(
        {
            "kind": "contest_reveal",
            "seat": starter,
            "winner": winner,
            "choices": [{"seat": p, "card": _card(choices[p])} for p in order],
        }
    )
    s["top_by"] = on_pile[-1]
    out = [p for p in players if not s["hands"][p]]
    if out:
        events.append(_over(s, out, "contest"))
    elif winner is not None:
        events.append(_lead(s, winner, "contest_won"))
    else:
        events.append(_lead(s, (starter + 1) % n, "no_winner"))
    return s, events


def _straight(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    card = _card_arg(state, seat, action)
    st = state["straight"]
    if card == SPIRIT:
        raise IllegalAction(MSG_STRAIGHT_SPIRIT)
    if card not in _extensions(state["hands"][seat], st["cards"]):
        raise IllegalAction(MSG_STRAIGHT_NEXT)
    s = dict(state)
    s["ply"] = state["ply"] + 1
    hand = _without(state, s, seat, card)
    chosen = sorted([*st["cards"], card], key=NUM.__getitem__)
    s["straight"] = {"chooser": seat, "then": st["then"], "cards": chosen}
    events: list[Event] = [{"kind": "straight_card", "seat": seat, "card": _card(card)}]
    if not _extensions(hand, chosen):  # nothing more can be added: the straight is complete
        _finish_straight(s, events)
    return s, events


def _straight_done(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    if not state["straight"]["cards"]:
        raise IllegalAction(MSG_STRAIGHT_EMPTY)
    s = dict(state)
    s["ply"] = state["ply"] + 1
    events: list[Event] = []
    _finish_straight(s, events)
    return s, events


def _finish_straight(s: State, events: list[Event]) -> None:
    st = s["straight"]
    seat = st["chooser"]
    s["straight"] = None
    s["pile"] = [*s["pile"], *st["cards"]]  # lowest first: the highest card ends on top
    events.append({"kind": "straight", "seat": seat, "cards": [_card(c) for c in st["cards"]]})
    _after_card_on_pile(s, seat, events)
    if s["phase"] == "play":
        s["current"] = st["then"]  # the player who passed on the Lupita plays on the new top


def _no_straight(state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
    st = state["straight"]
    if st["cards"]:
        raise IllegalAction(MSG_STRAIGHT_STARTED)
    s = dict(state)
    s["ply"] = state["ply"] + 1
    s["straight"] = None
    events: list[Event] = [{"kind": "no_straight", "seat": seat}]
    _advance_after_pass(s, st["then"], events)
    return s, events


_HANDLERS = {
    "play": ("play", _play),
    "pass": ("play", _pass),
    "choose": ("contest", _choose),
    "give": ("give", _give),
    "straight": ("straight", _straight),
    "straight_done": ("straight", _straight_done),
    "no_straight": ("straight", _no_straight),
}


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------
def dump(state: State) -> dict:
    d = dict(state)
    d["hands"] = [list(h) for h in state["hands"]]
    d["box"] = list(state["box"])
    d["pile"] = list(state["pile"])
    c = state["contest"]
    if c is not None:
        d["contest"] = {
            "starter": c["starter"],
            "players": list(c["players"]),
            "choices": list(c["choices"]),
        }
    g = state["give"]
    if g is not None:
        d["give"] = {"receiver": g["receiver"], "givers": list(g["givers"])}
    st = state["straight"]
    if st is not None:
        d["straight"] = {"chooser": st["chooser"], "then": st["then"], "cards": list(st["cards"])}
    lc = state["last_contest"]
    if lc is not None:
        d["last_contest"] = {
            "starter": lc["starter"],
            "winner": lc["winner"],
            "choices": [list(x) for x in lc["choices"]],
        }
    r = state["received"]
    if r is not None:
        d["received"] = {"seat": r["seat"], "cards": [list(x) for x in r["cards"]]}
    res = state["result"]
    if res is not None:
        d["result"] = {
            "winners": list(res["winners"]),
            "ranking": [list(x) for x in res["ranking"]],
            "reason": res["reason"],
        }
    return d


def _read(d: dict) -> tuple[State, bool, list[str]]:
    """A copy of a stored state, whether it holds together, and its cards."""
    s = dump(d)
    ok = (
        s["phase"] in PHASES
        and MIN_PLAYERS <= s["players"] <= MAX_PLAYERS
        and len(s["hands"]) == s["players"]
        and bool(s["pile"])
    )
    return s, ok, sorted(cards(s))


def load(d: dict) -> State:
    s, deck = load_checked(d, SLUG, NAME, _read)
    if deck != sorted(ALL_IDS):
        raise ValueError("the cards of this Muertoons state do not add up")
    return s


# --------------------------------------------------------------------------------------------
# Log lines (games/engine/base.py, "Event texts, written once"): the same for describe and the
# board. Only public events are told: a card given for a Gabi or chosen for a contest is never
# named (those events do not hold it); the contest's cards are named once they are turned over.
# --------------------------------------------------------------------------------------------
# A card's name on the screen and in the log ("Rosita 3", "the Spirit"), translated.
GIRL_WORDS = {
    "rosita": gettext_noop("Rosita"),
    "bibi": gettext_noop("Bibi"),
    "rubi": gettext_noop("Rubi"),
    "gabi": gettext_noop("Gabi"),
    "lupita": gettext_noop("Lupita"),
    "spirit": gettext_noop("the Spirit"),
}
CARD_NAME = gettext_noop("%(girl)s %(n)s")
# Translators: a player's card when the contest cards are turned over ("Ana: Rubi 8").
CHOICE_TEXT = gettext_noop("%(name)s: %(card)s")

EVENT_TEXTS = {
    "played": gettext_noop("%(who)s played %(card)s."),
    "passed": gettext_noop("%(who)s passed."),
    "lead_all_passed": gettext_noop("Everybody passed, so %(who)s plays any card."),
    "lead_contest_won": gettext_noop("%(who)s won the contest and plays any card."),
    "lead_no_winner": gettext_noop("Nobody won the contest, so %(who)s plays any card."),
    "lead": gettext_noop("%(who)s plays any card."),
    "contest_started": gettext_noop("%(who)s played a Rubi: it's a contest!"),
    "contest_choice": gettext_noop("%(who)s chose a card for the contest."),
    "contest_reveal_no_winner": gettext_noop(
        "The contest cards are turned over (%(shown)s). Nobody wins."
    ),
    "contest_reveal": gettext_noop("The contest cards are turned over (%(shown)s). %(who)s wins!"),
    "gabi_gifts": gettext_noop("%(who)s passed on the Gabi, so everybody gives %(who)s a card."),
    "gave_nothing": gettext_noop("%(who)s has only one card left and keeps it."),
    "gave": gettext_noop("%(who)s gave %(to)s a card."),
    "lupita_straight": gettext_noop(
        "Nobody played on the Lupita, so %(who)s may put down a straight."
    ),
    "straight_card": gettext_noop("%(who)s put %(card)s in the straight."),
    "straight": gettext_noop("%(who)s put down a straight: %(cards)s."),
    "no_straight": gettext_noop("%(who)s put down no straight."),
    "game_over": gettext_noop("%(names)s reached the party!"),
}
# The events told with the seat's name only, and the reasons a lead is told with.
WHO_ONLY = frozenset(
    ("passed", "contest_started", "contest_choice", "gabi_gifts", "lupita_straight", "no_straight")
)
LEADS = {"all_passed", "contest_won", "no_winner"}


def card_name(card: dict) -> Phrase:
    """A card of a view or an event by its name, to be rendered (base.render_event)."""
    if card["girl"] == "spirit":
        return Phrase(GIRL_WORDS["spirit"], {})
    return Phrase(CARD_NAME, {"girl": Word(GIRL_WORDS[card["girl"]]), "n": card["number"]})


def event_fields(event: Event, who) -> tuple[str, dict] | None:
    """Which of ``EVENT_TEXTS`` the event takes, and its fields; ``who(seat)`` names a seat."""
    kind = event.get("kind")
    fields: dict[str, Any] = {"who": who(event.get("seat"))}
    if kind in ("played", "straight_card"):
        return kind, {**fields, "card": card_name(event["card"])}
    if kind in WHO_ONLY:
        return kind, fields
    if kind == "lead":
        why = event.get("why")
        return (f"lead_{why}" if why in LEADS else kind), fields
    if kind == "contest_reveal":
        shown = listing(
            [
                Phrase(CHOICE_TEXT, {"name": who(c["seat"]), "card": card_name(c["card"])})
                for c in event["choices"]
            ]
        )
        if event.get("winner") is None:
            return "contest_reveal_no_winner", {"shown": shown}
        return kind, {"shown": shown, "who": who(event["winner"])}
    if kind == "gave":
        if event.get("nothing"):
            return "gave_nothing", fields
        return kind, {**fields, "to": who(event.get("to"))}
    if kind == "straight":
        return kind, {**fields, "cards": listing([card_name(c) for c in event["cards"]])}
    if kind == "game_over":
        return kind, {"names": listing([who(w) for w in event.get("winners") or []])}
    return None


def describe(event: Event) -> str:
    return describe_with(EVENT_TEXTS, event_fields, event)


# --------------------------------------------------------------------------------------------
# Bots: they see only their view and their legal actions.
# --------------------------------------------------------------------------------------------
def _ways(cid: str) -> int:
    """How many kinds of top card a card can follow when its owner is not leading."""
    if cid == SPIRIT:
        return 50
    g, n = GIRL[cid], NUM[cid]
    ways = 2 + (2 if n >= 2 else 0)  # on Gabi/Lupita n; on Rosita/Bibi n-1
    if g == "gabi" or g == "lupita":
        ways += 10
    return ways


WAYS: dict[str, int] = {c: _ways(c) for c in CARDS}


def _keep_value(cid: str) -> int:
    """How much a bot likes to keep a card (low: get rid of it first)."""
    if cid == SPIRIT:
        return 100
    g, n = GIRL[cid], NUM[cid]
    if (g == "rosita" or g == "bibi") and n == 11:
        return 30  # nobody but the Spirit can follow it: it wins the lead back
    if g == "rubi" and n >= 9:
        return 25
    return WAYS[cid]


KEEP: dict[str, int] = {c: _keep_value(c) for c in CARDS}


def _best_run(hand: list[str]) -> list[str]:
    """The longest straight in a hand (one card per number; Gabi/Lupita preferred on top)."""
    by_num: dict[int, list[str]] = {}
    for c in hand:
        if c != SPIRIT:
            by_num.setdefault(NUM[c], []).append(c)
    best: tuple[int, int] = (0, 0)
    n = 1
    while n <= 11:
        if n in by_num:
            m = n
            while m + 1 in by_num:
                m += 1
            if m - n + 1 > best[1] - best[0]:
                best = (n, m + 1)
            n = m + 1
        else:
            n += 1
    return [min(by_num[k], key=KEEP.__getitem__) for k in range(best[0], best[1])]


def _unseen_rubis(view: dict) -> set[int]:
    seen = set(view["pile"]) | {c["id"] for c in view.get("hand", ())}
    return {n for n in range(1, 12) if f"mu-rubi-{n:02d}" not in seen}


def bot_action(
    view: dict, legal: list, level: str, rng: random.Random, focus: Any = None
) -> Action:
    check_bot_call(legal, level, LEVELS)
    if level == "random":
        return rng.choice(legal)
    phase = view["phase"]
    hand = [c["id"] for c in view["hand"]]
    if phase == "contest":
        return _bot_contest(view, hand, legal)
    if phase == "give":
        ids = [a["card"] for a in legal]
        return {"type": "give", "card": min(ids, key=lambda c: (KEEP[c], ORDER[c]))}
    if phase == "straight":
        return _bot_straight(view, hand, legal)
    return _bot_play(view, hand, legal)


def _bot_contest(view: dict, hand: list[str], legal: list) -> Action:
    if len(hand) == 1:
        return legal[0]
    rubis = sorted((NUM[c] for c in hand if GIRL[c] == "rubi"), reverse=True)
    others = _unseen_rubis(view) - set(rubis)
    spirit_out = SPIRIT not in view["pile"] and SPIRIT not in hand
    if rubis and (not others or rubis[0] > max(others)) and (not spirit_out or len(hand) <= 4):
        return {"type": "choose", "card": f"mu-rubi-{rubis[0]:02d}"}
    if SPIRIT in hand and len(hand) <= 3:
        return {"type": "choose", "card": SPIRIT}
    dump = min((c for c in hand if c != SPIRIT), key=lambda c: (KEEP[c], ORDER[c]))
    return {"type": "choose", "card": dump}


def _bot_straight(view: dict, hand: list[str], legal: list) -> Action:
    chosen = [c["id"] for c in view["straight"]["cards"]]
    adds = [a["card"] for a in legal if a["type"] == "straight"]
    if not chosen:
        run = _best_run(hand)
        if not run:
            return legal[-1]
        return {"type": "straight", "card": run[0]}
    if not adds:
        return legal[-1]
    hi = NUM[chosen[-1]]
    # Prefer going up (the top card is what the next player must follow); on the last number
    # prefer a Gabi or a Lupita, the girls that punish a pass.
    ups = [c for c in adds if NUM[c] == hi + 1]
    if ups and not any(NUM[c] == hi + 2 for c in hand):
        punish = [c for c in ups if GIRL[c] == "gabi" or GIRL[c] == "lupita"]
        return {"type": "straight", "card": (punish or ups)[0]}
    pool = ups or adds
    return {"type": "straight", "card": min(pool, key=lambda c: (KEEP[c], ORDER[c]))}


def _can_win_contest(hand: list[str], view: dict, without: str) -> bool:
    rest = [c for c in hand if c != without]
    if SPIRIT in rest:
        return True
    rubis = [NUM[c] for c in rest if GIRL[c] == "rubi"]
    if not rubis:
        return False
    others = _unseen_rubis(view) - {NUM[without]} - set(rubis)
    return not others or max(rubis) > max(others)


def _bot_play(view: dict, hand: list[str], legal: list) -> Action:
    plays = [a["card"] for a in legal if a["type"] == "play"]
    if not plays:
        return legal[-1]
    if len(hand) == 1:
        return {"type": "play", "card": plays[0]}
    lead = view["lead"]
    penalty = view["penalty"]
    counts = view["hand_counts"]
    me = view["seat"]
    nxt = (me + 1) % view["players"]
    best_card = None
    best = -1e9
    for c in plays:
        g, n = GIRL[c], NUM[c]
        score = 40.0 - KEEP[c]
        if c == SPIRIT:
            score = -60.0 if len(hand) > 2 else 60.0
        elif g == "rubi":
            score += 25.0 if _can_win_contest(hand, view, c) else 2.0
        elif (g == "rosita" or g == "bibi") and n == 11:
            score += 40.0  # everybody must pass (unless someone has the Spirit): lead again
        elif g == "gabi":
            score += 6.0 + 2.0 * (counts[nxt] <= 3)
        elif g == "lupita":
            score += 2.0 * len(_best_run([h for h in hand if h != c]))
        if score > best:
            best, best_card = score, c
    if best_card == SPIRIT and not lead and len(hand) > 2 and penalty is None:
        return {"type": "pass"}
    return {"type": "play", "card": best_card}
