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
    who_starts=_("Once every Mortadelo is picked, who starts the duels is drawn at random."),
    how_to_play=(
        _(
            "Each player picks a Mortadelo with its own secret blow and fights with a 12-card "
            "deck. Six wounds send you to the cloning machine; the last Mortadelo standing wins."
        ),
        _(
            "On your turn, challenge another Mortadelo: you both choose a card face down, then "
            "flip them together."
        ),
        _(
            "Attacks (punch or kick) succeed unless met by the matching defence; Total Defence "
            "stops both. Two attacks both succeed, two defences fail. Only cards that succeed do "
            "their effects."
        ),
        _(
            "Tortazo stars wound, a heart heals, Upgrade takes a Mamporro Plus, Play another "
            "card adds a card at once, and Special Mamporro sets off your secret blow. A "
            "knockout earns a Mamporro Plus too."
        ),
        _(
            "After the duel, draw back up to five cards. Knocked out, you still meddle: when a "
            "secret blow goes off, yours hits a duellist you choose. If the last two fall "
            "together, whoever fell just before wins."
        ),
    ),
)
