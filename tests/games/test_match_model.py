"""The one code path that applies a move: versions, idempotency, rejections, replay, bots."""

import threading

import pytest
from django.db import connection

from games.models import IllegalMove
from games.models import Match
from games.models import Move
from games.models import NotYourTurn
from games.models import Seat
from games.models import StaleVersion


def first_place(match, seat=0):
    return next(
        a for a in match.engine.legal_actions(match.load_state(), seat) if a["type"] == "place"
    )


def test_play_stores_state_move_and_bumps_version(make_match):
    match = make_match()
    action = first_place(match)
    played = match.play(0, action, version=0, move_id="m1")
    match.refresh_from_db()
    assert match.version == 1
    move = Move.objects.get(match=match)
    assert (move.ply, move.seat, move.action) == (1, 0, action)
    assert any(e["kind"] == "placed" for e in move.events)
    assert played.duplicate is False
    assert action["card"] in {c for c in match.state["areas"][0]}


def test_same_move_id_twice_is_applied_once(make_match):
    match = make_match()
    action = first_place(match)
    first = match.play(0, action, version=0, move_id="same")
    again = match.play(0, action, version=0, move_id="same")
    assert again.duplicate is True
    assert again.move.pk == first.move.pk
    assert Move.objects.filter(match=match).count() == 1
    match.refresh_from_db()
    assert match.version == 1


def test_stale_version_changes_nothing(make_match):
    match = make_match()
    match.play(0, first_place(match), version=0)
    before = Match.objects.get(pk=match.pk).state
    with pytest.raises(StaleVersion):
        match.play(0, {"type": "end_turn"}, version=0)
    assert Match.objects.get(pk=match.pk).state == before
    assert Move.objects.count() == 1


def test_not_your_turn_changes_nothing(make_match):
    match = make_match()
    action = first_place(match, seat=0)
    with pytest.raises(NotYourTurn):
        match.play(1, {"type": "place", "card": match.state["hands"][1][0]}, version=0)
    assert Move.objects.count() == 0
    assert match.version == 0
    match.play(0, action, version=0)


def test_illegal_move_changes_nothing_and_explains(make_match):
    match = make_match()
    with pytest.raises(IllegalMove) as info:
        match.play(0, {"type": "place", "card": "mp-p99"}, version=0)
    assert "hand" in info.value.message
    with pytest.raises(IllegalMove):
        match.play(0, "not a dict", version=0)
    assert Move.objects.count() == 0
    assert Match.objects.get(pk=match.pk).version == 0


def test_bot_game_finishes_and_replay_reproduces_state(make_match):
    match = make_match(seats=("wizard", "apprentice"), bots=(0, 1), tier="green", seed=11)
    played = match.play_bot_turns()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert played == match.version == match.moves.count()
    assert match.outcome is not None
    *_, (last_move, final_state) = list(match.replay_states())
    assert match.engine.dump(final_state) == match.state
    assert last_move.ply == match.version


def test_bot_turns_are_enqueued_on_commit(make_match, settings, django_capture_on_commit_callbacks):
    settings.LIVE_PUSH = False  # no publish callback (tests/classroom/test_live_publish.py)
    with django_capture_on_commit_callbacks() as callbacks:
        match = make_match(seats=("ana", "wizard"), bots=(1,))
        match.play(0, first_place(match), version=0)
        match.play(0, {"type": "end_turn"}, version=1)
    # One callback for the bot's turn (the first move left seat 0 to act: nothing queued).
    assert len(callbacks) == 1


def test_play_bot_turns_is_idempotent_when_no_bot_must_act(make_match):
    match = make_match(seats=("ana", "wizard"), bots=(1,))
    assert match.play_bot_turns() == 0
    assert match.version == 0


def test_bot_sees_only_its_view(make_match, monkeypatch):
    match = make_match(seats=("ana", "wizard"), bots=(1,))
    match.play(0, first_place(match), version=0)
    match.play(0, {"type": "end_turn"}, version=1)
    seen = []
    real = match.engine.bot_action

    def spy(view, legal, level, rng, focus=None):
        seen.append(view)
        return real(view, legal, level, rng, focus)

    monkeypatch.setattr(match.engine, "bot_action", spy)
    match.play_bot_turns()
    assert seen
    ana_hand = set(Match.objects.get(pk=match.pk).state["hands"][0])
    for view in seen:
        assert view["seat"] == 1
        assert not ana_hand & {c["id"] for c in view.get("hand", [])}


@pytest.mark.django_db(transaction=True)
def test_two_racing_moves_exactly_one_applies(postgres, make_match):
    match = make_match()
    hand = match.state["hands"][0]
    barrier = threading.Barrier(2)
    results = []

    def attempt(card):
        try:
            barrier.wait()
            Match.objects.get(pk=match.pk).play(0, {"type": "place", "card": card}, version=0)
            results.append("applied")
        except StaleVersion:
            results.append("stale")
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(card,)) for card in hand[:2]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["applied", "stale"]
    assert Move.objects.filter(match=match).count() == 1
    assert Match.objects.get(pk=match.pk).version == 1


def test_seats_are_unique_per_match(make_match):
    match = make_match()
    assert list(match.seats.values_list("number", flat=True)) == [0, 1]
    assert {s.kind for s in match.seats.all()} == {Seat.Kind.GUEST}


def test_a_lost_bot_task_is_replayed_by_the_sweeper(make_match):
    from datetime import timedelta

    from django.utils import timezone

    from games.tasks import sweep_stalled_bots

    match = make_match(seats=("ana", "wizard"), bots=(1,))
    match.play(0, first_place(match), version=0, follow_ups=False)
    match.play(0, {"type": "end_turn"}, version=1, follow_ups=False)  # the bot's task is "lost"
    assert sweep_stalled_bots() == 0  # too recent to call stalled
    Match.objects.filter(pk=match.pk).update(changed_at=timezone.now() - timedelta(minutes=1))
    assert sweep_stalled_bots() > 0
    match.refresh_from_db()
    assert 0 in match.to_act()
    assert sweep_stalled_bots() == 0  # idempotent: nothing left for the bot


def test_enqueue_failure_never_fails_the_move(
    make_match, monkeypatch, settings, django_capture_on_commit_callbacks
):
    from games import tasks

    settings.LIVE_PUSH = False  # no publish callback (tests/classroom/test_live_publish.py)

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(tasks.play_bots, "apply_async", broker_down)
    match = make_match(seats=("ana", "wizard"), bots=(1,))
    match.play(0, first_place(match), version=0)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        match.play(0, {"type": "end_turn"}, version=1)
    assert len(callbacks) == 1  # the enqueue ran, failed, and was only logged
    assert Match.objects.get(pk=match.pk).version == 2


def test_what_just_happened_tells_a_player_everything_since_their_own_last_move():
    """A computer's turn can be several moves (Mortadelo: a combo, then each Plus card taken):
    a player's log goes back to their own last move (up to 14 sentences); a spectator's, and a
    player's with only a little since, is the last 6."""
    from games.models import RECENT_MOVES
    from games.presenters import LOG_LINES
    from games.presenters import LOG_LINES_MOST

    match = Match(recent_events=[[0, [{"n": "ana"}]]])
    match.recent_events += [[1, [{"n": f"bot {i}a"}, {"n": f"bot {i}b"}]] for i in range(5)]
    assert len(match.recent_events) <= RECENT_MOVES

    def line_of(event, names):
        return event["n"]

    def lines(seat):
        return match.recent_lines(line_of, {}, LOG_LINES, since_seat=seat, most=LOG_LINES_MOST)

    everything = ["ana"] + [f"bot {i}{x}" for i in range(5) for x in "ab"]
    assert lines(0) == everything  # Ana's move and all 10 of the computer's since
    assert lines(1) == everything[-6:]  # the computer moved last: the last 6
    assert lines(None) == everything[-6:]  # a spectator
    match.recent_events += [[1, [{"n": f"more {i}"}]] for i in range(5)]
    assert lines(0) == (everything + [f"more {i}" for i in range(5)])[-LOG_LINES_MOST:]
    match.recent_events = [[1, [{"n": "x"}]], [0, [{"n": "ana"}]], [1, [{"n": "y"}]]]
    assert lines(0) == ["x", "ana", "y"]  # fewer than 6 in all: all of them
