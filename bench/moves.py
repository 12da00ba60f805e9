"""``move_vs_baseline`` and ``move_response_kib``.

A: the real move (POST /play/<id>/move/ as htmx sends it, answered with the board partial).
B: the bare view of bench/views.py doing the same database writes.
Both go through Django's WSGI handler with the project's full middleware stack, the same
cookies and headers (CSRF checked on both), alternating A/B (ABBA order) so that machine
noise hits both. Every timed request is a legal first move on a fresh match; creating the
matches is setup and is not timed.
"""

from __future__ import annotations

import gc
import gzip
import statistics
import uuid

from django.core.handlers.wsgi import WSGIHandler
from django.test.utils import override_settings
from django.urls import reverse

from bench import fixtures
from bench import views
from bench import wsgi
from games.models import Match
from games.models import Seat


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


def bench_moves(quick: bool = False, *, rounds=None, warmup=None, keep_connection=False):
    """Return (figures, details). ``keep_connection``: True inside a test transaction."""
    rounds = rounds or (6 if quick else 800)
    warmup = warmup if warmup is not None else (2 if quick else 40)
    total = rounds + warmup
    real = [fixtures.make_match(seed) for seed in range(total)]
    bare = [fixtures.make_match(seed) for seed in range(total)]
    real_requests, bare_requests = [], []
    for match in real:
        action = fixtures.first_place(match)
        body = fixtures.move_body(match, action, uuid.uuid4().hex)
        real_requests.append((reverse("games:move", args=[match.public_id]), body))
    for match in bare:
        module = match.engine
        action = fixtures.first_place(match)
        new_state, events = module.apply(module.load(match.state), 0, action)
        views.PAYLOADS[match.public_id] = (module.dump(new_state), action, events)
        body = fixtures.move_body(match, action, uuid.uuid4().hex)
        bare_requests.append((f"/bench/bare-move/{match.public_id}/", body))
    headers = fixtures.browser_headers(htmx=True)

    real_ms, bare_ms, response_sizes = [], [], []
    with override_settings(ROOT_URLCONF="bench.urls"), wsgi.keep_connection(keep_connection):
        handler = WSGIHandler()
        gc.collect()
        for i in range(total):
            # A child's device shows the board before it moves (the play page, then a poll a
            # second), and that wrote its seats' last_seen_at: untimed, as the page load is.
            Seat.objects.filter(match=real[i]).mark_seen()
            pair = ("real", "bare") if i % 4 in (0, 3) else ("bare", "real")
            for side in pair:
                path, body = (real_requests if side == "real" else bare_requests)[i]
                response = wsgi.call(handler, "POST", path, body=body, headers=headers)
                if response.status != 200:
                    raise RuntimeError(
                        f"{side} move answered {response.status}: {response.body[:300]!r}"
                    )
                if i < warmup:
                    continue
                if side == "real":
                    real_ms.append(response.ns / 1e6)
                    response_sizes.append((gzip_size(response.body), len(response.body)))
                else:
                    bare_ms.append(response.ns / 1e6)
    views.PAYLOADS.clear()
    applied = Match.objects.filter(pk__in=[m.pk for m in real + bare], version=1).count()
    if applied != 2 * total:
        raise RuntimeError(f"only {applied} of {2 * total} timed moves were applied")

    real_median = statistics.median(real_ms)
    bare_median = statistics.median(bare_ms)
    gz_median = statistics.median(size for size, _raw in response_sizes)
    raw_median = statistics.median(raw for _gz, raw in response_sizes)
    figures = {
        "move_vs_baseline": real_median / bare_median,
        "move_median_ms": real_median,
        "move_p95_ms": percentile(real_ms, 95),
        "baseline_median_ms": bare_median,
        "baseline_p95_ms": percentile(bare_ms, 95),
        "move_response_kib": gz_median / 1024,
    }
    details = {
        "rounds": rounds,
        "warmup": warmup,
        "move_response_raw_bytes": raw_median,
        "move_response_gzip_bytes": gz_median,
    }
    return figures, details
