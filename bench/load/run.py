"""Find ``students_at_p95_100ms`` and ``update_latency_p95_ms`` (issue #6).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/multiplipotion_bench \\
    REDIS_URL=redis://127.0.0.1:6379/6 .venv/bin/python -m bench.load.run

Starts the production setup (bench/load/stack.py: gunicorn gthread workers, a Celery worker,
DJANGO_ENV=production, on the given PostgreSQL and Redis), then runs steps of N simulated
children (bench/load/locustfile.py, one locust process, headless) for LOAD_STEP_SECONDS each
(default 300, the issue's 5 minutes) after a ramp-up of at most 30 s. A step passes when no
request failed and the p95 of every request after the ramp-up is below 100 ms. N doubles from
LOAD_START (default 100) while steps pass, then the gap between the last pass and the first
failure is halved, LOAD_MAX_STEPS steps in all (default 6). The figure is the largest N that
passed; ``update_latency_p95_ms`` is the one measured at that N.

Environment: LOAD_STEPS=50,100,200 (explicit steps instead of the search), LOAD_STEP_SECONDS,
LOAD_START, LOAD_MAX_STEPS, LOAD_WEB_WORKERS (uvicorn worker processes; default twice the
cores), LOAD_PORTS (8100-8199), LOAD_THINK_S (5: seconds
between a child's moves). The database must be PostgreSQL and REDIS_URL set (the production
setup); its name must contain "bench", as for bench/run.py, because the run starts from a new
database (unless ``setup_db=False``).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

if __package__ in {None, ""}:  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REPO = Path(__file__).resolve().parents[2]
GOAL_P95_MS = 100.0


def locust_bin() -> str:
    candidate = Path(sys.executable).with_name("locust")
    return str(candidate) if candidate.exists() else "locust"


def busy_seconds(processes) -> float:
    """User + system CPU seconds of these psutil processes; one that has exited counts 0."""
    import psutil

    total = 0.0
    for p in processes:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes and their children (psutil, a locust
    dependency)."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            family = [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        total += busy_seconds(family)
    return total


def machine_busy_seconds() -> float:
    import psutil

    t = psutil.cpu_times()
    return t.user + t.system + t.nice + getattr(t, "irq", 0) + getattr(t, "softirq", 0)


def postgres_cpu_seconds() -> float:
    """CPU seconds of the PostgreSQL backends serving this run's database (their process
    title names it); a backend that exits between two calls is not counted."""
    import psutil
    from django.db import connection

    name = f" {connection.settings_dict['NAME']} "
    return busy_seconds(
        p
        for p in psutil.process_iter(["name", "cmdline"])
        if (p.info["name"] or "").startswith("postgres")
        and name in " ".join(p.info["cmdline"] or []) + " "
    )


def run_step(
    children: int, seconds: float, stack: dict, work_dir: Path, *, ramp_s: float | None = None
) -> dict:
    """Seed ``children`` children and run them for ``seconds`` after the ramp-up; return the
    locust summary with the step's verdict and the CPU use of each part of the machine."""
    from bench.load.seed import seed_children
    from bench.load.seed import write_children

    children += children % 2
    work_dir.mkdir(parents=True, exist_ok=True)
    data = seed_children(children, label=str(children))
    children_file = write_children(data, work_dir / f"children-{children}.json")
    summary_file = work_dir / f"summary-{children}.json"
    summary_file.unlink(missing_ok=True)
    ramp_s = ramp_s if ramp_s is not None else min(30.0, max(2.0, children / 20))
    rate = max(1.0, children / ramp_s)
    settle = 5.0
    duration = math.ceil(ramp_s + settle + seconds)
    env = {
        **os.environ,
        "LOAD_CHILDREN": str(children_file),
        "LOAD_SUMMARY": str(summary_file),
        "LOAD_SETTLE_S": str(settle),
        "PYTHONPATH": str(REPO),
    }
    args = [
        locust_bin(), "-f", str(REPO / "bench" / "load" / "locustfile.py"), "--headless",
        "-u", str(children), "-r", f"{rate:.2f}", "-t", f"{duration}s",
        "--host", stack["urls"][0], "--stop-timeout", "3", "--only-summary",
        "--loglevel", "WARNING", "--skip-log-setup",
    ]  # fmt: skip
    ours = [p.pid for p in stack["procs"]]
    cpu0 = (cpu_seconds(ours), machine_busy_seconds(), postgres_cpu_seconds(), time.monotonic())
    log = work_dir / f"locust-{children}.log"
    _child_cpu_seconds()  # from here on: the locust process only
    with log.open("w") as out:
        locust = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            locust.wait(timeout=duration + 120)
        finally:  # a timeout, or the run stopped (Ctrl+C, SIGTERM)
            if locust.poll() is None:
                locust.kill()
                locust.wait()
    locust_cpu = _child_cpu_seconds()
    cpu1 = (cpu_seconds(ours), machine_busy_seconds(), postgres_cpu_seconds(), time.monotonic())
    if not summary_file.exists():
        raise RuntimeError(f"locust wrote no summary:\n{log.read_text()[-3000:]}")
    summary = json.loads(summary_file.read_text())
    wall = cpu1[3] - cpu0[3]
    server = cpu1[0] - cpu0[0]
    postgres = cpu1[2] - cpu0[2]
    busy = cpu1[1] - cpu0[1]
    summary["cpu_cores_busy"] = {
        "machine": busy / wall,
        "web_and_worker": server / wall,
        "postgres": postgres / wall,
        "locust": locust_cpu / wall,
        "everything_else": max(0.0, busy - server - postgres - locust_cpu) / wall,
        "wall_s": wall,
    }
    # Machine-independent-ish: what the web processes (and the worker) spend per request.
    summary["web_cpu_ms_per_request"] = server * 1000 / max(1, summary["requests"])
    summary["step_seconds"] = seconds
    summary["passed"] = passed(summary)
    (work_dir / f"summary-{children}.json").write_text(json.dumps(summary, indent=1))
    return summary


_CHILD_CPU = {"seen": 0.0}


def _child_cpu_seconds() -> float:
    """CPU seconds of the child processes reaped since the last call (the locust run)."""
    t = os.times()
    total = t.children_user + t.children_system
    delta = total - _CHILD_CPU["seen"]
    _CHILD_CPU["seen"] = total
    return delta


def passed(summary: dict) -> bool:
    p95 = summary.get("p95_ms")
    return (
        summary.get("failures", 1) == 0
        and p95 is not None
        and p95 < GOAL_P95_MS
        and summary.get("steady_requests", 0) > 0
    )


def search_steps(start: int, max_steps: int):
    """Generator: yields N, is sent whether N passed. Doubles N while steps pass, then halves
    the gap between the largest pass and the smallest failure until it is within 10 %."""
    low, high, n = 0, None, start
    for _ in range(max_steps):
        ok = yield n
        if ok:
            low = n
        else:
            high = n
        if high is None:
            n = low * 2
        else:
            if low and high - low <= max(10, low // 10):
                return
            n = (low + high) // 2 if low else high // 2
        n += n % 2
        if n < 2 or n in {low, high}:
            return


def find_capacity(stack: dict, work_dir: Path, *, seconds: float, steps=None, start=100,
                  max_steps=6, log=print) -> dict:  # fmt: skip
    """Run the steps; return {"students_at_p95_100ms", "update_latency_p95_ms", "steps"}."""
    results: list[dict] = []
    if steps:
        for n in steps:
            results.append(run_step(n, seconds, stack, work_dir))
            log(step_line(results[-1]))
    else:
        search = search_steps(start, max_steps)
        ok = None
        try:
            n = next(search)
            while True:
                results.append(run_step(n, seconds, stack, work_dir))
                log(step_line(results[-1]))
                ok = results[-1]["passed"]
                n = search.send(ok)
        except StopIteration:
            pass
    best = max((r for r in results if r["passed"]), key=lambda r: r["children"], default=None)
    return {
        "students_at_p95_100ms": best["children"] if best else 0,
        "update_latency_p95_ms": (best or (results[-1] if results else {})).get(
            "update_latency_p95_ms"
        ),
        "step_seconds": seconds,
        "steps": results,
    }


def step_line(r: dict) -> str:
    cpu = r["cpu_cores_busy"]
    return (
        f"  {r['children']:>5} children: p95 {fmt(r['p95_ms'])} ms, p50 {fmt(r['p50_ms'])} ms, "
        f"{fmt(r['requests_per_s'])} req/s, failures {r['failures']}, update p95 "
        f"{fmt(r['update_latency_p95_ms'])} ms, moves {r['moves']}, games {r['games_finished']}"
        f", web CPU {r['web_cpu_ms_per_request']:.2f} ms/request"
        f" -> {'pass' if r['passed'] else 'FAIL'}  (cores busy: machine {cpu['machine']:.2f}, "
        f"web+worker {cpu['web_and_worker']:.2f}, postgres {cpu['postgres']:.2f}, locust "
        f"{cpu['locust']:.2f}, other {cpu['everything_else']:.2f})"
    )


def fmt(value) -> str:
    return "—" if value is None else f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def services_ready() -> str:
    """'' when the production setup can run here, else why not."""
    from django.conf import settings

    if not settings.USING_POSTGRES:
        return "the load test needs PostgreSQL (DATABASE_URL=postgres://...)"
    if not settings.REDIS_URL:
        return "the load test needs Redis (REDIS_URL=redis://...)"
    # Never import locust here: it monkey-patches the process for gevent.
    if importlib.util.find_spec("locust") is None:
        return "the load test needs locust (pip install -c constraints.txt -e '.[dev]')"
    return ""


def bench_load(mode: str = "full", *, log=None) -> tuple[dict, dict]:
    """For bench/run.py: (figures, details). ``mode``: "full" (the search, LOAD_STEP_SECONDS
    default 300), "quick" (one step of 20 children for 20 s) or "skip"."""
    log = log or (lambda line: print(line, file=sys.stderr))
    if mode == "skip":
        return {}, {"skipped": "BENCH_LOAD=skip"}
    reason = services_ready()
    if reason:
        log(f"  load: skipped, {reason}")
        return {}, {"skipped": reason}
    from bench.load.stack import production_stack

    var = Path(os.environ.get("VAR_DIR", REPO / "var" / "bench")) / "load"
    if mode == "quick":
        seconds, steps = float(os.environ.get("LOAD_STEP_SECONDS", "20")), [20]
    else:
        seconds = float(os.environ.get("LOAD_STEP_SECONDS", "300"))
        steps = [int(s) for s in os.environ.get("LOAD_STEPS", "").split(",") if s.strip()]
    with production_stack(var) as stack:
        result = find_capacity(
            stack,
            var,
            seconds=seconds,
            steps=steps or None,
            start=int(os.environ.get("LOAD_START", "100")),
            max_steps=int(os.environ.get("LOAD_MAX_STEPS", "6")),
            log=log,
        )
    # The uvicorn workers of each web server (bench/load/stack.py, or LOAD_WEB_WORKERS).
    env = os.environ.get
    result["web_server"] = "uvicorn"
    result["web_workers"] = int(env("LOAD_WEB_WORKERS") or 2 * len(os.sched_getaffinity(0)))
    figures = {
        "students_at_p95_100ms": result["students_at_p95_100ms"],
        "update_latency_p95_ms": result["update_latency_p95_ms"],
    }
    return figures, result


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="one step: 20 children, 20 s")
    parser.add_argument("--keep-db", action="store_true", help="do not recreate the database")
    parser.add_argument("--out", type=Path, default=None, help="write the result JSON here")
    args = parser.parse_args(argv)
    # SIGTERM stops the run as Ctrl+C does: the servers and locust are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.keep_db:
        from bench.environment import configure_environment

        configure_environment()
        import django

        django.setup()
    else:
        from bench.environment import setup_database

        setup_database()
    figures, details = bench_load("quick" if args.quick else "full", log=print)
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"figures": figures, "details": details}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
