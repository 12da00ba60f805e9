"""Guessing codes from one network. A family room code (17⁶ codes; a right one offers an open
seat of a waiting family game) and a class code (25⁷ codes, 25⁶ for classes made before codes
grew; a right one shows the class's first names and its picture sign-in) are short enough to
type, so every lookup of that kind from one network is cut off for the rest of a ten-minute
window once the network has typed ``LIMITS[kind]`` wrong codes in it (429 with a message; a
right code too: that is what stops a guesser). A network is an IPv4 address or an IPv6 /64
(``client_network``): one home or office gets a /64, so a client cannot dodge the count by
taking a new address inside it. Counted in the cache (Redis in production, so every web node
shares the count; while Redis is down nothing is counted).

A whole school reaches us through one address, so a limit must be far above what a school does:
only **well-formed** wrong class codes count (the right length, every character in the code
alphabet: what a guesser sends), not a child's keyboard mashing, and 60 of them in ten minutes
is many times a school's typos at the start of a lesson (docs/classroom/child-sign-in.md, "The
arithmetic"). And a device a class has used (the caller passes its ``device`` key) is counted
on its own, not with its network: someone at the school who types wrong codes on purpose uses
up the network's count for new devices, never the class's Chromebooks'.
"""

import contextlib
import hashlib
import ipaddress
import time

from django.conf import settings
from django.core.cache import cache

WRONG_CODE_WINDOW = 10 * 60  # seconds
LIMITS = {"room": 100, "class": 60}  # wrong codes of each kind, a network and window
KINDS = tuple(LIMITS)
# All the devices of one network that classes have signed in on share this many times the
# limit: a school's Chromebooks type a handful of wrong codes, and one who types wrong codes
# on purpose must do it on five of them to stop the others; a guesser who makes devices
# known (a class of their own, a child signed in on each) gets at most 1 + 5 times the tries
# of one network (docs/classroom/child-sign-in.md, "The arithmetic").
KNOWN_DEVICES_TIMES = 5


def _window() -> int:
    return int(time.time() // WRONG_CODE_WINDOW)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _network_key(network: str, kind: str) -> str:
    return f"wrong-codes:{kind}:{_window()}:{_digest(network)}"


def _known_key(network: str, kind: str) -> str:
    return f"wrong-codes:{kind}:known:{_window()}:{_digest(network)}"


def _device_key(device: str, kind: str) -> str:
    return f"wrong-codes:{kind}:device:{_window()}:{_digest(device)}"


def network_of(address: str) -> str:
    """The network an address counts as, written as one IP address (django-axes stores it in
    an address column): an IPv4 address itself, an IPv6 address's /64 as the /64's first
    address (a provider gives one household or phone a whole /64: counting single IPv6
    addresses would give one client 2⁶⁴ counts; an IPv4 address mapped into IPv6 counts as
    the IPv4 address); anything that is not an address, as it is."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False).network_address)
    return str(ip)


def client_network(request) -> str:
    """The network of this request's client (``network_of(client_address(request))``)."""
    return network_of(client_address(request))


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


def _take(key: str, limit: int) -> bool:
    """Count one try under ``key``; False (and nothing counted) once ``limit`` are taken."""
    cache.add(key, 0, WRONG_CODE_WINDOW)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, WRONG_CODE_WINDOW)
        count = 1
    if count is None:  # Redis away (the cache answers nothing): counting from zero again
        count = 1
    if count > limit:
        _untake(key)
        return False
    return True


def _untake(key: str) -> None:
    with contextlib.suppress(ValueError):  # the window ended meanwhile
        cache.decr(key)


def reserve_code_try(request, kind: str, device: str | None = None) -> tuple[str, ...] | None:
    """Take one of this network's tries of ``kind`` before looking the code up, or None when
    its wrong codes used them up in this window. Counted first (``add`` then ``incr``, atomic
    in Redis), so parallel requests cannot all pass a check made before any of them counted:
    at most ``LIMITS[kind]`` lookups are ever in flight or wrong. A try that was not a wrong
    code is given back (``give_back``). The returned value names the counts taken.

    ``device``: the key of a device the caller trusts (one a class has signed in on). Its tries
    are counted on their own, ``LIMITS[kind]`` for the device and ``KNOWN_DEVICES_TIMES``
    times that for all such devices of its network, never with the network's other tries:
    someone at the school typing wrong codes on a new device stops new devices only, and
    nobody multiplies the limit by making devices known."""
    network = network_of(client_address(request))
    if device:
        counts = (
            (_device_key(device, kind), LIMITS[kind]),
            (_known_key(network, kind), LIMITS[kind] * KNOWN_DEVICES_TIMES),
        )
    else:
        counts = ((_network_key(network, kind), LIMITS[kind]),)
    taken: list[str] = []
    for key, limit in counts:
        if not _take(key, limit):
            give_back(tuple(taken))
            return None
        taken.append(key)
    return tuple(taken)


def give_back(keys: tuple[str, ...]) -> None:
    """The try was a right code (or not a code at all): it does not count."""
    for key in keys:
        _untake(key)


def forget(address: str = "", device: str = "") -> None:
    """Lift this address's network's count, or this device's, of every kind (the tests start
    each test from zero)."""
    keys = []
    for kind in KINDS:
        if address:
            network = network_of(address)
            keys += [_network_key(network, kind), _known_key(network, kind)]
        if device:
            keys.append(_device_key(device, kind))
    cache.delete_many(keys)
