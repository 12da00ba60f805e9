"""The load test's machinery in the suite: 20 simulated children for 20 s against the
production setup (uvicorn, a Celery worker, PostgreSQL, Redis) on the test database. Speed is
never asserted (docs/performance.md has the figures of `make bench`); this proves that every
child signs in, plays through the real endpoints without a single error, and that the run
produces its numbers."""

import math

import pytest

from bench.load.run import passed
from bench.load.run import run_step
from games.models import Match
from games.models import Move

pytestmark = [pytest.mark.services, pytest.mark.slow]


def positive_finite(value) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_twenty_children_for_twenty_seconds(production_servers, tmp_path):
    with production_servers(web_servers=1, workers=1) as stack:
        summary = run_step(20, 20, stack, tmp_path / "load", ramp_s=2)
    assert summary["errors"] == {} and summary["failures"] == 0
    assert summary["children"] == 20 and summary["signed_in"] == 20
    assert summary["moves"] > 0
    assert Move.objects.count() >= summary["moves"]  # every answered move is stored
    assert Match.objects.filter(version__gt=0).count() > 0
    for key in ("p95_ms", "p50_ms", "p99_ms", "requests_per_s", "update_latency_p95_ms"):
        assert positive_finite(summary[key]), (key, summary[key])
    assert summary["update_latency_samples"] > 0
    kinds = summary["kinds"]
    for kind in ("sign-in page", "sign-in pictures", "play button", "play page", "poll"):
        assert kinds[kind]["count"] >= 20 and kinds[kind]["failures"] == 0, kind
    assert any(kind.startswith("move ") for kind in kinds)
    assert set(summary["cpu_cores_busy"]) >= {"machine", "web_and_worker", "locust"}
    assert summary["passed"] == passed(summary)
