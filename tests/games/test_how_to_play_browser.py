"""Every board's "How to play" in headless Debian chromium at 1366×768: closed, it adds no
scroll to the board; it opens and closes with a tap or from the keyboard (a touch target of at
least 44 px, a visible focus ring, no script of ours); opened, it stays open while the board
is swapped for the next one."""

import pytest
from browser_kit import act
from browser_kit import session_cookie
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

from games import registry
from games.models import Match

from .browser_helpers import wider_than_the_window
from .conftest import seat_specs

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
SLUGS = [slug for slug in registry.games() if registry.get(slug).how_to_play]

# The page's height with the "How to play" as it is, and without it: closed, it must not make
# the page any taller (it sits in the status column, which is shorter than the board).
HEIGHTS = """() => {
  const before = document.documentElement.scrollHeight;
  const details = document.querySelector('#how-to-play');
  const next = details.nextSibling, parent = details.parentNode;
  details.remove();
  const without = document.documentElement.scrollHeight;
  parent.insertBefore(details, next);
  return [before, without, window.innerHeight];
}"""


def board_page(browser, live_server, slug):
    """Ana's board of a new game of ``slug`` (the others play on their own devices)."""
    rules = registry.get(slug).rules
    keys = ["ana", "ben", "cleo", "dev"][: max(rules.MIN_PLAYERS, 2)]
    match = Match.create(slug, seat_specs(keys), seed=3, family=True)
    session = SessionStore()
    session["player_key"] = "ana"
    session.create()
    context = browser.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    context.add_cookies(session_cookie(live_server, session.session_key))
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_server.url + reverse("games:play", args=[match.public_id]))
    page.wait_for_selector("#board")
    return context, page, errors, match


@pytest.mark.parametrize("slug", SLUGS)
def test_how_to_play_opens_and_closes_and_adds_no_scroll_when_closed(
    browser, live_server, tmp_path, slug
):
    context, page, errors, _match = board_page(browser, live_server, slug)
    details = page.locator("#how-to-play")
    summary = details.locator("summary")
    assert details.get_attribute("open") is None
    assert not details.locator("p").first.is_visible()
    before, without, _window = page.evaluate(HEIGHTS)
    assert before == without, (slug, before, without)
    assert not wider_than_the_window(page)
    box = summary.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44, box
    page.screenshot(path=str(tmp_path / f"{slug}-closed.png"))

    # The keyboard: focus it, Enter opens it, with a visible focus ring; Enter closes it.
    summary.focus()
    ring = summary.evaluate(
        "el => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth]"
    )
    assert ring[0] != "none" and float(ring[1].removesuffix("px")) >= 3, ring
    page.keyboard.press("Enter")
    assert details.get_attribute("open") is not None
    assert details.locator("p").last.is_visible()
    page.keyboard.press("Enter")
    assert details.get_attribute("open") is None

    # A tap opens it.
    summary.tap()
    assert details.get_attribute("open") is not None
    assert not wider_than_the_window(page)
    page.screenshot(path=str(tmp_path / f"{slug}-open.png"))
    assert not errors
    context.close()


def test_an_open_how_to_play_stays_open_when_the_board_is_swapped(browser, live_server):
    context, page, errors, match = board_page(browser, live_server, "multiplipotion")
    page.locator("#how-to-play summary").tap()
    # Ana places a card: the move's answer is a new board, swapped in by htmx.
    act(page, lambda: page.locator(".hand button.slot-hand").first.click())
    match.refresh_from_db()
    assert match.version == 1
    assert page.locator("#how-to-play").get_attribute("open") is not None
    assert page.locator("#how-to-play p").first.is_visible()
    assert not errors
    context.close()
