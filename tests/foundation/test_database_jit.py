"""PostgreSQL never JIT-compiles the app's queries (games/migrations/0003_database_without_jit):
compiling the teacher's "needs help" query took 2.9 s of its 3.2 s (docs/performance.md)."""

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db]

# A query that JIT compiles whenever JIT is on and any cost passes (jit_above_cost = 0).
QUERY = "EXPLAIN (ANALYZE, FORMAT TEXT) SELECT count(*) FROM games_match WHERE version + 1 > 0"


def fresh_connection():
    """A new session on the test database, as a web process's next connection would be."""
    import psycopg
    from django.db import connection

    params = connection.get_connection_params()
    return psycopg.connect(
        **{k: v for k, v in params.items() if k not in ("cursor_factory", "context")}
    )


def plan(conn, jit: str) -> str:
    if jit:
        conn.execute(f"SET jit = {jit}")
    conn.execute("SET jit_above_cost = 0")
    return "\n".join(row[0] for row in conn.execute(QUERY).fetchall())


def test_a_new_session_of_the_database_has_jit_off(postgres):
    with fresh_connection() as conn:
        assert conn.execute("SHOW jit").fetchone()[0] == "off"
        assert "JIT:" not in plan(conn, jit="")


def test_the_plan_would_show_jit_if_it_were_on(postgres):
    """What the test above looks for is there when JIT runs (on a server built with it)."""
    with fresh_connection() as conn:
        conn.execute("SET jit = on")  # pg_jit_available() is false while jit is off
        if not conn.execute("SELECT pg_jit_available()").fetchone()[0]:
            pytest.skip("this PostgreSQL has no JIT provider")
        assert "JIT:" in plan(conn, jit="on")


def test_the_connection_that_migrated_has_jit_off_too(postgres):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_a_role_that_does_not_own_the_database_is_warned_not_stopped(postgres):
    """A deploy whose role does not own the database still migrates: a warning names what to
    do (docs/deploy.md), and JIT stays as the server has it."""
    import importlib
    import uuid

    import psycopg
    from django.db import connection

    forward = importlib.import_module("games.migrations.0003_database_without_jit").FORWARD
    role = f"mp_not_owner_{uuid.uuid4().hex[:8]}"
    with fresh_connection() as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.commit()
    try:
        params = {
            k: v
            for k, v in connection.get_connection_params().items()
            if k not in ("cursor_factory", "context")
        }
        notices = []
        with psycopg.connect(**{**params, "user": role}) as conn:
            conn.add_notice_handler(lambda d: notices.append(d.message_primary))
            conn.execute(forward)
        assert any("JIT is still on" in n for n in notices), notices
    finally:
        with fresh_connection() as admin:
            admin.execute(f"DROP ROLE {role}")
            admin.commit()
