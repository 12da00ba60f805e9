"""The Munchkin play screen over HTTP: the board (character sheet, hand, table, combat panel with
every modifier, the "anyone?" window, log), moves and their status codes, and no other seat's
hand anywhere in the HTML."""

import random
import re

import pytest

from config.names import isolate
from games.models import Match
from games.models import Move
from games.munchkin import engine as MK

from . import conftest as kit
from .conftest import HTMX
from .conftest import guest_client
from .conftest import post_move
from .conftest import url


def make_mk(keys=("ana", "ben", "cleo"), seed=3, bots=(), options=None):
    return Match.create(
        "munchkin", kit.seat_specs(keys, bots, "munchkin"), seed=seed, options=options or {}
    )


def state_of(match):
    return kit.match_state(MK, match)


def step(match, rng):
    kit.bot_step(MK, match, rng, "munchkin")


def drive_until(predicate, seeds=range(40)):
    return kit.drive_matches(lambda seed: make_mk(seed=seed), MK, "munchkin", predicate, seeds, 600)


def assert_no_secrets(body, state, seat):
    kit.assert_no_secrets(MK, body, state, seat)


CLIENTS = {0: "ana", 1: "ben", 2: "cleo"}


@pytest.mark.django_db
def test_board_shows_my_hand_the_table_and_character_creation():
    match = make_mk()
    body = guest_client("ana").get(url("play", match)).content.decode()
    state = state_of(match)
    assert 'id="board"' in body and 'data-phase="create"' in body
    assert all(c in body for c in state["hands"][0])
    assert "Make your character" in body and "I&#x27;m ready" in body
    assert "Ben" in body and "Cleo" in body and "8 cards" in body
    assert "css/munchkin.css" in body
    assert_no_secrets(body, state, 0)


@pytest.mark.django_db
def test_every_seat_sees_only_its_own_hand():
    match = make_mk()
    state = state_of(match)
    for seat, key in CLIENTS.items():
        body = guest_client(key).get(url("play", match)).content.decode()
        assert all(c in body for c in state["hands"][seat])
        assert_no_secrets(body, state, seat)


@pytest.mark.django_db
def test_ready_then_kick_the_door_over_http():
    match = make_mk()
    for key in CLIENTS.values():
        response = post_move(guest_client(key), match, type="ready")
        assert response.status_code == 200, response.content
    assert state_of(match)["phase"] == "prep"
    response = post_move(guest_client("ana"), match, type="kick")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body and 'id="board"' in body
    assert f"{isolate('Ana')} kicked open the door" in body
    state = state_of(match)
    assert_no_secrets(body, state, 0)


@pytest.mark.django_db
def test_a_form_string_target_is_understood():
    match = make_mk()
    state = state_of(match)
    curse = next((c for c in state["hands"][0] if MK.CARDS[c]["kind"] == "curse"), None)
    for key in CLIENTS.values():
        post_move(guest_client(key), match, type="ready")
    if curse is None:
        pytest.skip("no curse in the first hand of this seed")
    response = post_move(guest_client("ana"), match, type="curse", card=curse, target="1")
    assert response.status_code == 200


@pytest.mark.django_db
def test_stale_version_is_409_and_not_your_turn_is_403():
    match = make_mk()
    post_move(guest_client("ana"), match, type="ready")
    response = guest_client("ben").post(url("move", match), {"version": 0, "type": "ready"}, **HTMX)
    assert response.status_code == 409
    response = post_move(guest_client("cleo"), match, type="ready")
    assert response.status_code == 403
    assert Move.objects.filter(match=match).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields",
    [
        {"type": "kick"},  # not in character creation
        {"type": "fly"},
        {},
        {"type": "play", "card": "mk-t-999"},
        {"type": "curse", "card": "mk-d-050", "target": "zero"},
    ],
)
def test_illegal_move_is_422_with_a_sentence(fields):
    match = make_mk()
    response = post_move(guest_client("ana"), match, **fields)
    assert response.status_code == 422
    assert 'class="notice"' in response.content.decode()
    assert Match.objects.get(pk=match.pk).version == 0


@pytest.mark.django_db
def test_combat_panel_lists_both_sides_and_the_anyone_window():
    match = drive_until(lambda s: s["phase"] == "combat")
    state = state_of(match)
    acting = MK.to_act(state)[0]
    for seat, key in CLIENTS.items():
        body = guest_client(key).get(url("play", match)).content.decode()
        assert "Fight!" in body and "Players" in body and "Monsters" in body
        assert "level" in body
        assert "Anyone?" in body
        assert_no_secrets(body, state, seat)
        if seat == acting:
            assert "data-countdown" in body and "data-autopass" in body
            assert "Nothing from me: pass" in body
            # The clock is also above the hand, where the player looks for a card to play.
            assert body.count('class="mk-seconds"') == 2
            assert body.index("mk-countdown-hand") < body.index("Your hand:")
        else:
            assert "data-countdown" not in body and "mk-seconds" not in body
    monster = state["combat"]["monsters"][0]["card"]
    assert MK.CARDS[monster]["name"] in body
    response = post_move(guest_client(CLIENTS[acting]), match, type="pass")
    assert response.status_code == 200


@pytest.mark.django_db
def test_a_window_left_open_by_a_closed_page_is_passed_by_the_table():
    from datetime import timedelta

    from django.utils import timezone

    from games.models import TIMEOUT_GRACE_SECONDS
    from games.tasks import time_out_windows

    match = drive_until(lambda s: s["phase"] == "combat")
    acting = MK.to_act(state_of(match))[0]
    version = match.version
    # A window opened just now, or a paused game: nobody's time is up yet.
    assert Match.objects.time_out_overdue() == 0
    long_ago = timezone.now() - timedelta(seconds=TIMEOUT_GRACE_SECONDS + 5)
    Match.objects.filter(pk=match.pk).update(changed_at=long_ago, paused_at=timezone.now())
    assert Match.objects.time_out_overdue() == 0
    Match.objects.filter(pk=match.pk).update(paused_at=None)
    assert time_out_windows() == 1  # the beat task: the person's pass, through Match.play
    match.refresh_from_db()
    move = match.moves.get(ply=version + 1)
    assert (move.seat, move.action) == (acting, {"type": "pass"})
    assert Match.objects.time_out_overdue() == 0  # the next window has only just opened


@pytest.mark.django_db
def test_outside_a_window_nobody_is_timed_out():
    match = make_mk()
    Match.objects.filter(pk=match.pk).update(changed_at=match.changed_at.replace(year=2000))
    assert state_of(match)["phase"] == "create"
    assert Match.objects.time_out_overdue() == 0 and state_of(match)["phase"] == "create"


@pytest.mark.django_db
def test_help_request_can_be_answered_over_http():
    def asked(s):
        return s["phase"] == "help"

    match = drive_until(asked)
    state = state_of(match)
    helper = MK.to_act(state)[0]
    body = guest_client(CLIENTS[helper]).get(url("play", match)).content.decode()
    assert "asks you for help" in body and "Yes, I&#x27;ll help" in body
    assert_no_secrets(body, state, helper)
    response = post_move(guest_client(CLIENTS[helper]), match, type="decline")
    assert response.status_code == 200
    assert "will not help" in response.content.decode()


@pytest.mark.django_db
def test_log_and_hand_never_show_another_seats_cards_through_a_whole_game():
    match = make_mk(seed=5)
    rng = random.Random(5)
    clients = {seat: guest_client(key) for seat, key in CLIENTS.items()}
    for n in range(2000):
        if match.is_over:
            break
        step(match, rng)
        if n % 25 == 0:
            state = state_of(match)
            for seat, client in clients.items():
                body = client.get(url("play", match)).content.decode()
                assert_no_secrets(body, state, seat)
    assert match.is_over
    body = clients[0].get(url("play", match)).content.decode()
    assert 'class="result-text"' in body and "Play again" in body


@pytest.mark.django_db
def test_every_button_is_a_legal_action():
    """Each form on the board posts exactly one of the seat's legal actions."""
    match = drive_until(lambda s: s["phase"] in ("combat", "trouble", "charity", "run"))
    state = state_of(match)
    seat = MK.to_act(state)[0]
    body = guest_client(CLIENTS[seat]).get(url("play", match)).content.decode()
    legal = MK.legal_actions(state, seat)
    forms = re.findall(r'<form class="mk-act".*?</form>', body, re.S)
    assert forms
    for form in forms:
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))
        fields.pop("version"), fields.pop("move_id"), fields.pop("csrfmiddlewaretoken", None)
        action = MK._normalise(fields)
        assert action in legal, action


@pytest.mark.parametrize(
    "players, monsters, ties_win, winning, sign, says, not_says",
    [
        (10, 8, False, True, ">", "The players are winning.", "Brawler"),
        (8, 8, False, False, "=", "ties go to the monster", "Brawler"),
        (
            8,
            8,
            True,
            True,
            "=",
            "The players are winning. A Brawler fights",
            "ties go to the monster",
        ),
        (
            7,
            8,
            True,
            False,
            "<",
            "The monsters are winning. A Brawler fights",
            "ties go to the monster",
        ),
        (7, 8, False, False, "<", "The monsters are winning (ties go to the monster).", "Brawler"),
    ],
)
def test_the_combat_verdict_never_contradicts_itself(
    players, monsters, ties_win, winning, sign, says, not_says
):
    from games.munchkin.presenter import mk_verdict

    verdict = mk_verdict(
        {
            "players_total": players,
            "monsters_total": monsters,
            "ties_win": ties_win,
            "winning": winning,
        }
    )
    assert verdict["sign"] == sign
    assert says in verdict["text"] and not_says not in verdict["text"]


@pytest.mark.parametrize(
    "need, says",
    [
        (4, "(4 or more escapes)"),
        (1, "(any roll escapes)"),
        (7, "(no roll can escape)"),
    ],
)
def test_each_run_away_button_says_the_roll_needed(need, says):
    from games.munchkin.presenter import mk_general_label

    view = {
        "combat": {"strengths": {"monsters": [{"card": {"name": "Crabby Crab"}}]}},
        "run": {"left": [{"index": 0, "name": "Crabby Crab", "need": need}]},
    }
    label = mk_general_label({"type": "roll", "monster": 0}, {0: "Ana"}, view)
    assert label == f"Roll the die to run from Crabby Crab {says}"


def test_a_shared_victory_tells_each_winner():
    from games.munchkin.presenter import mk_result_text

    names = {0: "Ana", 1: "Ben", 2: "Cleo"}
    won = {"outcome": {"winners": [0, 1], "reason": "level10"}}
    assert mk_result_text(won, names, 0) == "You and Ben reached level 10 together: you win!"
    assert mk_result_text(won, names, 2) == "Ana and Ben reached level 10 together and won!"
    closed = {"outcome": {"winners": [0, 1], "reason": "moves"}}
    assert "You and Ana share the highest level: you win!" in mk_result_text(closed, names, 1)
    alone = {"outcome": {"winners": [2], "reason": "level10"}}
    assert mk_result_text(alone, names, 0) == "Cleo reached level 10 and won!"


def test_the_face_up_treasure_line_says_who_takes_what():
    from games import registry

    event = {"kind": "treasure_shown", "cards": [[1, "Pet Rock"], [0, "Broomstick"]]}
    line = registry.get("munchkin").event_line(event, {0: "Ana", 1: "Ben"})
    assert line == "The treasure, face up: Ben takes Pet Rock, Ana takes Broomstick."


def test_the_log_and_describe_read_the_same_texts():
    """Written once: with the seats named "Player 1"…, every log line of a bot game is the
    engine's describe, and an event the log leaves out has no text in either."""
    from games import registry

    event_line = registry.get("munchkin").event_line
    names = {p: f"Player {p + 1}" for p in range(4)}
    state = MK.setup(4, 11, {"listen": "yes"})
    rng = random.Random(11)
    seen = set()
    for _ in range(600):
        if MK.outcome(state) is not None:
            break
        seat = MK.to_act(state)[0]
        legal = MK.legal_actions(state, seat)
        state, events = MK.apply(
            state, seat, MK.bot_action(MK.view(state, seat), legal, "munchkin", rng)
        )
        for e in events:
            assert (event_line(e, names) or "") == MK.describe(e), e
            assert (event_line(e, names) is None) == (e["kind"] in MK.QUIET_EVENTS), e
            seen.add(e["kind"])
    assert {"turn", "kicked", "combat", "treasure_shown", "ask_help", "passed"} <= seen


def test_the_face_up_treasure_line_translates_each_piece(monkeypatch):
    from django.utils.translation import _trans

    from games import registry

    words = {
        MK.EVENT_TEXTS["treasure_shown"]: "ZZ %(cards)s",
        MK.TREASURE_TAKER: "%(card)s -> %(who)s",
        MK.LIST_TEXT: "%(first)s + %(rest)s",
        "Pet Rock": "Piedra",
    }
    monkeypatch.setattr(_trans, "gettext", lambda m: words.get(m, m), raising=False)
    event = {"kind": "treasure_shown", "seat": 0, "cards": [[1, "Pet Rock"], [0, "Wand"]]}
    line = registry.get("munchkin").event_line(event, {0: "Ana", 1: "Ben"})
    assert line == "ZZ Piedra -> Ben + Wand -> Ana"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("phase", "answer", "said"),
    [
        ("help", {"type": "decline"}, "the table says no for you"),
        ("trade", {"type": "decline"}, "the table says no for you"),
        ("run", {"type": "roll"}, "the table rolls for you"),
    ],
)
def test_every_wait_for_a_person_has_the_windows_clock(phase, answer, said):
    """Asked for help, offered a trade or due to roll to run away (docs/rules, "Waiting for
    somebody"): the person's board counts down and then presses the answer the table gives
    (say no; roll for the first monster), and a closed page is answered by the beat task as
    in an "anyone?" window, so nobody stalls the others."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import TIMEOUT_GRACE_SECONDS

    if phase == "trade":  # the bots seldom offer one: a person's offer, as the board sends it

        def offer_of(s):
            acting = MK.to_act(s)[0]
            return next((a for a in MK.legal_actions(s, acting) if a["type"] == "offer"), None)

        match = drive_until(lambda s: offer_of(s) is not None)
        state = state_of(match)
        match.play(MK.to_act(state)[0], offer_of(state), version=match.version, follow_ups=False)
    else:
        match = drive_until(lambda s: s["phase"] == phase)
    state = state_of(match)
    assert state["phase"] == phase
    waited = MK.to_act(state)[0]
    expected = dict(answer)
    if phase == "run":
        expected["monster"] = state["run"]["left"][0]
    assert MK.timeout_action(state, waited) == expected
    body = guest_client(CLIENTS[waited]).get(url("play", match)).content.decode()
    assert "data-countdown" in body and said in body
    pressed = re.search(r"<button[^>]*data-autopass[^>]*>", body).group(0)
    assert f"mk-{expected['type']}" in pressed
    version = match.version
    long_ago = timezone.now() - timedelta(seconds=TIMEOUT_GRACE_SECONDS + 5)
    Match.objects.filter(pk=match.pk).update(changed_at=long_ago)
    assert Match.objects.time_out_overdue() >= 1
    move = match.moves.get(ply=version + 1)
    assert (move.seat, move.action) == (waited, expected)


def test_the_last_run_away_roll_shows_while_its_players_turn_lasts():
    """The status column's "Ana rolled 2 (+0): caught by Lint Golem." stayed on through the next
    players' fights, as if it were about them (found in a family's browser walk); the log keeps
    it."""
    from games.munchkin.presenter import mk_roll_text

    roll = {"seat": 0, "die": 2, "bonus": 0, "escaped": False, "name": "Lint Golem"}
    names = {0: "Ana", 1: "Coco"}
    assert "rolled 2 (+0): caught by" in mk_roll_text({"last_roll": roll, "current": 0}, names)
    assert mk_roll_text({"last_roll": roll, "current": 1}, names) == ""
    assert mk_roll_text({"last_roll": None, "current": 0}, names) == ""
