"""A whole game of Munchkin in headless Debian chromium, set up from the Family-night page: one
person and two computer players that play in a real Celery worker."""

import pytest
from browser_kit import act

from .browser_helpers import assert_page_hides_the_others
from .browser_helpers import start_family_game
from .browser_helpers import wider_than_the_window

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# What the person taps, in this order of preference, when it is their move.
PREFERENCE = [
    "button.mk-ready",
    "button.mk-play",  # put races, classes and items on the table
    "button.mk-kick",
    "button.mk-fight",
    "button.mk-loot",
    "button.mk-end_turn",
    "button.mk-roll",
    "button.mk-accept",
    "button.mk-pass",
    "button.mk-take",
    "button.mk-give",
    "button.mk-discard",
    "button.mk-decline",
]


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
        for selector in PREFERENCE:
            if selector == "button.mk-play" and plays > 6:
                continue
            button = page.locator(selector)
            if button.count():
                if selector == "button.mk-play":
                    plays += 1
                act(page, lambda b=button: b.first.click())
                break
        else:
            pytest.fail(f"nothing to tap in phase {phase}")
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
