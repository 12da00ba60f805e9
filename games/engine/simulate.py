"""Bot-versus-bot games in process, for tuning and benchmarks.

From the command line: python manage.py simulate multiplipotion --games 1000 --bots wizard,wizard

A game whose seats play different parts (a secret role, a character) may define
``win_labels(state) -> list[str]``, each seat's part in a game; the result then also has
``wins_by_label``: for each part, the games it was played, its wins, its win rate and its ratio
(the win rate divided by the mean of the parts' win rates: the balance tables of docs/rules).
"""

from __future__ import annotations

import random
import time

from .protocol import Rules

PLY_CAP = 5000


def run(
    mod: Rules, games: int, seed: int, options: dict, bots: list[str], focus: list | None = None
) -> dict:
    """Play ``games`` bot games of the rules engine ``mod`` (a game's ``engine`` module); game
    i uses seed ``seed + i`` and bot rngs derived from it. ``focus`` goes to every bot (only
    MultipliPotion's Coach uses it)."""
    players = len(bots)
    setup, to_act, view, legal_actions = mod.setup, mod.to_act, mod.view, mod.legal_actions
    apply, bot_action, outcome = mod.apply, mod.bot_action, mod.outcome
    finished = draws = total_plies = 0
    wins = [0] * players
    win_labels = getattr(mod, "win_labels", None)
    by_label: dict[str, dict] = {}
    start = time.perf_counter()
    for i in range(games):
        game_seed = seed + i
        state = setup(players, game_seed, options)
        rngs = [random.Random(f"{game_seed}:bot:{s}") for s in range(players)]
        plies = 0
        while plies < PLY_CAP:
            acting = to_act(state)
            if not acting:
                break
            seat = acting[0]
            action = bot_action(
                view(state, seat), legal_actions(state, seat), bots[seat], rngs[seat], focus
            )
            state, _events = apply(state, seat, action)
            plies += 1
        total_plies += plies
        result = outcome(state)
        if result is not None:
            finished += 1
            if not result["winners"]:
                draws += 1
            for w in result["winners"]:
                wins[w] += 1
            if win_labels is not None:
                for s, label in enumerate(win_labels(state)):
                    tally = by_label.setdefault(label, {"games": 0, "wins": 0})
                    tally["games"] += 1
                    tally["wins"] += s in result["winners"]
    elapsed = time.perf_counter() - start
    for tally in by_label.values():
        tally["rate"] = tally["wins"] / tally["games"]
    mean_rate = sum(t["rate"] for t in by_label.values()) / len(by_label) if by_label else 0.0
    for tally in by_label.values():
        tally["ratio"] = round(tally["rate"] / mean_rate, 2) if mean_rate else 0.0
        tally["rate"] = round(tally["rate"], 3)
    extra = {"wins_by_label": dict(sorted(by_label.items()))} if win_labels is not None else {}
    return {
        "games": games,
        "finished": finished,
        "draws": draws,
        "mean_plies": total_plies / games if games else 0.0,
        "wins_by_seat": wins,
        "games_per_s": games / elapsed if elapsed > 0 else float("inf"),
        **extra,
    }
