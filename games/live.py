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


def channel(public_id: str) -> str:
    """The match's channel. Redis's channels are shared by all its databases, so the name
    carries REDIS_URL's database number (two sites on one Redis never hear each other)."""
    path = urlparse(settings.REDIS_URL).path.strip("/") or "0"
    return f"mp:{path}:board:{public_id}"


def client():
    global _client
    if _client is None:
        import redis

        _client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2
        )
    return _client


def send(public_id: str, token: str) -> bool:
    """Publish now; a Redis outage is logged and never fails the change (boards still poll)."""
    try:
        client().publish(channel(public_id), token)
        return True
    except Exception:
        logger.warning("could not publish the board of %s", public_id, exc_info=True)
        return False


def board_changed(match) -> None:
    """Publish ``match``'s token as it is now, once the transaction commits."""
    if not settings.LIVE_PUSH:
        return
    public_id, token = match.public_id, match.poll_token
    transaction.on_commit(lambda: send(public_id, token))


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
