"""What the games' rules engines share: the protocol (``protocol.Rules``), ``IllegalAction`` and
``gettext_noop`` (``base``), and the bot-versus-bot simulator (``simulate``).

Each game's engine is ``games/<slug>/engine.py`` (the registry, games/registry.py, finds it
through the game's ``game.py``). No engine module imports Django, and no module uses the global
``random`` functions: all chance comes from ``random.Random`` instances derived from the seed
kept in the state. Optional parts of the protocol: ``timeout_action(state, seat)``, the action
the table takes for a person whose time ran out (only Munchkin's "anyone?" window has a clock;
``Match.time_out`` plays it); ``COMMITMENTS``, the event kinds of a secret simultaneous choice
that leaves the round open (Muertoons' contest, Mortadelo's duel): another seat's move with only
these events does not make a form stale; ``win_labels(state)``, each seat's part (its role, its
character), for the simulator's balance tables.
"""

from .base import IllegalAction

__all__ = ["IllegalAction"]
