"""What an open stream costs the web process (docs/performance.md, "Boards by push").

One uvicorn process (the stream server, ``config.asgi``: Django's ASGI handler; one worker,
``CONN_MAX_AGE=0``, ``DEBUG`` off) on this run's DATABASE_URL and REDIS_URL, and a small
asyncio client on the same machine that opens ``--streams`` streams of one seat at once (a
board: ``/play/<id>/stream/``; ``--kind wall``: a teacher's live wall), reads the first
heartbeat of each, waits ``--hold`` seconds (every stream's heartbeat check runs at least
once), then publishes one token on the channel and times its arrival on every stream.
Reported: the process's RSS before and after, per stream; its threads; its Redis and
PostgreSQL connections (its sockets to those ports); the fan-out p50 and max; the time to
open them all.

    DATABASE_URL=postgres://… REDIS_URL=redis://… python -m bench.streams --streams 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def board_fixture() -> tuple[str, str, str]:
    """A two-guest match and Ben's session: (stream path, session key, channel)."""
    from django.contrib.sessions.backends.cached_db import SessionStore

    from games import live
    from games.models import Match
    from games.models import Seat

    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "bench-ana"},
            {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "bench-ben"},
        ],
    )
    session = SessionStore()
    session["player_key"] = "bench-ben"
    session.save()
    path = f"/play/{match.public_id}/stream/?v={match.poll_token}"
    return path, session.session_key, live.channel(match.public_id)


def wall_fixture() -> tuple[str, str, str]:
    """A teacher's class with one session: (the wall's stream path, session key, channel)."""
    import secrets

    from django.contrib.auth import BACKEND_SESSION_KEY
    from django.contrib.auth import HASH_SESSION_KEY
    from django.contrib.auth import SESSION_KEY
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.urls import reverse
    from django.utils import timezone

    from classroom import live as class_live
    from classroom.models import Assignment
    from classroom.models import Classroom
    from classroom.models import School
    from classroom.views.sessions import wall_version

    tag = secrets.token_hex(3)
    school = School.objects.create(name=f"Bench {tag}")
    teacher = get_user_model().objects.create_user(f"bench-{tag}", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    Assignment.objects.create(
        classroom=classroom, created_by=teacher, title="T", opens_at=timezone.now()
    )
    session = SessionStore()
    session[SESSION_KEY] = str(teacher.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = teacher.get_session_auth_hash()
    session.save()
    path = reverse("classroom:wall_stream", args=[classroom.pk]) + f"?v={wall_version(classroom)}"
    return path, session.session_key, class_live.wall_channel(classroom.pk)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def sockets_to(pid: int, port: int) -> int:
    """The process's TCP connections to ``port`` (its Redis or PostgreSQL clients)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            if remote_port == port and fields[9] in inodes:
                count += 1
    return count


async def open_stream(port: int, path: str, session_key: str):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: sessionid={session_key}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
    if b" 200 " not in head.split(b"\r\n", 1)[0]:
        raise RuntimeError(f"stream answered {head[:200]!r}")
    await asyncio.wait_for(reader.readuntil(b"event: beat"), 60)
    return reader, writer


async def until_changed(reader, started: float) -> float:
    await reader.readuntil(b"event: changed")
    return time.perf_counter() - started


async def measure(port: int, pid: int, path: str, session_key: str, channel: str, args) -> dict:
    import redis.asyncio as aioredis
    from django.conf import settings

    # Warm up: the first streams load the code paths (imports, compiled templates) and grow
    # the process's pools to what a batch needs (the cache's Redis connections, the stream
    # threads): one batch opened at once, held past a heartbeat check, and closed.
    batch = args.batch or args.streams
    warm = await asyncio.gather(
        *(open_stream(port, path, session_key) for _ in range(min(batch, 10)))
    )
    for _reader, writer in warm:
        writer.close()
    await asyncio.sleep(2)
    before = {"rss": rss_kib(pid), "threads": threads(pid)}
    before["redis"], before["postgres"] = sockets_to(pid, 6379), sockets_to(pid, 5432)
    started = time.perf_counter()
    streams = []
    while len(streams) < args.streams:
        n = min(batch, args.streams - len(streams))
        streams += await asyncio.gather(*(open_stream(port, path, session_key) for _ in range(n)))
    opened = time.perf_counter() - started
    await asyncio.sleep(args.hold)
    after = {"rss": rss_kib(pid), "threads": threads(pid)}
    after["redis"], after["postgres"] = sockets_to(pid, 6379), sockets_to(pid, 5432)
    client = aioredis.Redis.from_url(settings.REDIS_URL)
    sent = time.perf_counter()
    waits = [asyncio.create_task(until_changed(reader, sent)) for reader, _w in streams]
    await client.publish(channel, "bench-token")
    arrivals = await asyncio.wait_for(asyncio.gather(*waits), 60)
    await client.aclose()
    for _reader, writer in streams:
        writer.close()
    return {
        "kind": args.kind,
        "streams": args.streams,
        "batch": batch,
        "rss_before_mib": round(before["rss"] / 1024, 1),
        "rss_after_mib": round(after["rss"] / 1024, 1),
        "per_stream_kib": round((after["rss"] - before["rss"]) / args.streams, 1),
        "threads_before_after": [before["threads"], after["threads"]],
        "redis_connections_before_after": [before["redis"], after["redis"]],
        "postgres_connections_while_open": after["postgres"],
        "fan_out_p50_ms": round(statistics.median(arrivals) * 1000, 1),
        "fan_out_max_ms": round(max(arrivals) * 1000, 1),
        "open_all_s": round(opened, 2),
    }


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--hold", type=float, default=20.0)
    parser.add_argument("--kind", choices=("board", "wall"), default="board")
    parser.add_argument(
        "--batch", type=int, default=0, help="open this many at once (default: all at once)"
    )
    args = parser.parse_args(argv)
    if not os.environ.get("REDIS_URL") or not os.environ.get("DATABASE_URL"):
        print("Set DATABASE_URL (PostgreSQL) and REDIS_URL.", file=sys.stderr)
        return 2
    os.environ.update({"CONN_MAX_AGE": "0", "DEBUG": "0", "LIVE_PUSH": "1"})
    setup()
    path, session_key, channel = (board_fixture if args.kind == "board" else wall_fixture)()
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Its own process group: stopped by its own pid, nothing else.
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--reset-contextvars",
         "--port", str(port), "--no-access-log", "--log-level", "warning",
         "--timeout-graceful-shutdown", "2"],
        cwd=REPO, env=env, start_new_session=True,
    )  # fmt: skip
    try:
        import urllib.request

        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except urllib.error.HTTPError:
                break  # up (a 503 health is still an answer)
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("uvicorn did not start") from None
                time.sleep(0.3)
        result = asyncio.run(measure(port, server.pid, path, session_key, channel, args))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
