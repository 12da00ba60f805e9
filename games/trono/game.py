from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.presenters import event_lines
from games.registry import Game

from . import engine
from . import presenter

ON_OFF = {
    "on": pgettext_lazy("a game option is on", "On"),
    "off": pgettext_lazy("a game option is off", "Off"),
}

GAME = Game(
    rules=engine,
    board=presenter.trono_context,
    event_line=event_lines(engine),
    age=8,
    minutes=30,
    summary=_("Roll the dice, collect tokens and keep your secret role to take the throne."),
    # The rulebook's game; with 2 it is a variant decided by guessing roles.
    default_players=4,
    css=("css/trono.css",),
    option_labels={
        "lombard": _("Lombard Company token (re-roll)"),
        "sins": _("7 deadly sins (8 of one token and you are out)"),
        "porchetta": _("Porchetta Festival (5 alike: everybody takes one)"),
        "earthquake": _("Earthquake (5 Rats and Wines: Towers and Books go)"),
        "carnival": _("Carnival (5 different: steal instead)"),
    },
    option_choice_labels={
        name: ON_OFF for name in ("lombard", "sins", "porchetta", "earthquake", "carnival")
    },
    level_labels={"heuristic": pgettext_lazy("a computer player's level", "Clever")},
)
