"""Concurrency on PostgreSQL: two moves race on one match through the real views, in two
threads (each with its own database connection), released together by a barrier.

- Two different moves at the same version: exactly one applies (200); the other is answered
  409 with the latest board, and the match moved on by exactly one ply.
- The same move sent twice (a double tap: the same move id): both answers are the board, and
  the move is stored once.

The suite runs RACE_TRIALS=50 trials spread over every game; ``make soak`` runs 1,000."""

import random
import threading
import uuid
from collections import Counter

import pytest
from django.db import connections

from games import registry
from games.models import Match
from games.models import Move

from .conftest import count
from .conftest import game_params
from .conftest import guest_seats
from .conftest import move_data
from .conftest import seat_client

TRIALS = count("RACE_TRIALS", 50)
HTMX = {"HTTP_HX_REQUEST": "true"}


def race(requests):
    """Run the callables at once (a barrier releases them together); their results in order."""
    barrier = threading.Barrier(len(requests))
    results = [None] * len(requests)

    def run(i, fn):
        try:
            barrier.wait(timeout=10)
            results[i] = fn()
        except Exception as exc:  # reported by the test, not lost in the thread
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def prepared_match(slug: str, rng: random.Random) -> Match:
    """A match of ``slug`` between people, some random plies in."""
    module = registry.get(slug).rules
    players = rng.randint(module.MIN_PLAYERS, module.MAX_PLAYERS)
    match = Match.create(slug, guest_seats(players, prefix=uuid.uuid4().hex[:8]))
    for _ in range(rng.randint(0, 12)):
        state = module.load(match.state)
        acting = module.to_act(state)
        if not acting:
            break
        seat = rng.choice(list(acting))
        match.play(seat, rng.choice(module.legal_actions(state, seat)), version=match.version)
        if match.is_over:
            break
    return match


@pytest.mark.slow
@pytest.mark.services
def test_racing_moves_apply_exactly_once(postgres, transactional_db):
    rng = random.Random(6)
    slugs = game_params()
    outcomes = Counter()
    trial = 0
    while trial < TRIALS:
        slug = slugs[trial % len(slugs)]
        match = prepared_match(slug, rng)
        if match.is_over:
            continue
        module = match.engine
        state = module.load(match.state)
        seat = rng.choice(list(module.to_act(state)))
        legal = module.legal_actions(state, seat)
        key = match.seats.get(number=seat).owner_key
        version, moves_before = match.version, match.moves.count()
        url = f"/play/{match.public_id}/move/"
        double_tap = trial % 2 == 1
        if double_tap:
            data = move_data(rng.choice(legal), version)
            forms = [data, dict(data)]
        else:
            forms = [move_data(rng.choice(legal), version) for _ in range(2)]
        clients = [seat_client(key), seat_client(key)]
        answers = race(
            [
                lambda c=c, f=f, u=url: c.post(u, f, **HTMX)
                for c, f in zip(clients, forms, strict=True)
            ]
        )
        for answer in answers:
            assert not isinstance(answer, Exception), answer
        codes = sorted(a.status_code for a in answers)
        match.refresh_from_db()
        stored = Move.objects.filter(match=match).count()
        assert stored == moves_before + 1, (slug, trial, codes, stored - moves_before)
        assert match.version == version + 1, (slug, trial, codes)
        if double_tap:
            assert codes == [200, 200], (slug, trial, codes)
            assert Move.objects.filter(match=match, client_move_id=forms[0]["move_id"]).count() == 1
            outcomes["double tap: stored once, both answered 200"] += 1
        else:
            assert codes == [200, 409], (slug, trial, codes)
            outcomes["two moves: one 200, one 409"] += 1
        # The stored state is the seed replayed through the stored moves.
        *_, (_move, replayed) = match.replay_states()
        assert module.dump(replayed) == match.state
        trial += 1
    print(f"\n{TRIALS} racing trials over {', '.join(slugs)}: {dict(outcomes)}")
