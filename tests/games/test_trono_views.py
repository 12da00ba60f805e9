"""The Il Trono di Mortadella play screen over HTTP: the board, moves and their status codes, the
cancel question on the target's own screen, and no other seat's secret role anywhere in the HTML."""

import random

import pytest

from games import registry
from games.models import Match
from games.models import Seat

from . import conftest as kit
from .conftest import HTMX
from .conftest import guest_client
from .conftest import post_move
from .conftest import url

TR = registry.get("trono").rules


def make_tr(keys=("ana", "ben", "cleo", "dan"), seed=3, bots=(), options=None):
    return Match.create(
        "trono", kit.seat_specs(keys, bots, "heuristic"), options=options or {}, seed=seed
    )


def state_of(match):
    return kit.match_state(TR, match)


def step(match, rng):
    kit.bot_step(TR, match, rng, "heuristic")


def drive_until(predicate, keys=("ana", "ben", "cleo", "dan"), seeds=range(40), options=None):
    def make(seed):
        return make_tr(keys, seed=seed, options=options)

    return kit.drive_matches(make, TR, "heuristic", predicate, seeds, 600)


def assert_no_secrets(body, state, seat):
    kit.assert_no_secrets(TR, body, state, seat, what="role ")


def client_for(match, seat):
    return guest_client(match.seats.get(number=seat).owner_key)


@pytest.mark.django_db
def test_board_shows_my_role_tokens_reserve_and_no_other_role():
    match = make_tr()
    state = state_of(match)
    for seat in range(4):
        body = client_for(match, seat).get(url("play", match)).content.decode()
        assert 'id="board"' in body and 'data-phase="roll"' in body
        assert "Your secret role" in body and TR.role_card(state["roles"][seat]) in body
        assert "The reserve" in body and "Mortadella" in body
        assert "Ana" in body and "Dan" in body
        assert_no_secrets(body, state, seat)
    first = state["current"]
    body = client_for(match, first).get(url("play", match)).content.decode()
    assert "Roll the five dice" in body


@pytest.mark.django_db
def test_a_roll_then_a_choice_of_three_dice_then_an_effect():
    match = make_tr()
    state = state_of(match)
    first = state["current"]
    c = client_for(match, first)
    response = post_move(c, match, type="roll")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body and 'data-phase="' in body
    state = state_of(match)
    if state["phase"] == "lombard":  # the Lombard holder answers first
        post_move(client_for(match, TR.to_act(state)[0]), match, type="no_reroll")
        state = state_of(match)
    assert state["phase"] == "choose"
    body = c.get(url("play", match)).content.decode()
    assert 'name="dice"' in body and "Use these dice" in body
    # three checkboxes ticked: the list of dice reaches the engine
    response = c.post(
        url("move", match),
        {"version": match.version, "move_id": "", "type": "choose", "dice": ["0", "2", "4"]},
        **HTMX,
    )
    assert response.status_code == 200
    state = state_of(match)
    assert state["phase"] in ("resolve", "cancel", "plague", "roll", "over")
    if state["phase"] == "resolve":
        body = response.content.decode()
        assert "in any order" in body
        action = TR.legal_actions(state, first)[0]
        response = post_move(c, match, **{k: str(v) for k, v in action.items()})
        assert response.status_code == 200


@pytest.mark.django_db
def test_an_illegal_move_is_422_with_the_engines_sentence():
    match = drive_until(lambda s: s["phase"] == "choose" and not s["kept"])
    state = state_of(match)
    c = client_for(match, state["current"])
    response = c.post(
        url("move", match),
        {"version": match.version, "move_id": "", "type": "choose", "dice": ["0", "1"]},
        **HTMX,
    )
    assert response.status_code == 422
    assert "Choose three dice" in response.content.decode()
    assert state_of(match) == state


@pytest.mark.django_db
def test_not_your_turn_is_403_and_a_stale_version_409():
    match = make_tr()
    state = state_of(match)
    other = (state["current"] + 1) % 4
    response = post_move(client_for(match, other), match, type="roll")
    assert response.status_code == 403
    c = client_for(match, state["current"])
    response = c.post(url("move", match), {"version": 999, "type": "roll"}, **HTMX)
    assert response.status_code == 409


@pytest.mark.django_db
def test_the_cancel_question_is_asked_on_the_targets_own_screen():
    match = drive_until(lambda s: s["phase"] == "cancel")
    state = state_of(match)
    target = state["pending"]["target"]
    body = client_for(match, target).get(url("play", match)).content.decode()
    assert "Cancel it: give back" in body and "Let it happen" in body
    assert_no_secrets(body, state, target)
    roller = client_for(match, state["current"]).get(url("play", match)).content.decode()
    assert "Cancel it: give back" not in roller and "decides whether to cancel" in roller
    response = post_move(client_for(match, target), match, type="cancel")
    assert response.status_code == 200
    assert state_of(match)["phase"] != "cancel" or state_of(match)["pending"]["target"] != target


@pytest.mark.django_db
def test_no_other_role_in_any_html_through_a_whole_game():
    match = make_tr(seed=11)
    rng = random.Random(11)
    clients = {seat: client_for(match, seat) for seat in range(4)}
    for n in range(400):
        if match.is_over:
            break
        if n % 7 == 0:
            state = state_of(match)
            for seat, c in clients.items():
                body = c.get(url("play", match)).content.decode()
                assert_no_secrets(body, state, seat)
        step(match, rng)
    assert match.is_over
    body = clients[0].get(url("play", match)).content.decode()
    state = state_of(match)
    names = {"prince": "Prince of Tortellini", "rector": "Magnificent Rector"}
    for role in state["roles"]:  # at the end every role is shown
        if role in names:
            assert names[role] in body
    assert "Play again" in body


@pytest.mark.django_db
def test_the_innkeeper_guess_form_reaches_the_engine():
    keys = ("ana", "ben", "cleo")
    match = make_tr(keys, seed=5)
    state = state_of(match)
    inn = 0
    others = [r for r in TR.roles_for(3) if r != "innkeeper"][:2]
    state["roles"] = ["innkeeper", *others]
    state["revealed"] = [False] * 3
    state["tokens"][0] = [2, 2, 0, 3]  # People 2+, Tower 2+, Mortadella 3+
    state["reserve"] = [TR.RESERVE - sum(t[i] for t in state["tokens"]) for i in range(4)]
    state["current"] = inn
    match.state = TR.dump(state)
    match.save()
    c = client_for(match, inn)
    body = c.get(url("play", match)).content.decode()
    assert "Guess another player's role" in body and 'name="role"' in body
    response = post_move(c, match, type="guess", target="1", role=others[0])
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.is_over and match.outcome["winners"] == [0]


@pytest.mark.django_db
def test_a_finished_game_replays_with_the_log_in_words():
    match = make_tr(("ana", "ben", "cleo"), seed=4)
    rng = random.Random(4)
    for _ in range(600):
        if match.is_over:
            break
        step(match, rng)
    assert match.is_over
    ana = client_for(match, 0)
    response = ana.get(url("replay", match) + "?ply=3")
    assert response.status_code == 200
    body = response.content.decode()
    assert "rolled" in body or "kept" in body or "chose" in body


@pytest.mark.django_db
def test_pass_and_play_hides_every_role_until_the_next_person_taps():
    specs = [
        {"kind": Seat.Kind.GUEST, "name": name, "owner_key": "fam"} for name in ("Ana", "Ben")
    ] + [{"kind": Seat.Kind.BOT, "name": "Bot", "bot_level": "heuristic"}]
    match = Match.create("trono", specs, seed=8)
    state = state_of(match)
    rng = random.Random(8)
    for _ in range(50):  # the computer plays until one of the two people must act
        if TR.to_act(state)[0] in (0, 1):
            break
        step(match, rng)
        state = state_of(match)
    seat = TR.to_act(state)[0]
    assert seat in (0, 1)
    fam = guest_client("fam")
    body = fam.get(url("play", match)).content.decode()
    assert "show my role" in body
    for other in range(3):
        assert not [t for t in TR.private(state, other) if t in body]
    response = fam.post(url("reveal", match), **HTMX)
    body = response.content.decode()
    assert TR.role_card(state["roles"][seat]) in body
    assert_no_secrets(body, state, seat)


@pytest.mark.parametrize("role", ["prince", "rector", "lord", "mercenary", "cardinal", "brigand"])
def test_a_guess_reads_as_one_sentence_for_every_role(role):
    """The log's guess line: "Ana guessed that Ben is the Cardinal: right!" (never "the The")."""
    from games.trono import engine as trono

    tr_event_line = registry.get("trono").event_line
    event = {"kind": "guess", "seat": 0, "target": 1, "role": role, "right": True}
    line = tr_event_line(event, {0: "Ana", 1: "Ben"})
    assert line.startswith("Ana guessed that Ben is the ") and line.endswith(": right!")
    assert "the The" not in line
    described = trono.describe({**event, "right": False})
    assert " is the " in described and "the The" not in described


def test_the_lombard_question_speaks_to_the_player_whose_dice_they_are():
    from types import SimpleNamespace

    from games.trono.presenter import tr_next_step

    view = {"outcome": None, "phase": "lombard", "to_act": [1], "current": 0}
    names = {0: "Ana", 1: "Ben", 2: "Cleo"}

    def ctx(number):
        return {"names": names, "handoff": None, "seat": SimpleNamespace(number=number)}

    assert tr_next_step(view, ctx(0), False) == "Ben may re-roll your dice…"
    assert tr_next_step(view, ctx(2), False) == "Ben may re-roll Ana's dice…"


@pytest.mark.django_db
def test_the_two_dice_kept_show_and_one_more_is_asked_for():
    """A player who kept the two dice passed on sees them marked "kept" and picks one more
    (the board's own "kept" is not overwritten by anything the move view adds)."""
    match = drive_until(lambda s: s["phase"] == "choose" and s["kept"])
    state = state_of(match)
    c = client_for(match, state["current"])
    body = c.get(url("play", match)).content.decode()
    assert body.count('class="tr-kept"') == 2
    assert "Tap the one die to add to the two you kept" in body
    refused = c.post(
        url("move", match),
        {"version": match.version, "move_id": "", "type": "choose", "dice": ["0", "1", "2"]},
        **HTMX,
    ).content.decode()
    assert refused.count('class="tr-kept"') == 2  # still there after a refused move


@pytest.mark.django_db
def test_the_end_screen_has_no_empty_dice_tray_and_no_keep_it_secret_note():
    """Every role is revealed at the end: no "Do not show it to the others!", "Your role" (not
    secret), and the dice tray only if it holds dice."""
    match = make_tr(("ana", "ben", "cleo"), seed=4)
    rng = random.Random(4)
    while not match.is_over:
        step(match, rng)
    state = state_of(match)
    assert state["phase"] == "over"
    body = client_for(match, 0).get(url("play", match)).content.decode()
    assert "Do not show it to the others!" not in body and "Your secret role" not in body
    assert "Your role" in body
    if 'class="side tr-tray"' in body:  # the last dice, if the end shows them
        tray = body[body.index('class="side tr-tray"') :].split("</section>")[0]
        assert 'class="tr-die ' in tray
    else:
        assert not (state["kept"] or state["rolled"]) or "tr-die" not in body


@pytest.mark.django_db
def test_the_skip_turn_mark_is_our_own_picture_not_a_font_glyph():
    match = drive_until(lambda s: any(s["skip"]))
    seat = next(i for i, marked in enumerate(state_of(match)["skip"]) if marked)
    body = client_for(match, seat).get(url("play", match)).content.decode()
    assert "⏸" not in body
    assert 'src="/static/img/skip-turn.svg" alt=""' in body and "Skip Turn token" in body
