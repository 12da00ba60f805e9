"""``engine_games_per_s``: bot-vs-bot games per second of every engine, in one process
(one core), with the engine's best bot level on every seat and default options."""

from __future__ import annotations

from games import registry
from games.engine import simulate


def bench_engine(quick: bool = False, *, seconds: float = 5.0):
    """Return (figures, details): ~``seconds`` of games per game type (3 games when quick)."""
    rates, details = {}, {}
    for slug, module in registry.rules().items():
        level = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
        bots = [level] * module.MIN_PLAYERS
        if quick:
            games = 3
        else:
            probe = simulate.run(module, 30, 1_000_000, {}, bots)  # warm-up and calibration
            games = max(30, round(probe["games_per_s"] * seconds))
        result = simulate.run(module, games, 0, {}, bots)
        rates[slug] = result["games_per_s"]
        details[slug] = {
            "games": games,
            "bots": ",".join(bots),
            "mean_plies": result["mean_plies"],
        }
    return {"engine_games_per_s": rates}, {"engine": details}
