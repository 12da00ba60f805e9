"""A whole game of Il Trono di Mortadella in headless Debian chromium, set up from the Family-night
page: one person and two computer players that play in a real Celery worker."""

import pytest

from .browser_helpers import assert_page_hides_the_others
from .browser_helpers import start_family_game
from .browser_helpers import trono_move

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def assert_no_hidden_roles(page, match):
    html, state = assert_page_hides_the_others(page, match)
    assert all(token in html for token in match.engine.private(state, 0))  # my own role


def test_one_person_and_two_computers_play_trono_to_the_end(
    browser, live_server, celery_routes_to_worker
):
    context, page, errors, match = start_family_game(browser, live_server, "trono")
    assert page.locator(".tr-role").count() == 1  # my secret role, always on my screen
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    seen = set()
    for turn in range(600):
        page.wait_for_selector(".turn-banner.mine, .result-text", timeout=60_000)
        if page.locator(".result-text").count():
            break
        phase = page.locator("#board").get_attribute("data-phase")
        seen.add(phase)
        if not trono_move(page, phase):
            pytest.fail(f"unexpected phase {phase}")
        if turn % 8 == 0:
            assert_no_hidden_roles(page, match)
    page.wait_for_selector(".result-text")
    match.refresh_from_db()
    assert match.is_over and match.outcome is not None
    assert {"roll", "choose", "resolve"} <= seen
    # at the end every role is shown
    state = match.engine.load(match.state)
    assert all(page.locator(".tr-role-shown").nth(i).is_visible() for i in range(3))
    assert len(state["roles"]) == 3
    assert errors == []
    context.close()
