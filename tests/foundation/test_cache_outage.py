"""config/cache.py: with Redis unreachable, every cache call answers as a miss (or does
nothing) instead of raising, and a warning names the call."""

import logging

from config.cache import OUTAGE_ANSWERS
from config.cache import ResilientRedisCache


def unreachable():
    # Port 9 on the loopback: nothing listens, the connection is refused at once.
    return ResilientRedisCache(
        "redis://127.0.0.1:9/0", {"OPTIONS": {"socket_connect_timeout": 0.2}}
    )


def test_every_call_answers_as_a_miss_while_redis_is_down(caplog):
    cache = unreachable()
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        assert cache.get("k") is None
        assert cache.get("k", "fallback") == "fallback"
        assert cache.add("k", 1) is False
        assert cache.set("k", 1) is None
        assert cache.touch("k") is False
        assert cache.delete("k") is False
        assert cache.get_many(["a", "b"]) == {}
        assert cache.has_key("k") is False
        assert cache.incr("k", 3) == 3  # counting from zero again
        assert cache.set_many({"a": 1}) == []
        assert cache.delete_many(["a"]) is None
        assert cache.clear() is False
    failed = {r.getMessage().split()[1] for r in caplog.records}
    assert failed == set(OUTAGE_ANSWERS)


def test_the_cache_objects_of_a_process_share_one_client(monkeypatch):
    """Under ASGI Django makes a cache object a request; making each its own client read
    redis-py's installed metadata every time (config/cache.py). One client a configuration."""
    import redis.utils

    reads = []
    real = redis.utils.get_lib_version
    monkeypatch.setattr(redis.utils, "get_lib_version", lambda: reads.append(1) or real())
    params = {"OPTIONS": {"socket_connect_timeout": 0.2}}
    first = ResilientRedisCache("redis://127.0.0.1:9/5", params)._cache
    assert ResilientRedisCache("redis://127.0.0.1:9/5", params)._cache is first
    assert len(reads) == 1
    other = ResilientRedisCache("redis://127.0.0.1:9/6", params)._cache
    assert other is not first
    assert ResilientRedisCache("redis://127.0.0.1:9/5", {"OPTIONS": {}})._cache is not first
