"""The Muertoons play screen: every status code of a move, hidden hands and contest choices,
the special steps (Gabi gifts, Lupita straight, contest) and pass-and-play hand-offs."""

import random

import pytest

from config.names import isolate
from games import registry
from games.models import Match
from games.models import Move

from . import conftest as kit
from .conftest import HTMX
from .conftest import guest_client
from .conftest import post_move
from .conftest import url

MU = registry.get("muertoons").rules


def make_mu(keys=("ana", "ben", "cleo"), seed=3, bots=()):
    return Match.create("muertoons", kit.seat_specs(keys, bots, "heuristic"), seed=seed)


def state_of(match):
    return kit.match_state(MU, match)


def step(match, rng):
    """One move by the heuristic computer player for the first seat that must act."""
    kit.bot_step(MU, match, rng, "heuristic")


def drive_until(predicate, keys=("ana", "ben", "cleo"), seeds=range(60)):
    """A match (over several seeds) played by computer choices until predicate(state)."""
    return kit.drive_matches(
        lambda seed: make_mu(keys, seed=seed), MU, "heuristic", predicate, seeds, 400
    )


def assert_no_secrets(body, state, seat):
    """No other seat's hand or pending contest choice in this response."""
    kit.assert_no_secrets(MU, body, state, seat)


# --- the board ------------------------------------------------------------------------


@pytest.mark.django_db
def test_board_shows_hand_top_card_asks_and_counts():
    match = make_mu()
    ana = guest_client("ana")
    body = ana.get(url("play", match)).content.decode()
    state = state_of(match)
    assert 'id="board"' in body and 'data-phase="play"' in body
    assert "Play any 2, or the Spirit." in body  # Rosita 1 starts the pile
    assert all(c in body for c in state["hands"][0])
    assert "Ben" in body and "Cleo" in body and "14 cards" in body
    assert "Pass" in body and "✓ play" in body
    assert_no_secrets(body, state, 0)
    # What the pile asks is said to the player whose turn it is: to Ben, waiting, it read as an
    # order to him (found in a family's browser walk).
    ben = guest_client("ben").get(url("play", match)).content.decode()
    assert "Play any 2, or the Spirit." not in ben and 'class="mu-asks"' not in ben


@pytest.mark.django_db
def test_every_girl_has_a_symbol_and_a_name_not_just_a_colour():
    from games.muertoons.presenter import MU_SYMBOLS
    from games.muertoons.presenter import mu_card

    assert len(set(MU_SYMBOLS.values())) == 6
    card = mu_card(MU.CARDS["mu-gabi-04"])
    assert card["label"] == "Gabi 4" and card["symbol"] == "✉"


# --- moves: every status code ------------------------------------------------------------


def playable(match, seat):
    return [a["card"] for a in MU.legal_actions(state_of(match), seat) if a["type"] == "play"]


@pytest.mark.django_db
def test_a_legal_play_is_200_with_the_board_partial():
    match = drive_until(lambda s: s["current"] == 0 and s["phase"] == "play" and _can(s, 0))
    ana = guest_client("ana")
    card = playable(match, 0)[0]
    response = post_move(ana, match, type="play", card=card)
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body and 'id="board"' in body
    assert f"{isolate('Ana')} played" in body


def _can(state, seat):
    return any(a["type"] == "play" for a in MU.legal_actions(state, seat))


@pytest.mark.django_db
def test_pass_is_200():
    match = make_mu()
    response = post_move(guest_client("ana"), match, type="pass")
    assert response.status_code == 200
    assert f"{isolate('Ana')} passed." in response.content.decode()


@pytest.mark.django_db
def test_stale_version_is_409():
    match = make_mu()
    post_move(guest_client("ana"), match, type="pass")
    # Ben's board was drawn before Ana passed.
    response = guest_client("ben").post(url("move", match), {"version": 0, "type": "pass"}, **HTMX)
    assert response.status_code == 409
    assert "moved on" in response.content.decode()


@pytest.mark.django_db
def test_not_your_turn_is_403():
    match = make_mu()
    response = post_move(guest_client("ben"), match, type="pass")
    assert response.status_code == 403
    assert Move.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields",
    [
        {"type": "play", "card": "mu-spirit-99"},
        {"type": "fly"},
        {},
        {"type": "choose", "card": "x"},
    ],
)
def test_illegal_move_is_422(fields):
    match = make_mu()
    response = post_move(guest_client("ana"), match, **fields)
    assert response.status_code == 422
    assert Match.objects.get(pk=match.pk).version == 0


@pytest.mark.django_db
def test_a_card_the_top_does_not_allow_is_422_with_what_it_asks():
    match = make_mu()
    state = state_of(match)
    bad = next(c for c in state["hands"][0] if c not in playable(match, 0))
    response = post_move(guest_client("ana"), match, type="play", card=bad)
    assert response.status_code == 422
    assert "cannot go there" in response.content.decode()


@pytest.mark.django_db
def test_replay_is_not_offered_for_muertoons_yet():
    match = make_mu()
    assert guest_client("ana").get(url("replay", match)).status_code == 302


# --- the contest -------------------------------------------------------------------------


@pytest.mark.django_db
def test_contest_choose_wait_and_reveal():
    match = drive_until(lambda s: s["phase"] == "contest")
    clients = {0: guest_client("ana"), 1: guest_client("ben"), 2: guest_client("cleo")}
    state = state_of(match)
    players = list(MU.to_act(state))
    for seat in players:
        body = clients[seat].get(url("play", match)).content.decode()
        assert "Choose a card for the contest" in body
        assert "contest" in body
    first, *rest = players
    card = state["hands"][first][0]
    response = post_move(clients[first], match, type="choose", card=card)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Waiting for" in body
    for seat in rest:
        assert match.seats.get(number=seat).name in body
    # Choosing twice is refused: the seat is no longer to act.
    again = post_move(clients[first], match, type="choose", card=state_of(match)["hands"][first][0])
    assert again.status_code == 403
    # Nobody else sees the pending choice, not even in an attribute.
    state = state_of(match)
    for seat, client in clients.items():
        for response in (client.get(url("play", match)), client.get(url("poll", match) + "?v=-1")):
            assert_no_secrets(response.content.decode(), state, seat)
    assert card not in clients[rest[0]].get(url("play", match)).content.decode()
    for seat in rest:
        post_move(clients[seat], match, type="choose", card=state_of(match)["hands"][seat][0])
    body = clients[first].get(url("play", match)).content.decode()
    assert "The contest cards are turned over" in body
    assert "mu-reveal" in body


# --- Gabi and Lupita ---------------------------------------------------------------------


@pytest.mark.django_db
def test_gabi_giver_sees_give_buttons():
    match = drive_until(lambda s: s["phase"] == "give")
    state = state_of(match)
    giver = MU.to_act(state)[0]
    receiver = state["give"]["receiver"]
    client = guest_client(match.seats.get(number=giver).owner_key)
    body = client.get(url("play", match)).content.decode()
    assert "give" in body and match.seats.get(number=receiver).name in body
    assert 'name="type" value="give"' in body
    response = post_move(client, match, type="give", card=state["hands"][giver][0])
    assert response.status_code == 200
    assert "gave" in response.content.decode()
    # The receiver sees what it got; nobody else does.
    given = state["hands"][giver][0]
    receiver_client = guest_client(match.seats.get(number=receiver).owner_key)
    assert given in receiver_client.get(url("play", match)).content.decode()
    third = ({0, 1, 2} - {giver, receiver}).pop()
    third_body = guest_client(match.seats.get(number=third).owner_key).get(url("play", match))
    assert given not in third_body.content.decode()


@pytest.mark.django_db
def test_lupita_chooser_may_decline_the_straight():
    match = drive_until(lambda s: s["phase"] == "straight" and not s["straight"]["cards"])
    state = state_of(match)
    chooser = state["straight"]["chooser"]
    client = guest_client(match.seats.get(number=chooser).owner_key)
    body = client.get(url("play", match)).content.decode()
    assert "No straight, thanks" in body and "straight" in body
    assert post_move(client, match, type="straight_done").status_code == 422
    response = post_move(client, match, type="no_straight")
    assert response.status_code == 200
    assert "put down no straight" in response.content.decode()


# --- no leaks over whole games -----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_no_response_holds_another_hand_or_contest_choice(seed):
    match = make_mu(seed=seed)
    clients = {0: guest_client("ana"), 1: guest_client("ben"), 2: guest_client("cleo")}
    rng = random.Random(seed)
    for _ in range(150):
        match.refresh_from_db()
        if match.is_over:
            break
        state = MU.load(match.state)
        for seat, client in clients.items():
            for response in (
                client.get(url("play", match)),
                client.get(url("poll", match) + "?v=-1", **HTMX),
            ):
                assert_no_secrets(response.content.decode(), state, seat)
        step(match, rng)


# --- pass-and-play -----------------------------------------------------------------------


@pytest.mark.django_db
def test_pass_and_play_hides_the_hand_until_the_tap():
    match = make_mu(keys=("family", "family", "bot"), bots=(2,))
    device = guest_client("family")
    body = device.get(url("play", match)).content.decode()
    assert "show my cards" in body
    state = state_of(match)
    assert not [c for c in state["hands"][0] + state["hands"][1] if c in body]
    assert post_move(device, match, type="pass").status_code == 403
    device.post(url("reveal", match), **HTMX)
    body = device.get(url("play", match)).content.decode()
    assert all(c in body for c in state["hands"][0])
    assert not [c for c in state["hands"][1] if c in body]
    assert post_move(device, match, type="pass").status_code == 200
    body = device.get(url("play", match)).content.decode()
    assert "show my cards" in body
    assert not [c for c in state["hands"][0] + state["hands"][1] if c in body]


@pytest.mark.django_db
def test_pass_and_play_contest_each_person_chooses_behind_the_hand_off():
    def both_choose(s):
        return s["phase"] == "contest" and {0, 1} <= set(MU.to_act(s))

    match = drive_until(both_choose, keys=("family", "family", "cleo"))
    device = guest_client("family")
    names = {s.number: s.name for s in match.seats.all()}
    for _ in range(2):
        state = state_of(match)
        seat = min(s for s in MU.to_act(state) if s in (0, 1))
        body = device.get(url("play", match)).content.decode()
        assert f"I'm <bdi>{names[seat]}</bdi> — show my cards" in body
        assert not [c for c in state["hands"][0] + state["hands"][1] if c in body]
        device.post(url("reveal", match), **HTMX)
        body = device.get(url("play", match)).content.decode()
        assert "Choose a card for the contest" in body
        assert_no_secrets(body, state, seat)
        card = state["hands"][seat][0]
        assert post_move(device, match, type="choose", card=card).status_code == 200
    # Both people of this device have chosen: only Cleo is left.
    assert MU.to_act(state_of(match)) == (2,)
    body = device.get(url("play", match)).content.decode()
    assert f"Waiting for {isolate('Cleo')}" in body
