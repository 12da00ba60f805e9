"""Run every benchmark, print a table, write bench/results/latest.json and latest.md.

    .venv/bin/python bench/run.py            # what `make bench` runs
    .venv/bin/python bench/run.py --quick    # tiny iteration counts (a smoke run)

It uses its own database (var/bench/bench.sqlite3, or DATABASE_URL when it is set; the name
must contain "bench"). See docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in {None, ""}:  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def run_all(
    quick: bool = False, *, setup_db: bool = True, out_dir=None, verbose=False, load="skip"
):
    """Run every benchmark; return (figures, paths of the written files).

    ``setup_db=False``: Django is set up and a database is ready (pytest-django); the
    benchmarks then keep the connection of the test transaction between requests."""
    if setup_db:
        from bench.environment import setup_database

        setup_database()
    from bench import report
    from bench.analytics import bench_analytics
    from bench.engine import bench_engine
    from bench.evidence_week import bench_evidence_week
    from bench.load.run import bench_load  # load: full, quick or skip (BENCH_LOAD)
    from bench.moves import bench_moves
    from bench.page import bench_play_page
    from bench.prepared import bench_prepared
    from bench.renders import bench_renders

    figures, details = {}, {}
    steps = [
        ("engine", lambda: bench_engine(quick)),
        ("moves", lambda: bench_moves(quick, keep_connection=not setup_db)),
        ("page", lambda: bench_play_page(quick, keep_connection=not setup_db)),
        ("prepared", lambda: bench_prepared(quick)),
        ("renders", lambda: bench_renders(quick, keep_connection=not setup_db)),
        ("analytics", lambda: bench_analytics(quick)),
        ("evidence_week", lambda: bench_evidence_week(quick)),
        ("load", lambda: bench_load(load)),
    ]
    for name, step in steps:
        start = time.perf_counter()
        step_figures, step_details = step()
        figures.update(step_figures)
        details[name] = step_details
        if verbose:
            print(f"  {name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    flat_details = {**details["moves"], **details["page"], "engine": details["engine"]["engine"]}
    flat_details["moves"] = details["moves"]
    flat_details["prepared"] = details["prepared"]
    flat_details["renders"] = details["renders"]
    flat_details["analytics"] = details["analytics"]
    flat_details["evidence_week"] = details["evidence_week"]
    flat_details["load"] = details["load"]
    paths = report.write_results(figures, flat_details, out_dir)
    return figures, paths


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="tiny iteration counts")
    parser.add_argument("--out", type=Path, default=None, help="results folder")
    parser.add_argument(
        "--load",
        choices=["full", "quick", "skip"],
        default=os.environ.get("BENCH_LOAD") or None,
        help="the load test (bench/load/): default full, quick with --quick; env BENCH_LOAD",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    load = args.load or ("quick" if args.quick else "full")
    figures, paths = run_all(args.quick, out_dir=args.out, verbose=True, load=load)
    from bench import report

    print(report.text_table(figures))
    print(f"\nwrote {paths['json']} and {paths['md']} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
