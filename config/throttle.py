"""Guessing family room codes: a room code (17⁶ codes; a right one offers an open seat of a
waiting family game) is short enough to type, so every room-code lookup from one network
address is cut off for the rest of a ten-minute window once that address has typed
``WRONG_CODE_LIMIT`` wrong codes in it (429 with a message). Counted in the cache (Redis in
production, so every web node shares the count; while Redis is down nothing is counted).

Class codes are deliberately not throttled by address: a whole school shares one address, and
one child mashing the keyboard must not stop the school signing in
(docs/classroom/child-sign-in.md); a class code only shows first names, and the teacher can
change it.
"""

import hashlib
import time

from django.conf import settings
from django.core.cache import cache

WRONG_CODE_LIMIT = 100
WRONG_CODE_WINDOW = 10 * 60  # seconds


KINDS = ("room",)


def _address_key(address: str, kind: str) -> str:
    window = int(time.time() // WRONG_CODE_WINDOW)
    return f"wrong-codes:{kind}:{window}:" + hashlib.sha256(address.encode()).hexdigest()[:32]


def client_address(request) -> str:
    """The address of the device's network. Behind ``settings.FORWARDED_HOPS`` proxies of our
    own (a load balancer: docs/deploy.md) that is the entry of ``X-Forwarded-For`` the first
    of them added, counted from the right (entries further left are whatever the client
    sent); with no proxy (the default), ``REMOTE_ADDR``."""
    hops = settings.FORWARDED_HOPS
    if hops > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= hops:
            return forwarded[-hops]
    return request.META.get("REMOTE_ADDR", "")


def _key(request, kind: str) -> str:
    return _address_key(client_address(request), kind)


def too_many_wrong_codes(request, kind: str) -> bool:
    """This address typed ``WRONG_CODE_LIMIT`` wrong codes of ``kind`` in this window."""
    return cache.get(_key(request, kind), 0) >= WRONG_CODE_LIMIT


def count_wrong_code(request, kind: str) -> None:
    """One more wrong code: ``add`` then ``incr``, atomic in Redis (parallel wrong codes are
    all counted; the old get-then-set lost counts)."""
    key = _key(request, kind)
    cache.add(key, 0, WRONG_CODE_WINDOW)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, WRONG_CODE_WINDOW)


def forget(address: str) -> None:
    """Lift this address's count of every kind (the tests start each test from zero)."""
    cache.delete_many([_address_key(address, kind) for kind in KINDS])
