"""Bot-versus-bot games in process, for tuning and benchmarks.

From the command line: python manage.py simulate multiplipotion --games 1000 --bots wizard,wizard
"""

from __future__ import annotations

import random
import time

from . import get

PLY_CAP = 5000


def run(slug: str, games: int, seed: int, options: dict, bots: list[str]) -> dict:
    """Play ``games`` bot games; game i uses seed ``seed + i`` and bot rngs derived from it."""
    mod = get(slug)
    players = len(bots)
    setup, to_act, view, legal_actions = mod.setup, mod.to_act, mod.view, mod.legal_actions
    apply, bot_action, outcome = mod.apply, mod.bot_action, mod.outcome
    finished = draws = total_plies = 0
    wins = [0] * players
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
                view(state, seat), legal_actions(state, seat), bots[seat], rngs[seat]
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
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "finished": finished,
        "draws": draws,
        "mean_plies": total_plies / games if games else 0.0,
        "wins_by_seat": wins,
        "games_per_s": games / elapsed if elapsed > 0 else float("inf"),
    }
