"""Il Trono di Mortadella's and Mortadelo Multiverso's event texts are written once, in the
engine (``EVENT_TEXTS``, ``event_fields``: games/engine/base.py): ``describe`` and the board's
log line come from the same template, and the log translates every piece of a sentence, the
words and parts a sentence lists (a ``Phrase`` each) too."""

import shutil
from pathlib import Path

import pytest
from catalogue_kit import DJANGO_KEYWORDS
from catalogue_kit import fake_catalogue
from catalogue_kit import pot_msgids
from catalogue_kit import xgettext_pot
from django.utils import translation

from games import registry
from games.engine import base
from games.mortadelo import engine as mortadelo
from games.trono import engine as trono


@pytest.fixture
def catalogue(monkeypatch):
    """ "en" with an in-memory catalogue (msgid, or (msgid, plural form) -> text)."""
    yield fake_catalogue(monkeypatch)
    translation.deactivate()


def test_a_listed_sentence_reads_as_before_and_is_joined_in_the_readers_language(catalogue):
    """Dice, a card's effects and a duel's two cards are lists of Phrases (LIST_TEXT,
    PARTS_TEXT): the English is unchanged, and a catalogue may join them its own way."""
    rolled = {"kind": "rolled", "seat": 0, "kept": [], "dice": ["rat"]}
    assert registry.get("trono").event_line(rolled, {0: "Ana"}) == "Ana rolled Rat."
    catalogue["%(first)s, %(rest)s"] = "%(first)s + %(rest)s"
    catalogue["%(first)s; %(rest)s"] = "%(first)s / %(rest)s"
    rolled["dice"] = ["people", "rat", "wine"]
    assert registry.get("trono").event_line(rolled, {0: "Ana"}) == "Ana rolled People + Rat + Wine."
    reveal = {
        "kind": "reveal",
        "cards": [
            {"seat": 0, "card": mortadelo.public_card("mmb-red-01"), "success": True},
            {"seat": 1, "card": mortadelo.public_card("mmb-blue-01"), "success": False},
        ],
    }
    line = registry.get("mortadelo").event_line(reveal, {0: "Ana", 1: "Ben"})
    assert line == (
        "Both cards flip over: Ana: Jab (Punch attack) succeeds / Ben: Jab (Punch attack) fails."
    )


def test_trono_describe_and_the_log_line_share_the_template(catalogue):
    game = registry.get("trono")
    rolled = {"kind": "rolled", "seat": 1, "kept": [], "dice": ["people", "rat", "wine"]}
    assert trono.describe(rolled) == "Player 2 rolled People, Rat, Wine."
    assert game.event_line(rolled, {1: "Ben"}) == "Ben rolled People, Rat, Wine."
    for quiet in ({"kind": "turn", "seat": 0, "turn": 1}, {"kind": "effect", "seat": 0}):
        assert trono.describe(quiet) == "" and game.event_line(quiet, {0: "Ana"}) is None
    nothing = {"kind": "gained", "seat": 0, "symbol": "book", "n": 0, "source": "effect"}
    assert game.event_line(nothing, {0: "Ana"}) is None
    catalogue["%(who)s rolled %(dice)s."] = "ZZ %(who)s: %(dice)s"
    catalogue["People"] = "ZZ-People"
    catalogue["Cardinal"] = "ZZ-Cardinal"
    catalogue["wrong!"] = "ZZ-wrong"
    assert game.event_line(rolled, {1: "Ben"}) == "ZZ Ben: ZZ-People, Rat, Wine"
    guess = {"kind": "guess", "seat": 0, "target": 1, "role": "cardinal", "right": False}
    line = game.event_line(guess, {0: "Ana", 1: "Ben"})
    assert line == "Ana guessed that Ben is the ZZ-Cardinal: ZZ-wrong"
    assert trono.describe(guess) == "Player 1 guessed that Player 2 is the Cardinal: wrong!"


def test_mortadelo_reveal_and_combo_translate_every_piece(catalogue):
    game = registry.get("mortadelo")
    names = {0: "Ana", 1: "Ben"}
    reveal = {
        "kind": "reveal",
        "seat": 0,
        "target": 1,
        "cards": [
            {"seat": 0, "card": mortadelo.public_card("mmb-red-03"), "success": True},
            {"seat": 1, "card": mortadelo.public_card("mmb-blue-09"), "success": False},
        ],
    }
    assert mortadelo.describe(reveal) == (
        "Both cards flip over: Player 1: Haymaker (Punch attack) succeeds; "
        "Player 2: Fist Catcher (Punch defence) fails."
    )
    combo = {"kind": "combo", "seat": 1, "card": mortadelo.public_card("mmb-blue-09")}
    assert game.event_line(combo, names) == (
        "Ben plays another card: Fist Catcher (♥ Recover 1 wound, ⇄ Play another card)."
    )
    catalogue["%(who)s: %(card)s (%(kind)s) fails"] = "ZZ %(who)s %(card)s %(kind)s"
    catalogue["Fist Catcher"] = "ZZ-Catcher"
    catalogue["Punch defence"] = "ZZ-defence"
    catalogue[("♥ Recover %(n)s wound", 0)] = "ZZ-recover %(n)s"
    line = game.event_line(reveal, names)
    assert line.endswith("; ZZ Ben ZZ-Catcher ZZ-defence.")
    assert game.event_line(combo, names) == (
        "Ben plays another card: ZZ-Catcher (ZZ-recover 1, ⇄ Play another card)."
    )
    for quiet in ({"kind": "turn", "seat": 0, "turn": 1}, {"kind": "game_over", "winners": []}):
        assert mortadelo.describe(quiet) == "" and game.event_line(quiet, names) is None


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="xgettext is not installed")
@pytest.mark.parametrize("engine", [trono, mortadelo], ids=["trono", "mortadelo"])
def test_makemessages_extracts_every_event_text(engine, tmp_path):
    """Every template, and every word the engine gives a Word field, is in the catalogue."""
    from games.management.commands.makemessages import Command

    out = tmp_path / "events.pot"
    # Mortadelo's card, Mortadelo and blow names are marked where the board names them too; the
    # list joiner (LIST_TEXT) is marked once for every engine, in games/engine/base.py.
    files = [Path(engine.__file__), Path(engine.__file__).with_name("presenter.py")]
    files.append(Path(base.__file__))
    pot = xgettext_pot(out, files, DJANGO_KEYWORDS, Command.xgettext_options)
    msgids = pot_msgids(pot)
    texts = [*engine.EVENT_TEXTS.values(), engine.LIST_TEXT]
    if engine is trono:
        words = [*trono.FACE_NAMES.values(), *(r["name"] for r in trono.ROLES.values())]
        texts += [*trono.GUESS_RESULTS.values(), *words]
    else:
        texts += [*mortadelo.REVEAL_TEXTS.values(), *mortadelo.EFFECT_TEXTS.values()]
        texts.append(mortadelo.PARTS_TEXT)
        texts += [c["name"] for c in mortadelo.CARDS.values()] + [*mortadelo.KIND_NAMES.values()]
        texts += [c[k] for c in mortadelo.CHARACTERS.values() for k in ("name", "blow")]
    for text in texts:
        if isinstance(text, base.Plural):
            assert f'msgid "{text[0]}"\nmsgid_plural "{text[1]}"' in pot, text
        else:
            assert text in msgids, text
