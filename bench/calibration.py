"""How fast this machine is right now, recorded beside a capacity figure so that runs of
different days can be compared (this VM's speed has swung about 2× between days).

Two measures, in this process (one core), each the best of a few tries (the least disturbed):

- ``python_loop_ms``: a fixed pure-Python loop (integer arithmetic, a dict and a list; no
  allocation-heavy or I/O work), in milliseconds: lower is faster;
- ``engine_games_per_s``: MultipliPotion bot-vs-bot games per second (``games.engine.simulate``,
  the engine's best bot level, a fixed seed and number of games): higher is faster.

Nothing here touches Django or a database."""

from __future__ import annotations

import time

LOOP_N = 300_000


def python_loop() -> int:
    """The fixed work: the same result on every machine (checked by the tests)."""
    table: dict[int, int] = {}
    out: list[int] = []
    total = 0
    for i in range(LOOP_N):
        key = (i * 7919) % 1009
        table[key] = table.get(key, 0) + i
        if i % 97 == 0:
            out.append(table[key] % 10_007)
        total = (total + key * 31) % 1_000_003
    return total + sum(out)


def best_ms(function, tries: int) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        function()
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def machine_speed(quick: bool = False) -> dict:
    """``{"python_loop_ms", "engine_games_per_s", "engine_games", "tries", "at"}``."""
    from games.engine import simulate
    from games.multiplipotion import engine as module

    tries = 2 if quick else 5
    games = 10 if quick else 60
    bots = [getattr(module, "BEST_LEVEL", module.LEVELS[-1])] * module.MIN_PLAYERS
    loop_ms = best_ms(python_loop, tries)
    game_ms = best_ms(lambda: simulate.run(module, games, 0, {}, bots), tries)
    return {
        "python_loop_ms": loop_ms,
        "engine_games_per_s": games / (game_ms / 1000),
        "engine_games": games,
        "tries": tries,
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
