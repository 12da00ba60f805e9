"""Ids, codes and seeds of matches, and the platform's small constants."""

import secrets

# The last moves whose public events a match keeps for its board's "What just happened" (a
# computer's turn in a card game can be several moves: a combo, then each Plus card taken).
RECENT_MOVES = 16
PUBLIC_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
# Room codes are read aloud and typed on a phone: capital letters only, none that look or
# sound alike (no I/L, O/Q, B, S, Z, V/U...).
ROOM_CODE_ALPHABET = "ACDEFGHJKMNPRTWXY"
ROOM_CODE_LENGTH = 6
# A seat's last_seen_at is written at most this often (seconds).
SEEN_EVERY = 15
# A person's "anyone?" window passes by itself on their open page after 20 s; with the page
# closed, the worker passes for them this long after the last change (games.tasks).
TIMEOUT_GRACE_SECONDS = 45


def new_public_id() -> str:
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(10))


def new_room_code() -> str:
    return "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def normalize_room_code(text: str) -> str:
    """What a person typed ("acd-efg ", "ACDEFG") as a stored code."""
    return "".join(ch for ch in (text or "").upper() if ch.isalnum())[: ROOM_CODE_LENGTH * 2]


def new_seed() -> int:
    return secrets.randbelow(2**31)
