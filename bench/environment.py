"""Point Django at the benchmark's own database before ``django.setup()``.

The benchmark never touches the development database: by default it uses
``var/bench/bench.sqlite3`` (and ``var/bench`` for the file cache and the Celery folders).
With ``DATABASE_URL=postgres://.../multiplipotion_bench`` it creates that database when it
is missing. The database name must contain "bench": the suite empties it on every run.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO = Path(__file__).resolve().parent.parent
BENCH_VAR = REPO / "var" / "bench"


def configure_environment() -> None:
    """Environment defaults for a benchmark run (explicit values always win)."""
    os.environ.setdefault("VAR_DIR", str(BENCH_VAR))
    Path(os.environ["VAR_DIR"]).mkdir(parents=True, exist_ok=True)
    default_db = f"sqlite:///{Path(os.environ['VAR_DIR']) / 'bench.sqlite3'}"
    os.environ.setdefault("DATABASE_URL", default_db)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # Measure what a server runs: no DEBUG query log, no debug pages.
    os.environ.setdefault("DEBUG", "false")
    # Sessions live in the cache; keep the benchmark's apart from a developer's.
    os.environ.setdefault("CACHE_KEY_PREFIX", "mpc-bench")
    os.environ.setdefault("LOG_LEVEL", "WARNING")


def database_name(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme.startswith("sqlite"):
        return Path(unquote(parts.path)).name
    return unquote(parts.path.lstrip("/"))


def ensure_postgres_database(url: str) -> None:
    """Create the PostgreSQL database of ``url`` when it does not exist yet."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = database_name(url)
    conninfo = {
        "host": parts.hostname or "127.0.0.1",
        "port": parts.port or 5432,
        "user": unquote(parts.username or "postgres"),
        "dbname": "postgres",
    }
    if parts.password:
        conninfo["password"] = unquote(parts.password)
    with psycopg.connect(**conninfo, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def setup_database() -> None:
    """Configure, set Django up, migrate the bench database and empty it."""
    configure_environment()
    url = os.environ["DATABASE_URL"]
    if "bench" not in database_name(url):
        raise SystemExit(
            f"refusing to use {database_name(url)!r}: the benchmark empties its database, "
            "so its name must contain 'bench' (e.g. .../multiplipotion_bench)"
        )
    if urlsplit(url).scheme.startswith("postgres"):
        ensure_postgres_database(url)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
