"""Family rooms expire after FAMILY_ROOM_TTL_HOURS without a change: nothing about a guest
outlives the room, and a child's home-play evidence (Attempt rows) survives."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from classroom.models import Attempt
from config.celery import app
from games.models import Match
from games.models import Move
from games.models import Seat
from games.tasks import expire_family_rooms
from games.views import PLAYER_COOKIE

from .conftest import family_form
from .conftest import potion_form
from .test_family_home_play import child_client
from .test_family_home_play import play_until_attempts

pytestmark = pytest.mark.django_db


def age(match, hours):
    Match.objects.filter(pk=match.pk).update(changed_at=timezone.now() - timedelta(hours=hours))


def guest_room(**fields):
    return Match.create(
        "muertoons",
        [
            {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "ana-key"},
            {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "ben-key"},
            {"kind": Seat.Kind.BOT, "name": "Coco (computer)", "bot_level": "heuristic"},
        ],
        family=True,
        host_key="ana-key",
        **fields,
    )


def test_the_beat_schedule_runs_the_expiry():
    entry = app.conf.beat_schedule["expire-family-rooms"]
    assert entry["task"] == expire_family_rooms.name


def test_an_old_guest_room_is_deleted_with_its_seats_and_moves():
    old, fresh = guest_room(), guest_room()
    legal = old.engine.legal_actions(old.load_state(), old.to_act()[0])
    old.play(old.to_act()[0], legal[0], version=0)
    practice = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.GUEST, "name": "Zed", "owner_key": "zed"},
            {"kind": "open", "name": "?"},
        ],
    )
    for match in (old, practice):
        age(match, 13)
    age(fresh, 11)
    assert expire_family_rooms() == {"deleted": 1, "scrubbed": 0}
    assert not Match.objects.filter(pk=old.pk).exists()
    assert not Seat.objects.filter(match_id=old.pk).exists()
    assert not Move.objects.filter(match_id=old.pk).exists()
    assert not Seat.objects.filter(name__in=["Ana", "Ben"], match_id=old.pk).exists()
    assert Match.objects.filter(pk=fresh.pk).exists()  # touched 11 hours ago: still on
    assert Match.objects.filter(pk=practice.pk).exists()  # not a family game
    assert expire_family_rooms() == {"deleted": 0, "scrubbed": 0}  # idempotent


def test_a_waiting_room_frees_its_code_and_the_cookie_finds_nothing():
    client = Client()
    client.post("/family/muertoons/new/", family_form())
    match = Match.objects.get()
    assert match.room_code
    age(match, 13)
    Match.objects.expire_rooms()
    assert Match.objects.by_room_code(match.room_code) is None
    again = Client()
    again.cookies[PLAYER_COOKIE] = client.cookies[PLAYER_COOKIE].value
    assert again.get(match.get_absolute_url()).status_code == 404


def test_a_home_play_room_is_scrubbed_and_the_childs_attempts_survive():
    child, student = child_client()
    response = child.post(
        "/family/multiplipotion/new/",
        potion_form(seat2_kind="here", seat2_name="Grandma Rosa"),
    )
    assert response.status_code == 302
    match = Match.objects.get()
    play_until_attempts(match)
    attempts = Attempt.objects.filter(student=student).count()
    assert attempts > 0
    # Grandma Rosa's seat went quiet and a computer took it over: her name is in the bot's.
    Seat.objects.filter(match=match, number=1).update(
        kind=Seat.Kind.BOT, name="Grandma Rosa (computer)", former_owner_key="rosa", owner_key=""
    )
    age(match, 13)
    assert Match.objects.expire_rooms() == (0, 1)
    match.refresh_from_db()
    assert match.expired_at is not None and match.room_code is None and match.host_key == ""
    assert match.status in {Match.Status.ABANDONED, Match.Status.FINISHED}
    assert Attempt.objects.filter(student=student).count() == attempts
    child_seat, other = match.seats.order_by("number")
    assert child_seat.kind == Seat.Kind.STUDENT and child_seat.child_link.student == student
    assert (
        other.name == "Computer player" and other.former_owner_key == "" and other.owner_key == ""
    )
    assert not Seat.objects.filter(name__icontains="Rosa").exists()
    assert Match.objects.expire_rooms() == (0, 0)  # idempotent: expired rooms are left alone
