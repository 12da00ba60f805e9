"""The teacher's "needs help" query with PostgreSQL's JIT on and off, side by side
(docs/performance.md, "JIT off").

``Student.reports.with_help_flags()`` for one class of 30 is what the teacher's home, the live
wall and the class report run. On a school of ``--classes`` classes of 30 children and
``--attempts`` attempts over the last 60 days (``bench.analytics``' school and attempts), the
same query is timed in turn with ``SET jit = on`` and ``SET jit = off`` on the same
connection, ``--rounds`` times each; the medians and their ratio are printed. The database's
own setting (off since ``games/migrations/0003_database_without_jit``) is overridden for the
session only, so the two arms differ in JIT alone.

    DATABASE_URL=postgres://… python -m bench.help_flags --attempts 200000

The school is made in the database named by DATABASE_URL (migrated first) and left there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--attempts", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        print("Set DATABASE_URL to a PostgreSQL database (JIT is PostgreSQL's).", file=sys.stderr)
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from bench import analytics
    from classroom.models import Student

    call_command("migrate", verbosity=0)
    _school, rooms, kids, moves = analytics.make_school(args.classes, 30)
    analytics.insert_attempts(analytics.attempt_rows(args.attempts, kids, moves))
    room = rooms[0]

    def timed(jit: str) -> float:
        with connection.cursor() as cursor:
            cursor.execute(f"SET jit = {jit}")
        start = time.perf_counter()
        rows = list(Student.reports.filter(classroom=room).with_help_flags())
        elapsed = (time.perf_counter() - start) * 1000
        assert len(rows) == 30
        return elapsed

    times: dict[str, list[float]] = {"on": [], "off": []}
    timed("off")  # warm the caches once
    for _ in range(args.rounds):
        for jit in ("on", "off"):
            times[jit].append(timed(jit))
    on, off = statistics.median(times["on"]), statistics.median(times["off"])
    print(
        json.dumps(
            {
                "attempts": args.attempts,
                "children": args.classes * 30,
                "help_flags_jit_on_ms": round(on, 1),
                "help_flags_jit_off_ms": round(off, 1),
                "jit_on_vs_off": round(on / off, 2),
                "rounds": args.rounds,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
