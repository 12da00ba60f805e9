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
    who_starts=_("Player 1 goes first: the rulebook says the youngest, so seat them there."),
    how_to_play=(
        _("You are a wizard! Each card has a potion for you and a monster for the other wizard."),
        _("On your turn you get a new card. Put one card from your hand on your side."),
        _(
            "Do two of your potions multiply to make a monster on the other side? Tap the two "
            "potions, then the monster. You capture it: it is your trophy! You can capture one "
            "monster each turn."
        ),
        _("A wrong answer is fine: try again. Then tap “End my turn”."),
        _(
            "Keep your eyes open! Did the other wizard miss a monster? At the start of your "
            "turn, before you put down a card, tap their two potions and your monster. If you "
            "are right, you win a trophy too."
        ),
        _(
            "The first wizard with 5 trophies wins. If the cards run out, the one with more "
            "trophies wins."
        ),
    ),
)
