"""Muertoons: one test per rulebook passage and per ruling (docs/rules/muertoons.md).

Seat 0 is the player to the left of the dealer; "left" is the next seat number, "right" the
previous one.
"""

import json
import random
from itertools import combinations

import pytest

from games import registry
from games.engine import IllegalAction
from games.engine import simulate
from games.muertoons import engine as mu

PASS = {"type": "pass"}
DONE = {"type": "straight_done"}
NO_STRAIGHT = {"type": "no_straight"}


def C(girl: str, number: int | None = None) -> str:
    return mu.SPIRIT if girl == "spirit" else f"mu-{girl}-{number:02d}"


def play(card):
    return {"type": "play", "card": card}


def choose(card):
    return {"type": "choose", "card": card}


def give(card):
    return {"type": "give", "card": card}


def add(card):
    return {"type": "straight", "card": card}


def kinds(events):
    return [e["kind"] for e in events]


def arrange(hands, pile=(mu.START,), current=0, top_by=None, lead=False, passes=0):
    """A state with these hands and pile; every other card goes to Tio Rico's box."""
    players = len(hands)
    s = mu.setup(players, 0, {})
    used = [*pile]
    for h in hands:
        used.extend(h)
    assert len(used) == len(set(used))
    s.update(
        hands=[mu._sorted(list(h)) for h in hands],
        pile=list(pile),
        box=mu._sorted([c for c in mu.ALL_IDS if c not in used]),
        current=current,
        top_by=(current - 1) % players if top_by is None else top_by,
        lead=lead,
        passes=passes,
    )
    assert sorted(mu.cards(s)) == sorted(mu.ALL_IDS)
    return s


def act(state, seat, action):
    new, events = mu.apply(state, seat, action)
    assert sorted(mu.cards(new)) == sorted(mu.ALL_IDS)
    json.dumps(events)
    return new, events


def no_hidden_ids(state, events):
    text = json.dumps(events)
    for seat in range(state["players"]):
        for token in mu.private(state, seat):
            assert token not in text
    for token in state["box"]:
        assert token not in text


# ------------------------------------------------------------------------------------------
# Components and card ids
# ------------------------------------------------------------------------------------------
def test_components_5_sets_of_11_muertoons_cards_and_1_spirit_card():
    assert len(mu.CARDS) == 56
    for girl in mu.GIRLS:
        assert sorted(c["number"] for c in mu.CARDS.values() if c["girl"] == girl) == list(
            range(1, 12)
        )
    assert mu.CARDS[mu.SPIRIT]["girl"] == "spirit" and mu.CARDS[mu.SPIRIT]["number"] is None
    assert (mu.MIN_PLAYERS, mu.MAX_PLAYERS) == (3, 5)
    assert mu.LEVELS == ["random", "heuristic"] and mu.BEST_LEVEL == "heuristic"
    assert registry.rules()["muertoons"] is mu


def test_ruling_card_ids_are_tokens_that_never_occur_by_accident():
    ids = list(mu.CARDS)
    assert "mu-rosita-07" in ids and "mu-spirit" in ids
    for a, b in combinations(ids, 2):
        assert a not in b and b not in a
    for c in mu.CARDS.values():
        assert set(c) == {"id", "girl", "number", "name"}
        assert c["id"] not in c["name"]


# ------------------------------------------------------------------------------------------
# Starting the game
# ------------------------------------------------------------------------------------------
def test_starting_the_game_rosita_1_starts_the_discard_stack():
    for players in (3, 4, 5):
        s = mu.setup(players, 9, {})
        assert s["pile"] == ["mu-rosita-01"]
        assert mu.view(s, None)["top"]["name"] == "Rosita 1"


@pytest.mark.parametrize(
    ("players", "sizes", "box"),
    [(3, [14, 14, 14], 13), (4, [11, 11, 11, 11], 11), (5, [10, 9, 9, 9, 9], 9)],
)
def test_starting_the_game_deal_all_with_an_extra_hand_for_tio_rico(players, sizes, box):
    """ "Deal them all ... while also dealing an extra hand for Tio Rico (Some players may get
    one more card than others)." Ruling: Tio Rico's hand is dealt last in every round."""
    s = mu.setup(players, 3, {})
    assert [len(h) for h in s["hands"]] == sizes
    assert len(s["box"]) == box
    assert sorted(mu.cards(s)) == sorted(mu.ALL_IDS)


def test_ruling_tio_rico_box_is_never_seen_but_its_count_is_public():
    s = mu.setup(4, 5, {})
    for seat in (0, 1, 2, 3, None):
        v = mu.view(s, seat)
        text = json.dumps(v)
        assert v["box_count"] == len(s["box"])
        for c in s["box"]:
            assert c not in text


def test_starting_the_game_shuffle_comes_from_the_seed():
    assert mu.setup(4, 3, {}) == mu.setup(4, 3, {})
    assert mu.setup(4, 3, {})["hands"] != mu.setup(4, 4, {})["hands"]
    for bad in (2, 6, "3", True):
        with pytest.raises(ValueError):
            mu.setup(bad, 0, {})
    with pytest.raises(ValueError):
        mu.setup(3, 0, {"colour": "red"})


def test_starting_the_game_the_player_left_of_the_dealer_goes_first_then_clockwise():
    s = mu.setup(4, 1, {})
    assert mu.to_act(s) == (0,)
    s, _ = act(s, 0, PASS)
    assert mu.to_act(s) == (1,)
    s, _ = act(s, 1, PASS)
    assert mu.to_act(s) == (2,)


def test_starting_the_game_you_see_only_your_own_cards():
    s = mu.setup(3, 2, {})
    for seat in range(3):
        v = mu.view(s, seat)
        assert [c["id"] for c in v["hand"]] == s["hands"][seat]
        assert v["hand_counts"] == [14, 14, 14]
        text = json.dumps(v)
        for other in range(3):
            if other != seat:
                assert not any(c in text for c in s["hands"][other])
    assert "hand" not in mu.view(s, None)


# ------------------------------------------------------------------------------------------
# Turns and passing
# ------------------------------------------------------------------------------------------
def test_you_do_not_have_to_play_a_card_you_can_pass():
    s = arrange([[C("bibi", 2)], [C("gabi", 5)], [C("rubi", 7)]])
    assert mu.legal_actions(s, 0) == [play(C("bibi", 2)), PASS]
    s, ev = act(s, 0, PASS)
    assert kinds(ev) == ["passed"] and mu.to_act(s) == (1,)


def test_if_you_cannot_play_a_card_you_must_pass():
    s = arrange([[C("bibi", 5), C("rubi", 7)], [C("gabi", 5)], [C("rubi", 8)]])
    assert mu.legal_actions(s, 0) == [PASS]
    with pytest.raises(IllegalAction, match="cannot go there"):
        mu.apply(s, 0, play(C("bibi", 5)))


def test_if_all_players_pass_the_one_who_played_the_last_card_plays_any_card():
    s = arrange(
        [[C("bibi", 2), C("rubi", 9)], [C("gabi", 5), C("gabi", 6)], [C("rubi", 8), C("bibi", 7)]]
    )
    s, _ = act(s, 0, play(C("bibi", 2)))
    s, _ = act(s, 1, PASS)
    s, ev = act(s, 2, PASS)
    assert ev[-1] == {"kind": "lead", "seat": 0, "why": "all_passed"}
    assert mu.to_act(s) == (0,) and s["lead"]
    assert mu.legal_actions(s, 0) == [play(C("rubi", 9))]  # any card, and no pass


def test_ruling_a_player_who_must_play_any_card_cannot_pass():
    s = arrange([[C("bibi", 6), C("rubi", 9)], [C("gabi", 5)], [C("rubi", 8)]], lead=True)
    with pytest.raises(IllegalAction, match="must play a card"):
        mu.apply(s, 0, PASS)
    assert {"type": "pass"} not in mu.legal_actions(s, 0)


def test_ruling_the_dealer_counts_as_having_played_the_rosita_1():
    s = mu.setup(4, 8, {})
    assert s["top_by"] == 3
    for seat in (0, 1, 2):
        s, ev = act(s, seat, PASS)
    assert ev[-1] == {"kind": "lead", "seat": 3, "why": "all_passed"}


def test_ruling_after_a_straight_its_player_counts_as_having_played_the_last_card():
    s = arrange(
        [
            [C("bibi", 3), C("rosita", 4), C("gabi", 9)],
            [C("bibi", 9), C("rubi", 10)],
            [C("rubi", 2), C("bibi", 8)],
        ],
        pile=[mu.START, C("lupita", 7)],
        current=1,
        top_by=0,
    )
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, add(C("bibi", 3)))
    s, ev = act(s, 0, add(C("rosita", 4)))
    assert "straight" in kinds(ev) and s["pile"][-1] == C("rosita", 4)
    s, _ = act(s, 1, PASS)
    s, ev = act(s, 2, PASS)
    assert ev[-1] == {"kind": "lead", "seat": 0, "why": "all_passed"}


# ------------------------------------------------------------------------------------------
# Winning
# ------------------------------------------------------------------------------------------
def test_winning_be_the_first_to_discard_all_cards_in_your_hand():
    s = arrange([[C("bibi", 2)], [C("gabi", 5), C("bibi", 4)], [C("rubi", 8)]])
    s, ev = act(s, 0, play(C("bibi", 2)))
    assert ev[-1] == {"kind": "game_over", "winners": [0], "reason": "empty_hand"}
    assert mu.outcome(s) == {
        "winners": [0],
        "ranking": [[0], [2], [1]],
        "reason": "empty_hand",
    }
    assert mu.to_act(s) == ()
    assert mu.legal_actions(s, 1) == []
    with pytest.raises(IllegalAction, match="over"):
        mu.apply(s, 1, PASS)


def test_ruling_a_rubi_played_as_the_last_card_wins_without_a_contest():
    s = arrange([[C("rubi", 2)], [C("gabi", 5)], [C("rubi", 8)]])
    s, ev = act(s, 0, play(C("rubi", 2)))
    assert kinds(ev) == ["played", "game_over"]
    assert mu.outcome(s)["winners"] == [0]


# ------------------------------------------------------------------------------------------
# Rosita and Bibi
# ------------------------------------------------------------------------------------------
def test_rosita_and_bibi_play_any_card_of_the_next_higher_number():
    hand = [C(g, 8) for g in mu.GIRLS] + [C("rosita", 9), C("bibi", 7), mu.SPIRIT]
    s = arrange([hand, [C("gabi", 5)], [C("rubi", 1)]], pile=[mu.START, C("rosita", 7)])
    playable = [a["card"] for a in mu.legal_actions(s, 0) if a["type"] == "play"]
    assert sorted(playable) == sorted([C(g, 8) for g in mu.GIRLS] + [mu.SPIRIT])
    # "Play any 3 on a Bibi 2."
    s = arrange([[C("lupita", 3), C("rubi", 2)], [C("gabi", 5)], [C("rubi", 1)]])
    s["pile"] = [*s["pile"], C("bibi", 2)]
    s["box"].remove(C("bibi", 2))
    assert [a["card"] for a in mu.legal_actions(s, 0) if a["type"] == "play"] == [C("lupita", 3)]


def test_only_the_spirit_can_play_on_a_rosita_11_or_bibi_11():
    for eleven in (C("rosita", 11), C("bibi", 11)):
        hand = [C("gabi", 11), C("lupita", 1), C("rubi", 11), mu.SPIRIT]
        s = arrange([hand, [C("gabi", 5)], [C("rubi", 1)]], pile=[mu.START, eleven])
        assert mu.legal_actions(s, 0) == [play(mu.SPIRIT), PASS]
        assert mu.view(s, 0)["asks"]["rule"] == "spirit_only"


# ------------------------------------------------------------------------------------------
# Rubi
# ------------------------------------------------------------------------------------------
def contest_state(players=3):
    hands = [
        [C("rubi", 5), C("rubi", 4), C("bibi", 1)],
        [C("rubi", 9), C("gabi", 3)],
        [C("rubi", 2), C("lupita", 6)],
        [C("bibi", 4), C("lupita", 7)],
        [C("gabi", 10), C("lupita", 10)],
    ][:players]
    return arrange(hands, pile=[mu.START, C("bibi", 4 if players < 4 else 3)])


def test_rubi_it_is_a_contest_each_player_chooses_a_card_at_the_same_time():
    s = arrange(
        [[C("rubi", 5), C("rubi", 4), C("bibi", 1)], [C("rubi", 9), C("gabi", 3)], [C("rubi", 2)]],
        pile=[mu.START, C("bibi", 4)],
    )
    s, ev = act(s, 0, play(C("rubi", 5)))
    assert kinds(ev) == ["played", "contest_started"]
    assert mu.to_act(s) == (0, 1, 2)
    for seat in (0, 1, 2):
        assert mu.legal_actions(s, seat) == [choose(c) for c in s["hands"][seat]]


def test_rubi_nobody_sees_the_choices_until_all_have_chosen():
    s = arrange(
        [[C("rubi", 5), C("rubi", 4), C("bibi", 1)], [C("rubi", 9), C("gabi", 3)], [C("rubi", 2)]],
        pile=[mu.START, C("bibi", 4)],
    )
    s, _ = act(s, 0, play(C("rubi", 5)))
    s, ev = act(s, 1, choose(C("rubi", 9)))
    assert ev == [{"kind": "contest_choice", "seat": 1}]
    assert mu.describe(ev[0]) == "Player 2 chose a card for the contest."
    assert mu.private(s, 1) == {C("gabi", 3), C("rubi", 9)}
    for seat in (0, 2, None):
        v = mu.view(s, seat)
        assert C("rubi", 9) not in json.dumps(v)
        assert v["contest"]["chosen"] == [1]
    assert mu.view(s, 1)["my_choice"]["id"] == C("rubi", 9)
    assert mu.to_act(s) == (0, 2)
    with pytest.raises(IllegalAction, match="already chose"):
        mu.apply(s, 1, choose(C("gabi", 3)))
    s, ev = act(s, 0, choose(C("bibi", 1)))
    assert C("bibi", 1) not in json.dumps(ev)
    s, ev = act(s, 2, choose(C("rubi", 2)))
    # all have chosen (Player 3 had its last card): revealed together
    reveal = ev[1]
    assert reveal["kind"] == "contest_reveal"
    assert [(c["seat"], c["card"]["id"]) for c in reveal["choices"]] == [
        (0, C("bibi", 1)),
        (1, C("rubi", 9)),
        (2, C("rubi", 2)),
    ]
    assert mu.view(s, 0)["last_contest"]["winner"] == 1


def test_rubi_example_rubi_4_rubi_9_rubi_2_the_rubi_9_wins():
    s = arrange(
        [
            [C("rubi", 5), C("rubi", 4), C("bibi", 1)],
            [C("rubi", 9), C("gabi", 3), C("gabi", 11)],
            [C("rubi", 2), C("lupita", 6)],
        ],
        pile=[mu.START, C("bibi", 4)],
    )
    s, _ = act(s, 0, play(C("rubi", 5)))
    s, _ = act(s, 0, choose(C("rubi", 4)))
    s, _ = act(s, 1, choose(C("rubi", 9)))
    s, ev = act(s, 2, choose(C("rubi", 2)))
    assert ev[1]["winner"] == 1
    # the winner now plays any card and play continues
    assert ev[-1] == {"kind": "lead", "seat": 1, "why": "contest_won"}
    assert mu.to_act(s) == (1,) and s["lead"]
    s, _ = act(s, 1, play(C("gabi", 3)))
    assert mu.to_act(s) == (2,)


def test_rubi_if_the_spirit_card_is_played_it_wins():
    s = arrange(
        [
            [C("rubi", 5), C("rubi", 11), C("bibi", 1)],
            [mu.SPIRIT, C("gabi", 3)],
            [C("rubi", 2), C("lupita", 6)],
        ],
        pile=[mu.START, C("bibi", 4)],
    )
    s, _ = act(s, 0, play(C("rubi", 5)))
    s, _ = act(s, 0, choose(C("rubi", 11)))
    s, _ = act(s, 1, choose(mu.SPIRIT))
    s, ev = act(s, 2, choose(C("rubi", 2)))
    assert ev[1]["winner"] == 1 and mu.to_act(s) == (1,)


def test_rubi_if_no_one_wins_the_next_player_plays_any_card():
    s = arrange(
        [
            [C("bibi", 9), C("rubi", 5), C("bibi", 1)],
            [C("gabi", 8), C("gabi", 3)],
            [C("lupita", 2), C("lupita", 6)],
        ],
        pile=[mu.START, C("bibi", 4)],
        current=2,
        top_by=1,
    )
    s, _ = act(s, 2, PASS)
    s, _ = act(s, 0, play(C("rubi", 5)))
    s, _ = act(s, 2, choose(C("lupita", 2)))
    s, _ = act(s, 1, choose(C("gabi", 8)))
    s, ev = act(s, 0, choose(C("bibi", 1)))
    assert ev[1]["winner"] is None
    assert ev[-1] == {"kind": "lead", "seat": 1, "why": "no_winner"}  # after the Rubi's player
    assert mu.legal_actions(s, 1) == [play(C("gabi", 3))]


def test_rubi_place_the_contest_cards_on_the_stack_ruling_winner_on_top():
    s = arrange(
        [
            [C("rubi", 5), C("rubi", 4), C("bibi", 1)],
            [C("rubi", 9), C("gabi", 3)],
            [C("rubi", 2), C("lupita", 6)],
        ],
        pile=[mu.START, C("bibi", 4)],
        current=1,
        top_by=0,
    )
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 2, PASS)  # all passed: seat 0 leads
    s, _ = act(s, 0, play(C("rubi", 4)))
    s, _ = act(s, 2, choose(C("rubi", 2)))
    s, _ = act(s, 0, choose(C("bibi", 1)))
    s, _ = act(s, 1, choose(C("rubi", 9)))
    # in seat order from the Rubi's player, the winning card last (on top)
    assert s["pile"][-4:] == [C("rubi", 4), C("bibi", 1), C("rubi", 2), C("rubi", 9)]
    # ruling, no winner: in seat order from the Rubi's player
    s = arrange(
        [
            [C("rubi", 4), C("bibi", 1), C("bibi", 5)],
            [C("gabi", 3), C("gabi", 4)],
            [C("lupita", 6), C("lupita", 7)],
        ],
        pile=[mu.START, C("bibi", 3)],
    )
    s, _ = act(s, 0, play(C("rubi", 4)))
    for seat, card in ((1, C("gabi", 3)), (2, C("lupita", 7)), (0, C("bibi", 1))):
        s, _ = act(s, seat, choose(card))
    assert s["pile"][-3:] == [C("bibi", 1), C("gabi", 3), C("lupita", 7)]


def test_ruling_the_player_who_played_the_rubi_takes_part_in_the_contest():
    s = contest_state(4)
    s, _ = act(s, 0, play(C("rubi", 4)))
    assert s["contest"]["players"] == [0, 1, 2, 3]
    assert 0 in mu.to_act(s)


def test_ruling_every_player_in_the_contest_must_put_a_card_in():
    s = contest_state(3)
    s, _ = act(s, 0, play(C("rubi", 5)))
    assert all(a["type"] == "choose" for a in mu.legal_actions(s, 2))
    with pytest.raises(IllegalAction):
        mu.apply(s, 2, PASS)


def test_ties_when_following_rubi_more_than_one_player_can_win():
    s = arrange(
        [
            [C("rubi", 5), C("bibi", 1)],
            [C("rubi", 9)],
            [C("rubi", 2)],
            [C("gabi", 2), C("gabi", 7)],
        ],
        pile=[mu.START, C("bibi", 4)],
    )
    s, _ = act(s, 0, play(C("rubi", 5)))
    for seat, card in ((1, C("rubi", 9)), (2, C("rubi", 2)), (3, C("gabi", 7))):
        s, _ = act(s, seat, choose(card))
    s, ev = act(s, 0, choose(C("bibi", 1)))
    assert ev[-1] == {"kind": "game_over", "winners": [0, 1, 2], "reason": "contest"}
    assert mu.outcome(s)["ranking"] == [[0, 1, 2], [3]]
    assert mu.describe(ev[-1]) == "Player 1, Player 2, Player 3 reached the party!"


# ------------------------------------------------------------------------------------------
# Gabi
# ------------------------------------------------------------------------------------------
def gabi_state(players=5):
    hands = [
        [C("gabi", 8), C("bibi", 1), C("rubi", 1)],
        [C("bibi", 3), C("rubi", 3), C("lupita", 3)],
        [C("rosita", 5), C("rosita", 6)],
        [C("bibi", 9), C("bibi", 10)],
        [C("lupita", 9), C("lupita", 10)],
    ][:players]
    return arrange(hands, pile=[mu.START, C("bibi", 7)])


def test_gabi_example_play_any_other_gabi_or_any_other_8():
    hand = [C("gabi", 2), C("rubi", 8), C("lupita", 8), C("bibi", 9), mu.SPIRIT]
    s = arrange([hand, [C("bibi", 2)], [C("bibi", 3)]], pile=[mu.START, C("gabi", 8)])
    plays = [a["card"] for a in mu.legal_actions(s, 0) if a["type"] == "play"]
    assert sorted(plays) == sorted([C("gabi", 2), C("rubi", 8), C("lupita", 8), mu.SPIRIT])


def test_gabi_if_you_do_not_play_on_it_each_player_gives_you_one_card_from_the_right():
    """ "Start with the one who played Gabi and move to the right" (decreasing seats)."""
    s = gabi_state(5)
    s, _ = act(s, 0, play(C("gabi", 8)))
    assert mu.view(s, 1)["penalty"] == "gabi"
    s, ev = act(s, 1, PASS)
    assert kinds(ev) == ["passed", "gabi_gifts"]
    order = []
    while s["phase"] == "give":
        giver = mu.to_act(s)[0]
        order.append(giver)
        card = mu.legal_actions(s, giver)[0]["card"]
        s, ev = act(s, giver, give(card))
        assert card in s["hands"][1]
        no_hidden_ids(s, ev)
    assert order == [0, 4, 3, 2]
    assert len(s["hands"][1]) == 7
    assert ev[-1] == {"kind": "lead", "seat": 1, "why": "gabi"}


def test_gabi_now_you_may_play_any_card_and_play_continues_to_the_left():
    s = gabi_state(3)
    s, _ = act(s, 0, play(C("gabi", 8)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, give(C("bibi", 1)))
    s, _ = act(s, 2, give(C("rosita", 5)))
    assert mu.to_act(s) == (1,) and s["lead"]
    assert len(mu.legal_actions(s, 1)) == 5  # any of its 5 cards, no pass (ruling)
    s, _ = act(s, 1, play(C("rosita", 5)))
    assert mu.to_act(s) == (2,)


def test_ruling_the_giver_chooses_the_card_and_the_gift_stays_secret():
    s = gabi_state(3)
    s, _ = act(s, 0, play(C("gabi", 8)))
    s, _ = act(s, 1, PASS)
    assert mu.legal_actions(s, 0) == [give(C("bibi", 1)), give(C("rubi", 1))]
    s, ev = act(s, 0, give(C("rubi", 1)))
    assert ev[0] == {"kind": "gave", "seat": 0, "to": 1, "nothing": False}
    assert mu.describe(ev[0]) == "Player 1 gave Player 2 a card."
    for seat in (0, 2, None):
        assert C("rubi", 1) not in json.dumps(mu.view(s, seat))
    received = mu.view(s, 1)["received"]
    assert [(r["from"], r["card"]["id"]) for r in received] == [(0, C("rubi", 1))]


def test_ruling_a_giver_with_only_one_card_keeps_it():
    s = gabi_state(3)
    s["hands"][2] = [C("rosita", 5)]
    s["box"].append(C("rosita", 6))
    s, _ = act(s, 0, play(C("gabi", 8)))
    s, _ = act(s, 1, PASS)
    s, ev = act(s, 0, give(C("bibi", 1)))
    assert ev[1] == {"kind": "gave", "seat": 2, "to": 1, "nothing": True}
    assert "keeps it" in mu.describe(ev[1])
    assert ev[-1]["kind"] == "lead" and s["hands"][2] == [C("rosita", 5)]


# ------------------------------------------------------------------------------------------
# Lupita
# ------------------------------------------------------------------------------------------
def lupita_state():
    return arrange(
        [
            [
                C("lupita", 9),
                C("rubi", 2),
                C("bibi", 3),
                C("gabi", 4),
                C("rosita", 4),
                C("bibi", 7),
                mu.SPIRIT,
            ],
            [C("bibi", 5), C("rubi", 6)],
            [C("rosita", 6), C("rosita", 8)],
        ],
        pile=[mu.START, C("lupita", 5)],
    )


def test_lupita_example_play_any_other_lupita_or_any_other_9():
    hand = [C("lupita", 2), C("rubi", 9), C("bibi", 9), C("bibi", 10), mu.SPIRIT]
    s = arrange([hand, [C("bibi", 2)], [C("bibi", 3)]], pile=[mu.START, C("lupita", 9)])
    plays = [a["card"] for a in mu.legal_actions(s, 0) if a["type"] == "play"]
    assert sorted(plays) == sorted([C("lupita", 2), C("rubi", 9), C("bibi", 9), mu.SPIRIT])


def test_lupita_if_you_do_not_play_on_it_the_previous_player_discards_a_straight():
    s = lupita_state()
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, ev = act(s, 1, PASS)
    assert kinds(ev) == ["passed", "lupita_straight"] and ev[1]["seat"] == 0
    assert mu.to_act(s) == (0,)
    legal = mu.legal_actions(s, 0)
    assert mu.SPIRIT not in [a.get("card") for a in legal]  # the Spirit has no number
    assert legal[-1] == NO_STRAIGHT
    s, ev = act(s, 0, add(C("bibi", 3)))
    assert mu.view(s, 2)["straight"]["cards"][0]["id"] == C("bibi", 3)  # laid down face up
    assert mu.legal_actions(s, 0) == [
        add(C("rubi", 2)),
        add(C("gabi", 4)),
        add(C("rosita", 4)),
        DONE,
    ]
    with pytest.raises(IllegalAction, match="just before or just after"):
        mu.apply(s, 0, add(C("bibi", 7)))
    s, _ = act(s, 0, add(C("rubi", 2)))
    s, ev = act(s, 0, add(C("rosita", 4)))  # nothing more fits: the straight is complete
    assert kinds(ev) == ["straight_card", "straight"]
    # with the highest card on top
    assert s["pile"][-3:] == [C("rubi", 2), C("bibi", 3), C("rosita", 4)]
    # the current player may now play on the new top card
    assert mu.to_act(s) == (1,)
    assert mu.legal_actions(s, 1) == [play(C("bibi", 5)), PASS]


def test_lupita_the_straight_can_be_just_one_card_any_mix_of_girls():
    s = lupita_state()
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, add(C("rosita", 4)))
    s, ev = act(s, 0, DONE)
    assert kinds(ev) == ["straight"] and s["pile"][-1] == C("rosita", 4)
    assert mu.to_act(s) == (1,)


def test_ruling_the_straight_may_be_declined_then_play_goes_on_after_the_passer():
    s = lupita_state()
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, ev = act(s, 0, NO_STRAIGHT)
    assert kinds(ev) == ["no_straight"] and mu.to_act(s) == (2,)
    s, ev = act(s, 2, PASS)  # everybody passed after the Lupita: its player plays any card
    assert ev[-1] == {"kind": "lead", "seat": 0, "why": "all_passed"}


def test_ruling_a_started_straight_cannot_be_taken_back_or_declined():
    s = lupita_state()
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    with pytest.raises(IllegalAction, match="at least one card"):
        mu.apply(s, 0, DONE)
    with pytest.raises(IllegalAction, match="no number"):
        mu.apply(s, 0, add(mu.SPIRIT))
    s, _ = act(s, 0, add(C("bibi", 3)))
    with pytest.raises(IllegalAction, match="already started"):
        mu.apply(s, 0, NO_STRAIGHT)


def test_ruling_emptying_your_hand_with_a_straight_wins():
    s = arrange(
        [[C("lupita", 9), C("bibi", 3), C("gabi", 4)], [C("bibi", 5)], [C("rosita", 6)]],
        pile=[mu.START, C("lupita", 5)],
    )
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, add(C("gabi", 4)))
    s, ev = act(s, 0, add(C("bibi", 3)))
    assert kinds(ev) == ["straight_card", "straight", "game_over"]
    assert mu.outcome(s)["winners"] == [0]


def test_ruling_after_a_pass_only_the_lupita_player_gets_to_discard():
    s = arrange(
        [
            [C("lupita", 9), C("rubi", 2)],
            [C("lupita", 1), C("rubi", 6)],
            [C("rosita", 6), C("rosita", 8)],
        ],
        pile=[mu.START, C("lupita", 5)],
    )
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, play(C("lupita", 1)))
    s, ev = act(s, 2, PASS)
    assert ev[-1]["kind"] == "lupita_straight" and ev[-1]["seat"] == 1
    s = lupita_state()
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, NO_STRAIGHT)
    s, ev = act(s, 2, PASS)
    assert "lupita_straight" not in kinds(ev)


def test_ruling_a_lupita_on_top_of_the_straight_punishes_another_pass():
    s = arrange(
        [
            [C("lupita", 9), C("bibi", 3), C("lupita", 4), C("rubi", 7)],
            [C("bibi", 5), C("rubi", 6)],
            [C("rosita", 6), C("rosita", 8)],
        ],
        pile=[mu.START, C("lupita", 5)],
    )
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, add(C("bibi", 3)))
    s, _ = act(s, 0, add(C("lupita", 4)))
    assert mu.to_act(s) == (1,) and mu.view(s, 1)["penalty"] == "lupita"
    s, ev = act(s, 1, PASS)
    assert ev[-1]["kind"] == "lupita_straight" and mu.to_act(s) == (0,)


def test_ruling_a_gabi_on_top_of_the_straight_punishes_a_pass():
    s = arrange(
        [
            [C("lupita", 9), C("bibi", 3), C("gabi", 4), C("rubi", 7)],
            [C("bibi", 6), C("rubi", 6)],
            [C("rosita", 6), C("rosita", 8)],
        ],
        pile=[mu.START, C("lupita", 5)],
    )
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, add(C("bibi", 3)))
    s, _ = act(s, 0, add(C("gabi", 4)))
    s, ev = act(s, 1, PASS)
    assert kinds(ev)[:2] == ["passed", "gabi_gifts"]
    assert ev[2] == {"kind": "gave", "seat": 0, "to": 1, "nothing": True}  # one card left
    assert mu.to_act(s) == (2,)


def test_ruling_a_rubi_on_top_of_the_straight_starts_a_contest():
    s = arrange(
        [
            [C("lupita", 9), C("bibi", 3), C("rubi", 4), C("gabi", 7)],
            [C("bibi", 6), C("rubi", 6)],
            [C("rosita", 6), C("rosita", 8)],
        ],
        pile=[mu.START, C("lupita", 5)],
    )
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    s, _ = act(s, 0, add(C("bibi", 3)))
    s, ev = act(s, 0, add(C("rubi", 4)))
    assert kinds(ev) == ["straight_card", "straight", "contest_started"]
    assert ev[-1]["seat"] == 0 and mu.to_act(s) == (0, 1, 2)


# ------------------------------------------------------------------------------------------
# Spirit
# ------------------------------------------------------------------------------------------
def test_spirit_plays_on_any_card_then_the_next_player_can_play_any_card():
    for top in (C("rosita", 11), C("gabi", 3), C("lupita", 7), C("bibi", 4)):
        s = arrange(
            [[mu.SPIRIT, C("bibi", 2)], [C("rubi", 1), C("rosita", 9)], [C("gabi", 5)]],
            pile=[mu.START, top],
        )
        assert play(mu.SPIRIT) in mu.legal_actions(s, 0)
        s, _ = act(s, 0, play(mu.SPIRIT))
        assert mu.legal_actions(s, 1) == [play(C("rubi", 1)), play(C("rosita", 9)), PASS]
        # ruling: passing is allowed, and the Spirit takes any card from the next player too
        s, _ = act(s, 1, PASS)
        assert mu.legal_actions(s, 2) == [play(C("gabi", 5)), PASS]


# ------------------------------------------------------------------------------------------
# A game always ends
# ------------------------------------------------------------------------------------------
def test_ruling_every_game_ends_by_the_rules_without_a_ply_cap():
    """Every round of passes ends with a forced play, so hands shrink: at most 55 cards leave
    the hands, each after fewer than 2 x 5 + 12 plies."""
    for seed in range(60):
        players = 3 + seed % 3
        s = mu.setup(players, seed, {})
        rng = random.Random(seed)
        levels = ["random", "heuristic"]
        plies = 0
        while mu.to_act(s):
            seat = mu.to_act(s)[-1]
            legal = mu.legal_actions(s, seat)
            s, _ = mu.apply(s, seat, mu.bot_action(mu.view(s, seat), legal, levels[seat % 2], rng))
            plies += 1
        assert mu.outcome(s) is not None
        assert plies < 55 * 22


# ------------------------------------------------------------------------------------------
# View, events, serialisation
# ------------------------------------------------------------------------------------------
def test_view_shows_the_top_of_the_pile_what_it_asks_for_and_whose_turn():
    s = arrange([[C("bibi", 2)], [C("gabi", 5)], [C("rubi", 7)]], pile=[mu.START, C("gabi", 6)])
    v = mu.view(s, 1)
    assert v["top"]["id"] == C("gabi", 6)
    assert v["asks"] == {
        "rule": "same_number_or_girl",
        "number": 6,
        "girl": "gabi",
        "text": "Play any 6 or any Gabi, or the Spirit.",
    }
    assert v["turn"] == 0 and v["to_act"] == [0] and v["penalty"] == "gabi"
    assert v["hand_counts"] == [1, 1, 1]
    assert mu.view(mu.setup(3, 0, {}), 0)["asks"]["text"] == "Play any 2, or the Spirit."


def test_dump_and_load_round_trip_and_load_rejects_a_bad_state():
    s = contest_state(3)
    s, _ = act(s, 0, play(C("rubi", 5)))
    s, _ = act(s, 1, choose(C("gabi", 3)))
    assert mu.load(json.loads(json.dumps(mu.dump(s)))) == s
    d = mu.dump(s)
    d["box"] = d["box"][1:]
    with pytest.raises(ValueError):
        mu.load(d)
    with pytest.raises(ValueError):
        mu.load({"game": "multiplipotion"})
    with pytest.raises(ValueError):
        mu.load({"game": "muertoons"})


def test_unknown_and_misplaced_actions_are_refused_kindly():
    s = mu.setup(3, 1, {})
    for bad in (None, {}, {"type": "dance"}, {"type": "play"}, {"type": "play", "card": 3}):
        with pytest.raises(IllegalAction):
            mu.apply(s, 0, bad)
    with pytest.raises(IllegalAction, match="not your turn"):
        mu.apply(s, 1, PASS)
    with pytest.raises(IllegalAction, match="cannot do that now"):
        mu.apply(s, 0, choose(s["hands"][0][0]))
    with pytest.raises(IllegalAction, match="not in your hand"):
        mu.apply(s, 0, play(s["hands"][1][0]))


def test_describe_says_every_event_in_a_sentence():
    for seed in range(8):
        s = mu.setup(4, seed, {})
        rng = random.Random(seed)
        while mu.to_act(s):
            seat = mu.to_act(s)[0]
            legal = mu.legal_actions(s, seat)
            s, events = mu.apply(s, seat, mu.bot_action(mu.view(s, seat), legal, "random", rng))
            for e in events:
                text = mu.describe(e)
                assert text.endswith((".", "!")) and "mu-" not in text


# ------------------------------------------------------------------------------------------
# Bots
# ------------------------------------------------------------------------------------------
def bot(s, seat, level="heuristic"):
    return mu.bot_action(mu.view(s, seat), mu.legal_actions(s, seat), level, random.Random(0))


def test_heuristic_keeps_the_spirit_for_an_11():
    s = arrange(
        [[mu.SPIRIT, C("gabi", 3), C("bibi", 5), C("rubi", 1)], [C("bibi", 2)], [C("bibi", 3)]],
        pile=[mu.START, C("bibi", 4)],
    )
    assert bot(s, 0) == play(C("bibi", 5))
    s["pile"] = [mu.START, C("rosita", 7)]
    s["box"].append(C("bibi", 4))
    s["box"].remove(C("rosita", 7))
    assert bot(s, 0) == PASS


def test_heuristic_plays_a_high_rubi_in_a_contest_only_when_it_can_win():
    s = contest_state(3)
    s["hands"][1] = [C("rubi", 9), C("gabi", 3), C("bibi", 2)]
    s["box"].remove(C("bibi", 2))
    s, _ = act(s, 0, play(C("rubi", 5)))
    # Rubi 10 and 11 are still unseen: the Rubi 9 may lose, so an awkward card goes in
    assert bot(s, 1) == choose(C("bibi", 2))
    s["pile"] = [*s["pile"], C("rubi", 10), C("rubi", 11)]
    s["box"] = [c for c in s["box"] if c not in (C("rubi", 10), C("rubi", 11))]
    s["box"].remove(mu.SPIRIT)
    s["pile"].insert(1, mu.SPIRIT)
    assert bot(s, 1) == choose(C("rubi", 9))


def test_heuristic_uses_straights_fully():
    s = lupita_state()
    s, _ = act(s, 0, play(C("lupita", 9)))
    s, _ = act(s, 1, PASS)
    while s["phase"] == "straight":
        s, _ = act(s, 0, bot(s, 0))
    # the longest straight, 2-3-4, with the Gabi 4 on top: it punishes the next pass
    assert s["pile"][-3:] == [C("rubi", 2), C("bibi", 3), C("gabi", 4)]
    assert s["hands"][0] == [C("rosita", 4), C("bibi", 7), mu.SPIRIT]


def test_heuristic_plays_an_11_to_win_the_lead_back():
    s = arrange(
        [[C("rosita", 11), C("bibi", 1), C("gabi", 6)], [C("bibi", 2)], [C("bibi", 3)]],
        lead=True,
    )
    assert bot(s, 0) == play(C("rosita", 11))


def test_bots_choose_only_legal_actions_and_reject_bad_levels():
    s = mu.setup(3, 4, {})
    legal = mu.legal_actions(s, 0)
    for level in mu.LEVELS:
        assert bot(s, 0, level) in legal
    with pytest.raises(ValueError):
        mu.bot_action(mu.view(s, 0), legal, "wizard", random.Random(0))
    with pytest.raises(ValueError):
        mu.bot_action(mu.view(s, 0), [], "random", random.Random(0))


def test_heuristic_beats_random_players():
    r = simulate.run(mu, 150, 11, {}, ["heuristic", "random", "random", "random"])
    assert r["finished"] == 150
    assert r["wins_by_seat"][0] > 2 * max(r["wins_by_seat"][1:])


def test_heuristic_games_keep_the_cards_and_leak_nothing():
    """The generic protocol tests play random bots; here the heuristic bots play, contests and
    gifts included, with the leak checks after every move."""
    for seed in range(12):
        players = 3 + seed % 3
        s = mu.setup(players, seed, {})
        rng = random.Random(seed)
        while mu.to_act(s):
            acting = mu.to_act(s)
            seat = acting[rng.randrange(len(acting))]
            legal = mu.legal_actions(s, seat)
            action = mu.bot_action(mu.view(s, seat), legal, "heuristic", rng)
            assert action in legal
            s, events = mu.apply(s, seat, action)
            assert sorted(mu.cards(s)) == sorted(mu.ALL_IDS)
            no_hidden_ids(s, events)
            views = {p: json.dumps(mu.view(s, p)) for p in [*range(players), None]}
            for other in range(players):
                for token in mu.private(s, other):
                    for p, text in views.items():
                        assert (token in text) == (p == other), (token, p, other)
            for token in s["box"]:
                assert all(token not in text for text in views.values())
        assert mu.outcome(s) is not None
