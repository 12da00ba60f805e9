"""Live boards in chromium, with real Redis on the test database: the streams served by
uvicorn (the stream server of production, config/asgi.py), the pages by the same server or,
as in production and make run, by a WSGI server of their own (Django's live server) with the
stream server on another port (LIVE_STREAM_ORIGIN, CORS). A move shows on the other board by
push (no poll before the event),
and with the stream blocked the board falls back to polling by itself, plays on, and takes a
stream again once it gets one (the timings shortened through their settings; their defaults'
wiring is tested in test_live_stream.py)."""

import time

import pytest
from browser_kit import session_cookie
from django.db import connections
from live_kit import AsgiServer

from config.settings import connect_sources
from games.models import Match
from games.models import Seat

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def asgi_server(transactional_db, redis_url, settings):
    settings.LIVE_PUSH = True
    settings.LIVE_HEARTBEAT_SECONDS = 1
    # As in production under ASGI (docs/deploy.md): each request's thread closes its connection.
    database = connections.settings["default"]
    kept, database["CONN_MAX_AGE"] = database["CONN_MAX_AGE"], 0
    try:
        with AsgiServer() as server:
            yield server
    finally:
        database["CONN_MAX_AGE"] = kept


def session_for(key) -> str:
    from django.contrib.sessions.backends.cached_db import SessionStore

    session = SessionStore()
    session["player_key"] = key
    session.save()
    return session.session_key


@pytest.fixture(params=["one server", "two servers"])
def pages_url(request, asgi_server, settings):
    """Where the pages are served: by the stream server itself, or by Django's WSGI live
    server with the streams on the stream server's port (the browser then reads them across
    origins, with its cookies)."""
    if request.param == "one server":
        return asgi_server.url
    live_server = request.getfixturevalue("live_server")
    settings.LIVE_STREAM_ORIGIN = f":{asgi_server.port}"
    settings.SECURE_CSP = {
        **settings.SECURE_CSP,
        "connect-src": connect_sources(settings.LIVE_STREAM_ORIGIN),
    }
    # Named as the cookies are (127.0.0.1: a cookie is the host's, whatever its port).
    return live_server.url.replace("//localhost:", "//127.0.0.1:")


@pytest.fixture
def boards(browser, asgi_server):
    """Ana's and Ben's pages (each its own browser context) and their match, with every
    request of Ben's page noted (url, time)."""
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "ana"},
            {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "ben"},
        ],
        seed=3,
    )
    pages, contexts = {}, []
    for key in ("ana", "ben"):
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        context.add_cookies(session_cookie(asgi_server, session_for(key)))
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.errors = []
        page.on("pageerror", lambda e, page=page: page.errors.append(str(e)))
        page.requests = []
        page.on("request", lambda r, page=page: page.requests.append((r.url, time.monotonic())))
        pages[key] = page
    yield match, pages
    for context in contexts:
        context.close()


def polls(page, since=0.0):
    return [u for u, t in page.requests if "/poll/" in u and t >= since]


def board_version(page) -> str:
    return page.locator("#board").get_attribute("data-version")


def place_a_card(page):
    """The seat on turn places its first card; returns the version it moved from."""
    before = board_version(page)
    page.locator(".hand button.slot-hand").first.click()
    page.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before
    )
    return before


def turn_order(match, pages):
    first = "ana" if match.to_act() == (0,) else "ben"
    return pages[first], pages["ben" if first == "ana" else "ana"]


def listening(page):
    """The page's stream (the .live-stream around the board) has heard from the server."""
    page.wait_for_function(
        "() => { const p = document.querySelector('.live-stream'); return p && p.liveHeard; }"
    )


def test_a_move_shows_on_the_other_board_by_push(boards, pages_url):
    match, pages = boards
    mover, other = turn_order(match, pages)
    for page in (mover, other):
        page.goto(pages_url + match.get_absolute_url())
        listening(page)
    quiet_from = time.monotonic()
    time.sleep(2.5)  # polling would have asked twice by now (every second while waiting)
    assert polls(other, quiet_from) == [] and polls(mover, quiet_from) == []
    moved_at = time.monotonic()
    before = place_a_card(mover)
    other.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before, timeout=3000
    )
    # One GET, made because the stream said "changed" (no poll before the move, none by time).
    assert len(polls(other, moved_at)) == 1
    assert other.locator(".live-stream.live-polling").count() == 0
    # The page's one stream: the boards swapped in keep listening on it (each board opened a
    # stream of its own before), and it still carries the next move.
    before = board_version(mover)
    mover.locator("form:has(input[name=type][value=end_turn]) button").click()
    other.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before, timeout=3000
    )
    other.wait_for_timeout(500)
    for page in (mover, other):
        assert len([u for u, _t in page.requests if "/stream/" in u]) == 1
    assert not mover.errors and not other.errors


def test_with_the_stream_blocked_the_board_polls_and_takes_the_stream_back(
    boards, asgi_server, settings
):
    settings.LIVE_STALE_SECONDS = 2
    settings.LIVE_RETRY_SECONDS = 4
    match, pages = boards
    mover, other = turn_order(match, pages)
    other.route("**/stream/**", lambda route: route.abort())
    mover.goto(asgi_server.url + match.get_absolute_url())
    listening(mover)
    opened = time.monotonic()
    other.goto(asgi_server.url + match.get_absolute_url())
    other.wait_for_selector(".live-stream.live-polling", state="attached", timeout=4000)
    assert time.monotonic() - opened < 4  # within the stale time (2 s) and a tick
    # It polls every second now, and the game goes on: the move comes by polling.
    moved_at = time.monotonic()
    before = place_a_card(mover)
    other.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before, timeout=4000
    )
    assert polls(other, moved_at)
    # The stream comes back: the retry after LIVE_RETRY_SECONDS finds it, and polling stops.
    other.unroute("**/stream/**")
    listening(other)
    other.wait_for_function(
        "() => !document.querySelector('.live-stream').classList.contains('live-polling')"
    )
    time.sleep(0.5)
    quiet_from = time.monotonic()
    time.sleep(2.5)
    assert polls(other, quiet_from) == []
    assert not mover.errors and not other.errors


def test_a_change_heard_while_the_boards_own_move_is_on_its_way_is_fetched_after_it(
    boards, asgi_server, monkeypatch
):
    """The player's move is under way when the stream says "changed" for the move after it (a
    computer answering at once): the poll that "changed" makes is dropped (hx-sync: the move's
    answer must not be overwritten), and the stream says it once. The board then asks for it as
    soon as the move's answer is in, not at the safety poll 30 s later (found in a child's
    browser walk: 3 of 13 turns against the computer stuck for 29 s)."""
    import games.views

    match, pages = boards
    mover, _other = turn_order(match, pages)
    mover.goto(asgi_server.url + match.get_absolute_url())
    listening(mover)
    render_board = games.views.render_board
    answered = []

    def answer_late(request, *args, **kwargs):
        # The move is applied; before its answer leaves, the next move is made and published.
        if request.method == "POST" and not answered:
            answered.append(True)
            current = Match.objects.get(pk=match.pk)
            state = current.load_state()
            acting = current.engine.to_act(state)[0]
            action = current.engine.legal_actions(state, acting)[0]
            current.play(acting, action, version=current.version, follow_ups=False)
            time.sleep(1.5)  # its "changed" reaches the page meanwhile
        return render_board(request, *args, **kwargs)

    monkeypatch.setattr(games.views, "render_board", answer_late)
    before = int(board_version(mover))
    mover.locator(".hand button.slot-hand").first.click()
    mover.wait_for_function(
        "v => document.querySelector('#board').dataset.version === v", arg=str(before + 1)
    )
    assert Match.objects.get(pk=match.pk).version == before + 2
    started = time.monotonic()
    mover.wait_for_function(
        "v => document.querySelector('#board').dataset.version === v",
        arg=str(before + 2),
        timeout=5000,
    )
    assert time.monotonic() - started < 5
    assert not mover.errors
