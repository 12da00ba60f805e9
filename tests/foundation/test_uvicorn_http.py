"""config.uvicorn_http: the connections uvicorn accepts on the socket it binds for its worker
processes (``--workers``) get Nagle's algorithm off (TCP_NODELAY), as asyncio's own servers'
connections do. Without it Django's answer waited up to 40 ms for the client's delayed
acknowledgement (docs/performance.md)."""

import asyncio
import socket

import pytest
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from config.uvicorn_http import NoDelayH11Protocol


async def _app(scope, receive, send):  # never called: no request is sent
    raise AssertionError("no request expected")


async def nodelay_of_an_accepted_connection(protocol_class) -> int:
    """Bind the listening socket as uvicorn's ``--workers`` mode does, serve it with
    ``protocol_class``, connect a client and read TCP_NODELAY of the server's side."""
    config = uvicorn.Config(_app, host="127.0.0.1", port=0, http=protocol_class, lifespan="off")
    config.load()
    listening = config.bind_socket()
    state = ServerState()
    accepted: asyncio.Future = asyncio.get_running_loop().create_future()

    class Recording(protocol_class):  # type: ignore[valid-type, misc]
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: Recording(config=config, server_state=state, app_state={}), sock=listening
    )
    try:
        port = listening.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return await asyncio.wait_for(accepted, 5)
        finally:
            writer.close()
    finally:
        server.close()
        for connection in list(state.connections):
            connection.shutdown()
        await server.wait_closed()


def test_uvicorn_workers_socket_leaves_nagle_on_with_the_plain_protocol():
    # The cause, kept as a test: if uvicorn or asyncio ever turn it off themselves, this fails
    # and config.uvicorn_http can go.
    if asyncio.run(nodelay_of_an_accepted_connection(H11Protocol)):
        pytest.skip("this uvicorn turns Nagle off on its own: config.uvicorn_http is not needed")


def test_our_protocol_turns_nagle_off_on_every_accepted_connection():
    assert asyncio.run(nodelay_of_an_accepted_connection(NoDelayH11Protocol)) != 0
