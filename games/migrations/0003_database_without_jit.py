"""PostgreSQL: no JIT compilation in this database (``ALTER DATABASE … SET jit = off``).

PostgreSQL compiles a query to machine code when its estimated cost passes ``jit_above_cost``.
The app's queries are short, but a few are estimated far above it. The teacher's "needs help"
query (``Student.reports.with_help_flags``) for a class of 30 in a school of 200,000
attempts took 3.2 s, and 2.9 s of that was compiling it (docs/performance.md, "JIT off").
Without JIT it took 0.33 s. A setting of the database and not of the connection, because
PgBouncer in transaction pooling ignores a connection's ``options`` and a session's ``SET``
(docs/deploy.md). Only the database's owner may change it: otherwise the migration warns, and
docs/deploy.md says what to run. It is also set for the session that migrates, which is the
test run's own connection."""

from django.db import migrations

FORWARD = """
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE WARNING 'JIT is still on: only the owner of database % can turn it off '
                '(docs/deploy.md)', current_database();
END $$;
SET jit = off;
"""

BACKWARD = """
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I RESET jit', current_database());
EXCEPTION WHEN insufficient_privilege THEN
  NULL;
END $$;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_seat_hand_back"),
    ]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
