"""bench/load/heatmap.py: the load run's probe of ``heatmap_after_game_p95_ms`` times a game
from its end to the poll that finds every attempt of it counted, and no other game.
The thread with a real worker is in tests/classroom/test_analytics_pipeline_worker.py."""

import datetime as dt
import uuid

import pytest
from django.contrib.auth import get_user_model

from bench.analytics import game_before_last_move
from bench.load.heatmap import HeatmapProbe
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from games.models import Match
from games.models import Seat


def a_child() -> Student:
    teacher = get_user_model().objects.create_user(f"t-{uuid.uuid4().hex[:6]}", password="x")
    school = School.objects.create(name="Probe school")
    room = Classroom.objects.create(school=school, teacher=teacher, name="P")
    return Student.objects.create(classroom=room, name="Ada", badge_token=uuid.uuid4().hex)


@pytest.mark.django_db
def test_a_game_is_timed_from_its_end_to_its_attempts_counted():
    ada = a_child()
    ended_before, seat, action = game_before_last_move(ada, 7)
    ended_before.play(seat, action, version=ended_before.version, follow_ups=False)
    assert ended_before.is_over  # ended before the probe started: not one of its games

    match, seat, action = game_before_last_move(ada, 8)
    no_attempts = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.GUEST, "name": "A", "owner_key": "a"},
            {"kind": Seat.Kind.GUEST, "name": "B", "owner_key": "b"},
        ],
        options={"tier": "green"},
        seed=3,
    )
    probe = HeatmapProbe()
    probe.poll()
    assert probe.figures()["games"] == 0

    # The last move; the test's transaction never commits, so no task runs: still waiting.
    match.play(seat, action, version=match.version, follow_ups=False)
    assert match.is_over and Attempt.objects.filter(match=match, stats_applied=False).exists()
    Match.objects.filter(pk=no_attempts.pk).update(
        status=Match.Status.FINISHED, finished_at=match.finished_at, changed_at=match.changed_at
    )
    probe.poll()
    waiting = probe.figures()
    assert waiting["games"] == 1 and waiting["counted"] == 0 and waiting["not_counted"] == 1
    assert waiting["p95_ms"] is None
    assert waiting["games_without_attempts"] == 1

    # The game-end task's body counts its attempts: the next poll times it.
    assert FactStat.objects.update_for_match(match.pk) > 0
    probe.poll()
    counted = probe.figures()
    assert counted["games"] == 1 and counted["counted"] == 1 and counted["not_counted"] == 0
    assert 0 < counted["p95_ms"] == counted["p50_ms"] == counted["max_ms"]
    assert probe.seen_ms.keys() == {match.pk}

    # Counted from a moment after the game's end: not one of the step's games.
    assert probe.figures(match.finished_at + dt.timedelta(seconds=1))["games"] == 0
