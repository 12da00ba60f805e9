"""Every page, in Spanish and in Italian, with no English left (docs/languages.md).

Every GET of the authorization matrix (tests/matrix/) that answers 200, as every role it
answers 200 to, is asked for three times: in English, in Spanish and in Italian (the school's
language and the browser's are the page's language). The Spanish and Italian answers must
say so in ``<html lang>``, and a text of theirs (a text node outside scripts, a title, a
label, a placeholder, an alt text, a button's value) must not be

- an English sentence of the catalogue (EnglishOnPage), nor
- the same as in the English answer, unless it has no word of its own (a number, a name
  people typed, the brand and the games' names, an address) or the catalogue says the two
  languages write it alike ("Total"), or Django's own catalogue does ("Email" in Italian).
  This finds what was never marked for translation.

The browser walks (test_languages_browser.py) do the same for pages the matrix does not
reach: the boards of a game being played, a child's sign-in."""

import functools
import inspect
import random
import re
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import pytest
from catalogue_kit import BASE
from catalogue_kit import EnglishOnPage
from catalogue_kit import catalogue
from catalogue_kit import shown
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import trans_real

from classroom.models import School
from games import registry
from games.models import Match
from games.muertoons.engine import GIRL_NAMES

from ..games.conftest import bot_step
from ..games.conftest import guest_client
from ..games.conftest import seat_specs
from ..games.conftest import url
from ..test_authorization_matrix import ENTRIES

LANGS = ("es", "it")


def shipped(game) -> bool:
    """A game of the product (games/<slug>/), not the tests' own."""
    return Path(inspect.getfile(game.rules)).is_relative_to(BASE / "games")


ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")
# What no language translates: the brand, the games' names, each language's own name, what
# the world's people typed (tests/conftest.py World) and the machine's words (an address).
UNTRANSLATED = {
    "MultipliPotion",
    "MultipliPotion Classroom",
    "English",
    "Español",
    "Italiano",
    *(game.name for game in registry.games().values()),
    # The test-only game's (in tests/plugins/): never shipped, so not in the catalogues.
    *(str(game.summary) for game in registry.games().values() if not shipped(game)),
}
# What the world's people typed (tests/conftest.py World) and the machine's words: addresses,
# codes. A text the same in both answers is English only if something is left once these and
# UNTRANSLATED are taken out of it: a word of two letters or more.
TYPED = re.compile(
    r"[\w.]+@example\.com|https?://\S+|/\S*|School [AB]|\b3[AB]\b"
    r"|\b(?:Owls|Practice|Ada|Ali|Bea|Pip|Root|root)\b|\b(?i:teacher|admin)_(?i:[ab])\b"
    r"|\b[A-Z0-9]{4,8}\b"
)
WORD = re.compile(r"[^\W\d_]{2,}")


class Texts(HTMLParser):
    """The texts of a page people see or hear, and its <html lang>."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self.lang: str | None = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang") or ""
        # Scripts, and the time zones' names (Babel's, for the page's language, most of them
        # written alike in the three: "Malta").
        if tag in {"script", "style"} or (
            tag == "select" and attrs.get("name") in {"time_zone", "timezone"}
        ):
            self._skip += 1
        self.texts.extend(attrs[name] for name in ATTRIBUTES if attrs.get(name))
        if tag == "input" and attrs.get("type") in {"submit", "button"} and attrs.get("value"):
            self.texts.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag in {"script", "style", "select"} and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.texts.append(data)


def texts_of(html: str) -> tuple[str | None, list[str]]:
    parser = Texts()
    parser.feed(html)
    return parser.lang, [t for t in map(shown, parser.texts) if t]


@functools.cache
def english_in(lang: str) -> EnglishOnPage:
    return EnglishOnPage(lang, ignore=UNTRANSLATED)


@functools.cache
def alike_in(lang: str) -> re.Pattern:
    """The catalogue's texts written the same in English and in ``lang`` ("Total", "%(n)s
    min"), as one pattern."""
    same = set()
    for message in catalogue(lang):
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        same.update(i for i in ids if shown(i) in {shown(s) for s in strings})
    return EnglishOnPage._union(same)


def has_words(text: str) -> bool:
    """Whether ``text`` has a word of its own once names, codes and the brand are out."""
    for name in sorted(UNTRANSLATED, key=len, reverse=True):
        text = text.replace(name, " ")
    return bool(WORD.search(TYPED.sub(" ", text)))


def page_in(world, entry, role, lang, status=200):
    """The page ``entry`` as ``role`` sees it in ``lang``: (status, <html lang>, its texts);
    ``status``: the answer whose page is read."""
    School.objects.update(language=lang)
    client = world.client(role)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(entry["url"](world), HTTP_ACCEPT_LANGUAGE=lang)
    page = response.status_code == status and response["Content-Type"].startswith("text/html")
    return (response.status_code, *texts_of(response.content.decode() if page else ""))


@functools.cache
def months_alike(lang: str) -> set[str]:
    """The months' short names (Django's, as a chart's axis shows them) written alike in
    English and in ``lang`` ("Nov")."""

    def short(month):
        return date_format(date(2026, month, 1), "M")

    english = {short(m) for m in range(1, 13)}
    with translation.override(lang):
        return english & {short(m) for m in range(1, 13)}


# One request per answer that is not a page's: each named URL's first role answered 404 or
# 403 (another owner's object, somebody else's button), and a form posted without its token.
ERRORS = {}
for entry in ENTRIES:
    for role, expected in entry["expect"].items():
        if expected in {403, 404} and entry.get("method", "get") == "get":
            ERRORS.setdefault(expected, (entry, role))


@pytest.mark.parametrize("status", sorted(ERRORS))
def test_error_pages_speak_spanish_and_italian(world, status):
    """Django's error answers use our pages (templates/404.html, 403.html), in the language."""
    entry, role = ERRORS[status]
    _, _, english_texts = page_in(world, entry, role, "en", status)
    assert english_texts, f"no page with the {status} answer of {entry['name']} as {role}"
    for lang in LANGS:
        answer, html_lang, texts = page_in(world, entry, role, lang, status)
        assert (answer, html_lang) == (status, lang)
        assert not english_left(english_texts, lang, texts)


@pytest.mark.parametrize("lang", LANGS)
def test_a_stale_form_and_a_bad_request_speak_the_language(world, lang):
    """A form posted without its CSRF token (403_csrf.html), a request with a bad host
    (400.html): our page, in the language, and for htmx the card alone."""
    from django.test import Client

    def texts(language, **extra):
        client = Client(enforce_csrf_checks=True)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        response = client.post(reverse("login"), {}, HTTP_ACCEPT_LANGUAGE=language, **extra)
        assert response.status_code == 403
        return response.content.decode()

    page, english = texts(lang), texts("en")
    html_lang, said = texts_of(page)
    assert html_lang == lang
    assert not english_left(texts_of(english)[1], lang, said)
    fragment = texts(lang, HTTP_HX_REQUEST="true")
    assert "<html" not in fragment and 'role="alert"' in fragment
    bad = Client().get("/", HTTP_HOST="bad host!", HTTP_ACCEPT_LANGUAGE=lang)
    assert bad.status_code == 400
    assert texts_of(bad.content.decode())[0] == lang


PAGES = [
    (entry, role)
    for entry in ENTRIES
    if entry.get("method", "get") == "get"
    for role, expected in entry["expect"].items()
    if expected == 200
]


# The players' names, and Muertoons' girls' (their names in every language: "Bibi 8").
NAMES = ("Ana", "Bot1", "Bot2", "Bot3", "Bot4", "Bot5", *GIRL_NAMES.values())


def without_names(text: str) -> str:
    for name in NAMES:
        text = text.replace(name, " ")
    return text


def english_left(en_texts, lang, texts) -> list[str]:
    """The texts of the ``lang`` answer that are English: a sentence of the catalogue, or a
    text the same as in the English answer with a word of its own (not a name, a number, the
    brand), unless the catalogue, Django's own or the short months write it alike."""
    alike, months = alike_in(lang), months_alike(lang)
    django_says = trans_real.translation(lang)._catalog
    said_in_english = set(en_texts)
    untranslated = [
        text
        for text in dict.fromkeys(texts)
        if text in said_in_english
        and has_words(without_names(text))
        and text not in months
        and django_says.get(text) != text
        and not alike.fullmatch(text)
    ]
    return sorted(set(english_in(lang)(texts)) | set(untranslated))


@pytest.mark.parametrize(
    "entry, role", PAGES, ids=[f"{entry['name']}-{role}" for entry, role in PAGES]
)
def test_page_speaks_spanish_and_italian(world, entry, role):
    status, _, english_texts = page_in(world, entry, role, "en")
    assert status == 200
    if not english_texts:
        return  # an answer with no page (a CSV, a file, a favicon)
    found = {}
    for lang in LANGS:
        status, html_lang, texts = page_in(world, entry, role, lang)
        assert status == 200
        # (A piece of a page that htmx asks for has no <html> of its own.)
        assert html_lang in {lang, None}, f"<html lang={html_lang!r}> on the {lang} page"
        if english := english_left(english_texts, lang, texts):
            found[lang] = english
    assert not found, f"English on the page: {found}"


# --- the boards of every game, as a game goes on ------------------------------------------------

FAMILY_GAMES = [slug for slug, game in registry.games().items() if shipped(game)]


def board_in(client, match, lang, name="play"):
    """The board (or the replay) of ``match`` for the client's seat, in ``lang``."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(url(name, match), HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    return texts_of(response.content.decode())


@pytest.mark.parametrize("slug", FAMILY_GAMES)
def test_every_board_of_a_game_speaks_spanish_and_italian(db, slug):
    """A family game (Ana here, computer players in the other seats, the table's first
    options) played by computer choices to its end: the board at its start, every few moves
    and at the end, and the replay, in Spanish and in Italian (<html lang>, no English)."""
    rules = registry.get(slug).rules
    players = max(rules.MIN_PLAYERS, min(3, rules.MAX_PLAYERS))
    seats = seat_specs(["ana", *(f"bot{i}" for i in range(1, players))], bots=range(1, players))
    match = Match.create(slug, seats, seed=11, family=True)
    ana, rng, found = guest_client("ana"), random.Random(11), {}
    for ply in range(600):
        if ply in {0, 1, 3, 8, 20, 50, 120} or match.is_over:
            pages = [("play", ply)] + ([("replay", ply)] if match.is_over else [])
            for name, when in pages:
                _, en_texts = board_in(ana, match, "en", name)
                for lang in LANGS:
                    html_lang, texts = board_in(ana, match, lang, name)
                    assert html_lang == lang
                    if english := english_left(en_texts, lang, texts):
                        found[f"{name} at move {when}, {lang}"] = english
        if match.is_over:
            break
        bot_step(rules, match, rng, rules.BEST_LEVEL)
    assert match.is_over, f"{slug}: not over after 600 moves"
    assert not found, f"English on the {slug} boards: {found}"


# --- Django's admin: its own words are Django's, the models' and fields' names ours ---------------


def admin_pages():
    from django.contrib import admin

    pages = ["/admin/"]
    for model in admin.site._registry:
        meta = model._meta
        pages += [f"/admin/{meta.app_label}/{meta.model_name}/"]
        pages += [f"/admin/{meta.app_label}/{meta.model_name}/add/"]
    return pages


def test_every_admin_page_says_its_language(world):
    """The superuser's admin (the index, every list and add form): <html lang> is the
    language. Its words are Django's and django-axes' catalogues' (Django's Italian lacks a few
    of Django 6's new ones, "Add link"); most of our models' and fields' names are English
    there (docs/languages.md: the admin is the operators' tool, no school uses it)."""
    client = world.client("superuser")
    for path in admin_pages():
        for lang in LANGS:
            client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
            response = client.get(path, HTTP_ACCEPT_LANGUAGE=lang)
            assert response.status_code in {200, 403}, (path, response.status_code)
            assert texts_of(response.content.decode())[0] == lang, path


@pytest.mark.parametrize("lang", LANGS)
def test_the_server_error_page_speaks_the_language(lang):
    """500.html (rendered with no context, by Django's server_error): in the language."""
    from django.template.loader import render_to_string

    english = texts_of(render_to_string("500.html"))[1]
    with translation.override(lang):
        html_lang, texts = texts_of(render_to_string("500.html"))
    assert html_lang == lang and texts
    assert not english_left(english, lang, texts)
