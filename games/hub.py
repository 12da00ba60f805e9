"""One Redis subscriber a process for every open stream (docs/platform.md, "Live updates").

Each stream used to open a Redis connection of its own for its channel. Here the process has
one ``redis.asyncio`` pub/sub connection (one an event loop: uvicorn runs one a process), a
reader task that hands every message to the mailboxes of the streams listening on its channel,
and a count of listeners a channel (the channel is subscribed while one listens). A stream
costs a ``Mailbox``, not a connection and a parser's buffers.

When the last stream leaves, the connection is closed (an idle process holds none). If Redis
goes away, every listening queue gets ``LOST`` and the streams end (the boards poll until they
get a stream again, which connects afresh)."""

import asyncio
import contextvars
import logging
import weakref

from django.conf import settings

logger = logging.getLogger(__name__)

LOST = object()  # put on every queue when the shared connection fails


class Mailbox:
    """A stream's queue of tokens: a list and one future to wait on (an ``asyncio.Queue``
    holds four deques, about 3 KiB a stream, for the same work)."""

    __slots__ = ("tokens", "waiter")

    def __init__(self):
        self.tokens: list = []
        self.waiter: asyncio.Future | None = None

    def put_nowait(self, token) -> None:
        self.tokens.append(token)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def get(self):
        while not self.tokens:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        return self.tokens.pop(0)


class Hub:
    def __init__(self):
        self.lock = asyncio.Lock()
        self.queues: dict[str, set[Mailbox]] = {}
        self.client = None
        self.pubsub = None
        self.reader: asyncio.Task | None = None

    async def listen(self, channel: str) -> Mailbox | None:
        """A queue of the tokens published on ``channel`` from now on; None when Redis does
        not answer. Run in a context of its own: what the subscription leaves behind (the
        connection's socket callbacks, its reader task, a timer the Redis client cancels but
        the event loop keeps until it is due) would otherwise keep a copy of the caller's
        context, and with it the request of the stream that connects (its context variables
        hold the request's state)."""
        return await asyncio.create_task(self._listen(channel), context=contextvars.Context())

    async def _listen(self, channel: str) -> Mailbox | None:
        async with self.lock:
            try:
                if self.pubsub is None:
                    await self._connect()
                listeners = self.queues.setdefault(channel, set())
                if not listeners:
                    await self.pubsub.subscribe(channel)
            except Exception:
                logger.warning("no stream on %s: Redis does not answer", channel, exc_info=True)
                self.queues.pop(channel, None)
                await self._close_if_idle(force=True)
                return None
            queue = Mailbox()
            listeners.add(queue)
            return queue

    async def leave(self, channel: str, queue: Mailbox) -> None:
        async with self.lock:
            listeners = self.queues.get(channel)
            if listeners is None:
                return
            listeners.discard(queue)
            if not listeners:
                del self.queues[channel]
                if self.pubsub is not None and self.queues:
                    try:
                        await self.pubsub.unsubscribe(channel)
                    except Exception:
                        logger.warning("could not unsubscribe %s", channel, exc_info=True)
            await self._close_if_idle()

    async def _connect(self) -> None:
        import redis.asyncio as aioredis

        self.client = aioredis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=2, health_check_interval=30
        )
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.ping()  # connects now: an unreachable Redis fails here
        self.reader = asyncio.create_task(self._read(self.pubsub))

    async def _read(self, pubsub) -> None:
        try:
            while True:
                message = await pubsub.get_message(timeout=1.0)
                if message is None or message.get("type") != "message":
                    continue
                channel = message["channel"]
                channel = channel.decode() if isinstance(channel, bytes) else str(channel)
                data = message["data"]
                token = data.decode() if isinstance(data, bytes) else str(data)
                for queue in self.queues.get(channel, ()):
                    queue.put_nowait(token)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.warning("the shared Redis subscription failed", exc_info=True)
            async with self.lock:
                if self.pubsub is pubsub:  # still ours: every stream ends, the next connects
                    for listeners in self.queues.values():
                        for queue in listeners:
                            queue.put_nowait(LOST)
                    self.queues.clear()
                    self.reader = None  # this task: not cancelled by the close below
                    await self._close_if_idle(force=True)

    async def _close_if_idle(self, force=False) -> None:
        if self.queues and not force:
            return
        reader, pubsub, client = self.reader, self.pubsub, self.client
        self.reader = self.pubsub = self.client = None
        if reader is not None:
            reader.cancel()
        for closing in (pubsub, client):
            if closing is not None:
                try:
                    await closing.aclose()
                except Exception:
                    logger.debug("closing the shared subscription", exc_info=True)

    def listening(self) -> int:
        return sum(len(q) for q in self.queues.values())


_hubs: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub]" = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """This event loop's hub (uvicorn: the process's)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found
