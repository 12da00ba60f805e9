from django.utils.translation import gettext_lazy as _

from games.presenters import event_lines
from games.registry import Game

from . import engine
from . import presenter

GAME = Game(
    rules=engine,
    board=presenter.mortadelo_context,
    event_line=event_lines(engine),
    age=7,
    minutes=20,
    summary=_("Secret card duels across the multiverse: be the last Mortadelo standing."),
    css=("css/mortadelo.css",),
    level_labels={"odds": _("Plays the odds")},
)
