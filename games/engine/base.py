"""Shared pieces of the game-engine protocol (no Django, no global randomness)."""


class IllegalAction(Exception):
    """An action the rules do not allow.

    The message is a short sentence a 7-year-old understands, e.g. "It is not your turn yet.".
    """


def gettext_noop(text: str) -> str:
    """Mark an English literal for translation and return it unchanged.

    Engines never import Django, so they cannot translate; they only mark their texts. Django's
    ``makemessages`` runs xgettext with ``--keyword=gettext_noop``, so every literal wrapped in a
    call of this name lands in the catalogue. The state keeps the English text; a presenter
    translates it at display time with ``django.utils.translation.gettext``.
    """
    return text


def english_ngettext(singular: str, plural: str, n: int) -> str:
    """The English plural choice: the engine's default ``ngettext`` for texts built from numbers.

    A text builder that takes ``gettext``/``ngettext`` as arguments (e.g.
    ``munchkin_cards.card_text``) gets ``gettext_noop`` and this function in the engine, and
    Django's functions in a presenter. xgettext extracts the literals of those calls as usual."""
    return singular if n == 1 else plural
