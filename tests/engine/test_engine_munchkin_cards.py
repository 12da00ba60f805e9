"""Munchkin: the 168 cards of our own set, and the effect of every single card."""

import json

import pytest

from games.munchkin import engine as mk
from games.munchkin.cards import ALL_IDS
from games.munchkin.cards import CARDS
from games.munchkin.cards import DOORS
from games.munchkin.cards import TREASURES

from .munchkin_helpers import act
from .munchkin_helpers import arrange
from .munchkin_helpers import card
from .munchkin_helpers import fight
from .munchkin_helpers import kinds
from .munchkin_helpers import pass_all


def of_kind(kind):
    return [c for c in ALL_IDS if CARDS[c]["kind"] == kind]


# ------------------------------------------------------------------------------------------
# The set
# ------------------------------------------------------------------------------------------
def test_168_cards_in_two_decks():
    assert len(ALL_IDS) == len(set(ALL_IDS)) == 168
    assert len(DOORS) == 94 and len(TREASURES) == 74
    assert all(c.startswith("mk-d-") for c in DOORS)
    assert all(c.startswith("mk-t-") for c in TREASURES)
    counts = {k: len(of_kind(k)) for k in {CARDS[c]["kind"] for c in ALL_IDS}}
    assert counts == {
        "race": 9,
        "class": 12,
        "mixed": 2,
        "double": 2,
        "monster": 42,
        "curse": 14,
        "enhancer": 10,
        "wander": 3,
        "levelup": 9,
        "oneshot": 20,
        "item": 45,
    }


def test_every_card_has_a_name_and_a_text_in_plain_words():
    for cid in ALL_IDS:
        c = CARDS[cid]
        assert c["name"] and c["text"], cid
        assert cid not in c["text"] and cid not in c["name"]
        json.dumps(c)


def test_monster_levels_cover_1_to_20_with_sane_rewards():
    levels = sorted(CARDS[c]["level"] for c in of_kind("monster"))
    assert levels[0] == 1 and levels[-1] == 20
    assert len({CARDS[c]["name"] for c in of_kind("monster")}) == 42
    for cid in of_kind("monster"):
        m = CARDS[cid]
        assert 1 <= m["treasures"] <= 5 and m["levels"] in (1, 2)
        assert m["levels"] == 1 or m["level"] >= 16  # only the big ones give two levels
        assert f"Level {m['level']}." in m["text"]


def test_items_have_slot_bonus_gold_and_the_text_says_so():
    slots = {
        "head": "Headgear",
        "armour": "Armour",
        "foot": "Footgear",
        "hand1": "1 Hand",
        "hand2": "2 Hands",
        "none": "No slot",
    }
    for cid in of_kind("item"):
        it = CARDS[cid]
        assert it["text"].startswith(slots[it["slot"]])
        assert f"{it['gold']} Gold" in it["text"]
        assert ("Big" in it["text"]) == it["big"]
        assert it["gold"] % 100 == 0 and 100 <= it["gold"] <= 900


# ------------------------------------------------------------------------------------------
# Monsters: winning gives their levels and treasure, losing their Bad Stuff
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cid", of_kind("monster"), ids=lambda c: CARDS[c]["name"])
def test_each_monster_killed_gives_its_levels_and_treasures(cid):
    m = CARDS[cid]
    s = arrange(levels=[1, 1, 1], door_top=[cid])
    s["levels"][0] = 1
    s, _ = fight(s)
    s["levels"][0] = 5  # never mind the rules: make the fighter strong enough
    s["combat"]["oneshots"] = []
    boost = [c for c in of_kind("oneshot") if CARDS[c]["effect"] == ["bonus", 5]]
    for b in boost:
        s["treasure_deck"].remove(b)
        s["combat"]["oneshots"].append([b, "players"])
    strength = mk.strengths(s)
    while not strength["winning"]:
        s["levels"][0] += 1
        strength = mk.strengths(s)
    level = s["levels"][0]
    s, ev = pass_all(s)
    won = next(e for e in ev if e["kind"] == "won")
    assert won["levels"] == m["levels"] and won["treasures"] == m["treasures"]
    assert s["levels"][0] == level + m["levels"]
    assert len(s["hands"][0]) == m["treasures"]


def _loadout():
    """A character with something in every place a Bad Stuff can hit."""
    return dict(
        levels=[6, 1, 1],
        races=[[card("Sprite")], [], []],
        classes=[[card("Healer")], [], []],
        hands=[[card("Surprise Guest"), card("Hangry"), card("Teeny-Tiny")], [], []],
        items=[
            [
                card("Colander Helmet"),
                card("Puffy Jacket"),
                card("Bunny Slippers"),
                card("Wooden Spoon"),
                card("Pet Rock"),
            ],
            [],
            [],
        ],
    )


@pytest.mark.parametrize("cid", of_kind("monster"), ids=lambda c: CARDS[c]["name"])
def test_each_monster_bad_stuff(cid, dice):
    m = CARDS[cid]
    s = arrange(door_top=[cid], **_loadout())
    s, _ = fight(s)
    s["levels"][0] = 6
    assert m["level"] >= 1
    # make sure the fighter loses
    if mk.strengths(s)["winning"]:
        s["combat"]["monsters"][0]["enh"] = []
        s["levels"][0] = 1
        s["used"][0] = []
    if mk.strengths(s)["winning"]:
        pytest.skip("cannot lose against this monster")
    s, ev = pass_all(s)
    if m["nochase"] and s["levels"][0] <= m["nochase"]:
        assert "not_chased" in kinds(ev) and s["phase"] == "charity"
        return
    before = json.loads(json.dumps(s))
    dice.extend([1, 1, 1, 1])
    s, ev = act(s, 0, {"type": "roll", "monster": 0})
    assert not ev[0]["escaped"]
    kind = m["bad"][0]
    if kind == "levels":
        assert s["levels"][0] == max(1, before["levels"][0] - m["bad"][1])
    elif kind == "slot":
        slot = m["bad"][1]
        lost = [c for c in before["items"][0] if c not in s["items"][0]]
        assert [CARDS[c]["slot"] for c in lost] == [slot]
    elif kind == "small":
        lost = [c for c in before["items"][0] if c not in s["items"][0]]
        assert len(lost) == 1 and not CARDS[lost[0]]["big"]
    elif kind == "big":
        assert card("Pet Rock") not in s["items"][0]
    elif kind == "hand":
        assert s["hands"][0] == []
    elif kind == "cards":
        assert len(s["hands"][0]) == 3 - m["bad"][1]
    elif kind == "race":
        assert s["races"][0] == []
    elif kind == "class":
        assert s["classes"][0] == []
    else:
        assert kind == "death" and before["dead"][0] is False
        assert "died" in kinds(ev)
        assert s["dead"][0] or s["phase"] == "charity"
        assert s["races"][0] == before["races"][0]  # you keep your race, class and level
        assert s["levels"][0] == before["levels"][0]


@pytest.mark.parametrize(
    "cid", [c for c in of_kind("monster") if CARDS[c]["bonus"]], ids=lambda c: CARDS[c]["name"]
)
def test_each_monster_bonus_against_a_race_or_class(cid):
    who, n = CARDS[cid]["bonus"]
    zone = "races" if who in mk.RACES else "classes"
    holder = next(c for c in ALL_IDS if CARDS[c].get("race") == who or CARDS[c].get("cls") == who)
    plain = arrange(door_top=[cid])
    plain, _ = fight(plain)
    base = mk.strengths(plain)["monsters_total"]
    s = arrange(door_top=[cid], **{zone: [[holder], [], []]})
    s, _ = fight(s)
    assert mk.strengths(s)["monsters_total"] == base + n


@pytest.mark.parametrize(
    "cid", [c for c in of_kind("monster") if CARDS[c]["run"]], ids=lambda c: CARDS[c]["name"]
)
def test_each_monster_run_modifier(cid, dice):
    s = arrange(door_top=[cid])
    s, _ = fight(s)
    s, _ = pass_all(s)
    dice.extend([3, 1, 2])  # the roll, then the tie-break rolls if somebody loots a body
    s, ev = act(s, 0, {"type": "roll", "monster": 0})
    assert ev[0]["bonus"] == CARDS[cid]["run"]
    assert ev[0]["escaped"] == (3 + CARDS[cid]["run"] >= 5)


@pytest.mark.parametrize(
    "cid", [c for c in of_kind("monster") if CARDS[c]["undead"]], ids=lambda c: CARDS[c]["name"]
)
def test_each_spooky_monster_can_be_shooed_by_a_healer(cid):
    s = arrange(
        classes=[[card("Healer")], [], []], hands=[[card("Hangry")], [], []], door_top=[cid]
    )
    s, _ = fight(s)
    before = mk.strengths(s)["players_total"]
    s, _ = act(s, 0, {"type": "shoo", "card": card("Hangry")})
    assert mk.strengths(s)["players_total"] == before + 3


# ------------------------------------------------------------------------------------------
# Curses
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cid", of_kind("curse"), ids=lambda c: CARDS[c]["name"])
def test_each_curse(cid):
    eff = CARDS[cid]["effect"]
    load = _loadout()
    load["hands"] = [[], [cid], []]
    load["hands"][0] = [card("Surprise Guest"), card("Hangry"), card("Teeny-Tiny")]
    s = arrange(current=1, **load)
    before = json.loads(json.dumps(s))
    s, _ = act(s, 1, {"type": "curse", "card": cid, "target": 0})
    kind = eff[0]
    if kind in ("next_combat", "chicken"):
        assert s["curses"][0] == [cid]
        if kind == "chicken":
            assert mk.view(s, 0)["characters"][0]["run_bonus"] == 1 - 1  # Sprite +1, chicken -1
        return
    assert cid in s["door_discard"]
    if kind == "levels":
        assert s["levels"][0] == 6 - eff[1]
    elif kind == "slot":
        lost = [c for c in before["items"][0] if c not in s["items"][0]]
        assert [CARDS[c]["slot"] for c in lost] == [eff[1]]
    elif kind == "small":
        assert len(s["items"][0]) == 4 and card("Pet Rock") in s["items"][0]
    elif kind == "big":
        assert card("Pet Rock") not in s["items"][0]
    elif kind == "race":
        assert s["races"][0] == []
    elif kind == "class":
        assert s["classes"][0] == []
    else:
        assert kind == "cards" and len(s["hands"][0]) == 3 - eff[1]


@pytest.mark.parametrize(
    "cid",
    [c for c in of_kind("curse") if CARDS[c]["effect"][0] == "next_combat"],
    ids=lambda c: CARDS[c]["name"],
)
def test_each_next_combat_curse_lowers_the_next_fight_only(cid):
    n = CARDS[cid]["effect"][1]
    s = arrange(levels=[8, 1, 1], curses=[[cid], [], []], door_top=[card("Dust Bunny")])
    s, _ = fight(s)
    assert mk.strengths(s)["players_total"] == 8 - n
    s, _ = pass_all(s)
    assert s["curses"][0] == []


# ------------------------------------------------------------------------------------------
# Enhancers, Surprise Guests, level-ups, races, classes, Half-and-Half, Double Major
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cid", of_kind("enhancer"), ids=lambda c: f"{CARDS[c]['name']}-{c}")
def test_each_enhancer(cid):
    e = CARDS[cid]
    s = arrange(levels=[3, 1, 1], hands=[[], [cid], []], door_top=[card("Bossy Pigeon")])
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "pass"})
    s, _ = act(s, 1, {"type": "enhance", "card": cid, "monster": 0})
    assert mk.strengths(s)["monsters_total"] == 4 + e["bonus"]
    assert mk.view(s, None)["combat"]["treasures"] == max(0, 2 + e["treasure"])
    assert f"{e['bonus']:+d} to it" in e["text"]


@pytest.mark.parametrize("cid", of_kind("wander"))
def test_each_surprise_guest(cid):
    s = arrange(
        levels=[3, 1, 1], hands=[[], [cid, card("Lint Golem")], []], door_top=[card("Dust Bunny")]
    )
    s, _ = fight(s)
    s, _ = act(s, 0, {"type": "pass"})
    s, _ = act(s, 1, {"type": "wander", "card": cid, "monster_card": card("Lint Golem")})
    assert [m["card"] for m in s["combat"]["monsters"]] == [card("Dust Bunny"), card("Lint Golem")]
    assert cid in s["door_discard"]


@pytest.mark.parametrize("cid", of_kind("levelup"), ids=lambda c: CARDS[c]["name"])
def test_each_level_up(cid):
    s = arrange(levels=[4, 1, 1], hands=[[cid], [], []])
    s, _ = act(s, 0, {"type": "levelup", "card": cid})
    assert s["levels"][0] == 5 and cid in s["treasure_discard"]


@pytest.mark.parametrize("cid", of_kind("race"))
def test_each_race_card(cid):
    race = CARDS[cid]["race"]
    s = arrange(hands=[[cid], [], []])
    s, _ = act(s, 0, {"type": "play", "card": cid})
    v = mk.view(s, 0)["characters"][0]
    assert [r["race"] for r in v["races"]] == [race]
    assert v["hand_limit"] == (6 if race == "stoutling" else 5)
    assert v["run_bonus"] == (1 if race == "sprite" else 0)


@pytest.mark.parametrize("cid", of_kind("class"))
def test_each_class_card_gives_its_power_in_combat(cid):
    cls = CARDS[cid]["cls"]
    s = arrange(
        levels=[1, 1, 1],
        hands=[
            [cid, card("Hangry"), card("Teeny-Tiny"), card("Lint Golem")],
            [card("Wooden Spoon")],
            [card("Feather Duster")],
        ],
        door_top=[card("Pillow Ghost")],
    )
    s, _ = act(s, 0, {"type": "play", "card": cid})
    s, _ = fight(s)
    if cls == "sneak":
        s["combat"]["helper"] = 1
    types = {a["type"] for a in mk.legal_actions(s, 0)}
    expected = {"brawler": "fury", "healer": "shoo", "spellsinger": "lullaby", "sneak": "poke"}
    assert expected[cls] in types
    if cls == "brawler":
        assert mk.strengths(s)["ties_win"]
    if cls == "sneak":
        assert mk.view(s, 0)["characters"][0]["run_bonus"] == 1


@pytest.mark.parametrize("cid", of_kind("mixed") + of_kind("double"))
def test_each_half_and_half_and_double_major(cid):
    double = CARDS[cid]["kind"] == "double"
    a, b = (card("Brawler"), card("Healer")) if double else (card("Sprite"), card("Stoutling"))
    s = arrange(hands=[[a, cid, b], [], []])
    s, _ = act(s, 0, {"type": "play", "card": a})
    s, _ = act(s, 0, {"type": "play", "card": cid})
    s, _ = act(s, 0, {"type": "play", "card": b})
    assert len(s["classes" if double else "races"][0]) == 2


# ------------------------------------------------------------------------------------------
# Treasure: one-shots and items
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cid", of_kind("oneshot"), ids=lambda c: f"{CARDS[c]['name']}-{c}")
def test_each_one_shot(cid, dice):
    eff = CARDS[cid]["effect"]
    kind = eff[0]
    if kind == "uncurse":
        s = arrange(hands=[[cid], [], []], curses=[[card("Hiccup Hex")], [], []])
        s, _ = act(s, 0, {"type": "uncurse", "card": cid, "curse": card("Hiccup Hex")})
        assert s["curses"][0] == []
        return
    s = arrange(levels=[1, 1, 1], hands=[[cid], [], []], door_top=[card("Bossy Pigeon")])
    s, _ = fight(s)
    if kind == "bonus":
        s, _ = act(s, 0, {"type": "oneshot", "card": cid, "side": "players"})
        assert mk.strengths(s)["players_total"] == 1 + eff[1]
    elif kind == "remove":
        s, _ = act(s, 0, {"type": "oneshot", "card": cid, "monster": 0})
        assert s["combat"]["monsters"] == [] and mk.strengths(s)["winning"]
    else:
        s, _ = pass_all(s)
        s, ev = act(s, 0, {"type": "escape", "card": cid, "monster": 0})
        assert "escaped" in kinds(ev) and s["phase"] == "charity"
    # and it can be sold for its gold on your turn
    s2 = arrange(hands=[[cid], [], []])
    s2, ev = act(s2, 0, {"type": "sell", "card": cid})
    assert ev[0]["gold"] == CARDS[cid]["gold"]


@pytest.mark.parametrize("cid", of_kind("item"), ids=lambda c: CARDS[c]["name"])
def test_each_item(cid):
    it = CARDS[cid]
    r = it["restriction"]
    s = arrange(hands=[[cid], [], []])
    s, _ = act(s, 0, {"type": "play", "card": cid})
    ch = mk.view(s, 0)["characters"][0]
    usable = r is None or r[0] == "not"
    assert (cid in s["used"][0]) == usable
    assert ch["strength"] == 1 + (it["bonus"] if usable else 0)
    assert ch["run_bonus"] == (it["run"] if usable else 0)
    if r is not None and r[0] == "only":
        # the right race or class makes it work
        holder = next(c for c in ALL_IDS if r[1] in (CARDS[c].get("race"), CARDS[c].get("cls")))
        zone = "races" if CARDS[holder]["kind"] == "race" else "classes"
        s2 = arrange(hands=[[cid], [], []], **{zone: [[holder], [], []]})
        s2, _ = act(s2, 0, {"type": "play", "card": cid})
        assert mk.view(s2, 0)["characters"][0]["strength"] == 1 + it["bonus"]
    if r is not None and r[0] == "not":
        holder = next(c for c in ALL_IDS if r[1] in (CARDS[c].get("race"), CARDS[c].get("cls")))
        zone = "races" if CARDS[holder]["kind"] == "race" else "classes"
        s2 = arrange(hands=[[cid], [], []], **{zone: [[holder], [], []]})
        s2, _ = act(s2, 0, {"type": "play", "card": cid})
        assert mk.view(s2, 0)["characters"][0]["strength"] == 1
    # sold for its gold
    s3 = arrange(hands=[[cid], [], []])
    s3, ev = act(s3, 0, {"type": "sell", "card": cid})
    assert ev[0]["gold"] == it["gold"] and cid in s3["treasure_discard"]
    # Big items: only one
    if it["big"]:
        other = card("Pet Rock") if cid != card("Pet Rock") else card("Garden Rake")
        s4 = arrange(hands=[[cid], [], []], items=[[other], [], []])
        assert {"type": "play", "card": cid} not in mk.legal_actions(s4, 0)
