"""The games of the platform, one package each: an installed app with a ``game`` module is a
game, so a game is registered by its one line in ``INSTALLED_APPS`` (in that order).

A game's package (``games/<slug>/``) holds its rules engine (pure Python, ``engine.py``), its
presenter (``presenter.py``: the engine's view as template context), its templates
(``templates/games/<slug>/``), static files and ``game.py``, which exports ``GAME``: the one
declarative object the platform uses (``Game`` below). Being an app, Django finds its
templates, static files and template tags. docs/platform.md, "Adding a game", walks through it.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from functools import cache
from importlib import import_module
from types import MappingProxyType
from typing import Any

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from games.engine.protocol import Rules

# (engine view, board context so far) -> the game's own context for its board template.
BoardContext = Callable[[dict, dict], dict]
# (event, {seat: isolated name}) -> the event as a translated sentence, or None (not shown).
EventLine = Callable[[dict, Mapping[int, str]], "str | None"]


@dataclass(frozen=True)
class Game:
    """Everything the platform needs of one game. The rules come from its engine; the rest
    says how the game looks and reads. Texts are lazily translated (gettext_lazy)."""

    rules: Rules
    board: BoardContext
    event_line: EventLine
    # The family-night page: the youngest age the rulebook suggests, minutes a game takes,
    # one sentence, and the number of players the form starts with (None: the fewest).
    age: int
    minutes: int
    summary: Any
    default_players: int | None = None
    # The replay page's board (None: the replay shows the public log so far).
    replay: BoardContext | None = None
    # Stylesheets every page of the game loads (static paths).
    css: tuple[str, ...] = ()
    # Labels of the table options and their choices, and of the computer levels.
    option_labels: Mapping[str, Any] = field(default_factory=dict)
    option_choice_labels: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    level_labels: Mapping[str, Any] = field(default_factory=dict)
    # Its moves are a child's evidence (fact events): a child signed in at school plays it at
    # home as themself, and the attempts are marked home play.
    home_play: bool = False
    # Its board links to the replay itself (the family room card then does not).
    board_links_replay: bool = False
    # "How to play": a few short paragraphs (each a gettext_lazy string) in the app's own
    # version of the rules (its options and rulings): the goal, a turn, the special cards or
    # moves, the end. The set-up page and the board show them folded away.
    how_to_play: tuple[Any, ...] = ()
    # Who takes the first turn, as the family-night form says it (a gettext_lazy sentence;
    # None: "Player 1 goes first.").
    who_starts: Any = None

    @property
    def slug(self) -> str:
        return self.rules.SLUG

    @property
    def name(self) -> str:
        return self.rules.NAME

    @property
    def board_template(self) -> str:
        return f"games/{self.slug}/board.html"

    def bot_levels(self) -> list[tuple[str, Any]]:
        """(level, label) of the levels a person may choose ("random" is for tests only)."""
        return [(lv, self.level_labels[lv]) for lv in self.rules.LEVELS if lv != "random"]


@cache
def _load(app_names: tuple[str, ...]) -> Mapping[str, Game]:
    found: dict[str, Game] = {}
    for name in app_names:
        if not module_has_submodule(import_module(name), "game"):
            continue
        game = import_module(f"{name}.game").GAME
        if not isinstance(game, Game):
            raise TypeError(f"{name}.game.GAME is not a games.registry.Game")
        if game.slug in found:
            raise ValueError(f"two games have the slug {game.slug!r}")
        found[game.slug] = game
    return MappingProxyType(found)


def games() -> Mapping[str, Game]:
    """Every game by slug, in the order of ``INSTALLED_APPS``."""
    return _load(tuple(config.name for config in apps.get_app_configs()))


def get(slug: str) -> Game:
    """The game ``slug``; KeyError for a slug no installed game has."""
    return games()[slug]


def rules() -> dict[str, Rules]:
    """Every game's rules engine by slug (the engine tests and the simulator loop over it)."""
    return {slug: game.rules for slug, game in games().items()}
