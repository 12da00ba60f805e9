from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.presenters import event_lines
from games.registry import Game

from . import engine
from . import presenter

GAME = Game(
    rules=engine,
    board=presenter.muertoons_context,
    event_line=event_lines(engine),
    replay=presenter.muertoons_replay,
    age=6,
    minutes=15,
    summary=_("Be the first to get rid of your cards on the way to the party."),
    css=("css/muertoons.css",),
    level_labels={"heuristic": pgettext_lazy("a computer player's level", "Clever")},
)
