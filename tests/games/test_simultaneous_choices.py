"""Simultaneous secret choices (issue 18, item 10): in a Muertoons contest and a Mortadelo duel
another seat's face-down choice does not make a person's board stale. The person's tap on the
board they loaded before the other chose is applied (not 409 "The game moved on") and both
choices count; a form is still refused as stale (409) when what the seat saw did change in a way
that matters (the round was revealed, the contest started, the seat itself moved). Every form is
read from the board's HTML, as a browser posts it."""

import html
import random
import re

import pytest
from django.urls import reverse

from games import registry
from games.models import Match
from games.models import Move
from games.models import Seat
from games.mortadelo import engine as MM
from games.muertoons import engine as MU
from games.tasks import play_bots

from .conftest import guest_client

HTMX = {"HTTP_HX_REQUEST": "true"}


def url(name, match):
    return reverse(f"games:{name}", args=[match.public_id])


def make(slug, keys, seed, bots=()):
    specs = []
    for i, key in enumerate(keys):
        if i in bots:
            level = registry.get(slug).rules.BEST_LEVEL
            specs.append({"kind": Seat.Kind.BOT, "name": f"Bot{i}", "bot_level": level})
        else:
            specs.append({"kind": Seat.Kind.GUEST, "name": key.title(), "owner_key": key})
    return Match.create(slug, specs, seed=seed)


def state_of(match):
    match.refresh_from_db()
    return match.engine.load(match.state)


def drive(slug, keys, until, bots=(), seeds=range(80)):
    """A match played by the engine's best computer choices (the first seat to act each time)
    until ``until(state, seat, action)`` holds before ``action`` is played; returns the match
    and that next (seat, action)."""
    module = registry.get(slug).rules
    for seed in seeds:
        match = make(slug, keys, seed, bots)
        rng = random.Random(seed)
        for _ in range(400):
            state = state_of(match)
            if match.is_over:
                break
            seat = module.to_act(state)[0]
            view = module.view(state, seat)
            action = module.bot_action(
                view, module.legal_actions(state, seat), module.BEST_LEVEL, rng
            )
            if until(state, seat, action):
                return match, seat, action
            match.play(seat, action, version=match.version, follow_ups=False)
        Match.objects.filter(pk=match.pk).delete()
    pytest.fail("no game reached the wanted situation")


def open_contest(seats):
    """A Muertoons contest that ``seats`` are in and nobody has chosen in yet."""

    def until(state, _seat, _action):
        contest = state["contest"]
        return (
            state["phase"] == "contest"
            and set(seats) <= set(contest["players"])
            and all(c is None for c in contest["choices"])
        )

    return until


def contest_next(state, seat, action):
    """The next move is a Rubi that starts a contest of every seat."""
    if state["phase"] != "play":
        return False
    after, _events = MU.apply(state, seat, action)
    return after["phase"] == "contest" and len(after["contest"]["players"]) == state["players"]


def hand_form(response):
    """The hidden fields of the hand's form on this board and the cards it offers."""
    text = response.content.decode()
    found = re.search(r'<form class="hand[^"]*".*?</form>', text, flags=re.S)
    assert found, "the board has no hand form"
    block = found.group(0)
    fields = {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', block)
    }
    cards = re.findall(r'<button type="submit" name="card" value="([^"]+)"', block)
    assert cards, "the hand form offers no card"
    return fields, cards


def post(client, match, fields, card):
    return client.post(url("move", match), {**fields, "card": card}, **HTMX)


def mortadelo_duel(keys=("ana", "ben"), bots=(), seed=3):
    """A two-player Mortadelo match in its first duel (both picked their Mortadelo)."""
    match = make("mortadelo", keys, seed, bots)
    for seat, character in enumerate(("pirate", "mummy")):
        match.refresh_from_db()
        match.play(seat, {"type": "pick", "character": character}, version=match.version)
    state = state_of(match)
    assert state["phase"] == "duel" and set(MM.to_act(state)) == {0, 1}
    return match


# --- another person chose first --------------------------------------------------------


@pytest.mark.django_db
def test_muertoons_contest_a_person_choosing_first_does_not_make_anas_board_stale():
    match, _seat, _action = drive("muertoons", ("ana", "ben", "cleo"), open_contest((0, 1, 2)))
    ana, ben = guest_client("ana"), guest_client("ben")
    ana_form, ana_cards = hand_form(ana.get(url("play", match)))
    ben_form, ben_cards = hand_form(ben.get(url("play", match)))
    assert ana_form["type"] == ben_form["type"] == "choose"
    assert ana_form["version"] == ben_form["version"] == str(match.version)
    version = match.version

    assert post(ben, match, ben_form, ben_cards[0]).status_code == 200
    # Ana's tap on the board she loaded before Ben chose.
    response = post(ana, match, ana_form, ana_cards[0])
    assert response.status_code == 200, response.content.decode()[:400]
    body = response.content.decode()
    assert "moved on" not in body

    state = state_of(match)
    assert match.version == version + 2
    assert state["contest"]["choices"][0] == ana_cards[0]
    assert state["contest"]["choices"][1] == ben_cards[0]
    assert MU.to_act(state) == (2,)
    moves = list(Move.objects.filter(match=match, ply__gt=version).values_list("seat", "action"))
    assert moves == [
        (1, {"type": "choose", "card": ben_cards[0]}),
        (0, {"type": "choose", "card": ana_cards[0]}),
    ]
    # Ben's card is still face down: Ana's answer does not show it.
    assert ben_cards[0] not in body


@pytest.mark.django_db
def test_mortadelo_duel_a_person_choosing_first_does_not_make_anas_board_stale():
    match = mortadelo_duel()
    ana, ben = guest_client("ana"), guest_client("ben")
    ana_form, ana_cards = hand_form(ana.get(url("play", match)))
    ben_form, ben_cards = hand_form(ben.get(url("play", match)))
    version = match.version

    assert post(ben, match, ben_form, ben_cards[0]).status_code == 200
    response = post(ana, match, ana_form, ana_cards[0])
    assert response.status_code == 200, response.content.decode()[:400]

    state = state_of(match)
    # Both choices counted: the cards were turned over together.
    shown = {entry["seat"]: entry for entry in state["last_duel"]["cards"]}
    assert set(shown) == {0, 1}
    moves = list(Move.objects.filter(match=match, ply__gt=version).values_list("seat", "action"))
    assert moves == [
        (1, {"type": "choose", "card": ben_cards[0]}),
        (0, {"type": "choose", "card": ana_cards[0]}),
    ]
    *_, (_move, replayed) = match.replay_states()
    assert MM.dump(replayed) == match.state


# --- a computer player chose first -------------------------------------------------------


@pytest.mark.django_db
def test_muertoons_contest_a_computer_choosing_first_does_not_make_anas_board_stale():
    match, _seat, _action = drive(
        "muertoons", ("ana", "bot", "cleo"), open_contest((0, 1, 2)), bots=(1,)
    )
    ana = guest_client("ana")
    form, cards = hand_form(ana.get(url("play", match)))
    version = match.version
    # The worker's task: the computer player chooses its contest card.
    assert play_bots(match.pk) == 1
    assert state_of(match)["contest"]["choices"][1] is not None

    response = post(ana, match, form, cards[0])
    assert response.status_code == 200, response.content.decode()[:400]
    state = state_of(match)
    assert state["contest"]["choices"][0] == cards[0]
    assert state["contest"]["choices"][1] is not None
    assert [
        s for (s,) in Move.objects.filter(match=match, ply__gt=version).values_list("seat")
    ] == [
        1,
        0,
    ]


@pytest.mark.django_db
def test_mortadelo_duel_a_computer_choosing_first_does_not_make_anas_board_stale():
    match = mortadelo_duel(("ana", "bot"), bots=(1,))
    ana = guest_client("ana")
    form, cards = hand_form(ana.get(url("play", match)))
    version = match.version
    assert play_bots(match.pk) == 1  # the computer chooses its duel card

    response = post(ana, match, form, cards[0])
    assert response.status_code == 200, response.content.decode()[:400]
    state = state_of(match)
    assert {entry["seat"] for entry in state["last_duel"]["cards"]} == {0, 1}
    moves = list(Move.objects.filter(match=match, ply__gt=version).values_list("seat", "action"))
    assert moves[0][0] == 1 and moves[1] == (0, {"type": "choose", "card": cards[0]})


# --- still stale when what the seat saw changed --------------------------------------------


@pytest.mark.django_db
def test_mortadelo_a_board_from_before_the_reveal_is_still_stale():
    """Ben's choice does not make Ana's board stale; once both cards are turned over, the
    boards of before the reveal are (409, the latest board, nothing applied)."""
    match = mortadelo_duel(seed=5)
    ana, ben = guest_client("ana"), guest_client("ben")
    ana_form, ana_cards = hand_form(ana.get(url("play", match)))
    ben_form, ben_cards = hand_form(ben.get(url("play", match)))
    assert post(ben, match, ben_form, ben_cards[0]).status_code == 200
    assert post(ana, match, ana_form, ana_cards[0]).status_code == 200
    match.refresh_from_db()
    version, moves = match.version, Move.objects.filter(match=match).count()

    # Ben's board of before the reveal, again (another card, a new move id).
    again = {**ben_form, "move_id": "ben-second-tab"}
    response = post(ben, match, again, ben_cards[1])
    assert response.status_code == 409
    assert "moved on" in response.content.decode()
    # Ana's, sent again without a move id (a browser without JavaScript).
    response = post(ana, match, {**ana_form, "move_id": ""}, ana_cards[1])
    assert response.status_code == 409
    match.refresh_from_db()
    assert match.version == version and Move.objects.filter(match=match).count() == moves


@pytest.mark.django_db
def test_muertoons_a_board_from_before_the_contest_is_stale_and_a_seats_own_choice_counts():
    """Cleo's board of before Ana's Rubi (the contest started: it matters to her) is stale;
    a form of the contest is not stale by Ben's choice, but is by the seat's own choice."""
    match, seat, action = drive("muertoons", ("ana", "ben", "cleo"), contest_next)
    clients = {n: guest_client(k) for n, k in enumerate(("ana", "ben", "cleo"))}
    before = clients[2].get(url("play", match)).content.decode()
    old_version = match.version
    assert f'data-version="{old_version}"' in before
    match.play(seat, action, version=match.version, follow_ups=False)  # the Rubi
    assert state_of(match)["phase"] == "contest"

    cleo_cards = [c for c in MU.legal_actions(state_of(match), 2) if c["type"] == "choose"]
    response = clients[2].post(
        url("move", match),
        {"version": old_version, "move_id": "cleo-old", **cleo_cards[0]},
        **HTMX,
    )
    assert response.status_code == 409 and "moved on" in response.content.decode()
    assert state_of(match)["contest"]["choices"][2] is None

    # The contest board: Ben's choice leaves Cleo's form good, her own choice does not.
    forms = {n: hand_form(clients[n].get(url("play", match))) for n in (1, 2)}
    (ben_form, ben_cards), (cleo_form, cleo_cards) = forms[1], forms[2]
    assert post(clients[1], match, ben_form, ben_cards[0]).status_code == 200
    assert post(clients[2], match, cleo_form, cleo_cards[0]).status_code == 200
    again = {**cleo_form, "move_id": "cleo-again"}
    response = post(clients[2], match, again, cleo_cards[1])
    assert response.status_code == 409
    assert state_of(match)["contest"]["choices"][2] == cleo_cards[0]


@pytest.mark.django_db
def test_an_old_form_is_still_checked_by_the_engine():
    """A form that is not stale is still checked against the current state: a card Ana does
    not have is refused as illegal (422, the engine's sentence) and nothing is applied."""
    match = mortadelo_duel(seed=7)
    ana, ben = guest_client("ana"), guest_client("ben")
    ana_form, _ana_cards = hand_form(ana.get(url("play", match)))
    ben_form, ben_cards = hand_form(ben.get(url("play", match)))
    assert post(ben, match, ben_form, ben_cards[0]).status_code == 200
    match.refresh_from_db()
    version = match.version
    # Ana's old form with a card of Ben's (not in her hand).
    response = post(ana, match, ana_form, ben_cards[1])
    assert response.status_code == 422
    assert "That card is not in your hand." in response.content.decode()
    match.refresh_from_db()
    assert match.version == version and state_of(match)["duel"]["choices"][0] is None


# --- the rule ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "slug", sorted(s for s, m in registry.rules().items() if not hasattr(m, "COMMITMENTS"))
)
def test_games_without_secret_choices_keep_every_older_version_stale(slug):
    """MultipliPotion, Il Trono, Munchkin: any move since the form's version makes it stale,
    for every seat (their behaviour before issue 18)."""
    module = registry.get(slug).rules
    match = make(slug, [f"p{i}" for i in range(module.MIN_PLAYERS)], seed=4)
    rng = random.Random(4)
    for _ in range(3):
        state = state_of(match)
        seat = module.to_act(state)[0]
        match.play(seat, rng.choice(module.legal_actions(state, seat)), version=match.version)
    for version in range(match.version):
        for seat in range(module.MIN_PLAYERS):
            assert match.moved_on_for(seat, version), (slug, version, seat)
    assert not match.moved_on_for(0, match.version)


SECRET_CHOICE_GAMES = sorted(s for s, m in registry.rules().items() if hasattr(m, "COMMITMENTS"))


def test_muertoons_and_mortadelo_declare_their_secret_choices():
    assert SECRET_CHOICE_GAMES == ["mortadelo", "muertoons"]


@pytest.mark.parametrize("slug", SECRET_CHOICE_GAMES)
def test_a_secret_choice_changes_nothing_another_seat_decides_on(slug):
    """The engine's claim behind the rule, over random games: after a move whose only events
    are COMMITMENTS, every other seat's view differs only in who has chosen (``to_act``, the
    round's ``chosen``, the chooser's hand count), and its legal actions are the same."""
    module = registry.get(slug).rules
    seen = 0
    for seed in range(12):
        rng = random.Random(seed)
        players = rng.randint(module.MIN_PLAYERS, module.MAX_PLAYERS)
        state = module.setup(players, seed, {})
        for _ in range(600):
            acting = module.to_act(state)
            if not acting:
                break
            seat = rng.choice(list(acting))
            action = rng.choice(module.legal_actions(state, seat))
            after, events = module.apply(state, seat, action)
            if events and all(e["kind"] in module.COMMITMENTS for e in events):
                seen += 1
                for other in range(players):
                    if other == seat:
                        continue
                    before_view, after_view = module.view(state, other), module.view(after, other)
                    rnd = "contest" if slug == "muertoons" else "duel"
                    was, now = before_view.pop(rnd), after_view.pop(rnd)
                    assert set(now.pop("chosen")) == {*was.pop("chosen"), seat}
                    assert now == was  # the same round: its starter, seats, number
                    counts = list(before_view["hand_counts"])
                    counts[seat] -= 1
                    assert after_view["hand_counts"] == counts
                    assert after_view["to_act"] == [p for p in before_view["to_act"] if p != seat]
                    for key in ("to_act", "hand_counts"):
                        before_view.pop(key), after_view.pop(key)
                    assert before_view == after_view, (slug, seed, other)
                    assert module.legal_actions(after, other) == module.legal_actions(state, other)
            state = after
    assert seen > 20, seen
