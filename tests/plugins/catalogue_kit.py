"""Test support for the translated texts: an in-memory catalogue, what xgettext (as
makemessages runs it) extracts from some files, the catalogues as Babel reads them and the
English a page in another language must not show, and the charts' SVG (never localized)."""

import re
import subprocess
from pathlib import Path

from babel.messages.pofile import read_po
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


def fake_catalogue(monkeypatch):
    """``activate_fake_catalogue``'s mapping of msgid, or (msgid, plural form), to text: set
    items in it and the active language says those texts. (The one place the tests reach into the
    translation object: Django has no public way to add a text to a catalogue.)"""
    return activate_fake_catalogue(monkeypatch)._catalog


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


# --- the catalogues, and English left on a page in another language ---------------------------

BASE = Path(__file__).resolve().parents[2]
# A placeholder of a msgid or its translation: Python's %-format, as makemessages writes them.
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[-+ #0-9.]*[sdif]|%[sdif]|%%")
# The marks that isolate a name in a sentence (FSI … PDI, config/names.py) or set a direction.
BIDI_MARKS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """``text`` as a reader sees it: no direction marks, spaces run together."""
    return " ".join(BIDI_MARKS.sub("", text).split())


def catalogue(lang: str, base: Path = BASE):
    """locale/<lang>/LC_MESSAGES/django.po, read by Babel."""
    with open(base / "locale" / lang / "LC_MESSAGES" / "django.po", "rb") as f:
        return read_po(f, abort_invalid=True)


NUMBER_FIELDS = re.compile(r"%\((n|count|number|total)\)[-+ #0-9.]*[sd]|%d")


def _fill(placeholder: str) -> str:
    """What a placeholder stands for on a page: a number for the number fields ("%(n)s"),
    any text for the others."""
    if placeholder == "%%":
        return "%"
    return r"\d[\d.,\s]*" if NUMBER_FIELDS.fullmatch(placeholder) else ".+?"


def _pattern(text: str) -> str | None:
    """A regular expression for ``text`` (a msgid or a translation) as a page shows it:
    spaces run together, no HTML tags, any text for a placeholder. None for a text with no
    word of its own (its placeholders and punctuation only, "%(a)s × %(b)s")."""
    text = shown(re.sub(r"<[^>]+>", "", text))
    parts = PLACEHOLDER.split(text)
    if not any(re.search(r"[^\W\d_]{2,}", part) for part in parts):
        return None
    fills = [_fill(p) for p in PLACEHOLDER.findall(text)]
    return "".join(re.escape(part) + fill for part, fill in zip(parts, [*fills, ""], strict=True))


class EnglishOnPage:
    """What a page in ``lang`` must not say: an English msgid (either plural form) of the
    catalogue whose translation differs, as a whole line or text of the page, filled in or not.
    A text that is also a translation in the catalogue ("Total" in Spanish) is not English
    here, nor one of ``ignore`` (names people typed, the brand, the games' names)."""

    def __init__(self, lang: str, ignore=()):
        english, translated = set(), set()
        for m in catalogue(lang):
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            said = {shown(s) for s in strings}
            translated.update(strings)
            english.update(i for i in ids if shown(i) not in said)
        self.english = self._union(english)
        self.translated = self._union(translated)
        self.ignore = {shown(str(i)) for i in ignore}

    @staticmethod
    def _union(texts) -> re.Pattern:
        patterns = sorted({p for p in map(_pattern, texts) if p}, key=len, reverse=True)
        return re.compile("|".join(f"(?:{p})" for p in patterns), re.S)

    def __call__(self, texts) -> list[str]:
        """The texts of ``texts`` that are English UI sentences."""
        found = []
        for text in dict.fromkeys(map(shown, texts)):
            if not text or text in self.ignore:
                continue
            if self.english.fullmatch(text) and not self.translated.fullmatch(text):
                found.append(text)
        return found


# --- the charts' markup --------------------------------------------------------------------------


def svgs(html: str) -> list:
    """Every <svg> of a page's HTML, parsed (the charts must be well-formed XML)."""
    from xml.etree import ElementTree

    found = re.findall(r"<svg\b.*?</svg>", html, re.S)
    return [ElementTree.fromstring(svg) for svg in found]  # noqa: S314 (our own page)


POINT = re.compile(r"-?\d+(\.\d+)?,-?\d+(\.\d+)?")


def numbers_with_commas(svg) -> list[tuple[str, str]]:
    """Attributes with a decimal comma ("196,0"); in ``points`` a comma parts x from y."""
    wrong = []
    for element in svg.iter():
        for name, value in element.attrib.items():
            if name == "points":
                if not all(POINT.fullmatch(pair) for pair in value.split()):
                    wrong.append((name, value))
            elif re.search(r"\d,\d", value):
                wrong.append((name, value))
    return wrong
