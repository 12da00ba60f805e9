"""The database away, in chromium (docs/reliability.md, "When the database is away"): a child
moves on the board and answers a warm-up question while the server cannot reach the database.
The page says "We lost the connection for a moment. Trying again…" in its live region, keeps
the board or the question as it was (inert while the answer waits), sends the same request
again by itself once the server says so (Retry-After) and, when it goes through, shows the new
board or the feedback and the notice goes. The move and the answer are stored once. A whole
page asked for meanwhile says so too, and shows itself once the database is back."""

import pytest
from browser_kit import child_session
from browser_kit import record_errors
from browser_kit import session_cookie
from django.db import connections
from playwright.sync_api import expect

from classroom.models import Attempt
from games.models import Move

from .test_database_away import MESSAGE
from .test_database_away import database_away
from .test_database_away import make_child

pytestmark = [pytest.mark.browser, pytest.mark.slow]
# What the browser reports of the 503s themselves (htmx's "Response Status Error Code 503 …",
# chromium's "Failed to load resource: … 503"): expected here; anything else is a fault.
EXPECTED = ("503",)


@pytest.fixture
def fresh_connections():
    """Each request of the live server connects anew (CONN_MAX_AGE 0): here only new
    connections fail, and one that a keep-alive thread kept from before would not notice the
    database away (in production the outage breaks kept connections too: test_faults.py cuts
    them)."""
    database = connections.settings["default"]
    kept, database["CONN_MAX_AGE"] = database["CONN_MAX_AGE"], 0
    yield
    database["CONN_MAX_AGE"] = kept


def test_the_board_and_the_warm_up_try_again_by_themselves(
    transactional_db, fresh_connections, page, live_server, tmp_path
):
    """Three tabs of the child's at once (their waits overlap): the board, the warm-up round,
    and a page asked for while the database is away."""
    child = make_child()
    match, warm_up = child.match, child.warm_up
    page.context.add_cookies(session_cookie(live_server, child_session(child)))
    board_tab, round_tab, page_tab = page, page.context.new_page(), page.context.new_page()
    for tab in (round_tab, page_tab):
        tab.console_errors = []
        record_errors(tab, tab.console_errors)
    board, answer = board_tab.locator("#board"), round_tab.locator("#warmup-answer")
    board_tab.goto(f"{live_server.url}/play/{match.public_id}/")
    round_tab.goto(f"{live_server.url}/me/warm-up/{warm_up.pk}/")
    version = board.get_attribute("data-version")

    with database_away(tmp_path):
        board_tab.locator(".hand button.slot-hand").first.click()
        answer.fill("7")
        round_tab.locator(".pad-ok").click()
        page_tab.goto(f"{live_server.url}/me/")
        for tab in (board_tab, round_tab):
            expect(tab.locator("#connection-status")).to_have_text(MESSAGE, timeout=10_000)
        expect(board).to_have_attribute("aria-busy", "true")
        expect(board).to_have_js_property("inert", True)
        expect(answer).to_have_value("7")  # the question stays, its answer with it
        expect(page_tab.locator("[data-outage]")).to_have_text(MESSAGE, timeout=10_000)
        match.refresh_from_db()
        assert str(match.version) == version  # nothing stored while the database is away
        assert not Attempt.objects.filter(warm_up=warm_up).exists()

    # Sent again after Retry-After (3 s and up to a quarter more; half as long again each time
    # it is told 503 again): the new board, the answer's feedback, the page; the notices gone.
    expect(board).not_to_have_attribute("data-version", version, timeout=15_000)
    expect(round_tab.locator(".warmup-feedback:not(.is-empty)")).to_be_visible(timeout=15_000)
    expect(page_tab.locator("#connection-status")).to_have_count(1, timeout=15_000)
    for tab in (board_tab, round_tab):
        expect(tab.locator("#connection-status")).to_be_empty()
    match.refresh_from_db()
    assert match.version == int(version) + 1 and Move.objects.filter(match=match).count() == 1
    assert Attempt.objects.filter(warm_up=warm_up).count() == 1
    for tab in (board_tab, round_tab, page_tab):
        assert [e for e in tab.console_errors if not any(x in e for x in EXPECTED)] == []
