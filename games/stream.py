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

Without push (no Redis, ``LIVE_PUSH`` off, or a WSGI server: ``presenters.pushed``) or with
Redis unreachable it answers 204 (after the
same authorization: a stranger still gets 404): there is no stream here, and the board polls as
it always did (a pushed board's own fallback, static/js/app.js)."""

import asyncio
import logging
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.db import connections
from django.http import Http404
from django.http import HttpResponse
from django.http import HttpResponseNotAllowed
from django.http import StreamingHttpResponse

from games import live
from games import presenters
from games.models import Match
from games.views import load_match
from games.views import mark_seen

logger = logging.getLogger(__name__)

BEAT = "event: beat\ndata: \n\n"


def changed(token: str) -> str:
    return f"event: changed\ndata: {token}\n\n"


def db_released(function):
    """``function`` run in the request's thread, then its database connection closed: a stream
    lives for minutes and must not hold a connection between its checks."""

    def run(*args):
        try:
            return function(*args)
        finally:
            for connection in connections.all(initialized_only=True):
                if not connection.in_atomic_block:
                    connection.close()

    return sync_to_async(run)


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


def still_allowed(request, viewer: Viewer) -> bool:
    """Whether a new request of this browser would still get this board: the session read
    again from its store, the user and the apps' seat keys again (``request.refresh_seat_keys``,
    docs/platform.md). A seat's ``last_seen_at`` is kept fresh here, as the poll does."""
    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(request.session.session_key)
    request.user = auth.get_user(request)
    refresh = getattr(request, "refresh_seat_keys", None)
    if refresh is not None:
        refresh()
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


async def subscribe(public_id):
    """A pub/sub on the match's channel, or None when Redis does not answer."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2)
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    try:
        await pubsub.subscribe(live.channel(public_id))
    except Exception:
        logger.warning("no stream for %s: Redis does not answer", public_id, exc_info=True)
        await pubsub.aclose()
        await client.aclose()
        return None
    return client, pubsub


async def events(request, viewer: Viewer, shown: str, client, pubsub):
    loop = asyncio.get_running_loop()
    beat = settings.LIVE_HEARTBEAT_SECONDS
    last = shown  # the token the board has, or was last told of: never told twice in a row
    try:
        token = await db_released(current_token)(viewer.pk)
        yield BEAT
        if token != last:
            last = token
            yield changed(token)
        next_beat = loop.time() + beat
        while True:
            wait = max(0.0, next_beat - loop.time())
            message = await pubsub.get_message(timeout=wait)
            if message is not None and message.get("type") == "message":
                data = message["data"]
                token = data.decode() if isinstance(data, bytes) else str(data)
                if token != last:
                    last = token
                    yield changed(token)
                continue
            if loop.time() < next_beat:
                continue
            if not await db_released(still_allowed)(request, viewer):
                yield changed(live.GONE)
                return
            yield BEAT
            next_beat = loop.time() + beat
    except Exception:
        # Redis went away (or the database did): the stream ends; the board hears nothing
        # and polls until it gets a stream again.
        logger.warning("the stream of %s ended", viewer.public_id, exc_info=True)
    finally:
        await pubsub.aclose()
        await client.aclose()


async def stream(request, public_id):
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    viewer = await db_released(viewer_of)(request, public_id)
    if not presenters.pushed(request):
        return HttpResponse(status=204)
    subscribed = await subscribe(public_id)
    if subscribed is None:
        return HttpResponse(status=204)
    client, pubsub = subscribed
    shown = request.GET.get("v", "")[:40]
    response = StreamingHttpResponse(
        events(request, viewer, shown, client, pubsub), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
