from django import forms
from django.utils.translation import gettext_lazy as _

from config.names import NameField
from config.names import name_key
from games import registry

TIER_CHOICES = [
    ("green", _("Green: tables 2 to 5")),
    ("purple", _("Purple: tables 6 to 9")),
    ("full", _("Rainbow: tables 2 to 9")),
]
OPPONENT_CHOICES = [
    ("apprentice", _("Apprentice Pip (computer, gentle)")),
    ("wizard", _("Grand Wizard Zed (computer, sharp)")),
    ("friend", _("A friend on another device")),
    ("here", _("A friend on this device (take turns)")),
]
FIRST_CHOICES = [("me", _("I go first")), ("them", _("My opponent goes first"))]
BOT_NAMES = {
    "apprentice": _("Apprentice Pip"),
    "wizard": _("Grand Wizard Zed"),
    "coach": _("Coach Luna"),
}

# Fields of a move that always carry a list (several cards picked at once).
ACTION_LIST_FIELDS = {"potions", "dice"}
ACTION_META_FIELDS = {"csrfmiddlewaretoken", "version", "move_id"}


def action_from_post(post) -> dict:
    """Turn a submitted move form into the engine's action dict (the engine validates it)."""
    action = {}
    for key in post:
        if key in ACTION_META_FIELDS:
            continue
        # No NUL in a move: PostgreSQL cannot store one in the move's JSON.
        values = [v.replace("\x00", "")[:40] for v in post.getlist(key)][:10]
        action[key.replace("\x00", "")[:20]] = values if key in ACTION_LIST_FIELDS else values[-1]
    return action


class NicknameField(NameField):
    """A player's name: cleaned (config/names.py), at most 20 characters, one letter at least."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("min_length", 1)
        super().__init__(**kwargs)

    def clean(self, value):
        value = super().clean(value)
        if value and not any(ch.isalpha() for ch in value):
            raise forms.ValidationError(_("Use at least one letter in the name."))
        return value


class NewGameForm(forms.Form):
    name = NicknameField(label=_("Your name or nickname"))
    tier = forms.ChoiceField(
        label=_("Which tables?"), choices=TIER_CHOICES, initial="green", widget=forms.RadioSelect
    )
    opponent = forms.ChoiceField(
        label=_("Who do you play against?"),
        choices=OPPONENT_CHOICES,
        initial="apprentice",
        widget=forms.RadioSelect,
    )
    friend_name = NicknameField(
        label=_("Your friend's name (when you take turns on this device)"), required=False
    )
    first = forms.ChoiceField(
        label=_("Who goes first? (the youngest, says the rulebook)"),
        choices=FIRST_CHOICES,
        initial="me",
        widget=forms.RadioSelect,
    )

    def clean(self):
        data = super().clean()
        if data.get("opponent") == "here" and not data.get("friend_name"):
            self.add_error(
                "friend_name", _("Tell us your friend's name so we know whose turn it is.")
            )
        return data


class JoinForm(forms.Form):
    name = NicknameField(label=_("Your name or nickname"))

    def __init__(self, *args, taken_names=(), **kwargs):
        super().__init__(*args, **kwargs)
        # Compared without case or accents: "ANA" and "Aná" look like "Ana" at the table.
        self.taken_names = {name_key(n) for n in taken_names}

    def clean_name(self):
        name = self.cleaned_data["name"]
        if name_key(name) in self.taken_names:
            raise forms.ValidationError(
                _("Somebody at this table already has this name: add a letter to yours.")
            )
        return name


class RoomCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Room code"),
        max_length=20,
        help_text=_("Six letters, shown on the host's screen."),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
    )

    def clean_code(self):
        from games.models import Match

        match = Match.objects.by_room_code(self.cleaned_data["code"])
        if match is None:
            raise forms.ValidationError(
                _("No family game has this code. Check the letters on the host's screen.")
            )
        self.match = match
        return match.room_code


# --- Family night ----------------------------------------------------------------------------
FAMILY_BOT_NAMES = [_("Coco"), _("Pepita"), _("Memo"), _("Luz"), _("Tino")]
SEAT_KIND_CHOICES = [
    ("here", _("A person on this device")),
    ("remote", _("A person on their own device")),
    ("computer", _("A computer player")),
]


def family_bot_name(index: int) -> str:
    """The name of the family game's ``index``-th computer player: "Coco (computer)"."""
    name = FAMILY_BOT_NAMES[index % len(FAMILY_BOT_NAMES)]
    return str(_("%(name)s (computer)")) % {"name": name}


def family_games() -> list[dict]:
    """Every game of the registry (games/registry.py) with its players, age and length."""
    games = []
    for game in registry.games().values():
        lo, hi = game.rules.MIN_PLAYERS, game.rules.MAX_PLAYERS
        games.append(
            {
                "slug": game.slug,
                "name": game.name,
                "players": str(lo) if lo == hi else f"{lo}–{hi}",
                "age": game.age,
                "minutes": game.minutes,
                "summary": game.summary,
            }
        )
    return games


class FamilyGameForm(forms.Form):
    """A game for people around one device and computer players. The fields of seats past
    the chosen number of players are ignored (without JavaScript they are simply not used)."""

    def __init__(self, game, *args, child=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        self.module = module = game.rules
        # A signed-in child playing at home: player 1 is the child (name from the class).
        self.child = child
        lo, hi = module.MIN_PLAYERS, module.MAX_PLAYERS
        self.fields["players"] = forms.TypedChoiceField(
            label=_("How many players?"),
            choices=[(n, str(n)) for n in range(lo, hi + 1)],
            coerce=int,
            initial=game.default_players or lo,
            widget=forms.RadioSelect,
        )
        for name, spec in module.OPTIONS.items():
            labels = game.option_choice_labels[name]
            self.fields[f"option_{name}"] = forms.ChoiceField(
                label=game.option_labels[name],
                choices=[(c, labels[c]) for c in spec["choices"]],
                initial=spec["default"],
                widget=forms.RadioSelect,
            )
        levels = game.bot_levels()
        self.seat_numbers = list(range(1, hi + 1))
        for n in self.seat_numbers:
            self.fields[f"seat{n}_kind"] = forms.ChoiceField(
                label=_("Player %(n)s") % {"n": n},
                choices=SEAT_KIND_CHOICES,
                initial="here" if n == 1 else "computer",
                widget=forms.RadioSelect,
                required=False,
            )
            self.fields[f"seat{n}_name"] = NicknameField(
                label=_("Name of player %(n)s") % {"n": n}, required=False
            )
            self.fields[f"seat{n}_level"] = forms.ChoiceField(
                label=_("Computer level of player %(n)s") % {"n": n},
                choices=levels,
                initial=module.BEST_LEVEL if module.BEST_LEVEL != "random" else levels[0][0],
                required=False,
            )
        if child is not None:
            kind, name = self.fields["seat1_kind"], self.fields["seat1_name"]
            kind.choices, kind.initial, kind.disabled = SEAT_KIND_CHOICES[:1], "here", True
            name.initial, name.disabled = child.name[:20], True

    def seat_groups(self):
        """(number, kind field, name field, level field) for the template."""
        return [
            (n, self[f"seat{n}_kind"], self[f"seat{n}_name"], self[f"seat{n}_level"])
            for n in self.seat_numbers
        ]

    def option_fields(self):
        return [self[f"option_{name}"] for name in self.module.OPTIONS]

    def clean(self):
        data = super().clean()
        count = data.get("players")
        if not count:
            return data
        people, bots = [], 0
        levels = {lv for lv, _label in self.game.bot_levels()}
        seats = []
        for n in range(1, count + 1):
            kind = data.get(f"seat{n}_kind") or ("here" if n == 1 else "computer")
            if kind == "remote":
                seats.append({"kind": "remote", "name": ""})
                continue
            if kind == "here":
                name = data.get(f"seat{n}_name")
                if not name:
                    if f"seat{n}_name" not in self.errors:
                        self.add_error(f"seat{n}_name", _("Tell us this player's name."))
                    continue
                if name_key(name) in {name_key(p) for p in people}:
                    self.add_error(
                        f"seat{n}_name", _("Two players have this name: add a letter to one.")
                    )
                    continue
                people.append(name)
                seats.append({"kind": "here", "name": name})
            else:
                level = data.get(f"seat{n}_level") or ""
                if level not in levels:
                    self.add_error(f"seat{n}_level", _("Choose a level for the computer."))
                    continue
                name = family_bot_name(bots)
                bots += 1
                seats.append({"kind": "computer", "name": name, "level": level})
        if not people and not self.errors:
            self.add_error(None, _("At least one player must be a person on this device."))
        data["seats"] = seats
        data["options"] = {
            name: data[f"option_{name}"]
            for name in self.module.OPTIONS
            if data.get(f"option_{name}") is not None
        }
        return data
