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
    who_starts=_(
        "Everyone rolls the five dice at the start: the most Mortadella and Wine goes first."
    ),
    how_to_play=(
        _(
            "Everybody has a secret role that needs its own mix of People, Tower, Book and "
            "Mortadella tokens. Keep yours secret."
        ),
        _(
            "On your turn, roll five dice, keep three and use them one by one. People, Tower, "
            "Book and Mortadella give you that token; a Book can be a Joker; two People can make "
            "someone lose a Tower or Book."
        ),
        _(
            "Wine and Rats hurt: one Wine takes a People from someone you choose, two make them "
            "miss a turn (Mortadella can cancel either); Rats cost everybody a People or a "
            "Tower."
        ),
        _(
            "The two other dice go to the next player, who may keep them and roll three, or roll "
            "five."
        ),
        _(
            "Match your role's needs on your turn to take the throne. The Master of the "
            "Innkeepers must also guess another player's role, and is out after a wrong guess. "
            "Extra rules add a re-roll token, a seven-token limit and surprise rolls."
        ),
    ),
)
