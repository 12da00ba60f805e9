"""Django's Redis cache, made to survive a Redis outage.

The cache holds nothing that cannot be lost: cached sessions (their rows are in the
database), sign-in and log-in counters, rate limits. While Redis is down every cache call
answers as a miss (and writes do nothing) instead of raising, so pages keep working from the
database and no request answers 500 (tests/reliability/test_faults.py stops Redis mid-game).
Counters start again from zero while it is down: the lockouts are softer for that time.

One decorator, ``survives``, wraps each of Django's client methods with the answer it gives
while Redis is down (what a miss gives: ``get`` the default, ``add`` False, ``incr`` the delta
as if counting from zero, writes nothing). Django's own client is used otherwise, with no
private API.
"""

import functools
import logging
import threading

import redis
from django.core.cache.backends.redis import RedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def survives(method, answer=None):
    """``method`` of the cache client, answering ``answer`` (a value, or a function of the
    call's arguments) instead of raising while Redis is unavailable."""

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except RedisError as exc:
            logger.warning("cache %s failed (Redis unavailable?): %s", method.__name__, exc)
            return answer(*args, **kwargs) if callable(answer) else answer

    return wrapped


# Django's client method -> what it answers while Redis is down.
OUTAGE_ANSWERS = {
    "add": False,
    "get": lambda key, default: default,
    "set": None,
    "touch": False,
    "delete": False,
    "get_many": lambda keys: {},
    "has_key": False,
    "incr": lambda key, delta: delta,
    "set_many": None,
    "delete_many": None,
    "clear": False,
}


class ResilientRedisCacheClient(RedisCacheClient):
    pass


class SharedConnectionPool(redis.BlockingConnectionPool):
    """One connection pool a process for each Redis URL (the cache's ``pool_class`` option).
    Under ASGI Django makes a cache object for each request (its context), and each would
    open a Redis connection of its own and leave it to the garbage collector; with this every
    request of the process borrows from the same pool, as the threads of a WSGI worker do.
    redis-py's pool is thread-safe and starts afresh in a forked child. A blocking pool: with
    its 100 connections in use, a request waits for one (up to 2 s, then the cache answers a
    miss) rather than failing at once, as a burst of boards connecting their streams would."""

    _shared: dict[str, redis.ConnectionPool] = {}
    _lock = threading.Lock()

    @classmethod
    def from_url(cls, url, **kwargs):
        with cls._lock:
            pool = cls._shared.get(url)
            if pool is None:
                kwargs.setdefault("timeout", 2)
                pool = cls._shared[url] = super().from_url(url, **kwargs)
            return pool


for _name, _answer in OUTAGE_ANSWERS.items():
    setattr(
        ResilientRedisCacheClient,
        _name,
        survives(getattr(RedisCacheClient, _name), _answer),
    )


class ResilientRedisCache(RedisCache):
    """Django's RedisCache with ``ResilientRedisCacheClient``, whose client is made once a
    process for each configuration and shared by the cache objects Django makes.

    Under ASGI Django makes a cache object for each request (its context), and each made a
    client: with redis-py 7 the client's ``DriverInfo`` reads redis-py's version from its
    installed metadata (``importlib.metadata``, an email-format file parsed every time),
    which measured 8 % of a web process's CPU under the load test (docs/performance.md).
    The client keeps nothing of a request: its serializer, options and connection pools
    (``SharedConnectionPool``, itself one a process), so one is enough."""

    _clients: dict[tuple, RedisCacheClient] = {}
    _clients_lock = threading.Lock()

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ResilientRedisCacheClient

    @cached_property
    def _cache(self):
        key = (self._class, tuple(self._servers), repr(sorted(self._options.items())))
        with self._clients_lock:
            client = self._clients.get(key)
            if client is None:
                client = self._clients[key] = self._class(self._servers, **self._options)
        return client
