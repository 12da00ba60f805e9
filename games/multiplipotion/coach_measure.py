"""How often MultipliPotion's Coach puts a child's focus facts in front of the child.

The same seeds are played twice: once with the Coach in its seat and once with the Grand Wizard
in that seat instead; the other seat (the "child", a bot) plays the same level both times.
Counted for the child, over all games (docs/rules/multiplipotion.md, "Measuring the Coach"):

* ``focus_monsters``: cards the Coach (or the Wizard) placed whose monster is the product of a
  focus fact;
* ``focus_chances``: the child's turns on which, once the child has placed its card, a capture
  is open to the child with exactly a focus fact: two of the child's placed potions are the
  fact's two factors and a monster of the other seat has their product (a turn counts once);
* ``focus_captures``: captures the child made with exactly a focus fact.

From the command line:
python manage.py simulate multiplipotion --games 2000 --bots apprentice,coach --focus 7x8,6x8
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from games.engine.simulate import PLY_CAP

from . import engine as mp

COUNTS = ("focus_monsters", "focus_chances", "focus_captures")


def _fact_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def focus_chance(state: mp.State, child: int, facts: set[tuple[int, int]]) -> bool:
    """Whether the child may now capture a monster of the other seat with exactly a focus fact."""
    monsters = {mp.MONSTER[m] for m in state["areas"][1 - child]}
    potions = [mp.POTION[c] for c in state["areas"][child]]
    for i, p in enumerate(potions):
        for q in potions[i + 1 :]:
            if _fact_key(p, q) in facts and p * q in monsters:
                return True
    return False


def play_counted(
    seed: int, options: dict, levels: list[str], child: int, focus: list[tuple[int, int]]
) -> dict:
    """One game from ``seed`` (as ``simulate.run`` plays it, focus given to every bot)."""
    facts = {_fact_key(a, b) for a, b in focus}
    products = {a * b for a, b in facts}
    state = mp.setup(2, seed, options)
    rngs = [random.Random(f"{seed}:bot:{s}") for s in range(2)]
    counts = dict.fromkeys(COUNTS, 0)
    counted_turn = None
    for _ply in range(PLY_CAP):
        acting = mp.to_act(state)
        if not acting:
            break
        seat = acting[0]
        if (
            seat == child
            and state["phase"] == "capture_or_end"
            and counted_turn != state["turn_no"]
        ):
            counted_turn = state["turn_no"]
            counts["focus_chances"] += focus_chance(state, child, facts)
        view = mp.view(state, seat)
        action = mp.bot_action(view, mp.legal_actions(state, seat), levels[seat], rngs[seat], focus)
        state, events = mp.apply(state, seat, action)
        for e in events:
            if e["kind"] == "placed" and e["seat"] != child:
                counts["focus_monsters"] += e["card"]["monster"] in products
            elif e["kind"] == "fact" and e["seat"] == child and e["context"] == "capture":
                counts["focus_captures"] += e["correct"] and _fact_key(e["a"], e["b"]) in facts
    result = mp.outcome(state)
    counts["coach_seat_won"] = int(result is not None and (1 - child) in result["winners"])
    counts["turns"] = state["turn_no"]
    return counts


def measure(
    games: int, seed: int, options: dict, levels: list[str], focus: Iterable[tuple[int, int]]
) -> dict:
    """Coach against Wizard on seeds ``seed`` .. ``seed + games - 1``; ``levels`` has exactly one
    "coach" seat, the other seat is the child."""
    focus = [tuple(f) for f in focus]
    if levels.count("coach") != 1 or len(levels) != 2:
        raise ValueError("measuring the Coach needs one coach seat and one other seat")
    coach = levels.index("coach")
    child = 1 - coach
    wizard_levels = list(levels)
    wizard_levels[coach] = "wizard"
    out: dict = {"focus": [list(f) for f in focus], "child_seat": child, "games": games}
    for name, lv in (("coach", levels), ("wizard", wizard_levels)):
        total = dict.fromkeys((*COUNTS, "coach_seat_won", "turns"), 0)
        for i in range(games):
            for key, value in play_counted(seed + i, options, lv, child, focus).items():
                total[key] += value
        out[name] = total
    out["ratio"] = {
        key: round(out["coach"][key] / out["wizard"][key], 3) if out["wizard"][key] else None
        for key in COUNTS
    }
    return out
