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
    how_to_play=(
        _("Each player holds three secret pebbles worth 1 to 6 points."),
        _("On your turn, put one of your pebbles on the table for everybody to see."),
        _("When every hand is empty, the highest total wins."),
    ),
)
