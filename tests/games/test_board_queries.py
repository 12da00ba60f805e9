"""What a signed-in child's board requests cost in queries, and a stream on the stream
server's handler (config/asgi.py) holding no thread of its request (docs/performance.md, "One
subscriber a process").
Query counts only: speed is the benchmark's (bench/renders.py), never a test's."""

import asyncio
import threading

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.cached_db import SessionStore
from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from games import live
from games.hub import hub
from games.models import Seat


def classroom_match():
    """Two children of a class in a session's match; the first signed in on a test client."""
    teacher = get_user_model().objects.create_user("tess", "t@example.com", "pw-long-enough-1")
    school = School.objects.create(name="Hill School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ben = Student.objects.create(classroom=classroom, name="Ben")
    session = Assignment.objects.create(
        classroom=classroom, created_by=teacher, title="Practice", opens_at=timezone.now()
    )
    match = session.new_match(
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": ada.seat_key},
            {"kind": Seat.Kind.STUDENT, "name": "Ben", "owner_key": ben.seat_key},
        ],
        seed=3,
    )
    client = Client()
    store = client.session
    store["student_id"] = ada.pk
    store["signin_generation"] = classroom.signin_generation
    store["signin_key"] = ada.signin_key
    store["player_key"] = "ada-device"
    store.save()
    client.cookies["sessionid"] = store.session_key
    return client, match


@pytest.mark.django_db
def test_a_childs_board_is_two_queries(django_assert_max_num_queries):
    """The match with its seats, and the child with class and school (the sign-in check)."""
    child, match = classroom_match()
    url = reverse("games:play", args=[match.public_id])
    child.get(url, HTTP_HX_REQUEST="true")  # the session read once, last_seen_at written
    with django_assert_max_num_queries(2):
        response = child.get(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert b'id="board"' in response.content


@pytest.mark.django_db
def test_a_childs_changed_poll_is_three_queries(django_assert_max_num_queries):
    """The token's lookup, then the board's two."""
    child, match = classroom_match()
    child.get(reverse("games:play", args=[match.public_id]), HTTP_HX_REQUEST="true")
    poll = reverse("games:poll", args=[match.public_id]) + "?v=an-old-token"
    with django_assert_max_num_queries(3):
        response = child.get(poll, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert b'id="board"' in response.content


@pytest.mark.django_db
def test_a_childs_move_is_the_board_and_its_writes(django_assert_max_num_queries):
    """The board's two queries, then the move: its transaction (begin or savepoint), the
    match locked, the match saved, the move inserted, the commit (or release)."""
    child, match = classroom_match()
    child.get(reverse("games:play", args=[match.public_id]), HTTP_HX_REQUEST="true")
    legal = match.engine.legal_actions(match.load_state(), 0)
    place = next(a for a in legal if a["type"] == "place")
    form = {**place, "version": match.version, "move_id": "m-1"}
    with django_assert_max_num_queries(7):
        response = child.post(
            reverse("games:move", args=[match.public_id]), form, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.version == 1
    assert match.moves.get().client_move_id == "m-1"


def asgi_scope(path, headers, query=b"") -> dict:
    """The scope of a GET of ``path`` through an ASGI handler in process."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
    }


def asgi_get(handler, path, headers):
    """One GET through an ASGI handler in process: (status, body)."""
    scope = asgi_scope(path, headers)

    async def run():
        inbox = [{"type": "http.request", "body": b"", "more_body": False}]
        answer = {"status": 0, "body": b""}
        done = asyncio.Event()

        async def receive():
            if inbox:
                return inbox.pop()
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
            elif not message.get("more_body"):
                answer["body"] += message.get("body", b"")
                done.set()
            else:
                answer["body"] += message.get("body", b"")

        await handler(scope, receive, send)
        return answer["status"], answer["body"]

    return run


def asgi_stream_then_leave(handler, path, headers):
    """Open a stream through an ASGI handler in process, read its first event, then leave (the
    client disconnects): the first chunk."""
    scope = asgi_scope(path, headers, b"v=0")

    async def run():
        first = asyncio.Event()
        chunks = []
        sent = []

        async def receive():
            if not sent:
                sent.append(True)
                return {"type": "http.request", "body": b"", "more_body": False}
            await first.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.body" and message.get("body"):
                chunks.append(message["body"])
                first.set()

        await asyncio.wait_for(handler(scope, receive, send), timeout=30)
        return b"".join(chunks)

    return run


def pushed_board(settings):
    """A child's board and its stream, with push on, served by Django's ASGI handler (the
    stream server's): (the child's headers, the handler, the board's path, the stream's
    path)."""
    settings.LIVE_PUSH = True
    child, match = classroom_match()
    headers = {"cookie": f"sessionid={child.cookies['sessionid'].value}"}
    board = reverse("games:play", args=[match.public_id])
    stream = reverse("games:stream", args=[match.public_id])
    return headers, ASGIHandler(), board, stream


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_board_then_its_stream_on_the_stream_servers_handler(settings, redis_url):
    """The stream server (config/asgi.py: Django's own handler) answers a board and its
    stream, and the next board after the stream has gone."""
    headers, handler, board, stream = pushed_board(settings)

    async def scenario():
        before = await asgi_get(handler, board, {**headers, "hx-request": "true"})()
        first = await asgi_stream_then_leave(handler, stream, headers)()
        after = await asgi_get(handler, board, {**headers, "hx-request": "true"})()
        return before, first, after

    before, first, after = asyncio.run(scenario())
    assert before[0] == 200 and b'id="board"' in before[1]
    assert first.startswith(b"event: beat")  # the stream's first beat
    assert after[0] == 200 and b'id="board"' in after[1]


def request_executor_threads() -> set[int]:
    """The threads asgiref made for requests' synchronous code (one a request under Django's
    ASGI handler: ``ThreadPoolExecutor(max_workers=1)``, named so by default)."""
    return {t.ident for t in threading.enumerate() if t.name.startswith("ThreadPoolExecutor-")}


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_an_open_stream_holds_no_thread_of_its_request_and_ends_when_the_seat_is_lost(
    settings, redis_url
):
    """Under Django's own handler (the stream server's) a stream's connect runs its
    synchronous parts on a thread of the request's own; once authorized the stream lets that
    thread go (``games.stream.release_request_thread``), so an open stream holds none. The
    open stream still hears a change, checks the seat at its heartbeats with a new request of
    the browser (``games.stream.Revisit``), and ends by itself when the child's sign-in ends;
    the request then finishes (``request_finished``)."""
    settings.LIVE_PUSH = True
    settings.LIVE_HEARTBEAT_SECONDS = 0.2
    child, match = classroom_match()
    session_key = child.cookies["sessionid"].value
    finished = []

    def record(**kwargs):
        finished.append(True)

    path = reverse("games:stream", args=[match.public_id])
    scope = asgi_scope(
        path, {"cookie": f"sessionid={session_key}"}, f"v={match.poll_token}".encode()
    )
    handler = ASGIHandler()

    async def scenario():
        chunks: asyncio.Queue = asyncio.Queue()
        asked = []

        async def receive():
            if not asked:
                asked.append(True)
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # the browser never leaves: the stream must end

        async def send(message):
            if message["type"] == "http.response.body" and message.get("body"):
                chunks.put_nowait(message["body"].decode())

        before = request_executor_threads()
        served = asyncio.create_task(handler(scope, receive, send))
        first = await asyncio.wait_for(chunks.get(), 10)
        await asyncio.sleep(0.5)  # a thread told to stop ends at once
        open_threads = request_executor_threads() - before
        finished_while_open = len(finished)
        await asyncio.to_thread(live.send, match.public_id, "T-next")
        heard = []
        while not heard or not heard[-1].startswith("event: changed"):
            heard.append(await asyncio.wait_for(chunks.get(), 10))
        # The child's sign-in ends (their session deleted): the next check finds no seat.
        await asyncio.to_thread(lambda: SessionStore(session_key).delete())
        rest = []
        while not served.done() or not chunks.empty():
            rest.append(await asyncio.wait_for(chunks.get(), 10))
            if rest[-1].startswith("event: changed"):
                break
        await asyncio.wait_for(served, 10)
        return first, open_threads, finished_while_open, heard, rest, hub().listening()

    def in_a_thread():
        # A thread of its own, as a server's connection: its context is new (this one's
        # holds the test's own Django state, which a request's would share).
        outcome = []
        thread = threading.Thread(target=lambda: outcome.append(asyncio.run(scenario())))
        thread.start()
        thread.join(60)
        return outcome[0]

    signals.request_finished.connect(record, weak=False)
    try:
        first, open_threads, finished_while_open, heard, rest, listening = in_a_thread()
    finally:
        signals.request_finished.disconnect(record)
    assert first.startswith("event: beat")
    assert open_threads == set() and finished_while_open == 0
    assert "event: changed\ndata: T-next\n\n" in heard
    assert heard.count("event: beat\ndata: \n\n") >= 1  # the heartbeats' checks go on
    assert rest[-1] == "event: changed\ndata: gone\n\n"
    assert listening == 0
    assert finished == [True]
