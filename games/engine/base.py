"""Shared pieces of the game-engine protocol (no Django, no global randomness)."""

from collections.abc import Callable
from typing import Any


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


# --- Event texts, written once ---------------------------------------------------------------
# A game's events read the same in the engine's plain English (``describe``: the simulator, the
# protocol tests) and on the board's log, translated: each kind of event has one template in
# the engine's ``EVENT_TEXTS`` (marked with gettext_noop, or ngettext_noop for a number), and
# one function, ``event_fields(event, who)``, says which template an event takes and fills its
# fields (None: the log leaves the event out). ``render_event`` puts them together, with the
# engine's English defaults or with Django's gettext/ngettext in a presenter
# (games.presenters.event_lines).
class Word(str):
    """A field of an event text that is itself translated (a card's or a role's name, marked
    with gettext_noop where the engine defines it). Names people typed are plain strings."""


class Plural(tuple):
    """An event template with a number: (singular, plural), the number in field ``n``."""


def ngettext_noop(singular: str, plural: str) -> Plural:
    """Mark a template with a number for translation (makemessages extracts both forms:
    games/management/commands/makemessages.py gives xgettext ``--keyword=ngettext_noop:1,2``)."""
    return Plural((singular, plural))


class Phrase(tuple):
    """A field of an event text that is itself a template with its fields, rendered in the
    reader's language like the event's (a card's name made of a girl's name and a number)."""

    def __new__(cls, template, fields: dict):
        return super().__new__(cls, (template, fields))


def render_event(template, fields: dict, gettext=gettext_noop, ngettext=english_ngettext) -> str:
    """``template`` (a string or a ``Plural``) in the reader's language, filled with ``fields``;
    ``Word`` fields are translated too, ``Phrase`` fields rendered the same way."""
    values = {k: _rendered(v, gettext, ngettext) for k, v in fields.items()}
    if isinstance(template, Plural):
        return ngettext(template[0], template[1], fields["n"]) % values
    return gettext(template) % values


def _rendered(value, gettext, ngettext):
    if isinstance(value, Word):
        return gettext(value)
    if isinstance(value, Phrase):
        return render_event(value[0], value[1], gettext, ngettext)
    return value


def describe_with(texts: dict, event_fields, event: dict) -> str:
    """An engine's ``describe``: the event in plain English, seats as "Player 1"…; "" for an
    event the log leaves out."""
    found = event_fields(event, english_who)
    return render_event(texts[found[0]], found[1]) if found else ""


def english_who(seat) -> str:
    return f"Player {seat + 1}" if isinstance(seat, int) else "Someone"


# Translators: one more item of a list in a log line ("Rosita 3, Rosita 4", "Ana rolled People,
# Rat, Wine.", "Ana takes Pet Rock, Ben takes Wand", a card's effects).
LIST_TEXT = gettext_noop("%(first)s, %(rest)s")


def listing(items: list, text: str = LIST_TEXT) -> Any:
    """Items (names, Words, Phrases) one after another: "a, b, c" (``text`` joins two)."""
    if not items:
        return ""
    out = items[-1]
    for item in reversed(items[:-1]):
        out = Phrase(text, {"first": item, "rest": out})
    return out


# --- The protocol's checks, the same in every engine -----------------------------------------
def check_setup(
    players: Any, seed: Any, options: dict | None, min_players: int, max_players: int, name: str
) -> dict:
    """``setup``'s checks of its arguments (ValueError): players a whole number within
    min..max, seed a whole number. Returns a copy of the options given (unchecked)."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError("players must be an integer")
    if not min_players <= players <= max_players:
        counts = f"{min_players} to {max_players}" if min_players < max_players else min_players
        raise ValueError(f"{name} is a game for {counts} players")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError("seed must be an integer")
    return dict(options or {})


def check_known_options(options: dict, known: dict) -> None:
    """ValueError for the options a game does not have."""
    unknown = set(options) - set(known)
    if unknown:
        raise ValueError(f"unknown options: {sorted(unknown)}")


def check_bot_call(legal: list, level: str, levels: Any) -> None:
    """``bot_action``'s checks (ValueError): something to choose from, a level the game has."""
    if not legal:
        raise ValueError("no legal action")
    if level not in levels:
        raise ValueError(f"unknown level {level!r}")


def hand_and_choice(state: dict, seat: int, contest: str) -> set[str]:
    """``private`` of a game where each seat holds a hand and, in a contest (``state[contest]``,
    None between contests), chooses a card face down: the hand and the card chosen."""
    out = set(state["hands"][seat])
    if state[contest] is not None and state[contest]["choices"][seat] is not None:
        out.add(state[contest]["choices"][seat])
    return out


def load_checked(
    d: Any,
    slug: str,
    name: str,
    read: Callable[[dict], tuple[dict, bool, Any]],
    errors: tuple[type[Exception], ...] = (KeyError, TypeError, AttributeError),
    article: str = "a",
) -> tuple[dict, Any]:
    """``load``'s checks: a dict of this game (ValueError "not a … state"); ``read(d)`` gives
    the state (a copy), whether it holds together and what the caller counts next (its
    cards); one of ``errors`` while reading, or a state that does not hold together, is a
    ValueError "bad … state"."""
    if not isinstance(d, dict) or d.get("game") != slug:
        raise ValueError(f"not {article} {name} state")
    try:
        s, ok, counted = read(d)
    except errors as exc:
        raise ValueError(f"bad {name} state") from exc
    if not ok:
        raise ValueError(f"bad {name} state")
    return s, counted
