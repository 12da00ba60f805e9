"""The teacher's "needs help" query with PostgreSQL's JIT on and off, and with its flags
decided in SQL as before, side by side (docs/performance.md, "JIT off").

``Student.reports.with_help_flags()`` for one class of 30 is what the teacher's home, the live
wall and the class report run. On a school of ``--classes`` classes of 30 children and
``--attempts`` attempts over the last 60 days (``bench.analytics``' school and attempts), four
arms are timed in turn on the same connection, ``--rounds`` times each: the query as it is
(each figure's subquery once, the flags decided in Python as rows are read) and the baseline
``flags_in_sql`` (the statement before 6 December 2026: the flags as SQL expressions, which
repeat the figures' subqueries), each with ``SET jit = on`` and ``SET jit = off``. Both give
the same flags (checked). The database's own setting (off since
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

    def flags(rows):
        return [
            (s.pk, s.needs_help, s.low_accuracy, s.stuck, s.stuck_a, s.stuck_b, s.stuck_run)
            for s in rows
        ]

    def run(arm: str) -> list:
        queryset = Student.reports.filter(classroom=room).order_by("pk")
        if arm == "in_sql":
            return list(flags_in_sql(queryset))
        return list(queryset.with_help_flags())

    def timed(arm: str, jit: str) -> float:
        with connection.cursor() as cursor:
            cursor.execute(f"SET jit = {jit}")
        start = time.perf_counter()
        rows = run(arm)
        elapsed = (time.perf_counter() - start) * 1000
        assert len(rows) == 30
        return elapsed

    assert flags(run("now")) == flags(run("in_sql")), "the baseline decides other flags"
    arms = [(arm, jit) for arm in ("now", "in_sql") for jit in ("on", "off")]
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
                "help_flags_ms": median[("now", "off")],
                "help_flags_jit_on_ms": median[("now", "on")],
                "flags_in_sql_ms": median[("in_sql", "off")],
                "flags_in_sql_jit_on_ms": median[("in_sql", "on")],
                "flags_in_sql_vs_now": round(median[("in_sql", "off")] / median[("now", "off")], 2),
                "jit_on_vs_off": round(median[("now", "on")] / median[("now", "off")], 2),
                "rounds": args.rounds,
            }
        )
    )
    return 0


def flags_in_sql(queryset):
    """The baseline: the statement of ``with_help_flags`` before 6 December 2026, its flags
    as SQL expressions (each use of a figure repeats that figure's subquery), the same
    figures and flags as attributes."""
    from datetime import timedelta

    from django.db import models
    from django.db.models import ExpressionWrapper
    from django.db.models import F
    from django.db.models import OuterRef
    from django.db.models import Q
    from django.db.models import Subquery
    from django.utils import timezone

    from classroom.models import report_queries as rq

    def flag(condition):
        return models.Case(
            models.When(condition, then=True), default=False, output_field=models.BooleanField()
        )

    since = timezone.now() - timedelta(days=rq.RECENT_DAYS)
    recent = rq.Attempt.objects.filter(student=OuterRef("pk"), created_at__gte=since)
    first = rq._first_tries(since)
    stuck = rq._stuck_facts(since)
    integer = models.IntegerField()
    low = (
        Q(recent_attempts__gte=rq.RECENT_MIN_ATTEMPTS)
        & Q(recent_facts__gte=rq.RECENT_MIN_FACTS)
        & Q(_low_margin__lt=0)
    )
    return (
        queryset.annotate(
            weak_facts=rq._count(rq.weak_facts().weak().filter(student=OuterRef("pk"))),
            recent_omissions=rq._count(recent.filter(context=rq.Attempt.Context.MISSED)),
            recent_attempts=rq._count(recent),
            recent_correct=rq._count(recent.filter(correct=True)),
            recent_facts=rq._count(first),
            recent_first_right=rq._count(first.filter(correct=True)),
            stuck_a=Subquery(stuck.values("lo")[:1], output_field=integer),
            stuck_b=Subquery(stuck.values("hi")[:1], output_field=integer),
            stuck_run=Subquery(stuck.values("run")[:1], output_field=integer),
        )
        .annotate(
            _low_margin=ExpressionWrapper(
                F("recent_first_right") * rq.WEAK_ACCURACY_DEN
                - F("recent_facts") * rq.WEAK_ACCURACY_NUM,
                output_field=integer,
            ),
        )
        .annotate(
            low_accuracy=flag(low),
            stuck=flag(Q(stuck_run__isnull=False)),
            needs_help=flag(low),
        )
    )


if __name__ == "__main__":
    raise SystemExit(main())
