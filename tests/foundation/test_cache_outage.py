"""The cache while Redis is down (settings: django-redis with ``IGNORE_EXCEPTIONS``): every
call answers as a miss (or does nothing) instead of raising, each failure is logged, and the
code that counts in the cache (config/throttle.py) counts from zero again."""

import logging

import pytest
from django.core.cache import caches
from django_redis.cache import RedisCache

from config import throttle


def unreachable() -> RedisCache:
    # Port 9 on the loopback: nothing listens, the connection is refused at once.
    return RedisCache(
        "redis://127.0.0.1:9/0",
        {"OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.2}},
    )


def test_every_call_answers_as_a_miss_while_redis_is_down(caplog, settings):
    settings.DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
    cache = unreachable()
    with caplog.at_level(logging.ERROR, logger="django_redis.cache"):
        assert cache.get("k") is None
        assert cache.get("k", "fallback") == "fallback"
        assert not cache.add("k", 1)
        assert cache.set("k", 1) is None
        assert not cache.delete("k")
        assert cache.get_many(["a", "b"]) == {}
        assert not cache.has_key("k")
        assert cache.incr("k", 3) is None
        cache.set_many({"a": 1})
        cache.delete_many(["a"])
        assert not cache.clear()
        assert cache.get_or_set("k", 5) == 5
    # Logged, every one (a miss, not a silent one: docs/reliability.md).
    assert len([r for r in caplog.records if r.getMessage() == "Exception ignored"]) >= 11
    # (django-redis 7's ``touch`` raises instead: nothing here calls it; the log-in lockout,
    # django-axes, keeps its counts in the database, not its cache handler.)


@pytest.fixture
def away(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
            "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.2},
        }
    }
    yield caches["default"]
    caches["default"].close()


def test_the_guessing_limit_counts_from_zero_while_redis_is_down(away, rf):
    """The tries are counted in the cache: with Redis away a try is taken as the first one
    (the limit is softer meanwhile, never a 500, never a lock-out)."""
    request = rf.get("/join/", REMOTE_ADDR="10.9.8.7")
    for _ in range(throttle.LIMITS["class"] + 5):
        keys = throttle.reserve_code_try(request, "class")
        assert keys
        throttle.give_back(keys)
