"""The teacher's live wall and the child's waiting room by push, in chromium, served by uvicorn
(the ASGI server of production) on the test database, with real Redis: the wall shows a
child's move with no poll before it, and the waiting room takes the child to the game as soon
as a classmate arrives (timings shortened through their settings)."""

import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from browser_kit import child_session
from browser_kit import session_cookie
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from live_kit import AsgiServer

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import WaitingEntry
from games.models import Match
from games.models import Seat

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def asgi_server(transactional_db, redis_url, settings):
    settings.LIVE_PUSH = True
    settings.LIVE_HEARTBEAT_SECONDS = 1
    database = connections.settings["default"]
    kept, database["CONN_MAX_AGE"] = database["CONN_MAX_AGE"], 0
    try:
        with AsgiServer() as server:
            yield server
    finally:
        database["CONN_MAX_AGE"] = kept


@pytest.fixture
def a_class():
    school = School.objects.create(name="Push school")
    teacher = get_user_model().objects.create_user("push-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4P")
    for name in ("Ada", "Ben"):
        Student.objects.create(classroom=classroom, name=name)
    assignment = Assignment.objects.create(
        classroom=classroom,
        created_by=teacher,
        title="Duel",
        opens_at=timezone.now() - timedelta(minutes=1),
        opponents="classmates_then_bot",
        warm_up_minutes=0,
    )
    return classroom, assignment


def open_page(browser, server, session_key):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies(session_cookie(server, session_key))
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.errors, page.requests = [], []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: page.requests.append((r.url, time.monotonic())))
    return context, page


def listening(page):
    """The page's stream has heard from the server: the wall's .live-stream, or the waiting
    room's poller (which holds its own)."""
    page.wait_for_function(
        "() => { const p = document.querySelector('.live-stream') ||"
        " document.querySelector('.poller'); return p && p.liveHeard; }"
    )


@contextmanager
def ada_in_the_waiting_room(browser, server, a_class):
    """Ada waits for a classmate, her room's page open and listening on its stream: (that
    page, the room's address)."""
    classroom, assignment = a_class
    ada = classroom.students.get(name="Ada")
    WaitingEntry.objects.enter(assignment, ada)
    context, page = open_page(browser, server, child_session(ada))
    try:
        room = reverse("classroom:waiting_room", args=[assignment.pk])
        page.goto(server.url + room)
        listening(page)
        yield page, room
    finally:
        context.close()


def asked(page, part, since):
    return [u for u, t in page.requests if part in u and t >= since]


def move_and_see_the_wall_change(page, match):
    """The seat on turn makes its first legal move; the wall on ``page`` shows a new version."""
    before = page.locator("#wall-board").get_attribute("data-version")
    match.refresh_from_db()
    seat = match.to_act()[0]
    match.play(seat, match.engine.legal_actions(match.engine.load(match.state), seat)[0])
    page.wait_for_function(
        "v => document.querySelector('#wall-board').dataset.version !== v",
        arg=before,
        timeout=5000,
    )


def test_the_wall_shows_a_move_by_push(browser, asgi_server, a_class):
    classroom, assignment = a_class
    ada, ben = classroom.students.order_by("name")
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key} for s in (ada, ben)
    ]
    match = assignment.new_match(seats, options={"tier": "green"}, seed=3)
    grown_up = Client()
    grown_up.force_login(classroom.teacher)
    context, page = open_page(browser, asgi_server, grown_up.cookies["sessionid"].value)
    try:
        page.goto(asgi_server.url + reverse("classroom:session_wall", args=[classroom.pk]))
        listening(page)
        quiet_from = time.monotonic()
        time.sleep(2.5)  # the polling wall would have asked once by now (every 2 s)
        assert asked(page, "/wall/board/", quiet_from) == []
        moved_at = time.monotonic()
        move_and_see_the_wall_change(page, match)
        assert time.monotonic() - moved_at < 5  # well under a safety poll (30 s)
        # One GET, because the stream said "changed" (none by time).
        assert len(asked(page, "/wall/board/", moved_at)) == 1
        assert page.locator(".live-polling").count() == 0
        # The wall swapped in listens on the page's stream: the next move needs no new one.
        move_and_see_the_wall_change(page, match)
        assert len(asked(page, "/wall/stream/", 0)) == 1
        assert not page.errors
    finally:
        context.close()


def test_the_waiting_room_takes_the_child_to_the_game_by_push(browser, asgi_server, a_class):
    classroom, assignment = a_class
    ben = classroom.students.get(name="Ben")
    with ada_in_the_waiting_room(browser, asgi_server, a_class) as (page, room):
        quiet_from = time.monotonic()
        time.sleep(2.5)  # the polling room would have asked once by now (every 2 s)
        assert asked(page, room, quiet_from) == []
        # The clock ticks in the page meanwhile.
        assert int(page.locator(".waited").get_attribute("data-count")) >= 2
        arrived_at = time.monotonic()
        WaitingEntry.objects.enter(assignment, ben)
        assignment.pair_waiting()
        match = Match.objects.get(assignments=assignment)
        page.wait_for_url(f"**{match.get_absolute_url()}", timeout=5000)
        assert time.monotonic() - arrived_at < 5  # well under a safety poll (30 s)
        # The event's GET (and perhaps a second one, when the stream's own check found the
        # game before the page left): no poll.
        assert 1 <= len([u for u in asked(page, room, arrived_at) if "/stream/" not in u]) <= 2
        assert not page.errors


def test_a_page_on_its_way_to_the_game_asks_for_nothing_more(browser, asgi_server, a_class):
    """The room's answer sends Ada to her game (HX-Redirect); while that page loads (held
    here), a second "changed" does not ask again: its redirect would abort the first
    navigation and start it over (static/js/app.js)."""
    classroom, assignment = a_class
    ben = classroom.students.get(name="Ben")
    with ada_in_the_waiting_room(browser, asgi_server, a_class) as (page, room):
        # 100 ms after the answer that sends her on, the room is asked again (as a second
        # "changed" would); the game's page is held meanwhile.
        page.evaluate(
            "document.addEventListener('htmx:afterRequest', (e) => {"
            " if (e.detail.xhr.getResponseHeader('HX-Redirect')) setTimeout(() =>"
            " htmx.trigger(document.querySelector('.poller'), 'live-poll'), 100); })"
        )
        held = []
        page.route("**/play/*/", lambda route: held.append(route))
        WaitingEntry.objects.enter(assignment, ben)
        assignment.pair_waiting()
        match = Match.objects.get(assignments=assignment)
        for _ in range(100):  # the room's answer came, and the game's page is on its way
            if held:
                break
            page.wait_for_timeout(50)
        assert held, "the room never sent Ada to her game"
        sent = len(asked(page, room, 0))
        page.wait_for_timeout(600)
        assert len(asked(page, room, 0)) == sent
        held[0].continue_()
        page.wait_for_url(f"**{match.get_absolute_url()}", timeout=5000)
        assert not page.errors


def test_a_game_page_closes_its_stream_when_the_board_stops_listening(
    browser, asgi_server, a_class
):
    """The teacher ends the session: Ada's board is fetched on the event and says the game is
    over (no poller), and her page closes its stream rather than keep it open (or let the
    browser ask for it again and again) for a game that is over."""
    classroom, assignment = a_class
    ada, ben = classroom.students.order_by("name")
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key} for s in (ada, ben)
    ]
    match = assignment.new_match(seats, options={"tier": "green"}, seed=3)
    context, page = open_page(browser, asgi_server, child_session(ada))
    try:
        page.goto(asgi_server.url + match.get_absolute_url())
        listening(page)
        Assignment.objects.filter(pk=assignment.pk).end()
        page.wait_for_function("() => !document.querySelector('#board .poller')", timeout=5000)
        page.wait_for_function("() => !document.querySelector('.live-stream[sse-connect]')")
        page.wait_for_timeout(4000)  # a stream left open would still be heard from
        assert len(asked(page, "/stream/", 0)) == 1
        assert page.evaluate("document.querySelector('.live-stream').liveSource.readyState") == 2
        assert not page.errors
    finally:
        context.close()
