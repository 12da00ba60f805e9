from datetime import timedelta

import pytest
from django.utils import timezone

from classroom.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


TOKEN = "monitoring-token-for-the-tests"


@pytest.fixture
def fresh_worker():
    return WorkerHeartbeat.beat("worker@test")


@pytest.fixture
def monitor(client, settings):
    """Monitoring: /healthz with the token, which names each check."""
    settings.HEALTHZ_TOKEN = TOKEN
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {TOKEN}"
    return client


def test_all_healthy_answers_200(monitor, fresh_worker):
    response = monitor.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert set(body["checks"]) == {"database", "cache", "broker", "worker"}
    assert all(check["ok"] for check in body["checks"].values())


def test_no_worker_ever_answers_503_naming_the_worker(monitor):
    response = monitor.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]


def test_stale_heartbeat_answers_503(monitor, fresh_worker):
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=10))
    response = monitor.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]
    assert "s ago" in response.json()["checks"]["worker"]["detail"]


def test_unreachable_cache_answers_503(monitor, fresh_worker, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    response = monitor.get("/healthz")
    assert response.status_code == 503
    assert "cache" in response.json()["failing"]
    assert response.json()["checks"]["database"]["ok"] is True


def test_unreachable_broker_answers_503(monitor, fresh_worker, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = monitor.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"]


def test_the_public_gets_the_status_only(client, fresh_worker):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_the_public_is_not_told_what_failed_nor_why(client, fresh_worker, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    WorkerHeartbeat.objects.update(seen_at=timezone.now() - timedelta(minutes=10))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "error"}
    assert b"127.0.0.1" not in response.content and b"broker" not in response.content


@pytest.mark.parametrize(
    "token, sent",
    [
        (TOKEN, "Bearer not-the-token"),
        (TOKEN, TOKEN),  # without "Bearer "
        (TOKEN, ""),
        ("", "Bearer "),  # no token set: no header opens the details
    ],
)
def test_a_wrong_or_missing_token_gets_the_status_only(client, settings, token, sent):
    settings.HEALTHZ_TOKEN = token
    response = client.get("/healthz", HTTP_AUTHORIZATION=sent)
    assert response.status_code == 503  # no worker
    assert response.json() == {"status": "error"}


def test_monitoring_with_the_token_gets_each_check(monitor):
    response = monitor.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["failing"] == ["worker"]
    assert body["checks"]["worker"]["detail"] == "no worker has ever sent a heartbeat"
    assert "Authorization" in response["Vary"]


def test_staff_get_each_check_and_others_do_not(client, django_user_model, fresh_worker):
    teacher = django_user_model.objects.create_user("teacher", password="pw-123456789")
    client.force_login(teacher)
    assert client.get("/healthz").json() == {"status": "ok"}
    staff = django_user_model.objects.create_user("ops", password="pw-123456789", is_staff=True)
    client.force_login(staff)
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and set(body["checks"]) == {
        "database",
        "cache",
        "broker",
        "worker",
    }


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
    assert client.get("/healthz/web").json() == {"status": "ok"}
    settings.HEALTHZ_TOKEN = TOKEN
    response = client.get("/healthz/web", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "failing": [],
        "checks": {
            "database": {"ok": True, "detail": response.json()["checks"]["database"]["detail"]}
        },
    }


def test_the_web_check_fails_without_the_database_and_tells_outsiders_nothing_more(
    client, monkeypatch, settings
):
    """The public learns the node is down, not the database's host, port or driver message."""
    from classroom import health

    detail = "OperationalError: connection to server at 10.0.0.5, port 5432 failed"
    monkeypatch.setitem(health.CHECKS, "database", lambda: (False, detail))
    response = client.get("/healthz/web")
    assert response.status_code == 503
    assert response.json() == {"status": "fail"}
    assert b"10.0.0.5" not in response.content
    settings.HEALTHZ_TOKEN = TOKEN
    response = client.get("/healthz/web", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 503
    assert response.json()["failing"] == ["database"]
    assert response.json()["checks"]["database"]["detail"] == detail


@pytest.mark.parametrize("url", ["/healthz", "/healthz/web"])
def test_head_is_answered_like_get(client, fresh_worker, url):
    """Monitors and link checkers send HEAD: the same status as GET, no body."""
    get, head = client.get(url), client.head(url)
    assert head.status_code == get.status_code == 200
    assert head.content == b""
