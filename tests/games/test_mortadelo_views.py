"""The Mortadelo Multiverso play screen over HTTP: choosing a Mortadelo and an opponent, the
secret duel choice ("waiting for Ana"), the cards flipping together, the Plus market, meddling
from the cloning machine, every status code of a move, pass-and-play, and no other seat's hand
or secret choice anywhere in the HTML."""

import random

import pytest

from config.names import isolate
from games import registry
from games.models import Match
from games.models import Move
from games.mortadelo import engine as MM
from games.mortadelo.cards import blow_effects

from . import conftest as kit
from .conftest import HTMX
from .conftest import guest_client
from .conftest import post_move
from .conftest import url


def make_mm(keys=("ana", "ben", "cleo"), seed=3, bots=(), same_device=False):
    specs = kit.seat_specs(keys, bots, "odds", owner="ana" if same_device else None)
    return Match.create("mortadelo", specs, seed=seed)


def state_of(match):
    return kit.match_state(MM, match)


def play_as(match, seat, action):
    match.refresh_from_db()
    match.play(seat, action, version=match.version, follow_ups=False)


def pick_all(match, chars=("pirate", "mummy", "king", "chef")):
    for seat in range(match.seats.count()):
        play_as(match, seat, {"type": "pick", "character": chars[seat]})


def assert_no_secrets(body, state, seat):
    """No other seat's hand or pending duel choice in this response."""
    kit.assert_no_secrets(MM, body, state, seat)


def drive_until(predicate, keys=("ana", "ben", "cleo"), seeds=range(40)):
    """A match (over several seeds) played by the odds bot for every seat until predicate."""
    return kit.drive_matches(
        lambda seed: make_mm(keys, seed=seed), MM, "odds", predicate, seeds, 400
    )


# --- choosing a Mortadelo and an opponent -----------------------------------------------------


@pytest.mark.django_db
def test_the_board_starts_with_choosing_a_mortadelo():
    match = make_mm()
    ana = guest_client("ana")
    response = ana.get(url("play", match))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="board"' in body and 'data-phase="pick"' in body
    assert "Choose your Mortadelo" in body
    assert body.count('name="character"') == 12
    assert "Captain Mortadelo" in body and "Cannonball Clout" in body
    state = state_of(match)
    assert all(c in body for c in state["hands"][0])  # my hand is already dealt
    assert_no_secrets(body, state, 0)
    # Ben waits and sees the Mortadelos without buttons
    body = guest_client("ben").get(url("play", match)).content.decode()
    assert 'name="character"' not in body and f"{isolate('Ana')} is choosing a Mortadelo" in body


@pytest.mark.django_db
def test_the_picker_shows_each_blow_as_it_works_with_this_many_players():
    """docs/rules: a few secret blows have other icons in a game of 2 players; the screen shows
    the game's own (Oil Change: an Upgrade with 3 or more players, none with 2)."""
    assert blow_effects("robot", 2) != blow_effects("robot", 3)
    for keys, upgrade in ((("ana", "ben"), False), (("ana", "ben", "cleo"), True)):
        body = guest_client("ana").get(url("play", make_mm(keys))).content.decode()
        robot = body[body.index("Robot Mortadelo") :]
        robot = robot[: robot.index("</button>")]
        assert "Oil Change" in robot and "Play another card" in robot
        assert ("Upgrade" in robot) is upgrade, robot


@pytest.mark.django_db
def test_every_player_sees_every_picked_mortadelos_secret_blow():
    """The Mortadelos are face up: once picked, each player's blow (as it works in this game)
    is in the list of players for everybody, not only on your own card."""
    match = make_mm()
    pick_all(match)
    body = guest_client("cleo").get(url("play", match)).content.decode()
    players = body[body.index('class="mm-players"') :]
    players = players[: players.index("</section>")]
    for blow in ("Cannonball Clout", "Bandage Whip", "Royal Treasury"):
        assert f"Secret blow: {blow} (" in players
    assert "Upgrade: take 2 Mamporros Plus" in players  # Royal Treasury with 3 players
    # Written inside brackets, a Tortazo has none of its own (not "(Tortazo ★★★★ (4 wounds))").
    assert "Secret blow: Cannonball Clout (Tortazo ★★★★: 4 wounds)" in players


@pytest.mark.parametrize("lang", ["en", "es", "it"])
@pytest.mark.parametrize("players", [2, 3])
def test_no_secret_blow_nests_brackets(lang, players):
    from django.utils import translation

    from games.mortadelo.cards import CHARACTERS
    from games.mortadelo.presenter import mm_character

    with translation.override(lang):
        for key in CHARACTERS:
            effects = mm_character(key, players)["effects"]
            assert "(" not in effects and ")" not in effects, (key, effects)


@pytest.mark.django_db
def test_the_duel_box_is_left_out_while_there_is_no_duel_to_show():
    """After the picks, before the first challenge: the player who challenges sees the
    "Challenge" buttons in the duel box; the others see no empty box."""
    match = make_mm()
    pick_all(match)
    acting = state_of(match)["current"]
    for seat, key in enumerate(("ana", "ben", "cleo")):
        body = guest_client(key).get(url("play", match)).content.decode()
        assert ('class="side mm-duel"' in body) is (seat == acting), key


@pytest.mark.django_db
def test_pick_then_challenge_an_opponent():
    match = make_mm()
    ana = guest_client("ana")
    response = post_move(ana, match, type="pick", character="ninja")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body and f"{isolate('Ana')} is Ninja Mortadelo." in body
    play_as(match, 1, {"type": "pick", "character": "king"})
    play_as(match, 2, {"type": "pick", "character": "chef"})
    body = ana.get(url("play", match)).content.decode()
    assert "choose whom you challenge" in body
    ben, cleo = isolate("Ben"), isolate("Cleo")  # names on the board are isolated
    assert f"Challenge {ben}" in body and f"Challenge {cleo}" in body
    response = post_move(ana, match, type="challenge", target="2")
    assert response.status_code == 200
    body = response.content.decode()
    ana_ = isolate("Ana")
    assert f"Duel: {ana_} against {cleo}" in body and f"{ana_} challenges {cleo} to a duel!" in body
    assert "Choose a card face down" in body


# --- the secret duel ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_secret_choice_is_hidden_until_both_have_chosen_then_both_flip():
    match = make_mm(("ana", "ben"))
    pick_all(match)
    ana, ben = guest_client("ana"), guest_client("ben")
    state = state_of(match)
    card = state["hands"][0][0]
    response = post_move(ana, match, type="choose", card=card)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Your card, face down until both have chosen" in body
    assert (
        body.count(f"Waiting for {isolate('Ben')} to choose") == 1
    )  # said once, in the status column
    state = state_of(match)
    assert card in MM.private(state, 0)
    ben_body = ben.get(url("play", match)).content.decode()
    assert card not in ben_body  # Ben cannot see Ana's choice, not even in an attribute
    assert f"{isolate('Ana')} chose a card, face down." in ben_body and "has chosen" in ben_body
    assert_no_secrets(ben_body, state, 1)
    assert_no_secrets(body, state, 0)
    # a second choice is refused
    response = post_move(ana, match, type="choose", card=state["hands"][0][0])
    assert response.status_code == 403
    # Ben chooses: both cards flip over together
    response = post_move(ben, match, type="choose", card=state["hands"][1][0])
    assert response.status_code == 200
    body = response.content.decode()
    assert "Both cards flipped over" in body and "Both cards flip over:" in body
    names = [MM.CARDS[card]["name"], MM.CARDS[state["hands"][1][0]]["name"]]
    assert all(n in body for n in names)
    assert_no_secrets(body, state_of(match), 1)


@pytest.mark.django_db
def test_same_device_duellists_choose_in_turn_behind_the_hand_off():
    match = make_mm(("ana", "ben"), same_device=True)
    pick_all(match)
    client = guest_client("ana")
    body = client.get(url("play", match)).content.decode()
    assert "I'm <bdi>Ana</bdi> — show my cards" in body
    state = state_of(match)
    assert not [c for c in state["hands"][0] + state["hands"][1] if c in body]
    client.post(url("reveal", match), **HTMX)
    card = state_of(match)["hands"][0][0]
    post_move(client, match, type="choose", card=card)
    # now Ben's turn to choose on the same device: Ana's choice is hidden behind the hand-off
    body = client.get(url("play", match)).content.decode()
    assert "show my cards" in body and "Ben" in body
    assert card not in body
    client.post(url("reveal", match), **HTMX)
    body = client.get(url("play", match)).content.decode()
    assert card not in body
    assert_no_secrets(body, state_of(match), 1)


# --- the effects: Plus market, play another card, meddling ---------------------------------------


@pytest.mark.django_db
def test_upgrade_shows_the_market_as_buttons_and_takes_a_plus():
    match = drive_until(
        lambda s: s["phase"] == "effect" and s["queue"][0]["do"] == "upgrade",
        keys=("ana", "ben"),
    )
    state = state_of(match)
    seat = MM.to_act(state)[0]
    client = guest_client(["ana", "ben"][seat])
    body = client.get(url("play", match)).content.decode()
    assert "Mamporro Plus" in body and body.count("✓ take") == len(state["market"])
    plus = state["market"][1]
    response = post_move(client, match, type="upgrade", card=plus)
    assert response.status_code == 200
    assert plus in state_of(match)["hands"][seat] or plus in MM.owned(state_of(match), seat)
    other = guest_client(["ana", "ben"][1 - seat]).get(url("play", match)).content.decode()
    assert_no_secrets(other, state_of(match), 1 - seat)


@pytest.mark.django_db
def test_an_upgrade_of_several_plus_counts_them():
    """Upgrade ×2 (or a blow's "take 2 Mamporros Plus"): the taker reads "(1 of 2)" and then
    "(2 of 2)", the others "Ana is taking a Mamporro Plus (1 of 2)…"."""
    match = drive_until(
        lambda s: (
            s["phase"] == "effect"
            and s["queue"][0]["do"] == "upgrade"
            and s["queue"][0].get("step") == 1
        ),
        keys=("ana", "ben"),
    )
    state = state_of(match)
    seat, of = MM.to_act(state)[0], state["queue"][0]["of"]
    keys = ["ana", "ben"]
    client = guest_client(keys[seat])
    body = client.get(url("play", match)).content.decode()
    assert f"Take one of the four Mamporros Plus into your hand (1 of {of})." in body
    other = guest_client(keys[1 - seat]).get(url("play", match)).content.decode()
    assert f"is taking a Mamporro Plus (1 of {of})…" in other
    post_move(client, match, type="upgrade", card=state["market"][0])
    state = state_of(match)
    assert state["queue"][0] == {"do": "upgrade", "seat": seat, "step": 2, "of": of}
    body = client.get(url("play", match)).content.decode()
    assert f"into your hand (2 of {of})." in body


@pytest.mark.django_db
def test_play_another_card_or_keep_my_cards():
    match = drive_until(
        lambda s: s["phase"] == "effect" and s["queue"][0]["do"] == "combo", keys=("ana", "ben")
    )
    state = state_of(match)
    seat = MM.to_act(state)[0]
    client = guest_client(["ana", "ben"][seat])
    body = client.get(url("play", match)).content.decode()
    assert "Play another card!" in body and "Keep my cards" in body
    response = post_move(client, match, type="no_combo")
    assert response.status_code == 200
    assert "plays no other card" in response.content.decode()


@pytest.mark.django_db
def test_an_eliminated_player_gets_the_meddling_choice_on_their_own_screen():
    match = drive_until(
        lambda s: s["phase"] == "effect" and s["queue"][0]["do"] == "meddle",
        keys=("ana", "ben", "cleo"),
        seeds=range(120),
    )
    state = state_of(match)
    seat = MM.to_act(state)[0]
    client = guest_client(["ana", "ben", "cleo"][seat])
    body = client.get(url("play", match)).content.decode()
    assert "in the cloning machine" in body and "From the cloning machine" in body
    for t in MM._meddle_targets(state):
        assert f'value="{t}"' in body
    target = MM._meddle_targets(state)[0]
    response = post_move(client, match, type="meddle", target=str(target))
    assert response.status_code == 200
    assert "meddles from the cloning machine" in response.content.decode()


# --- every status code ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_illegal_move_is_422_with_the_engines_sentence():
    match = make_mm()
    response = post_move(guest_client("ana"), match, type="pick", character="batman")
    assert response.status_code == 422
    assert "There is no Mortadelo with that name." in response.content.decode()
    response = post_move(guest_client("ana"), match, type="choose", card="mmb-red-01")
    assert response.status_code == 422
    assert Move.objects.count() == 0


@pytest.mark.django_db
def test_not_your_turn_is_403_stale_is_409_outsider_is_404():
    match = make_mm()
    response = post_move(guest_client("ben"), match, type="pick", character="ninja")
    assert response.status_code == 403
    post_move(guest_client("ana"), match, type="pick", character="ninja")
    response = guest_client("ben").post(
        url("move", match), {"version": 0, "type": "pick", "character": "king"}, **HTMX
    )
    assert response.status_code == 409
    response = post_move(guest_client("zed"), match, type="pick", character="king")
    assert response.status_code == 404
    assert guest_client("zed").get(url("play", match)).status_code == 404


@pytest.mark.django_db
def test_a_whole_game_never_shows_another_seats_hand_or_choice():
    match = make_mm(("ana", "ben", "cleo"), seed=8)
    clients = [guest_client(k) for k in ("ana", "ben", "cleo")]
    rng = random.Random(8)
    for ply in range(400):
        state = state_of(match)
        if match.is_over:
            break
        seat = MM.to_act(state)[0]
        legal = MM.legal_actions(state, seat)
        play_as(match, seat, MM.bot_action(MM.view(state, seat), legal, "odds", rng))
        if ply % 3 == 0:
            state = state_of(match)
            for viewer in range(3):
                body = clients[viewer].get(url("play", match)).content.decode()
                assert_no_secrets(body, state, viewer)
    assert match.is_over
    body = clients[0].get(url("play", match)).content.decode()
    assert "Play again" in body and 'class="result-text"' in body


def test_every_event_line_is_public_and_in_words():
    mm_event_line = registry.get("mortadelo").event_line
    names = {0: "Ana", 1: "Ben"}
    line = mm_event_line({"kind": "chose", "seat": 0}, names)
    assert line == "Ana chose a card, face down."
    card = MM.public_card("mmb-red-03")
    line = mm_event_line(
        {
            "kind": "reveal",
            "seat": 0,
            "target": 1,
            "cards": [
                {"seat": 0, "card": card, "success": True},
                {"seat": 1, "card": MM.public_card("mmb-blue-09"), "success": False},
            ],
        },
        names,
    )
    assert "Haymaker (Punch attack) succeeds" in line and "Fist Catcher" in line
    assert "mmb-" not in line


@pytest.mark.django_db
def test_a_finished_game_has_a_replay_with_the_public_log():
    match = make_mm(("ana", "ben"), seed=5)
    rng = random.Random(5)
    while not match.is_over:
        state = state_of(match)
        seat = MM.to_act(state)[0]
        legal = MM.legal_actions(state, seat)
        play_as(match, seat, MM.bot_action(MM.view(state, seat), legal, "odds", rng))
    total = match.moves.count()
    response = guest_client("ana").get(url("replay", match) + f"?ply={total // 2}")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Both cards flip over" in body or "chose a card, face down" in body
    assert "mmb-" not in body and "mmp-" not in body


@pytest.mark.parametrize(
    "winners, reason, me, text",
    [
        ([0], "time", 0, "You saved the multiverse: you win!"),
        ([0, 2], "time", 2, "You share the win with Ana!"),
        ([0, 2], "time", 1, "Time is up! Fewest wounds: Ana, Cleo win!"),
        ([0], "time", 1, "Time is up! Fewest wounds: Ana wins!"),
        ([0, 1], "double_ko_previous", 2, "save the multiverse and win!"),
        (
            [1],
            "double_ko_previous",
            None,
            "Ben, knocked out just before, saves the multiverse and wins!",
        ),
    ],
)
def test_the_result_names_every_winner_and_tells_each_one(winners, reason, me, text):
    from games.mortadelo.presenter import mm_result_text

    names = {0: "Ana", 1: "Ben", 2: "Cleo"}
    result = mm_result_text({"outcome": {"winners": winners, "reason": reason}}, names, me)
    assert text in result


def duel_box(body) -> str:
    box = body[body.index('class="side mm-duel"') :]
    return box[: box.index("</section>")]


@pytest.mark.django_db
def test_a_combo_card_shows_under_played_in_this_duel_and_the_flipped_pair_once():
    """A card played with Play Another Card joins the duel's table; the two cards that flipped
    over show once, under "Both cards flipped over" (they showed twice)."""
    match = drive_until(
        lambda s: (
            s["duel"] is not None
            and len(s["table"]) > 2
            and s["last_duel"]["round"] == s["duel"]["round"]
        ),
        keys=("ana", "ben"),
    )
    state = state_of(match)
    box = duel_box(guest_client("ana").get(url("play", match)).content.decode())
    assert "Both cards flipped over:" in box
    flipped = box[box.index('class="mm-reveal"') : box.index("Played in this duel:")]
    played = box[box.index("Played in this duel:") :]
    assert flipped.count('class="mm-card') == 2
    assert played.count('class="mm-card') == len(state["table"]) - 2


@pytest.mark.django_db
def test_a_second_round_names_its_round():
    """Both played another card, so the two duel again: the heading says "round 2" and round
    1's cards are "Flipped over in the last round"."""
    match = drive_until(
        lambda s: s["phase"] == "duel" and s["duel"]["round"] == 2 and s["last_duel"],
        keys=("ana", "ben"),
    )
    box = duel_box(guest_client("ana").get(url("play", match)).content.decode())
    assert ", round 2</p>" in box and "Flipped over in the last round:" in box
    assert "Both cards flipped over:" not in box


@pytest.mark.django_db
def test_the_cards_of_an_earlier_duel_say_so():
    """Between duels, and once two others duel, the last flip is "Flipped over in the last
    duel", under the new duel's heading."""
    match = drive_until(
        lambda s: (
            s["phase"] == "duel"
            and s["last_duel"]
            and sorted(s["duel"]["seats"]) != sorted(s["last_duel"]["seats"])
        )
    )
    box = duel_box(guest_client("ana").get(url("play", match)).content.decode())
    assert "Flipped over in the last duel:" in box and "Both cards flipped over:" not in box
    assert "Played in this duel:" not in box  # nothing played yet in the new duel
