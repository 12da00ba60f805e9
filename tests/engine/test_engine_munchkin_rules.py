"""Munchkin: one test per rulebook passage and per ruling (docs/rules/munchkin.md), the bots,
and a hypothesis state machine over random legal play.

Passages are quoted (shortened) from the Spanish Munchkin rulebook.
"""

import json
import random

import pytest
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine
from hypothesis.stateful import initialize
from hypothesis.stateful import invariant
from hypothesis.stateful import precondition
from hypothesis.stateful import rule

from games.engine import IllegalAction
from games.munchkin import engine as mk
from games.munchkin.cards import ALL_IDS
from games.munchkin.cards import CARDS
from games.munchkin.cards import DOORS
from games.munchkin.cards import TREASURES

from .munchkin_helpers import act
from .munchkin_helpers import arrange
from .munchkin_helpers import card
from .munchkin_helpers import fight
from .munchkin_helpers import hand_of
from .munchkin_helpers import ids
from .munchkin_helpers import kinds
from .munchkin_helpers import on_top
from .munchkin_helpers import pass_all

PASS = {"type": "pass"}
KICK = {"type": "kick"}
ROLL0 = {"type": "roll", "monster": 0}
# Six cards to give away or discard (charity).
SIX_CARDS = ("Dust Bunny", "Lint Golem", "Hangry", "Teeny-Tiny", "Wooden Spoon", "Fizzy Pop Potion")


# ------------------------------------------------------------------------------------------
# Preparación: "Pueden jugar de 3 a 6 jugadores ... Reparte cuatro cartas de cada mazo"
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_setup_deals_four_of_each_deck(players):
    s = mk.setup(players, 7, {})
    assert sorted(mk.cards(s)) == sorted(ALL_IDS) and len(ALL_IDS) == 168
    for hand in s["hands"]:
        assert len(hand) == 8
        assert sum(c in DOORS for c in hand) == 4 and sum(c in TREASURES for c in hand) == 4
    assert len(s["door_deck"]) == 94 - 4 * players
    assert len(s["treasure_deck"]) == 74 - 4 * players
    assert s["levels"] == [1] * players  # "Todo el mundo empieza como un Humano de Nivel 1"
    assert s["races"] == [[]] * players and s["classes"] == [[]] * players


def test_setup_rejects_bad_players_options_and_seed():
    for bad in (2, 7, "3", True):
        with pytest.raises(ValueError):
            mk.setup(bad, 0, {})
    with pytest.raises(ValueError):
        mk.setup(3, 0, {"listen": "maybe"})
    with pytest.raises(ValueError):
        mk.setup(3, 0, {"cheese": "yes"})
    with pytest.raises(ValueError):
        mk.setup(3, "x", {})


def test_setup_is_deterministic_and_seeds_differ():
    assert mk.setup(4, 11, {}) == mk.setup(4, 11, {})
    assert mk.setup(4, 11, {})["hands"] != mk.setup(4, 12, {})["hands"]


# "Mira tus ocho cartas iniciales. Si tienes cualquier carta de Raza o Clase puedes ... jugar
# una de cada tipo ... Si tienes cartas de objeto usables ... puedes jugarlas"
def test_character_creation_each_player_in_turn_then_player_one_starts():
    s = arrange(
        hands=[
            [card("Sprite"), card("Brawler"), card("Colander Helmet"), card("Dust Bunny")],
            [],
            [],
        ],
        phase="create",
    )
    s["turns"] = 0
    acts = mk.legal_actions(s, 0)
    assert {"type": "play", "card": card("Sprite")} in acts
    assert {"type": "play", "card": card("Brawler")} in acts
    assert {"type": "play", "card": card("Colander Helmet")} in acts
    assert all(a.get("card") != card("Dust Bunny") for a in acts)  # no monsters now
    assert {"type": "kick"} not in acts
    s, _ = act(s, 0, {"type": "play", "card": card("Sprite")})
    s, _ = act(s, 0, {"type": "play", "card": card("Colander Helmet")})
    assert s["races"][0] == [card("Sprite")] and s["used"][0] == [card("Colander Helmet")]
    s, _ = act(s, 0, {"type": "ready"})
    assert mk.to_act(s) == (1,)
    s, _ = act(s, 1, {"type": "ready"})
    s, ev = act(s, 2, {"type": "ready"})
    assert s["phase"] == "prep" and mk.to_act(s) == (0,) and "turn" in kinds(ev)


# ------------------------------------------------------------------------------------------
# Gestión de las cartas: "Cuando un mazo se quede sin cartas, vuelve a barajar sus descartes.
# Si un mazo se acaba y no hay descartes, nadie puede robar una carta de ese tipo."
# ------------------------------------------------------------------------------------------
def test_empty_deck_reshuffles_its_discards():
    s = arrange(phase="trouble")
    s["door_discard"] = s["door_deck"]
    s["door_deck"] = []
    s, ev = act(s, 0, {"type": "loot"})
    assert "reshuffled" in kinds(ev)
    assert len(s["hands"][0]) == 1 and len(s["door_deck"]) == 93 and s["door_discard"] == []


def test_no_card_when_deck_and_discards_are_empty():
    s = arrange(phase="trouble")
    hold = s["door_deck"]
    s["door_deck"] = []
    s["hands"][1] = hold  # somebody holds every door card
    s, ev = act(s, 0, {"type": "loot"})
    assert s["hands"][0] == [] and ev[0]["got"] is False


# "Tu mano: Las cartas que tienes en tu mano no están en juego." Other hands are only counts.
def test_view_shows_only_your_own_hand():
    s = mk.setup(4, 3, {})
    for seat in range(4):
        text = json.dumps(mk.view(s, seat))
        for other in range(4):
            for cid in s["hands"][other]:
                assert (cid in text) == (other == seat)
    spectator = mk.view(s, None)
    assert "hand" not in spectator
    assert [c["hand_count"] for c in spectator["characters"]] == [8, 8, 8, 8]


# ------------------------------------------------------------------------------------------
# The four rules no card can break
# ------------------------------------------------------------------------------------------
# "1. Nada puede reducir el Nivel de un jugador por debajo de 1"
def test_rule1_level_never_below_one_but_combat_strength_can_be():
    s = arrange(
        hands=[[], [card("Double Tickle Spell"), card("Sleepy Yawn Curse")], []],
        levels=[1, 1, 1],
    )
    s["current"] = 1
    s, ev = act(s, 1, {"type": "curse", "card": card("Double Tickle Spell"), "target": 0})
    assert s["levels"][0] == 1 and ev[-1] == {"kind": "lost_levels", "seat": 0, "n": 0}
    s, _ = act(s, 1, {"type": "curse", "card": card("Sleepy Yawn Curse"), "target": 0})
    s["current"] = 0
    on_top(s, card("Dust Bunny"))
    s, _ = act(s, 0, KICK)
    assert mk.strengths(s)["players_total"] == 1 - 3


# "2. Sólo subes de Nivel tras el combate si matas un monstruo / 3. No puedes recibir las
# recompensas en mitad de un combate"
def test_rule2_3_no_level_up_card_and_no_reward_during_combat():
    s = arrange(
        hands=[
            [card("Won the Spelling Bee"), card("Fizzy Pop Potion")],
            [card("Wooden Spoon")],
            [],
        ],
        door_top=[card("Dust Bunny")],
        levels=[3, 1, 1],
    )
    s, _ = fight(s)
    acts = mk.legal_actions(s, 0)
    assert all(a["type"] != "levelup" for a in acts)
    with pytest.raises(IllegalAction, match="middle of a combat"):
        mk.apply(s, 0, {"type": "levelup", "card": card("Won the Spelling Bee")})
    s, _ = act(s, 0, PASS)
    assert s["levels"][0] == 3 and s["phase"] == "combat"  # nothing yet
    s, ev = pass_all(s)
    assert s["levels"][0] == 4 and "won" in kinds(ev)


# "4. Debes matar a un monstruo para alcanzar el Nivel 10."
def test_rule4_level_ten_only_by_killing():
    s = arrange(
        hands=[
            [card("Won the Spelling Bee"), card("Trophy for Trying"), card("Stinky Cheese Wedge")],
            [],
            [],
        ],
        levels=[9, 1, 1],
    )
    s["turn"]["purse"] = 500  # already sold 500 gold of things this turn
    acts = mk.legal_actions(s, 0)
    assert all(a["type"] != "levelup" for a in acts)
    assert {"type": "sell", "card": card("Trophy for Trying")} not in acts  # 1,400: level 10
    assert {"type": "sell", "card": card("Stinky Cheese Wedge")} in acts  # 900: no level yet
    with pytest.raises(IllegalAction, match="level 10"):
        mk.apply(s, 0, {"type": "levelup", "card": card("Won the Spelling Bee")})
    with pytest.raises(IllegalAction, match="buy level 10"):
        mk.apply(s, 0, {"type": "sell", "card": card("Trophy for Trying")})
    on_top(s, card("Dust Bunny"))
    s, _ = fight(s)
    s, _ = pass_all(s)
    assert s["phase"] == "over" and s["result"]["winners"] == [0]
    assert s["result"]["reason"] == "level10" and mk.to_act(s) == ()
    with pytest.raises(IllegalAction, match="over"):
        mk.apply(s, 0, PASS)


# ------------------------------------------------------------------------------------------
# Fases del turno
# ------------------------------------------------------------------------------------------
# "1) Abrir una puerta ... Si es un monstruo, debes luchar contra él."
def test_kick_open_door_monster_means_combat():
    s = arrange(door_top=[card("Bossy Pigeon")])
    s, ev = act(s, 0, KICK)
    assert s["phase"] == "combat" and ev[0]["what"] == "monster"
    assert s["combat"]["monsters"] == [{"card": card("Bossy Pigeon"), "enh": []}]
    assert s["door"] == {"name": "Bossy Pigeon", "kind": "monster"}


# "Si la carta es una Maldición ... sus efectos se te aplican inmediatamente"
def test_kick_open_door_curse_hits_you():
    s = arrange(levels=[3, 1, 1], door_top=[card("Tickle Spell")])
    s, _ = act(s, 0, KICK)
    assert s["levels"][0] == 2 and s["phase"] == "trouble"
    assert card("Tickle Spell") in s["door_discard"]


# "Si sacas una carta de cualquier otro tipo, puedes ponerla en tu mano"
def test_kick_open_door_other_card_goes_to_hand_and_is_named_in_public():
    s = arrange(door_top=[card("Sprite")])
    s, ev = act(s, 0, KICK)
    assert s["hands"][0] == [card("Sprite")] and s["phase"] == "trouble"
    assert ev[0]["name"] == "Sprite"  # it was face up
    assert {"type": "play", "card": card("Sprite")} in mk.legal_actions(s, 0)


# "2) Buscar problemas: ... jugar un monstruo de tu mano ... y luchar contra él"
def test_look_for_trouble_with_a_monster_from_hand():
    s = arrange(hands=[[card("Dust Bunny")], [], []], phase="trouble", levels=[2, 1, 1])
    s, ev = act(s, 0, {"type": "fight", "card": card("Dust Bunny")})
    assert kinds(ev)[:2] == ["trouble", "combat"]
    # nobody else has anything: the windows of the others close at once
    s, ev = act(s, 0, PASS)
    assert "won" in kinds(ev) and s["levels"][0] == 3 and s["phase"] == "charity"


# "3) Saquear la habitación: ... roba otra carta del mazo de Dungeon, boca abajo"
def test_loot_the_room_face_down():
    s = arrange(phase="trouble", door_top=[card("Hangry")])
    s, ev = act(s, 0, {"type": "loot"})
    assert s["hands"][0] == [card("Hangry")] and s["phase"] == "charity"
    assert "Hangry" not in json.dumps(ev)  # face down: nobody else learns it
    assert "Hangry" not in json.dumps(mk.view(s, 1))


# "Si te encontraste con un monstruo pero huiste, no puedes saquear la habitación."
def test_no_looting_after_running_away(dice):
    s = arrange(door_top=[card("Bossy Pigeon")])
    s, _ = fight(s)
    s, _ = pass_all(s)
    assert s["phase"] == "run"
    dice.append(6)
    s, _ = act(s, 0, ROLL0)
    assert s["phase"] == "charity"
    assert {"type": "loot"} not in mk.legal_actions(s, 0)
    assert {"type": "end_turn"} in mk.legal_actions(s, 0)


# "4) Caridad: ... un máximo de 5 cartas ... regalar las cartas sobrantes al jugador con menor
# Nivel. ... Si TÚ eres el jugador de Nivel más bajo ... descarta el exceso."
def test_charity_gives_the_excess_to_the_lowest_level():
    hand = [
        card("Dust Bunny"),
        card("Lint Golem"),
        card("Hangry"),
        card("Teeny-Tiny"),
        card("Wooden Spoon"),
        card("Fizzy Pop Potion"),
        card("Surprise Guest"),
    ]
    s = arrange(hands=[hand, [], []], levels=[3, 1, 2], phase="charity")
    s, ev = act(s, 0, {"type": "end_turn"})
    assert s["phase"] == "give" and ev[0]["n"] == 2
    acts = mk.legal_actions(s, 0)
    assert {a["to"] for a in acts} == {1}
    s, _ = act(s, 0, {"type": "give", "card": card("Dust Bunny"), "to": 1})
    s, ev = act(s, 0, {"type": "give", "card": card("Lint Golem"), "to": 1})
    assert len(s["hands"][0]) == 5 and len(s["hands"][1]) == 2
    assert mk.to_act(s) == (1,) and s["phase"] == "prep"
    assert "Dust Bunny" not in json.dumps(ev)


def test_charity_split_between_tied_lowest_as_evenly_as_possible():
    hand = hand_of(*SIX_CARDS, "Surprise Guest", "Pillow Ghost")
    s = arrange(players=4, hands=[hand, [], [], []], levels=[4, 2, 2, 3], phase="charity")
    s, _ = act(s, 0, {"type": "end_turn"})
    first = mk.legal_actions(s, 0)
    assert {a["to"] for a in first} == {1, 2}
    s, _ = act(s, 0, {"type": "give", "card": hand[0], "to": 2})
    assert {a["to"] for a in mk.legal_actions(s, 0)} == {1}  # the other one's turn to get one
    s, _ = act(s, 0, {"type": "give", "card": hand[1], "to": 1})
    assert {a["to"] for a in mk.legal_actions(s, 0)} == {1, 2}


def test_charity_lowest_level_discards():
    hand = hand_of(*SIX_CARDS)
    s = arrange(hands=[hand, [], []], levels=[2, 2, 5], phase="charity")
    s, _ = act(s, 0, {"type": "end_turn"})
    assert {a["type"] for a in mk.legal_actions(s, 0)} == {"discard"}
    s, _ = act(s, 0, {"type": "discard", "card": card("Hangry")})
    assert card("Hangry") in s["door_discard"] and s["current"] == 1


def test_stoutling_hand_limit_is_six():
    hand = hand_of(*SIX_CARDS)
    s = arrange(
        hands=[hand, [], []], races=[[card("Stoutling")], [], []], phase="charity", levels=[3, 1, 1]
    )
    s, _ = act(s, 0, {"type": "end_turn"})
    assert s["current"] == 1 and len(s["hands"][0]) == 6


# ------------------------------------------------------------------------------------------
# Combate: "La fuerza de combate es el resultado de la suma del Nivel y todos los
# modificadores ... Si la fuerza de combate del monstruo es igual o superior a la tuya, pierdes"
# ------------------------------------------------------------------------------------------
def test_strength_is_level_plus_items_and_ties_go_to_the_monster():
    s = arrange(
        levels=[2, 1, 1],
        items=[[card("Colander Helmet"), card("Wooden Spoon")], [], []],
        door_top=[card("Mud Wrestler Walrus")],  # level 9
    )
    s["levels"][0] = 7
    s, _ = fight(s)
    st_ = mk.strengths(s)
    assert st_["players_total"] == 9 and st_["monsters_total"] == 9
    assert [p["kind"] for p in st_["players"]] == ["level", "item", "item"]
    assert not st_["winning"]
    s, ev = pass_all(s)
    assert s["phase"] == "run" and "lost" in kinds(ev)


# Card text beats the rulebook: the Brawler "wins ties with monsters".
def test_brawler_wins_ties():
    s = arrange(
        levels=[3, 1, 1], classes=[[card("Brawler")], [], []], door_top=[card("Pillow Ghost")]
    )
    s, _ = fight(s)
    assert mk.strengths(s)["winning"]
    s, ev = pass_all(s)
    assert "won" in kinds(ev) and s["levels"][0] == 4


def test_kill_gives_levels_and_treasure_face_down():
    s = arrange(
        levels=[8, 1, 1],
        items=[[card("Giant Lollipop Mace"), card("Thinking Cap"), card("Puffy Jacket")], [], []],
        door_top=[card("Ghost Pirate Captain")],
    )
    # 8 + 4 + 3 + 2 = 17 > 16
    s, _ = fight(s)
    top = s["treasure_deck"][-4:]
    s, ev = pass_all(s)
    assert s["levels"][0] == 10  # two levels for a big one, and the game is won
    assert s["result"]["winners"] == [0]
    assert sorted(s["hands"][0]) == sorted(top)
    assert not any(CARDS[c]["name"] in json.dumps(ev) for c in top)  # face down


# "Las capacidades especiales ... del monstruo también se aplican a tu ayudante"
def test_monster_bonus_against_a_race_counts_once_for_fighter_or_helper():
    s = arrange(
        levels=[5, 3, 1],
        races=[[], [card("Sprite")], []],
        hands=[[], [card("Wooden Spoon")], []],
        door_top=[card("Wobbly Jelly")],
    )
    s, _ = fight(s)
    assert mk.strengths(s)["monsters_total"] == 2
    s, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 0})
    s, _ = act(s, 1, {"type": "accept"})
    st_ = mk.strengths(s)
    assert st_["monsters_total"] == 5 and st_["players_total"] == 8
    assert st_["monsters"][0]["parts"][-1] == {"kind": "against", "who": "sprite", "value": 3}


# ------------------------------------------------------------------------------------------
# Interruptions: "Entrometerse en el combate" — every player gets a window, the combat
# resolves when all have passed in a row.
# ------------------------------------------------------------------------------------------
def test_every_player_gets_an_anyone_window_and_a_card_reopens_them():
    s = arrange(
        players=4,
        levels=[4, 1, 1, 1],
        hands=[
            [],
            [card("Hangry"), card("Lint Golem")],
            [card("Fizzy Pop Potion"), card("Pillow Ghost")],
            [card("Wooden Spoon")],
        ],
        door_top=[card("Dust Bunny")],
    )
    s, _ = fight(s)
    assert mk.to_act(s) == (0,)
    s, _ = act(s, 0, PASS)
    assert mk.to_act(s) == (1,)
    s, _ = act(s, 1, {"type": "enhance", "card": card("Hangry"), "monster": 0})
    assert s["combat"]["passes"] == 0 and mk.to_act(s) == (2,)
    assert mk.strengths(s)["monsters_total"] == 6
    s, _ = act(s, 2, {"type": "oneshot", "card": card("Fizzy Pop Potion"), "side": "players"})
    for seat in (3, 0, 1, 2):
        assert mk.to_act(s) == (seat,)
        assert mk.legal_actions(s, (seat + 1) % 4) == []
        s, ev = act(s, seat, PASS)
    assert "lost" in kinds(ev)  # 4 + 2 = 6 against 1 + 5 = 6: a tie goes to the monster


def test_seats_with_nothing_at_all_pass_at_once():
    s = arrange(levels=[2, 1, 1], hands=[[], [], [card("Hangry")]], door_top=[card("Dust Bunny")])
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    assert mk.to_act(s) == (2,)  # seat 1 holds nothing: its window closes by itself


# "Jugando una carta para mejorar a un monstruo ... aumentan su Tesoro"
def test_enhancers_change_strength_and_treasure():
    s = arrange(
        levels=[9, 1, 1],
        hands=[[], [card("Grumpy Great-Grandpa")], [card("Teeny-Tiny")]],
        items=[[card("Giant Lollipop Mace"), card("Thinking Cap"), card("Puffy Jacket")], [], []],
        door_top=[card("Dust Bunny")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    s, _ = act(s, 1, {"type": "enhance", "card": card("Grumpy Great-Grandpa"), "monster": 0})
    s, _ = act(s, 2, {"type": "enhance", "card": card("Teeny-Tiny"), "monster": 0})
    assert mk.strengths(s)["monsters_total"] == 1 + 10 - 5
    assert s["combat"]["monsters"][0]["enh"] == [card("Grumpy Great-Grandpa"), card("Teeny-Tiny")]
    assert mk.view(s, 1)["combat"]["treasures"] == 1 + 2 - 1


# "Mientras estés luchando en un combate no puedes vender, ... poner en uso, dejar de usar,
# intercambiar, o jugar objetos (a excepción de los de un solo uso) desde tu mano."
def test_no_selling_equipping_or_trading_in_combat():
    s = arrange(
        levels=[2, 1, 1],
        hands=[[card("Wooden Spoon"), card("Fizzy Pop Potion")], [], []],
        items=[[card("Colander Helmet")], [card("Puffy Jacket")], []],
        door_top=[card("Dust Bunny")],
    )
    s, _ = fight(s)
    types = {a["type"] for a in mk.legal_actions(s, 0)}
    assert not types & {"sell", "play", "use", "stow", "offer", "levelup"}
    assert "oneshot" in types


# One-shots "de tu mano o que ya tuvieses en juego": +N to either side, discarded afterwards
def test_one_shot_from_table_or_hand_for_either_side_discarded_after(dice):
    s = arrange(
        levels=[2, 1, 1],
        hands=[[], [card("Fizzy Pop Potion", 1)], []],
        items=[[card("Fizzy Pop Potion")], [], []],
        door_top=[card("Lint Golem")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "oneshot", "card": card("Fizzy Pop Potion"), "side": "players"})
    s, _ = act(s, 1, {"type": "oneshot", "card": card("Fizzy Pop Potion", 1), "side": "monsters"})
    st_ = mk.strengths(s)
    assert (st_["players_total"], st_["monsters_total"]) == (4, 4)
    s, _ = pass_all(s)
    assert s["phase"] == "run"
    dice.append(6)
    s, _ = act(s, 0, ROLL0)
    for n in (0, 1):
        assert card("Fizzy Pop Potion", n) in s["treasure_discard"]


# ------------------------------------------------------------------------------------------
# Pedir ayuda: "Sólo puede ayudarte un jugador ... Puedes sobornar a alguien"
# ------------------------------------------------------------------------------------------
def test_ask_for_help_declined_then_another_accepts_for_treasure():
    s = arrange(
        players=4,
        levels=[3, 2, 4, 1],
        door_top=[card("Bathtub Kraken")],
        hands=[
            [],
            [card("Wooden Spoon")],
            [card("Feather Duster")],
            [],
        ],
    )
    s, _ = fight(s)
    acts = mk.legal_actions(s, 0)
    assert {"type": "ask_help", "to": 2, "treasures": 2} in acts
    assert {"type": "ask_help", "to": 2, "treasures": 3} not in acts  # the monster has 2
    s, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 1})
    assert s["phase"] == "help" and mk.to_act(s) == (1,)
    assert mk.view(s, 3)["combat"]["bribe"] == {"treasures": 1, "item": None}
    s, ev = act(s, 1, {"type": "decline"})
    assert mk.to_act(s) == (0,) and s["phase"] == "combat"
    assert all(a.get("to") != 1 for a in mk.legal_actions(s, 0) if a["type"] == "ask_help")
    s, _ = act(s, 0, {"type": "ask_help", "to": 2, "treasures": 1})
    s, _ = act(s, 2, {"type": "accept"})
    assert s["combat"]["helper"] == 2
    assert all(a["type"] != "ask_help" for a in mk.legal_actions(s, 0))  # only one helper
    top = list(reversed(s["treasure_deck"][-2:]))
    s, ev = pass_all(s)
    assert "won" in kinds(ev)
    assert s["levels"] == [4, 2, 4, 1]  # a level for the fighter, none for the helper
    assert top[0] in s["hands"][2] and top[1] in s["hands"][0]
    shown = next(e for e in ev if e["kind"] == "treasure_shown")  # face up: somebody helped
    assert [n for _, n in shown["cards"]] == [CARDS[c]["name"] for c in top]


def test_bribe_with_an_item_changes_hands_when_help_is_accepted():
    s = arrange(
        levels=[3, 3, 1],
        items=[[card("Wooden Spoon"), card("Colander Helmet")], [], []],
        door_top=[card("Bathtub Kraken")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "ask_help", "to": 1, "item": card("Colander Helmet")})
    s, _ = act(s, 1, {"type": "accept"})
    assert card("Colander Helmet") in s["items"][1]
    assert card("Colander Helmet") not in s["used"][1]  # no changing items in a combat
    assert mk.strengths(s)["players_total"] == 3 + 1 + 3


# "Tu ayudante no lo hace... a menos que sea un Elfo" — our Sprite
def test_sprite_helper_goes_up_a_level_per_monster():
    s = arrange(
        levels=[4, 2, 1],
        races=[[], [card("Sprite")], []],
        door_top=[card("Bossy Pigeon")],
        hands=[[], [], [card("Dust Bunny"), card("Surprise Guest")]],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 0})
    s, _ = act(s, 1, {"type": "accept"})
    s, _ = act(
        s, 2, {"type": "wander", "card": card("Surprise Guest"), "monster_card": card("Dust Bunny")}
    )
    assert len(s["combat"]["monsters"]) == 2
    s, ev = pass_all(s)
    assert "won" in kinds(ev) and s["levels"] == [6, 4, 1]


# Quick play: "Si un jugador llega a Nivel 10 en un combate en el que recibió ayuda, el
# jugador que le ayudó también gana la partida"
@pytest.mark.parametrize("shared, winners", [("no", [0]), ("yes", [0, 1])])
def test_shared_victory_option(shared, winners):
    s = arrange(
        levels=[9, 4, 1], door_top=[card("Mud Wrestler Walrus")], options={"shared_victory": shared}
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 0})
    s, _ = act(s, 1, {"type": "accept"})
    s, _ = pass_all(s)
    assert s["result"]["winners"] == winners


# ------------------------------------------------------------------------------------------
# Combate contra varios monstruos
# ------------------------------------------------------------------------------------------
def test_wandering_monster_joins_and_strengths_add_up():
    s = arrange(
        levels=[6, 1, 1],
        hands=[[], [card("Surprise Guest"), card("Lint Golem")], []],
        door_top=[card("Dust Bunny")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    s, _ = act(
        s, 1, {"type": "wander", "card": card("Surprise Guest"), "monster_card": card("Lint Golem")}
    )
    st_ = mk.strengths(s)
    assert st_["monsters_total"] == 3 and len(st_["monsters"]) == 2
    s, _ = pass_all(s)
    assert s["levels"][0] == 8 and len(s["hands"][0]) == 2  # a level and a treasure each


# "puedes eliminar a un monstruo del combate ... Si eliminas a uno de ellos con una carta ...
# pero después huyes de los demás, no recibes ningún Tesoro."
def test_removing_a_monster_then_running_from_the_other_gives_no_treasure(dice):
    s = arrange(
        levels=[3, 1, 1],
        classes=[[card("Spellsinger")], [], []],
        hands=[
            [card("Wooden Spoon"), card("Hangry"), card("Lint Golem")],
            [card("Surprise Guest"), card("Cranky Cactus")],
            [],
        ],
        door_top=[card("Bossy Pigeon")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    s, _ = act(
        s,
        1,
        {"type": "wander", "card": card("Surprise Guest"), "monster_card": card("Cranky Cactus")},
    )
    assert mk.to_act(s) == (0,)
    s, ev = act(s, 0, {"type": "lullaby", "monster": 0})  # sings the pigeon to sleep
    assert s["hands"][0] == [] and s["combat"]["removed"][0]["keep"]
    assert mk.view(s, 1)["combat"]["treasures"] == 2 + 2
    s, ev = pass_all(s)
    assert "lost" in kinds(ev)
    dice.append(6)
    s, _ = act(s, 0, ROLL0)
    assert s["hands"][0] == [] and s["levels"][0] == 3 and s["phase"] == "charity"


def test_lullaby_on_the_only_monster_keeps_its_treasure_without_a_level():
    s = arrange(
        levels=[1, 1, 1],
        classes=[[card("Spellsinger")], [], []],
        hands=[[card("Wooden Spoon"), card("Hangry"), card("Lint Golem")], [], []],
        door_top=[card("Bossy Pigeon")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "lullaby", "monster": 0})
    s, ev = pass_all(s)
    assert "won" in kinds(ev) and s["levels"][0] == 1 and len(s["hands"][0]) == 2


def test_bubble_wand_removes_a_monster_without_treasure():
    s = arrange(
        levels=[1, 1, 1], hands=[[card("Bubble Wand")], [], []], door_top=[card("Bossy Pigeon")]
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "oneshot", "card": card("Bubble Wand"), "monster": 0})
    s, _ = pass_all(s)
    assert s["levels"][0] == 1 and s["hands"][0] == [] and s["phase"] == "charity"
    assert card("Bossy Pigeon") in s["door_discard"]


# ------------------------------------------------------------------------------------------
# Huir: "Sólo consigues escapar con un 5 o más. ... tirar el dado por separado para escapar de
# cada uno de ellos, en el orden que elijas ... ambos deben Huir. Deben tirar por separado."
# ------------------------------------------------------------------------------------------
def test_run_away_on_five_or_more(dice):
    s = arrange(levels=[3, 1, 1], door_top=[card("Bossy Pigeon")])
    s, _ = fight(s)
    s, ev = pass_all(s)
    assert s["phase"] == "run" and mk.legal_actions(s, 0) == [ROLL0]
    dice.append(4)
    s, ev = act(s, 0, ROLL0)
    assert ev[0]["escaped"] is False and s["levels"][0] == 2  # Bad Stuff: lose a level
    s2 = arrange(levels=[3, 1, 1], door_top=[card("Bossy Pigeon")])
    s2, _ = fight(s2)
    s2, _ = pass_all(s2)
    dice.append(5)
    s2, ev = act(s2, 0, ROLL0)
    assert ev[0]["escaped"] is True and s2["levels"][0] == 3


def test_run_modifiers_sprite_items_monster_and_chicken(dice):
    s = arrange(
        levels=[1, 1, 1],
        races=[[card("Sprite")], [], []],
        items=[[card("Rocket Wellies")], [], []],
        curses=[[card("Clucking Bonnet")], [], []],
        door_top=[card("Crabby Crab")],
    )
    s, _ = fight(s)
    s, _ = pass_all(s)
    assert mk.view(s, 0)["run"]["bonus"] == 1 + 2 - 1
    dice.append(2)  # 2 + 2 (bonus) - 1 (fast crab) = 3: caught
    s, ev = act(s, 0, ROLL0)
    assert ev[0]["bonus"] == 1 and not ev[0]["escaped"]
    assert card("Rocket Wellies") not in s["items"][0]  # Bad Stuff: lose your footgear


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5, 6])
def test_the_view_tells_the_roll_that_escapes(dice, die):
    """view()["run"]["left"][i]["need"]: the die roll that escapes that monster, with every
    modifier (Sprite +1, Rocket Wellies +2, Chicken -1, the fast Crabby Crab -1): 4 here."""
    s = arrange(
        levels=[1, 1, 1],
        races=[[card("Sprite")], [], []],
        items=[[card("Rocket Wellies")], [], []],
        curses=[[card("Clucking Bonnet")], [], []],
        door_top=[card("Crabby Crab")],
    )
    s, _ = fight(s)
    s, _ = pass_all(s)
    need = mk.view(s, 0)["run"]["left"][0]["need"]
    assert need == 4
    dice.append(die)
    s, ev = act(s, 0, ROLL0)
    assert ev[0]["escaped"] is (die >= need)


def test_each_monster_separately_in_the_order_you_choose(dice):
    s = arrange(
        levels=[1, 1, 1],
        hands=[[], [card("Surprise Guest"), card("Dust Bunny")], []],
        items=[[card("Colander Helmet")], [], []],
        door_top=[card("Lint Golem")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    s, _ = act(
        s, 1, {"type": "wander", "card": card("Surprise Guest"), "monster_card": card("Dust Bunny")}
    )
    s, _ = pass_all(s)
    assert [a for a in mk.legal_actions(s, 0) if a["type"] == "roll"] == [
        {"type": "roll", "monster": 0},
        {"type": "roll", "monster": 1},
    ]
    dice.extend([1, 6])
    s, _ = act(s, 0, {"type": "roll", "monster": 1})  # the Dust Bunny first: lose the hat
    assert s["items"][0] == [] and s["phase"] == "run"
    assert mk.legal_actions(s, 0) == [{"type": "roll", "monster": 0}]
    s, _ = act(s, 0, {"type": "roll", "monster": 0})
    assert s["phase"] == "charity" and s["levels"][0] == 1


def test_fighter_and_helper_both_run(dice):
    s2 = arrange(levels=[1, 1, 1], door_top=[card("Cranky Cactus")])
    s2, _ = fight(s2)
    s2, _ = act(s2, 0, {"type": "ask_help", "to": 1, "treasures": 1})
    s2, _ = act(s2, 1, {"type": "accept"})
    s2, _ = pass_all(s2)
    assert mk.to_act(s2) == (0,)
    dice.extend([6, 1])
    s2, _ = act(s2, 0, ROLL0)
    assert mk.to_act(s2) == (1,) and s2["phase"] == "run"
    s2, ev = act(s2, 1, ROLL0)
    assert "bad_stuff" in kinds(ev) and s2["phase"] == "charity"


def test_monster_that_will_not_chase_low_levels(dice):
    s = arrange(
        levels=[2, 1, 1],
        door_top=[card("Moody Cloud")],
        hands=[[card("Wooden Spoon"), card("Hangry")], [], []],
    )
    s, _ = fight(s)
    s, ev = pass_all(s)
    assert "not_chased" in kinds(ev) and s["phase"] == "charity"
    assert len(s["hands"][0]) == 2


def test_escape_one_shot_and_flutter_spell(dice):
    s = arrange(
        levels=[1, 1, 1],
        classes=[[card("Spellsinger")], [], []],
        hands=[[card("Smoke Puff"), card("Hangry"), card("Lint Golem")], [], []],
        door_top=[card("Zombie Lunch Lady")],
    )
    s, _ = fight(s)
    s, _ = pass_all(s)
    acts = mk.legal_actions(s, 0)
    assert {"type": "escape", "card": card("Smoke Puff"), "monster": 0} in acts
    assert {"type": "flutter", "card": card("Hangry")} in acts
    s, _ = act(s, 0, {"type": "flutter", "card": card("Hangry")})
    assert mk.view(s, 0)["run"]["bonus"] == 1
    s, _ = act(s, 0, {"type": "escape", "card": card("Smoke Puff"), "monster": 0})
    assert s["phase"] == "charity" and not s["dead"][0]


# ------------------------------------------------------------------------------------------
# Muerte: "pierdes todas tus cosas. Conservas tu Clase ..., tu Raza ... y tu Nivel ... Empezando
# por el jugador de Nivel más alto cada jugador escoge una carta ... el resto se descarta."
# ------------------------------------------------------------------------------------------
def test_death_looting_the_body_and_coming_back(dice):
    s = arrange(
        players=4,
        levels=[4, 2, 5, 3],
        races=[[card("Sprite")], [], [], []],
        classes=[[card("Healer")], [], [], []],
        curses=[[card("Clucking Bonnet")], [], [], []],
        hands=[[card("Wooden Spoon"), card("Hangry")], [], [], []],
        items=[[card("Puffy Jacket"), card("Bunny Slippers")], [], [], []],
        door_top=[card("Zombie Lunch Lady")],
    )
    s, _ = fight(s)
    s, _ = pass_all(s)
    dice.extend([1, 3, 4, 5])  # caught; then the three pickers' tie-break rolls
    s, ev = act(s, 0, ROLL0)
    assert "died" in kinds(ev) and s["dead"][0]
    assert s["phase"] == "loot_body" and s["loot"]["order"] == [2, 3, 1]  # highest level first
    assert s["races"][0] and s["classes"][0] and s["levels"][0] == 4 and s["curses"][0]
    assert sorted(s["loot"]["cards"]) == sorted(
        [card("Wooden Spoon"), card("Hangry"), card("Puffy Jacket"), card("Bunny Slippers")]
    )
    s, _ = act(s, 2, {"type": "take", "card": card("Puffy Jacket")})
    s, _ = act(s, 3, {"type": "take", "card": card("Hangry")})
    s, _ = act(s, 1, {"type": "take", "card": card("Wooden Spoon")})
    assert card("Bunny Slippers") in s["treasure_discard"]  # the rest is discarded
    assert s["phase"] == "charity" and mk.to_act(s) == (0,)
    s, _ = act(s, 0, {"type": "end_turn"})
    # the dead can receive nothing (not even charity) until their next turn
    assert 0 not in mk._charity_targets(s, 1)
    for seat in (1, 2, 3):
        s["phase"] = "charity"
        s["current"] = seat
        s, _ = act(s, seat, {"type": "end_turn"})
    assert s["current"] == 0 and not s["dead"][0]
    assert len(s["hands"][0]) == 8  # four of each deck


def test_the_dead_get_no_charity():
    hand = hand_of(*SIX_CARDS)
    s = arrange(hands=[hand, [], []], levels=[5, 1, 2], phase="charity")
    s["dead"][1] = True
    s, _ = act(s, 0, {"type": "end_turn"})
    assert {a.get("to") for a in mk.legal_actions(s, 0)} == {2}


# ------------------------------------------------------------------------------------------
# Maldiciones
# ------------------------------------------------------------------------------------------
# "pueden ser jugadas sobre CUALQUIER jugador en CUALQUIER momento" — on your turn and in every
# combat window (ruling)
def test_curse_in_someone_elses_combat_window():
    s = arrange(
        levels=[5, 1, 1], hands=[[], [card("Tickle Spell")], []], door_top=[card("Pillow Ghost")]
    )
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    s, _ = act(s, 1, {"type": "curse", "card": card("Tickle Spell"), "target": 0})
    assert s["levels"][0] == 4 and mk.to_act(s) == (0,)  # everybody may answer again
    assert mk.strengths(s)["players_total"] == 4


# "Si cuando estás en un combate alguien juega sobre ti una Maldición que tiene efecto 'en tu
# siguiente combate', la carta cuenta para el combate en el que estás"
def test_next_combat_curse_counts_in_the_current_combat_and_then_goes(dice):
    s = arrange(
        levels=[5, 1, 1],
        hands=[[], [card("Sleepy Yawn Curse")], []],
        door_top=[card("Pillow Ghost")],
    )
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    s, _ = act(s, 1, {"type": "curse", "card": card("Sleepy Yawn Curse"), "target": 0})
    assert mk.strengths(s)["players_total"] == 2
    s, _ = pass_all(s)
    assert s["phase"] == "run" and s["curses"][0] == [card("Sleepy Yawn Curse")]
    dice.append(6)
    s, _ = act(s, 0, ROLL0)
    assert s["curses"][0] == [] and card("Sleepy Yawn Curse") in s["door_discard"]


def test_kept_curse_waits_for_the_next_combat():
    s = arrange(
        levels=[5, 1, 1], curses=[[card("Wet Sock Curse")], [], []], door_top=[card("Dust Bunny")]
    )
    s, _ = fight(s)
    assert mk.strengths(s)["players_total"] == 3
    s, _ = pass_all(s)
    assert s["curses"][0] == [] and card("Wet Sock Curse") in s["door_discard"]


# "Si una Maldición se aplica a algo que no tengas, ignórala."
def test_curse_on_something_you_do_not_have_is_ignored():
    s = arrange(door_top=[card("Silly Hat Hex")])
    s, ev = act(s, 0, KICK)
    assert "nothing_to_lose" in kinds(ev) and card("Silly Hat Hex") in s["door_discard"]


# "Si una Maldición puede aplicarse a más de un objeto, la víctima decide" — the game chooses
# for the victim the least useful (ruling)
def test_victim_loses_the_least_useful_small_item():
    s = arrange(
        items=[[card("Thinking Cap"), card("Wooden Spoon"), card("Lucky Rabbit Slipper")], [], []],
        door_top=[card("Butterfingers")],
    )
    s, _ = act(s, 0, KICK)
    assert card("Wooden Spoon") not in s["items"][0]


def test_un_curse_cookie_removes_a_kept_curse():
    s = arrange(
        hands=[[card("Un-Curse Cookie")], [], []], curses=[[card("Clucking Bonnet")], [], []]
    )
    s, _ = act(
        s,
        0,
        {"type": "uncurse", "card": card("Un-Curse Cookie"), "curse": card("Clucking Bonnet")},
    )
    assert s["curses"][0] == [] and card("Clucking Bonnet") in s["door_discard"]


# ------------------------------------------------------------------------------------------
# Razas y Clases
# ------------------------------------------------------------------------------------------
def test_one_race_unless_half_and_half_and_never_two_of_the_same():
    s = arrange(
        hands=[
            [
                card("Sprite"),
                card("Sprite", 1),
                card("Stoutling"),
                card("Half-and-Half"),
                card("Pocketkin"),
            ],
            [],
            [],
        ]
    )
    assert {"type": "play", "card": card("Half-and-Half")} not in mk.legal_actions(s, 0)
    s, _ = act(s, 0, {"type": "play", "card": card("Sprite")})
    assert {"type": "play", "card": card("Sprite", 1)} not in mk.legal_actions(s, 0)
    s, ev = act(s, 0, {"type": "play", "card": card("Stoutling")})
    assert s["races"][0] == [card("Stoutling")] and "dropped" in kinds(ev)  # replaced
    s, _ = act(s, 0, {"type": "play", "card": card("Half-and-Half")})
    s, _ = act(s, 0, {"type": "play", "card": card("Pocketkin")})
    assert s["races"][0] == [card("Stoutling"), card("Pocketkin")]


def test_double_major_needs_a_class_and_allows_two():
    s = arrange(hands=[[card("Double Major"), card("Brawler"), card("Healer")], [], []])
    assert {"type": "play", "card": card("Double Major")} not in mk.legal_actions(s, 0)
    s, _ = act(s, 0, {"type": "play", "card": card("Brawler")})
    s, _ = act(s, 0, {"type": "play", "card": card("Double Major")})
    s, _ = act(s, 0, {"type": "play", "card": card("Healer")})
    assert len(s["classes"][0]) == 2


# "Puedes descartar una carta de Raza en cualquier momento, incluso en combate"
def test_drop_race_even_in_combat():
    s = arrange(levels=[3, 1, 1], races=[[card("Sprite")], [], []], door_top=[card("Wobbly Jelly")])
    s, _ = fight(s)
    assert mk.strengths(s)["monsters_total"] == 5
    s, _ = act(s, 0, {"type": "drop", "card": card("Sprite")})
    assert mk.strengths(s)["monsters_total"] == 2 and s["races"][0] == []


def test_brawler_fury_and_healer_shoo_and_sneak_poke():
    s = arrange(
        levels=[1, 1, 1],
        classes=[[card("Brawler"), card("Healer")], [card("Sneak")], []],
        hands=[
            [card("Hangry"), card("Lint Golem"), card("Dust Bunny"), card("Teeny-Tiny")],
            [card("Tickle Spell")],
            [],
        ],
        door_top=[card("Pillow Ghost")],
    )
    s["double"][0] = card("Double Major")
    s["door_deck"].remove(card("Double Major"))
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "fury", "card": card("Hangry")})
    s, _ = act(s, 1, {"type": "poke", "victim": 0, "card": card("Tickle Spell")})
    assert all(a["type"] != "poke" for a in mk.legal_actions(s, 1))  # once per victim
    s, _ = act(s, 0, {"type": "shoo", "card": card("Lint Golem")})
    st_ = mk.strengths(s)
    assert st_["players_total"] == 1 + 1 - 2 + 3


# ------------------------------------------------------------------------------------------
# Objetos
# ------------------------------------------------------------------------------------------
def test_slots_one_headgear_and_two_hands():
    s = arrange(
        hands=[
            [
                card("Colander Helmet"),
                card("Thinking Cap"),
                card("Wooden Spoon"),
                card("Pool Noodle Sword"),
                card("Frying Pan of Justice"),
                card("Garden Rake"),
            ],
            [],
            [],
        ]
    )
    for name in (
        "Colander Helmet",
        "Thinking Cap",
        "Wooden Spoon",
        "Pool Noodle Sword",
        "Frying Pan of Justice",
        "Garden Rake",
    ):
        s, _ = act(s, 0, {"type": "play", "card": card(name)})
    used = s["used"][0]
    assert used == [card("Colander Helmet"), card("Wooden Spoon"), card("Pool Noodle Sword")]
    assert mk.view(s, 0)["characters"][0]["strength"] == 1 + 1 + 1 + 2
    # swap: stow the helmet, use the cap (once each per turn)
    s, _ = act(s, 0, {"type": "stow", "card": card("Colander Helmet")})
    s, _ = act(s, 0, {"type": "use", "card": card("Thinking Cap")})
    assert {"type": "use", "card": card("Colander Helmet")} not in mk.legal_actions(s, 0)
    assert mk.view(s, 0)["characters"][0]["strength"] == 1 + 3 + 1 + 2


# "Puedes llevar cualquier número de objetos pequeños pero sólo uno Grande ... Los Enanos
# constituyen una excepción" — our Stoutling
def test_only_one_big_item_unless_stoutling():
    s = arrange(hands=[[card("Pet Rock"), card("Garden Rake")], [], []])
    s, _ = act(s, 0, {"type": "play", "card": card("Pet Rock")})
    assert {"type": "play", "card": card("Garden Rake")} not in mk.legal_actions(s, 0)
    with pytest.raises(IllegalAction, match="Big"):
        mk.apply(s, 0, {"type": "play", "card": card("Garden Rake")})
    s2 = arrange(
        hands=[[card("Pet Rock"), card("Garden Rake")], [], []], races=[[card("Stoutling")], [], []]
    )
    s2, _ = act(s2, 0, {"type": "play", "card": card("Pet Rock")})
    s2, _ = act(s2, 0, {"type": "play", "card": card("Garden Rake")})
    assert len(s2["items"][0]) == 2


# "Si dejas de ser un Enano y llevas más de un objeto Grande debes deshacerte de todos excepto
# de uno ... dárselos al jugador o jugadores de menor Nivel que puedan llevarlos"
def test_losing_stoutling_gives_extra_big_items_to_the_lowest():
    s = arrange(
        levels=[4, 3, 2],
        races=[[card("Stoutling")], [], []],
        items=[[card("Pet Rock"), card("Trophy for Trying")], [], [card("Garden Rake")]],
    )
    s, _ = act(s, 0, {"type": "drop", "card": card("Stoutling")})
    assert s["items"][0] == [card("Trophy for Trying")]  # the most valuable stays
    assert s["items"][1] == [card("Pet Rock")]  # seat 2 already carries a Big item


def test_restricted_item_gives_no_bonus_to_others():
    s = arrange(hands=[[card("Teddy Bear Shield")], [], []])
    s, _ = act(s, 0, {"type": "play", "card": card("Teddy Bear Shield")})
    assert s["used"][0] == [] and mk.view(s, 0)["characters"][0]["strength"] == 1
    s["classes"][0] = [card("Healer")]
    s["door_deck"].remove(card("Healer"))
    assert {"type": "use", "card": card("Teddy Bear Shield")} in mk.legal_actions(s, 0)


# "Comercio: Puedes intercambiar objetos (pero no otras cartas) ... Sólo ... objetos de la mesa"
def test_trade_items_on_the_table():
    s = arrange(
        hands=[[card("Wooden Spoon")], [], []],
        items=[[card("Colander Helmet")], [card("Bunny Slippers")], []],
    )
    acts = mk.legal_actions(s, 0)
    assert {"type": "offer", "card": card("Colander Helmet"), "to": 1} in acts
    assert not any(a["type"] == "offer" and a["card"] == card("Wooden Spoon") for a in acts)
    assert not any(a["type"] == "offer" and a["to"] == 2 for a in acts)  # nothing to trade
    s, _ = act(s, 0, {"type": "offer", "card": card("Colander Helmet"), "to": 1})
    assert mk.to_act(s) == (1,)
    s, _ = act(s, 1, {"type": "swap", "card": card("Bunny Slippers")})
    assert s["items"] == [[card("Bunny Slippers")], [card("Colander Helmet")], []]
    assert s["used"][1] == [card("Colander Helmet")]  # into play at once
    assert mk.to_act(s) == (0,) and s["phase"] == "prep"
    assert all(a["type"] != "offer" or a["to"] != 1 for a in mk.legal_actions(s, 0))


def test_trade_declined():
    s = arrange(items=[[card("Colander Helmet")], [card("Bunny Slippers")], []])
    s, _ = act(s, 0, {"type": "offer", "card": card("Colander Helmet"), "to": 1})
    s, _ = act(s, 1, {"type": "decline"})
    assert s["items"] == [[card("Colander Helmet")], [card("Bunny Slippers")], []]


# "Vender objetos: ... al menos 1.000 Piezas de Oro ... no recibirás las 100 de cambio ...
# Puedes vender tanto los objetos de tu mano como los que ya lleves encima."
def test_selling_items_for_levels_without_change():
    s = arrange(
        levels=[2, 1, 1],
        hands=[[card("Trophy for Trying"), card("Wooden Spoon"), card("Thinking Cap")], [], []],
        items=[[card("Puffy Jacket")], [], []],
        phase="trouble",
    )
    s, _ = act(s, 0, {"type": "sell", "card": card("Trophy for Trying")})
    assert s["levels"][0] == 2 and s["turn"]["purse"] == 900
    s, _ = act(s, 0, {"type": "sell", "card": card("Puffy Jacket")})  # from the table
    assert s["levels"][0] == 3 and s["turn"]["purse"] == 300
    s, _ = act(s, 0, {"type": "loot"})
    s, _ = act(s, 0, {"type": "end_turn"})
    assert s["turn"]["purse"] == 0  # no change


def test_pocketkin_sells_one_item_a_turn_at_double_the_sale_it_chooses():
    """The Pocketkin's double price is for one sale a turn, the one the player chooses: a sale
    at the normal price keeps it for a dearer item later (docs/rules, "Pocketkin")."""
    s = arrange(
        races=[[card("Pocketkin")], [], []],
        hands=[[card("Thinking Cap"), card("Puffy Jacket")], [], []],
    )
    jacket, cap = card("Puffy Jacket"), card("Thinking Cap")
    legal = mk.legal_actions(s, 0)
    assert {"type": "sell", "card": jacket} in legal
    assert {"type": "sell", "card": jacket, "price": "double"} in legal
    s, ev = act(s, 0, {"type": "sell", "card": jacket})  # the cheap one at its price
    assert ev[0]["gold"] == 400 and not ev[0]["double"] and not s["turn"]["pocket_sold"]
    s, ev = act(s, 0, {"type": "sell", "card": cap, "price": "double"})
    assert ev[0]["gold"] == 1200 and ev[0]["double"] and s["levels"][0] == 2
    assert s["turn"]["purse"] == 600


def test_pocketkin_double_once_a_turn_and_for_nobody_else():
    s = arrange(
        races=[[card("Pocketkin")], [card("Stoutling")], []],
        hands=[[card("Thinking Cap"), card("Puffy Jacket")], [], []],
    )
    s, ev = act(s, 0, {"type": "sell", "card": card("Thinking Cap"), "price": "double"})
    assert ev[0]["gold"] == 1200
    assert not [a for a in mk.legal_actions(s, 0) if a.get("price") == "double"]
    with pytest.raises(IllegalAction):
        act(s, 0, {"type": "sell", "card": card("Puffy Jacket"), "price": "double"})
    plain = arrange(hands=[[card("Puffy Jacket")], [], []])
    assert not [a for a in mk.legal_actions(plain, 0) if a.get("price") == "double"]


# "3) Saquear la habitación: ... puedes saquear la habitación": looting is a choice.
def test_looting_the_room_is_optional():
    s = arrange(phase="trouble", door_top=[card("Hangry")])
    assert {"type": "end_turn"} in mk.legal_actions(s, 0)
    s, ev = act(s, 0, {"type": "end_turn"})
    assert "looted" not in kinds(ev) and "turn_over" in kinds(ev)
    assert s["current"] == 1 and card("Hangry") in s["door_deck"]  # not drawn
    assert card("Hangry") not in s["hands"][0]


# ------------------------------------------------------------------------------------------
# Reglas de juego rápido: "Pegar el oído a la puerta"
# ------------------------------------------------------------------------------------------
def test_listen_at_the_door_and_loot_treasure():
    s = arrange(options={"listen": "yes"}, phase="charity")
    s, ev = act(s, 0, {"type": "end_turn"})
    assert "listened" in kinds(ev) and len(s["hands"][1]) == 1
    assert s["hands"][1][0] in DOORS
    s["phase"] = "trouble"
    s, _ = act(s, 1, {"type": "loot"})
    assert s["hands"][1][1] in TREASURES


# ------------------------------------------------------------------------------------------
# Rulings: the game always ends
# ------------------------------------------------------------------------------------------
def test_round_cap_ends_the_game_with_the_highest_level():
    s = arrange(levels=[3, 5, 5], phase="charity", current=2)
    s["turns"] = mk.ROUND_CAP * 3
    s, _ = act(s, 2, {"type": "end_turn"})
    assert s["result"] == {"winners": [1, 2], "ranking": [[1, 2], [0]], "reason": "rounds"}


def test_ply_cap_ends_the_game():
    s = arrange(levels=[3, 5, 4], phase="prep")
    s["ply"] = mk.PLY_CAP - 1
    s, _ = act(s, 0, KICK)
    assert s["result"]["reason"] == "time" and s["result"]["winners"] == [1]


# ------------------------------------------------------------------------------------------
# Protocol details
# ------------------------------------------------------------------------------------------
def test_illegal_moves_raise_child_friendly_sentences():
    s = arrange(hands=[[card("Wooden Spoon")], [], []])
    with pytest.raises(IllegalAction, match="not your turn"):
        mk.apply(s, 1, KICK)
    with pytest.raises(IllegalAction, match="understand"):
        mk.apply(s, 0, {"type": "dance"})
    with pytest.raises(IllegalAction, match="understand"):
        mk.apply(s, 0, "kick")
    with pytest.raises(IllegalAction, match="not in your hand"):
        mk.apply(s, 0, {"type": "play", "card": card("Thinking Cap")})
    with pytest.raises(IllegalAction):
        mk.apply(s, 0, {"type": "loot"})


def test_form_strings_are_understood():
    s = arrange(hands=[[], [card("Tickle Spell")], []], current=1, levels=[2, 1, 1])
    s, _ = act(s, 1, {"type": "curse", "card": card("Tickle Spell"), "target": "0"})
    assert s["levels"][0] == 1
    with pytest.raises(IllegalAction):
        mk.apply(s, 1, {"type": "curse", "card": card("Tickle Spell"), "target": "zero"})


def test_apply_never_mutates_and_dump_load_round_trip():
    s = mk.setup(5, 9, {"listen": "yes"})
    frozen = json.dumps(s, sort_keys=True)
    mk.apply(s, 0, {"type": "ready"})
    assert json.dumps(s, sort_keys=True) == frozen
    assert mk.load(json.loads(json.dumps(mk.dump(s)))) == s
    bad = mk.dump(s)
    bad["hands"][0] = bad["hands"][0][1:]
    with pytest.raises(ValueError):
        mk.load(bad)
    with pytest.raises(ValueError):
        mk.load({"game": "chess"})


# ------------------------------------------------------------------------------------------
# Bots: fight, help for a bribe, curse the leader
# ------------------------------------------------------------------------------------------
def bot(s, seat):
    return mk.bot_action(mk.view(s, seat), mk.legal_actions(s, seat), "munchkin", random.Random(1))


def test_bot_kicks_the_door_and_fights_what_it_can_beat_from_hand():
    s = arrange(
        levels=[5, 1, 1],
        hands=[[card("Dust Bunny"), card("Ghost Pirate Captain")], [], []],
        phase="trouble",
    )
    assert bot(s, 0) == {"type": "fight", "card": card("Dust Bunny")}
    s["phase"] = "prep"
    assert bot(s, 0) == KICK


def test_bot_asks_for_help_with_a_bribe_when_losing():
    s = arrange(levels=[3, 6, 1], door_top=[card("Cranky Cactus")])
    s, _ = fight(s)
    a = bot(s, 0)
    assert a["type"] == "ask_help" and a["to"] == 1 and a["treasures"] == 1


def test_bot_helps_for_a_bribe_but_not_for_nothing():
    s = arrange(levels=[3, 6, 1], door_top=[card("Cranky Cactus")])
    s, _ = fight(s)
    paid, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 1})
    assert bot(paid, 1) == {"type": "accept"}
    free, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 0})
    assert bot(free, 1) == {"type": "decline"}


def test_bot_never_helps_somebody_to_level_ten():
    s = arrange(levels=[9, 6, 1], door_top=[card("Ghost Pirate Captain")])
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "ask_help", "to": 1, "treasures": 4})
    assert bot(s, 1) == {"type": "decline"}


def test_bot_curses_the_leader_on_its_turn():
    s = arrange(levels=[2, 7, 4], hands=[[card("Tickle Spell")], [], []])
    assert bot(s, 0) == {"type": "curse", "card": card("Tickle Spell"), "target": 1}


def test_bot_spoils_the_leaders_winning_fight():
    s = arrange(levels=[8, 1, 3], hands=[[], [], [card("Hangry")]], door_top=[card("Dust Bunny")])
    s, _ = fight(s)
    s, _ = act(s, 0, PASS)
    assert bot(s, 2) == {"type": "enhance", "card": card("Hangry"), "monster": 0}


def test_bot_sells_junk_for_a_level():
    s = arrange(
        levels=[2, 1, 1],
        hands=[[card("Trophy for Trying"), card("Wooden Spoon")], [], []],
        items=[[card("Pet Rock")], [], []],
    )
    a = bot(s, 0)
    assert a["type"] in ("sell", "play")


@pytest.mark.parametrize("level", mk.LEVELS)
def test_bot_games_end_and_keep_the_cards(level):
    for seed in range(6):
        players = 3 + seed % 4
        s = mk.setup(players, seed, {"listen": "yes" if seed % 2 else "no"})
        rng = random.Random(seed)
        for _ in range(mk.PLY_CAP + 10):
            acting = mk.to_act(s)
            if not acting:
                break
            seat = acting[0]
            legal = mk.legal_actions(s, seat)
            a = mk.bot_action(mk.view(s, seat), legal, level, rng)
            assert a in legal
            s, _ = mk.apply(s, seat, a)
        assert s["result"] is not None
        assert sorted(mk.cards(s)) == sorted(ALL_IDS)
        assert sorted(p for g in s["result"]["ranking"] for p in g) == list(range(players))


def test_smart_bots_usually_reach_level_ten():
    reasons = []
    for seed in range(10):
        s = mk.setup(4, seed, {})
        rng = random.Random(seed)
        while mk.to_act(s):
            seat = mk.to_act(s)[0]
            action = mk.bot_action(mk.view(s, seat), mk.legal_actions(s, seat), "munchkin", rng)
            s, _ = mk.apply(s, seat, action)
        reasons.append(s["result"]["reason"])
    assert reasons.count("level10") >= 8


# ------------------------------------------------------------------------------------------
# The state machine: random legal play (168 cards conserved, no hand leaks through view,
# determinism from the seed, every game ends)
# ------------------------------------------------------------------------------------------
class MunchkinMachine(RuleBasedStateMachine):
    @initialize(
        players=st.integers(mk.MIN_PLAYERS, mk.MAX_PLAYERS),
        seed=st.integers(0, 2**31),
        listen=st.sampled_from(["no", "yes"]),
        shared=st.sampled_from(["no", "yes"]),
    )
    def start(self, players, seed, listen, shared):
        self.options = {"listen": listen, "shared_victory": shared}
        self.players = players
        self.seed = seed
        self.state = mk.setup(players, seed, self.options)
        self.log = []

    @precondition(lambda self: bool(mk.to_act(self.state)))
    @rule(data=st.data())
    def random_move(self, data):
        seat = mk.to_act(self.state)[0]
        legal = mk.legal_actions(self.state, seat)
        assert legal
        action = data.draw(st.sampled_from(legal))
        self._apply(seat, action)

    @precondition(lambda self: bool(mk.to_act(self.state)))
    @rule(k=st.integers(1, 40), r=st.integers(0, 2**16))
    def bots_play(self, k, r):
        rng = random.Random(r)
        for _ in range(k):
            acting = mk.to_act(self.state)
            if not acting:
                break
            seat = acting[0]
            legal = mk.legal_actions(self.state, seat)
            self._apply(seat, mk.bot_action(mk.view(self.state, seat), legal, "munchkin", rng))

    @precondition(lambda self: bool(mk.to_act(self.state)))
    @rule(seat=st.integers(0, 5))
    def wrong_seat_is_refused(self, seat):
        if seat >= self.players or seat in mk.to_act(self.state):
            return
        assert mk.legal_actions(self.state, seat) == []
        with pytest.raises(IllegalAction):
            mk.apply(self.state, seat, {"type": "pass"})

    @rule()
    def outcome_matches_to_act(self):
        over = not mk.to_act(self.state)
        assert (mk.outcome(self.state) is not None) == over
        if over:
            result = mk.outcome(self.state)
            assert sorted(p for g in result["ranking"] for p in g) == list(range(self.players))

    def _apply(self, seat, action):
        before = json.dumps(self.state, sort_keys=True)
        new, events = mk.apply(self.state, seat, action)
        assert json.dumps(self.state, sort_keys=True) == before
        text = json.dumps(events)
        for p in range(self.players):
            for token in mk.private(new, p):
                assert token not in text
        self.log.append((seat, action))
        self.state = new

    @invariant()
    def cards_are_conserved(self):
        if hasattr(self, "state"):
            assert sorted(mk.cards(self.state)) == sorted(ALL_IDS)

    @invariant()
    def hands_never_leak(self):
        if not hasattr(self, "state"):
            return
        s = self.state
        views = {p: json.dumps(mk.view(s, p)) for p in range(self.players)}
        views[None] = json.dumps(mk.view(s, None))
        for other in range(self.players):
            for token in mk.private(s, other):
                for p, text in views.items():
                    assert (token in text) == (p == other), (token, p, other)

    @invariant()
    def round_trip_and_replay(self):
        if not hasattr(self, "state"):
            return
        assert mk.load(json.loads(json.dumps(mk.dump(self.state)))) == self.state
        if len(self.log) % 25 == 0:
            replay = mk.setup(self.players, self.seed, self.options)
            for seat, action in self.log:
                replay, _ = mk.apply(replay, seat, action)
            assert replay == self.state

    def teardown(self):
        """Every game ends: the bots finish whatever random play left."""
        if not hasattr(self, "state"):
            return
        rng = random.Random(0)
        s = self.state
        for _ in range(mk.PLY_CAP + 10):
            acting = mk.to_act(s)
            if not acting:
                break
            seat = acting[0]
            s, _ = mk.apply(
                s, seat, mk.bot_action(mk.view(s, seat), mk.legal_actions(s, seat), "munchkin", rng)
            )
        assert mk.outcome(s) is not None


MunchkinMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestMunchkinMachine = MunchkinMachine.TestCase


def test_ids_helper_finds_copies():
    assert len(ids("Sprite")) == 3 and len(ids("Hangry")) == 3


def test_bot_trades_a_carried_item_for_a_better_one_it_can_use():
    hands_full = [card("Pool Noodle Sword"), card("Frying Pan of Justice"), card("Colander Helmet")]
    s = arrange(
        items=[[card("Wooden Spoon")], hands_full, []],
        used=[[card("Wooden Spoon")], hands_full[:2], []],
    )
    s, _ = act(s, 0, {"type": "offer", "card": card("Wooden Spoon"), "to": 1})
    assert bot(s, 1) == {"type": "decline"}  # both its hands are busy: no use for a spoon
    s2 = arrange(
        items=[[card("Bunny Slippers")], [card("Wooden Spoon"), card("Colander Helmet")], []],
        used=[[card("Bunny Slippers")], [card("Wooden Spoon")], []],
    )
    s2, _ = act(s2, 0, {"type": "offer", "card": card("Bunny Slippers"), "to": 1})
    assert bot(s2, 1) == {"type": "swap", "card": card("Colander Helmet")}


# "También puedes regalar objetos sin recibir nada a cambio"
def test_an_item_can_be_given_as_a_gift_for_nothing():
    s = arrange(
        items=[[card("Trusty Umbrella")], [], []],
        phase="charity",
    )
    umbrella = card("Trusty Umbrella")
    assert {"type": "gift", "card": umbrella, "to": 1} in mk.legal_actions(s, 0)
    s, ev = act(s, 0, {"type": "gift", "card": umbrella, "to": 1})
    assert umbrella in s["items"][1] and umbrella not in s["items"][0]
    assert ev[-1] == {"kind": "gifted", "seat": 0, "to": 1, "name": "Trusty Umbrella"}
    assert mk.describe(ev[-1]) == "Player 1 gave Trusty Umbrella to Player 2."
    assert s["phase"] == "charity" and mk.to_act(s) == (0,)  # still your turn


def test_no_gift_to_the_dead_nor_in_a_combat():
    s = arrange(items=[[card("Trusty Umbrella")], [], []], phase="charity")
    s["dead"] = [False, True, False]  # "Los personajes muertos no pueden recibir cartas"
    gifts = [a for a in mk.legal_actions(s, 0) if a["type"] == "gift"]
    assert {a["to"] for a in gifts} == {2}
    fighting = arrange(items=[[card("Trusty Umbrella")], [], []], door_top=[card("Dust Bunny")])
    fighting, _ = act(fighting, 0, {"type": "kick"})
    assert fighting["phase"] == "combat"
    assert not [a for a in mk.legal_actions(fighting, 0) if a["type"] == "gift"]
