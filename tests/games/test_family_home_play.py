"""Home play: a signed-in child starts a family game of MultipliPotion; their seat is a
student seat, and its fact events are the child's evidence, marked as home play."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import session_of
from games.models import Match
from games.models import Seat

from .conftest import potion_form

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
        potion_form(
            seat1_kind="computer",
            seat1_name="Somebody",
            seat2_kind="computer",
            seat2_level="apprentice",
        ),
    )
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.family and session_of(match) is None
    seat = match.seats.get(number=0)
    assert (
        seat.kind == Seat.Kind.STUDENT and seat.child_link.student == student and seat.name == "Ada"
    )
    # The child's sign-in owns it (their seat key, on any device), not a device key.
    assert seat.owner_key == student.seat_key != "ada-device"
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
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": student.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
        ],
        options={"tier": "green"},
    )
    play_until_attempts(match)
    attempts = Attempt.objects.filter(match=match)
    assert attempts.exists() and not any(a.home for a in attempts)


def family_match_of(child):
    response = child.post(
        reverse("games:new_family", args=["multiplipotion"]),
        potion_form(seat2_kind="computer", seat2_level="apprentice"),
    )
    assert response.status_code == 302
    return Match.objects.get()


def signed_in(student, player_key):
    client = Client()
    session = client.session
    session.update(
        {
            "student_id": student.pk,
            "signin_generation": student.classroom.signin_generation,
            "signin_key": student.signin_key,
            "player_key": player_key,
        }
    )
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client


def test_a_childs_seat_is_theirs_on_any_device_they_sign_in_on_and_nobody_elses():
    """The seat is owned by the child's seat key, which only the child's checked sign-in
    gives a request: never a browser's own session or cookie key."""
    from django.core import signing

    from games.views import PLAYER_COOKIE
    from games.views import PLAYER_COOKIE_SALT

    child, student = child_client()
    match = family_match_of(child)
    url = match.get_absolute_url()
    poll = reverse("games:poll", args=[match.public_id]) + f"?v={match.poll_token}"
    # The child's own device: their seat, and its cookie never holds the child's key.
    response = child.get(url)
    assert response.status_code == 200
    if PLAYER_COOKIE in response.cookies:
        assert student.seat_key not in response.cookies[PLAYER_COOKIE].value
    # Another Chromebook, the same child signed in: their seat too.
    other = signed_in(student, "another-device")
    assert other.get(url).status_code == 200
    assert other.get(poll, HTTP_HX_REQUEST="true").status_code == 204
    # Nobody else: a stranger, a session or a signed cookie holding the seat key (a browser
    # cannot make either: the server makes both keys, random and without a colon).
    assert Client().get(url).status_code == 404
    forged = Client()
    session = forged.session
    session["player_key"] = student.seat_key
    session.save()
    forged.cookies["sessionid"] = session.session_key
    assert forged.get(url).status_code == 404
    cookie = Client()
    signer = signing.get_cookie_signer(salt=PLAYER_COOKIE + PLAYER_COOKIE_SALT)
    cookie.cookies[PLAYER_COOKIE] = signer.sign(student.seat_key)
    assert cookie.get(url).status_code == 404
    # The child's sessions end with new pictures: the seat is no longer theirs there.
    student.new_pictures()
    assert other.get(url).status_code == 404
    assert signed_in(student, "third-device").get(url).status_code == 200


def test_a_childs_unchanged_poll_costs_one_query_after_the_session(django_assert_max_num_queries):
    """The poll finds the child's seat through the key the session claims: no query to
    check the sign-in (the board, when it changed, is rendered through the checked key)."""
    child, _student = child_client()
    match = family_match_of(child)
    poll = reverse("games:poll", args=[match.public_id]) + f"?v={match.poll_token}"
    child.get(poll, HTTP_HX_REQUEST="true")  # warm the session cache
    with django_assert_max_num_queries(2):
        assert child.get(poll, HTTP_HX_REQUEST="true").status_code == 204
