"""Call Django's WSGI handler in process: the full middleware stack, no network, no test
client (no template instrumentation, no signal copies), timed around the server's work."""

from __future__ import annotations

import io
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass

from django.core import signals
from django.db import close_old_connections


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    ns: int  # server time: handler call, body iteration and close()


def call(
    handler, method: str, path: str, *, body: bytes = b"", headers=None, query: str = ""
) -> Response:
    environ = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "CONTENT_LENGTH": str(len(body)),
    }
    if body:
        environ["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    seen: dict = {}

    def start_response(status, response_headers, exc_info=None):
        seen["status"] = int(status.split(" ", 1)[0])
        seen["headers"] = {k.lower(): v for k, v in response_headers}

    start = time.perf_counter_ns()
    result = handler(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()  # request_finished: closes or keeps the DB connection, as a server does
    elapsed = time.perf_counter_ns() - start
    return Response(seen["status"], seen["headers"], content, elapsed)


@contextmanager
def keep_connection(enabled: bool):
    """Inside a test transaction the connection must survive the request (what Django's
    test client does too); a real run keeps the server's per-request connection handling."""
    if not enabled:
        yield
        return
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
