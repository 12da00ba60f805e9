"""Write bench/results/latest.json (numbers only) and latest.md (readable, with goals)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from pathlib import Path

import django
from django.conf import settings
from django.db import connection

from bench.evidence_metrics import GOALS as EVIDENCE_METRIC_GOALS

RESULTS_DIR = Path(__file__).resolve().parent / "results"

# The evidence week's goals (bench/evidence_metrics.py: the names and thresholds, each
# figure the worst of the checking seeds): (unit, what).
EVIDENCE_GOALS = {
    "not_yet_precision": ("", 'a week: squares "not yet" on a fact truly under 60 % (precision)'),
    "not_yet_recall": ("", 'a week: facts truly under 60 % shown "not yet" (recall)'),
    "not_yet_on_facts_nobody_fails": (
        "of 24",
        'a week: children shown "not yet" on a fact no child is weak on (the worst fact)',
    ),
    "improvers_learned_shown": (
        "",
        'a week: facts learned during the week no longer "not yet" (the worst improver)',
    ),
    "order_pattern_recall": ("", "a week: children who know facts one way round only, named"),
    "main_error_right": ("", "a week: the main kind of mistake named right"),
    "kinds_agree": ("", "a week: wrong answers named as the kind that made them"),
    "kinds_named": ("", "a week: wrong answers of a known kind given a kind (not unclear)"),
    "help_precision": ("", 'a week: "needs help", precision (truly likely right < 60 %)'),
    "help_recall": ("", 'a week: "needs help", recall (truly likely right < 60 %)'),
}
# key (dotted for the nested object) -> (comparison, goal, unit, what)
GOALS = {
    "engine_games_per_s.multiplipotion": (">=", 500, "games/s", "engine, bot vs bot, one core"),
    "move_vs_baseline": ("<=", 2.5, "×", "move time ÷ bare DB-writes time (medians)"),
    "play_page_kib": ("<=", 60, "KiB", "first load of the play screen, gzip 6, all assets"),
    "move_response_kib": ("<=", 4, "KiB", "board partial after a place, gzip 6"),
    # config/prepared.py stays only while it saves a third of each query at least.
    "prepared_seats_speedup": (
        ">=",
        1.5,
        "×",
        "the match with its seats: ORM query ÷ PreparedQuery (medians)",
    ),
    "prepared_child_speedup": (
        ">=",
        1.5,
        "×",
        "the signed-in child with class and school: ORM ÷ PreparedQuery (medians)",
    ),
    # bench/renders.py, the guard of a board that grows dearer (issue 40's goal: the pages'
    # server's board within 1.3× of a bare view making the same queries, same process).
    "board_vs_bare": ("<=", 1.3, "×", "child's board GET, CPU ÷ a bare view's, same queries"),
    "poll_vs_bare": ("<=", 1.3, "×", "child's full poll, CPU ÷ a bare view's, same queries"),
    "stats_task_db_ms": ("<=", 10, "ms", "game-end task, one child: database time, median"),
    "stats_task_growth": ("<=", 1.2, "×", "the same task, 10× the child's history (worst step)"),
    "heatmap_after_game_p95_ms": (
        "<=",
        1000,
        "ms",
        "game end → its attempts counted into FactStat, under the capacity step's load, p95",
    ),
    "students_at_p95_100ms": (
        ">=",
        1000,
        "children",
        "children sustained with every request kind's p95 < 100 ms, no error",
    ),
    "update_latency_p95_ms": (
        "<=",
        250,
        "ms",
        "a move's answer → the other seat's stream event and board GET show it, p95",
    ),
    **{
        f"evidence_{name}": (comparison, goal, *EVIDENCE_GOALS.get(name, ("", name)))
        for name, (comparison, goal) in EVIDENCE_METRIC_GOALS.items()
    },
}
INFO_KEYS = {
    "move_median_ms": ("ms", "move, median"),
    "move_p95_ms": ("ms", "move, p95"),
    "baseline_median_ms": ("ms", "bare DB writes (baseline), median"),
    "baseline_p95_ms": ("ms", "bare DB writes (baseline), p95"),
    "recompute_vs_baseline": (
        "×",
        "full replay rebuild ÷ the same job without the model, same connections (medians)",
    ),
    "recompute_s": ("s", "full replay rebuild (RecomputeJob.run), median of 3"),
    "recompute_baseline_s": ("s", "the same job without the model (counts only), median of 3"),
    "recompute_attempts_per_s": ("attempts/s", "full replay rebuild: attempts replayed a second"),
    "stats_task_wall_ms": ("ms", "game-end task, one child: wall time, median"),
    "stats_task_baseline_wall_ms": ("ms", "the same task without the model: wall time, median"),
    "stats_task_baseline_db_ms": ("ms", "the same task without the model: database time"),
    "heatmap_after_game_median_ms": ("ms", "game end → heatmap, under load, median"),
    "heatmap_after_game_idle_p95_ms": ("ms", "game end → heatmap, an idle worker, p95"),
    "heatmap_after_game_idle_median_ms": ("ms", "game end → heatmap, an idle worker, median"),
    "stats_task_median_ms": ("ms", "update_match_stats in the worker (its log), median"),
    "load_machine_loop_ms": ("ms", "machine speed during the load test: a fixed Python loop"),
    "load_machine_engine_games_per_s": ("games/s", "machine speed during the load test: engine"),
    "stats_task_roundtrips_ms": (
        "ms",
        "as many SELECT 1 as the task's statements, one transaction, median",
    ),
    # bench/renders.py: a signed-in child's board GET, full poll and move, CPU of the web
    # process per request (medians), through the pages' WSGI handler and Django's ASGI one.
    **{
        f"{kind}_cpu_ms_{side}": ("ms CPU", f"{what}, {where}")
        for kind, what in (
            ("board", "child's board GET"),
            ("poll", "child's poll, full answer"),
            ("move", "child's move"),
        )
        for side, where in (
            ("wsgi", "WSGI (the pages' server)"),
            ("asgi", "Django's ASGI handler, CONN_MAX_AGE=0"),
        )
    },
    "board_cpu_ms_bare": ("ms CPU", "a bare view with the board's queries, WSGI"),
    "poll_cpu_ms_bare": ("ms CPU", "a bare view with the full poll's queries, WSGI"),
    "board_wsgi_speedup": ("×", "board GET: CPU under ASGI ÷ under WSGI"),
    "poll_wsgi_speedup": ("×", "full poll: CPU under ASGI ÷ under WSGI"),
    "move_wsgi_speedup": ("×", "move: CPU under ASGI ÷ under WSGI"),
    "board_queries": ("queries", "a child's board GET (session read and presence excluded)"),
    "poll_queries": ("queries", "a child's poll, full answer"),
    "move_queries": ("queries", "a child's move (place), its transaction included"),
}


def runs(seconds) -> str:
    """``[2.31, 2.2, 2.4]`` → "2.31, 2.20, 2.40 s" (older result files have none)."""
    return ", ".join(f"{t:.2f}" for t in seconds or []) + " s" if seconds else "runs not recorded"


def lookup(figures: dict, key: str):
    value = figures
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def verdict(value, comparison, goal) -> str:
    if value is None:
        return "not run"
    ok = value >= goal if comparison == ">=" else value <= goal
    return "pass" if ok else "FAIL"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, str]:
    vendor = connection.vendor
    if vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            vendor = f"PostgreSQL {cursor.fetchone()[0]}"
    elif vendor == "sqlite":
        import sqlite3

        vendor = f"SQLite {sqlite3.sqlite_version}"
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": str(os.cpu_count()),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "database": vendor,
        "cache": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1],
        "platform": platform.platform(),
    }


def fmt(value) -> str:
    if value is None:
        return "—"
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"


def rows(figures: dict) -> list[tuple[str, str, str, str]]:
    out = []
    for key, (comparison, goal, unit, _what) in GOALS.items():
        value = lookup(figures, key)
        out.append(
            (
                key,
                f"{fmt(value)} {unit}".strip(),
                f"{comparison} {goal}",
                verdict(value, comparison, goal),
            )
        )
    for slug, value in sorted(figures.get("engine_games_per_s", {}).items()):
        key = f"engine_games_per_s.{slug}"
        if key not in GOALS:
            out.append((key, f"{fmt(value)} games/s", "—", "info"))
    for key, (unit, _what) in INFO_KEYS.items():
        out.append((key, f"{fmt(figures.get(key))} {unit}", "—", "info"))
    return out


def text_table(figures: dict) -> str:
    table = [("figure", "value", "goal", "result"), *rows(figures)]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown(figures: dict, details: dict, info: dict) -> str:
    out = ["# Benchmark results", ""]
    out += [f"Run {info['date']} by `make bench` (bench/run.py). Goals: docs/performance.md.", ""]
    out += ["| figure | value | goal | result |", "|---|---|---|---|"]
    out += [f"| `{k}` | {v} | {g} | {r} |" for k, v, g, r in rows(figures)]
    moves = details.get("moves")
    if moves:
        out += ["", "## Move versus baseline", ""]
        out += [
            f"{moves['rounds']} timed moves of each side after {moves['warmup']} warm-up pairs, "
            "interleaved ABBA: a signed-in child's moves in the middle of games of a class's "
            f"game session ({moves.get('matches', '?')} matches), place, capture and end of "
            "turn as they come in play; the baseline does the same move's writes on a twin.",
            "",
            "| request | median ms | p95 ms |",
            "|---|---|---|",
            f"| real move (POST → board partial) | {fmt(figures['move_median_ms'])} "
            f"| {fmt(figures['move_p95_ms'])} |",
            f"| baseline: bare view, same DB writes | {fmt(figures['baseline_median_ms'])} "
            f"| {fmt(figures['baseline_p95_ms'])} |",
            *(
                f"| {kind}: {d['count']} moves, real / baseline median | "
                f"{fmt(d['median_ms'])} / {fmt(d['baseline_median_ms'])} | |"
                for kind, d in moves.get("by_type", {}).items()
            ),
            "",
            f"Move response (median): {moves['move_response_raw_bytes']:,.0f} B raw, "
            f"{moves['move_response_gzip_bytes']:,.0f} B gzip.",
        ]
    resources = details.get("play_page_resources")
    if resources:
        out += ["", "## Play screen, first load", "", "| resource | kind | raw B | gzip B |"]
        out += ["|---|---|---|---|"]
        out += [f"| `{r['url']}` | {r['kind']} | {r['raw']:,} | {r['gzip']:,} |" for r in resources]
        raw = sum(r["raw"] for r in resources)
        gz = sum(r["gzip"] for r in resources)
        out += [f"| **total** | | {raw:,} | {gz:,} ({gz / 1024:.1f} KiB) |"]
    analytics = details.get("analytics")
    if analytics:
        out += analytics_section(figures, analytics)
    load = details.get("load")
    if load and load.get("steps"):
        out += load_section(load)
    week = details.get("evidence_week")
    if week:
        out += evidence_section(figures, week)
    engine = details.get("engine")
    if engine:
        out += ["", "## Engines", "", "| game | games | bots | mean plies |", "|---|---|---|---|"]
        out += [
            f"| {slug} | {d['games']} | {d['bots']} | {d['mean_plies']:.1f} |"
            for slug, d in sorted(engine.items())
        ]
    out += ["", "## Machine", ""]
    out += [f"- {name}: {value}" for name, value in info.items()]
    return "\n".join(out) + "\n"


def load_section(load: dict) -> list[str]:
    """Every step of the load test: each kind's p95, the verdict, and the CPU of each part."""
    from bench.load.run import KINDS

    figure = load["students_at_p95_100ms"]
    limit = (
        f"a measured limit (the first failing step: {load['first_failing_step']})"
        if load.get("limit_measured")
        else f"every step failed, the first at {load['first_failing_step']}"
        if not figure
        else "not a measured limit (no step above it failed)"
    )
    out = ["", "## Load", ""]
    out += [
        f"{load['step_seconds']:.0f} s steps, {load.get('web_workers')} "
        f"{load.get('web_server')} workers. `students_at_p95_100ms` = {figure}: {limit}.",
        "",
        "| children | move p95 | board GET p95 | stream connect p95 | page p95 | failures "
        "| update p95 (from answer) | req/s | games ended | heatmap p95 | result |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in load["steps"]:
        kinds = r.get("kinds", {})
        p95 = [fmt(kinds.get(k, {}).get("steady_p95_ms")) for k in KINDS]
        heat = r.get("heatmap_after_game") or {}
        late = f" ({heat['not_counted']} not counted)" if heat.get("not_counted") else ""
        out.append(
            f"| {r['children']} | {' | '.join(p95)} | {r['failures']} "
            f"| {fmt(r.get('update_latency_p95_ms'))} | {fmt(r.get('requests_per_s'))} "
            f"| {heat.get('games', '—')} | {fmt(heat.get('p95_ms'))}{late} "
            f"| {'pass' if r['passed'] else 'FAIL'} |"
        )
    poll_ms = next(
        (
            r["heatmap_after_game"]["poll_interval_ms"]
            for r in load["steps"]
            if r.get("heatmap_after_game")
        ),
        None,
    )
    out += [
        "",
        "Heatmap: each game that ended after the ramp-up, from its last move to the worker's "
        f"game-end task having counted its attempts (bench/load/heatmap.py, polled every "
        f"{fmt(poll_ms)} ms).",
    ]
    out += [
        "",
        "CPU, cores busy (and ms per child per minute), "
        f"{load['steps'][-1].get('cpu_window', 'whole step')}; PostgreSQL and Redis are the "
        "whole servers, the load generator runs on the same cores:",
        "",
        "| children | web | worker | PostgreSQL | Redis | load generator | everything else "
        "| machine |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in load["steps"]:
        cores, per = r["cpu_cores_busy"], r["cpu_ms_per_child_minute"]
        parts = [
            f"{cores[k]:.2f} ({per[k]:.0f})"
            for k in ("web", "worker", "postgres", "redis", "load_generator")
        ]
        saturated = " saturated" if r.get("generator_saturated") else ""
        out.append(
            f"| {r['children']} | {' | '.join(parts)}{saturated} "
            f"| {cores['everything_else']:.2f} | {cores['machine']:.2f} |"
        )
    speed = load.get("machine_speed")
    if speed:
        out += ["", "Machine speed (bench/calibration.py, best of a few tries, one core):", ""]
        out += [
            f"- {when}: a fixed Python loop {s['python_loop_ms']:.1f} ms, the engine "
            f"{s['engine_games_per_s']:.0f} MultipliPotion games/s ({s['at']})"
            for when, s in speed.items()
        ]
    return out


def analytics_section(figures: dict, analytics: dict) -> list[str]:
    """The full replay rebuild and the game-end task, each beside its baseline (the same code
    path with the knowledge model taken out: bench/analytics.py)."""
    by_history = analytics.get("stats_task_db_ms_by_history", {})
    wall = analytics.get("stats_task_wall_ms_by_history", {})
    base_wall = analytics.get("stats_task_baseline_wall_ms_by_history", {})
    return [
        "",
        "## Analytics",
        "",
        f"{analytics['attempts']:,} attempts of {analytics['children']:,} children in "
        f"{analytics['classes']} classes of one school ({analytics['groups']:,} FactStat rows; "
        f"bulk insert {analytics['insert_s']:.1f} s), on "
        f"{analytics.get('recompute_connections', 1)} connection(s). Full replay rebuild "
        f"(`RecomputeJob.run`: every attempt through the knowledge model's fold) "
        f"{fmt(figures.get('recompute_s'))} s (median of 3, "
        f"{runs(analytics.get('recompute_runs_s'))}); the baseline, the same job without the "
        f"model (the same reads and writes, the counts only), "
        f"{fmt(figures.get('recompute_baseline_s'))} s ({runs(analytics.get('baseline_runs_s'))})"
        f": {fmt(figures.get('recompute_vs_baseline'))} ×, "
        f"{fmt(figures.get('recompute_attempts_per_s'))} attempts replayed a second.",
        "",
        "| game-end task: the child's history | database ms | wall ms "
        "| wall ms without the model |",
        "|---|---|---|---|",
        *(
            f"| {int(n):,} attempts | {fmt(ms)} | {fmt(wall.get(n))} | {fmt(base_wall.get(n))} |"
            for n, ms in by_history.items()
        ),
        "",
        f"Heatmap after a game, an idle worker: {analytics['games']} games, a real Celery "
        f"worker on the {analytics['broker']} broker; median "
        f"{fmt(figures.get('heatmap_after_game_idle_median_ms'))} ms, p95 "
        f"{fmt(figures.get('heatmap_after_game_idle_p95_ms'))} ms (under load: Load, below).",
    ]


def evidence_section(figures: dict, week: dict) -> list[str]:
    """The evidence week: every goal on every checking seed, and the worst, which is the
    figure (bench/evidence_week.py, bench/evidence_metrics.py)."""
    seeds = [str(seed) for seed in week.get("seeds", [])]
    by_seed = {seed: week.get("runs", {}).get(seed, {}) for seed in seeds}
    out = ["", "## Evidence week", ""]
    out += [
        f"The population `{week.get('population')}` plays one school week through the real "
        "models and tasks, on each checking seed; what the teacher's pages say of each child is "
        "scored against the children's truth. Each goal's figure is its worst seed. "
        'docs/performance.md, "evidence_week".',
        "",
        "| figure | goal | " + " | ".join(f"seed {seed}" for seed in seeds) + " | worst | result |",
        "|---|---|" + "---|" * len(seeds) + "---|---|",
    ]
    for name, (comparison, goal) in EVIDENCE_METRIC_GOALS.items():
        what = EVIDENCE_GOALS.get(name, ("", name))[1]
        values = [by_seed[seed].get("metrics", {}).get(name) for seed in seeds]
        worst = figures.get(f"evidence_{name}")
        out.append(
            f"| {what} (`evidence_{name}`) | {comparison} {goal} | "
            + " | ".join(fmt(v) for v in values)
            + f" | {fmt(worst)} | {verdict(worst, comparison, goal)} |"
        )
    out.append("")
    for seed in seeds:
        d = by_seed[seed]
        if not d:
            continue
        size = d.get("size", {})
        attempts = ", ".join(
            f"{k} {v}" for k, v in sorted(d.get("attempts_by_context", {}).items())
        )
        out.append(
            f"- seed {seed}: {size.get('children', '?')} children, {size.get('sessions', '?')} "
            f"session(s) of {size.get('minutes', '?')} minutes; {d.get('warm_ups', 0)} warm-ups, "
            f"{d.get('games', 0)} games ({d.get('games_finished', 0)} finished); attempts "
            f"{attempts or 'none'}; {d.get('wall_s', 0):.0f} s to run."
        )
    return out


def write_results(figures: dict, details: dict, out_dir: Path | None = None) -> dict:
    """Write latest.json and latest.md into ``out_dir``; return their paths."""
    out_dir = Path(out_dir or RESULTS_DIR)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "latest.json", "md": out_dir / "latest.md"}
    texts = {
        "json": json.dumps(figures, indent=2, sort_keys=True) + "\n",
        "md": markdown(figures, details, machine_info()),
    }
    for kind, path in paths.items():
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(texts[kind], encoding="utf-8")
        tmp.replace(path)
    return paths
