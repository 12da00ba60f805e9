"""``prepared_seats_speedup`` and ``prepared_child_speedup``: whether config/prepared.py's
PreparedQuery earns its keep.

The two queries every board request makes, each timed both ways in the same run, alternating
(ABBA) on the same rows: A, the query as the ORM builds it on every call (the queryset the
PreparedQuery was made from); B, the PreparedQuery (compiled once, run with the new value).
Both return the same model instances (tests/foundation/test_prepared_query.py compares them).
The figures are the ORM's median time ÷ the prepared median, per query (seats: the match
with its seats; child: the signed-in child with class and school); the details have the
medians in microseconds. On its own (the bench database, as bench/run.py sets it up):

    .venv/bin/python -m bench.prepared           # DATABASE_URL=postgres://…/…bench… for PostgreSQL
"""

from __future__ import annotations

import statistics
import time


def _time(call, value) -> float:
    start = time.perf_counter()
    call(value)
    return (time.perf_counter() - start) * 1e6


def abba(orm, prepared, values, rounds: int) -> tuple[float, float]:
    """Median µs of ``orm`` and of ``prepared`` over ``rounds`` calls each, ABBA order."""
    a, b = [], []
    for i in range(rounds):
        value = values[i % len(values)]
        if i % 2:
            b.append(_time(prepared, value))
            a.append(_time(orm, value))
        else:
            a.append(_time(orm, value))
            b.append(_time(prepared, value))
    return statistics.median(a), statistics.median(b)


def bench_prepared(quick: bool = False, *, rounds=None):
    from bench import fixtures
    from bench.analytics import make_school
    from classroom.child_session import SIGNED_IN_STUDENT
    from games.models import SEATS_WITH_MATCH

    rounds = rounds or (20 if quick else 4000)
    matches = [fixtures.make_match(seed) for seed in range(20)]
    public_ids = [m.public_id for m in matches]
    _school, _rooms, kids, _moves = make_school(1, 20)
    student_ids = next(iter(kids.values()))
    cases = {
        "seats": (
            lambda v: list(SEATS_WITH_MATCH.queryset(v)),
            SEATS_WITH_MATCH.all,
            public_ids,
        ),
        "child": (
            lambda v: list(SIGNED_IN_STUDENT.queryset(v)),
            SIGNED_IN_STUDENT.all,
            student_ids,
        ),
    }
    figures, details = {}, {}
    for name, (orm, prepared, values) in cases.items():
        abba(orm, prepared, values, min(rounds, 50))  # warm-up: both compiled, caches filled
        orm_us, prepared_us = abba(orm, prepared, values, rounds)
        figures[f"prepared_{name}_speedup"] = round(orm_us / prepared_us, 2)
        details[name] = {"orm_us": round(orm_us, 1), "prepared_us": round(prepared_us, 1)}
    return figures, details


if __name__ == "__main__":
    import json

    from bench.environment import setup_database

    setup_database()
    print(json.dumps(bench_prepared(), indent=1))
