"""What every game's rules engine provides: ``Rules``, a ``typing.Protocol`` a type checker
holds each game's ``engine`` module against (``Game(rules=engine)`` in its ``game.py``).

States, views, actions and events are JSON-ready dicts; ``seat`` is a seat number from 0 and
``None`` is somebody at no seat (a spectator, a replay). Pure Python: no Django.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import Protocol


class Rules(Protocol):
    # Read-only facts (properties, so a module's plain constants satisfy them).
    @property
    def SLUG(self) -> str:  # the game's id in URLs and in Match.game
        ...

    @property
    def NAME(self) -> str:  # the game's own name (not translated: a title)
        ...

    @property
    def MIN_PLAYERS(self) -> int: ...

    @property
    def MAX_PLAYERS(self) -> int: ...

    @property
    def OPTIONS(self) -> Mapping[str, Mapping[str, Any]]:
        """Table options: {name: {"choices": [...], "default": ...}}."""
        ...

    @property
    def LEVELS(self) -> Sequence[str]:
        """Computer players' levels, weakest first ("random" is for tests)."""
        ...

    @property
    def BEST_LEVEL(self) -> str:
        """The level a family table gets unless it asks for another."""
        ...

    def setup(self, players: int, seed: int, options: dict | None = None) -> dict[str, Any]:
        """The starting state of a table of ``players``, from ``seed``."""
        ...

    def to_act(self, state: dict[str, Any]) -> tuple[int, ...]:
        """The seats that may act now (several during a secret simultaneous choice)."""
        ...

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]: ...

    def apply(
        self, state: dict[str, Any], seat: int, action: dict[str, Any]
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """(new state, events); raise ``IllegalAction`` with a child's sentence."""
        ...

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see: its own hand, nobody else's hidden cards or role."""
        ...

    def outcome(self, state: dict[str, Any]) -> dict[str, Any] | None: ...

    def private(self, state: dict[str, Any], seat: int) -> Any:
        """Everything only ``seat`` may know (the hidden-information tests compare views
        against it)."""
        ...

    def bot_action(
        self,
        view: dict,
        legal: list,
        level: str,
        rng: random.Random,
        focus: Any = None,
    ) -> dict[str, Any]:
        """A computer player's choice among ``legal``, from the seat's ``view`` only (never the
        state); ``focus`` is what the platform's hooks ask it to put first (MultipliPotion's
        Coach: the facts of the child opposite)."""
        ...

    def describe(self, event: dict[str, Any]) -> str | None:
        """The event in plain English (logs, the simulator); the board's log lines are the
        game object's ``event_line``."""
        ...

    def dump(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state as JSON-ready data (Match.state)."""
        ...

    def load(self, data: dict) -> dict[str, Any]:
        """The state back from ``dump``'s data; raise ValueError for anything else."""
        ...
