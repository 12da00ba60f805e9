"""Names people type: one way to clean them, one way to compare them, one way to show them.

Every name a person types (a family nickname, a seat's name, a child's name on a roster, a
class, group or school name, a teacher's first and last name) goes through ``clean_name``
where it enters (the form field ``NameField`` and the models' ``save``), so two names that
look the same are stored the same:

- NFC (one code point for "é", however it was typed);
- no control or format characters (Unicode categories Cc and Cf: zero-width spaces and
  joiners, the bidirectional overrides and isolates, soft hyphens, byte-order marks); a tab
  or line break counts as a space;
- runs of spaces made one space, none at either end.

Where two names must differ (two players of one family room, two children of one class,
two classes of one teacher, two groups of one class), they are compared by ``name_key``:
without case and without accents ("ANA", "Ana" and "Aná" are one name).

A name is always shown isolated, so that a right-to-left name (or anything a browser reads
as one) cannot reorder the sentence around it: templates use ``{{ name|isolate }}``
(``<bdi>…</bdi>``, games/templatetags/names.py); a name placed inside an attribute or
inside a sentence built in Python (messages, the games' log lines) is wrapped in the
Unicode isolates FSI … PDI by ``isolate``.

Leaf module: both apps import it (games must not import classroom).
"""

import unicodedata

from django import forms
from django.utils.translation import gettext_lazy as _

# First Strong Isolate and Pop Directional Isolate: the text between them takes its own
# direction and cannot reorder what is around it (Unicode bidirectional algorithm, UAX #9).
FSI = "\u2068"
PDI = "\u2069"

# Characters dropped from a name: control (Cc) and format (Cf) characters.
DROPPED_CATEGORIES = {"Cc", "Cf"}


def _without_invisibles(text: str) -> str:
    out = []
    for ch in text:
        if ch.isspace():
            out.append(" ")  # tabs, line breaks and every other space: one plain space
        elif unicodedata.category(ch) not in DROPPED_CATEGORIES:
            out.append(ch)
    return "".join(out)


def clean_name(raw) -> str:
    """``raw`` as a name: NFC, without control or format characters, single spaces, trimmed.
    Idempotent: ``clean_name(clean_name(x)) == clean_name(x)``. May be empty."""
    if raw is None:
        return ""
    text = _without_invisibles(str(raw))
    # NFC after the removal: a dropped character may have stood between a letter and its
    # accent. NFC never brings back a control or format character.
    return unicodedata.normalize("NFC", " ".join(text.split()))


def name_key(name) -> str:
    """How two names compare where they must differ, and how names sort: cleaned, then
    without case, accents or other combining marks, and compatibility forms folded
    ("Ａｎａ", "ANA" and "Aná" all give "ana")."""
    text = unicodedata.normalize("NFKD", clean_name(name))
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def isolate(name) -> str:
    """``name`` between FSI and PDI: for a name inside an attribute or a sentence built in
    Python (the template filter ``isolate`` gives ``<bdi>`` in HTML text)."""
    return f"{FSI}{name}{PDI}"


class NameField(forms.CharField):
    """A typed name: cleaned by ``clean_name`` before any other check, so the length limits
    count what is kept, and a name of invisible characters only is an empty name."""

    default_error_messages = {
        "invisible": _("Type a name: spaces and invisible characters do not count."),
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("strip", True)
        super().__init__(**kwargs)

    def to_python(self, value):
        return clean_name(super().to_python(value))

    def clean(self, value):
        if self.required and isinstance(value, str) and value.strip() and not clean_name(value):
            raise forms.ValidationError(self.error_messages["invisible"], code="required")
        return super().clean(value)
