"""What the classroom's tests share."""

from pathlib import Path

import pytest

from classroom import error_kinds


def attempt_fields(student, a, b, answer, *, ms=2000, **fields) -> dict:
    """The fields of an Attempt of ``student`` at a × b: right or not and the kind of answer
    worked out from ``answer`` as the pipeline does; a missed one (None) has no time."""
    return {
        "student": student,
        "a": a,
        "b": b,
        "answer": answer,
        "correct": answer == a * b,
        "kind": error_kinds.classify(
            a, b, answer, context=fields.get("context", error_kinds.WARM_UP)
        ),
        "response_ms": None if answer is None else ms,
        **fields,
    }


@pytest.fixture
def worker(celery_routes_to_worker):
    """tests/conftest.py's real worker, every task of this process and of the worker itself
    on its queue (a computer's move in the worker ends the game and sends the statistics
    task). Its log."""
    return Path(__file__).resolve().parents[2] / "var" / f"{celery_routes_to_worker}.log"


@pytest.fixture
def cache_away(settings):
    """The production cache backend pointed at a Redis that is not there (every call fails
    fast and answers as a miss), sessions in the database: the limits must hold without it."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 0.2,
                "SOCKET_TIMEOUT": 0.2,
            },
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
