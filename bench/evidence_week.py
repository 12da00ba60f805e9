"""``evidence_week``: does a week of the product tell a teacher, truthfully, what each child
knows? (docs/analytics.md, "Checked on children it was never tuned on").

    python -m bench.evidence_week --population FILE --seed N --out FILE

A population of simulated children (``bench/population.py`` says what one is; the default is
``bench/populations/literature.py``, written from the research literature, not from the
product's diagnosis) plays one school week: three 15-minute sessions on the Monday, Wednesday
and Friday (school days 0, 2 and 4), through the real models and tasks, on SQLite with no
servers (``bench.environment``: its own database, made anew). Each session is a real
``Assignment`` (all eight tables; against the computer's Coach; the default warm-up length).
In it each child, on their own simulated clock, repeats until the 15 minutes are used up:

1. the warm-up: ``WarmUp.objects.start`` → ``ask`` / ``WarmUp.objects.answer`` with the
   child's ``answer(a, b, day, rng)`` (its seconds move the clock on, so the server measures
   the time) → ``finish`` and the worker's ``update_warm_up_stats``;
2. a MultipliPotion game against the Coach, made as the waiting room makes one
   (``assignment.new_match`` with ``assignment.bot_seat()``, a seeded deck), the child's moves
   through ``Match.play`` and the Coach's through the worker's ``play_bots``. On their turn
   the child places a card that, by their own recall, makes a monster on the board (else any
   card), then looks at each pair of their potions in a random order, recalls it with
   ``game_answer`` (or ``answer``) and claims the monster equal to what they recalled, if
   there is one — right or wrong; at most two claims a turn; with none, they end the turn
   (the game records the captures they missed). Caught by a challenge, they must capture:
   the same, then a guess among the claims not tried yet. The Coach never leaves a capture,
   so the child never challenges.

Every timestamp is simulated (``timezone.now`` is the run's clock; the Coach's moves take
no time). A game still going when the session ends is stopped by ``Assignment.objects.end()``
(the teacher's "End"); its attempts are counted as the product counts those of unfinished
games.

Then the bench reads what the teacher's pages say of each child (``teacher_view``) and writes,
with ``--out``, ``{"children": [{"name", "flagged", "main_error", "order_pattern", "facts":
{"7x8": "known" | "slow" | "not_yet" | "unsure", …}, "wrong_answers": [{"a", "b", "answer",
"kind", "mechanism"}]}], "metrics": {…}}``; the metrics (``bench/evidence_metrics.py``) score
that against the population's truth. ``make bench`` runs the checking seeds (``CHECK_SEEDS``)
and puts each goal's worst seed in bench/results/latest.json; the model's parameters were
chosen on ``TUNING_SEEDS`` only (docs/analytics.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
import uuid
from collections import Counter
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path
from unittest import mock

if __package__ in {None, ""}:  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import population as populations
from bench.evidence_metrics import GOALS
from bench.evidence_metrics import passes
from bench.evidence_metrics import score

WEEK = dt.datetime(2026, 11, 16, 9, 30, tzinfo=dt.UTC)  # a Monday, 9:30 (London: UTC then)
DAYS = (0, 2, 4)  # Monday, Wednesday, Friday
FULL = {"children": None, "sessions": 3, "minutes": 15}  # None: the whole class
QUICK = {"children": 4, "sessions": 1, "minutes": 4}
WARM_UP_MINUTES = 1  # the product's default (Assignment.warm_up_minutes)
# Seeds: the model's parameters were chosen on the tuning seeds only; the checking seeds are
# the reported runs. Never tune on a checking seed.
TUNING_SEEDS = tuple(range(3900, 3920))
CHECK_SEEDS = (3801, 3802, 3803)
# A game's think times (ms) besides the child's recall: placing a card (it holds the wait
# for the Coach's turn to show and the card drawn; fixed part + mean of an exponential part),
# looking at one pair of potions, tapping two potions and a monster, ending the turn.
PLACE_MS = (20000, 10000)
LOOK_MS = 500
TAP_MS = 3000
END_MS = 6000
CLAIMS_PER_TURN = 2


class Clock:
    """The simulated time of the run."""

    def __init__(self, start: dt.datetime):
        self.t = start

    def now(self) -> dt.datetime:
        return self.t

    def advance(self, ms: float) -> None:
        self.t += dt.timedelta(milliseconds=max(0, int(ms)))


@contextmanager
def simulated(clock: Clock):
    """``timezone.now`` is the simulated clock, and Celery runs tasks in this process."""
    from django.utils import timezone

    from config.celery import app

    eager = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    try:
        with mock.patch.object(timezone, "now", clock.now):
            yield clock
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = eager


class Tally:
    """One child's week: time spent, rounds and games, and each wrong answer's mechanism."""

    def __init__(self):
        self.warm_up_s = 0.0
        self.game_s = 0.0
        self.warm_ups = 0
        self.games = 0
        self.games_finished = 0
        self.mechanisms: dict[int, str | None] = {}  # attempt id -> the population's mechanism


def recall(child, a: int, b: int, day: int, rng, *, game: bool):
    """(answer, ms, mechanism) of the child for a × b; in a game ``game_answer`` if any."""
    ask = getattr(child, "game_answer", None) if game else None
    answer, seconds = (ask or child.answer)(a, b, day, rng)
    mechanism = getattr(child, "last_mechanism", None)
    return answer, float(seconds) * 1000, mechanism


def _latest_attempt_id(student) -> int | None:
    from classroom.models import Attempt

    return Attempt.objects.filter(student=student).order_by("-pk").values_list("pk", flat=True)[:1]


# --- one child's session -----------------------------------------------------------------------


def warm_up_round(child, day, student, assignment, clock: Clock, rng, tally: Tally) -> None:
    from classroom.models import WarmUp
    from classroom.models.warmup import WarmUpRefused
    from classroom.tasks import update_warm_up_stats

    started = clock.now()
    warm_up = WarmUp.objects.start(student, assignment, now=started)
    while True:
        question = warm_up.ask(now=clock.now())
        if question is None:
            break
        answer, ms, mechanism = recall(child, question.a, question.b, day, rng, game=False)
        clock.advance(ms)
        if answer is None:  # nothing typed: the question stays until the time is up
            continue
        try:
            result = WarmUp.objects.answer(student, question.token, str(answer), now=clock.now())
        except WarmUpRefused:  # too late: the time was up
            break
        if not result.correct:
            stored = _latest_attempt_id(student)
            tally.mechanisms[stored[0]] = mechanism
        if result.finished:
            break
    warm_up.finish(now=clock.now())
    warm_up.refresh_from_db()
    if warm_up.stats_at is None:  # its on-commit task has not run (inside a transaction)
        update_warm_up_stats.apply(args=[warm_up.pk])
    tally.warm_ups += 1
    tally.warm_up_s += (clock.now() - started).total_seconds()


def place(child, day, view: dict, legal: list, rng) -> tuple[dict, float]:
    """A card whose potion makes, by the child's own recall, a monster on the board."""
    me = view["seat"]
    mine = [c["potion"] for c in view["areas"][me]]
    monsters = {c["monster"] for c in view["areas"][1 - me]}
    hand = {c["id"]: c["potion"] for c in view.get("hand", ())}
    places = [x for x in legal if x["type"] == "place"]
    good = [
        x
        for x in places
        if any(recall(child, q, hand[x["card"]], day, rng, game=True)[0] in monsters for q in mine)
    ]
    ms = PLACE_MS[0] + rng.expovariate(1 / PLACE_MS[1])
    return rng.choice(good or places or legal), ms


def claim(child, day, view: dict, legal: list, tried: list, rng, *, forced: bool):
    """(action, ms, mechanism): a claim on the monster equal to what the child recalls of a
    pair of their potions (looked at in a random order), or None when no recall is on the
    board; caught (``forced``) and with nothing recalled, a guess among the untried claims."""
    me = view["seat"]
    potions = [(c["id"], c["potion"]) for c in view["areas"][me]]
    monsters = [(c["id"], c["monster"]) for c in view["areas"][1 - me]]
    pairs = list(combinations(potions, 2))  # in the order they lie: the claim's a × b
    rng.shuffle(pairs)
    ms = 0.0
    for (p_id, p), (q_id, q) in pairs:
        answer, recall_ms, mechanism = recall(child, p, q, day, rng, game=True)
        ms += LOOK_MS
        if answer is None:
            continue
        for m_id, value in monsters:
            action = {"type": "capture", "potions": [p_id, q_id], "monster": m_id}
            if value == answer and action not in tried and action in legal:
                return action, ms + recall_ms + TAP_MS, mechanism
    captures = [x for x in legal if x["type"] == "capture" and x not in tried]
    if forced and captures:
        return rng.choice(captures), ms + TAP_MS, "random"
    return None, ms, None


def game(child, day, student, assignment, clock: Clock, end, rng, tally: Tally):
    """One game against the Coach until it ends or the session does; the match."""
    from classroom.tasks import update_match_stats
    from games.tasks import play_bots

    started = clock.now()
    match = assignment.new_match(
        [
            {"kind": "student", "name": student.name, "owner_key": student.seat_key},
            assignment.bot_seat(),
        ],
        options={"tier": assignment.tier_for(student)},
        seed=rng.randrange(2**31),
        changed_at=started,  # a field default the simulated clock does not reach
    )
    seat, module = 0, match.engine
    tried, turn = [], None
    while not match.is_over and clock.now() < end:
        state = module.load(match.state)
        if seat not in module.to_act(state):
            play_bots.apply(args=[match.pk])
            match.refresh_from_db()
            continue
        phase = state["phase"]
        mark = (state["turn_no"], phase == "forced_capture")
        if mark != turn:
            tried, turn = [], mark
        view, legal = module.view(state, seat), module.legal_actions(state, seat)
        action, ms, mechanism = None, 0.0, None
        if phase == "place":
            action, ms = place(child, day, view, legal, rng)
        elif phase == "forced_capture" or len(tried) < CLAIMS_PER_TURN:
            action, ms, mechanism = claim(
                child, day, view, legal, tried, rng, forced=phase == "forced_capture"
            )
        if action is None:
            ends = [x for x in legal if x["type"] == "end_turn"]
            action = ends[0] if ends else legal[0]
            ms += END_MS
        if action["type"] == "capture":
            tried.append(action)
        clock.advance(ms)
        before = _latest_attempt_id(student)
        match.play(seat, action, version=match.version, follow_ups=False)
        after = _latest_attempt_id(student)
        if action["type"] == "capture" and after and after != before:
            tally.mechanisms[after[0]] = mechanism
    tally.games += 1
    tally.game_s += (clock.now() - started).total_seconds()
    if match.is_over:
        tally.games_finished += 1
        update_match_stats.apply(args=[match.pk])
    return match


def session(child, day, student, assignment, start, end, rng, clock, tally) -> None:
    clock.t = start
    while clock.now() < end:
        if assignment.warm_up_minutes and not assignment.warm_up_skipped:
            warm_up_round(child, day, student, assignment, clock, rng, tally)
            if clock.now() >= end:
                break
        game(child, day, student, assignment, clock, end, rng, tally)


# --- the week -----------------------------------------------------------------------------------


def play_week(children: list, warm_up_minutes: int, size: dict, seed: int, clock: Clock):
    """The class's week; returns (classroom, students, tallies)."""
    from django.contrib.auth import get_user_model

    from classroom import tasks
    from classroom.models import Assignment
    from classroom.models import Classroom
    from classroom.models import School
    from classroom.models import Student

    tag = uuid.uuid4().hex[:8]
    teacher = get_user_model().objects.create_user(f"bench-week-{tag}", password=None)
    school = School.objects.create(name=f"Bench week {tag}")
    room = Classroom.objects.create(school=school, teacher=teacher, name=f"Week {tag}")
    students = [
        Student.objects.create(classroom=room, name=str(child.name)[:40]) for child in children
    ]
    tallies = [Tally() for _ in children]
    for number, day in enumerate(DAYS[: size["sessions"]]):
        start = WEEK + dt.timedelta(days=day)
        end = start + dt.timedelta(minutes=size["minutes"])
        clock.t = start
        assignment = Assignment.objects.create(
            classroom=room,
            created_by=teacher,
            title=f"Week {number + 1}",
            tier=Assignment.Tier.FULL,
            opponents=Assignment.Opponents.BOT,
            bot_level="coach",
            target_kind=Assignment.Target.MINUTES,
            target_value=size["minutes"],
            opens_at=start,
            closes_at=end,
            warm_up_minutes=warm_up_minutes,
        )
        for index, (child, student, tally) in enumerate(
            zip(children, students, tallies, strict=True)
        ):
            rng = random.Random(f"{seed}:{index}:session:{number}")
            session(child, day, student, assignment, start, end, rng, clock, tally)
        clock.t = end
        Assignment.objects.filter(pk=assignment.pk).end()
        # What the product does within a minute for a game still going (or stopped).
        tasks.sweep_missed_stats.apply()
    return room, students, tallies


def teacher_view(student, tally: Tally, now) -> dict:
    """What the teacher's pages say of one child after the week (``knowledge.summarise``
    through ``add_help_flags``, as the child's and the class's reports and the CSV read it):
    the square of every fact as asked, the flag, the main kind of error, whether an order
    pattern is named, and every wrong answer (typed or claimed) with the kind it was given."""
    from classroom.models import Attempt
    from classroom.models.report_queries import add_help_flags
    from classroom.views.report_context import order_pattern_context

    (row,) = add_help_flags([student], now)
    summary = row.summary
    wrong = (
        Attempt.objects.filter(student=student, correct=False, answer__isnull=False)
        .exclude(context=Attempt.Context.FORCED)
        .order_by("created_at", "pk")
        .values("pk", "a", "b", "answer", "kind")
    )
    return {
        "name": student.name,
        "flagged": bool(row.needs_help),
        "main_error": summary.main_error,
        "order_pattern": order_pattern_context(student, summary) is not None,
        "facts": {f"{a}x{b}": square.state for (a, b), square in summary.squares.items()},
        "wrong_answers": [
            {
                "a": w["a"],
                "b": w["b"],
                "answer": w["answer"],
                # the kind the report shows: named with the child's own shares of the kinds
                "kind": summary.named.get((w["a"], w["b"], w["answer"]), w["kind"]),
                "mechanism": tally.mechanisms.get(w["pk"]),
            }
            for w in wrong
        ],
    }


def run_week(
    module, seed: int, *, quick: bool = False, warm_up_minutes: int = WARM_UP_MINUTES
) -> dict:
    """One week of ``module``'s class on ``seed``: {"children": [...], "metrics": {...},
    "details": {...}}. Django must be set up, with a database."""
    size = QUICK if quick else FULL
    children = list(module.children(seed))
    if size["children"]:
        children = children[: size["children"]]
    wall = time.perf_counter()
    clock = Clock(WEEK)
    with simulated(clock):
        room, students, tallies = play_week(children, warm_up_minutes, size, seed, clock)
        clock.t = WEEK + dt.timedelta(days=DAYS[size["sessions"] - 1], minutes=size["minutes"])
        out = [
            teacher_view(student, tally, clock.now())
            for student, tally in zip(students, tallies, strict=True)
        ]
    truths = [populations.truth_of(child) for child in children]
    metrics, details = score(children, truths, out)
    contexts = Counter(
        room.students.values_list("attempts__context", flat=True).exclude(attempts__isnull=True)
    )
    details.update(
        {
            "seed": seed,
            "size": {**size, "children": len(children)},
            "warm_up_minutes": warm_up_minutes,
            "attempts_by_context": dict(contexts),
            "warm_ups": sum(t.warm_ups for t in tallies),
            "games": sum(t.games for t in tallies),
            "games_finished": sum(t.games_finished for t in tallies),
            "warm_up_minutes_played": sum(t.warm_up_s for t in tallies) / 60,
            "game_minutes_played": sum(t.game_s for t in tallies) / 60,
            "end": clock.now().isoformat(),
            "wall_s": time.perf_counter() - wall,
        }
    )
    return {"children": out, "metrics": metrics, "details": details}


def bench_evidence_week(quick: bool = False, *, seeds=None, population=None):
    """For ``make bench``: the checking seeds (one quick seed in quick mode); (figures,
    details). Each goal's figure is its worst seed; every seed's figures are in details."""
    module = populations.load(population)
    seeds = seeds or (CHECK_SEEDS[:1] if quick else CHECK_SEEDS)
    runs = {seed: run_week(module, seed, quick=quick) for seed in seeds}
    figures = {}
    for name, (comparison, _goal) in GOALS.items():
        values = [r["metrics"][name] for r in runs.values() if r["metrics"][name] is not None]
        if values:
            figures[f"evidence_{name}"] = min(values) if comparison == ">=" else max(values)
    details = {
        "population": module.__name__,
        "seeds": list(seeds),
        "runs": {str(seed): {"metrics": r["metrics"], **r["details"]} for seed, r in runs.items()},
    }
    return figures, details


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="One simulated school week (evidence_week).")
    parser.add_argument("--population", default=None, help="a population module or .py file")
    parser.add_argument("--seed", type=int, default=CHECK_SEEDS[0])
    parser.add_argument("--out", type=Path, default=None, help="write the week's JSON here")
    parser.add_argument("--quick", action="store_true", help="4 children, one 4-minute session")
    parser.add_argument("--warm-up-minutes", type=int, default=WARM_UP_MINUTES)
    args = parser.parse_args(argv)

    from bench.environment import setup_database

    setup_database()
    module = populations.load(args.population)
    result = run_week(module, args.seed, quick=args.quick, warm_up_minutes=args.warm_up_minutes)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")
    for name, value in result["metrics"].items():
        goal = GOALS.get(name)
        verdict = "" if goal is None else ("pass" if passes(name, value) else "FAIL")
        shown = "—" if value is None else f"{value:.3f}"
        target = f"{goal[0]} {goal[1]}" if goal else ""
        print(f"{name:32} {shown:>8}  {target} {verdict}")
    d = result["details"]
    print(
        f"seed {args.seed}: {d['size']['children']} children, {d['warm_ups']} warm-ups, "
        f"{d['games']} games; attempts {d['attempts_by_context']}; {d['wall_s']:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
