from datetime import timedelta

import pytest
from django.utils import timezone

from classroom.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh_worker():
    return WorkerHeartbeat.beat("worker@test")


def test_all_healthy_answers_200(client, fresh_worker):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert set(body["checks"]) == {"database", "cache", "broker", "worker"}
    assert all(check["ok"] for check in body["checks"].values())


def test_no_worker_ever_answers_503_naming_the_worker(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]


def test_stale_heartbeat_answers_503(client, fresh_worker):
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=10))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]
    assert "s ago" in response.json()["checks"]["worker"]["detail"]


def test_unreachable_cache_answers_503(client, fresh_worker, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "cache" in response.json()["failing"]
    assert response.json()["checks"]["database"]["ok"] is True


def test_unreachable_broker_answers_503(client, fresh_worker, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"]


def test_healthz_is_not_cached(client, fresh_worker):
    response = client.get("/healthz")
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_redis_is_the_cache_when_configured(settings, redis_url):
    from django.core.cache import cache

    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    cache.set("healthz-redis-probe", 42, 5)
    assert cache.get("healthz-redis-probe") == 42


def test_the_web_check_ignores_the_worker_and_the_cache(client, settings):
    """No worker at all and Redis unreachable: /healthz fails, the node's own check passes."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    assert client.get("/healthz").status_code == 503
    response = client.get("/healthz/web")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "failing": [],
        "checks": {
            "database": {"ok": True, "detail": response.json()["checks"]["database"]["detail"]}
        },
    }


def test_the_web_check_fails_without_the_database(client, monkeypatch):
    from classroom import health

    monkeypatch.setitem(health.CHECKS, "database", lambda: (False, "OperationalError: gone"))
    response = client.get("/healthz/web")
    assert response.status_code == 503
    assert response.json()["failing"] == ["database"]
