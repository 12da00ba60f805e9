"""uvicorn's HTTP/1.1 protocol with Nagle's algorithm off on every connection.

asyncio turns Nagle off (``TCP_NODELAY``) on the connections of a server it opens itself, but
only on sockets created with the TCP protocol number; the listening socket uvicorn opens for
its worker processes (``--workers``, ``Config.bind_socket``) is created without it, so the
connections it accepts keep Nagle on. Django's answer goes out in two writes (the headers,
then the body): with Nagle on, the body waits until the client acknowledges the headers, and
a client that delays its acknowledgements (Linux: up to 40 ms) delays every such answer. The
load test measured it on a place move (p50 59 ms against 22 ms for the other moves, with
Django's own time the same for all three: docs/performance.md).

Run uvicorn with ``--http config.uvicorn_http:NoDelayH11Protocol`` (docs/deploy.md)."""

import contextlib
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol


def no_delay(transport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        # OSError: the connection is already gone, nothing to send on.
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayH11Protocol(H11Protocol):
    def connection_made(self, transport) -> None:
        no_delay(transport)
        super().connection_made(transport)
