from django import forms
from django.utils.translation import gettext_lazy as _

TIER_CHOICES = [
    ("green", _("Green: tables 2 to 5")),
    ("purple", _("Purple: tables 6 to 9")),
    ("full", _("Rainbow: tables 2 to 9")),
]
OPPONENT_CHOICES = [
    ("apprentice", _("Apprentice wizard (computer, gentle)")),
    ("wizard", _("Grand wizard (computer, sharp)")),
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
ACTION_LIST_FIELDS = {"potions"}
ACTION_META_FIELDS = {"csrfmiddlewaretoken", "version", "move_id"}


def action_from_post(post) -> dict:
    """Turn a submitted move form into the engine's action dict (the engine validates it)."""
    action = {}
    for key in post:
        if key in ACTION_META_FIELDS:
            continue
        values = [v[:40] for v in post.getlist(key)][:10]
        action[key[:20]] = values if key in ACTION_LIST_FIELDS else values[-1]
    return action


class NicknameField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("min_length", 1)
        super().__init__(strip=True, **kwargs)

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
