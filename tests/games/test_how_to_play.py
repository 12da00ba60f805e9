"""Every game's "How to play" (Game.how_to_play): a few short paragraphs, shown folded away on
the game's set-up page and on its board, in the reader's language (English, Spanish, Italian),
with a true <html lang>."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from games import registry
from games.models import Match

from .conftest import HTMX
from .conftest import guest_client
from .conftest import seat_specs
from .conftest import url

pytestmark = pytest.mark.django_db
SLUGS = sorted(registry.games())
# The app's own games; the test-only game's strings are not in the catalogues (tests/* is not
# extracted), so it is read in English only.
TRANSLATED = [slug for slug in SLUGS if registry.get(slug).rules.__name__.startswith("games.")]
LANGUAGES = ("es", "it")
DETAILS = re.compile(r'<details id="how-to-play" class="how-to-play" hx-preserve="true">')


def paragraphs(slug, lang="en") -> list[str]:
    with translation.override(lang):
        return [str(p) for p in registry.get(slug).how_to_play]


def html_lang(body: str) -> str:
    return re.search(r'<html lang="([^"]+)"', body).group(1)


def assert_shows_how_to_play(body, slug, lang="en"):
    """The folded "How to play" (closed: no ``open``) with every paragraph of ``slug``."""
    assert len(DETAILS.findall(body)) == 1, slug
    with translation.override(lang):
        assert f"<summary>{escape(translation.gettext('How to play'))}</summary>" in body
    for paragraph in paragraphs(slug, lang):
        assert f"<p>{escape(paragraph)}</p>" in body, (slug, lang, paragraph)


def family_board(slug, key="ana"):
    """A family game of ``slug`` at its fewest players, every seat a person on this device."""
    rules = registry.get(slug).rules
    seats = seat_specs(["ana", "ben", "cleo"][: rules.MIN_PLAYERS], owner=key)
    return Match.create(slug, seats, family=True)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_has_a_few_short_paragraphs_of_how_to_play(slug):
    texts = paragraphs(slug)
    assert 3 <= len(texts) <= 6, slug
    assert all(texts) and all(len(p.split()) <= 60 for p in texts), slug
    assert sum(len(p.split()) for p in texts) <= 150, slug
    # No file path in a text for people.
    assert not [p for p in texts if re.search(r"\w/\w|\.(py|md|txt|html)\b", p)], slug


@pytest.mark.parametrize("slug", TRANSLATED)
def test_the_games_texts_are_between_60_and_150_words(slug):
    assert 60 <= sum(len(p.split()) for p in paragraphs(slug)) <= 150


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", TRANSLATED)
def test_every_paragraph_is_translated(slug, lang):
    english, translated = paragraphs(slug), paragraphs(slug, lang)
    assert not [e for e, t in zip(english, translated, strict=True) if e == t], (slug, lang)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_set_up_page_shows_how_to_play_folded_away(slug):
    page = Client().get(reverse("games:new_family", args=[slug]))
    assert page.status_code == 200
    assert_shows_how_to_play(page.text, slug)
    # Outside the form: a refused form (422, the form alone) does not send it again.
    refused = Client().post(reverse("games:new_family", args=[slug]), {}, **HTMX)
    assert refused.status_code == 422 and "how-to-play" not in refused.text


@pytest.mark.parametrize("slug", SLUGS)
def test_the_board_shows_how_to_play_folded_away_and_keeps_it_across_swaps(slug):
    match = family_board(slug)
    ana = guest_client("ana")
    page = ana.get(url("play", match))
    assert page.status_code == 200
    assert_shows_how_to_play(page.text, slug)
    # The board swapped in by htmx carries it with the same id, which htmx keeps as it was
    # (open or closed) rather than replacing it: hx-preserve.
    board = ana.get(url("poll", match) + "?v=stale", **HTMX)
    assert board.status_code == 200 and "<html" not in board.text
    assert_shows_how_to_play(board.text, slug)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", TRANSLATED)
def test_spanish_and_italian_readers_get_it_in_their_language(slug, lang):
    headers = {"accept-language": lang}
    setup = Client().get(reverse("games:new_family", args=[slug]), headers=headers)
    match = family_board(slug)
    client = guest_client("ana")
    board = client.get(url("play", match), headers=headers)
    for page in (setup, board):
        assert page.status_code == 200
        assert html_lang(page.text) == lang and page["Content-Language"] == lang
        assert_shows_how_to_play(page.text, slug, lang)
        # Not the English.
        assert escape(paragraphs(slug)[0]) not in page.text


def test_the_summary_is_in_each_language():
    with translation.override("es"):
        assert translation.gettext("How to play") == "Cómo se juega"
    with translation.override("it"):
        assert translation.gettext("How to play") == "Come si gioca"
