"""A board's stream of server-sent events (docs/platform.md, "Live updates"): an async view,
served by the ASGI server, over the match's Redis channel (``games.live``).

``GET /play/<id>/stream/?v=<token>`` authorizes the viewer once, as the board's own GET does
(a seat of this browser, or a watcher with ``games.view_match``; anybody else 404), then sends:

- ``event: beat`` at once and every ``LIVE_HEARTBEAT_SECONDS``, after checking again, with the
  session read afresh, that the viewer still holds the seat (or may still watch): a lost seat
  (the child's sign-in ended, a computer took the seat over) gets a last ``changed`` and the
  stream ends;
- ``event: changed`` with the new token whenever the board changed (at once if it already
  differs from ``v``): the board then fetches itself with its poll's GET.

The stream server is Django's own ASGI handler (config/asgi.py), pages run on a WSGI server
(docs/deploy.md, "Two servers"). Once authorized, a stream lets go of its request's thread and
database connection (``release_request_thread``, ``db_released``); its checks run on a few
threads of the process (``pooled``), each asking with a new request of the browser
(``Revisit``).

Without push (no Redis, ``LIVE_PUSH`` off) or on a WSGI server (``presenters.streams_here``)
or with Redis unreachable it answers 204 (after the same authorization: a stranger still gets
404): there is no stream here, and the board polls as it always did (a pushed board's own
fallback, static/js/app.js). A stream server on a port of its own (``LIVE_STREAM_ORIGIN``, make
run) answers the pages of its own host with CORS (``stream_view``)."""

import asyncio
import functools
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.db import close_old_connections
from django.db import connections
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseNotAllowed
from django.http import StreamingHttpResponse
from django.http.request import split_domain_port
from django.utils.cache import patch_vary_headers

from games import live
from games import presenters
from games.hub import LOST
from games.hub import hub
from games.models import Match
from games.views import load_match
from games.views import mark_seen

logger = logging.getLogger(__name__)

# The media type of a stream of server-sent events.
EVENT_STREAM = "text/event-stream"
BEAT = "event: beat\ndata: \n\n"


def changed(token: str) -> str:
    return f"event: changed\ndata: {token}\n\n"


def db_released(function):
    """``function`` run in the request's thread (where the middleware ran: under the test
    client, inside the test's transaction), then its database connection closed: a stream
    lives for minutes and must not hold a connection. A stream's authorization runs so, once a
    page (one stream a page); its checks run on the stream threads (``pooled``)."""

    def run(*args):
        try:
            return function(*args)
        finally:
            close_connections()

    return sync_to_async(run)


# The threads that run the streams' checks: a few for the process's life, each keeping its
# database connection between calls.
POOL_THREADS = 4
_pool = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix="stream-db")


def pooled(function):
    """``function`` run on one of the process's stream threads (``_pool``), never the request's own
    thread: a stream lives for minutes and holds no thread or connection of its own between its
    checks. The pool's threads keep their database connections as a request thread does
    (``close_old_connections`` before and after, as Django's ``request_started`` and
    ``request_finished`` do: ``CONN_MAX_AGE``, health checks), so a stream's checks open no new
    PostgreSQL connection each: the process holds at most ``POOL_THREADS`` such connections
    (docs/performance.md, "One subscriber a process"). The call is the executor's own, not
    ``sync_to_async``: no context variables go to the thread or come back (asgiref copies the
    caller's context there and back, which left a copy of Django's per-context storage in every open
    stream's context: about 1 KiB a stream); the thread's own context keeps its connection."""

    def run(*args):
        close_old_connections()
        try:
            return function(*args)
        finally:
            close_old_connections()

    async def call(*args):
        return await asyncio.get_running_loop().run_in_executor(_pool, run, *args)

    return call


def close_pool_connections(timeout: float = 10.0) -> None:
    """Close the database connections the stream threads keep (the test suite, before it
    drops its database): each thread closes its own, all held at a barrier so that every
    thread runs exactly one of the calls."""
    barrier = threading.Barrier(POOL_THREADS)

    def close():
        barrier.wait(timeout)
        connections.close_all()

    for future in [_pool.submit(close) for _ in range(POOL_THREADS)]:
        future.result(timeout)


class Viewer:
    def __init__(self, match, seats, spectator):
        self.public_id, self.pk = match.public_id, match.pk
        self.seats, self.spectator = frozenset(s.pk for s in seats), spectator


def viewer_of(request, public_id) -> Viewer:
    """Who watches this board: the same rules as the board's GET; Http404 for anybody else."""
    match, mine = load_match(request, public_id)
    if mine:
        return Viewer(match, mine, spectator=False)
    if match.can_spectate(request.user):
        return Viewer(match, [], spectator=True)
    raise Http404


def current_token(pk) -> str:
    row = Match.objects.filter(pk=pk).values_list("version", "paused_at", "seating", "status")
    found = row.first()
    return Match.board_token(*found) if found else live.GONE


class Revisit:
    """All a stream keeps of its request between checks: the session's key and the apps'
    seat-key hook (``request.set_seat_keys``, set by an app's middleware: docs/platform.md).
    ``request()`` is a new request of this browser, as its next page would be: the session
    read again from its store, the user and the seat keys again. So an open stream holds no
    Django request (its headers, session, user, middleware state) for its minutes, and each
    check sees a lost sign-in or seat (docs/performance.md, "One subscriber a process")."""

    __slots__ = ("seat_keys", "session_key")

    def __init__(self, request):
        self.session_key = request.session.session_key
        self.seat_keys = getattr(request, "set_seat_keys", None)

    def request(self) -> HttpRequest:
        request = HttpRequest()
        engine = import_module(settings.SESSION_ENGINE)
        request.session = engine.SessionStore(self.session_key)
        request.user = auth.get_user(request)
        if self.seat_keys is not None:
            self.seat_keys(request)
        return request


def still_allowed(request, viewer: Viewer) -> bool:
    """Whether ``request``, a new request of this browser (``Revisit.request``), would still
    get this board. A seat's ``last_seen_at`` is kept fresh here, as the poll does."""
    try:
        match, mine = load_match(request, viewer.public_id)
    except Http404:
        return False
    if viewer.spectator:
        return match.can_spectate(request.user)
    held = [s for s in mine if s.pk in viewer.seats]
    if len(held) != len(viewer.seats):
        return False
    mark_seen(held)
    return True


def release_request_thread() -> None:
    """Let the thread Django keeps for this request's synchronous parts go.

    Under ASGI Django runs a request's synchronous code (its middleware, the ``request_started``
    signal's receivers) in a thread of the request's own (asgiref's ``ThreadSensitiveContext``),
    kept until the response ends: for a stream, minutes. Once the stream has authorized its
    viewer nothing more runs there (its checks run on the stream threads: ``pooled``), so the
    thread is shut down now; the few calls Django makes when the response
    ends get a fresh one. This measured most of an open stream's memory (docs/performance.md).
    asgiref offers no call for it: the context's executor is taken out of its
    ``SyncToAsync.context_to_thread_executor`` table (public attributes, not documented; the
    stream tests fail if they change)."""
    from asgiref.sync import SyncToAsync

    context = SyncToAsync.thread_sensitive_context.get(None)
    if context is None:
        return
    executor = SyncToAsync.context_to_thread_executor.pop(context, None)
    if executor is not None:
        executor.submit(close_connections)  # its last work: no connection left open
        executor.shutdown(wait=False)


def close_connections() -> None:
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


NEVER = float("inf")


class Check:
    """What a stream's periodic check found: whether the viewer may still see the page, the
    page's current token if the check knows it (None: unknown), and when to check again if
    sooner than the next heartbeat (seconds; None: at the heartbeat)."""

    __slots__ = ("allowed", "soon", "token")

    def __init__(self, allowed=True, token=None, soon=None):
        self.allowed, self.token, self.soon = allowed, token, soon


def lighten(request) -> None:
    """What the request keeps for minutes and never needs again: the URL resolver's list of
    every pattern it tried before this one (a hundred-odd, about 10 KiB a stream)."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        match.tried = []


class StreamResponse(StreamingHttpResponse):
    """A page's stream of events (``text/event-stream``), never cached or buffered by a
    proxy."""

    def __init__(self, events):
        super().__init__(events, content_type=EVENT_STREAM)
        self["Cache-Control"] = "no-cache"
        self["X-Accel-Buffering"] = "no"


def stream_view(view):
    """A stream's view: GET and HEAD only, and, when the page that opens it comes from another
    port of this host (the stream server on a port of its own: ``LIVE_STREAM_ORIGIN``), the
    answer allows that page to read it with its cookies (CORS). Another host is not allowed:
    its page's browser then refuses the answer and the page polls."""

    @functools.wraps(view)
    async def wrapped(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        response = await view(request, *args, **kwargs)
        origin = request.headers.get("Origin", "")
        if origin and same_host(origin, request.get_host()):
            response["Access-Control-Allow-Origin"] = origin
            response["Access-Control-Allow-Credentials"] = "true"
            patch_vary_headers(response, ["Origin"])
        return response

    return wrapped


def same_host(origin: str, host: str) -> bool:
    """Whether ``origin`` (a page's, scheme://host[:port]) is on ``host`` (this request's
    Host, already checked against ALLOWED_HOSTS), whatever its port."""
    try:
        parts = urlsplit(origin)
        hostname = parts.hostname
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and hostname is not None
        and hostname == split_domain_port(host)[0].strip("[]")  # IPv6: urlsplit drops them
    )


async def serve(request, channel: str, shown: str, check, *, beat=None, gap=0.0):
    """A page's stream: a ``StreamResponse`` of server-sent events over ``channel`` of the
    process's shared subscriber (``games.hub``), or a 204 when Redis does not answer.

    ``check(again)`` (synchronous, run by ``pooled``; ``again``: the stream's ``Revisit``, for
    a new request of this browser) is called at once and at every heartbeat (and sooner when
    it asks): a lost viewer gets a last ``changed`` (``live.GONE``) and the stream ends; a
    token it finds that differs from the page's is sent as ``changed``, as are the tokens
    published on the channel. ``check`` must not hold ``request``: the stream outlives it.
    ``gap``: at most one ``changed`` per ``gap`` seconds (the last token heard is sent when
    the gap is over: a busy wall fetches itself once a second, not once a move)."""
    queue = await hub().listen(channel)
    if queue is None:
        return HttpResponse(status=204)
    lighten(request)
    again = Revisit(request)
    return StreamResponse(
        events(channel, queue, shown, check, again, beat or settings.LIVE_HEARTBEAT_SECONDS, gap)
    )


async def events(channel, queue, shown, check, again, beat, gap):
    loop = asyncio.get_running_loop()
    last = shown  # the token the page has, or was last told of: never told twice in a row
    checked_token = shown  # the last token a check found (a check tells only a new one)
    pending = None  # a token to tell once the gap is over
    try:
        release_request_thread()
        start = loop.time()
        found = await pooled(check)(again)
        if not found.allowed:
            yield changed(live.GONE)
            return
        yield BEAT
        if found.token is not None and found.token != checked_token:
            checked_token = pending = found.token
        told_at = start - gap
        next_beat = start + beat
        next_check = min(next_beat, start + found.soon if found.soon is not None else NEVER)
        while True:
            now = loop.time()
            if pending is not None and now >= told_at + gap:
                last, pending, told_at = pending, None, now
                yield changed(last)
                continue
            wake = next_check if pending is None else min(next_check, told_at + gap)
            token = None
            if wake > now:
                try:
                    async with asyncio.timeout(wake - now):
                        token = await queue.get()
                except TimeoutError:
                    token = None
            if token is LOST:
                return  # Redis went away: the page polls until it gets a stream again
            if token is not None:
                if token != last:
                    pending = token
                continue
            if loop.time() < next_check:
                continue
            found = await pooled(check)(again)
            if not found.allowed:
                yield changed(live.GONE)
                return
            if found.token is not None and found.token != checked_token:
                checked_token = pending = found.token
            now = loop.time()
            if now >= next_beat:
                yield BEAT
                next_beat = now + beat
            next_check = min(next_beat, now + found.soon if found.soon is not None else NEVER)
    except Exception:
        # The database went away (or Redis did): the stream ends; the page hears nothing
        # and polls until it gets a stream again.
        logger.warning("the stream on %s ended", channel, exc_info=True)
    finally:
        await hub().leave(channel, queue)


@stream_view
async def stream(request, public_id):
    viewer = await db_released(viewer_of)(request, public_id)
    if not presenters.streams_here(request):
        return HttpResponse(status=204)
    if request.method == "HEAD":  # a monitor's check: the stream's headers, no stream
        return HttpResponse(content_type=EVENT_STREAM)
    shown = request.GET.get("v", "")[:40]
    first = [True]

    def check(again: Revisit) -> Check:
        if first[0]:  # at connect: the board's current token (a change since the page)
            first[0] = False
            return Check(token=current_token(viewer.pk))
        return Check(allowed=still_allowed(again.request(), viewer))

    return await serve(request, live.channel(public_id), shown, check)
