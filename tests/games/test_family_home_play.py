"""Home play: a signed-in child starts a family game of MultipliPotion; their seat is a
student seat, and its fact events are the child's evidence, marked as home play."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import Attempt, Classroom, School, Student, session_of
from games.models import Match, Seat

pytestmark = pytest.mark.django_db


def child_client():
    teacher = get_user_model().objects.create_user("tess", "t@example.com", "pw-long-enough-1")
    school = School.objects.create(name="Hill School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    student = Student.objects.create(classroom=classroom, name="Ada")
    client = Client()
    session = client.session
    session["student_id"] = student.pk
    session["signin_generation"] = classroom.signin_generation
    session["signin_key"] = student.signin_key
    session["player_key"] = "ada-device"
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client, student


def play_until_attempts(match, moves=300):
    """The child's seat 0 claims a capture (a fact, right or wrong) as soon as it can; the
    other seat plays as a computer or, when a person, places and ends turns."""
    for _ in range(moves):
        match.refresh_from_db()
        if match.is_over or Attempt.objects.filter(match=match).exists():
            return
        seat = match.to_act()[0]
        if match.seats.get(number=seat).kind == Seat.Kind.BOT:
            match.play_bot_turns()
            continue
        legal = match.engine.legal_actions(match.load_state(), seat)
        wanted = {"capture", "challenge"} if seat == 0 else {"place", "end_turn"}
        action = next((a for a in legal if a["type"] in wanted), legal[0])
        match.play(seat, action, version=match.version)


def test_a_signed_in_child_plays_multiplipotion_at_home_as_themself():
    child, student = child_client()
    body = child.get(reverse("games:family")).content.decode()
    assert "<bdi>Ada</bdi>, you are signed in" in body
    body = child.get(reverse("games:new_family", args=["multiplipotion"])).content.decode()
    assert "Player 1 is you, <bdi>Ada</bdi>" in body
    # Player 1 is the child whatever the form says.
    response = child.post(
        reverse("games:new_family", args=["multiplipotion"]),
        {
            "players": "2",
            "option_tier": "green",
            "seat1_kind": "computer",
            "seat1_name": "Somebody",
            "seat2_kind": "computer",
            "seat2_level": "apprentice",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.family and session_of(match) is None
    seat = match.seats.get(number=0)
    assert seat.kind == Seat.Kind.STUDENT and seat.student == student and seat.name == "Ada"
    assert seat.owner_key == ""  # the child's sign-in owns it, not a device key
    assert child.get(match.get_absolute_url()).status_code == 200
    play_until_attempts(match)
    attempts = Attempt.objects.filter(match=match)
    assert attempts.exists()
    assert all(a.home and a.student_id == student.pk for a in attempts)


def test_classroom_and_other_games_are_not_home_play():
    child, student = child_client()
    # Muertoons records no facts: a child plays it as a guest with a name.
    child.post(
        reverse("games:new_family", args=["muertoons"]),
        {
            "players": "3",
            "seat1_kind": "here",
            "seat1_name": "Ada",
            "seat2_kind": "computer",
            "seat2_level": "heuristic",
            "seat3_kind": "computer",
            "seat3_level": "heuristic",
        },
    )
    assert Match.objects.get().seats.get(number=0).kind == Seat.Kind.GUEST
    # A classroom-style match (not family) records attempts with home=False.
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "student": student},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
        ],
        options={"tier": "green"},
    )
    play_until_attempts(match)
    attempts = Attempt.objects.filter(match=match)
    assert attempts.exists() and not any(a.home for a in attempts)
