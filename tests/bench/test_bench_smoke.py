"""The benchmark suite in quick mode: every figure is produced and written. Speed is never
asserted here (that is what `make bench` and docs/performance.md are for)."""

import json
import math

import pytest

from bench import report
from bench.engine import bench_engine
from bench.moves import bench_moves, percentile
from bench.page import bench_play_page
from bench.run import run_all
from games import engine

FLAT_KEYS = {
    "move_vs_baseline",
    "move_median_ms",
    "move_p95_ms",
    "baseline_median_ms",
    "baseline_p95_ms",
    "play_page_kib",
    "move_response_kib",
    "analytics_vs_sql",
    "recompute_s",
    "recompute_baseline_s",
    "heatmap_after_game_p95_ms",
    "heatmap_after_game_median_ms",
    "stats_task_median_ms",
}


def positive_finite(value) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_engine_bench_covers_every_game():
    figures, details = bench_engine(quick=True)
    assert set(figures["engine_games_per_s"]) == set(engine.GAMES)
    assert all(positive_finite(v) for v in figures["engine_games_per_s"].values())
    assert set(details["engine"]) == set(engine.GAMES)


def test_percentile_is_nearest_rank():
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([3.0], 95) == 3.0


@pytest.mark.django_db
def test_move_and_page_benches_in_quick_mode():
    figures, details = bench_moves(quick=True, keep_connection=True)
    move_keys = {k for k in FLAT_KEYS if k.startswith(("move_", "baseline_"))}
    assert all(positive_finite(figures[key]) for key in move_keys)
    assert details["rounds"] > 0
    figures, details = bench_play_page(quick=True, keep_connection=True)
    assert positive_finite(figures["play_page_kib"])
    urls = [r["url"] for r in details["play_page_resources"]]
    assert any("htmx" in u and u.endswith(".js") for u in urls)
    assert any(u.endswith(".css") for u in urls)
    assert len(urls) == len(set(urls))


def test_analytics_baseline_is_one_group_by():
    from bench.analytics import baseline_sql

    sql, params = baseline_sql(1)
    assert sql.count("SELECT") == 1 and "GROUP BY t.student_id, t.a, t.b" in sql
    assert params == [1]


# Committed data (transaction=True): the analytics bench starts a real Celery worker process,
# which must see the school, the attempts and the games (filesystem broker without REDIS_URL).
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_run_all_writes_the_result_files(tmp_path):
    figures, paths = run_all(quick=True, setup_db=False, out_dir=tmp_path)
    assert paths == {"json": tmp_path / "latest.json", "md": tmp_path / "latest.md"}
    stored = json.loads(paths["json"].read_text())
    assert stored == json.loads(json.dumps(figures))
    assert set(stored) >= FLAT_KEYS
    assert all(positive_finite(stored[key]) for key in FLAT_KEYS)
    assert set(stored["engine_games_per_s"]) == set(engine.GAMES)
    assert all(positive_finite(v) for v in stored["engine_games_per_s"].values())
    # Numbers only: flat numbers plus the one nested object of the engines.
    assert all(positive_finite(v) for k, v in stored.items() if k != "engine_games_per_s")
    md = paths["md"].read_text()
    for key in [*FLAT_KEYS, "engine_games_per_s.multiplipotion"]:
        assert f"`{key}`" in md
    for goal_key in report.GOALS:
        assert goal_key in md
    assert "cores:" in md and "python:" in md and "database:" in md
    assert not list(tmp_path.glob("*.tmp"))
