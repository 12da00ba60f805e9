"""Matches, their seats and the append-only move log.

``Match.play`` is the one code path that applies a move: it locks the match, checks the
version (``moved_on_for``: has the board the form came from changed in a way that matters to
the seat?), asks the pure engine, stores the new state and the move, bumps the version and,
once the transaction commits, enqueues the follow-ups (bot turns, analytics).
"""

from .ids import (
    PUBLIC_ID_ALPHABET,
    RECENT_MOVES,
    ROOM_CODE_ALPHABET,
    ROOM_CODE_LENGTH,
    SEEN_EVERY,
    TIMEOUT_GRACE_SECONDS,
    new_public_id,
    new_room_code,
    new_seed,
    normalize_room_code,
)
from .match import Match, MatchQuerySet
from .moves import IllegalMove, Move, MoveRejected, NotYourTurn, Played, StaleVersion
from .seats import SEATS_WITH_MATCH, Seat, SeatQuerySet, seen_lately

__all__ = [
    "PUBLIC_ID_ALPHABET",
    "RECENT_MOVES",
    "ROOM_CODE_ALPHABET",
    "ROOM_CODE_LENGTH",
    "SEATS_WITH_MATCH",
    "SEEN_EVERY",
    "TIMEOUT_GRACE_SECONDS",
    "IllegalMove",
    "Match",
    "MatchQuerySet",
    "Move",
    "MoveRejected",
    "NotYourTurn",
    "Played",
    "Seat",
    "SeatQuerySet",
    "StaleVersion",
    "new_public_id",
    "new_room_code",
    "new_seed",
    "normalize_room_code",
    "seen_lately",
]
