"""Health checks for /healthz: each returns (ok, detail) and never raises."""

import hmac
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import connection

from classroom.models import WorkerHeartbeat


def check_database() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return True, connection.vendor
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"


def check_cache() -> tuple[bool, str]:
    key = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(key, "ok", 10)
        ok = cache.get(key) == "ok"
        cache.delete(key)
        return ok, "read back" if ok else "value not read back"
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"


def check_broker() -> tuple[bool, str]:
    from config.celery import app

    try:
        with app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            return True, conn.transport.driver_type
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"


def check_worker() -> tuple[bool, str]:
    try:
        age = WorkerHeartbeat.freshest_age()
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"
    if age is None:
        return False, "no worker has ever sent a heartbeat"
    seconds = int(age.total_seconds())
    if seconds > settings.WORKER_HEARTBEAT_MAX_AGE:
        return False, f"last heartbeat {seconds} s ago"
    return True, f"last heartbeat {seconds} s ago"


def may_see_details(request) -> bool:
    """Monitoring (``Authorization: Bearer <HEALTHZ_TOKEN>``, when the token is set) and staff
    see each check's detail; anyone else the status only."""
    token = settings.HEALTHZ_TOKEN
    sent = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
        return True
    return request.user.is_authenticated and request.user.is_staff


CHECKS = {
    "database": check_database,
    "cache": check_cache,
    "broker": check_broker,
    "worker": check_worker,
}


def run_checks(names=None) -> dict[str, dict]:
    """Every check (or those ``names``): {name: {"ok": …, "detail": …}}."""
    return {
        name: dict(zip(("ok", "detail"), fn(), strict=True))
        for name, fn in CHECKS.items()
        if names is None or name in names
    }
