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
)
