"""Settings load in both modes, and production defaults pass Django's deploy checks."""

import json
import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; from django.conf import settings; django.setup();"
    "db = settings.DATABASES['default'];"
    "print(json.dumps({'engine': db['ENGINE'], 'options': db.get('OPTIONS', {}),"
    " 'cache': settings.CACHES['default']['BACKEND'], 'broker': settings.CELERY_BROKER_URL,"
    " 'cache_options': settings.CACHES['default'].get('OPTIONS', {}),"
    " 'debug': settings.DEBUG, 'csp': {k: list(v) for k, v in settings.SECURE_CSP.items()}}))"
)
SECRET = "x" * 20 + "a-real-looking-production-secret-0123456789"


# The test run's own switches must not leak into the probed process.
DROPPED = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "DJANGO_ENV"}


def clean_env(**env) -> dict:
    return {
        **{k: v for k, v in os.environ.items() if k not in DROPPED},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **env,
    }


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    clean = clean_env(**env)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=BASE_DIR, env=clean, capture_output=True, text=True
    )


def probe(**env) -> dict:
    result = run_python(PROBE, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_default_mode_needs_no_server():
    conf = probe()
    assert conf["engine"] == "django.db.backends.sqlite3"
    assert conf["options"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in conf["options"]["init_command"]
    assert conf["options"]["timeout"] >= 10
    assert conf["cache"].endswith("FileBasedCache")
    assert conf["broker"] == "atomicfs://"
    assert conf["debug"] is True


def test_server_mode_uses_postgres_and_redis():
    conf = probe(DATABASE_URL="postgres://u@127.0.0.1:5432/x", REDIS_URL="redis://127.0.0.1:6379/3")
    assert conf["engine"] == "django.db.backends.postgresql"
    assert conf["cache"] == "django_redis.cache.RedisCache"
    # Redis away: a miss, never an error (docs/reliability.md).
    assert conf["cache_options"]["IGNORE_EXCEPTIONS"] is True
    assert conf["broker"] == "redis://127.0.0.1:6379/3"


def test_csp_allows_only_our_own_origin():
    csp = probe()["csp"]
    flat = " ".join(" ".join(v) for v in csp.values())
    assert "unsafe-inline" not in flat
    assert "unsafe-eval" not in flat
    assert "http" not in flat
    assert csp["script-src"] == ["'self'"]


def test_production_refuses_to_start_without_a_secret():
    result = run_python(PROBE, DJANGO_ENV="production", ALLOWED_HOSTS="example.org")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_passes_deploy_checks():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=clean_env(
            DJANGO_ENV="production", SECRET_KEY=SECRET, ALLOWED_HOSTS="multiplipotion.example.org"
        ),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


STREAMS_PROBE = (
    "import json, django; from django.conf import settings; django.setup();"
    "print(json.dumps({'origin': settings.LIVE_STREAM_ORIGIN,"
    " 'connect': list(settings.SECURE_CSP['connect-src'])}))"
)


def test_the_stream_servers_origin_and_what_pages_may_connect_to():
    """docs/deploy.md, "Two servers": production's streams are the page's own origin (the
    proxy routes them); make run names a port of the page's host; anything else is refused
    at start."""
    production = {"DJANGO_ENV": "production", "SECRET_KEY": SECRET, "ALLOWED_HOSTS": "x.org"}

    def streams(**env):
        result = run_python(STREAMS_PROBE, **env)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1])

    assert streams() == {"origin": "", "connect": ["'self'"]}
    assert streams(**production) == {"origin": "self", "connect": ["'self'"]}
    assert streams(LIVE_STREAM_ORIGIN=":8001") == {
        "origin": ":8001",
        "connect": ["'self'", "http://*:8001", "https://*:8001"],
    }
    assert streams(LIVE_STREAM_ORIGIN="https://live.example.org/") == {
        "origin": "https://live.example.org",
        "connect": ["'self'", "https://live.example.org"],
    }
    for wrong in ("8001", "live.example.org", "https://live.example.org/streams", "ftp://x"):
        result = run_python(STREAMS_PROBE, LIVE_STREAM_ORIGIN=wrong)
        assert result.returncode != 0 and "LIVE_STREAM_ORIGIN must be" in result.stderr, wrong
