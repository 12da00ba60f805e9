"""Django's ASGI handler, with each request's synchronous code on a thread kept for later
requests instead of a new thread per request.

Django's ``ASGIHandler`` runs every request inside ``asgiref``'s ``ThreadSensitiveContext()``:
the request's synchronous parts (the middleware that is not async, the view, the signals, the
response's ``close()``) run on one thread of their own, made for that request and ended after
it. Every request then pays for a new thread, and for everything Django keeps per thread:
a new database connection (the connection is the thread's, so ``CONN_MAX_AGE`` cannot keep it),
and the queries of ``config.prepared.PreparedQuery`` compiled again. Measured in process
(docs/performance.md, "Renders and moves profiled"), that was about half of the CPU of a
child's board request under uvicorn.

``asgiref`` (3.13) lets the caller give the context its executor
(``ThreadSensitiveContext(executor=...)``; the caller owns it and it is not shut down on exit).
This handler keeps a few single-thread executors: a request takes an idle one (or a new one
when all are busy), and gives it back when it ends. A request's synchronous code still runs on
one thread, never shared with another request at the same time; only the thread, its database
connection (kept and checked as under a threaded WSGI server: ``CONN_MAX_AGE``,
``CONN_HEALTH_CHECKS``, ``close_old_connections`` at the start and end of each request) and its
compiled queries outlive the request. At most ``IDLE_THREADS`` idle threads are kept a process;
the threads of a burst beyond that end with their request (closing their connections first).
At most ``MAX_THREADS`` requests run on threads at once: one more waits in the event loop for
a thread, as a request waits for a worker thread under a WSGI server. Each thread may hold a
database connection, so a process holds at most ``MAX_THREADS`` of them for its requests (the
load test measured PostgreSQL refusing connections, "too many clients", when a burst of
sign-ins gave every request a thread of its own: docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing

from asgiref.sync import ThreadSensitiveContext
from django.core.handlers.asgi import ASGIHandler
from django.db import connections

# The paths of the live pages' streams (games.stream, classroom.streams): not on kept threads.
STREAM_SUFFIX = "/stream/"
# A stream's events, handed over by ``send_response`` to ``__call__`` (one list a stream call).
_handed_off: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "handed_off", default=None
)
# Idle request threads kept a process (each may keep a database connection: docs/deploy.md).
IDLE_THREADS = int(os.environ.get("ASGI_IDLE_THREADS", "8"))
# Request threads a process runs at once, at most: a request beyond them waits for one, as
# under a WSGI server's bounded thread pool. Each thread may hold a database connection, so
# this bounds a web process's connections (docs/deploy.md).
MAX_THREADS = int(os.environ.get("ASGI_MAX_THREADS", "12"))


class KeptThreadsASGIHandler(ASGIHandler):
    def __init__(self, idle_threads: int = IDLE_THREADS, max_threads: int = MAX_THREADS):
        super().__init__()
        self.idle_threads = min(idle_threads, max_threads)
        self.max_threads = max_threads
        self._idle: list[ThreadPoolExecutor] = []
        self._slots: asyncio.Semaphore | None = None
        self.busy = 0  # requests on a thread now (the tests read it)

    def slots(self) -> asyncio.Semaphore:
        # Made on first use, in the server's event loop (one loop a process).
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_threads)
        return self._slots

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # Each request in a context of its own. uvicorn may start a keep-alive connection's
        # next request in the context of the request before it (CPython issue 140947: the
        # connection's reader is registered again from that request's task), and with it
        # that request's asgiref ThreadSensitiveContext, exited: Django's handler then keeps
        # it ("only the outer-most sets the context") and its first thread-sensitive call
        # fails, "ThreadSensitiveContext has exited", a 500 (seen on the live wall's stream).
        # uvicorn's --reset-contextvars does the same for uvicorn alone; this is for any server.
        await asyncio.create_task(self.serve(scope, receive, send), context=contextvars.Context())

    async def serve(self, scope, receive, send) -> None:
        if scope.get("path", "").endswith(STREAM_SUFFIX):
            # A live page's stream stays open for minutes: Django answers its connect as any
            # request (on a thread of its own as under Django's handler, never a kept one),
            # and the stream's events are served here once that request has ended.
            await self.stream(scope, receive, send)
            return
        async with self.slots():
            # The event loop's thread alone takes and gives back: no lock needed.
            executor = (
                self._idle.pop()
                if self._idle
                else ThreadPoolExecutor(max_workers=1, thread_name_prefix="asgi-request")
            )
            self.busy += 1
            try:
                async with ThreadSensitiveContext(executor=executor):
                    await self.handle(scope, receive, send)
            finally:
                self.busy -= 1
                if len(self._idle) < self.idle_threads:
                    self._idle.append(executor)
                else:
                    executor.submit(connections.close_all)
                    executor.shutdown(wait=False)

    async def stream(self, scope, receive, send) -> None:
        """The hand-off. Django handles the connect (middleware, authorization, a 404 or a 204
        as any request); when its answer is a stream (``games.stream.StreamResponse``),
        ``send_response`` sends the headers and takes the events out, and Django's request
        ends: its request object, the handler's task group, the request's thread. Then the
        events are served here with only the ASGI connection and the generator (which holds
        the channel, the page's token and a ``games.stream.Revisit``), until the stream ends
        or the browser goes. What an open stream costs: docs/performance.md."""
        connect = super().__call__

        async def handled() -> list:
            taken: list = []
            _handed_off.set(taken)
            await connect(scope, receive, send)
            return taken

        # Django's part in a copy of the context, let go when it ends: Django and asgiref
        # keep per-request storage in context variables, which the stream does not need.
        taken = await asyncio.create_task(handled(), context=contextvars.copy_context())
        if taken:
            await serve_events(taken.pop(), receive, send)

    async def send_response(self, response, send):
        taken = _handed_off.get()
        take_events = getattr(response, "take_events", None)
        if taken is None or take_events is None:
            await super().send_response(response, send)
            return
        taken.append(take_events())

        async def start_only(message):  # the headers now (Django's encoding), the body later
            if message["type"] == "http.response.start":
                await send(message)

        await super().send_response(response, start_only)

    def close_idle(self) -> None:
        """End the idle threads, each closing its database connections first."""
        while self._idle:
            executor = self._idle.pop()
            executor.submit(connections.close_all).result()
            executor.shutdown()


class _Gone(Exception):
    pass


class _Ended(Exception):
    pass


async def serve_events(events, receive, send) -> None:
    """Send a handed-off stream's events (strings) until they end or the browser disconnects
    (then the generator is closed: its ``finally`` leaves the channel), as Django's handler
    serves a streaming response."""

    async def listen():
        while (await receive())["type"] != "http.disconnect":
            pass
        raise _Gone

    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(listen())
            async with aclosing(events):
                async for part in events:
                    body = part.encode() if isinstance(part, str) else bytes(part)
                    await send({"type": "http.response.body", "body": body, "more_body": True})
            await send({"type": "http.response.body"})
            raise _Ended
    except* (_Ended, _Gone, OSError):
        pass  # OSError: the server's send after the browser went (uvicorn's ClientDisconnected)


class SynchronousStack:
    """The last middleware (``MIDDLEWARE``): synchronous only, so that under ASGI Django runs
    the whole stack on the request's thread, as a WSGI server does.

    Django adapts each middleware to the mode of the one inside it. With an async-capable
    middleware innermost (django-axes, django-htmx, Django's own), the stack flips back to the
    event loop below our synchronous middleware (classroom/middleware.py), and every
    ``MiddlewareMixin`` middleware running there sends its ``process_request`` and
    ``process_response`` to the request's thread and back (``sync_to_async``), each a
    thread hop with its context copied both ways: about ten hops a request. With this one
    innermost, every middleware runs synchronously in the request's thread: one hop into it,
    one out to the handler, one for a synchronous view. It does nothing else; under WSGI it
    is one function call."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)
