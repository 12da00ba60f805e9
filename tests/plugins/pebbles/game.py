from django.utils.translation import gettext_lazy as _

from games.presenters import event_lines
from games.registry import Game

from . import engine
from . import presenter

GAME = Game(
    rules=engine,
    board=presenter.board,
    event_line=event_lines(engine),
    age=6,
    minutes=5,
    summary=_("Put your secret pebbles down one by one: the highest total wins."),
    level_labels={"greedy": _("Greedy")},
)
