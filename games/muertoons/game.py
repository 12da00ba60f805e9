from django.utils.translation import gettext_lazy as _

from games.registry import Game

from . import engine, presenter

GAME = Game(
    rules=engine,
    board=presenter.muertoons_context,
    event_line=presenter.mu_event_line,
    replay=presenter.muertoons_replay,
    age=6,
    minutes=15,
    summary=_("Be the first to get rid of your cards on the way to the party."),
    css=("css/muertoons.css",),
    level_labels={"heuristic": _("Clever")},
)
