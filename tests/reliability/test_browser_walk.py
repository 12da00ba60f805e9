"""A browser walk of every main page, as each kind of visitor: teachers, a school admin, a
child, a visitor (home, family night, sign-in pages) and the play screen of every game in
the registry (games/registry.py). The pages come from the authorization matrix (every GET page
the role may open, HTML only), so a new page joins the walk with its matrix row.

On every page:
- every request the browser makes is recorded: none may go to another origin (the context
  bypasses the CSP, so a foreign reference in the HTML would show as a request instead of
  being silently blocked);
- axe-core (axe-playwright-python) finds no serious or critical violation.
"""

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from games.models import Match

from ..conftest import World
from .conftest import game_params
from .conftest import guest_seats
from .test_bad_input import matrix_entries

ROLES = ("teacher_a", "admin_a", "child_a", "anonymous")
BAD_IMPACT = {"serious", "critical"}


@pytest.fixture(autouse=True)
def _boards_poll_at_the_products_pace(settings):
    """The walk waits for "networkidle" (500 ms without a request), which a board polling
    four times a second (the browser tests' pace, tests/conftest.py) never reaches."""
    settings.LIVE_POLL_SECONDS = 1


def pages_for(world, role) -> list[str]:
    """The HTML pages the matrix lets ``role`` open with a GET (200)."""
    urls = []
    client = world.client(role)
    for entry in matrix_entries():
        if entry.get("method", "get") != "get":
            continue
        expected = entry["expect"][role]
        if 200 not in (expected if isinstance(expected, tuple) else (expected,)):
            continue
        url = entry["url"](world)
        if url in urls:
            continue
        response = client.get(url)
        html = response.content[:2000].decode("utf-8", "replace").lower()
        if response.status_code == 200 and "<html" in html:
            urls.append(url)
    return urls


def session_cookie(world, role) -> str | None:
    if role == "anonymous":
        return None
    return world.client(role).cookies["sessionid"].value


def walk(browser, origin, cookie, urls):
    """Visit ``urls``; return {url: foreign requests} and {url: serious violations}."""
    context = browser.new_context(
        viewport={"width": 1366, "height": 768}, has_touch=True, bypass_csp=True
    )
    if cookie:
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": origin}])
    page = context.new_page()
    page.set_default_timeout(20_000)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    axe = Axe()
    foreign, violations, seen = {}, {}, 0
    try:
        for url in urls:
            requests.clear()
            page.goto(origin + url, wait_until="networkidle")
            seen += len(requests)
            others = [u for u in requests if not u.startswith((origin, "data:"))]
            if others:
                foreign[url] = others
            result = axe.run(page)
            bad = [
                f"{v['id']} ({v['impact']}): {v['help']} — "
                + "; ".join(n["target"][0] for n in v["nodes"][:3])
                for v in result.response["violations"]
                if v.get("impact") in BAD_IMPACT
            ]
            if bad:
                violations[url] = bad
    finally:
        context.close()
    return foreign, violations, seen


def report(what, found) -> str:
    return f"{what}:\n" + "\n".join(f"  {url}: {items}" for url, items in found.items())


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("role", ROLES)
def test_walk_main_pages(browser, live_server, transactional_db, role):
    world = World()
    urls = pages_for(world, role)
    assert len(urls) >= 3, urls
    foreign, violations, requests = walk(
        browser, live_server.url, session_cookie(world, role), urls
    )
    print(f"\n{role}: {len(urls)} pages, {requests} requests, all same-origin: {not foreign}")
    assert not foreign, report("requests to another origin", foreign)
    assert not violations, report("serious or critical axe violations", violations)


def advance(match, plies: int, rng) -> None:
    """Play ``plies`` moves of the match in process (the best level's choices)."""
    module = match.engine
    level = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
    for _ in range(plies):
        match.refresh_from_db()
        if match.is_over:
            return
        state = module.load(match.state)
        seat = module.to_act(state)[0]
        legal = module.legal_actions(state, seat)
        action = module.bot_action(module.view(state, seat), legal, level, rng)
        match.play(seat, action, version=match.version, follow_ups=False)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("slug", game_params())
def test_walk_play_screen(browser, live_server, transactional_db, slug):
    """The play screen at the start, in the middle and at the end of a game."""
    import random

    from games import registry

    module = registry.get(slug).rules
    seats = guest_seats(module.MIN_PLAYERS, prefix=f"walk-{slug}")
    match = Match.create(slug, seats, seed=3)
    session = SessionStore()
    session["player_key"] = seats[0]["owner_key"]
    session.create()
    url = match.get_absolute_url()
    assert Client().get(url).status_code == 404  # the seat is the cookie's, nobody else's
    rng = random.Random(3)
    foreign, violations, requests = {}, {}, 0
    for stage, plies in (("start", 0), ("middle", 12), ("end", 3000)):
        advance(match, plies, rng)
        f, v, n = walk(browser, live_server.url, session.session_key, [url])
        foreign |= {f"{url} ({stage})": x for x in f.values()}
        violations |= {f"{url} ({stage})": x for x in v.values()}
        requests += n
    match.refresh_from_db()
    print(f"\n{slug}: play screen at start, middle and end ({match.status}), {requests} requests")
    assert match.is_over
    assert not foreign, report("requests to another origin", foreign)
    assert not violations, report("serious or critical axe violations", violations)
