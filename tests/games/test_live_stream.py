"""A board's stream (games/stream.py) on real Redis, through Django's ASGI test client: who may
listen (as the board's GET), what it sends (a heartbeat at once and every
LIVE_HEARTBEAT_SECONDS, "changed" with the new token only), and that it ends when the seat is
lost. Without push it answers 204 and the board polls as before (tested on SQLite too), and
the board's poller is wired to the settings' timings."""

import asyncio
import threading
from datetime import timedelta

import live_kit
import pytest
from browser_kit import child_session
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.cached_db import SessionStore
from django.db import connections
from django.test import AsyncClient
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from live_kit import BEAT
from live_kit import changed
from live_kit import run

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from games import live
from games.models import Match
from games.models import Seat
from games.stream import pooled


def two_guests(**fields):
    return Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "ana"},
            {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "ben"},
        ],
        **fields,
    )


def session_of(key) -> str:
    session = SessionStore()
    session["player_key"] = key
    session.save()
    return session.session_key


def stream_url(match, token=None):
    token = match.poll_token if token is None else token
    return reverse("games:stream", args=[match.public_id]) + f"?v={token}"


def move_for(match, key):
    """A move by the seat of ``key`` (committed: it publishes)."""
    match.refresh_from_db()
    seat = next(s.number for s in match.seats.all() if s.owner_key == key)
    rules = match.engine
    action = rules.legal_actions(rules.load(match.state), seat)[0]
    match.play(seat, action, version=match.version)
    match.refresh_from_db()
    return match.poll_token


class Stream(live_kit.Stream):
    async def ended(self, timeout=3.0) -> bool:
        """Strict: the very next chunk is the end (no heartbeat before it)."""
        try:
            await asyncio.wait_for(anext(self.chunks), timeout)
        except StopAsyncIteration:
            return True
        return False


@pytest.fixture
def push(settings, redis_url):
    settings.LIVE_PUSH = True
    settings.LIVE_HEARTBEAT_SECONDS = 0.3
    return settings


# --- without push ---------------------------------------------------------------------------


def asgi_get(session_key, url, headers=None):
    """GET through the ASGI handler (as uvicorn serves it), the body read whole."""

    async def get():
        client = AsyncClient()
        client.cookies["sessionid"] = session_key
        response = await client.get(url, headers=headers)
        assert not response.streaming
        return response

    return run(get)


@pytest.mark.django_db(transaction=True)
def test_without_push_the_stream_answers_204_and_the_board_polls(settings):
    settings.LIVE_PUSH = False
    match = two_guests()
    assert asgi_get(session_of("ben"), stream_url(match)).status_code == 204
    # The same rules as the board's GET: a stranger gets 404, push or no push.
    assert asgi_get(session_of("somebody"), stream_url(match)).status_code == 404
    body = asgi_get(session_of("ben"), match.get_absolute_url()).content.decode()
    assert "sse-connect" not in body
    assert 'hx-trigger="every 1s"' in body


@pytest.mark.django_db(transaction=True)
def test_a_wsgi_server_serves_polling_boards_and_no_stream(settings):
    """With push on, a page a WSGI server serves (the suite's live server, gunicorn's gthread)
    polls: such a server could only hold a thread on a stream."""
    settings.LIVE_PUSH = True
    match = two_guests()

    def wsgi_requests():
        client = Client()
        client.cookies["sessionid"] = session_of("ben")
        assert client.get(stream_url(match)).status_code == 204
        return client.get(match.get_absolute_url()).content.decode()

    body = run(wsgi_requests)
    assert "sse-connect" not in body and 'hx-trigger="every 1s"' in body


@pytest.mark.django_db(transaction=True)
def test_a_wsgi_page_pushes_when_a_stream_server_is_named(settings):
    """Production and make run: the pages on a WSGI server, the streams on a server of their
    own (``LIVE_STREAM_ORIGIN``). "self": the page's own origin (a proxy sends the stream
    there); ":<port>": the page's host on that port; the WSGI server itself still answers a
    stream with 204 (it would hold a thread)."""
    settings.LIVE_PUSH = True
    settings.ALLOWED_HOSTS = ["127.0.0.1", "192.168.1.20"]
    match = two_guests()

    def page(origin, host="127.0.0.1:8000"):
        settings.LIVE_STREAM_ORIGIN = origin
        client = Client(HTTP_HOST=host)
        client.cookies["sessionid"] = session_of("ben")
        assert client.get(stream_url(match)).status_code == 204
        return client.get(match.get_absolute_url()).content.decode()

    def wsgi_pages():
        return [
            page("self"),
            page(":8001"),
            page(":8001", host="192.168.1.20:8000"),
            page("https://live.example.org"),
        ]

    same, port, other_host, elsewhere = run(wsgi_pages)
    url = reverse("games:stream", args=[match.public_id])
    assert f'sse-connect="{url}?v=' in same
    assert f'sse-connect="http://127.0.0.1:8001{url}?v=' in port
    assert f'sse-connect="http://192.168.1.20:8001{url}?v=' in other_host
    assert f'sse-connect="https://live.example.org{url}?v=' in elsewhere
    assert all('hx-trigger="every 1s"' not in body for body in (same, port, elsewhere))


@pytest.mark.django_db(transaction=True)
def test_a_stream_answers_its_own_hosts_pages_with_cors_and_no_other(push):
    """A stream server on a port of its own lets the pages of its host (any port) read it with
    their cookies; a page of another site gets no such header, so its browser refuses the
    answer (its stream view never runs any differently)."""
    match = two_guests()

    def headers_for(origin):
        async def scenario():
            client = AsyncClient()
            client.cookies["sessionid"] = session_of("ben")
            response = await client.get(stream_url(match, "x"), headers={"Origin": origin})
            if response.streaming:
                await aiter(response.streaming_content).aclose()
            return response.status_code, response.get("Access-Control-Allow-Origin"), response

        return run(scenario)

    for origin, allowed in (
        ("http://testserver:8001", True),
        ("https://testserver", True),
        ("http://evil.example:8000", False),
        ("null", False),
        ("http://testserver.evil.example", False),
        ("http://[::1", False),
    ):
        status, allow, response = headers_for(origin)
        assert status == 200, origin
        if allowed:
            assert allow == origin and response["Access-Control-Allow-Credentials"] == "true"
            assert "Origin" in response["Vary"]
        else:
            assert allow is None and "Access-Control-Allow-Credentials" not in response, origin


@pytest.mark.django_db(transaction=True)
def test_the_pushed_boards_poller_listens_with_the_default_timings(settings):
    settings.LIVE_PUSH = True
    match = two_guests()
    body = asgi_get(session_of("ben"), match.get_absolute_url()).content.decode()
    assert f'sse-connect="{stream_url(match)}"' in body
    assert 'hx-trigger="sse:changed, every 30000ms, live-poll"' in body
    assert 'data-live-stale="20000"' in body and 'data-live-retry="60000"' in body
    assert 'data-live-poll="1s"' in body and f'data-live-token="{match.poll_token}"' in body
    # The stream is the page's, around the board: the boards swapped in listen on it and
    # never open one of their own.
    assert body.index('class="live-stream"') < body.index("sse-connect") < body.index('id="board"')
    poll = reverse("games:poll", args=[match.public_id]) + "?v=older"
    answer = asgi_get(session_of("ben"), poll, {"HX-Request": "true"})
    assert answer.status_code == 200, answer.status_code
    board = answer.content.decode()
    assert 'id="board"' in board and "sse:changed" in board and "sse-connect" not in board
    # The defaults themselves, as the settings read them from an empty environment.
    from config import settings as project

    assert project.LIVE_HEARTBEAT_SECONDS == 15 and project.LIVE_STALE_SECONDS == 20
    assert project.LIVE_SAFETY_POLL_SECONDS == 30 and project.LIVE_RETRY_SECONDS == 60


@pytest.mark.django_db(transaction=True)
def test_with_redis_unreachable_the_stream_answers_204(settings):
    settings.LIVE_PUSH = True
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    match = two_guests()
    assert asgi_get(session_of("ben"), stream_url(match)).status_code == 204


# --- on Redis -------------------------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_move_reaches_the_other_seats_stream_as_its_token_only(push):
    match = two_guests()
    ben = Stream(session_of("ben"))

    async def scenario():
        response = await ben.open(stream_url(match))
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        assert response["Cache-Control"] == "no-cache"
        assert response["X-Accel-Buffering"] == "no"
        assert await ben.next() == BEAT
        token = await pooled(move_for)(match, "ana")
        assert await ben.next() == changed(token)
        assert await ben.next() == BEAT  # and the heartbeat goes on
        await ben.close()

    run(scenario)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_board_already_older_hears_changed_at_once(push):
    match = two_guests()
    old = match.poll_token
    move_for(match, "ana" if 0 in match.to_act() else "ben")
    ben = Stream(session_of("ben"))

    async def scenario():
        await ben.open(stream_url(match, token=old))
        assert await ben.next() == BEAT
        assert await ben.next(timeout=0.2) == changed(match.poll_token)
        await ben.close()

    run(scenario)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_strangers_get_404_and_a_watcher_may_listen(push):
    match = two_guests()
    admin = get_user_model().objects.create_superuser("root", password="x-long-pass-1")

    def wsgi_requests():
        for session_key in (session_of("somebody"), ""):
            stranger = Client()
            stranger.cookies["sessionid"] = session_key
            assert stranger.get(stream_url(match)).status_code == 404
        ben = Client()
        ben.cookies["sessionid"] = session_of("ben")
        no_such_match = "z" * 10  # a public id's shape (config/converters.py), no match's
        assert ben.get(reverse("games:stream", args=[no_such_match])).status_code == 404
        grown_up = Client()
        grown_up.force_login(admin)
        return grown_up.cookies["sessionid"].value

    watcher = Stream(run(wsgi_requests))

    async def scenario():
        assert (await watcher.open(stream_url(match))).status_code == 200
        assert await watcher.next() == BEAT
        await watcher.close()

    run(scenario)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_stream_ends_when_the_childs_sign_in_ends(push):
    school = School.objects.create(name="Stream school")
    teacher = get_user_model().objects.create_user("stream-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4S")
    ada, ben = (Student.objects.create(classroom=classroom, name=n) for n in ("Ada", "Ben"))
    assignment = Assignment.objects.create(
        classroom=classroom, created_by=teacher, title="T", opens_at=timezone.now()
    )
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key} for s in (ada, ben)
    ]
    match = assignment.new_match(seats, options={"tier": "green"})
    stream = Stream(child_session(ada))

    async def scenario():
        assert (await stream.open(stream_url(match))).status_code == 200
        assert await stream.next() == BEAT
        assert await stream.next() == BEAT  # checked again: still signed in
        await pooled(classroom.end_signins)()
        assert await stream.next() == changed(live.GONE)
        assert await stream.ended()

    run(scenario)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_stream_ends_when_a_computer_takes_the_seat_over(push):
    match = two_guests(family=True, host_key="ana")
    while 1 not in match.to_act():  # Ana ends her turn: the game waits for Ben
        legal = match.engine.legal_actions(match.load_state(), 0)
        ends = [a for a in legal if a.get("type") == "end_turn"]
        match.play(0, (ends or legal)[0], version=match.version)
    long_ago = timezone.now() - timedelta(minutes=10)
    Seat.objects.filter(match=match, number=1).update(last_seen_at=long_ago)
    Match.objects.filter(pk=match.pk).update(changed_at=long_ago)
    match.refresh_from_db()
    ben = Stream(session_of("ben"))

    async def scenario():
        await ben.open(stream_url(match))
        assert await ben.next() == BEAT
        await pooled(match.hand_to_computer)(1, match.engine.LEVELS[0])
        # Ben's board fetches the news
        assert await ben.next() == changed(f"{match.version}s1")
        assert await ben.next() == changed(live.GONE)  # at the next check: no seat
        assert await ben.ended()

    run(scenario)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_keeps_the_seat_seen(push):
    match = two_guests()
    long_ago = timezone.now() - timedelta(minutes=5)
    Seat.objects.filter(match=match).update(last_seen_at=long_ago)
    ben = Stream(session_of("ben"))

    async def scenario():
        await ben.open(stream_url(match))
        assert await ben.next() == BEAT
        assert await ben.next() == BEAT
        await ben.close()

    run(scenario)
    seen = dict(match.seats.values_list("owner_key", "last_seen_at"))
    assert seen["ben"] > long_ago and seen["ana"] == long_ago


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_streams_connect_and_checks_keep_their_connections(push, monkeypatch):
    """A stream's authorization and checks run on the process's few stream threads, whose
    database connections are kept as a request thread's are (``CONN_MAX_AGE``): a stream and
    its heartbeats open at most one connection a thread, not one a check (each opened and
    closed one before, and PostgreSQL started a backend for each: docs/performance.md)."""
    from django.db.backends.signals import connection_created

    from games.stream import POOL_THREADS
    from games.stream import close_pool_connections

    close_pool_connections()
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 60)
    opened = []

    def count(sender, connection, **kwargs):
        if threading.current_thread().name.startswith("stream-db"):
            opened.append(threading.current_thread().name)

    connection_created.connect(count)
    match = two_guests()
    streams = [Stream(session_of("ben")) for _ in range(3)]

    async def scenario():
        for stream in streams:
            await stream.open(stream_url(match))
        for stream in streams:
            for _ in range(4):  # the check at connect, then three heartbeats' checks
                assert await stream.next() == BEAT
        for stream in streams:
            await stream.close()

    try:
        run(scenario)
    finally:
        connection_created.disconnect(count)
        close_pool_connections()
    assert 1 <= len(opened) <= POOL_THREADS, opened
    assert len(opened) == len(set(opened))  # never twice on one thread
