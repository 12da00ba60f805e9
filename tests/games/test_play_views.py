"""The play screen's endpoints: every status code, hidden cards, hand-off, join, watch, replay."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.models import Match
from games.models import Move
from games.models import Seat

from .conftest import guest_client

HTMX = {"HTTP_HX_REQUEST": "true"}


def url(name, match):
    return reverse(f"games:{name}", args=[match.public_id])


def post_move(client, match, htmx=True, **fields):
    match.refresh_from_db()
    data = {"version": match.version, "move_id": fields.pop("move_id", ""), **fields}
    return client.post(url("move", match), data, **(HTMX if htmx else {}))


def hand(match, seat):
    match.refresh_from_db()
    return match.state["hands"][seat]


# --- new game ------------------------------------------------------------------------


@pytest.mark.django_db
def test_new_game_against_a_bot(client):
    response = client.post(
        reverse("games:new"),
        {"name": "Ana", "tier": "green", "opponent": "apprentice", "first": "me"},
    )
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == url("play", match)
    assert match.options == {"tier": "green"}
    seats = list(match.seats.all())
    assert [s.kind for s in seats] == [Seat.Kind.GUEST, Seat.Kind.BOT]
    assert seats[1].bot_level == "apprentice"
    assert match.status == Match.Status.ACTIVE


@pytest.mark.django_db
def test_new_game_htmx_redirects_the_client(client):
    response = client.post(
        reverse("games:new"),
        {"name": "Ana", "tier": "full", "opponent": "wizard", "first": "them"},
        **HTMX,
    )
    match = Match.objects.get()
    assert response["HX-Redirect"] == url("play", match)
    assert match.seats.get(number=0).kind == Seat.Kind.BOT


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"name": "", "tier": "green", "opponent": "wizard", "first": "me"},
            "This field is required",
        ),
        (
            {"name": "Ana", "tier": "pink", "opponent": "wizard", "first": "me"},
            "Select a valid choice",
        ),
        ({"name": "Ana", "tier": "green", "opponent": "here", "first": "me"}, "friend"),
        ({"name": "12345", "tier": "green", "opponent": "wizard", "first": "me"}, "letter"),
        ({"name": "A" * 300, "tier": "green", "opponent": "wizard", "first": "me"}, "at most 20"),
    ],
)
def test_new_game_bad_input_is_422_and_creates_nothing(client, data, message):
    response = client.post(reverse("games:new"), data, **HTMX)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert Match.objects.count() == 0


# --- moves -----------------------------------------------------------------------------


def test_place_returns_the_board_partial(make_match, ana):
    match = make_match()
    card = hand(match, 0)[0]
    response = post_move(ana, match, type="place", card=card)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="board"' in body and "<html" not in body
    assert Match.objects.get(pk=match.pk).version == 1


def test_plain_post_renders_the_whole_page(make_match, ana):
    match = make_match()
    response = post_move(ana, match, htmx=False, type="place", card=hand(match, 0)[0])
    assert response.status_code == 200
    assert "<html" in response.content.decode()


def test_stale_version_is_409_with_current_board(make_match, ana):
    match = make_match()
    post_move(ana, match, type="place", card=hand(match, 0)[0])
    response = ana.post(url("move", match), {"version": 0, "type": "end_turn"}, **HTMX)
    assert response.status_code == 409
    body = response.content.decode()
    assert "moved on" in body and 'data-version="1"' in body
    assert Match.objects.get(pk=match.pk).version == 1


def test_not_your_turn_is_403(make_match, ben):
    match = make_match()
    response = post_move(ben, match, type="place", card=hand(match, 1)[0])
    assert response.status_code == 403
    assert "not your turn" in response.content.decode()
    assert Move.objects.count() == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "place", "card": "mp-p99"},
        {"type": "fly"},
        {},
        {"type": "capture", "potions": ["x"], "monster": "y"},
        {"type": "place", "card": "<script>alert(1)</script>"},
    ],
)
def test_illegal_move_is_422_with_a_kind_sentence(make_match, ana, fields):
    match = make_match()
    response = post_move(ana, match, **fields)
    assert response.status_code == 422
    assert "<script>alert" not in response.content.decode()
    assert Match.objects.get(pk=match.pk).version == 0


def test_garbage_version_is_422(make_match, ana):
    match = make_match()
    response = ana.post(url("move", match), {"version": "abc", "type": "end_turn"}, **HTMX)
    assert response.status_code == 422


def test_double_submit_is_applied_once(make_match, ana):
    match = make_match()
    card = hand(match, 0)[0]
    first = ana.post(
        url("move", match), {"version": 0, "move_id": "tap1", "type": "place", "card": card}, **HTMX
    )
    second = ana.post(
        url("move", match), {"version": 0, "move_id": "tap1", "type": "place", "card": card}, **HTMX
    )
    assert first.status_code == second.status_code == 200
    assert Move.objects.count() == 1


def test_outsider_gets_404_everywhere(make_match, outsider):
    match = make_match()
    assert outsider.get(url("play", match)).status_code == 404
    assert outsider.get(url("poll", match) + "?v=0").status_code == 404
    assert post_move(outsider, match, type="place", card=hand(match, 0)[0]).status_code == 404
    assert outsider.get(url("replay", match)).status_code == 404
    assert outsider.get(url("spectate", match)).status_code == 404
    assert Match.objects.get(pk=match.pk).version == 0


@pytest.mark.django_db
def test_unknown_match_is_404(ana):
    assert ana.get("/play/nosuchgame/").status_code == 404


def test_csrf_is_enforced_on_moves(make_match):
    match = make_match()
    strict = Client(enforce_csrf_checks=True)
    session = strict.session
    session["player_key"] = "ana"
    session.save()
    strict.cookies["sessionid"] = session.session_key
    response = strict.post(
        url("move", match), {"version": 0, "type": "place", "card": hand(match, 0)[0]}
    )
    assert response.status_code == 403
    assert Match.objects.get(pk=match.pk).version == 0


def wrong_claim(match):
    engine = match.engine
    for a in engine.legal_actions(engine.load(match.state), 0):
        if a["type"] == "capture":
            p, q = (engine.POTION[c] for c in a["potions"])
            if p * q != engine.MONSTER[a["monster"]]:
                return a
    return None


def test_wrong_capture_is_kind_and_changes_nothing_on_board(make_match, ana):
    for seed in range(100):
        match = make_match(seed=seed)
        post_move(ana, match, type="place", card=hand(match, 0)[0])
        match.refresh_from_db()
        wrong = wrong_claim(match)
        if wrong:
            break
    state = match.state
    response = post_move(
        ana, match, type="capture", potions=wrong["potions"], monster=wrong["monster"]
    )
    assert response.status_code == 200
    assert "Not quite" in response.content.decode()
    after = Match.objects.get(pk=match.pk).state
    assert after["areas"] == state["areas"] and after["trophies"] == state["trophies"]
    fact = Move.objects.order_by("-ply").first().events[0]
    assert fact["kind"] == "fact" and fact["correct"] is False and fact["context"] == "capture"


# --- polling -------------------------------------------------------------------------


def test_poll_is_204_when_nothing_changed_and_board_when_it_did(make_match, ana, ben):
    match = make_match()
    assert ben.get(url("poll", match) + "?v=0", **HTMX).status_code == 204
    post_move(ana, match, type="place", card=hand(match, 0)[0])
    response = ben.get(url("poll", match) + "?v=0", **HTMX)
    assert response.status_code == 200
    assert 'data-version="1"' in response.content.decode()


def test_unchanged_poll_costs_one_query_after_the_session(
    make_match, ben, django_assert_max_num_queries
):
    match = make_match()
    ben.get(url("poll", match) + "?v=0", **HTMX)  # warm the session cache
    with django_assert_max_num_queries(2):
        assert ben.get(url("poll", match) + "?v=0", **HTMX).status_code == 204


# --- hidden information --------------------------------------------------------------


def test_no_response_ever_holds_the_other_hand(make_match, ana, ben):
    match = make_match(seats=("ana", "ben"), tier="full", seed=5)
    engine = match.engine
    for _ in range(40):
        match.refresh_from_db()
        if match.is_over:
            break
        state = engine.load(match.state)
        for seat, client in ((0, ana), (1, ben)):
            secrets = engine.private(state, 1 - seat)
            for response in (
                client.get(url("play", match)),
                client.get(url("poll", match) + "?v=-1", **HTMX),
            ):
                body = response.content.decode()
                leaked = [s for s in secrets if s in body]
                assert not leaked, f"seat {seat} saw {leaked}"
        seat = engine.to_act(state)[0]
        action = engine.bot_action(
            engine.view(state, seat),
            engine.legal_actions(state, seat),
            "wizard",
            __import__("random").Random(1),
        )
        match.play(seat, action, version=match.version)


# --- pass-and-play --------------------------------------------------------------------


def test_pass_and_play_hides_the_hand_until_the_next_child_taps(make_match):
    match = make_match(seats=("family", "family"))
    device = guest_client("family")
    seat0_hand = hand(match, 0)
    body = device.get(url("play", match)).content.decode()
    assert "show my cards" in body
    assert not [c for c in seat0_hand if c in body]
    assert "you can capture these" not in body  # nobody's "you" while the device waits
    device.post(url("reveal", match), **HTMX)
    body = device.get(url("play", match)).content.decode()
    assert all(c in body for c in seat0_hand)
    assert "you can capture these" in body
    post_move(device, match, type="place", card=seat0_hand[0])
    post_move(device, match, type="end_turn")
    body = device.get(url("play", match)).content.decode()
    assert "show my cards" in body
    assert not [c for c in hand(match, 0) + hand(match, 1) if c in body]
    # A move before the tap is refused: the hand is still hidden.
    response = post_move(device, match, type="place", card=hand(match, 1)[0])
    assert response.status_code == 403


# --- joining, watching, replaying ----------------------------------------------------------


@pytest.mark.django_db
def test_friend_joins_an_open_seat(client):
    client.post(
        reverse("games:new"), {"name": "Ana", "tier": "green", "opponent": "friend", "first": "me"}
    )
    match = Match.objects.get()
    assert match.status == Match.Status.WAITING
    friend = Client()
    assert friend.get(url("play", match)).status_code == 302
    assert friend.post(url("join", match), {"name": ""}).status_code == 422
    response = friend.post(url("join", match), {"name": "Ben"})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(number=1).name == "Ben"
    # The table is full: a third person cannot join.
    assert Client().get(url("join", match)).status_code == 404


def test_superuser_spectates_without_hands(make_match):
    match = make_match()
    admin = get_user_model().objects.create_superuser("boss", "b@example.com", "pw-long-enough-1")
    client = Client()
    client.force_login(admin)
    body = client.get(url("spectate", match)).content.decode()
    assert 'id="board"' in body
    assert not [c for c in hand(match, 0) + hand(match, 1) if c in body]


def test_replay_steps_through_a_finished_match(make_match, ana):
    match = make_match(seats=("ana", "wizard"), bots=(1,))
    assert ana.get(url("replay", match)).status_code == 302  # not finished yet
    match.seats.filter(number=0).update(kind=Seat.Kind.BOT, bot_level="apprentice")
    match.play_bot_turns()
    match.refresh_from_db()
    assert match.is_over
    first = ana.get(url("replay", match) + "?ply=0")
    assert first.status_code == 200 and "Move 0 of" in first.content.decode()
    step = ana.get(url("replay", match) + "?ply=3", **HTMX)
    assert step.status_code == 200 and "Move 3 of" in step.content.decode()
    assert ana.get(url("replay", match) + "?ply=banana").status_code == 200


def right_claims(match, seat, kind):
    engine = match.engine
    return [
        a
        for a in engine.legal_actions(engine.load(match.state), seat)
        if a["type"] == kind
        and engine.POTION[a["potions"][0]] * engine.POTION[a["potions"][1]]
        == engine.MONSTER[a["monster"]]
    ]


def test_vigilance_challenge_on_screen(make_match, ana, ben):
    # Find a deal where Ana can place a card that makes a capture possible.
    for seed in range(300):
        match = make_match(seed=seed)
        for card in hand(match, 0):
            post_move(ana, match, type="place", card=card)
            match.refresh_from_db()
            if right_claims(match, 0, "capture"):
                break
            Match.objects.filter(pk=match.pk).delete()
            match = make_match(seed=seed)
        else:
            continue
        break
    trophies_before = len(match.state["trophies"][1])
    # Ana misses it and ends her turn.
    assert post_move(ana, match, type="end_turn").status_code == 200
    body = ben.get(url("play", match)).content.decode()
    assert "miss a capture" in body
    # Ben spots it.
    match.refresh_from_db()
    claim = right_claims(match, 1, "challenge")[0]
    response = post_move(
        ben, match, type="challenge", potions=claim["potions"], monster=claim["monster"]
    )
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.to_act() == (0,)
    assert "You were caught" in ana.get(url("play", match)).content.decode()
    # Ana must capture now; anything else is refused kindly.
    assert post_move(ana, match, type="end_turn").status_code == 422
    capture = right_claims(match, 0, "capture")[0]
    post_move(ana, match, type="capture", potions=capture["potions"], monster=capture["monster"])
    match.refresh_from_db()
    assert match.to_act() == (1,)
    assert len(match.state["trophies"][1]) == trophies_before + 1  # Ben's reward card
    assert "reward" in ben.get(url("play", match)).content.decode()


def test_a_pause_reaches_the_polling_board(make_match, ana):
    from django.utils import timezone

    match = make_match()
    assert ana.get(url("poll", match) + "?v=0", **HTMX).status_code == 204
    Match.objects.filter(pk=match.pk).update(paused_at=timezone.now())
    response = ana.get(url("poll", match) + "?v=0", **HTMX)
    assert response.status_code == 200
    paused = response.content.decode()
    assert "paused the game" in paused
    # Ana's turn, but the board offers no move while paused and does not say it is hers.
    assert "Your turn" not in paused and 'name="card"' not in paused
    assert "Ben is playing" not in paused  # nor that somebody else is
    Match.objects.filter(pk=match.pk).update(paused_at=None)
    resumed = ana.get(url("play", match), **HTMX).content.decode()
    assert "Your turn" in resumed and 'name="card"' in resumed
    Match.objects.filter(pk=match.pk).update(paused_at=timezone.now())
    assert ana.get(url("poll", match) + "?v=0p", **HTMX).status_code == 204
    card = hand(match, 0)[0]
    refused = post_move(ana, match, type="place", card=card)
    assert refused.status_code == 403


def poll_trigger(html: str) -> str:
    import re

    # A pushed board (with Redis) polls at this interval only while its stream is silent.
    pushed = re.search(r'hx-get="[^"]*/poll/\?v=[^"]*"[^>]*data-live-poll="([^"]+)"', html)
    if pushed:
        return f"every {pushed.group(1)}"
    found = re.search(r'hx-get="[^"]*/poll/\?v=[^"]*"[^>]*hx-trigger="([^"]+)"', html)
    return found.group(1) if found else ""


def test_the_board_asks_every_second_unless_only_this_child_can_act(make_match, ana, ben):
    from django.utils import timezone

    match = make_match()
    # Ana's turn: only she can change the board, so hers asks every 3 s; Ben's waits for her
    # moves and asks every second.
    assert poll_trigger(ana.get(url("play", match), **HTMX).content.decode()) == "every 3s"
    assert poll_trigger(ben.get(url("play", match), **HTMX).content.decode()) == "every 1s"
    # While the teacher has paused the game nobody acts: both ask every second for the resume.
    Match.objects.filter(pk=match.pk).update(paused_at=timezone.now())
    assert poll_trigger(ana.get(url("play", match), **HTMX).content.decode()) == "every 1s"
    Match.objects.filter(pk=match.pk).update(paused_at=None)
    # Her move's answer is a board with the 3 s poller while it is still her turn...
    placed = post_move(ana, match, type="place", card=hand(match, 0)[0]).content.decode()
    assert poll_trigger(placed) == "every 3s"
    # ...and with the 1 s poller once the turn is Ben's.
    ended = post_move(ana, match, type="end_turn").content.decode()
    assert poll_trigger(ended) == "every 1s"
    assert poll_trigger(ben.get(url("play", match), **HTMX).content.decode()) == "every 3s"


def test_the_poll_intervals_follow_live_poll_seconds(make_match, ana, ben, settings):
    from games.presenters import poll_every

    settings.LIVE_POLL_SECONDS = 0.25
    assert (poll_every(), poll_every(2), poll_every(3)) == ("250ms", "500ms", "750ms")
    match = make_match()
    assert poll_trigger(ana.get(url("play", match), **HTMX).content.decode()) == "every 750ms"
    assert poll_trigger(ben.get(url("play", match), **HTMX).content.decode()) == "every 250ms"
    settings.LIVE_POLL_SECONDS = 2
    assert (poll_every(), poll_every(3)) == ("2s", "6s")


def test_a_board_against_the_computer_asks_every_second_while_it_plays(make_match, ana):
    match = make_match(seats=("ana", "apprentice"), bots=(1,))
    assert poll_trigger(ana.get(url("play", match), **HTMX).content.decode()) == "every 3s"
    ended = post_move(ana, match, type="place", card=hand(match, 0)[0])
    ended = post_move(ana, match, type="end_turn").content.decode()
    assert poll_trigger(ended) == "every 1s"


def test_a_finished_practice_game_offers_play_again_and_a_watcher_no_button(make_match, ana):
    match = make_match(seats=("ana", "wizard"), bots=(1,))
    match.seats.filter(number=0).update(kind=Seat.Kind.BOT, bot_level="apprentice")
    match.play_bot_turns()
    match.refresh_from_db()
    assert match.is_over
    body = ana.get(url("play", match)).content.decode()
    # The way on has the focus once the game ends, so the result is in view and one Enter away.
    assert f'href="{reverse("games:new")}" data-autofocus>Play again</a>' in body
    # Over: the sides no longer say what to do (a child's browser walk read "you can capture
    # these" under "Apprentice Pip wins!").
    assert "you can capture these" not in body and "multiply two of them" not in body
    watcher = Client()
    watcher.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "x"))
    watched = watcher.get(url("spectate", match)).content.decode()
    assert 'class="result-text"' in watched and "Play again" not in watched


@pytest.mark.parametrize(
    "family, kind, spectator, expected",
    [
        (True, "guest", False, ("games:new_family", "Play again")),
        (True, "student", False, ("games:new_family", "Play again")),  # home play: goes on
        (False, "student", False, ("classroom:child_home", "Back to my page")),
        (False, "guest", False, ("games:new", "Play again")),
        (False, "student", True, None),
        (True, "guest", True, None),
    ],
)
def test_way_on_after_a_game(family, kind, spectator, expected):
    from types import SimpleNamespace

    from games.presenters import way_on

    match = SimpleNamespace(family=family, game="muertoons")
    seat = SimpleNamespace(kind=kind)
    got = way_on(match, seat, spectator=spectator)
    if expected is None:
        assert got is None
    else:
        name, label = expected
        args = ["muertoons"] if name == "games:new_family" else []
        assert got == {"url": reverse(name, args=args), "label": label}


def test_a_capture_with_one_potion_keeps_that_potion_ticked(make_match, ana):
    """A child who tapped one potion and the monster hears how a capture works, and the potion
    they picked is still ticked: they add the second one, not start again."""
    for seed in range(100):
        match = make_match(seed=seed)
        post_move(ana, match, type="place", card=hand(match, 0)[0])
        match.refresh_from_db()
        captures = [
            a
            for a in match.engine.legal_actions(match.engine.load(match.state), 0)
            if a["type"] == "capture"
        ]
        if captures:
            break
    first = captures[0]
    one = first["potions"][0]
    response = post_move(ana, match, type="capture", potions=[one], monster=first["monster"])
    assert response.status_code == 422
    body = response.content.decode()
    assert "Tap exactly two of your potions" in body
    ticked = re.findall(r'name="potions" value="([^"]+)" form="area-form" checked', body)
    assert ticked == [str(one)]


def test_the_last_call_asks_the_other_player_to_check_the_last_turn(make_match, ana, ben):
    """Every card played and a capture possible on the last turn: Ben's board asks him to check
    Ana's last turn or end the game (docs/rules, "The last turn can be checked"); declining
    ends the game."""
    from games.multiplipotion import engine as mp

    match = make_match()
    state = mp.load(match.state)
    c = {(v["potion"], v["monster"]): k for k, v in mp.CARDS.items() if k in mp.TIER_IDS["green"]}
    ana_area = [c[(2, 4)], c[(3, 4)]]
    rest = [k for k in mp.TIER_IDS["green"] if k not in ana_area]
    state.update(
        areas=[ana_area, rest[:-2]],
        hands=[[], []],
        pile=[],
        trophies=[[rest[-2]], [rest[-1]]],
        phase="capture_or_end",
        current=0,
        captured=False,
    )
    Match.objects.filter(pk=match.pk).update(state=mp.dump(state))
    match.refresh_from_db()
    response = post_move(ana, match, type="end_turn")
    assert response.status_code == 200
    match.refresh_from_db()
    assert not match.is_over and mp.load(match.state)["phase"] == "last_call"
    board = ben.get(reverse("games:play", args=[match.public_id])).text
    assert "Every card is played. Did" in board and "No: end the game" in board
    assert 'name="type" value="challenge"' in board
    assert post_move(ben, match, type="end_turn").status_code == 200
    match.refresh_from_db()
    assert match.is_over
