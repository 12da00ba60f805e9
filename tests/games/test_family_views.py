"""Family night: the list of games and the new-game form for any game (people on this device
and computer players)."""

import re

import pytest
from django.urls import reverse

from games.models import Match
from games.models import Seat

from .conftest import family_form
from .conftest import guest_client

HTMX = {"HTTP_HX_REQUEST": "true"}


def muertoons_data(**extra):
    """Muertoons for three: Ana here and two computer players."""
    return family_form(**{"seat2_kind": "computer", "seat2_level": "heuristic", **extra})


@pytest.mark.django_db
def test_family_page_lists_every_game_with_its_facts(client):
    response = client.get(reverse("games:family"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Family night" in body
    assert "MultipliPotion" in body and "Muertoons" in body
    assert "3–5" in body and "6+" in body and "7+" in body and "15 min" in body
    assert reverse("games:new_family", args=["muertoons"]) in body
    assert reverse("games:new_family", args=["multiplipotion"]) in body


@pytest.mark.django_db
def test_new_family_form_for_each_game_and_404_for_an_unknown_one(client):
    body = client.get(reverse("games:new_family", args=["muertoons"])).content.decode()
    assert "How many players?" in body and "Clever" in body
    assert 'value="random"' not in body
    body = client.get(reverse("games:new_family", args=["multiplipotion"])).content.decode()
    assert "Which tables?" in body and "Grand wizard" in body
    assert client.get(reverse("games:new_family", args=["chess"])).status_code == 404


@pytest.mark.django_db
def test_il_trono_starts_with_the_rulebooks_four_players_not_the_two_player_variant(client):
    body = client.get(reverse("games:new_family", args=["trono"])).content.decode()
    checked = re.search(r'<input[^>]*name="players"[^>]*checked[^>]*>', body).group(0)
    assert 'value="4"' in checked
    # Its five optional rules are folded after the seats, above "Start the game"; a
    # MultipliPotion form keeps its one choice (the tables) in sight at the top.
    folded = body.split('<details class="family-options">')[1].split("</details>")[0]
    assert folded.count("<fieldset") == 5 and "Extra rules (5)" in folded
    assert body.index("family-options") > body.index("family-seat")
    assert body.index("family-options") < body.index("Start the game")
    mp = client.get(reverse("games:new_family", args=["multiplipotion"])).content.decode()
    assert "family-options" not in mp and mp.index("Which tables?") < mp.index("family-seat")


@pytest.mark.django_db
def test_one_person_and_two_computers_start_muertoons(client):
    response = client.post(reverse("games:new_family", args=["muertoons"]), muertoons_data())
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    assert match.game == "muertoons" and match.status == Match.Status.ACTIVE
    seats = list(match.seats.order_by("number"))
    assert [s.kind for s in seats] == [Seat.Kind.GUEST, Seat.Kind.BOT, Seat.Kind.BOT]
    assert seats[0].name == "Ana" and seats[1].bot_level == "heuristic"
    assert seats[1].name != seats[2].name
    # This browser plays seat 0 (no hand-off for a single person).
    body = client.get(match.get_absolute_url()).content.decode()
    assert all(c in body for c in match.state["hands"][0])
    assert "show my cards" not in body


@pytest.mark.django_db
def test_people_on_one_device_share_the_player_key_and_see_the_hand_off(client):
    data = muertoons_data(players="4", seat2_kind="here", seat2_name="Ben", seat4_kind="here")
    data["seat4_name"] = "Cleo"
    response = client.post(reverse("games:new_family", args=["muertoons"]), data, **HTMX)
    match = Match.objects.get()
    assert response["HX-Redirect"] == match.get_absolute_url()
    seats = list(match.seats.order_by("number"))
    guest, bot = Seat.Kind.GUEST, Seat.Kind.BOT
    assert [s.kind for s in seats] == [guest, guest, bot, guest]
    assert len({s.owner_key for s in seats if s.kind == Seat.Kind.GUEST}) == 1
    body = client.get(match.get_absolute_url()).content.decode()
    assert "I'm <bdi>Ana</bdi> — show my cards" in body
    assert not [c for h in match.state["hands"] for c in h if c in body]


@pytest.mark.django_db
def test_multiplipotion_through_family_night_keeps_its_options(client):
    data = {
        "players": "2",
        "option_tier": "purple",
        "seat1_kind": "here",
        "seat1_name": "Ana",
        "seat2_kind": "computer",
        "seat2_level": "apprentice",
    }
    client.post(reverse("games:new_family", args=["multiplipotion"]), data)
    match = Match.objects.get()
    assert match.game == "multiplipotion" and match.options == {"tier": "purple"}
    assert match.seats.get(number=1).bot_level == "apprentice"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "extra, message",
    [
        ({"seat1_name": ""}, "this player"),
        ({"seat1_name": "123"}, "letter"),
        ({"seat2_kind": "here", "seat2_name": "ana"}, "Two players have this name"),
        ({"seat1_kind": "computer", "seat1_level": "heuristic"}, "At least one player"),
        ({"seat2_level": "random"}, "Select a valid choice"),
        ({"players": "6"}, "Select a valid choice"),
        ({"players": "2"}, "Select a valid choice"),
    ],
)
def test_bad_family_form_is_422_and_creates_nothing(client, extra, message):
    response = client.post(
        reverse("games:new_family", args=["muertoons"]), muertoons_data(**extra), **HTMX
    )
    assert response.status_code == 422
    assert message in response.content.decode()
    assert Match.objects.count() == 0


@pytest.mark.django_db
def test_unused_seats_are_ignored():
    client = guest_client("ana")
    data = muertoons_data(seat4_kind="here", seat4_name="", seat5_kind="computer")
    response = client.post(reverse("games:new_family", args=["muertoons"]), data)
    assert response.status_code == 302
    assert Match.objects.get().seats.count() == 3


@pytest.mark.parametrize(
    ("slug", "said"),
    [
        ("trono", "Everyone rolls the five dice at the start"),
        ("mortadelo", "who starts the duels is drawn at random"),
        ("multiplipotion", "the rulebook says the youngest"),
        ("muertoons", "Player 1 goes first."),
        ("munchkin", "Player 1 goes first."),
    ],
)
def test_the_form_says_who_really_goes_first_in_each_game(client, slug, said):
    """Il Trono starts with the start roll and Mortadelo with a drawn player: the form must not
    promise Player 1 the first turn there."""
    page = client.get(reverse("games:new_family", args=[slug])).text
    assert said in page
    if slug in {"trono", "mortadelo"}:
        assert "Player 1 goes first" not in page
