"""The benchmark suite in quick mode: every figure is produced and written. Speed is never
asserted here (that is what `make bench` and docs/performance.md are for)."""

import datetime as dt
import json
import math

import pytest
from django.db.models import Count

from bench import report
from bench.engine import bench_engine
from bench.evidence_week import bench_evidence_week
from bench.moves import bench_moves
from bench.moves import percentile
from bench.page import bench_play_page
from bench.run import run_all
from games import registry

FLAT_KEYS = {
    "move_vs_baseline",
    "move_median_ms",
    "move_p95_ms",
    "baseline_median_ms",
    "baseline_p95_ms",
    "play_page_kib",
    "move_response_kib",
    "prepared_seats_speedup",
    "prepared_child_speedup",
    "analytics_vs_floor",
    "stats_task_db_ms",
    "stats_task_growth",
    "recompute_s",
    "recompute_floor_s",
    "heatmap_after_game_idle_p95_ms",
    "heatmap_after_game_idle_median_ms",
    "stats_task_median_ms",
}

# The evidence week's figures: shares and counts, where 0 is a possible result (a benchmark:
# the goals are never asserted here).
EVIDENCE_KEYS = {
    f"evidence_{key}{arm}"
    for key in (
        "decided_median",
        "focus_recall",
        "help_precision",
        "help_recall",
        "attempts_per_minute",
        "attempts_per_minute_game",
    )
    for arm in ("", "_warm_up_2", "_games_only")
} | {"evidence_attempts_per_minute_warm_up", "evidence_attempts_per_minute_warm_up_warm_up_2"}
EVIDENCE_SHARES = {k for k in EVIDENCE_KEYS if "recall" in k or "precision" in k}


def positive_finite(value) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_engine_bench_covers_every_game():
    figures, details = bench_engine(quick=True)
    assert set(figures["engine_games_per_s"]) == set(registry.rules())
    assert all(positive_finite(v) for v in figures["engine_games_per_s"].values())
    assert set(details["engine"]) == set(registry.rules())


def test_percentile_is_nearest_rank():
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([3.0], 95) == 3.0


@pytest.mark.django_db
def test_move_and_page_benches_in_quick_mode():
    figures, details = bench_moves(quick=True, keep_connection=True)
    move_keys = {k for k in FLAT_KEYS if k.startswith(("move_", "baseline_"))}
    assert all(positive_finite(figures[key]) for key in move_keys)
    assert details["rounds"] > 0
    # A signed-in child's moves on a class session's matches, in the middle of games: every
    # kind of move a child makes (the seeds are fixed, so the mix is too), each timed.
    by_type = details["by_type"]
    assert sum(d["count"] for d in by_type.values()) == details["rounds"]
    for kind in ("place", "capture", "end_turn"):
        assert by_type[kind]["count"] > 0, kind
        assert positive_finite(by_type[kind]["median_ms"]), kind
        assert positive_finite(by_type[kind]["baseline_median_ms"]), kind
    assert details["matches"] > 1
    figures, details = bench_play_page(quick=True, keep_connection=True)
    assert positive_finite(figures["play_page_kib"])
    urls = [r["url"] for r in details["play_page_resources"]]
    assert any("htmx" in u and u.endswith(".js") for u in urls)
    assert any(u.endswith(".css") for u in urls)
    assert len(urls) == len(set(urls))


# Committed data: the ASGI sides run the requests on threads with their own connections.
@pytest.mark.django_db(transaction=True)
def test_renders_bench_in_quick_mode():
    from bench.renders import KINDS
    from bench.renders import SIDES
    from bench.renders import bench_renders

    figures, details = bench_renders(quick=True, keep_connection=True)
    for kind in KINDS:
        assert all(positive_finite(figures[f"{kind}_cpu_ms_{side}"]) for side in SIDES)
        assert positive_finite(figures[f"{kind}_asgi_speedup"])
        assert figures[f"{kind}_queries"] >= 2
    assert details["rounds"] > 0


@pytest.mark.django_db
def test_the_analytics_floor_computes_the_rebuilds_outputs():
    """``analytics_vs_floor``'s B is one statement with the same outputs as the rebuild's
    FactStat rows: per child × fact the counts, error kinds, last attempt, and the latest
    ten's count, right answers and median (both halves of the children together)."""
    from django.db import connection

    from bench.analytics import attempt_rows
    from bench.analytics import floor_sql
    from bench.analytics import insert_attempts
    from bench.analytics import make_school
    from classroom import diagnosis
    from classroom.models import FactStat

    school, _rooms, kids, moves = make_school(2, 3)
    insert_attempts(attempt_rows(600, kids, moves))
    FactStat.objects.rebuild_for([pk for ids in kids.values() for pk in ids])
    got = {}
    with connection.cursor() as cursor:
        for part in (0, 1):
            sql = floor_sql(connection.vendor, part, 2)
            assert sql.count("SELECT") == 2 and "GROUP BY student_id, a, b" in sql
            cursor.execute(sql, [school.pk])
            for row in cursor.fetchall():
                got[row[:3]] = row[3:]
    expected = {}
    for f in FactStat.objects.all():
        latest = f.latest
        expected[(f.student_id, f.a, f.b)] = (
            f.attempts, f.correct, f.omissions, f.last_attempt_at,
            *(f.errors[kind] for kind in diagnosis.ERROR_KINDS),
            len(latest), sum(e[2] for e in latest), f.median_ms,
        )  # fmt: skip

    def plain(row):
        *head, median = row
        return (*head, int(median) if median is not None else None)

    def moment(value):
        if isinstance(value, str):  # SQLite returns the stored text
            from datetime import UTC
            from datetime import datetime

            return datetime.fromisoformat(value).replace(tzinfo=UTC)
        return value

    got = {k: plain((*v[:3], moment(v[3]), *v[4:])) for k, v in got.items()}
    assert got == {k: plain(v) for k, v in expected.items()}


def test_the_floor_printed_in_the_docs_is_the_benchs():
    """docs/performance.md prints the floor's SQL so anyone can judge it: the same text."""
    import re
    from pathlib import Path

    from bench.analytics import floor_sql

    doc = (Path(__file__).resolve().parents[2] / "docs" / "performance.md").read_text()
    printed = doc.split("```sql\n", 1)[1].split("```", 1)[0]
    sql = floor_sql("postgresql", "{part}", "{parts}").replace("%%", "%")  # type: ignore[arg-type]

    def words(text):
        return re.sub(r"\s+", " ", text).strip()

    assert words(printed) == words(sql)


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
    assert set(stored["engine_games_per_s"]) == set(registry.rules())
    assert all(positive_finite(v) for v in stored["engine_games_per_s"].values())
    # Numbers only: flat numbers plus the one nested object of the engines.
    assert set(stored) >= EVIDENCE_KEYS
    assert all(
        positive_finite(v)
        for k, v in stored.items()
        if k != "engine_games_per_s" and k not in EVIDENCE_KEYS
    )
    assert all(math.isfinite(stored[k]) and stored[k] >= 0 for k in EVIDENCE_KEYS)
    md = paths["md"].read_text()
    for key in [*FLAT_KEYS, "engine_games_per_s.multiplipotion"]:
        assert f"`{key}`" in md
    for goal_key in report.GOALS:
        assert goal_key in md
    assert "cores:" in md and "python:" in md and "database:" in md
    assert "## Evidence week" in md and "| needs help: recall | >= 0.8 |" in md
    assert not list(tmp_path.glob("*.tmp"))


# The week's figures follow the rows' ids (an earlier test on PostgreSQL moves the sequences on,
# and then an arm's games may end before any capture): the ids start at 1, as on a fresh run.
@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_evidence_week_in_quick_mode():
    """The week through the real models: the figures exist and are numbers; the attempts were
    stored by the warm-up and by the games' moves with the simulated times, and every child's
    statistics were rebuilt by the tasks. The goals are the benchmark's business, not this."""
    from django.db.models import Sum

    from classroom.models import Attempt
    from classroom.models import FactStat
    from classroom.models import Student
    from classroom.models import WarmUp
    from games.models import Seat

    figures, details = bench_evidence_week(quick=True)
    assert set(figures) == EVIDENCE_KEYS
    assert all(isinstance(v, int | float) and math.isfinite(v) and v >= 0 for v in figures.values())
    assert all(0 <= figures[k] <= 1 for k in EVIDENCE_SHARES)
    assert all(0 <= figures[k] <= 36 for k in EVIDENCE_KEYS if "decided" in k)
    assert figures["evidence_attempts_per_minute_warm_up"] > 0
    assert figures["evidence_attempts_per_minute_game_games_only"] > 0

    size = details["size"]
    for arm, minutes in (("warm_up", 1), ("warm_up_2", 2), ("games_only", 0)):
        warm_up = minutes > 0
        d = details["arms"][arm]
        start, end = (dt.datetime.fromisoformat(t) for t in d["windows"][0])
        attempts = Attempt.objects.filter(student__classroom_id=d["classroom_id"])
        children = list(Student.objects.filter(classroom_id=d["classroom_id"]))
        assert len(children) == size["children"] == len(d["children"])
        # Games: every attempt comes from a move of a session match against the Coach.
        played = attempts.exclude(context=Attempt.Context.WARM_UP)
        assert played.exists()
        assert set(played.values_list("context", flat=True)) <= {"capture", "challenge", "missed"}
        assert not played.filter(move__isnull=True).exists()
        assert not played.exclude(match__assignments__bot_level="coach").exists()
        assert not played.exclude(match__assignments__warm_up_minutes=minutes).exists()
        coach = Seat.objects.filter(match__attempts__in=played, kind="bot", bot_level="coach")
        assert coach.exists()
        # Warm-ups: typed answers of a round, none without one; none at all in games only.
        typed = attempts.filter(context=Attempt.Context.WARM_UP)
        assert typed.exists() == warm_up
        assert not typed.filter(warm_up__isnull=True).exists()
        assert not typed.filter(match__isnull=False).exists()
        assert not typed.filter(response_ms__isnull=True).exists()
        rounds = WarmUp.objects.filter(student__in=children)
        assert (
            rounds.count()
            == d["warm_ups"]
            == (sum(c["warm_ups"] for c in d["children"]) if warm_up else 0)
        )
        assert not rounds.filter(finished_at__isnull=True).exists()
        assert not rounds.filter(stats_at__isnull=True).exists()
        # The simulated clock: every attempt inside the session (its last move may end late).
        assert not attempts.filter(created_at__lt=start).exists()
        assert not attempts.filter(created_at__gt=end + dt.timedelta(minutes=2)).exists()
        assert dict(d["attempts_by_context"]) == dict(
            attempts.values("context").annotate(n=Count("pk")).values_list("context", "n")
        )
        # Every child has statistics that count every attempt they made (rebuilt after it);
        # with a warm-up every child has some (a few minutes of a game may bring none).
        for child in children:
            made = attempts.filter(student=child).count()
            stats = FactStat.objects.filter(student=child)
            assert stats.exists() == (made > 0)
            assert made > 0 or not warm_up
            assert (stats.aggregate(n=Sum("attempts"))["n"] or 0) == made
