"""Point Django at the benchmark's own database before ``django.setup()``.

The benchmark never touches the development database: by default it uses
``var/bench/bench.sqlite3`` (and ``var/bench`` for the file cache and the Celery folders).
With ``DATABASE_URL=postgres://.../multiplipotion_bench`` it uses that database. Every run starts
from a new, freshly migrated database (the old one is deleted or dropped first), so the runs
are alike and a rewritten migration never meets an old schema; hence the name must contain
"bench".
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote
from urllib.parse import urlsplit

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


def recreate_postgres_database(url: str) -> None:
    """Drop the PostgreSQL database of ``url`` when it exists, and create it."""
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
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def remove_sqlite_database(url: str) -> None:
    import dj_database_url

    path = Path(dj_database_url.parse(url)["NAME"])
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def setup_database() -> None:
    """Configure, start from a new bench database, set Django up and migrate."""
    configure_environment()
    url = os.environ["DATABASE_URL"]
    if "bench" not in database_name(url):
        raise SystemExit(
            f"refusing to use {database_name(url)!r}: the benchmark recreates its database, "
            "so its name must contain 'bench' (e.g. .../multiplipotion_bench)"
        )
    if urlsplit(url).scheme.startswith("postgres"):
        recreate_postgres_database(url)
    elif urlsplit(url).scheme.startswith("sqlite"):
        remove_sqlite_database(url)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
