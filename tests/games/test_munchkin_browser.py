"""A whole game of Munchkin in headless Debian chromium, set up from the Family-night page: one
person and two computer players that play in a real Celery worker."""

import pytest

from .browser_helpers import assert_page_hides_the_others
from .browser_helpers import munchkin_move
from .browser_helpers import start_family_game
from .browser_helpers import wider_than_the_window

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def assert_no_hidden_cards(page, match):
    html, state = assert_page_hides_the_others(page, match)
    assert all(card in html for card in match.engine.private(state, 0))


def test_one_person_and_two_computers_play_munchkin_to_the_end(
    browser, live_server, celery_routes_to_worker
):
    context, page, errors, match = start_family_game(browser, live_server, "munchkin")
    assert (wide := wider_than_the_window(page)) == [], wide
    assert page.get_by_text("Make your character").count()
    phases = set()
    plays = 0
    for turn in range(1500):
        page.wait_for_selector(".turn-banner.mine, .result-text", timeout=60_000)
        if page.locator(".result-text").count():
            break
        phase = page.locator("#board").get_attribute("data-phase")
        phases.add(phase)
        if phase == "combat":
            # the "anyone?" window: a visible countdown, and the combat panel with both sides
            assert page.locator("[data-countdown]").count() == 1
            # Both clocks (status column, above the hand) count the same seconds down (read
            # in one go, so a tick cannot fall between them).
            clocks = page.evaluate(
                "[...document.querySelectorAll('.mk-seconds')].map(e => e.textContent)"
            )
            assert len(set(clocks)) <= 1, clocks
            assert page.locator(".mk-combat .mk-side-players").count() == 1
            assert page.locator(".mk-combat .mk-side-monsters").count() == 1
        tapped = munchkin_move(page, plays_left=plays <= 6)
        if tapped is None:
            pytest.fail(f"nothing to tap in phase {phase}")
        plays += tapped == "button.mk-play"
        if turn % 10 == 0:
            assert_no_hidden_cards(page, match)
            assert (wide := wider_than_the_window(page)) == [], wide
    page.wait_for_selector(".result-text")
    match.refresh_from_db()
    assert match.is_over and match.outcome["winners"]
    assert {"create", "prep", "combat"} <= phases
    assert page.locator(".mk-ranking li").count() >= 2
    assert errors == []
    context.close()
