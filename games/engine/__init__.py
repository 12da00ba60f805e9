"""Pure-Python rules engines of the games of the project.

Every game module follows the same protocol (see docs/rules/ and games/engine/multiplipotion.py):
SLUG, NAME, MIN_PLAYERS, MAX_PLAYERS, OPTIONS, LEVELS, setup, to_act, legal_actions, apply, view,
outcome, dump, load, private, bot_action, describe (and the test helper cards). Optional:
timeout_action(state, seat), the action the table takes for a person whose time ran out (only
Munchkin's "anyone?" window has a clock; ``Match.time_out`` plays it), and COMMITMENTS, the
event kinds of a secret simultaneous choice that leaves the round open (Muertoons' contest,
Mortadelo's duel): another seat's move with only these events does not make a form stale.

No module under games/engine imports Django, and no module uses the global ``random`` functions:
all chance comes from ``random.Random`` instances derived from the seed kept in the state.
"""

from types import ModuleType

from . import mortadelo, muertoons, multiplipotion, munchkin, trono
from .base import IllegalAction

GAMES: dict[str, ModuleType] = {
    multiplipotion.SLUG: multiplipotion,
    muertoons.SLUG: muertoons,
    trono.SLUG: trono,
    mortadelo.SLUG: mortadelo,
    munchkin.SLUG: munchkin,
}


def get(slug: str) -> ModuleType:
    """Return the engine module of a game; raise KeyError for an unknown slug."""
    return GAMES[slug]


__all__ = ["GAMES", "IllegalAction", "get"]
