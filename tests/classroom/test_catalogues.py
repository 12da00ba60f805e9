"""The Spanish and Italian catalogues are complete (docs/languages.md): every entry
translated in every plural form, none fuzzy, the same placeholders as its msgid, and the
catalogues hold exactly the strings the code marks today (makemessages run on a copy)."""

import shutil
import subprocess
import sys

import pytest
from catalogue_kit import BASE
from catalogue_kit import PLACEHOLDER
from catalogue_kit import EnglishOnPage
from catalogue_kit import catalogue
from django.utils import translation
from django.utils.translation import gettext

LANGUAGES = ("es", "it")


def entries(lang, base=BASE):
    return [m for m in catalogue(lang, base) if m.id]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy(lang):
    missing, fuzzy = [], []
    for m in entries(lang):
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if not all(strings):
            missing.append(m.id)
        if m.fuzzy:
            fuzzy.append(m.id)
    assert not missing, f"{lang}: {len(missing)} untranslated, e.g. {missing[:5]}"
    assert not fuzzy, f"{lang}: {len(fuzzy)} fuzzy, e.g. {fuzzy[:5]}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_translation_keeps_its_placeholders(lang):
    wrong = []
    for m in entries(lang):
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        wanted = set().union(*(PLACEHOLDER.findall(i) for i in ids))
        for s in strings:
            got = set(PLACEHOLDER.findall(s))
            # A singular may leave out the number its plural names ("one card" for %(n)s).
            if not got <= wanted or (len(ids) == 1 and got != wanted):
                wrong.append((m.id, s))
    assert not wrong, f"{lang}: {wrong[:5]}"


def keys(messages) -> set:
    return {(m.context or "", m.id if isinstance(m.id, str) else tuple(m.id)) for m in messages}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs GNU gettext (xgettext)")
def test_the_catalogues_hold_exactly_the_strings_of_the_code(tmp_path):
    """makemessages, run on a copy of the tree, finds no string the catalogues lack and none
    they hold for nothing."""
    copy = tmp_path / "tree"
    copy.mkdir()
    ignore = shutil.ignore_patterns(".venv", "var", "__pycache__", "*.mo", ".git", "node_modules")
    for name in ("manage.py", "config", "games", "classroom", "templates", "locale"):
        source = BASE / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=ignore)
        else:
            shutil.copy(source, copy / name)
    command = [sys.executable, "manage.py", "makemessages", "-l", "es", "-l", "it"]
    command += ["--add-location=file", "--ignore=var", "--ignore=.venv"]
    subprocess.run(command, cwd=copy, check=True, capture_output=True)
    for lang in LANGUAGES:
        committed, fresh = keys(entries(lang)), keys(entries(lang, copy))
        assert not fresh - committed, (
            f"{lang}: not in the catalogue: {sorted(fresh - committed)[:8]}"
        )
        assert not committed - fresh, (
            f"{lang}: no longer in the code: {sorted(committed - fresh)[:8]}"
        )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_english_on_a_page_is_told_from_its_translation(lang):
    """The browser walks' check (tests/classroom/test_languages_browser.py): an English msgid
    whose translation differs is found, filled in or not, a name between FSI and PDI too; the
    translation, a text the same in both languages, a number and a name typed are not."""
    english = EnglishOnPage(lang, ignore=["Ana"])
    with translation.override(lang):
        spoken = [gettext("End my turn"), gettext("Hello %(name)s!") % {"name": "Ana"}]
    computer = ["Coco (computer)"] if lang == "es" else []  # Italian says "computer" too
    page = ["End my turn", "Hello Ana!", "\u2068Coco (computer)\u2069", "  Tap  your name "]
    assert english(page) == ["End my turn", "Hello Ana!", *computer, "Tap your name"]
    assert english([*spoken, "Ana", "12", "15 min", "Munchkin", "MultipliPotion"]) == []
