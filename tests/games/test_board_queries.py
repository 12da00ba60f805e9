"""What a signed-in child's board requests cost in queries, and the ASGI handler's kept
request threads and streams' hand-off (config/asgi_threads.py; docs/performance.md, "Renders
and moves profiled", "One subscriber a process").
Query counts only: speed is the benchmark's (bench/renders.py), never a test's."""

import asyncio
import gc
import threading
import weakref

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
from config.asgi_threads import KeptThreadsASGIHandler
from games import live
from games.hub import hub
from games.models import Seat
from games.stream import Revisit


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


def request_threads():
    """The thread each request's synchronous code started on (request_started runs there)."""
    seen = []

    def record(**kwargs):
        seen.append(threading.current_thread())

    signals.request_started.connect(record, weak=False)
    return seen, lambda: signals.request_started.disconnect(record)


@pytest.mark.django_db(transaction=True)
def test_the_asgi_handler_keeps_the_request_thread():
    """Django's handler makes a thread a request (and with it a database connection); ours
    gives the next request the same thread, and the board is the same."""
    child, match = classroom_match()
    headers = {
        "cookie": f"sessionid={child.cookies['sessionid'].value}",
        "hx-request": "true",
    }
    path = reverse("games:play", args=[match.public_id])
    seen, stop = request_threads()
    try:
        kept, stock = KeptThreadsASGIHandler(), ASGIHandler()
        answers = [asyncio.run(asgi_get(kept, path, headers)()) for _ in range(2)]
        answers += [asyncio.run(asgi_get(stock, path, headers)()) for _ in range(2)]
    finally:
        stop()
        kept.close_idle()
        gc.collect()  # the stock handler's ended threads' connections
    assert [status for status, _body in answers] == [200] * 4
    assert all(b'id="board"' in body and b"Ada" in body for _status, body in answers)
    assert seen[0] is seen[1]
    assert seen[2] is not seen[3]
    assert seen[0] is not threading.current_thread()


@pytest.mark.django_db(transaction=True)
def test_requests_at_once_get_threads_of_their_own():
    """Three boards at once: three threads (a request's code never shares its thread with
    another's at the same time); afterwards at most ``idle_threads`` are kept."""
    child, match = classroom_match()
    headers = {
        "cookie": f"sessionid={child.cookies['sessionid'].value}",
        "hx-request": "true",
    }
    path = reverse("games:play", args=[match.public_id])
    handler = KeptThreadsASGIHandler(idle_threads=1)
    seen, stop = request_threads()

    async def three():
        return await asyncio.gather(*(asgi_get(handler, path, headers)() for _ in range(3)))

    try:
        answers = asyncio.run(three())
        kept = len(handler._idle)
    finally:
        stop()
        handler.close_idle()
    assert [status for status, _body in answers] == [200] * 3
    assert len({id(t) for t in seen}) == 3
    assert kept == 1


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
    """A child's board and its stream, with push on, served by the kept-threads handler:
    (the child's headers, the handler, the board's path, the stream's path)."""
    settings.LIVE_PUSH = True
    child, match = classroom_match()
    headers = {"cookie": f"sessionid={child.cookies['sessionid'].value}"}
    board = reverse("games:play", args=[match.public_id])
    stream = reverse("games:stream", args=[match.public_id])
    return headers, KeptThreadsASGIHandler(), board, stream


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_stream_never_takes_a_kept_thread_and_the_next_board_is_served(settings, redis_url):
    """A stream lets its request's thread go once authorized (games.stream shuts it down):
    under the kept-threads handler it gets a thread of its own, as under Django's, so the
    thread it shuts down is never handed to the next request."""
    headers, handler, board, stream = pushed_board(settings)

    async def scenario():
        before = await asgi_get(handler, board, {**headers, "hx-request": "true"})()
        first = await asgi_stream_then_leave(handler, stream, headers)()
        after = [await asgi_get(handler, board, {**headers, "hx-request": "true"})() for _ in "ab"]
        return before, first, after

    try:
        before, first, after = asyncio.run(scenario())
        alive = [not executor._shutdown for executor in handler._idle]
    finally:
        handler.close_idle()
    assert before[0] == 200 and first.startswith(b"event: beat")  # the stream's first beat
    assert [status for status, _body in after] == [200, 200]
    assert alive and all(alive)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_stream_is_served_after_its_django_request_has_ended(settings, redis_url, monkeypatch):
    """The hand-off: under our handler Django answers a stream's connect as any request, and
    that request has ended (``request_finished``; the request object freed) by the stream's
    first heartbeat. The open stream still hears a change, checks the seat at its heartbeats
    with a new request of the browser (``games.stream.Revisit``), and ends by itself when the
    child's sign-in ends (under Django's own handler the request lives as long as the
    stream, and its end comes only then)."""
    settings.LIVE_PUSH = True
    settings.LIVE_HEARTBEAT_SECONDS = 0.2
    child, match = classroom_match()
    session_key = child.cookies["sessionid"].value
    seen_requests = []
    keep = Revisit.__init__

    def remember(self, request):
        seen_requests.append(weakref.ref(request))
        keep(self, request)

    monkeypatch.setattr(Revisit, "__init__", remember)
    finished = []

    def record(**kwargs):
        finished.append(True)

    path = reverse("games:stream", args=[match.public_id])
    scope = asgi_scope(
        path, {"cookie": f"sessionid={session_key}"}, f"v={match.poll_token}".encode()
    )
    handler = KeptThreadsASGIHandler()

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

        served = asyncio.create_task(handler(scope, receive, send))
        first = await asyncio.wait_for(chunks.get(), 10)
        # (a timer the connect's await cancelled keeps its context until it is due: < 1 s)
        await asyncio.sleep(1.5)
        gc.collect()
        ended = {"finished": len(finished), "request freed": seen_requests[0]() is None}
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
        return first, ended, heard, rest, hub().listening()

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
        first, ended, heard, rest, listening = in_a_thread()
    finally:
        signals.request_finished.disconnect(record)
        handler.close_idle()
    assert first.startswith("event: beat")
    assert ended == {"finished": 1, "request freed": True}
    assert "event: changed\ndata: T-next\n\n" in heard
    assert heard.count("event: beat\ndata: \n\n") >= 1  # the heartbeats' checks go on
    assert rest[-1] == "event: changed\ndata: gone\n\n"
    assert listening == 0


@pytest.mark.django_db(transaction=True)
def test_at_most_max_threads_requests_run_at_once_and_the_others_wait():
    """Five boards at once with two threads allowed: never more than two requests on threads
    (each thread may hold a database connection), and every board is served."""
    child, match = classroom_match()
    headers = {
        "cookie": f"sessionid={child.cookies['sessionid'].value}",
        "hx-request": "true",
    }
    path = reverse("games:play", args=[match.public_id])
    handler = KeptThreadsASGIHandler(idle_threads=1, max_threads=2)
    most = []

    async def watch(done):
        while not done.is_set():
            most.append(handler.busy)
            await asyncio.sleep(0)

    async def five():
        done = asyncio.Event()
        watcher = asyncio.create_task(watch(done))
        answers = await asyncio.gather(*(asgi_get(handler, path, headers)() for _ in range(5)))
        done.set()
        await watcher
        return answers

    try:
        answers = asyncio.run(five())
    finally:
        handler.close_idle()
    assert [status for status, _body in answers] == [200] * 5
    assert max(most) == 2


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_request_never_inherits_the_context_of_the_one_before(settings, redis_url):
    """uvicorn may start a keep-alive connection's next request in the context of the request
    before it (CPython issue 140947: the connection's reader is registered again from that
    request's task), with asgiref's ThreadSensitiveContext of that request, exited. A stream's
    connect then failed: "RuntimeError: ThreadSensitiveContext has exited", a 500 (seen when a
    teacher left the live wall quickly). Our handler serves each request in a context of its
    own: the board and the stream are answered as usual."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync
    from asgiref.sync import ThreadSensitiveContext

    headers, handler, board, stream = pushed_board(settings)

    async def scenario():
        before = ThreadSensitiveContext(executor=ThreadPoolExecutor(max_workers=1))
        async with before:
            pass
        SyncToAsync.thread_sensitive_context.set(before)  # as the request before left it
        answer = await asgi_get(handler, board, {**headers, "hx-request": "true"})()
        first = await asgi_stream_then_leave(handler, stream, headers)()
        return answer, first

    try:
        answer, first = asyncio.run(scenario())
    finally:
        handler.close_idle()
    assert answer[0] == 200 and b'id="board"' in answer[1]
    assert first.startswith(b"event: beat")
