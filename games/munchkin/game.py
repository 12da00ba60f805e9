from django.utils.translation import gettext_lazy as _

from games.presenters import event_lines
from games.registry import Game

from . import engine
from . import presenter

NO_YES = {"no": _("No"), "yes": _("Yes")}

GAME = Game(
    rules=engine,
    board=presenter.munchkin_context,
    event_line=event_lines(engine),
    age=8,
    minutes=45,
    summary=_("Kick open the door, fight the monster, grab the treasure: reach level 10."),
    css=("css/munchkin.css",),
    option_labels={
        "listen": _(
            "Quick play: listen at the door (a door card face down at the start of a turn)"
        ),
        "shared_victory": _("Quick play: a helper who helps the winning fight wins too"),
    },
    option_choice_labels={"listen": NO_YES, "shared_victory": NO_YES},
    level_labels={"munchkin": _("Munchkin (sneaky)")},
    how_to_play=(
        _(
            "Reach level 10 first. You start as a level 1 human; race, class and item cards make "
            "you stronger."
        ),
        _(
            "On your turn, kick open the door: turn up a door card. A monster: fight it. A curse "
            "hits you at once; anything else goes to your hand. No monster? Fight one from your "
            "hand, or loot the room (a card face down)."
        ),
        _(
            "Your level plus your items must beat the monster; ties go to it. Anybody may then "
            "play cards for either side. You may ask one player for help, offering some "
            "treasure."
        ),
        _(
            "Win: go up a level and take its treasure. Lose: run away! Roll 5 or more, or its "
            "Bad Stuff hits you."
        ),
        _(
            "Every 1,000 gold pieces of items sold buys a level, but level 10 must come from a "
            "monster. End your turn with five cards at most; give the rest to the lowest-level "
            "player."
        ),
    ),
)
