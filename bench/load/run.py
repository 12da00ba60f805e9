"""Find ``students_at_p95_100ms`` and ``update_latency_p95_ms`` (issue #6, issue #22).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/multiplipotion_bench \\
    REDIS_URL=redis://127.0.0.1:6379/6 .venv/bin/python -m bench.load.run

Starts the production setup (bench/load/stack.py: gunicorn's threaded workers serving the
pages, ``config.wsgi``, and uvicorn serving the streams, ``config.asgi``; a Celery worker;
DJANGO_ENV=production, on the given PostgreSQL and Redis), then runs steps of N simulated
children (bench/load/locustfile.py, headless, in LOAD_GENERATORS locust processes
of whole classes; pushed boards hold their stream open) for LOAD_STEP_SECONDS each (default
300) after a ramp-up of at most 30 s. A step passes when no request failed and, after the
ramp-up, the p95 of **every kind** of request (move, board GET, stream connect, page) is
below 100 ms.

The steps (LOAD_STEPS, default 120,180,240,300,400,500) run in order, past the knee: the run stops
only after LOAD_FAILS_TO_STOP failing steps in a row (default 2); if the largest step passed,
it goes on by the last increment, at most LOAD_EXTRA_STEPS more (default 2), until one fails.
The figure is the largest passing step below the first failing one, so it is a measured
limit (``limit_measured``); when no step failed it is reported as a lower bound.
``update_latency_p95_ms`` is the one measured at that step. A machine-speed calibration
(bench/calibration.py) is recorded before and after the steps.

Before the steps a warm-up step (LOAD_WARM_UP_CHILDREN, default 20, for LOAD_WARM_UP_SECONDS,
default 30; 0 skips it, as the quick mode does) runs and is not counted: the first counted
step then meets warm processes, as a server that has been up for a while is.

Environment: LOAD_STEPS, LOAD_STEP_SECONDS, LOAD_FAILS_TO_STOP, LOAD_EXTRA_STEPS,
LOAD_GENERATORS (default one per 500 children, at most one per core), LOAD_WEB_WORKERS
(gunicorn worker processes; default twice the cores), LOAD_PORTS (8100-8199), LOAD_THINK_S
(5: seconds between a child's moves). The database must be PostgreSQL and
REDIS_URL set (the production setup); its name must contain "bench", as for bench/run.py,
because the run starts from a new database (unless ``--keep-db``).
"""

from __future__ import annotations

import datetime as dt
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


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest rank, as bench/moves.py."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def figures_of(samples, steady) -> dict:
    all_ms = [s[2] for s in samples]
    steady_ms = [s[2] for s in steady]
    return {
        "count": len(all_ms),
        "failures": sum(1 for s in samples if not s[3]),
        "p50_ms": percentile(all_ms, 50),
        "p95_ms": percentile(all_ms, 95),
        "max_ms": max(all_ms) if all_ms else None,
        "steady_count": len(steady_ms),
        "steady_failures": sum(1 for s in steady if not s[3]),
        "steady_p50_ms": percentile(steady_ms, 50),
        "steady_p95_ms": percentile(steady_ms, 95),
    }


def summarize(raws: list[dict], settle: float) -> dict:
    """One step's figures from what each load process recorded (bench/load/locustfile.py
    ``raw``): every request ``(time sent, name, ms, ok)``, the update latencies ``(time seen,
    ms from the answer, ms from the request)``, the counts and errors. "Steady": sent from
    ``settle`` seconds after the last process had started all its children."""
    samples = [tuple(s) for r in raws for s in r["samples"]]
    steady_from = max(r["spawned_at"] for r in raws) + settle
    steady = [s for s in samples if s[0] >= steady_from]
    names = {
        name: figures_of([s for s in samples if s[1] == name], [s for s in steady if s[1] == name])
        for name in sorted({s[1] for s in samples})
    }
    kinds = {
        kind: figures_of(
            [s for s in samples if kind_of(s[1]) == kind],
            [s for s in steady if kind_of(s[1]) == kind],
        )
        for kind in KINDS
    }
    steady_ms = [s[2] for s in steady]
    window = (max(s[0] for s in steady) - steady_from) if steady else 0
    latency = [(a, b) for r in raws for at, a, b in r["update_latency"] if at >= steady_from]
    counts: dict[str, int] = {}
    errors: dict[str, int] = {}
    for r in raws:
        for key, value in r["counts"].items():
            counts[key] = counts.get(key, 0) + value
        for key, value in r["errors"].items():
            errors[key] = errors.get(key, 0) + value
    return {
        "children": sum(r["children"] for r in raws),
        "load_processes": len(raws),
        "requests": len(samples),
        "failures": sum(1 for s in samples if not s[3]),
        "errors": errors,
        "p95_ms": percentile(steady_ms, 95),
        "p50_ms": percentile(steady_ms, 50),
        "p99_ms": percentile(steady_ms, 99),
        "all_p95_ms": percentile([s[2] for s in samples], 95),
        "steady_requests": len(steady_ms),
        "steady_seconds": window,
        "requests_per_s": len(steady_ms) / window if window > 0 else None,
        "update_latency_p95_ms": percentile([a for a, _ in latency], 95),
        "update_latency_p50_ms": percentile([a for a, _ in latency], 50),
        "update_latency_from_send_p95_ms": percentile([b for _, b in latency], 95),
        "update_latency_samples": len(latency),
        "kinds": kinds,
        "names": names,
        **counts,
    }


def server_cpu_seconds(name: str) -> float:
    """CPU seconds of a whole server (PostgreSQL, Redis): each top process of that name with
    its live children and the children it has already reaped (a PostgreSQL backend of a
    request, under ``CONN_MAX_AGE=0``, lives for one request). The difference of two calls is
    exact for the server (a backend alive at the first call and gone by the second counts its
    time between the calls). All of the server: on a shared machine other users count too."""
    import psutil

    total = 0.0
    for p in psutil.process_iter(["name", "ppid"]):
        try:
            if not (p.info["name"] or "").startswith(name):
                continue
            parent = psutil.Process(p.info["ppid"]) if p.info["ppid"] else None
            if parent is not None and (parent.name() or "").startswith(name):
                continue  # a child: counted with its parent
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
            total += busy_seconds(p.children(recursive=True))
        except psutil.Error:
            continue
    return total


def postgres_cpu_seconds() -> float:
    return server_cpu_seconds("postgres")


def redis_cpu_seconds() -> float:
    return server_cpu_seconds("redis")


# The kinds of request a step's verdict looks at, each on its own p95 (locustfile.py names
# its requests; kind_of sorts the names).
KINDS = ("move", "board GET", "stream connect", "page")


def kind_of(name: str) -> str:
    if name.startswith("move "):
        return "move"
    if name.startswith("board GET") or name == "poll":
        return "board GET"
    if name.startswith("stream"):
        return "stream connect"
    return "page"


DEFAULT_STEPS = (120, 180, 240, 300, 400, 500)
# The load generator counts as saturated (its own queueing inflates the times it measures)
# when it keeps this much of its one core busy.
GENERATOR_SATURATED_CORES = 0.9


def cpu_snapshot(stack: dict, generator_pids=()) -> dict:
    web = [p.pid for p in stack["procs"] if p.name.startswith("web")]
    worker = [p.pid for p in stack["procs"] if not p.name.startswith("web")]
    generators = [cpu_seconds([pid]) for pid in generator_pids]
    return {
        "web": cpu_seconds(web),
        "worker": cpu_seconds(worker),
        "postgres": postgres_cpu_seconds(),
        "redis": redis_cpu_seconds(),
        "load_generator": sum(generators),
        "generators": generators,
        "machine": machine_busy_seconds(),
        "wall": time.monotonic(),
    }


PARTS = ("web", "worker", "postgres", "redis", "load_generator")


def cpu_report(before: dict, after: dict, children: int) -> dict:
    """Cores busy per part, and CPU milliseconds per child per minute of each part."""
    wall = after["wall"] - before["wall"]
    used = {k: after[k] - before[k] for k in (*PARTS, "machine")}
    known = sum(used[k] for k in PARTS)
    cores = {k: used[k] / wall for k in (*PARTS, "machine")}
    cores["everything_else"] = max(0.0, used["machine"] - known) / wall
    cores["web_and_worker"] = cores["web"] + cores["worker"]  # as before issue 22
    cores["locust"] = cores["load_generator"]
    cores["wall_s"] = wall
    # Each load process is one Python process: at most one core.
    per_process = [
        (b - a) / wall for a, b in zip(before["generators"], after["generators"], strict=False)
    ]
    cores["load_generator_busiest_process"] = max(per_process, default=cores["load_generator"])
    per_child = {k: used[k] * 1000 / wall * 60 / max(1, children) for k in PARTS}
    per_child["server"] = sum(per_child[k] for k in ("web", "worker", "postgres", "redis"))
    return {"cpu_cores_busy": cores, "cpu_ms_per_child_minute": per_child}


def exited_before(procs: list[subprocess.Popen], deadline: float) -> bool:
    """Wait until ``deadline`` (monotonic); True if a process ended before it."""
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            continue
        return True
    return False


def generators_for(children: int) -> int:
    """How many load processes (LOAD_GENERATORS, else one per 500 children, at most one per
    core): each is one Python process, so one core at most."""
    explicit = os.environ.get("LOAD_GENERATORS", "")
    if explicit:
        return max(1, int(explicit))
    return max(1, min(len(os.sched_getaffinity(0)), math.ceil(children / 500)))


def split_by_class(data: list[dict], parts: int) -> list[list[dict]]:
    """The children in ``parts`` groups of whole classes (a child is paired again, after a
    game, with a classmate of its session: both in one process, so the update latency between
    them is timed on one clock), as even in size as the classes allow."""
    classes: dict[int, list[dict]] = {}
    for child in data:
        classes.setdefault(child["assignment"], []).append(child)
    groups: list[list[dict]] = [[] for _ in range(min(parts, len(classes)))]
    for members in sorted(classes.values(), key=len, reverse=True):
        min(groups, key=len).extend(members)
    return groups


def start_locust(
    group: list[dict], work_dir: Path, name: str, host: str, *, duration: int, ramp_s: float
) -> tuple[subprocess.Popen, Path, Path]:
    """One load process for these children (bench/load/locustfile.py, headless): returns the
    process, the file its records go to when it stops, and its log."""
    from bench.load.seed import write_children

    raw_file = work_dir / f"raw-{name}.json"
    raw_file.unlink(missing_ok=True)
    env = {
        **os.environ,
        "LOAD_CHILDREN": str(write_children(group, work_dir / f"children-{name}.json")),
        "LOAD_SUMMARY": str(raw_file),
        "PYTHONPATH": str(REPO),
    }
    rate = max(1.0, len(group) / ramp_s)
    args = [
        locust_bin(), "-f", str(REPO / "bench" / "load" / "locustfile.py"), "--headless",
        "-u", str(len(group)), "-r", f"{rate:.2f}", "-t", f"{duration}s",
        "--host", host, "--stop-timeout", "3",
        "--only-summary", "--loglevel", "WARNING", "--skip-log-setup",
    ]  # fmt: skip
    log = work_dir / f"locust-{name}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    return proc, raw_file, log


def run_step(
    children: int, seconds: float, stack: dict, work_dir: Path, *, ramp_s: float | None = None
) -> dict:
    """Seed ``children`` children and run them for ``seconds`` after the ramp-up, in one or
    more locust processes (``generators_for``); return the step's figures with its verdict
    and the CPU use of each part of the machine."""
    from bench.load.heatmap import HeatmapProbe
    from bench.load.seed import seed_children

    children += children % 2
    work_dir.mkdir(parents=True, exist_ok=True)
    data = seed_children(children, label=str(children))
    groups = split_by_class(data, generators_for(children))
    summary_file = work_dir / f"summary-{children}.json"
    summary_file.unlink(missing_ok=True)
    ramp_s = ramp_s if ramp_s is not None else min(30.0, max(2.0, children / 20))
    settle = 5.0
    duration = math.ceil(ramp_s + settle + seconds)
    probe = HeatmapProbe()  # each game that ends: its end -> the heatmap's rows count it
    probe.start()
    before = cpu_snapshot(stack, ())
    _child_cpu_seconds()  # from here on: the locust processes only
    procs: list[subprocess.Popen] = []
    raw_files, logs = [], []
    steady: list[dict] = []  # the CPU at the end of the ramp-up and just before the end
    try:
        for k, group in enumerate(groups):
            proc, raw_file, log = start_locust(
                group, work_dir, f"{children}-{k}", stack["urls"][k % len(stack["urls"])],
                duration=duration, ramp_s=ramp_s,
            )  # fmt: skip
            procs.append(proc)
            raw_files.append(raw_file)
            logs.append(log)
        started = time.monotonic()
        for at in (ramp_s + settle, duration - 1):
            if exited_before(procs, started + at):
                break
            steady.append(cpu_snapshot(stack, [p.pid for p in procs]))
        for proc in procs:
            proc.wait(timeout=max(1.0, duration + 120 - (time.monotonic() - started)))
    except BaseException:
        probe.stopping.set()  # no figures from a step that did not end
        raise
    finally:  # a timeout, or the run stopped (Ctrl+C, SIGTERM)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    after = {**cpu_snapshot(stack, ()), "load_generator": _child_cpu_seconds()}
    probe.stop()  # after the CPU snapshot: its drain waits for the worker's last games
    missing = [log for log, raw in zip(logs, raw_files, strict=True) if not raw.exists()]
    if missing:
        raise RuntimeError(f"locust wrote no summary:\n{missing[0].read_text()[-3000:]}")
    summary = summarize([json.loads(f.read_text()) for f in raw_files], settle)
    # The games that ended after the ramp-up, as the requests' figures (probe.since: the
    # step's start on the database's clock, which is this machine's).
    summary["heatmap_after_game"] = probe.figures(
        probe.since + dt.timedelta(seconds=ramp_s + settle)
    )
    # The CPU of the children's play (after the ramp-up, whose sign-ins are costly) and, for
    # reference, of the whole step with its ramp-up and the servers' answers to it.
    whole = cpu_report(before, after, summary["children"])
    summary.update(cpu_report(*steady, summary["children"]) if len(steady) == 2 else whole)
    summary["cpu_window"] = "after the ramp-up" if len(steady) == 2 else "whole step"
    summary["cpu_whole_step"] = whole
    server = (after["web"] - before["web"]) + (after["worker"] - before["worker"])
    # Machine-independent-ish: what the web processes (and the worker) spend per request.
    summary["web_cpu_ms_per_request"] = server * 1000 / max(1, summary["requests"])
    summary["generator_saturated"] = (
        summary["cpu_cores_busy"]["load_generator_busiest_process"] >= GENERATOR_SATURATED_CORES
    )
    summary["step_seconds"] = seconds
    summary["slowest_kind"] = slowest_kind(summary)
    summary["passed"] = passed(summary)
    summary_file.write_text(json.dumps(summary, indent=1))
    for f in raw_files:  # every request's time: large, and summed up above
        f.unlink()
    return summary


_CHILD_CPU = {"seen": 0.0}


def _child_cpu_seconds() -> float:
    """CPU seconds of the child processes reaped since the last call (the locust run)."""
    t = os.times()
    total = t.children_user + t.children_system
    delta = total - _CHILD_CPU["seen"]
    _CHILD_CPU["seen"] = total
    return delta


def kind_p95(summary: dict) -> dict[str, float | None]:
    """The steady p95 of each kind of request that was made after the ramp-up."""
    return {
        kind: figures.get("steady_p95_ms")
        for kind, figures in summary.get("kinds", {}).items()
        if figures.get("steady_count")
    }


def slowest_kind(summary: dict) -> str | None:
    p95 = {k: v for k, v in kind_p95(summary).items() if v is not None}
    return max(p95, key=p95.__getitem__) if p95 else None


def passed(summary: dict) -> bool:
    """No failure at all, requests after the ramp-up, and every kind's p95 under 100 ms."""
    p95 = kind_p95(summary)
    return (
        summary.get("failures", 1) == 0
        and summary.get("steady_requests", 0) > 0
        and bool(p95)
        and all(v is not None and v < GOAL_P95_MS for v in p95.values())
    )


def capacity(results: list[dict]) -> dict:
    """The largest passing step below the first failing one (in the order of N)."""
    ordered = sorted(results, key=lambda r: r["children"])
    first_fail = next((r["children"] for r in ordered if not r["passed"]), None)
    limit = first_fail if first_fail is not None else math.inf
    below = [r for r in ordered if r["passed"] and r["children"] < limit]
    best = below[-1] if below else None
    return {
        "students_at_p95_100ms": best["children"] if best else 0,
        "first_failing_step": first_fail,
        # A limit when a step above the figure failed; else only "at least this many".
        "limit_measured": first_fail is not None and best is not None,
        # Steps that passed above a failing one (the machine's noise near the knee).
        "passed_above_a_failure": [
            r["children"] for r in ordered if r["passed"] and r["children"] > limit
        ],
        "best": best,
    }


def find_capacity(stack: dict, work_dir: Path, *, seconds: float, steps=None,
                  fails_to_stop=2, extra_steps=2, warm_up=(0, 0.0), log=print) -> dict:  # fmt: skip
    """Run the steps in order, past the knee; return the figures and every step. ``warm_up``
    (children, seconds): a step run first and not counted, so that the first counted step
    does not pay for the processes' cold start (imports, compiled templates and queries,
    connections, the database's caches): without it the first counted step's pages were
    several times slower than the same step run second (docs/performance.md, "Load")."""
    planned = sorted(steps or DEFAULT_STEPS)
    warmed = None
    if warm_up[0] and warm_up[1]:
        warmed = run_step(warm_up[0], warm_up[1], stack, work_dir / "warm-up")
        log(f"  warm-up, not counted:\n{step_line(warmed)}")
    results: list[dict] = []
    fails_in_a_row = 0
    queue = list(planned)
    extra = 0
    while queue:
        n = queue.pop(0)
        results.append(run_step(n, seconds, stack, work_dir))
        log(step_line(results[-1]))
        fails_in_a_row = 0 if results[-1]["passed"] else fails_in_a_row + 1
        if fails_in_a_row >= fails_to_stop:
            break
        if not queue and results[-1]["passed"] and extra < extra_steps and len(planned) > 1:
            extra += 1
            queue.append(n + (planned[-1] - planned[-2]))  # go on: no failure seen yet
    found = capacity(results)
    best = found.pop("best")
    at = best or (results[-1] if results else {})  # the step whose latencies are reported
    return {
        **found,
        "update_latency_p95_ms": at.get("update_latency_p95_ms"),
        # Issue 23: the game-end task under that load.
        "heatmap_after_game": at.get("heatmap_after_game"),
        "step_seconds": seconds,
        "steps": results,
        "warm_up": warmed,
    }


def step_line(r: dict) -> str:
    cpu = r["cpu_cores_busy"]
    per = r["cpu_ms_per_child_minute"]
    kinds = ", ".join(f"{k} {fmt(v)}" for k, v in kind_p95(r).items())
    return (
        f"  {r['children']:>5} children: p95 {fmt(r['p95_ms'])} ms ({kinds}), "
        f"{fmt(r['requests_per_s'])} req/s, failures {r['failures']}, update p95 "
        f"{fmt(r['update_latency_p95_ms'])} ms, moves {r['moves']}, games {r['games_finished']}"
        f", heatmap p95 {fmt((r.get('heatmap_after_game') or {}).get('p95_ms'))} ms"
        f" -> {'pass' if r['passed'] else 'FAIL'}  (cores busy: machine {cpu['machine']:.2f}, "
        f"web {cpu['web']:.2f}, worker {cpu['worker']:.2f}, postgres {cpu['postgres']:.2f}, "
        f"redis {cpu['redis']:.2f}, load generator {cpu['load_generator']:.2f}"
        f"{' SATURATED' if r['generator_saturated'] else ''}, other "
        f"{cpu['everything_else']:.2f}; CPU ms per child-minute: server {per['server']:.0f})"
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
    """For bench/run.py: (figures, details). ``mode``: "full" (the steps, LOAD_STEP_SECONDS
    default 300), "quick" (one step of 20 children for 20 s) or "skip". The machine-speed
    calibration is measured before and after the steps."""
    log = log or (lambda line: print(line, file=sys.stderr))
    if mode == "skip":
        return {}, {"skipped": "BENCH_LOAD=skip"}
    reason = services_ready()
    if reason:
        log(f"  load: skipped, {reason}")
        return {}, {"skipped": reason}
    from bench.calibration import machine_speed
    from bench.load.stack import production_stack

    var = Path(os.environ.get("VAR_DIR", REPO / "var" / "bench")) / "load"
    if mode == "quick":
        seconds, steps = float(os.environ.get("LOAD_STEP_SECONDS", "20")), [20]
    else:
        seconds = float(os.environ.get("LOAD_STEP_SECONDS", "300"))
        steps = [int(s) for s in os.environ.get("LOAD_STEPS", "").split(",") if s.strip()]
    # A short step first, not counted (find_capacity); none in quick mode (the suite's).
    warm_up = (
        int(os.environ.get("LOAD_WARM_UP_CHILDREN", "0" if mode == "quick" else "20")),
        float(os.environ.get("LOAD_WARM_UP_SECONDS", "0" if mode == "quick" else "30")),
    )
    speed_before = machine_speed(quick=mode == "quick")
    log(f"  machine speed: {speed_line(speed_before)}")
    with production_stack(var) as stack:
        result = find_capacity(
            stack,
            var,
            seconds=seconds,
            steps=steps or None,
            fails_to_stop=int(os.environ.get("LOAD_FAILS_TO_STOP", "2")),
            extra_steps=int(os.environ.get("LOAD_EXTRA_STEPS", "2")),
            warm_up=warm_up,
            log=log,
        )
    speed_after = machine_speed(quick=mode == "quick")
    log(f"  machine speed after: {speed_line(speed_after)}")
    result["machine_speed"] = {"before": speed_before, "after": speed_after}
    # The pages' server's worker processes (bench/load/stack.py, or LOAD_WEB_WORKERS).
    env = os.environ.get
    result["web_server"] = "gunicorn gthread (pages) and uvicorn (streams)"
    result["web_workers"] = int(env("LOAD_WEB_WORKERS") or 2 * len(os.sched_getaffinity(0)))
    figures = {
        "students_at_p95_100ms": result["students_at_p95_100ms"],
        "update_latency_p95_ms": result["update_latency_p95_ms"],
        "heatmap_after_game_p95_ms": (result["heatmap_after_game"] or {}).get("p95_ms"),
        "heatmap_after_game_median_ms": (result["heatmap_after_game"] or {}).get("p50_ms"),
        # beside the capacity: how fast the machine was (the mean of before and after)
        "load_machine_loop_ms": (speed_before["python_loop_ms"] + speed_after["python_loop_ms"])
        / 2,
        "load_machine_engine_games_per_s": (
            speed_before["engine_games_per_s"] + speed_after["engine_games_per_s"]
        )
        / 2,
    }
    return figures, result


def speed_line(speed: dict) -> str:
    return (
        f"pure-Python loop {speed['python_loop_ms']:.1f} ms, engine "
        f"{speed['engine_games_per_s']:.0f} games/s"
    )


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
