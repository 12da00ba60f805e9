"""Helpers of the browser tests of the games (imported, not fixtures)."""


def page_and_state(page, match):
    """The page's HTML and the match's state *as that page shows it*. A computer player may
    move between reading the page and reading the match (a card given away is in another hand
    by then, though the page rightly showed it in the giver's), so this waits until the page
    and the match are at the same version."""
    for _ in range(50):
        html = page.content()
        match.refresh_from_db()
        if f'data-version="{match.version}"' in html:
            return html, match.engine.load(match.state)
        page.wait_for_timeout(200)
    raise AssertionError("the page never caught up with the match")


def assert_page_hides_the_others(page, match, me=0):
    """No other seat's private token (hand cards, secret choice, role) anywhere in the page,
    and every one of mine there. Returns the state checked."""
    html, state = page_and_state(page, match)
    for other in range(match.seats.count()):
        if other != me:
            leaked = [t for t in match.engine.private(state, other) if t in html]
            assert not leaked, (other, leaked)
    return html, state
