"""Mortadelo Multiverso: one test per rulebook passage, per row of the matchups and per ruling
(docs/rules/mortadelo-multiverso.md), and a hypothesis state machine over random legal play.

Seat 0 plays first; "the player on your left" is the next seat number still in play.
"""

import json
import random
from itertools import combinations
from itertools import product

import pytest
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine
from hypothesis.stateful import invariant
from hypothesis.stateful import precondition
from hypothesis.stateful import rule

from games.engine import IllegalAction
from games.mortadelo import engine as mm
from games.mortadelo.cards import BASIC
from games.mortadelo.cards import BASIC_DESIGN
from games.mortadelo.cards import CARDS
from games.mortadelo.cards import CHARACTERS
from games.mortadelo.cards import COLOURS
from games.mortadelo.cards import PLUS
from games.mortadelo.cards import PLUS_DESIGN
from games.mortadelo.cards import blow_effects

# Basic card numbers (the same in every colour): see BASIC_DESIGN.
JAB, HAYMAKER, MYSTERY_FIST = 1, 3, 4
STOMP, CARTWHEEL, MYSTERY_BOOT = 5, 7, 8
FIST_CATCHER, SHIN_GUARD, CLEVER_DODGE, NOT_TODAY = 9, 10, 11, 12
JAB2, STOMP2 = 2, 6


def B(seat: int, number: int) -> str:
    return f"mmb-{COLOURS[seat]}-{number:02d}"


def kinds(events):
    return [e["kind"] for e in events]


def act(state, seat, action):
    before = sorted(mm.cards(state))
    new, events = mm.apply(state, seat, action)
    assert sorted(mm.cards(new)) == before
    json.dumps(events)
    assert mm.load(json.loads(json.dumps(mm.dump(new)))) == new
    for p in range(new["players"]):
        for token in mm.private(new, p):
            assert token not in json.dumps(events)
    return new, events


def picked(players=2, characters=None, seed=0):
    """A game after the Mortadelos were chosen (pirate, ninja, ... unless given)."""
    chars = characters or ["pirate", "mummy", "king", "chef", "doctor", "cowboy"][:players]
    s = mm.setup(players, seed, {})
    for seat, key in enumerate(chars):
        s, _ = act(s, seat, {"type": "pick", "character": key})
    return s


def set_hand(s, seat, numbers, plus=()):
    """Give ``seat`` exactly these basic cards (and Plus cards from the Plus deck) in hand; the
    cards it held go back on top of its deck. The cards stay the player's own."""
    want = [B(seat, n) for n in numbers]
    for zone in ("decks", "discards"):
        s[zone][seat] = [c for c in s[zone][seat] if c not in want]
    s["decks"][seat] += [c for c in s["hands"][seat] if c not in want]
    wounds = s["wounds"][seat]
    for i, c in enumerate(wounds):
        if c in want:  # keep the number of wounds: another card takes its place
            wounds[i] = s["decks"][seat].pop(0)
    s["hands"][seat] = want + list(plus)
    for c in plus:
        if c in s["plus_deck"]:
            s["plus_deck"].remove(c)
        else:
            s["market"].remove(c)
            s["market"].append(s["plus_deck"].pop())
    return s


def wound(s, seat, n):
    """Put ``n`` wounds (from the top of the deck) under ``seat``'s Mortadelo."""
    for _ in range(n):
        s["wounds"][seat].append(s["decks"][seat].pop())
    return s


def duel(s, a_card, b_card, a=None, b=None):
    a = s["duel"]["seats"][0] if a is None else a
    b = s["duel"]["seats"][1] if b is None else b
    s, _ = act(s, a, {"type": "choose", "card": a_card})
    return act(s, b, {"type": "choose", "card": b_card})


# ------------------------------------------------------------------------------------------
# Components
# ------------------------------------------------------------------------------------------
def test_components_12_mortadelos_72_basicos_in_6_colours_of_12_and_24_plus():
    assert len(CHARACTERS) == 12
    assert len(BASIC) == 72 and len(COLOURS) == 6
    for colour in COLOURS:
        mine = [c for c in BASIC.values() if c["colour"] == colour]
        assert len(mine) == 12
        # the same composition in every colour
        assert [(c["name"], c["kind"], c["effects"]) for c in mine] == [
            (n, k, e) for n, k, e in BASIC_DESIGN
        ]
    assert len(PLUS) == 24 == sum(copies for *_x, copies in PLUS_DESIGN)
    assert (mm.MIN_PLAYERS, mm.MAX_PLAYERS) == (2, 6)
    assert mm.LEVELS == ["random", "odds"] and mm.BEST_LEVEL == "odds"


def test_cards_use_only_the_icons_and_effects_of_the_rulebook():
    for c in CARDS.values():
        assert c["kind"] in ("punch", "kick", "block_punch", "block_kick", "total")
        for name, amount in c["effects"]:
            assert name in ("tortazo", "upgrade", "combo", "recover", "special")
            assert isinstance(amount, int) and amount >= 1
    for ch in CHARACTERS.values():
        for name, amount in ch["effects"] + ch["effects_two"]:
            assert name in ("tortazo", "upgrade", "combo", "recover")
            assert isinstance(amount, int) and amount >= 1
    # every secret blow is different, in a game of 2 players and in a game of more
    for players in range(2, 7):
        blows = [json.dumps(sorted(blow_effects(key, players))) for key in CHARACTERS]
        assert len(set(blows)) == 12, players


def test_ruling_card_ids_are_tokens_that_never_occur_by_accident():
    ids = list(CARDS)
    assert len(ids) == len(set(ids)) == 96
    for x, y in combinations(ids, 2):
        assert x not in y and y not in x
    words = json.dumps([CHARACTERS, mm.KIND_NAMES, mm.EFFECT_TEXTS], ensure_ascii=False)
    for c in CARDS.values():
        assert c["id"] not in c["name"] and c["id"] not in words


# ------------------------------------------------------------------------------------------
# Setup
# ------------------------------------------------------------------------------------------
def test_setup_shuffle_your_deck_of_12_and_draw_5_the_plus_deck_with_4_face_up():
    for players in range(2, 7):
        s = mm.setup(players, 4, {})
        for p in range(players):
            assert len(s["hands"][p]) == 5 and len(s["decks"][p]) == 7
            assert {BASIC[c]["colour"] for c in mm.owned(s, p)} == {COLOURS[p]}
        assert len(s["market"]) == 4 and len(s["plus_deck"]) == 20
        v = mm.view(s, None)
        assert [c["id"] for c in v["market"]] == s["market"]  # face up
        assert "hand" not in v
    assert mm.setup(3, 4, {}) == mm.setup(3, 4, {})
    assert mm.setup(3, 4, {})["hands"] != mm.setup(3, 5, {})["hands"]
    for bad in (1, 7, "3", True):
        with pytest.raises(ValueError):
            mm.setup(bad, 0, {})
    with pytest.raises(ValueError):
        mm.setup(2, 0, {"colour": "red"})


def test_setup_each_player_chooses_a_mortadelo_in_turn_each_only_once():
    s = mm.setup(3, 1, {})
    assert s["phase"] == "pick" and mm.to_act(s) == (0,)
    assert len(mm.legal_actions(s, 0)) == 12
    s, ev = act(s, 0, {"type": "pick", "character": "ninja"})
    assert ev == [{"kind": "picked", "seat": 0, "character": "ninja"}]
    assert mm.to_act(s) == (1,)
    with pytest.raises(IllegalAction, match="already chose that Mortadelo"):
        mm.apply(s, 1, {"type": "pick", "character": "ninja"})
    with pytest.raises(IllegalAction, match="no Mortadelo"):
        mm.apply(s, 1, {"type": "pick", "character": "batman"})
    assert {"type": "pick", "character": "ninja"} not in mm.legal_actions(s, 1)
    s, _ = act(s, 1, {"type": "pick", "character": "king"})
    s, ev = act(s, 2, {"type": "pick", "character": "chef"})
    # The duels start with the first player drawn from the seed (seed 1, 3 players: seat 2).
    assert s["first"] == 2
    assert s["phase"] == "challenge" and mm.to_act(s) == (2,)
    assert {"kind": "turn", "seat": 2, "turn": 1} in ev
    assert mm.view(s, 2)["characters"][0]["name"] == "Ninja Mortadelo"  # face up


def test_the_first_player_is_drawn_from_the_seed():
    """Seat order ruling: who starts the duels is drawn from the seed, not always seat 0."""
    for players in (2, 3, 6):
        firsts = [mm.setup(players, seed, {})["first"] for seed in range(120)]
        assert set(firsts) == set(range(players)), players
        counts = [firsts.count(p) for p in range(players)]
        assert min(counts) >= 120 / players * 0.5, (players, counts)
    assert mm.setup(4, 77, {})["first"] == mm.setup(4, 77, {})["first"]


def test_a_game_stored_before_the_first_player_was_drawn_still_loads():
    s = mm.setup(3, 1, {})
    del s["first"]
    loaded = mm.load(json.loads(json.dumps(s)))
    assert loaded["first"] == 0
    for seat, key in enumerate(("ninja", "king", "chef")):
        loaded, _ = act(loaded, seat, {"type": "pick", "character": key})
    assert mm.to_act(loaded) == (0,)


def test_you_see_only_your_own_hand_deck_and_wounds_are_face_down():
    s = wound(picked(3), 1, 2)
    for seat in (0, 1, 2, None):
        v = mm.view(s, seat)
        text = json.dumps(v)
        assert v["hand_counts"] == [5, 5, 5] and v["deck_counts"] == [7, 5, 7]
        assert v["wound_counts"] == [0, 2, 0]
        for p in range(3):
            for c in s["decks"][p] + s["wounds"][p]:
                assert c not in text
            for c in s["hands"][p]:
                assert (c in text) == (p == seat)


# ------------------------------------------------------------------------------------------
# How to play: choose an opponent, the duel
# ------------------------------------------------------------------------------------------
def test_choose_opponent_any_other_mortadelo_still_in_the_game():
    s = picked(4)
    assert mm.legal_actions(s, 0) == [{"type": "challenge", "target": p} for p in (1, 2, 3)]
    with pytest.raises(IllegalAction, match="Choose another Mortadelo"):
        mm.apply(s, 0, {"type": "challenge", "target": 0})
    s2, ev = act(s, 0, {"type": "challenge", "target": "2"})  # a form sends text
    assert ev[-1] == {"kind": "challenged", "seat": 0, "target": 2, "round": 1}
    assert s2["phase"] == "duel" and mm.to_act(s2) == (0, 2)
    s["out"][3] = 1
    assert {"type": "challenge", "target": 3} not in mm.legal_actions(s, 0)


def test_ruling_with_one_possible_opponent_the_challenge_is_automatic():
    s = picked(2)
    assert s["phase"] == "duel" and s["duel"]["seats"] == [0, 1]
    assert mm.to_act(s) == (0, 1)


def test_duel_both_choose_in_secret_and_reveal_together():
    s = picked(2)
    a_card, b_card = s["hands"][0][0], s["hands"][1][0]
    s1, ev = act(s, 1, {"type": "choose", "card": b_card})  # either may choose first
    assert ev == [{"kind": "chose", "seat": 1}]
    assert mm.to_act(s1) == (0,)
    assert b_card in mm.private(s1, 1)
    v0, v1 = mm.view(s1, 0), mm.view(s1, 1)
    assert b_card not in json.dumps(v0) and b_card not in json.dumps(mm.view(s1, None))
    assert v1["my_choice"]["id"] == b_card and v0["my_choice"] is None
    assert v0["duel"]["chosen"] == [1]
    with pytest.raises(IllegalAction, match="already chose"):
        mm.apply(s1, 1, {"type": "choose", "card": s1["hands"][1][0]})
    with pytest.raises(IllegalAction, match="not in your hand"):
        mm.apply(s1, 0, {"type": "choose", "card": b_card})
    _s2, ev = act(s1, 0, {"type": "choose", "card": a_card})
    reveal = next(e for e in ev if e["kind"] == "reveal")
    assert [c["card"]["name"] for c in reveal["cards"]] == [
        CARDS[a_card]["name"],
        CARDS[b_card]["name"],
    ]


def test_duel_secrecy_the_plus_counts_do_not_tell_whether_the_secret_card_is_a_plus():
    s = picked(2)
    plus = s["plus_deck"][0]
    s = set_hand(s, 0, [JAB], plus=[plus])
    assert mm.view(s, 1)["plus_counts"] == [1, 0]
    s, _ = act(s, 0, {"type": "choose", "card": plus})
    # the Plus card chosen face down still counts as player 1's
    assert mm.view(s, 1)["plus_counts"] == [1, 0]
    assert mm.view(s, None)["plus_counts"] == [1, 0]


# ------------------------------------------------------------------------------------------
# Resolving duels, step 1: the matchups (one test per row of the rulebook)
# ------------------------------------------------------------------------------------------
MATCHUPS = [
    # (challenger's card, other's card, challenger succeeds, other succeeds)
    # Defences succeed: a Punch attack against a Punch defence, a Kick against a Kick defence.
    ("punch", "block_punch", False, True),
    ("kick", "block_kick", False, True),
    # Attacks succeed: a Punch attack against a Kick defence, a Kick against a Punch defence.
    ("punch", "block_kick", True, False),
    ("kick", "block_punch", True, False),
    # Neither succeeds: a Punch defence against a Kick defence.
    ("block_punch", "block_kick", False, False),
    # Both attacks succeed.
    ("punch", "kick", True, True),
    ("punch", "punch", True, True),
    ("kick", "kick", True, True),
    # Total Defence defends against any attack, whether a Punch or a Kick.
    ("punch", "total", False, True),
    ("kick", "total", False, True),
]
CARD_OF_KIND = {
    "punch": JAB,
    "kick": STOMP,
    "block_punch": FIST_CATCHER,
    "block_kick": SHIN_GUARD,
    "total": CLEVER_DODGE,
}


@pytest.mark.parametrize(("mine", "theirs", "ok_mine", "ok_theirs"), MATCHUPS)
def test_matchup_row(mine, theirs, ok_mine, ok_theirs):
    assert mm.success(mine, theirs) is ok_mine
    assert mm.success(theirs, mine) is ok_theirs
    # and the same through a real duel, both ways round
    for first, second in ((mine, theirs), (theirs, mine)):
        s = picked(2)
        s = set_hand(s, 0, [CARD_OF_KIND[first], NOT_TODAY])
        s = set_hand(s, 1, [CARD_OF_KIND[second], JAB2])
        s, ev = duel(s, B(0, CARD_OF_KIND[first]), B(1, CARD_OF_KIND[second]))
        reveal = next(e for e in ev if e["kind"] == "reveal")
        got = [c["success"] for c in reveal["cards"]]
        assert got == [mm.success(first, second), mm.success(second, first)]


def test_ruling_the_rows_the_rulebook_leaves_out_two_defences_never_succeed():
    """ "If you played a defence, it succeeds only if it exactly matches the opponent's attack
    type": any two defences (Total Defence included) leave both cards without effect."""
    for x, y in product(("block_punch", "block_kick", "total"), repeat=2):
        assert not mm.success(x, y) and not mm.success(y, x)


# ------------------------------------------------------------------------------------------
# Step 2: only the effects of a card that succeeded
# ------------------------------------------------------------------------------------------
def test_only_the_effect_of_a_card_that_succeeded_is_activated():
    s = picked(2)
    s = set_hand(s, 0, [HAYMAKER, JAB])
    s = set_hand(s, 1, [FIST_CATCHER, JAB2])
    wound(s, 1, 1)
    s, ev = duel(s, B(0, HAYMAKER), B(1, FIST_CATCHER))
    # the Punch defence stops the punch: no Tortazo for player 2; its Recover and Play Another
    # Card activate
    assert "tortazo" not in kinds(ev)
    assert {"kind": "recovered", "seat": 1, "wounds": 1, "total": 0} in ev
    assert s["phase"] == "effect" and s["queue"][0] == {"do": "combo", "seat": 1}


def test_defence_succeeds_the_defender_applies_play_another_card():
    s = picked(2)
    s = set_hand(s, 0, [STOMP, JAB])
    s = set_hand(s, 1, [SHIN_GUARD, HAYMAKER])
    s, _ev = duel(s, B(0, STOMP), B(1, SHIN_GUARD))
    assert mm.to_act(s) == (1,)
    assert mm.legal_actions(s, 1) == [
        {"type": "combo", "card": B(1, HAYMAKER)},
        {"type": "no_combo"},
    ]


def test_both_attacks_succeed_both_apply_their_effects_the_turn_player_first():
    s = picked(2)
    s = set_hand(s, 0, [HAYMAKER, JAB])
    s = set_hand(s, 1, [STOMP, JAB2])
    s, ev = duel(s, B(0, HAYMAKER), B(1, STOMP))
    hits = [e for e in ev if e["kind"] == "tortazo"]
    assert [(h["seat"], h["target"], h["wounds"]) for h in hits] == [(0, 1, 2), (1, 0, 1)]
    assert [len(w) for w in s["wounds"]] == [1, 2]


# ------------------------------------------------------------------------------------------
# When you receive a Tortazo
# ------------------------------------------------------------------------------------------
def test_tortazo_one_wound_per_star_from_your_own_deck_face_down():
    s = picked(2)
    s = set_hand(s, 0, [HAYMAKER])
    s = set_hand(s, 1, [SHIN_GUARD])
    top_two = s["decks"][1][-2:]
    s, _ev = duel(s, B(0, HAYMAKER), B(1, SHIN_GUARD))
    assert sorted(s["wounds"][1]) == sorted(top_two)
    for seat in (0, 1, None):
        text = json.dumps(mm.view(s, seat))
        assert not any(c in text for c in s["wounds"][1])


def test_six_wounds_eliminate_at_once_and_the_eliminator_takes_a_plus():
    s = picked(3)
    s, _ = act(s, 0, {"type": "challenge", "target": 1})
    s = set_hand(s, 0, [HAYMAKER, JAB])
    s = set_hand(s, 1, [STOMP, JAB2])
    wound(s, 1, 5)
    market = list(s["market"])
    s, ev = duel(s, B(0, HAYMAKER), B(1, STOMP))
    assert {"kind": "eliminated", "seat": 1, "by": 0} in ev
    assert len(s["wounds"][1]) == 6  # "eliminated immediately": the second star is not needed
    assert s["out"][1] is not None
    # player 2's Stomp still lands: effects are simultaneous
    assert len(s["wounds"][0]) == 1
    assert s["phase"] == "effect" and s["queue"][0] == {"do": "upgrade", "seat": 0, "why": "ko"}
    assert mm.legal_actions(s, 0) == [{"type": "upgrade", "card": c} for c in market]
    s, ev = act(s, 0, {"type": "upgrade", "card": market[2]})
    assert market[2] in s["hands"][0]
    assert len(s["market"]) == 4 and market[2] not in s["market"]  # refilled at once
    assert ev[0]["kind"] == "upgrade" and "id" not in ev[0]["card"]
    # the turn passes to the left, skipping the eliminated player; with one opponent left
    # the challenge is automatic
    assert s["current"] == 2 and s["duel"]["seats"] == [2, 0] and mm.to_act(s) == (2, 0)


# ------------------------------------------------------------------------------------------
# Mamporros Plus and Upgrade
# ------------------------------------------------------------------------------------------
def test_upgrade_take_a_plus_from_those_available_and_refill_to_four():
    s = picked(2)
    s = set_hand(s, 0, [JAB, JAB2])
    s = set_hand(s, 1, [CLEVER_DODGE, STOMP])
    s, ev = duel(s, B(0, JAB), B(1, CLEVER_DODGE))
    assert mm.to_act(s) == (1,) and s["queue"][0]["do"] == "upgrade"
    with pytest.raises(IllegalAction, match="four Mamporros Plus"):
        mm.apply(s, 1, {"type": "upgrade", "card": s["plus_deck"][0]})
    with pytest.raises(IllegalAction):
        mm.apply(s, 1, {"type": "combo", "card": B(1, STOMP)})
    pick = s["market"][0]
    deck_top = s["plus_deck"][-1]
    s, ev = act(s, 1, {"type": "upgrade", "card": pick})
    assert pick in s["hands"][1] and deck_top in s["market"] and len(s["plus_deck"]) == 19
    assert "market_refilled" in kinds(ev)


def test_ruling_when_the_plus_deck_is_empty_the_market_shrinks():
    s = picked(2)
    s["hands"][1] += s["plus_deck"]
    s["plus_deck"] = []
    s = set_hand(s, 0, [JAB, JAB2])
    s["hands"][1] = [c for c in s["hands"][1] if c != B(1, CLEVER_DODGE)]
    for zone in ("decks", "discards"):
        s[zone][1] = [c for c in s[zone][1] if c != B(1, CLEVER_DODGE)]
    s["hands"][1].append(B(1, CLEVER_DODGE))
    s, _ = duel(s, B(0, JAB), B(1, CLEVER_DODGE))
    s, _ = act(s, 1, {"type": "upgrade", "card": s["market"][0]})
    assert len(s["market"]) == 3


def test_ruling_plus_cards_you_play_go_to_your_own_discard_pile():
    s = picked(2)
    plus = next(c for c in PLUS if CARDS[c]["name"] == "Mega Wallop")
    s = set_hand(s, 0, [JAB], plus=[plus])
    s = set_hand(s, 1, [STOMP, JAB2])
    s, _ev = duel(s, plus, B(1, STOMP))
    assert plus in s["discards"][0] or plus in s["decks"][0] or plus in s["hands"][0]
    assert plus in mm.owned(s, 0)


# ------------------------------------------------------------------------------------------
# Play Another Card, Combo!
# ------------------------------------------------------------------------------------------
def test_play_another_card_counts_only_its_effect_without_reaction():
    s = picked(2)
    s = set_hand(s, 0, [CARTWHEEL, SHIN_GUARD, JAB])
    s = set_hand(s, 1, [JAB2, STOMP])
    wound(s, 0, 2)
    s, ev = duel(s, B(0, CARTWHEEL), B(1, JAB2))
    assert s["phase"] == "effect" and mm.to_act(s) == (0,)
    # a defence played this way still applies its effect (Recover): type does not count
    wound_before = len(s["wounds"][0])
    s, ev = act(s, 0, {"type": "combo", "card": B(0, SHIN_GUARD)})
    assert ev[0] == {"kind": "combo", "seat": 0, "card": mm.public_card(B(0, SHIN_GUARD))}
    assert len(s["wounds"][0]) == wound_before - 1
    # Shin Guard also says Play Another Card: a chain
    assert s["phase"] == "effect" and s["queue"][0] == {"do": "combo", "seat": 0}
    s, ev = act(s, 0, {"type": "no_combo"})
    assert ev[0] == {"kind": "no_combo", "seat": 0, "empty": False}
    assert s["phase"] == "duel" or s["phase"] == "challenge"


def test_if_both_activate_play_another_card_a_new_duel_starts():
    s = picked(2)
    s = set_hand(s, 0, [CARTWHEEL, JAB])
    s = set_hand(s, 1, [CARTWHEEL, STOMP])
    s, ev = duel(s, B(0, CARTWHEEL), B(1, CARTWHEEL))
    assert "new_duel" in kinds(ev)
    assert s["phase"] == "duel" and s["duel"]["round"] == 2 and mm.to_act(s) == (0, 1)
    assert s["turn"] == 1  # the same turn
    assert B(0, CARTWHEEL) in s["discards"][0]
    s, ev = duel(s, B(0, JAB), B(1, STOMP))
    assert s["turn"] == 2 and mm.to_act(s) == (1, 0)  # now player 2's turn, a new duel
    assert s["current"] == 1


def test_ruling_a_new_duel_without_cards_ends_the_turn():
    s = picked(2)
    s = set_hand(s, 0, [CARTWHEEL])
    s = set_hand(s, 1, [CARTWHEEL, STOMP])
    s, ev = duel(s, B(0, CARTWHEEL), B(1, CARTWHEEL))
    assert "no_cards" in kinds(ev) and s["current"] == 1 and s["turn"] == 2


# ------------------------------------------------------------------------------------------
# Recover Wounds
# ------------------------------------------------------------------------------------------
def test_recover_wounds_returns_a_wound_card_face_up_to_your_discard():
    s = picked(2)
    wound(s, 1, 2)
    top_wound = s["wounds"][1][-1]
    s = set_hand(s, 0, [STOMP, JAB])
    s = set_hand(s, 1, [SHIN_GUARD, JAB2])
    s, _ev = duel(s, B(0, STOMP), B(1, SHIN_GUARD))
    assert top_wound in s["discards"][1] and len(s["wounds"][1]) == 1
    assert top_wound in json.dumps(mm.view(s, 0))  # face up, for everybody


def test_ruling_recover_with_no_wound_does_nothing():
    s = picked(2)
    s = set_hand(s, 0, [STOMP, JAB])
    s = set_hand(s, 1, [SHIN_GUARD, JAB2])
    s, ev = duel(s, B(0, STOMP), B(1, SHIN_GUARD))
    assert {"kind": "recovered", "seat": 1, "wounds": 0, "total": 0} in ev


# ------------------------------------------------------------------------------------------
# Special Mamporro and eliminated players meddling
# ------------------------------------------------------------------------------------------
def test_special_mamporro_activates_your_mortadelos_secret_blow():
    s = picked(2, ["pirate", "mummy"])
    s = set_hand(s, 0, [MYSTERY_FIST, JAB])
    s = set_hand(s, 1, [STOMP, JAB2])
    s, ev = duel(s, B(0, MYSTERY_FIST), B(1, STOMP))
    assert {"kind": "special", "seat": 0, "character": "pirate", "target": 1} in ev
    assert len(s["wounds"][1]) == 4  # Cannonball Clout: Tortazo with four stars
    assert len(s["wounds"][0]) == 1


def _blow_totals(effects):
    stars = sum(a for n, a in effects if n == "tortazo")
    recover = sum(a for n, a in effects if n == "recover")
    upgrades = sum(a for n, a in effects if n == "upgrade")
    combos = sum(a for n, a in effects if n == "combo")
    return stars, recover, upgrades, combos


def test_a_few_secret_blows_have_other_icons_with_2_players_and_work_as_shown():
    """docs/rules (Balance): a blow may have other icons in a game of 2 players; the game plays
    the icons its view shows for that number of players."""
    differs = [k for k, ch in CHARACTERS.items() if ch["effects_two"] != ch["effects"]]
    assert differs
    for key in differs:
        for players in (2, 3):
            others = [k for k in CHARACTERS if k != key][: players - 1]
            s = picked(players, [key, *others])
            assert s["current"] == 0
            effects = blow_effects(key, players)
            assert effects == CHARACTERS[key]["effects_two" if players == 2 else "effects"]
            assert mm.view(s, 1)["characters"][0]["effects"] == effects
            if players > 2:
                s, _ = act(s, 0, {"type": "challenge", "target": 1})
            wound(s, 0, 3)
            s = set_hand(s, 0, [MYSTERY_FIST, JAB])
            s = set_hand(s, 1, [SHIN_GUARD, JAB2])  # a kick defence: fails against a punch
            s, ev = duel(s, B(0, MYSTERY_FIST), B(1, SHIN_GUARD))
            assert {"kind": "special", "seat": 0, "character": key, "target": 1} in ev
            upgrades = combos = 0
            while mm.to_act(s) == (0,) and s["phase"] == "effect":
                if "upgrade" in {a["type"] for a in mm.legal_actions(s, 0)}:
                    s, _ = act(s, 0, {"type": "upgrade", "card": s["market"][0]})
                    upgrades += 1
                else:
                    s, _ = act(s, 0, {"type": "no_combo"})
                    combos += 1
            stars, recover, want_upgrades, want_combos = _blow_totals(effects)
            assert len(s["wounds"][1]) == stars
            assert len(s["wounds"][0]) == 3 - min(recover, 3)
            assert (upgrades, combos) == (want_upgrades, want_combos)
            assert len([c for c in s["hands"][0] if c in PLUS]) == upgrades


def test_eliminated_players_meddle_with_a_duellist_when_a_special_is_activated():
    s = picked(3, ["cowboy", "pirate", "chef"])
    s["out"][1] = 0  # the pirate is in the cloning machine
    wound(s, 1, 6)
    s, _ = act(s, 0, {"type": "challenge", "target": 2})
    s = set_hand(s, 0, [MYSTERY_FIST, JAB])
    s = set_hand(s, 2, [NOT_TODAY, JAB2])
    wound(s, 0, 4)
    # a Total Defence stops the Mystery Fist: no special, no meddling
    s2, ev = duel(s, B(0, MYSTERY_FIST), B(2, NOT_TODAY))
    assert "special" not in kinds(ev) and "meddle" not in kinds(ev) and s2["current"] == 2
    s = set_hand(s, 2, [STOMP, JAB2])
    s, ev = duel(s, B(0, MYSTERY_FIST), B(2, STOMP))
    # Lasso Yank: Tortazo, Recover, Play Another Card, Upgrade; then the pirate meddles from
    # the cloning machine; the Stomp of player 3 comes last
    assert {"kind": "recovered", "seat": 0, "wounds": 1, "total": 3} in ev
    assert len(s["wounds"][2]) == 1
    assert s["queue"][0] == {"do": "combo", "seat": 0}
    s, _ = act(s, 0, {"type": "no_combo"})
    assert s["queue"][0] == {"do": "upgrade", "seat": 0}
    s, _ = act(s, 0, {"type": "upgrade", "card": s["market"][0]})
    assert s["phase"] == "effect" and mm.to_act(s) == (1,)
    assert mm.legal_actions(s, 1) == [
        {"type": "meddle", "target": 0},
        {"type": "meddle", "target": 2},
    ]
    assert mm.view(s, 1)["meddle_targets"] == [0, 2]
    s, ev = act(s, 1, {"type": "meddle", "target": 2})
    assert ev[0] == {"kind": "meddle", "seat": 1, "target": 2, "character": "pirate"}
    hit = next(e for e in ev if e["kind"] == "tortazo")
    assert (hit["seat"], hit["target"], hit["wounds"]) == (1, 2, 4)
    assert len(s["wounds"][0]) == 4  # and then the Stomp


def test_ruling_a_meddling_blow_that_helps_helps_the_chosen_duellist():
    s = picked(3, ["vampire", "king", "pirate"])
    s["out"][1] = 0
    wound(s, 1, 6)
    s, _ = act(s, 0, {"type": "challenge", "target": 2})
    s = set_hand(s, 0, [MYSTERY_FIST, JAB])
    s = set_hand(s, 2, [STOMP, JAB2])
    s, ev = duel(s, B(0, MYSTERY_FIST), B(2, STOMP))
    assert len(s["wounds"][2]) == 3  # Midnight Nibble: three stars
    # Royal Treasury on player 3: its Tortazo, its Recover and its two Upgrades all go to
    # player 3
    s, ev = act(s, 1, {"type": "meddle", "target": 2})
    assert [e["kind"] for e in ev][:3] == ["meddle", "tortazo", "recovered"]
    assert {"kind": "recovered", "seat": 2, "wounds": 1, "total": 4} in ev
    # player 3 takes two Plus, counted ("1 of 2" on the board)
    assert s["queue"][:2] == [{"do": "upgrade", "seat": 2, "step": n, "of": 2} for n in (1, 2)]


def test_ruling_a_meddler_who_eliminates_a_duellist_takes_no_plus():
    s = picked(3, ["mummy", "pirate", "chef"])
    s["out"][1] = 0
    wound(s, 1, 6)
    s, _ = act(s, 0, {"type": "challenge", "target": 2})
    wound(s, 2, 2)
    s = set_hand(s, 0, [MYSTERY_FIST, JAB])
    s = set_hand(s, 2, [STOMP, JAB2])
    s, _ = duel(s, B(0, MYSTERY_FIST), B(2, STOMP))
    assert len(s["wounds"][2]) == 4  # Bandage Whip: two stars, then its Upgrade
    s, _ = act(s, 0, {"type": "upgrade", "card": s["market"][0]})
    s, ev = act(s, 1, {"type": "meddle", "target": 2})
    assert {"kind": "eliminated", "seat": 2, "by": 1} in ev
    assert "upgrade" not in kinds(ev)
    # the Stomp of player 3 still lands (simultaneous), then player 1 stands alone
    assert len(s["wounds"][0]) == 1
    assert s["result"] == {"winners": [0], "ranking": [[0], [2], [1]], "reason": "last_standing"}


def test_simultaneous_effects_whoever_has_the_turn_acts_first():
    """ "If both players must apply an Upgrade Card effect, the player whose turn it is goes
    first." """
    s = picked(2, ["pirate", "caveman"])
    plus = next(c for c in PLUS if CARDS[c]["name"] == "Treasure Kick")
    s = set_hand(s, 0, [JAB], plus=[plus])
    s = set_hand(s, 1, [MYSTERY_BOOT, STOMP2])
    s, ev = duel(s, plus, B(1, MYSTERY_BOOT))
    assert s["queue"][0] == {"do": "upgrade", "seat": 0} and mm.to_act(s) == (0,)
    assert len(s["wounds"][1]) == 2 and len(s["wounds"][0]) == 0  # not yet hit back
    s, ev = act(s, 0, {"type": "upgrade", "card": s["market"][0]})
    assert "special" in kinds(ev) and len(s["wounds"][0]) == 3  # Big Club Bonk
    assert mm.to_act(s) == (1,) and s["queue"][0] == {"do": "upgrade", "seat": 1}


def test_if_you_are_eliminated_you_apply_only_the_effects_not_about_the_next_turn():
    s = picked(3)
    s, _ = act(s, 0, {"type": "challenge", "target": 1})
    wound(s, 1, 5)
    s = set_hand(s, 0, [HAYMAKER, JAB])
    s = set_hand(s, 1, [CARTWHEEL, JAB2])
    s, ev = duel(s, B(0, HAYMAKER), B(1, CARTWHEEL))
    # player 2 is out: its Tortazo still lands, its Play Another Card is skipped
    assert {"kind": "skipped", "seat": 1, "effect": "combo"} in ev
    assert len(s["wounds"][0]) == 1


# ------------------------------------------------------------------------------------------
# End of turn
# ------------------------------------------------------------------------------------------
def test_end_of_turn_draw_to_five_reshuffling_the_discard_when_the_deck_runs_out():
    s = picked(2)
    s = set_hand(s, 0, [JAB, JAB2])
    s = set_hand(s, 1, [STOMP, STOMP2])
    # move player 1's deck to the discard: drawing must reshuffle it
    s["discards"][0], s["decks"][0] = s["decks"][0], []
    s, ev = duel(s, B(0, JAB), B(1, STOMP))
    assert "reshuffled" in kinds(ev)
    assert len(s["hands"][0]) == 5 and len(s["hands"][1]) == 5
    assert {"kind": "drew", "seat": 0, "n": 4} in ev
    # play passes to the player on the left
    assert s["current"] == 1 and s["turn"] == 2


def test_ruling_a_wound_with_an_empty_deck_reshuffles_the_discard_first():
    s = picked(2)
    s = set_hand(s, 0, [HAYMAKER, JAB])
    s = set_hand(s, 1, [STOMP])
    s["discards"][1], s["decks"][1] = s["decks"][1] + s["discards"][1], []
    s, ev = duel(s, B(0, HAYMAKER), B(1, STOMP))
    assert "reshuffled" in kinds(ev) and len(s["wounds"][1]) == 2


# ------------------------------------------------------------------------------------------
# How the game ends; Double KO
# ------------------------------------------------------------------------------------------
def test_the_last_player_standing_wins():
    s = picked(2)
    wound(s, 1, 5)
    s = set_hand(s, 0, [JAB, JAB2])
    s = set_hand(s, 1, [NOT_TODAY, FIST_CATCHER])
    s, ev = duel(s, B(0, JAB), B(1, FIST_CATCHER))
    assert s["phase"] != "over"  # the Punch defence stopped it
    s, _ = act(s, 1, {"type": "no_combo"})
    s = set_hand(s, 0, [HAYMAKER])
    s = set_hand(s, 1, [SHIN_GUARD])
    s, ev = duel(s, B(0, HAYMAKER), B(1, SHIN_GUARD), a=0, b=1)
    assert s["result"] == {"winners": [0], "ranking": [[0], [1]], "reason": "last_standing"}
    assert mm.to_act(s) == () and ev[-1]["kind"] == "game_over"
    with pytest.raises(IllegalAction, match="over"):
        mm.apply(s, 0, {"type": "no_combo"})


def test_double_ko_with_2_players_is_a_tie_and_nobody_wins():
    s = picked(2)
    wound(s, 0, 5)
    wound(s, 1, 5)
    s = set_hand(s, 0, [JAB, JAB2])
    s = set_hand(s, 1, [STOMP, STOMP2])
    s, ev = duel(s, B(0, JAB), B(1, STOMP))
    assert s["result"] == {"winners": [], "ranking": [[0, 1]], "reason": "double_ko"}
    assert "double_ko" in kinds(ev)


def double_ko_of_the_last_two(out):
    """Four Mortadelos; seats 2 and 3 already out (``out``: when each went out, by seat), and
    seats 0 and 1, at 5 wounds, knock each other out in a duel (a Jab against a Stomp)."""
    s = picked(4)
    s["out"][3] = out[3]
    s["out"][2] = out[2]
    wound(s, 3, 6)
    wound(s, 2, 6)
    s, _ = act(s, 0, {"type": "challenge", "target": 1})
    wound(s, 0, 5)
    wound(s, 1, 5)
    s = set_hand(s, 0, [JAB, JAB2])
    s = set_hand(s, 1, [STOMP, STOMP2])
    s["duels"] = 5
    return duel(s, B(0, JAB), B(1, STOMP))


def test_double_ko_with_3_or_more_the_player_eliminated_before_them_wins():
    # Seat 3 out first, seat 2 just before the last two.
    s, _ev = double_ko_of_the_last_two({3: 1, 2: 2})
    assert s["result"] == {
        "winners": [2],
        "ranking": [[2], [0, 1], [3]],
        "reason": "double_ko_previous",
    }


def test_double_ko_after_a_double_ko_collapses_the_multiverse():
    s, ev = double_ko_of_the_last_two({2: 2, 3: 2})  # a double KO before
    assert s["result"]["winners"] == [] and s["result"]["reason"] == "collapse"
    # The end itself is not a log line (the board's result tells the collapse).
    assert "Double KO!" in [mm.describe(e) for e in ev] and mm.describe(ev[-1]) == ""


def test_ruling_turn_cap_the_fewest_wounds_win():
    s = picked(3)
    s["turn"] = mm.TURN_CAP
    wound(s, 1, 2)
    wound(s, 2, 1)
    s, _ = act(s, 0, {"type": "challenge", "target": 2})
    s = set_hand(s, 0, [NOT_TODAY, JAB])
    s = set_hand(s, 2, [FIST_CATCHER, JAB2])
    s, ev = duel(s, B(0, NOT_TODAY), B(2, FIST_CATCHER))
    assert "time_up" in kinds(ev)
    assert s["result"] == {"winners": [0], "ranking": [[0], [2], [1]], "reason": "time"}


# ------------------------------------------------------------------------------------------
# Bots, load, describe, simulate
# ------------------------------------------------------------------------------------------
def test_bots_choose_from_the_legal_actions_and_the_odds_bot_beats_random():
    wins = [0, 0]
    for seed in range(150):
        s = mm.setup(2, seed, {})
        levels = ["odds", "random"] if seed % 2 else ["random", "odds"]
        rng = random.Random(seed)
        while mm.to_act(s):
            seat = mm.to_act(s)[0]
            legal = mm.legal_actions(s, seat)
            action = mm.bot_action(mm.view(s, seat), legal, levels[seat], rng)
            assert action in legal
            s, _ = mm.apply(s, seat, action)
        for w in mm.outcome(s)["winners"]:
            wins[levels[w] == "odds"] += 1
    assert wins[1] > wins[0] * 1.5, wins
    with pytest.raises(ValueError):
        mm.bot_action(mm.view(picked(2), 0), [], "odds", random.Random(0))


def test_odds_bot_blocks_the_only_attack_it_can_expect():
    s = picked(2)
    # everything player 1 may still hold is a kick attack: player 2 should block kicks
    s = set_hand(s, 0, [STOMP, STOMP2, CARTWHEEL])
    s["discards"][0] = [c for c in s["decks"][0] if CARDS[c]["kind"] != "kick"]
    s["decks"][0] = [c for c in s["decks"][0] if CARDS[c]["kind"] == "kick"]
    s = set_hand(s, 1, [SHIN_GUARD, FIST_CATCHER, JAB])
    v = mm.view(s, 1)
    action = mm.bot_action(v, mm.legal_actions(s, 1), "odds", random.Random(1))
    assert action in ({"type": "choose", "card": B(1, SHIN_GUARD)},)


def test_odds_bot_hunts_a_knockout_or_else_challenges_the_leader():
    """Issue 24: a bot challenges an opponent it may knock out (KO_HUNT wounds or more), the
    most wounded of them; otherwise the opponent with the fewest wounds, not the most wounded
    (the whole table ganging up on one Mortadelo made Recover too strong with 5 or 6 players)."""
    s = picked(4)
    me = s["current"]
    assert s["phase"] == "challenge"
    others = [p for p in range(4) if p != me]
    legal = mm.legal_actions(s, me)

    def target(wounds_of_others):
        v = mm.view(s, me)
        for p, w in zip(others, wounds_of_others, strict=True):
            v["wound_counts"][p] = w
        return mm.bot_action(v, legal, "odds", random.Random(5))["target"]

    assert target([1, mm.KO_HUNT, mm.KO_HUNT + 1]) == others[2]  # the likeliest knockout
    assert target([2, 1, 2]) == others[1]  # nobody to knock out: the leader
    assert target([0, 2, 0]) in (others[0], others[2])


def test_load_rejects_a_state_that_does_not_add_up():
    s = picked(3)
    d = mm.dump(s)
    d["hands"][0] = d["hands"][0][1:]
    with pytest.raises(ValueError):
        mm.load(d)
    d = mm.dump(s)
    d["hands"][0][0], d["hands"][1][0] = d["hands"][1][0], d["hands"][0][0]
    with pytest.raises(ValueError):
        mm.load(d)  # a card in another player's zones
    with pytest.raises(ValueError):
        mm.load({"game": "muertoons"})


LEFT_OUT = {"turn", "drew", "no_plus", "market_refilled", "game_over", "challenged", "tortazo"}


def test_every_event_has_a_sentence():
    rng = random.Random(2)
    for seed in range(20):
        s = mm.setup(2 + seed % 5, seed, {})
        while mm.to_act(s):
            seat = rng.choice(mm.to_act(s))
            s, ev = mm.apply(s, seat, rng.choice(mm.legal_actions(s, seat)))
            for e in ev:
                text = mm.describe(e)
                # The board's log leaves out a turn's start, the draws, the market, the end, a
                # duel again after a combo and a Tortazo that wounds nobody: describe too.
                assert text or e["kind"] in LEFT_OUT, e
                assert text != e["kind"], e


# ------------------------------------------------------------------------------------------
# The state machine: random legal play
# ------------------------------------------------------------------------------------------
class MortadeloGame(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.state = None

    @precondition(lambda self: self.state is None)
    @rule(players=st.integers(2, 6), seed=st.integers(0, 2**31))
    def start(self, players, seed):
        self.players, self.seed = players, seed
        self.state = mm.setup(players, seed, {})
        self.log = []
        self.mine = [
            sorted(c for c in BASIC if BASIC[c]["colour"] == COLOURS[p]) for p in range(players)
        ]
        self.all = sorted(mm.cards(self.state))

    @precondition(lambda self: self.state is not None and mm.to_act(self.state))
    @rule(data=st.data())
    def move(self, data):
        s = self.state
        acting = mm.to_act(s)
        seat = data.draw(st.sampled_from(acting))
        legal = mm.legal_actions(s, seat)
        if data.draw(st.booleans()):
            action = mm.bot_action(mm.view(s, seat), legal, "odds", random.Random(len(self.log)))
            assert action in legal
        else:
            action = data.draw(st.sampled_from(legal))
        before = json.dumps(s)
        new, events = mm.apply(s, seat, action)
        assert json.dumps(s) == before  # apply never mutates its input
        text = json.dumps(events)
        for p in range(self.players):
            for token in mm.private(new, p):
                assert token not in text
        self.log.append((seat, action))
        self.state = new

    @precondition(lambda self: self.state is not None and not mm.to_act(self.state))
    @rule()
    def over(self):
        assert mm.outcome(self.state) is not None
        assert mm.legal_actions(self.state, 0) == []

    @invariant()
    def cards_are_conserved_for_every_player(self):
        if self.state is None:
            return
        s = self.state
        assert sorted(mm.cards(s)) == self.all
        plus_seen = []
        for p in range(self.players):
            owned = mm.owned(s, p)
            assert sorted(c for c in owned if c in BASIC) == self.mine[p]
            plus_seen += [c for c in owned if c in PLUS]
        assert sorted(plus_seen + s["plus_deck"] + s["market"]) == sorted(PLUS)
        assert len(s["market"]) == min(4, len(s["market"]) + len(s["plus_deck"]))
        for p in range(self.players):
            assert len(s["wounds"][p]) <= mm.KO_WOUNDS
            assert (s["out"][p] is not None) == (len(s["wounds"][p]) >= mm.KO_WOUNDS)

    @invariant()
    def a_secret_choice_is_never_seen_by_another_seat_before_the_reveal(self):
        if self.state is None:
            return
        s = self.state
        views = {seat: json.dumps(mm.view(s, seat)) for seat in [*range(self.players), None]}
        for p in range(self.players):
            for token in mm.private(s, p):
                for seat, text in views.items():
                    assert (token in text) == (seat == p), (token, seat, p)
        if s["duel"] is not None:
            for p in s["duel"]["seats"]:
                choice = s["duel"]["choices"][p]
                if choice is not None:
                    assert choice in mm.private(s, p)

    @invariant()
    def determinism_from_the_seed(self):
        if self.state is None or len(self.log) % 7:
            return
        replay = mm.setup(self.players, self.seed, {})
        for seat, action in self.log:
            replay, _ = mm.apply(replay, seat, action)
        assert replay == self.state

    def teardown(self):
        """Every game ends: finish this one with random legal moves."""
        if self.state is None:
            return
        s = self.state
        rng = random.Random(self.seed)
        for _ in range(5000):
            if not mm.to_act(s):
                break
            seat = rng.choice(mm.to_act(s))
            s, _ = mm.apply(s, seat, rng.choice(mm.legal_actions(s, seat)))
        assert mm.outcome(s) is not None
        ranked = sorted(p for group in mm.outcome(s)["ranking"] for p in group)
        assert ranked == list(range(self.players))


MortadeloGame.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_mortadelo_state_machine = MortadeloGame.TestCase


def test_ruling_a_duellist_knocked_out_in_this_duel_does_not_meddle_in_it():
    s = picked(3, ["pirate", "chef", "mummy"])
    s, _ = act(s, 0, {"type": "challenge", "target": 1})
    wound(s, 1, 5)
    s = set_hand(s, 0, [HAYMAKER, JAB])
    s = set_hand(s, 1, [MYSTERY_BOOT, JAB2])
    s, ev = duel(s, B(0, HAYMAKER), B(1, MYSTERY_BOOT))
    # player 2 is knocked out first (the turn player's effects come first); its secret blow
    # still lands (Tortazo), its Upgrades are skipped, and it does not meddle with its own blow
    assert [e["kind"] for e in ev if e["kind"] in ("special", "meddle", "eliminated")] == [
        "eliminated",
        "special",
    ]
    skipped = [e for e in ev if e["kind"] == "skipped"]
    upgrades = sum(n for name, n in blow_effects("chef", 3) if name == "upgrade")
    assert upgrades >= 1
    assert skipped == [{"kind": "skipped", "seat": 1, "effect": "upgrade"}] * upgrades
    assert len(s["wounds"][0]) == 3  # Hot Soup Splash: three stars
    assert "meddle" not in [t["do"] for t in s["queue"]] and s["phase"] == "effect"
    assert s["queue"][0] == {"do": "upgrade", "seat": 0, "why": "ko"}


def test_balance_no_mortadelo_strays_far_from_the_rest():
    """The 12 secret blows were balanced per player count with bot games (docs: "Balance",
    measured on checking seeds). A short, seeded run keeps an eye on it: every Mortadelo's
    index (wins per fair share) is within 0.7-1.3 times the mean index (the mean is under 1
    because some games have no winner). With 150 games per Mortadelo one standard error is
    about 0.12 of the mean, so this catches a blow far off, not a few hundredths (it measures
    0.84-1.24 with the blows per player count of 6 December 2026)."""
    rates = mm.character_win_rates(600, seed=7, counts=(2, 3, 4))
    assert set(rates) == set(CHARACTERS)
    assert sum(r["games"] for r in rates.values()) == 600 * 3
    mean = sum(r["index"] for r in rates.values()) / len(rates)
    for key, r in rates.items():
        assert 0.7 * mean <= r["index"] <= 1.3 * mean, (key, r, mean)
