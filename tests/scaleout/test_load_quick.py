"""The load test's machinery in the suite: 20 simulated children for 20 s against the production
setup (gunicorn for the pages, uvicorn for the streams, a Celery worker, PostgreSQL, Redis) on the
test database. Speed is never asserted (docs/performance.md has the figures of `make bench`); this
proves that every child signs in, plays through the real endpoints without a single error, that the
boards hold their streams open and are fetched on the stream's events (not polled), and that the run
produces every number of its report: each kind's p95, the update latency from the move's answer, the
CPU of each part of the machine per child, and the step's verdict. The search over steps and the
machine-speed calibration are checked without servers."""

import math
import os

import pytest

from bench.calibration import LOOP_N
from bench.calibration import machine_speed
from bench.calibration import python_loop
from bench.load.run import capacity
from bench.load.run import find_capacity
from bench.load.run import generators_for
from bench.load.run import kind_of
from bench.load.run import passed
from bench.load.run import run_step
from bench.load.run import split_by_class
from bench.load.run import summarize
from bench.load.sse import sse_events
from bench.report import load_section
from games.models import Match
from games.models import Move


def positive_finite(value) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


@pytest.mark.services
@pytest.mark.slow
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
    # The heatmap probe ran beside the play (no game ends in 20 s: tests/bench has its timing).
    heat = summary["heatmap_after_game"]
    assert heat["error"] is None and heat["not_counted"] == 0
    # Pushed boards: every child opened its stream, and the partner's moves came by it.
    assert summary["streams_opened"] >= 20 and summary["stream_events"] > 0
    assert summary["boards_pushed"] > 0
    assert "poll" not in summary["names"]  # no board polled once a second
    kinds = summary["kinds"]
    assert set(kinds) == {"move", "board GET", "stream connect", "page"}
    for kind in ("move", "board GET", "stream connect", "page"):
        assert kinds[kind]["count"] > 0 and kinds[kind]["failures"] == 0, kind
        assert positive_finite(kinds[kind]["p95_ms"]), kind
    # Made after the ramp-up too. (A stream connects once a page now, so in 20 s with no game
    # over the streams are all opened during the ramp-up.)
    for kind in ("move", "board GET"):
        assert positive_finite(kinds[kind]["steady_p95_ms"]), kind
    names = summary["names"]
    for name in ("sign-in page", "sign-in pictures", "play button", "play page"):
        assert names[name]["count"] >= 20 and names[name]["failures"] == 0, name
    assert names["stream connect"]["count"] >= 20
    assert any(name.startswith("move ") for name in names)
    cores = summary["cpu_cores_busy"]
    for part in ("machine", "web", "worker", "postgres", "redis", "load_generator"):
        assert isinstance(cores[part], float) and cores[part] >= 0, part
    assert cores["web"] > 0 and cores["load_generator"] > 0
    # measured over the children's play, after the ramp-up; the whole step beside it
    assert summary["cpu_window"] == "after the ramp-up"
    assert summary["cpu_whole_step"]["cpu_cores_busy"]["wall_s"] > cores["wall_s"] > 10
    per_child = summary["cpu_ms_per_child_minute"]
    assert set(per_child) >= {"web", "worker", "postgres", "redis", "load_generator", "server"}
    assert positive_finite(per_child["web"]) and positive_finite(per_child["server"])
    assert summary["slowest_kind"] in kinds
    assert summary["passed"] == passed(summary)
    # latest.md's load section: a row per step with each kind's p95 and each part's CPU
    found = capacity([summary])
    found.pop("best")
    md = "\n".join(
        load_section({**found, "steps": [summary], "step_seconds": 20, "web_workers": 1})
    )
    assert "| children | move p95 | board GET p95 | stream connect p95 | page p95 |" in md
    assert md.count("\n| 20 | ") == 2 and ("| pass |" in md) == summary["passed"]


@pytest.mark.services
@pytest.mark.slow
def test_a_child_whose_sign_in_fails_tries_again_then_stops(production_servers, tmp_path):
    """A child whose pictures are refused taps them again, three times in all, and then stops:
    it never asks for a board that is not theirs (before, it played on and every request of
    it failed with 404, counted against the server)."""
    import json

    from bench.load.run import start_locust
    from bench.load.seed import seed_children

    ada, ben = seed_children(2, label="sign-in")
    wrong = [str(i) for i in range(9) if str(i) not in ada["pictures"]]  # 3 of the 9, not hers
    ada = {**ada, "pictures": wrong[:3]}
    (tmp_path / "load").mkdir()
    with production_servers(web_servers=1, workers=1) as stack:
        proc, raw_file, log = start_locust(
            [ada, ben], tmp_path / "load", "sign-in", stack["urls"][0], duration=15, ramp_s=2
        )
        proc.wait(timeout=120)
    assert raw_file.exists(), log.read_text()[-3000:]
    raw = json.loads(raw_file.read_text())
    assert raw["counts"]["signed_in"] == 1 and raw["counts"]["sign_in_given_up"] == 1
    assert raw["counts"]["sign_in_retries"] == 2
    failed = [s[1] for s in raw["samples"] if not s[3]]
    assert failed == ["sign-in pictures"] * 3  # Ada's three tries, and nothing else of hers
    # Ben went on to his game (his partner is Ada: he waits there for her turn).
    assert [s[3] for s in raw["samples"] if s[1] == "play page"] == [True]


def step(children: int, ok: bool, **p95) -> dict:
    kinds = {k: {"steady_count": 10, "steady_p95_ms": v} for k, v in p95.items()}
    return {"children": children, "passed": ok, "kinds": kinds, "update_latency_p95_ms": 1.0}


def test_a_step_passes_only_with_every_kind_under_100_ms_and_no_failure():
    good = {"failures": 0, "steady_requests": 100}
    fast = {"move": 40.0, "board GET": 20.0, "stream connect": 30.0, "page": 60.0}
    assert passed({**good, **step(2, True, **fast)})
    # the overall p95 would hide one slow kind: the streams' connections alone at 120 ms
    assert not passed({**good, **step(2, True, **{**fast, "stream connect": 120.0})})
    assert not passed({**good, "failures": 1, **step(2, True, **fast)})
    assert not passed({**good, "steady_requests": 0, **step(2, True, **fast)})
    assert not passed({**good, **step(2, True)})  # no request of any kind


def test_the_figure_is_the_largest_pass_below_the_first_failure():
    found = capacity([step(800, True), step(1200, False), step(1000, True), step(1400, True)])
    assert found["students_at_p95_100ms"] == 1000 and found["first_failing_step"] == 1200
    assert found["limit_measured"] and found["passed_above_a_failure"] == [1400]
    found = capacity([step(800, True), step(1000, True)])
    assert found["students_at_p95_100ms"] == 1000 and not found["limit_measured"]
    found = capacity([step(800, False)])
    assert found["students_at_p95_100ms"] == 0 and not found["limit_measured"]


def test_the_steps_go_past_the_knee(monkeypatch, tmp_path):
    """The planned steps run in order until two fail in a row; if all pass, the run goes on by
    the last increment until one fails (at most ``extra_steps`` more)."""
    import bench.load.run as load_run

    limit = {"n": 1100}
    ran: list[int] = []

    def fake_step(n, seconds, stack, work_dir):
        ran.append(n)
        return step(n, n <= limit["n"])

    monkeypatch.setattr(load_run, "run_step", fake_step)
    monkeypatch.setattr(load_run, "step_line", lambda r: "")
    plan = [800, 1000, 1200, 1400, 1600]
    result = find_capacity({}, tmp_path, seconds=1, steps=plan, log=lambda line: None)
    assert ran == [800, 1000, 1200, 1400]  # 1600 not needed: two failures in a row
    assert result["students_at_p95_100ms"] == 1000 and result["limit_measured"]
    ran.clear()
    limit["n"] = 10_000
    result = find_capacity({}, tmp_path, seconds=1, steps=[800, 1000], log=lambda line: None)
    assert ran == [800, 1000, 1200, 1400]  # two more steps of 200, and still no failure
    assert result["students_at_p95_100ms"] == 1400 and not result["limit_measured"]
    ran.clear()
    limit["n"] = 1300
    result = find_capacity({}, tmp_path, seconds=1, steps=[800, 1000], log=lambda line: None)
    assert ran == [800, 1000, 1200, 1400]
    assert result["students_at_p95_100ms"] == 1200 and result["first_failing_step"] == 1400


def test_a_warm_up_step_runs_first_and_is_not_counted(monkeypatch, tmp_path):
    """The warm-up (children, seconds) runs before the steps, in a folder of its own, and
    neither passes nor fails a step: a failing warm-up leaves the figure to the steps."""
    import bench.load.run as load_run

    ran: list[tuple[int, float, str]] = []

    def fake_step(n, seconds, stack, work_dir):
        ran.append((n, seconds, work_dir.name))
        return step(n, n == 800)  # the warm-up (20) fails

    monkeypatch.setattr(load_run, "run_step", fake_step)
    monkeypatch.setattr(load_run, "step_line", lambda r: "")
    result = find_capacity(
        {}, tmp_path, seconds=1, steps=[800, 1000], extra_steps=0, warm_up=(20, 30.0),
        log=lambda line: None,
    )  # fmt: skip
    assert ran[0] == (20, 30.0, "warm-up") and [n for n, _s, _d in ran[1:]] == [800, 1000]
    assert result["warm_up"]["children"] == 20
    assert [r["children"] for r in result["steps"]] == [800, 1000]
    assert result["students_at_p95_100ms"] == 800 and result["limit_measured"]
    ran.clear()
    find_capacity({}, tmp_path, seconds=1, steps=[800], extra_steps=0, log=lambda line: None)
    assert [n for n, _s, _d in ran] == [800]  # no warm-up unless asked


def test_the_machine_speed_is_a_fixed_work_timed():
    assert python_loop() == python_loop() and LOOP_N == 300_000
    speed = machine_speed(quick=True)
    assert positive_finite(speed["python_loop_ms"])
    assert positive_finite(speed["engine_games_per_s"]) and speed["engine_games"] == 10


def test_every_request_has_its_kind():
    for name in ("move place", "move capture", "move end_turn"):
        assert kind_of(name) == "move"
    for name in ("board GET", "board GET (safety)", "poll"):
        assert kind_of(name) == "board GET"
    for name in ("stream connect", "stream ended", "stream stale"):
        assert kind_of(name) == "stream connect"
    for name in ("sign-in page", "sign-in pictures", "play button", "play page", "waiting room"):
        assert kind_of(name) == "page"


def test_a_stream_is_read_as_an_eventsource_reads_it():
    """The load clients' reader of a board's stream: events split across reads and chunks,
    both line ends, the end of the stream."""
    import io

    body = (
        b"event: beat\ndata: \n\nevent: changed\r\ndata: 12s1\r\n\r\nevent: changed\ndata: gone\n\n"
    )
    expected = [("beat", ""), ("changed", "12s1"), ("changed", "gone")]
    plain = io.BufferedReader(io.BytesIO(body), buffer_size=7)
    assert list(sse_events(plain, chunked=False)) == expected
    pieces = [body[i : i + 5] for i in range(0, len(body), 5)]
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    assert list(sse_events(io.BufferedReader(io.BytesIO(chunked)), chunked=True)) == expected
    cut = io.BufferedReader(io.BytesIO(body[:-1]))  # ended in the middle of an event
    assert list(sse_events(cut, chunked=False)) == expected[:2]


def test_the_load_is_split_by_whole_classes(monkeypatch):
    children = [
        {"assignment": a, "student": i} for i, a in enumerate([1] * 30 + [2] * 30 + [3] * 10)
    ]
    groups = split_by_class(children, 2)
    assert sorted(len(g) for g in groups) == [30, 40]
    for group in groups:  # a class is never cut in two
        classes = {c["assignment"] for c in group}
        assert all(
            c["assignment"] not in classes for other in groups if other is not group for c in other
        )
    assert len(split_by_class(children[:30], 2)) == 1  # one class: one process
    monkeypatch.delenv("LOAD_GENERATORS", raising=False)
    assert generators_for(20) == 1 and generators_for(1400) == min(3, len(os.sched_getaffinity(0)))
    monkeypatch.setenv("LOAD_GENERATORS", "3")
    assert generators_for(20) == 3


def test_the_processes_records_are_summed_up_as_one():
    """Two load processes: the step's percentiles are over the requests of both (not a mean of
    their percentiles), from when the later one had started all its children."""
    fast = [(100.0 + i, "move place", 10.0, True) for i in range(19)]
    slow = [(100.0 + i, "board GET", 500.0, True) for i in range(19)]
    ramp = [(90.0, "sign-in page", 9000.0, True)]  # sent before the steady window
    raws = [
        {"children": 10, "samples": fast + ramp, "update_latency": [(101.0, 50.0, 60.0)],
         "counts": {"moves": 19}, "errors": {}, "spawned_at": 90.0},
        {"children": 12, "samples": slow, "update_latency": [(102.0, 150.0, 160.0)],
         "counts": {"moves": 0}, "errors": {"board GET: 500": 1}, "spawned_at": 94.0},
    ]  # fmt: skip
    summary = summarize(raws, settle=5.0)
    assert summary["children"] == 22 and summary["load_processes"] == 2
    assert summary["requests"] == 39 and summary["steady_requests"] == 38
    assert summary["p95_ms"] == 500.0 and summary["kinds"]["move"]["steady_p95_ms"] == 10.0
    assert summary["kinds"]["board GET"]["steady_p95_ms"] == 500.0
    assert summary["kinds"]["page"]["steady_count"] == 0 and summary["kinds"]["page"]["count"] == 1
    assert summary["update_latency_samples"] == 2 and summary["update_latency_p95_ms"] == 150.0
    assert summary["moves"] == 19 and summary["errors"] == {"board GET: 500": 1}
    assert not passed(summary)  # the board GETs' p95 is 500 ms
