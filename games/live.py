"""Live boards: every change of a board's token is published, once committed, on the match's
Redis channel, and each board's stream (``games.stream``) passes it on as a server-sent
event. A message is the new token only ("changed": the board fetches itself, as its poll
does), never a card or a name. A leaf module: no model import at import time.

Only the model methods that change a token call ``board_changed`` / ``boards_changed``
(``Match.save_board``, ``MatchQuerySet.update_boards``): tests/games/test_live_publish.py lists
them and fails on a write of a token's field anywhere else."""

import logging
from urllib.parse import urlparse

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

# The token sent for a match that no longer exists (an expired family room): never a board's.
GONE = "gone"

_client = None


def named(kind: str, key) -> str:
    """A channel of this site. Redis's channels are shared by all its databases, so the name
    carries REDIS_URL's database number (two sites on one Redis never hear each other)."""
    path = urlparse(settings.REDIS_URL).path.strip("/") or "0"
    return f"mp:{path}:{kind}:{key}"


def channel(public_id: str) -> str:
    """The match's channel."""
    return named("board", public_id)


def client():
    global _client
    if _client is None:
        import redis

        _client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2
        )
    return _client


def publish(name: str, token: str) -> bool:
    """Publish ``token`` on the channel ``name`` now; a Redis outage is logged and never fails
    the change (pages still poll)."""
    try:
        client().publish(name, token)
        return True
    except Exception:
        logger.warning("could not publish on %s", name, exc_info=True)
        return False


def send(public_id: str, token: str) -> bool:
    return publish(channel(public_id), token)


def told(public_ids) -> None:
    """The apps on the platform hear which boards were published (``signals.boards_published``:
    the classroom tells the live walls of their classes)."""
    from games import signals

    try:
        signals.boards_published.send(sender=None, public_ids=list(public_ids))
    except Exception:
        logger.warning("a receiver of boards_published failed", exc_info=True)


def board_changed(match) -> None:
    """Publish ``match``'s token as it is now, once the transaction commits."""
    if not settings.LIVE_PUSH:
        return
    public_id, token = match.public_id, match.poll_token

    def publish_it():
        send(public_id, token)
        told([public_id])

    transaction.on_commit(publish_it)


def boards_changed(public_ids) -> None:
    """Publish the committed tokens of these matches once the transaction commits (``GONE``
    for a match deleted meanwhile)."""
    ids = list(dict.fromkeys(public_ids))
    if not settings.LIVE_PUSH or not ids:
        return
    transaction.on_commit(lambda: send_current(ids))


def send_current(public_ids) -> None:
    from games.models import Match

    rows = Match.objects.filter(public_id__in=public_ids).values_list(
        "public_id", "version", "paused_at", "seating", "status"
    )
    tokens = {row[0]: Match.board_token(*row[1:]) for row in rows}
    for public_id in public_ids:
        send(public_id, tokens.get(public_id, GONE))
    told(public_ids)
