"""A whole Muertoons game in headless Debian chromium, set up from the Family-night page: one
person and two computer players that play in a real Celery worker."""

import pytest
from browser_kit import act

from .browser_helpers import assert_page_hides_the_others
from .browser_helpers import start_family_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def assert_no_hidden_cards(page, match):
    assert_page_hides_the_others(page, match)


def test_one_person_and_two_computers_play_muertoons_to_the_end(
    browser, live_server, celery_routes_to_worker
):
    context, page, errors, match = start_family_game(browser, live_server, "muertoons")
    # No horizontal scroll at 1366×768.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for turn in range(400):
        # The computers play through the worker, shared with the other test process: on a
        # busy machine their turns can take a while (as in the Trono and Munchkin tests).
        page.wait_for_selector(".turn-banner.mine, .result-text", timeout=60_000)
        if page.locator(".result-text").count():
            break
        if page.locator("#board[data-phase='contest']").count():
            assert page.get_by_text("Choose a card for the contest").count()
        playable = page.locator(".mu-hand button.mu-playable")
        if playable.count():
            act(page, lambda p=playable: p.first.click())
        else:
            act(page, lambda: page.locator("button.mu-pass").click())
        if turn % 10 == 0:
            assert_no_hidden_cards(page, match)
    page.wait_for_selector(".result-text")
    match.refresh_from_db()
    assert match.is_over and match.outcome["winners"]
    assert errors == []
    context.close()
