"""Simultaneous secret choices on PostgreSQL (issue 18, item 10): in a Muertoons contest or a
Mortadelo duel, two seats that loaded the same board commit their face-down choices at the same
moment, through the real views, in two threads (each with its own database connection) released
together by a barrier. Both are applied (200, 200): the row lock puts one after the other, and
the second is not stale, as the first only added a secret choice. The same with a person and a
computer player (the worker's task) at once. Every trial checks that both choices are stored
once as the next two moves (a computer player may go on to its next decision after the
reveal), and the seed replayed through the moves gives the state.

The suite runs 12 trials of each kind over both games, ``make soak`` (RACE_TRIALS=1000) 250;
CHOICE_TRIALS sets the number."""

import random
import re
import uuid
from collections import Counter

import pytest

from games import registry
from games.models import Match
from games.models import Move
from games.models import Seat
from games.tasks import play_bots

from .conftest import count
from .conftest import move_data
from .conftest import seat_client
from .test_concurrency_pg import race

TRIALS = count("CHOICE_TRIALS", count("RACE_TRIALS", 48) // 4)
HTMX = {"HTTP_HX_REQUEST": "true"}
GAMES = ("muertoons", "mortadelo")


def secret_round(state) -> dict | None:
    """The open round of secret choices (a Muertoons contest, a Mortadelo duel), if any."""
    return state.get("contest") or state.get("duel")


def round_open(module, state) -> bool:
    rnd = secret_round(state)
    return (
        rnd is not None
        and state["phase"] in ("contest", "duel")
        and len(module.to_act(state)) >= 2
        and all(c is None for c in rnd["choices"])
    )


def ready_match(slug: str, rng: random.Random, bot: bool) -> Match | None:
    """A match of ``slug`` played by random legal moves until an open round of secret choices
    (None when the game ended first). With ``bot``, the second seat to choose in it is then
    made a computer player (a family host's take-over works the same way)."""
    module = registry.get(slug).rules
    players = rng.randint(module.MIN_PLAYERS, module.MAX_PLAYERS)
    prefix = uuid.uuid4().hex[:8]
    seats = [
        {"kind": Seat.Kind.GUEST, "name": f"Player {i + 1}", "owner_key": f"{prefix}-{i}"}
        for i in range(players)
    ]
    match = Match.create(slug, seats, seed=rng.randrange(2**31))
    for _ in range(600):
        state = module.load(match.state)
        if match.is_over:
            return None
        if round_open(module, state):
            if bot:
                number = sorted(module.to_act(state))[1]
                match.seats.filter(number=number).update(
                    kind=Seat.Kind.BOT, owner_key="", bot_level=module.BEST_LEVEL
                )
            return match
        seat = rng.choice(list(module.to_act(state)))
        match.play(seat, rng.choice(module.legal_actions(state, seat)), version=match.version)
    return None


def board_form(client, match) -> tuple[str, list[str]]:
    """The version a seat's board carries in its hand form and the cards it offers."""
    text = client.get(f"/play/{match.public_id}/").content.decode()
    block = re.search(r'<form class="hand[^"]*".*?</form>', text, flags=re.S).group(0)
    version = re.search(r'name="version" value="(\d+)"', block).group(1)
    cards = re.findall(r'<button type="submit" name="card" value="([^"]+)"', block)
    assert cards, "the hand form offers no card"
    return version, cards


def chosen(module, match, seat) -> str | None:
    """The card ``seat`` chose in the round (still face down, or turned over since)."""
    state = module.load(match.state)
    rnd = secret_round(state)
    if rnd is not None and rnd["choices"][seat] is not None:
        return rnd["choices"][seat]
    moves = match.moves.filter(seat=seat).order_by("-ply").values_list("action", flat=True)
    action = moves.first()
    return action.get("card") if action and action.get("type") == "choose" else None


def check_stored(module, match, version, moves_before, seats, slug, trial, exact=True):
    """The two choices are the next two moves after ``version`` (``exact``: and the only ones;
    a computer player may have gone on to its next decision after the reveal)."""
    match.refresh_from_db()
    if exact:
        assert match.version == version + 2, (slug, trial, match.version - version)
    assert Move.objects.filter(match=match).count() == moves_before + match.version - version
    stored = list(
        Move.objects.filter(match=match, ply__in=(version + 1, version + 2)).values_list(
            "seat", "action"
        )
    )
    assert len(stored) == 2, (slug, trial, stored)
    assert sorted(s for s, _a in stored) == sorted(seats), (slug, trial, stored)
    assert all(a["type"] == "choose" for _s, a in stored), (slug, trial, stored)
    for seat in seats:
        assert chosen(module, match, seat) is not None, (slug, trial, seat)
    *_, (_move, replayed) = match.replay_states()
    assert module.dump(replayed) == match.state, (slug, trial)


@pytest.mark.slow
@pytest.mark.services
def test_two_people_choosing_at_once_both_count(postgres, transactional_db):
    rng = random.Random(18)
    outcomes = Counter()
    trial = 0
    while trial < TRIALS:
        slug = GAMES[trial % len(GAMES)]
        match = ready_match(slug, rng, bot=False)
        if match is None:
            continue
        module = match.engine
        a, b = sorted(module.to_act(module.load(match.state)))[:2]
        keys = {s.number: s.owner_key for s in match.seats.all()}
        clients = {n: seat_client(keys[n]) for n in (a, b)}
        forms = {}
        for n in (a, b):
            version, cards = board_form(clients[n], match)
            forms[n] = move_data({"type": "choose", "card": rng.choice(cards)}, int(version))
        version, moves_before = match.version, match.moves.count()
        url = f"/play/{match.public_id}/move/"
        answers = race(
            [lambda c=clients[n], f=forms[n], u=url: c.post(u, f, **HTMX) for n in (a, b)]
        )
        for answer in answers:
            assert not isinstance(answer, Exception), answer
        codes = [answer.status_code for answer in answers]
        assert codes == [200, 200], (slug, trial, codes)
        check_stored(module, match, version, moves_before, (a, b), slug, trial)
        for n in (a, b):
            assert chosen(module, match, n) == forms[n]["card"], (slug, trial, n)
        outcomes[f"{slug}: both applied"] += 1
        trial += 1
    print(f"\n{TRIALS} trials of two people choosing at once: {dict(outcomes)}")


@pytest.mark.slow
@pytest.mark.services
def test_a_person_and_a_computer_choosing_at_once_both_count(postgres, transactional_db):
    rng = random.Random(81)
    outcomes = Counter()
    trial = 0
    while trial < TRIALS:
        slug = GAMES[trial % len(GAMES)]
        match = ready_match(slug, rng, bot=True)
        if match is None:
            continue
        module = match.engine
        person, computer = sorted(module.to_act(module.load(match.state)))[:2]
        client = seat_client(match.seats.get(number=person).owner_key)
        version, cards = board_form(client, match)
        form = move_data({"type": "choose", "card": rng.choice(cards)}, int(version))
        version, moves_before = match.version, match.moves.count()
        url = f"/play/{match.public_id}/move/"
        answer, bot_moves = race(
            [
                lambda c=client, f=form, u=url: c.post(u, f, **HTMX),
                lambda pk=match.pk: play_bots(pk),
            ]
        )
        assert not isinstance(answer, Exception), answer
        assert not isinstance(bot_moves, Exception), bot_moves
        assert answer.status_code == 200, (slug, trial, answer.status_code)
        assert bot_moves >= 1, (slug, trial, bot_moves)
        check_stored(
            module, match, version, moves_before, (person, computer), slug, trial, exact=False
        )
        assert match.version == version + 1 + bot_moves, (slug, trial, bot_moves)
        first = Move.objects.get(match=match, ply=version + 1).seat
        outcomes[f"{slug}: {'computer' if first == computer else 'person'} first"] += 1
        trial += 1
    print(f"\n{TRIALS} trials of a person and a computer choosing at once: {dict(outcomes)}")
