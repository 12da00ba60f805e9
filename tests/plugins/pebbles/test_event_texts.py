"""Pebbles' event texts show the pattern every game's can follow (games/engine/base.py): one
template per kind of event, the same for ``describe`` and the board's log, translated at display.
"""

import re
import shutil
from pathlib import Path

import pytest
from catalogue_kit import DJANGO_KEYWORDS
from catalogue_kit import fake_catalogue
from catalogue_kit import xgettext_pot
from django.utils import translation

from games import registry
from games.engine import base


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="xgettext is not installed")
def test_makemessages_extracts_an_event_text_with_a_number_as_one_plural_entry(tmp_path):
    """ngettext_noop's two forms become one plural entry with the keyword our makemessages
    adds to xgettext's options."""
    from games.management.commands.makemessages import Command

    engine_file = Path(registry.get("pebbles").rules.__file__)
    pot = xgettext_pot(
        tmp_path / "events.pot", [engine_file], DJANGO_KEYWORDS, Command.xgettext_options
    )
    assert re.search(
        r'msgid "%\(who\)s put a pebble worth %\(n\)s point on the table\."\n'
        r'msgid_plural "%\(who\)s put a pebble worth %\(n\)s points on the table\."',
        pot,
    )
    assert 'msgid "%(who)s wins with %(total)s."' in pot


@pytest.fixture
def catalogue(monkeypatch):
    """ "en" with an in-memory catalogue (msgid -> text)."""
    yield fake_catalogue(monkeypatch)
    translation.deactivate()


def test_an_event_text_is_written_once_for_describe_and_the_log(catalogue):
    """describe (plain English, "Player 1") and the board's log line (the seat's name,
    translated) come from the same template; a Word field is translated too."""
    game = registry.get("pebbles")
    event = {"kind": "played", "seat": 1, "card": "pb2a", "value": 2}
    assert game.rules.describe(event) == "Player 2 put a pebble worth 2 points on the table."
    assert game.event_line(event, {1: "Ben"}) == "Ben put a pebble worth 2 points on the table."
    assert game.rules.describe({"kind": "nothing"}) == ""
    assert game.event_line({"kind": "nothing"}, {}) is None
    catalogue["%(who)s wins with %(total)s."] = "ZZ %(who)s %(total)s"
    catalogue["Dust Bunny"] = "ZZ Bunny"
    won = {"kind": "won", "seat": 0, "total": 12}
    assert game.event_line(won, {0: "Ana"}) == "ZZ Ana 12"
    assert game.rules.describe(won) == "Player 1 wins with 12."
    word = base.render_event("%(card)s!", {"card": base.Word("Dust Bunny")}, translation.gettext)
    assert word == "ZZ Bunny!"
