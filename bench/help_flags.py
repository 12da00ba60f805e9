"""The teacher's "needs help" query, with and without the knowledge model, and with
PostgreSQL's JIT on and off, side by side (docs/performance.md, "JIT off").

``Student.reports.with_help_flags()`` for one class of 30 is what the teacher's home, the
live wall and the class report run: three queries (the children's FactStat rows, their wrong
answers, the week's counts), then in Python each child's ``knowledge.summarise`` (the squares,
the focus, the flag, the stuck fact, the wrong answers named by their kinds). On a school of
``--classes`` classes of 30 children and ``--attempts`` attempts over the last 60 days
(``bench.analytics``' school and attempts; the first class's statistics rebuilt), four arms
are timed in turn on the same connection, ``--rounds`` times each: the query as it is, and
the baseline ``without_the_model`` (the same queries and rows read, ``knowledge.summarise``
answering at once with an empty child's summary: what the page costs without the model),
each with ``SET jit = on`` and ``SET jit = off``. The database's own setting (off since
``games/migrations/0003_database_without_jit``) is overridden for the session only.

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
from contextlib import contextmanager
from unittest import mock


@contextmanager
def without_the_model():
    """Within: ``knowledge.summarise`` (what ``with_help_flags`` asks of each child) answers
    at once, with the summary of a child who answered nothing; every query still runs."""
    from django.utils import timezone

    from classroom import knowledge

    empty = knowledge.summarise({}, (), timezone.now())
    with mock.patch.object(knowledge, "summarise", lambda *args, **kwargs: empty):
        yield


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
    from classroom.models import FactStat
    from classroom.models import Student

    call_command("migrate", verbosity=0)
    _school, rooms, kids, moves = analytics.make_school(args.classes, 30)
    analytics.insert_attempts(analytics.attempt_rows(args.attempts, kids, moves))
    room = rooms[0]
    FactStat.objects.rebuild_for(kids[room.pk])

    def run(arm: str) -> list:
        queryset = Student.reports.filter(classroom=room).order_by("pk")
        if arm == "without_model":
            with without_the_model():
                return queryset.with_help_flags()
        return queryset.with_help_flags()

    def timed(arm: str, jit: str) -> float:
        with connection.cursor() as cursor:
            cursor.execute(f"SET jit = {jit}")
        start = time.perf_counter()
        rows = run(arm)
        elapsed = (time.perf_counter() - start) * 1000
        assert len(rows) == 30
        return elapsed

    flagged = sum(s.needs_help for s in run("now"))
    arms = [(arm, jit) for arm in ("now", "without_model") for jit in ("on", "off")]
    times: dict[tuple[str, str], list[float]] = {key: [] for key in arms}
    for _ in range(args.rounds):
        for arm, jit in arms:
            times[(arm, jit)].append(timed(arm, jit))
    median = {key: round(statistics.median(values), 1) for key, values in times.items()}
    print(
        json.dumps(
            {
                "attempts": args.attempts,
                "children": args.classes * 30,
                "flagged": flagged,
                "help_flags_ms": median[("now", "off")],
                "help_flags_jit_on_ms": median[("now", "on")],
                "without_model_ms": median[("without_model", "off")],
                "without_model_jit_on_ms": median[("without_model", "on")],
                "help_flags_vs_without_model": round(
                    median[("now", "off")] / median[("without_model", "off")], 2
                ),
                "jit_on_vs_off": round(median[("now", "on")] / median[("now", "off")], 2),
                "rounds": args.rounds,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
