"""A whole Mortadelo Multiverso game in headless Debian chromium, set up from the Family-night
page: one person and two computer players ("plays the odds") that play in a real Celery worker.
The person picks a Mortadelo, challenges, chooses duel cards face down, takes Mamporros Plus and
meddles from the cloning machine, always by the keyboard-reachable buttons of the board."""

import pytest
from browser_kit import act

from .browser_helpers import assert_page_hides_the_others
from .browser_helpers import start_family_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The person's controls, in the order they are tried: a Mortadelo, an opponent or a duellist to
# meddle with, a card of the hand, a Mamporro Plus.
CONTROLS = (
    "button.mm-choice",
    "button.mm-target",
    ".mm-hand button.mm-playable",
    ".mm-market button.mm-playable",
)


def assert_no_hidden_cards(page, match):
    assert_page_hides_the_others(page, match)


def test_one_person_and_two_computers_play_mortadelo_to_the_end(
    browser, live_server, celery_routes_to_worker
):
    context, page, errors, match = start_family_game(browser, live_server, "mortadelo")
    # No horizontal scroll at 1366×768.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    seen = set()
    for turn in range(500):
        # The computers play through the worker, shared with the other test process: on a
        # busy machine their turns can take a while (as in the Trono and Munchkin tests).
        page.wait_for_selector(".turn-banner.mine, .result-text", timeout=60_000)
        if page.locator(".result-text").count():
            break
        phase = page.locator("#board").get_attribute("data-phase")
        seen.add(page.locator("#board").get_attribute("data-task") or phase)
        if phase == "duel":
            assert page.get_by_text("Choose a card face down").count()
        for selector in CONTROLS:
            control = page.locator(selector)
            if control.count():
                act(page, lambda c=control: c.first.click())
                break
        else:
            act(page, lambda: page.locator("button.mm-skip").click())
        if turn % 5 == 0:
            assert_no_hidden_cards(page, match)
    page.wait_for_selector(".result-text")
    match.refresh_from_db()
    assert match.is_over and match.outcome["reason"]
    assert {"pick", "duel"} <= seen
    assert page.locator(".mm-ranking li").count() >= 1
    assert errors == []
    context.close()
