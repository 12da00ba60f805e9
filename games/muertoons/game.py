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
    how_to_play=(
        _(
            "Play all your cards first to reach the party. The top card of the pile says what "
            "may come next."
        ),
        _(
            "On your turn, play a card the top card allows, or pass. Rosita or Bibi: play the "
            "next number up (only the Spirit goes on an 11). Gabi or Lupita: the same number or "
            "the same girl. The Spirit goes on anything, and anything goes on it."
        ),
        _(
            "A Rubi starts a contest: everybody picks a card in secret, then all are shown. The "
            "Spirit wins, or else the highest Rubi, and the winner plays any card."
        ),
        _(
            "Pass right after a Gabi: everybody else gives you a card. Pass right after a "
            "Lupita: whoever played it may put down a straight (numbers in a row, any girls)."
        ),
        _(
            "If everybody passes, whoever played the top card plays any card. Empty your hand "
            "first to win; in a contest, several can win together."
        ),
    ),
)
