"""MultipliPotion: one test per rulebook passage, per FAQ answer and per ruling.

Player 1 of the rulebook is seat 0, player 2 is seat 1.
"""

import json
import random
from itertools import combinations

import pytest

from games.engine import IllegalAction
from games.multiplipotion import engine as mp

GREEN_FACTS = [(a, b) for a in range(2, 6) for b in range(a, 6)]
ALL_FACTS = [(a, b) for a in range(2, 10) for b in range(a, 10)]
PURPLE_FACTS = [f for f in ALL_FACTS if f not in GREEN_FACTS]


def C(potion: int, monster: int) -> str:
    """The id of the one card with this potion and this monster."""
    found = [c for c, v in mp.CARDS.items() if v["potion"] == potion and v["monster"] == monster]
    assert len(found) == 1, (potion, monster)
    return found[0]


def arrange(
    areas=((), ()),
    hands=((), ()),
    trophies=((), ()),
    pile=(),
    rest="pile",
    current=0,
    phase="place",
    tier="full",
    **fields,
):
    """A state with the given cards; the other cards of the tier go under the pile (or away)."""
    s = mp.setup(2, 0, {"tier": tier})
    used = [*pile]
    for group in (areas, hands, trophies):
        for lst in group:
            used.extend(lst)
    assert len(used) == len(set(used))
    others = [c for c in mp.TIER_IDS[tier] if c not in used]
    s.update(
        areas=[list(a) for a in areas],
        hands=[list(h) for h in hands],
        trophies=[list(t) for t in trophies],
        pile=list(pile) + (others if rest == "pile" else []),
        current=current,
        phase=phase,
        **fields,
    )
    return s


def act(state, seat, action):
    return mp.apply(state, seat, action)


def kinds(events):
    return [e["kind"] for e in events]


def capture(a, b, m):
    return {"type": "capture", "potions": [a, b], "monster": m}


def challenge(a, b, m):
    return {"type": "challenge", "potions": [a, b], "monster": m}


END = {"type": "end_turn"}


# ------------------------------------------------------------------------------------------
# Contents / deck design rulings
# ------------------------------------------------------------------------------------------
def test_contents_60_cards_36_purple_and_24_green():
    colours = [c["colour"] for c in mp.CARDS.values()]
    assert len(colours) == 60
    assert colours.count("purple") == 36
    assert colours.count("green") == 24


def test_ruling_misprint_purple_setup_count_40_is_36():
    s = mp.setup(2, 1, {"tier": "purple"})
    assert len(mp.cards(s)) == 36
    assert all(mp.CARDS[c]["colour"] == "purple" for c in mp.cards(s))


def test_ruling_card_ids_are_unique_tokens():
    ids = list(mp.CARDS)
    assert ids[:24] == [f"mp-g{i:02d}" for i in range(1, 25)]
    assert ids[24:] == [f"mp-p{i:02d}" for i in range(1, 37)]
    for a, b in combinations(ids, 2):
        assert a not in b and b not in a
    for c in mp.CARDS.values():
        assert set(c) == {"id", "potion", "monster", "colour"}


def test_ruling_green_deck_tables_of_2_to_5():
    green = [c for c in mp.CARDS.values() if c["colour"] == "green"]
    assert len(green) == 24
    potions = [c["potion"] for c in green]
    assert {p: potions.count(p) for p in range(2, 6)} == {2: 6, 3: 6, 4: 6, 5: 6}
    products = {a * b for a, b in GREEN_FACTS}
    monsters = {c["monster"] for c in green}
    assert monsters == products  # only green products, each at least once


def test_ruling_purple_deck_tables_of_6_to_9():
    purple = [c for c in mp.CARDS.values() if c["colour"] == "purple"]
    assert len(purple) == 36
    potions = [c["potion"] for c in purple]
    assert set(potions) == set(range(2, 10))  # every factor needed by purple facts
    assert sum(1 for p in potions if p >= 6) > sum(1 for p in potions if p <= 5)
    assert len(PURPLE_FACTS) == 26 and len(GREEN_FACTS) == 10
    assert {c["monster"] for c in purple} == {a * b for a, b in PURPLE_FACTS}


@pytest.mark.parametrize("tier", ["green", "purple", "full"])
def test_ruling_every_monster_capturable_within_its_tier(tier):
    ids = mp.TIER_IDS[tier]
    reachable = {mp.POTION[a] * mp.POTION[b] for a, b in combinations(ids, 2)}
    for c in ids:
        assert mp.MONSTER[c] in reachable, c


def test_ruling_full_deck_holds_all_36_facts():
    monsters = {c["monster"] for c in mp.CARDS.values()}
    potions = {c["potion"] for c in mp.CARDS.values()}
    assert len(ALL_FACTS) == 36
    for a, b in ALL_FACTS:
        assert a * b in monsters and a in potions and b in potions


def test_ruling_full_tier_is_green_plus_purple():
    assert set(mp.TIER_IDS["full"]) == set(mp.TIER_IDS["green"]) | set(mp.TIER_IDS["purple"])
    assert mp.OPTIONS["tier"]["default"] == "full"


# ------------------------------------------------------------------------------------------
# Setup
# ------------------------------------------------------------------------------------------
def test_setup_two_players_sit_facing_each_other():
    for bad in (1, 3, 0, "2"):
        with pytest.raises(ValueError):
            mp.setup(bad, 0, {})
    assert mp.MIN_PLAYERS == mp.MAX_PLAYERS == 2


def test_setup_select_the_difficulty_level():
    assert mp.setup(2, 0, {})["tier"] == "full"
    for tier, n in (("green", 24), ("purple", 36), ("full", 60)):
        s = mp.setup(2, 5, {"tier": tier})
        assert sorted(mp.cards(s)) == sorted(mp.TIER_IDS[tier])
        assert len(mp.cards(s)) == n
    with pytest.raises(ValueError):
        mp.setup(2, 0, {"tier": "rainbow"})
    with pytest.raises(ValueError):
        mp.setup(2, 0, {"colour": "green"})


def test_setup_one_card_face_up_each_3_in_hand_rest_is_pile():
    s = mp.setup(2, 7, {"tier": "green"})
    assert [len(a) for a in s["areas"]] == [1, 1]
    # seat 0 has already drawn the first card of its turn
    assert [len(h) for h in s["hands"]] == [4, 3]
    assert len(s["pile"]) == 24 - 2 - 6 - 1
    assert all(len(t) == 0 for t in s["trophies"])


def test_setup_shuffle_comes_from_the_seed():
    assert mp.setup(2, 3, {}) == mp.setup(2, 3, {})
    assert mp.setup(2, 3, {})["pile"] != mp.setup(2, 4, {})["pile"]


def test_start_of_game_youngest_begins_seat_0_begins():
    s = mp.setup(2, 11, {})
    assert mp.to_act(s) == (0,)
    assert mp.view(s, 0)["turn"] == 0


# ------------------------------------------------------------------------------------------
# Step 1: draw and place
# ------------------------------------------------------------------------------------------
def test_step1_draw_a_card_and_choose_one_of_the_4_cards_in_hand():
    s = mp.setup(2, 2, {})
    assert len(s["hands"][0]) == 4
    legal = mp.legal_actions(s, 0)
    assert [a["card"] for a in legal if a["type"] == "place"] == s["hands"][0]
    s2, ev = act(s, 0, legal[0])
    assert legal[0]["card"] in s2["areas"][0]
    assert kinds(ev) == ["placed"]
    s3, ev = act(s2, 0, END)
    assert "drew" in kinds(ev)
    assert len(s3["hands"][1]) == 4 and mp.to_act(s3) == (1,)


def test_step1_example_potion_9_placed_needs_potion_7_for_monster_63():
    s = arrange(
        areas=([C(9, 18)], [C(2, 63)]),
        hands=([C(7, 14), C(2, 4), C(3, 4), C(4, 6)], [C(5, 6), C(5, 9), C(5, 15)]),
    )
    v = mp.view(s, 0)
    assert [c["monster"] for c in v["areas"][1]] == [63]
    s, _ = act(s, 0, {"type": "place", "card": C(7, 14)})
    assert capture(C(9, 18), C(7, 14), C(2, 63)) in mp.legal_actions(s, 0)


# ------------------------------------------------------------------------------------------
# Step 2: capture
# ------------------------------------------------------------------------------------------
def test_step2_capture_with_two_of_your_own_potions():
    s = arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    _, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert ev[0] == {
        "kind": "fact",
        "seat": 0,
        "a": 9,
        "b": 7,
        "answer": 63,
        "correct": True,
        "context": "capture",
        "options": [63],  # the monsters the player could tap: a claim's board (public)
    }
    assert ev[1]["kind"] == "captured"


def test_step2_how_capture_is_carried_out_trophy_and_under_the_pile():
    s = arrange(
        areas=([C(9, 18), C(4, 6), C(7, 14)], [C(2, 63), C(3, 21)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    s2, _ = act(s, 0, capture(C(7, 14), C(9, 18), C(2, 63)))
    assert s2["trophies"][0] == [C(2, 63)]
    assert s2["pile"][-2:] == [C(7, 14), C(9, 18)]  # bottom, in the order named
    assert s2["pile"][:-2] == s["pile"]
    assert s2["areas"] == [[C(4, 6)], [C(3, 21)]]
    v = mp.view(s2, 1)
    assert [c["id"] for c in v["trophies"][0]] == [C(2, 63)]


def test_step2_example_no_cards_left_in_play_areas():
    s = arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    s2, _ = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert s2["areas"] == [[], []]


# ------------------------------------------------------------------------------------------
# Step 3: end of turn
# ------------------------------------------------------------------------------------------
def test_step3_end_the_turn_with_3_cards_in_hand():
    s = mp.setup(2, 9, {})
    for _ in range(6):
        seat = mp.to_act(s)[0]
        s, _ = act(s, seat, mp.legal_actions(s, seat)[0])
        legal = mp.legal_actions(s, seat)
        s, ev = act(s, seat, legal[-1])  # end_turn is listed last
        assert ev[-2 if "drew" in kinds(ev) else -1]["kind"] == "turn_ended"
        assert len(s["hands"][seat]) == 3


# ------------------------------------------------------------------------------------------
# End of the game
# ------------------------------------------------------------------------------------------
def test_end_of_game_five_captured_monsters_wins_at_once():
    trophies = [C(2, 4), C(3, 4), C(4, 6), C(5, 6)]
    s = arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63)]),
        hands=([C(2, 8)], [C(5, 9)]),
        trophies=(trophies, []),
        phase="capture_or_end",
    )
    s2, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert kinds(ev)[-1] == "game_over"
    assert mp.outcome(s2) == {
        "winners": [0],
        "ranking": [[0], [1]],
        "reason": "five_trophies",
        "trophies": [5, 0],
    }
    assert mp.to_act(s2) == () and mp.legal_actions(s2, 0) == []
    with pytest.raises(IllegalAction):
        act(s2, 0, END)
    assert mp.view(s2, None)["outcome"]["winners"] == [0]


# ------------------------------------------------------------------------------------------
# FAQ
# ------------------------------------------------------------------------------------------
def test_faq_none_of_my_cards_lets_me_capture_i_still_place():
    s = arrange(areas=([C(2, 4)], [C(3, 8)]), hands=([C(9, 72), C(8, 72)], [C(5, 6)]))
    assert {a["type"] for a in mp.legal_actions(s, 0)} == {"place"}
    with pytest.raises(IllegalAction, match="Place a card first"):
        act(s, 0, END)


def test_faq_play_continues_with_no_cards_placed():
    s = arrange(areas=([], []), hands=([C(2, 4), C(3, 8)], [C(5, 6)]))
    s, _ = act(s, 0, {"type": "place", "card": C(2, 4)})
    assert mp.legal_actions(s, 0) == [END]
    s, _ = act(s, 0, END)
    assert mp.to_act(s) == (1,) and mp.outcome(s) is None


def test_faq_capture_with_placed_cards_still_place_first():
    s = arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63)]),
        hands=([C(2, 4), C(3, 4)], [C(5, 6)]),
    )
    with pytest.raises(IllegalAction, match="Place a card first, then capture"):
        act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert all(a["type"] == "place" for a in mp.legal_actions(s, 0))
    s, _ = act(s, 0, {"type": "place", "card": C(2, 4)})
    s, _ = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert s["trophies"][0] == [C(2, 63)]


def test_faq_no_limit_to_cards_placed():
    s = mp.setup(2, 4, {"tier": "purple"})
    placed = 0
    while mp.outcome(s) is None and placed < 20:
        seat = mp.to_act(s)[0]
        s, _ = act(s, seat, mp.legal_actions(s, seat)[0])
        s, _ = act(s, seat, END)  # never capture
        placed += 1
    assert len(s["areas"][0]) + len(s["areas"][1]) == 22


def test_faq_only_2_potions_are_multiplied():
    s = arrange(
        areas=([C(2, 4), C(3, 8), C(4, 6)], [C(3, 21), C(8, 36)]),
        hands=([C(5, 6)], [C(5, 9)]),
        phase="capture_or_end",
    )
    with pytest.raises(IllegalAction, match="exactly two of your potions"):
        act(s, 0, {"type": "capture", "potions": [C(2, 4), C(3, 8), C(4, 6)], "monster": C(3, 21)})
    # A monster tapped before any potion (the form sends no potions at all): the same advice.
    with pytest.raises(IllegalAction, match="exactly two of your potions"):
        act(s, 0, {"type": "capture", "monster": C(3, 21)})


def test_a_challenge_without_two_potions_asks_for_two_of_theirs():
    s = _missed_position()
    s, _ = act(s, 0, END)
    for potions in ([], [C(7, 14)]):
        with pytest.raises(IllegalAction, match="exactly two of their potions"):
            act(s, 1, {"type": "challenge", "potions": potions, "monster": C(2, 63)})
    with pytest.raises(IllegalAction, match="exactly two of their potions"):
        act(s, 1, {"type": "challenge", "monster": C(2, 63)})
    assert all(len(a.get("potions", [1, 2])) == 2 for a in mp.legal_actions(s, 0))


def test_faq_only_one_capture_per_turn():
    s = arrange(
        areas=([C(3, 8), C(4, 6), C(4, 15), C(5, 9)], [C(4, 12), C(3, 20)]),
        hands=([C(9, 72)], [C(5, 25)]),
        phase="capture_or_end",
    )
    s, _ = act(s, 0, capture(C(3, 8), C(4, 6), C(4, 12)))
    assert mp.legal_actions(s, 0) == [END]
    assert mp.view(s, 0)["phase"] == "end"
    with pytest.raises(IllegalAction, match="only one monster"):
        act(s, 0, capture(C(4, 15), C(5, 9), C(3, 20)))


def test_faq_cannot_capture_with_cards_from_hand():
    s = arrange(
        areas=([C(9, 18)], [C(2, 63)]),
        hands=([C(7, 14), C(2, 4)], [C(5, 6)]),
    )
    s, _ = act(s, 0, {"type": "place", "card": C(2, 4)})
    with pytest.raises(IllegalAction, match="your own play area"):
        act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    with pytest.raises(IllegalAction, match="already placed"):
        act(s, 0, {"type": "place", "card": C(7, 14)})


def _missed_position(pile=(), rest="pile"):
    """Seat 0 has potions 9 and 7 placed and seat 1 has a monster 63; seat 0 is about to end."""
    return arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63), C(3, 21)]),
        hands=([C(2, 4), C(3, 4), C(4, 6)], [C(5, 6), C(5, 9), C(5, 15)]),
        pile=pile,
        rest=rest,
        phase="capture_or_end",
    )


def test_faq_forgot_to_capture_opponent_notices_vigilance():
    top = C(8, 56)
    s = _missed_position(pile=[C(6, 64), top])
    s, ev = act(s, 0, END)
    assert ev[0] == {
        "kind": "fact",
        "seat": 0,
        "a": 9,  # as the potions lie in seat 0's area: 9 placed before 7
        "b": 7,
        "answer": None,
        "correct": False,
        "context": "missed",
    }
    assert s["missed"] is True
    assert mp.to_act(s) == (1,)
    assert C(6, 64) in s["hands"][1]  # seat 1 drew
    v = mp.view(s, 1)
    assert v["can_challenge"] is True
    legal = mp.legal_actions(s, 1)
    ch = challenge(C(9, 18), C(7, 14), C(2, 63))
    assert ch in legal
    s, ev = act(s, 1, ch)
    assert ev[0]["kind"] == "fact" and ev[0]["context"] == "challenge" and ev[0]["correct"]
    assert ev[0]["seat"] == 1 and (ev[0]["a"], ev[0]["b"], ev[0]["answer"]) == (9, 7, 63)
    assert ev[1] == {"kind": "challenge", "seat": 1, "against": 0, "correct": True}
    assert mp.to_act(s) == (0,) and s["phase"] == "forced_capture"
    assert mp.legal_actions(s, 1) == []
    assert {a["type"] for a in mp.legal_actions(s, 0)} == {"capture"}
    with pytest.raises(IllegalAction):
        act(s, 0, END)
    with pytest.raises(IllegalAction, match="not your turn"):
        act(s, 1, {"type": "place", "card": C(5, 6)})
    # a wrong claim: they try again
    s, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(3, 21)))
    assert ev[0]["correct"] is False and mp.to_act(s) == (0,)
    s, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert kinds(ev) == ["fact", "captured", "vigilance_trophy"]
    assert s["trophies"] == [[C(2, 63)], [top]]
    assert ev[-1]["card"]["id"] == top
    # "This action does not count as a turn": seat 1 goes on with its own turn.
    assert mp.to_act(s) == (1,) and s["phase"] == "place" and s["current"] == 1
    assert mp.view(s, 1)["can_challenge"] is False
    assert all(a["type"] == "place" for a in mp.legal_actions(s, 1))


def test_faq_no_cards_left_the_player_with_most_monsters_wins():
    s = arrange(
        areas=([C(2, 4)], [C(3, 8)]),
        hands=([], []),
        trophies=([C(4, 6), C(5, 6)], [C(2, 8)]),
        rest=None,
        phase="capture_or_end",
    )
    s, ev = act(s, 0, END)
    assert kinds(ev)[-1] == "game_over"
    assert mp.outcome(s)["winners"] == [0]
    assert mp.outcome(s)["reason"] == "cards_out"
    assert mp.outcome(s)["ranking"] == [[0], [1]]


def test_faq_no_cards_left_tie_no_winner():
    s = arrange(
        areas=([C(2, 4)], [C(3, 8)]),
        trophies=([C(4, 6)], [C(2, 8)]),
        rest=None,
        current=1,
        phase="capture_or_end",
    )
    s, ev = act(s, 1, END)
    assert mp.outcome(s) == {
        "winners": [],
        "ranking": [[0, 1]],
        "reason": "cards_out",
        "trophies": [1, 1],
    }
    assert mp.describe(ev[-1]) == ""  # the board tells the result, not the log


def test_faq_no_penalty_for_a_mistake_in_a_multiplication():
    s = arrange(
        areas=([C(7, 14), C(8, 16)], [C(6, 54), C(9, 56)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    s2, ev = act(s, 0, capture(C(7, 14), C(8, 16), C(6, 54)))
    assert ev == [
        {
            "kind": "fact",
            "seat": 0,
            "a": 7,
            "b": 8,
            "answer": 54,
            "correct": False,
            "context": "capture",
            "options": [54, 56],
        }
    ]
    for key in ("areas", "hands", "trophies", "pile", "phase", "current"):
        assert s2[key] == s[key]
    assert mp.view(s2, 1)["last"]["answer"] == 54
    assert mp.view(s2, 1)["last"]["product"] == 56
    assert "7 × 8 = 54. It is 56." in mp.describe(ev[0])
    # try again: right this time
    s3, ev = act(s2, 0, capture(C(7, 14), C(8, 16), C(9, 56)))
    assert ev[0]["correct"] is True and s3["trophies"][0] == [C(9, 56)]


# ------------------------------------------------------------------------------------------
# Rulings
# ------------------------------------------------------------------------------------------
def test_ruling_wrong_claim_keeps_the_turn_and_allows_ending():
    s = arrange(
        areas=([C(7, 14), C(8, 16)], [C(6, 54)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    s, _ = act(s, 0, capture(C(7, 14), C(8, 16), C(6, 54)))
    assert mp.to_act(s) == (0,) and s["wrong"] == [1, 0]
    assert END in mp.legal_actions(s, 0)
    s, ev = act(s, 0, END)
    assert [e for e in ev if e["kind"] == "fact"] == []  # nothing was missed
    assert mp.to_act(s) == (1,)


def test_ruling_legal_actions_list_every_claim_right_or_wrong():
    s = arrange(
        areas=([C(7, 14), C(8, 16), C(9, 18)], [C(6, 54), C(7, 64)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    claims = [a for a in mp.legal_actions(s, 0) if a["type"] == "capture"]
    assert len(claims) == 3 * 2
    assert mp.legal_actions(s, 0)[-1] == END


def test_ruling_missed_one_event_per_monster_value_in_the_monsters_order():
    s = arrange(
        areas=([C(2, 4), C(3, 8), C(6, 12), C(4, 6)], [C(9, 18), C(5, 12), C(4, 12)]),
        hands=([C(5, 6)], [C(5, 9)]),
        phase="capture_or_end",
    )
    s, ev = act(s, 0, END)
    facts = [(e["a"], e["b"]) for e in ev if e["kind"] == "fact"]
    # 18 first (it lies first), then 12 once for the two monsters 12 (2 x 6 and 3 x 4 make
    # it; 3 x 4 holds the 4, the card placed last).
    assert facts == [(3, 6), (3, 4)]
    assert all(e["context"] == "missed" and e["answer"] is None for e in ev[:2])


def _ended_without_capture(potions, monsters):
    """Seat 0 with these placed cards (oldest first) ends the turn; the missed facts."""
    s = arrange(
        areas=(potions, monsters),
        hands=([C(5, 6)], [C(5, 9)]),
        phase="capture_or_end",
    )
    _, ev = act(s, 0, END)
    return [(e["a"], e["b"]) for e in ev if e["kind"] == "fact" and e["context"] == "missed"]


def test_ruling_missed_fact_is_stored_in_the_order_the_potions_lie():
    # 8 placed before 7: the board offered 8 x 7, as a capture through the board would name it.
    assert _ended_without_capture([C(8, 16), C(7, 14)], [C(8, 56)]) == [(8, 7)]
    assert _ended_without_capture([C(7, 14), C(8, 16)], [C(8, 56)]) == [(7, 8)]
    assert _ended_without_capture([C(8, 16), C(2, 4), C(7, 14)], [C(8, 56)]) == [(8, 7)]


def test_ruling_a_missed_monster_is_charged_once_with_the_newest_pair():
    # Potions 3, 4, 6, 8 and a monster 24: one omission, not both 3 x 8 and 4 x 6. The pair
    # holding the card placed last (the newest on the board) is charged.
    monster = [C(6, 24)]
    assert _ended_without_capture([C(3, 8), C(4, 6), C(6, 12), C(8, 16)], monster) == [(3, 8)]
    assert _ended_without_capture([C(3, 8), C(8, 16), C(4, 6), C(6, 12)], monster) == [(4, 6)]
    # Neither pair holds the newest card (a 2): the pair whose later card is newer.
    five = [C(3, 8), C(4, 6), C(6, 12), C(8, 16), C(2, 4)]
    assert _ended_without_capture(five, monster) == [(3, 8)]
    # Two monsters of the same value are one missed product; two values are two omissions.
    two = [C(6, 24), C(7, 24), C(8, 56)]
    assert _ended_without_capture([C(3, 8), C(7, 14), C(8, 16)], two) == [(3, 8), (7, 8)]


def test_ruling_challenge_with_a_wrong_product_changes_nothing():
    s = _missed_position()
    s, _ = act(s, 0, END)
    before = s
    s, ev = act(s, 1, challenge(C(9, 18), C(7, 14), C(3, 21)))
    assert ev[0]["correct"] is False and ev[0]["context"] == "challenge"
    assert ev[1] == {"kind": "challenge", "seat": 1, "against": 0, "correct": False}
    for key in ("areas", "hands", "trophies", "pile", "phase", "current"):
        assert s[key] == before[key]
    # may try again, or just play on
    assert challenge(C(9, 18), C(7, 14), C(2, 63)) in mp.legal_actions(s, 1)
    s2, _ = act(s, 1, {"type": "place", "card": s["hands"][1][0]})
    assert not any(a["type"] == "challenge" for a in mp.legal_actions(s2, 1))


def test_ruling_challenge_only_before_placing():
    s = _missed_position()
    s, _ = act(s, 0, END)
    s, _ = act(s, 1, {"type": "place", "card": C(5, 6)})
    assert mp.view(s, 1)["can_challenge"] is False
    with pytest.raises(IllegalAction, match="start of your turn"):
        act(s, 1, challenge(C(9, 18), C(7, 14), C(2, 63)))


def test_ruling_challenge_names_opponent_potions_and_own_monster():
    s = _missed_position()
    s, _ = act(s, 0, END)
    with pytest.raises(IllegalAction, match="opponent's play area"):
        act(s, 1, challenge(C(9, 18), C(2, 63), C(2, 63)))
    with pytest.raises(IllegalAction, match="your own monsters"):
        act(s, 1, challenge(C(9, 18), C(7, 14), C(9, 18)))
    with pytest.raises(IllegalAction, match="two different"):
        act(s, 1, challenge(C(9, 18), C(9, 18), C(2, 63)))


def test_ruling_no_challenge_after_a_turn_with_a_capture():
    s = arrange(
        areas=([C(9, 18), C(7, 14), C(2, 4), C(3, 8)], [C(2, 63), C(3, 21), C(4, 6)]),
        hands=([C(3, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    s, _ = act(s, 0, capture(C(2, 4), C(3, 8), C(4, 6)))
    s, ev = act(s, 0, END)  # 9 x 7 = 63 still there, but only one capture a turn
    assert not [e for e in ev if e["kind"] == "fact"]
    assert mp.view(s, 1)["can_challenge"] is False
    assert not any(a["type"] == "challenge" for a in mp.legal_actions(s, 1))


def test_ruling_view_does_not_tell_that_a_capture_was_missed():
    missed = _missed_position()
    s1, _ = act(missed, 0, END)
    fine = arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 40), C(3, 21)]),
        hands=([C(2, 4), C(3, 4), C(4, 6)], [C(5, 6), C(5, 9), C(5, 15)]),
        phase="capture_or_end",
    )
    s2, _ = act(fine, 0, END)
    v1, v2 = mp.view(s1, 1), mp.view(s2, 1)
    assert v1["can_challenge"] is v2["can_challenge"] is True
    assert set(v1) == set(v2)
    assert "missed" not in json.dumps(v1)
    n1 = len([a for a in mp.legal_actions(s1, 1) if a["type"] == "challenge"])
    n2 = len([a for a in mp.legal_actions(s2, 1) if a["type"] == "challenge"])
    assert n1 == n2


def test_ruling_vigilance_with_an_empty_pile_gives_no_trophy():
    s = _missed_position(rest=None)
    s, ev = act(s, 0, END)
    assert "drew" not in kinds(ev) and s["pile"] == []
    s, _ = act(s, 1, challenge(C(7, 14), C(9, 18), C(2, 63)))
    s, ev = act(s, 0, capture(C(7, 14), C(9, 18), C(2, 63)))
    assert kinds(ev) == ["fact", "captured", "vigilance_trophy"]
    assert ev[-1]["card"] is None
    assert s["trophies"] == [[C(2, 63)], []]
    assert s["pile"] == [C(7, 14), C(9, 18)]  # the used potions are not taken
    assert mp.to_act(s) == (1,) and s["phase"] == "place"


def test_ruling_the_last_card_of_the_pile_is_the_vigilant_players_reward():
    """FAQ: "the other player takes the top card of the draw pile as a trophy". With one card
    left, the engine had already drawn it for the vigilant player's turn, so the reward was
    lost; that card was the pile's top: it is the reward (docs/rules, "The last card of the
    pile"), and the vigilant player plays on with the hand they had."""
    last = C(8, 56)
    s = _missed_position(pile=[last], rest=None)
    s, ev = act(s, 0, END)
    assert s["pile"] == [] and last in s["hands"][1]
    s, _ = act(s, 1, challenge(C(7, 14), C(9, 18), C(2, 63)))
    s, ev = act(s, 0, capture(C(7, 14), C(9, 18), C(2, 63)))
    assert kinds(ev) == ["fact", "captured", "vigilance_trophy"]
    assert ev[-1]["card"]["id"] == last
    assert s["trophies"] == [[C(2, 63)], [last]]
    assert last not in s["hands"][1] and s["hands"][1] == [C(5, 6), C(5, 9), C(5, 15)]
    assert sorted(mp.cards(s)) == sorted([*mp.cards(_missed_position(pile=[last], rest=None))])
    assert mp.to_act(s) == (1,) and s["phase"] == "place"


def test_ruling_fifth_trophy_by_vigilance_wins():
    s = _missed_position(pile=[C(8, 56)])
    s["trophies"] = [[], [C(2, 8), C(3, 10), C(4, 15), C(2, 16)]]
    s["pile"] = [c for c in s["pile"] if c not in s["trophies"][1]]
    s, _ = act(s, 0, END)
    s, _ = act(s, 1, challenge(C(7, 14), C(9, 18), C(2, 63)))
    s, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert kinds(ev)[-1] == "game_over"
    assert mp.outcome(s)["winners"] == [1]


def test_ruling_forced_capture_can_win_the_game_for_the_forgetful_player():
    s = _missed_position()
    s["trophies"] = [[C(2, 8), C(3, 10), C(4, 15), C(2, 16)], []]
    s["pile"] = [c for c in s["pile"] if c not in s["trophies"][0]]
    s, _ = act(s, 0, END)
    s, _ = act(s, 1, challenge(C(7, 14), C(9, 18), C(2, 63)))
    s, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert kinds(ev) == ["fact", "captured", "game_over"]
    assert mp.outcome(s)["winners"] == [0]
    assert s["trophies"][1] == []


def test_ruling_empty_hand_and_empty_pile_skip_placing_but_may_capture():
    s = arrange(
        areas=([C(2, 4), C(5, 6)], [C(2, 40), C(3, 63)]),
        hands=([C(3, 4), C(8, 72)], []),
        rest=None,
    )
    s, _ = act(s, 0, {"type": "place", "card": C(3, 4)})
    s, ev = act(s, 0, END)
    assert "drew" not in kinds(ev)  # the pile is empty
    assert mp.outcome(s) is None  # seat 1 has no card in hand, but may still capture
    assert s["phase"] == "capture_or_end" and mp.to_act(s) == (1,)
    assert mp.view(s, 1)["phase"] == "capture_or_end"
    assert not any(a["type"] == "place" for a in mp.legal_actions(s, 1))
    s, _ = act(s, 1, capture(C(2, 40), C(3, 63), C(5, 6)))
    assert s["trophies"][1] == [C(5, 6)]
    s, _ = act(s, 1, END)
    # the used potions went under the pile, so seat 0 draws one and the game goes on
    assert mp.outcome(s) is None and s["hands"][0] == [C(8, 72), C(2, 40)]


def test_ruling_hand_empty_but_pile_has_cards_draws_and_places():
    s = arrange(areas=([C(2, 4)], [C(3, 8)]), hands=([C(4, 6)], []), pile=[C(5, 6)], rest=None)
    s, _ = act(s, 0, {"type": "place", "card": C(4, 6)})
    s, _ = act(s, 0, END)
    assert s["hands"][1] == [C(5, 6)] and s["phase"] == "place"


# ------------------------------------------------------------------------------------------
# Protocol details for this game
# ------------------------------------------------------------------------------------------
def test_illegal_actions_have_child_friendly_messages():
    s = mp.setup(2, 0, {})
    with pytest.raises(IllegalAction, match="It is not your turn yet"):
        act(s, 1, {"type": "place", "card": s["hands"][1][0]})
    for bad in (None, "place", {}, {"type": "dance"}, {"type": 3}):
        with pytest.raises(IllegalAction, match="I do not understand that move"):
            act(s, 0, bad)
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(s, 0, {"type": "place", "card": "mp-x99"})
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(s, 0, {"type": "place", "card": s["hands"][1][0]})
    with pytest.raises(IllegalAction, match="It is not your turn yet"):
        act(s, None, {"type": "end_turn"})
    with pytest.raises(IllegalAction, match="I do not understand"):
        act(s, 0, {"type": ["place"]})
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(s, 0, {"type": "place", "card": ["mp-g01"]})
    s = _missed_position()
    s, _ = act(s, 0, END)
    s, _ = act(s, 1, challenge(C(7, 14), C(9, 18), C(2, 63)))
    for bad in (END, {"type": "place", "card": C(2, 4)}, challenge(C(7, 14), C(9, 18), C(2, 63))):
        with pytest.raises(IllegalAction, match="Capture a monster now"):
            act(s, 0, bad)


def test_view_shows_only_what_the_seat_may_see():
    s = mp.setup(2, 3, {})
    v0, v1, spectator = mp.view(s, 0), mp.view(s, 1), mp.view(s, None)
    assert [c["id"] for c in v0["hand"]] == s["hands"][0]
    assert "hand" not in spectator
    assert v0["hand_counts"] == [4, 3] and v0["pile_count"] == len(s["pile"])
    for v, hidden in ((v0, s["hands"][1]), (v1, s["hands"][0]), (spectator, mp.cards(s))):
        text = json.dumps(v)
        for c in hidden:
            if c not in s["areas"][0] + s["areas"][1]:
                assert c not in text
        for c in s["pile"]:
            assert c not in text
    assert v0["phase"] == "place" and v0["turn"] == 0 and v0["to_act"] == [0]


def test_describe_covers_every_event_kind():
    s = _missed_position(pile=[C(8, 56)])
    events = []
    s, ev = act(s, 0, END)
    events += ev
    s, ev = act(s, 1, challenge(C(7, 14), C(9, 18), C(2, 63)))
    events += ev
    s, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    events += ev
    s, ev = act(s, 1, {"type": "place", "card": s["hands"][1][0]})
    events += ev
    seen = {e["kind"] for e in events}
    assert seen >= {"fact", "turn_ended", "drew", "challenge", "captured", "vigilance_trophy"}
    for e in events:
        line = mp.describe(e)
        assert isinstance(line, str) and "mp-" not in line
        # the facts here, a missed one and right claims, are not told (the opponent must spot
        # a missed one; a right claim is its capture or challenge): only a wrong claim is
        assert bool(line) == (e["kind"] != "fact")


# ------------------------------------------------------------------------------------------
# Bots
# ------------------------------------------------------------------------------------------
def _bot(state, seat, level, focus=None, seed=0):
    return mp.bot_action(
        mp.view(state, seat), mp.legal_actions(state, seat), level, random.Random(seed), focus
    )


def test_bot_wizard_always_captures_when_possible():
    s = arrange(
        areas=([C(9, 18), C(7, 14), C(2, 4)], [C(2, 63), C(6, 54)]),
        hands=([C(3, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    for seed in range(20):
        assert _bot(s, 0, "wizard", seed=seed) == capture(C(9, 18), C(7, 14), C(2, 63))


def test_bot_wizard_places_the_card_that_makes_a_capture():
    s = arrange(
        areas=([C(9, 18)], [C(2, 63)]),
        hands=([C(2, 4), C(7, 14), C(3, 4), C(4, 6)], [C(5, 6)]),
    )
    for seed in range(20):
        assert _bot(s, 0, "wizard", seed=seed) == {"type": "place", "card": C(7, 14)}


def exposing_a_monster_54():
    """Seat 1 has potions 6 and 9 placed: a monster 54 placed by seat 0 would be captured next
    turn; seat 0 holds a 54 and a 27."""
    return arrange(
        areas=([], [C(6, 12), C(9, 18)]),
        hands=([C(6, 54), C(8, 27)], [C(5, 6)]),
    )


def test_bot_wizard_avoids_exposing_a_capturable_monster():
    s = exposing_a_monster_54()
    for seed in range(20):
        assert _bot(s, 0, "wizard", seed=seed) == {"type": "place", "card": C(8, 27)}


def test_bot_coach_offers_a_focus_monster_the_child_can_reach():
    s = exposing_a_monster_54()
    for seed in range(20):
        assert _bot(s, 0, "coach", focus=[(6, 9)], seed=seed) == {
            "type": "place",
            "card": C(6, 54),
        }
        assert _bot(s, 0, "coach", focus=None, seed=seed) == _bot(s, 0, "wizard", seed=seed)


def test_bot_coach_offers_a_reachable_focus_monster_before_opening_a_capture():
    # The child (seat 1) has potions 7 and 8 placed: a monster 56 is a capture with exactly
    # 7 x 8 for them. The wizard places the 9 instead, which makes 9 x 2 = 18 its capture.
    s = arrange(
        areas=([C(2, 4)], [C(7, 14), C(8, 72), C(2, 18)]),
        hands=([C(8, 56), C(9, 28)], [C(5, 6)]),
    )
    for seed in range(20):
        coach = _bot(s, 0, "coach", focus=[(8, 7)], seed=seed)
        assert coach == {"type": "place", "card": C(8, 56)}
        wizard = _bot(s, 0, "wizard", focus=[(8, 7)], seed=seed)
        assert wizard == {"type": "place", "card": C(9, 28)}


def test_bot_coach_does_not_capture_with_its_focus_monster_when_it_can_choose():
    # 24 can be captured with 3 x 8 or 4 x 6; the 8 lies under a monster 48 = 6 x 8. The
    # wizard uses 3 x 8 (its monster 8 is in danger from the child's 2 x 4); the Coach keeps
    # the 48 in front of the child.
    s = arrange(
        areas=([C(3, 8), C(8, 48), C(4, 6), C(6, 12)], [C(7, 24), C(2, 4), C(4, 9)]),
        hands=([C(5, 6)], [C(5, 9)]),
        phase="capture_or_end",
    )
    for seed in range(20):
        assert _bot(s, 0, "wizard", seed=seed) == capture(C(3, 8), C(8, 48), C(7, 24))
        coach = _bot(s, 0, "coach", focus=[(6, 8)], seed=seed)
        assert coach == capture(C(4, 6), C(6, 12), C(7, 24))
    # With no other capture it still captures (it never leaves a capture on purpose).
    only = arrange(
        areas=([C(8, 48), C(3, 8)], [C(7, 24)]),
        hands=([C(5, 6)], [C(5, 9)]),
        phase="capture_or_end",
    )
    assert _bot(only, 0, "coach", focus=[(6, 8)]) == capture(C(8, 48), C(3, 8), C(7, 24))


def test_bot_coach_spares_a_childs_potion_that_is_a_focus_factor():
    # Two monsters 12 to capture with 3 x 4: under one lies the child's potion 6 (of 6 x 8).
    s = arrange(
        areas=([C(3, 8), C(4, 6)], [C(6, 12), C(5, 12)]),
        hands=([C(5, 6)], [C(5, 9)]),
        phase="capture_or_end",
    )
    coach = {_bot(s, 0, "coach", focus=[(6, 8)], seed=i)["monster"] for i in range(20)}
    wizard = {_bot(s, 0, "wizard", seed=i)["monster"] for i in range(20)}
    assert coach == {C(5, 12)} and wizard == {C(5, 12), C(6, 12)}


def test_bot_wizard_always_challenges_a_missed_capture():
    s = _missed_position()
    s, _ = act(s, 0, END)
    for seed in range(20):
        a = _bot(s, 1, "wizard", seed=seed)
        assert a["type"] == "challenge"
        assert sorted(a["potions"]) == sorted([C(9, 18), C(7, 14)]) and a["monster"] == C(2, 63)


def test_bot_apprentice_sometimes_misses_a_capture():
    s = arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63)]),
        hands=([C(3, 4)], [C(5, 6)]),
        phase="capture_or_end",
    )
    chosen = [_bot(s, 0, "apprentice", seed=i)["type"] for i in range(300)]
    assert 50 < chosen.count("end_turn") < 150
    assert chosen.count("capture") > 150


@pytest.mark.parametrize("level", mp.LEVELS)
def test_bots_never_make_wrong_claims(level):
    for seed in range(15):
        s = mp.setup(2, seed, {})
        rng = random.Random(seed)
        while mp.to_act(s):
            seat = mp.to_act(s)[0]
            a = mp.bot_action(mp.view(s, seat), mp.legal_actions(s, seat), level, rng, [(7, 8)])
            s, ev = act(s, seat, a)
            for e in ev:
                if e["kind"] == "fact" and e["context"] != "missed":
                    assert e["correct"]
        assert mp.outcome(s) is not None


def _last_turn_missed():
    """Seat 0's last turn: pile and hands empty, a capture (9 × 7 = 63) left on the board."""
    return arrange(
        areas=([C(9, 18), C(7, 14)], [C(2, 63), C(3, 21)]),
        rest=None,
        phase="capture_or_end",
        trophies=([C(2, 4)], [C(3, 4)]),
    )


def test_faq_a_capture_missed_on_the_very_last_turn_can_still_be_checked():
    """FAQ: the other player may intervene when the player "announces the end of the turn",
    the last turn too (docs/rules, "The last turn can be checked"): a last call, then the
    forced capture, then the end (no card left, so no reward card)."""
    s, ev = act(_last_turn_missed(), 0, END)
    assert "game_over" not in kinds(ev) and s["phase"] == "last_call"
    assert mp.to_act(s) == (1,) and mp.view(s, 1)["can_challenge"]
    legal = mp.legal_actions(s, 1)
    assert {a["type"] for a in legal} == {"challenge", "end_turn"}
    s, _ = act(s, 1, challenge(C(9, 18), C(7, 14), C(2, 63)))
    assert s["phase"] == "forced_capture" and mp.to_act(s) == (0,)
    s, ev = act(s, 0, capture(C(9, 18), C(7, 14), C(2, 63)))
    assert kinds(ev) == ["fact", "captured", "vigilance_trophy", "game_over"]
    assert ev[-2]["card"] is None
    assert mp.outcome(s)["winners"] == [0] and mp.outcome(s)["reason"] == "cards_out"


def test_the_last_call_declined_ends_the_game_as_before():
    s, _ = act(_last_turn_missed(), 0, END)
    s, ev = act(s, 1, END)
    assert kinds(ev) == ["game_over"] and mp.outcome(s)["winners"] == []  # 1 trophy each


def test_no_last_call_when_nothing_can_be_checked():
    """A last turn that leaves one potion (two are needed to check): the game ends at once.
    Otherwise there is always a last call, a capture missed or not, as on every turn: its
    coming must not tell whether something was missed."""
    s = arrange(areas=([C(9, 18)], [C(2, 63)]), rest=None, phase="capture_or_end")
    s, ev = act(s, 0, END)
    assert kinds(ev)[-1] == "game_over" and mp.outcome(s)["winners"] == []
    nothing_missed = arrange(areas=([C(2, 4), C(3, 4)], [C(2, 63)]), rest=None)
    nothing_missed["phase"] = "capture_or_end"
    s, ev = act(nothing_missed, 0, END)
    assert s["phase"] == "last_call" and not [e for e in ev if e.get("context") == "missed"]


def test_bots_check_the_last_turn_and_end_the_game():
    s, _ = act(_last_turn_missed(), 0, END)
    rng = random.Random(1)
    for level in ("wizard", "apprentice", "random", "coach"):
        action = mp.bot_action(mp.view(s, 1), mp.legal_actions(s, 1), level, rng)
        assert action["type"] in {"challenge", "end_turn"}
    wizard = mp.bot_action(mp.view(s, 1), mp.legal_actions(s, 1), "wizard", rng)
    assert wizard["type"] == "challenge"


def test_the_taps_after_being_caught_are_stored_as_forced_not_as_captures():
    """After a successful challenge the caught player must capture: their taps are "forced"
    facts (stored, and no evidence of the pair tapped: docs/analytics.md, "Evidence"), wrong
    or right; the claims of a turn of one's own stay "capture"."""
    s = arrange(
        areas=([C(7, 14), C(8, 16)], [C(6, 54), C(9, 56)]),
        hands=([C(2, 4)], [C(5, 6)]),
        phase="forced_capture",
        current=1,
    )
    assert mp.to_act(s) == (0,)
    s2, ev = act(s, 0, capture(C(7, 14), C(8, 16), C(6, 54)))
    assert ev[0]["context"] == "forced" and ev[0]["correct"] is False
    _, ev = act(s2, 0, capture(C(7, 14), C(8, 16), C(9, 56)))
    assert ev[0]["context"] == "forced" and ev[0]["correct"] is True
    assert ev[0]["options"] == [54, 56]
