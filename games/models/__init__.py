"""Matches, their seats and the append-only move log.

``Match.play`` is the one code path that applies a move: it locks the match, checks the
version (``moved_on_for``: has the board the form came from changed in a way that matters to
the seat?), asks the pure engine, stores the new state and the move, bumps the version and,
once the transaction commits, enqueues the follow-ups (bot turns, analytics).
"""

from .ids import PUBLIC_ID_ALPHABET
from .ids import RECENT_MOVES
from .ids import ROOM_CODE_ALPHABET
from .ids import ROOM_CODE_LENGTH
from .ids import SEEN_EVERY
from .ids import TIMEOUT_GRACE_SECONDS
from .ids import new_public_id
from .ids import new_room_code
from .ids import new_seed
from .ids import normalize_room_code
from .match import Match
from .match import MatchQuerySet
from .moves import IllegalMove
from .moves import Move
from .moves import MoveRejected
from .moves import NotYourTurn
from .moves import Played
from .moves import StaleVersion
from .seats import SEATS_WITH_MATCH
from .seats import Seat
from .seats import SeatQuerySet
from .seats import seen_lately

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
