"""Helpers of the live (push) tests: a stream read through Django's ASGI test client, a
scenario run on an event loop of its own thread, and uvicorn in a thread for the browser."""

import asyncio
import socket
import threading
import time

from django.db import connections
from django.test import AsyncClient

BEAT = "event: beat\ndata: \n\n"


def changed(token):
    return f"event: changed\ndata: {token}\n\n"


class Stream:
    def __init__(self, session_key=""):
        self.client = AsyncClient()
        if session_key:
            self.client.cookies["sessionid"] = session_key

    async def open(self, url):
        self.response = await self.client.get(url)
        if self.response.streaming:
            self.chunks = aiter(self.response.streaming_content)
        return self.response

    async def next(self, timeout=3.0) -> str:
        chunk = await asyncio.wait_for(anext(self.chunks), timeout)
        return chunk.decode() if isinstance(chunk, bytes) else chunk

    async def next_changed(self, timeout=3.0) -> str:
        """The next ``changed`` (heartbeats skipped): its token."""
        deadline = time.monotonic() + timeout
        while True:
            event = await self.next(max(0.01, deadline - time.monotonic()))
            if event.startswith("event: changed"):
                return event.split("data: ", 1)[1].strip()

    async def ended(self, timeout=3.0) -> bool:
        deadline = time.monotonic() + timeout
        try:
            while True:  # heartbeats may come first
                await asyncio.wait_for(anext(self.chunks), max(0.01, deadline - time.monotonic()))
        except StopAsyncIteration:
            return True
        except TimeoutError:
            return False

    async def close(self):
        if self.response.streaming:
            await self.chunks.aclose()


def run(coroutine):
    """Run the scenario on an event loop of its own thread (the browser tests leave
    Playwright's loop running in the main one); its database work runs in other threads too
    (committed data, hence transactional tests)."""
    outcome = {}

    def target():
        try:
            if asyncio.iscoroutinefunction(coroutine):
                outcome["value"] = asyncio.run(coroutine())
            else:
                outcome["value"] = coroutine()
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the scenario did not end"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def asgi_get(session_key, url):
    """GET through the ASGI handler (as uvicorn serves it), the body read whole."""

    async def get():
        client = AsyncClient()
        if session_key:
            client.cookies["sessionid"] = session_key
        response = await client.get(url)
        assert not response.streaming
        return response

    return run(get)


class AsgiServer:
    """uvicorn in a thread of this process (so the test's settings apply), on a free port."""

    def __init__(self):
        import uvicorn
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
        from django.core.asgi import get_asgi_application

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            ASGIStaticFilesHandler(get_asgi_application()),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=1,
            reset_contextvars=True,  # as the stream server runs (config/asgi.py)
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(5)
