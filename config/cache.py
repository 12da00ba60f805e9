"""Django's Redis cache, made to survive a Redis outage.

The cache holds nothing that cannot be lost: cached sessions (their rows are in the
database), sign-in and log-in counters, rate limits. While Redis is down every cache call
answers as a miss (and writes do nothing) instead of raising, so pages keep working from the
database and no request answers 500 (tests/reliability/test_faults.py stops Redis mid-game).
Counters start again from zero while it is down: the lockouts are softer for that time.
"""

import logging

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def _outage(name: str, exc: Exception) -> None:
    logger.warning("cache %s failed (Redis unavailable?): %s", name, exc)


class ResilientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        """One ``redis.Redis`` per connection pool, made once: Django's client builds a new one
        for every call (about 0.1 ms each, on every request that reads its session). The
        object is only a front for its pool, which hands out the connections; Django keeps a
        cache object, so this client, per thread."""
        pool = self._get_connection_pool(write)  # the index may be random (read replicas)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client

    def add(self, key, value, timeout):
        try:
            return super().add(key, value, timeout)
        except RedisError as exc:
            _outage("add", exc)
            return False

    def get(self, key, default):
        try:
            return super().get(key, default)
        except RedisError as exc:
            _outage("get", exc)
            return default

    def set(self, key, value, timeout):
        try:
            super().set(key, value, timeout)
        except RedisError as exc:
            _outage("set", exc)

    def touch(self, key, timeout):
        try:
            return super().touch(key, timeout)
        except RedisError as exc:
            _outage("touch", exc)
            return False

    def delete(self, key):
        try:
            return super().delete(key)
        except RedisError as exc:
            _outage("delete", exc)
            return False

    def get_many(self, keys):
        try:
            return super().get_many(keys)
        except RedisError as exc:
            _outage("get_many", exc)
            return {}

    def has_key(self, key):
        try:
            return super().has_key(key)
        except RedisError as exc:
            _outage("has_key", exc)
            return False

    def incr(self, key, delta):
        try:
            return super().incr(key, delta)
        except RedisError as exc:
            _outage("incr", exc)
            return delta

    def set_many(self, data, timeout):
        try:
            super().set_many(data, timeout)
        except RedisError as exc:
            _outage("set_many", exc)

    def delete_many(self, keys):
        try:
            super().delete_many(keys)
        except RedisError as exc:
            _outage("delete_many", exc)

    def clear(self):
        try:
            return super().clear()
        except RedisError as exc:
            _outage("clear", exc)
            return False


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ResilientRedisCacheClient
