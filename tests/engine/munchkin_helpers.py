"""Helpers for the Munchkin engine tests: build a table by hand, find cards by name."""

import json

from games.munchkin import engine as mk
from games.munchkin.cards import ALL_IDS
from games.munchkin.cards import CARDS


def ids(name: str) -> list[str]:
    found = [c for c in ALL_IDS if CARDS[c]["name"] == name]
    assert found, name
    return found


def card(name: str, n: int = 0) -> str:
    return ids(name)[n]


def hand_of(*names: str) -> list[str]:
    """The ids of the cards with these names, in this order."""
    return [card(n) for n in names]


def arrange(
    players=3,
    hands=None,
    levels=None,
    races=None,
    classes=None,
    items=None,
    used=None,
    curses=None,
    door_top=(),
    treasure_top=(),
    phase="prep",
    current=0,
    options=None,
    seed=0,
):
    """A state in ``phase`` with exactly these cards in hands and on tables; ``door_top`` and
    ``treasure_top`` are the next cards drawn (first drawn first); every other card is in its
    deck. ``used`` defaults to every item of ``items`` that is a real item."""
    s = mk.setup(players, seed, options or {})
    n = players
    hands = [list(h) for h in (hands or [[] for _ in range(n)])]
    items = [list(x) for x in (items or [[] for _ in range(n)])]
    races = [list(x) for x in (races or [[] for _ in range(n)])]
    classes = [list(x) for x in (classes or [[] for _ in range(n)])]
    curses = [list(x) for x in (curses or [[] for _ in range(n)])]
    if used is None:
        used = [[c for c in x if CARDS[c]["kind"] == "item"] for x in items]
    placed = [c for group in (hands, items, races, classes, curses) for x in group for c in x]
    placed += list(door_top) + list(treasure_top)
    assert len(placed) == len(set(placed)), "a card is placed twice"
    rest = [c for c in ALL_IDS if c not in placed]
    s.update(
        hands=hands,
        items=items,
        used=[list(x) for x in used],
        races=races,
        classes=classes,
        curses=curses,
        levels=list(levels or [1] * n),
        door_deck=[c for c in rest if CARDS[c]["deck"] == "door"] + list(reversed(door_top)),
        treasure_deck=[c for c in rest if CARDS[c]["deck"] == "treasure"]
        + list(reversed(treasure_top)),
        door_discard=[],
        treasure_discard=[],
        phase=phase,
        current=current,
        turns=1,
    )
    assert sorted(mk.cards(s)) == sorted(ALL_IDS)
    return s


def act(state, seat, action):
    """Apply, and check conservation, JSON and that no hand card is named in the events."""
    new, events = mk.apply(state, seat, action)
    assert sorted(mk.cards(new)) == sorted(ALL_IDS)
    text = json.dumps(events)
    for p in range(new["players"]):
        for token in mk.private(new, p):
            assert token not in text
    for e in events:
        assert isinstance(mk.describe(e), str)
    return new, events


def kinds(events):
    return [e["kind"] for e in events]


def pass_all(state, until=None):
    """Everybody whose window is open passes until the phase is no longer combat."""
    events = []
    for _ in range(20):
        if state["phase"] != "combat":
            break
        seat = mk.to_act(state)[0]
        state, ev = act(state, seat, {"type": "pass"})
        events += ev
    return state, events


def fight(state, seat=0):
    """Kick open the door (the arranged top door card) and return the state in combat."""
    return act(state, seat, {"type": "kick"})


def on_top(state, cid):
    """Move a card that is in its deck to the top of that deck (it is drawn next)."""
    deck = state["door_deck"] if CARDS[cid]["deck"] == "door" else state["treasure_deck"]
    deck.remove(cid)
    deck.append(cid)
