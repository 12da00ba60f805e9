"""``move_vs_baseline`` and ``move_response_kib``.

A: the real move (POST /play/<id>/move/ as htmx sends it, answered with the board partial) of a
signed-in child (the session of the picture sign-in: the child's id, sign-in generation and
key) on a match of the class's game session (``Assignment.new_match``: student seats, the
classroom's hooks), in the middle of a game: the mix of moves a child makes, place, capture
(with a right multiplication) and end of turn, as they come in play.
B: the bare view of bench/views.py doing the same move's database writes (the match row and the
Move row) on a twin match: the same seed, the same moves, so the same state sizes.
Both go through Django's WSGI handler with the project's full middleware stack, the same
cookies and headers (CSRF checked on both), alternating A/B (ABBA order) so that machine
noise hits both. The classmate's moves (seat 1), the engine's result for B, and new matches
when a game is far on are setup and are not timed.
"""

from __future__ import annotations

import gc
import gzip
import random
import statistics
import uuid
from datetime import time
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.test.utils import override_settings
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import get_random_string

from bench import fixtures
from bench import views
from bench import wsgi
from games.models import Match
from games.models import Seat

MOVE_TYPES = ("place", "capture", "end_turn")
# A game is left for a new one after this many of the child's moves (before its end, whose
# statistics task would be timed with the move).
MOVES_PER_MATCH = 12


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


class Classroom:
    """One class with an open game session; ``pair(seed)`` -> twin matches (A, B) of a child
    and a classmate, both of the session, both from ``seed``."""

    def __init__(self, children: int = 8):
        from django.contrib.auth import get_user_model

        from classroom.models import Assignment
        from classroom.models import Classroom as ClassroomModel
        from classroom.models import Membership
        from classroom.models import School
        from classroom.models import Student

        tag = get_random_string(6).lower()
        school = School.objects.create(
            name=f"Bench school {tag}", day_ends_at=time(23, 59), timezone="UTC"
        )
        teacher = get_user_model().objects.create_user(f"bench-{tag}", password=None)
        Membership.objects.create(user=teacher, school=school)
        classroom = ClassroomModel.objects.create(school=school, teacher=teacher, name="B1")
        self.students = Student.objects.bulk_create(
            Student(classroom=classroom, name=f"Child {i + 1}") for i in range(children)
        )
        self.students = list(Student.objects.filter(classroom=classroom).order_by("pk"))
        self.assignment = Assignment.objects.create(
            classroom=classroom,
            created_by=teacher,
            title="Bench",
            tier=Assignment.Tier.FULL,  # the biggest deck: the largest state JSON
            target_value=50,
            opens_at=timezone.now() - timedelta(minutes=1),
            warm_up_minutes=0,
        )
        self.child, self.classmate = self.students[0], self.students[1]

    def pair(self, seed: int) -> tuple[Match, Match]:
        seats = [
            {"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key}
            for s in (self.child, self.classmate)
        ]
        options = {"tier": self.assignment.tier}
        return tuple(  # type: ignore[return-value]
            self.assignment.new_match(seats, options=options, seed=seed) for _ in range(2)
        )

    def headers(self) -> dict[str, str]:
        """The child's browser after the picture sign-in (classroom.child_session)."""
        from classroom.child_session import session_end

        child = self.child
        store = import_module(settings.SESSION_ENGINE).SessionStore()
        store["student_id"] = child.pk
        store["signin_generation"] = child.classroom.signin_generation
        store["signin_key"] = child.signin_key
        store["player_key"] = get_random_string(24)
        store.set_expiry(session_end(child.classroom.school))
        store.save()
        csrf = get_random_string(32)
        return {
            "Cookie": f"{settings.SESSION_COOKIE_NAME}={store.session_key}; "
            f"{settings.CSRF_COOKIE_NAME}={csrf}",
            "X-CSRFToken": csrf,
            "Accept": "text/html",
            "User-Agent": "multiplipotion-bench",
            "HX-Request": "true",
            "HX-Target": "board",
        }


def child_action(state, module, seat: int, rng: random.Random) -> dict:
    """What a child does on its turn (as bench/load/board.py): place a card while it must,
    capture when a right multiplication is there, else end the turn."""
    from games.multiplipotion.engine import MONSTER
    from games.multiplipotion.engine import POTION

    legal = module.legal_actions(state, seat)
    places = [a for a in legal if a["type"] == "place"]
    if places:
        return rng.choice(places)
    right = [
        a
        for a in legal
        if a["type"] == "capture"
        and POTION[a["potions"][0]] * POTION[a["potions"][1]] == MONSTER[a["monster"]]
    ]
    if right:
        return rng.choice(right)
    return next((a for a in legal if a["type"] == "end_turn"), legal[0])


def classmate_turns(pair: tuple[Match, Match], rng: random.Random) -> bool:
    """The classmate (seat 1) plays on both twins, untimed, as a child does, until the child
    must act; False when the game ended."""
    real, bare = pair
    while True:
        real.refresh_from_db()
        module = real.engine
        state = module.load(real.state)
        if state["phase"] == "over":
            return False
        acting = module.to_act(state)
        if 0 in acting:
            return True
        action = child_action(state, module, acting[0], rng)
        for match in (real, bare):
            match.refresh_from_db()
            match.play(acting[0], action, version=match.version, follow_ups=False)


def bench_moves(quick: bool = False, *, rounds=None, warmup=None, keep_connection=False):
    """Return (figures, details). ``keep_connection``: True inside a test transaction."""
    rounds = rounds or (24 if quick else 800)
    warmup = warmup if warmup is not None else (2 if quick else 40)
    total = rounds + warmup
    rng = random.Random(2026)
    room = Classroom()
    headers = room.headers()
    seed = 0
    pair = room.pair(seed)
    made = 0

    real_ms: list[float] = []
    bare_ms: list[float] = []
    by_type: dict[str, list[float]] = {kind: [] for kind in MOVE_TYPES}
    bare_by_type: dict[str, list[float]] = {kind: [] for kind in MOVE_TYPES}
    response_sizes: list[tuple[int, int]] = []
    with override_settings(ROOT_URLCONF="bench.urls"), wsgi.keep_connection(keep_connection):
        handler = WSGIHandler()
        gc.collect()
        for i in range(total):
            if made >= MOVES_PER_MATCH or not classmate_turns(pair, rng):
                seed += 1
                pair, made = room.pair(seed), 0
                classmate_turns(pair, rng)
            real, bare = pair
            real.refresh_from_db()
            bare.refresh_from_db()
            module = real.engine
            action = child_action(module.load(real.state), module, 0, rng)
            new_state, events = module.apply(module.load(bare.state), 0, action)
            views.PAYLOADS[bare.public_id] = (module.dump(new_state), action, events)
            requests = {
                "real": (
                    reverse("games:move", args=[real.public_id]),
                    fixtures.move_body(real, action, uuid.uuid4().hex),
                ),
                "bare": (
                    f"/bench/bare-move/{bare.public_id}/",
                    fixtures.move_body(bare, action, uuid.uuid4().hex),
                ),
            }
            # The child's device shows the board before it moves (the play page, the stream's
            # checks), and that wrote its seats' last_seen_at: untimed, as the page load is.
            Seat.objects.filter(match=real).mark_seen()
            pair_order = ("real", "bare") if i % 4 in (0, 3) else ("bare", "real")
            for side in pair_order:
                path, body = requests[side]
                response = wsgi.call(handler, "POST", path, body=body, headers=headers)
                if response.status != 200:
                    raise RuntimeError(
                        f"{side} move answered {response.status}: {response.body[:300]!r}"
                    )
                if i < warmup:
                    continue
                ms = response.ns / 1e6
                if side == "real":
                    real_ms.append(ms)
                    by_type[action["type"]].append(ms)
                    if action["type"] == "place":
                        response_sizes.append((gzip_size(response.body), len(response.body)))
                else:
                    bare_ms.append(ms)
                    bare_by_type[action["type"]].append(ms)
            made += 1
            real.refresh_from_db()
            bare.refresh_from_db()
            if real.version != bare.version or real.state != bare.state:
                raise RuntimeError(f"the twins differ after move {i}: {action}")
    views.PAYLOADS.clear()

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
        "matches": seed + 1,
        "move_response_raw_bytes": raw_median,
        "move_response_gzip_bytes": gz_median,
        "by_type": {
            kind: {
                "count": len(by_type[kind]),
                "median_ms": statistics.median(by_type[kind]) if by_type[kind] else None,
                "baseline_median_ms": (
                    statistics.median(bare_by_type[kind]) if bare_by_type[kind] else None
                ),
            }
            for kind in MOVE_TYPES
        },
    }
    return figures, details
