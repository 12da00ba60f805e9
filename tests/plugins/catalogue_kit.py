"""Test support for the translated texts: an in-memory catalogue, and what xgettext (as
makemessages runs it) extracts from some files."""

import re
import subprocess

from django.utils import translation
from django.utils.translation import trans_real

# Django's makemessages keywords for Python, as tests/games/test_game_texts_gettext.py has them.
DJANGO_KEYWORDS = ("gettext_noop", "gettext_lazy", "ngettext_lazy:1,2", "pgettext:1c,2")


def activate_fake_catalogue(monkeypatch) -> trans_real.DjangoTranslation:
    """Activate "en" with a fresh translation object (the cached one stays untouched); the
    caller deactivates it. Its ``_catalog`` maps msgid, or (msgid, plural form), to text."""
    fake = trans_real.DjangoTranslation("en")
    monkeypatch.setitem(trans_real._translations, "en", fake)
    monkeypatch.setattr(trans_real, "_default", fake)
    translation.activate("en")
    return fake


def xgettext_pot(out, files, keywords, options=()) -> str:
    """The .pot text xgettext writes to ``out`` for these Python files."""
    subprocess.run(
        [
            "xgettext",
            *options,
            *(f"--keyword={k}" for k in keywords),
            "--language=Python",
            "--from-code=UTF-8",
            f"--output={out}",
            *map(str, files),
        ],
        check=True,
        capture_output=True,
    )
    return out.read_text()


def pot_msgids(pot: str) -> set[str]:
    """Every msgid of a .pot text, its continued lines joined."""
    return {
        "".join(re.findall(r'"(.*)"', block)).replace('\\"', '"')
        for block in re.findall(r'\nmsgid ((?:".*"\n)+)', pot)
    }
