from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.forms import TIER_CHOICES
from games.presenters import event_lines
from games.registry import Game

from . import engine
from . import presenter

GAME = Game(
    rules=engine,
    board=presenter.multiplipotion_context,
    event_line=event_lines(engine),
    replay=presenter.multiplipotion_replay,
    age=7,
    minutes=15,
    summary=_("Multiply two potions to capture your opponent's monsters."),
    option_labels={"tier": _("Which tables?")},
    option_choice_labels={"tier": dict(TIER_CHOICES)},
    level_labels={
        "apprentice": _("Apprentice (gentle)"),
        "wizard": _("Grand wizard (sharp)"),
        "coach": pgettext_lazy("a computer player's level: Coach Luna", "Coach"),
    },
    home_play=True,
    board_links_replay=True,
)
