"""Il Trono di Mortadella: one test per rulebook passage and per row of the effects and victory
tables, the rulings of docs/rules/trono-di-mortadella.md, and a hypothesis state machine.

Seats go clockwise: "the left" is the next seat number, "the right" the previous one.
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
from hypothesis.stateful import rule

from games import registry
from games.engine import IllegalAction
from games.engine import simulate
from games.trono import engine as tr

OFF = {name: "off" for name in tr.OPTIONS}
ROLL = {"type": "roll"}


def arrange(players=4, roles=None, tokens=None, current=0, options=None, **extra):
    """A state with these roles and tokens (the reserve keeps the rest), ``current`` to act."""
    s = tr.setup(players, 0, options if options is not None else OFF)
    if roles is not None:
        s["roles"] = list(roles)
        s["revealed"] = [r == "brigand" for r in roles]
    if tokens is not None:
        s["tokens"] = [list(t) for t in tokens]
    s["reserve"] = [tr.RESERVE - sum(t[i] for t in s["tokens"]) for i in range(4)]
    s.update(current=current, phase="roll", passed=[], kept=[], rolled=[], effects=[], picks=[])
    if s["options"]["lombard"] == "off":
        s["lombard"] = None
    s.update(extra)
    return s


def resolving(kinds, **kw):
    s = arrange(**kw)
    s["phase"] = "resolve"
    s["effects"] = [{"id": i, "kind": k} for i, k in enumerate(kinds)]
    return s


def choosing(rolled, kept=(), **kw):
    s = arrange(**kw)
    s.update(phase="choose", rolled=list(rolled), kept=list(kept))
    s["carnival"] = s["options"]["carnival"] == "on" and len(set(rolled) | set(kept)) == 5
    return s


def act(state, seat, action):
    new, events = tr.apply(state, seat, action)
    assert sorted(tr.cards(new)) == sorted(tr.cards(state))  # no token made or lost
    json.dumps(events)
    assert tr.load(json.loads(json.dumps(tr.dump(new)))) == new
    return new, events


def eff(i, **kw):
    return {"type": "effect", "effect": i, **kw}


FOUR = ["prince", "rector", "lord", "mercenary"]


# --- setup ------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", range(2, 8))
def test_roles_are_dealt_per_player_count(players):
    for seed in range(20):
        s = tr.setup(players, seed, {})
        roles = s["roles"]
        assert len(set(roles)) == players
        if players == 2:
            assert "innkeeper" not in roles and "brigand" not in roles
            assert sorted(roles + s["deck"]) == sorted(tr.BASE_ROLES)
        if players < 7:
            assert "brigand" not in roles
        if players >= 6:
            assert "innkeeper" in roles
        if players == 7:
            assert sorted(roles) == sorted(tr.ROLE_ORDER)


def test_roles_are_secret_but_the_brigand_plays_face_up():
    s = tr.setup(7, 3, {})
    b = s["roles"].index("brigand")
    for seat in range(7):
        text = json.dumps(tr.view(s, seat))
        for other in range(7):
            card = tr.role_card(s["roles"][other])
            assert (card in text) == (other == seat)
        assert tr.view(s, seat)["revealed"][b] == "brigand"
    assert tr.private(s, b) == set()


def test_the_start_roll_highest_mortadella_and_wine_starts():
    for seed in range(30):
        s = tr.setup(4, seed, {})
        last = s["start_rolls"][-1]
        score = {r["seat"]: sum(d in ("mortadella", "wine") for d in r["dice"]) for r in last}
        assert score[s["first"]] == max(score.values())
        assert list(score.values()).count(max(score.values())) == 1  # ties rolled again
        assert s["current"] == s["first"] and s["phase"] == "roll"


def test_the_lombard_token_goes_to_the_last_player_to_start():
    s = tr.setup(5, 11, {})
    assert s["lombard"] == (s["first"] - 1) % 5
    assert tr.setup(5, 11, {"lombard": "off"})["lombard"] is None


def test_every_token_starts_in_the_reserve():
    s = tr.setup(4, 0, {})
    assert s["reserve"] == [tr.RESERVE] * 4
    assert all(t == [0, 0, 0, 0] for t in s["tokens"])


def test_six_players_start_with_one_people_and_one_mortadella():
    s = tr.setup(6, 0, {})
    assert all(t == [1, 0, 0, 1] for t in s["tokens"])


def test_seven_players_start_with_two_people_and_one_token_of_their_choice():
    s = tr.setup(7, 0, {})
    assert s["phase"] == "pick_start" and all(t == [2, 0, 0, 0] for t in s["tokens"])
    for k in range(7):
        seat = tr.to_act(s)[0]
        assert seat == (s["first"] + k) % 7
        s, _ = act(s, seat, {"type": "pick", "symbol": tr.SYMS[k % 4]})
    assert s["phase"] == "roll" and sum(map(sum, s["tokens"])) == 21


# --- a turn --------------------------------------------------------------------------------------
def test_dice_come_from_the_seed():
    a = act(tr.setup(4, 5, {}), tr.setup(4, 5, {})["current"], ROLL)[0]
    b = act(tr.setup(4, 5, {}), tr.setup(4, 5, {})["current"], ROLL)[0]
    assert a["rolled"] == b["rolled"] and len(a["rolled"]) == 5
    rolls = {
        tuple(act(tr.setup(4, k, {}), tr.setup(4, k, {})["current"], ROLL)[0]["rolled"])
        for k in range(10)
    }
    assert len(rolls) > 5


def test_phase_1_roll_five_choose_three_phase_3_pass_the_other_two_left():
    s = choosing(["tower", "tower", "book", "mortadella", "rat"], roles=FOUR)
    legal = tr.legal_actions(s, 0)
    assert len(legal) == 10 and all(len(a["dice"]) == 3 for a in legal)
    s, _events = act(s, 0, {"type": "choose", "dice": [0, 1, 3]})
    assert [e["kind"] for e in s["effects"]] == ["tower", "tower", "mortadella"]
    assert s["passed"] == ["book", "rat"]
    for i in (0, 1, 2):
        s, _ = act(s, 0, eff(i))
    assert s["tokens"][0] == [0, 2, 0, 1]
    assert s["current"] == 1 and s["passed"] == ["book", "rat"]
    assert tr.legal_actions(s, 1) == [{"type": "keep"}, {"type": "refuse"}]


def test_the_next_player_keeps_both_and_rolls_three_choosing_one():
    s = arrange(roles=FOUR, current=1, passed=["book", "rat"])
    s, _ = act(s, 1, {"type": "keep"})
    assert s["kept"] == ["book", "rat"] and len(s["rolled"]) == 3
    legal = tr.legal_actions(s, 1)
    assert [a["dice"] for a in legal] == [[0], [1], [2]]
    rolled = s["rolled"]
    s, events = act(s, 1, {"type": "choose", "dice": [2]})
    assert events[-1]["dice"] == ["book", "rat", rolled[2]]
    assert s["passed"] == rolled[:2]


def test_the_next_player_refuses_them_and_rolls_five():
    s = arrange(roles=FOUR, current=1, passed=["book", "rat"])
    s, _ = act(s, 1, {"type": "refuse"})
    assert s["kept"] == [] and len(s["rolled"]) == 5


def test_choosing_wrong_dice_is_refused():
    s = choosing(["tower", "tower", "book", "mortadella", "rat"], roles=FOUR)
    for bad in ([0, 1], [0, 0, 1], [0, 1, 7], "x"):
        with pytest.raises(IllegalAction, match="Choose three dice"):
            tr.apply(s, 0, {"type": "choose", "dice": bad})
    with pytest.raises(IllegalAction, match="not your turn"):
        tr.apply(s, 1, {"type": "choose", "dice": [0, 1, 2]})


def test_form_strings_are_accepted():
    s = choosing(["tower", "tower", "book", "mortadella", "rat"], roles=FOUR)
    s, _ = act(s, 0, {"type": "choose", "dice": ["3", "1", "0"]})
    assert s["passed"] == ["book", "rat"]


def test_phase_2_effects_resolve_in_the_order_the_player_chooses():
    s = resolving(["wine", "people", "tower"], roles=FOUR, tokens=[[0, 0, 0, 0]] * 4)
    s, _ = act(s, 0, eff(2))  # the Tower first
    assert s["tokens"][0][tr.T] == 1 and [e["id"] for e in s["effects"]] == [0, 1]
    s, _ = act(s, 0, eff(1))
    s, _ = act(s, 0, eff(0, target=1))
    assert s["current"] == 1


@pytest.mark.parametrize(
    "dice, effects",
    [
        (["people", "people", "tower"], ["people2", "tower"]),
        (["wine", "wine", "rat"], ["wine2", "rat"]),
        (["rat", "rat", "book"], ["rat2", "book"]),
        (["people", "people", "people"], ["people2", "people"]),
        (["tower", "tower", "mortadella"], ["tower", "tower", "mortadella"]),
        (["book", "book", "book"], ["book", "book", "book"]),
    ],
)
def test_pairs_come_from_two_chosen_dice_alike(dice, effects):
    assert sorted(tr.group_effects(dice)) == sorted(effects)


# --- the effects table, row by row -------------------------------------------------------------
def test_row_1_people_acquire_one_people():
    s, _ = act(resolving(["people", "tower"], roles=FOUR), 0, eff(0))
    assert s["tokens"][0][tr.P] == 1 and s["reserve"][tr.P] == tr.RESERVE - 1


def test_row_2_people_acquire_two_people():
    s, _ = act(resolving(["people2", "tower"], roles=FOUR), 0, eff(0, mode="take"))
    assert s["tokens"][0][tr.P] == 2


@pytest.mark.parametrize("sym", ["tower", "book"])
def test_row_2_people_revolution_makes_a_player_discard_a_tower_or_a_book(sym):
    tokens = [[0, 0, 0, 0], [0, 2, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    s = resolving(["people2", "tower"], roles=FOUR, tokens=tokens)
    legal = tr.legal_actions(s, 0)
    targets = {a.get("target") for a in legal if a.get("mode") == "revolution"}
    assert targets == {1}  # only a player who has one
    s, _ = act(s, 0, eff(0, mode="revolution", symbol=sym, target=1))
    assert s["tokens"][1][tr.IDX[sym]] == 1 and s["tokens"][0] == [0, 0, 0, 0]


def test_row_1_tower_acquire_one_tower():
    s, _ = act(resolving(["tower", "people"], roles=FOUR), 0, eff(0))
    assert s["tokens"][0][tr.T] == 1


def test_row_1_book_acquire_one_book_or_a_joker():
    s, _ = act(resolving(["book", "people"], roles=FOUR), 0, eff(0, symbol="book"))
    assert s["tokens"][0][tr.B] == 1
    s, _ = act(resolving(["book", "people"], roles=FOUR), 0, eff(0, symbol="mortadella"))
    assert s["tokens"][0] == [0, 0, 0, 1]
    with pytest.raises(IllegalAction):
        tr.apply(resolving(["book", "people"], roles=FOUR), 0, eff(0, symbol="wine"))


def test_row_1_mortadella_acquire_one_mortadella():
    s, _ = act(resolving(["mortadella", "people"], roles=FOUR), 0, eff(0))
    assert s["tokens"][0][tr.M] == 1


def test_row_1_wine_drunkenness_and_the_targets_own_cancel_question():
    tokens = [[0, 0, 0, 0], [2, 0, 0, 1], [2, 0, 0, 0], [0, 0, 0, 0]]
    s = resolving(["wine", "people"], roles=FOUR, tokens=tokens)
    # no Mortadella: no question, the People goes
    s2, _ = act(s, 0, eff(0, target=2))
    assert s2["tokens"][2][tr.P] == 1 and s2["phase"] == "resolve"
    # with a Mortadella the target is asked, on the target's own turn to act
    s3, _ = act(s, 0, eff(0, target=1))
    assert s3["phase"] == "cancel" and tr.to_act(s3) == (1,)
    assert tr.legal_actions(s3, 0) == []
    cancelled, _ = act(s3, 1, {"type": "cancel"})
    assert cancelled["tokens"][1] == [2, 0, 0, 0] and cancelled["phase"] == "resolve"
    accepted, _ = act(s3, 1, {"type": "accept"})
    assert accepted["tokens"][1] == [1, 0, 0, 1]


def test_row_2_wines_inebriation_skip_turn_token_cancel_with_two_mortadella():
    tokens = [[0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 0, 1], [0, 0, 0, 0]]
    s = resolving(["wine2", "people"], roles=FOUR, tokens=tokens)
    s1, _ = act(s, 0, eff(0, target=2))  # only one Mortadella: cannot cancel
    assert s1["skip"][2] and s1["phase"] == "resolve"
    s1, _ = act(s1, 0, eff(1))
    assert s1["current"] == 1
    s1, _ = act(s1, 1, ROLL)
    s1["phase"] = "resolve"
    s1["effects"] = [{"id": 0, "kind": "tower"}]
    s1, events = act(s1, 1, eff(0))
    assert s1["current"] == 3 and not s1["skip"][2]  # seat 2 missed its turn
    assert "skipped" in [e["kind"] for e in events]
    s2, _ = act(s, 0, eff(0, target=1))
    assert tr.to_act(s2) == (1,)
    s2, _ = act(s2, 1, {"type": "cancel"})
    assert not s2["skip"][1] and s2["tokens"][1][tr.M] == 0


def test_row_1_rat_plague_everybody_discards_a_people_or_a_tower_instead():
    tokens = [[1, 1, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0], [2, 1, 0, 0]]
    s = resolving(["rat", "tower"], roles=FOUR, tokens=tokens)
    s, _ = act(s, 0, eff(0))
    assert s["tokens"][1] == [0, 0, 0, 0]  # no Tower: the People goes
    assert s["tokens"][2] == [0, 2, 0, 0]  # no People: nothing to avoid
    assert s["phase"] == "plague" and tr.to_act(s) == (0,)
    s, _ = act(s, 0, {"type": "lose", "symbol": "tower"})
    assert tr.to_act(s) == (3,)
    s, _ = act(s, 3, {"type": "lose", "symbol": "people"})
    assert s["tokens"][0] == [1, 0, 0, 0] and s["tokens"][3] == [1, 1, 0, 0]
    assert s["phase"] == "resolve"


def test_row_2_rats_black_death_people_and_mortadella_tower_still_replaces_people():
    tokens = [[0, 0, 0, 0], [1, 1, 0, 2], [1, 0, 0, 1], [0, 0, 0, 0]]
    s = resolving(["rat2", "tower"], roles=FOUR, tokens=tokens)
    s, _ = act(s, 0, eff(0))
    assert s["tokens"][2] == [0, 0, 0, 0]
    assert tr.to_act(s) == (1,)
    s, _ = act(s, 1, {"type": "lose", "symbol": "tower"})
    assert s["tokens"][1] == [1, 0, 0, 1]


# --- victory ------------------------------------------------------------------------------------
VICTORY = [
    ("prince", [2, 2, 2, 5], [2, 2, 1, 5]),
    ("rector", [4, 2, 5, 0], [4, 1, 5, 0]),
    ("lord", [4, 6, 0, 0], [4, 6, 0, 1]),  # Mortadella exactly 0
    ("mercenary", [5, 0, 0, 4], [5, 0, 1, 4]),  # Book exactly 0
    ("cardinal", [4, 3, 0, 3], [4, 2, 0, 3]),  # ruled (issue #8)
]


def test_the_innkeepers_ruled_token_condition():
    """People 2+, Tower 2+, Mortadella 3+ (ruled, issue #8), then a right guess."""
    assert tr.meets("innkeeper", [2, 2, 0, 3]) and tr.meets("innkeeper", [5, 3, 4, 6])
    for no in ([1, 2, 0, 3], [2, 1, 0, 3], [2, 2, 5, 2]):
        assert not tr.meets("innkeeper", no)


@pytest.mark.parametrize("role, yes, no", VICTORY)
def test_victory_table_rows(role, yes, no):
    assert tr.meets(role, yes) and not tr.meets(role, no)
    # "n+" is at least: more is fine where a number has a +
    more = [x + 1 if op == "min" else x for x, (_, op, _n) in zip(yes, _ops(role), strict=True)]
    assert tr.meets(role, more)


def _ops(role):
    ops = {i: op for i, op, _n in tr.NEED[role]}
    return [(i, ops.get(i, "min"), 0) for i in range(4)]


@pytest.mark.parametrize("role, yes, no", VICTORY)
def test_a_player_wins_when_the_conditions_are_met_during_his_turn(role, yes, no):
    got = list(yes)
    sym = next(i for i in range(4) if got[i] > 0 and tr.meets(role, got))
    got[sym] -= 1
    tokens = [got] + [[0, 0, 0, 0]] * 3
    kind = tr.SYMS[sym]
    s = resolving(
        [kind, "rat" if kind != "people" else "tower"],
        roles=[role, *[r for r in [*FOUR, "cardinal"] if r != role][:3]],
        tokens=tokens,
    )
    action = eff(0, symbol=kind) if kind == "book" else eff(0)
    s, events = act(s, 0, action)
    assert s["result"] == {"winners": [0], "ranking": [[0], [1, 2, 3]], "reason": "victory"}
    assert events[-1]["kind"] == "game_over"


def test_conditions_met_on_another_players_turn_win_only_on_ones_own_turn():
    tokens = [[0, 0, 0, 0], [5, 6, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]
    s = resolving(["rat2", "tower"], roles=["prince", "lord", "rector", "mercenary"], tokens=tokens)
    s, _ = act(s, 0, eff(0))  # Black Death: the Lord of Silk loses his Mortadella
    assert tr.to_act(s) == (1,)
    s, _ = act(s, 1, {"type": "lose", "symbol": "people"})
    assert tr.meets("lord", s["tokens"][1]) and s["result"] is None  # not his turn
    s, _events = act(s, 0, eff(1))
    assert s["current"] == 1  # his turn begins: now he wins
    assert s["result"]["winners"] == [1] and s["result"]["reason"] == "victory"


def test_the_innkeeper_guesses_another_role_to_win():
    roles = ["innkeeper", "prince", "lord", "mercenary"]
    tokens = [[2, 2, 1, 3], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    s = arrange(roles=roles, tokens=tokens)
    guesses = [a for a in tr.legal_actions(s, 0) if a["type"] == "guess"]
    assert {a["target"] for a in guesses} == {1, 2, 3}
    assert {a["role"] for a in guesses} == {"prince", "rector", "lord", "mercenary", "cardinal"}
    won, _ = act(s, 0, {"type": "guess", "target": 2, "role": "lord"})
    assert won["result"]["winners"] == [0] and won["result"]["reason"] == "guess"
    lost, _events = act(s, 0, {"type": "guess", "target": 2, "role": "prince"})
    assert lost["out"][0] and lost["tokens"][0] == [0, 0, 0, 0] and lost["current"] == 1
    assert lost["result"] is None
    # without his tokens he cannot guess
    s["tokens"][0] = [2, 2, 0, 2]
    assert not [a for a in tr.legal_actions(s, 0) if a["type"] == "guess"]
    with pytest.raises(IllegalAction, match="guess"):
        tr.apply(s, 0, {"type": "guess", "target": 2, "role": "lord"})


def test_the_innkeeper_may_not_name_the_brigand():
    s = tr.setup(7, 0, {})
    s["phase"] = "roll"
    inn = s["roles"].index("innkeeper")
    b = s["roles"].index("brigand")
    s["current"] = inn
    s["tokens"][inn] = [2, 2, 1, 3]
    s["reserve"] = [tr.RESERVE - sum(t[i] for t in s["tokens"]) for i in range(4)]
    guesses = [a for a in tr.legal_actions(s, inn) if a["type"] == "guess"]
    assert guesses and all(a["target"] != b and a["role"] != "brigand" for a in guesses)


def test_only_the_innkeeper_may_guess_in_games_of_three_and_more():
    s = arrange(roles=FOUR, tokens=[[5, 5, 5, 5]] + [[0] * 4] * 3)
    assert not [a for a in tr.legal_actions(s, 0) if a["type"] == "guess"]


# --- additional rules ------------------------------------------------------------------------
LOMBARD = {**OFF, "lombard": "on"}


def test_lombard_holder_rerolls_his_own_throw_and_passes_the_token_right():
    s = choosing(["rat"] * 5, roles=FOUR, options=LOMBARD, lombard=0)
    assert {"type": "reroll"} in tr.legal_actions(s, 0)
    s, _ = act(s, 0, {"type": "reroll"})
    assert len(s["rolled"]) == 5 and s["lombard"] == 3 and s["phase"] == "choose"
    assert {"type": "reroll"} not in tr.legal_actions(s, 0)


def test_lombard_on_an_opponents_throw_goes_to_that_player():
    s = arrange(roles=FOUR, options=LOMBARD, lombard=2, current=0)
    s, _ = act(s, 0, ROLL)
    assert s["phase"] == "lombard" and tr.to_act(s) == (2,)
    s, _ = act(s, 2, {"type": "reroll"})
    assert s["lombard"] == 0 and s["phase"] == "choose" and s["rerolled"]
    assert {"type": "reroll"} not in tr.legal_actions(s, 0)  # one re-roll per throw


def test_lombard_rerolls_the_same_number_of_dice():
    s = arrange(roles=FOUR, options=LOMBARD, lombard=2, current=0, passed=["rat", "rat"])
    s, _ = act(s, 0, {"type": "keep"})
    s, _ = act(s, 2, {"type": "reroll"})
    assert len(s["rolled"]) == 3 and s["kept"] == ["rat", "rat"]


SINS = {**OFF, "sins": "on"}


def test_seven_deadly_sins_an_eighth_token_eliminates_and_the_role_stays_secret():
    tokens = [[7, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    s = resolving(["people", "tower"], roles=FOUR, tokens=tokens, options=SINS)
    s, events = act(s, 0, eff(0))
    assert s["out"][0] and s["tokens"][0] == [0] * 4 and s["current"] == 1
    assert tr.view(s, 1)["revealed"][0] is None
    assert tr.private(s, 0) == {tr.role_card("prince")}
    assert "eliminated" in [e["kind"] for e in events]
    no_sins, _ = act(resolving(["people", "tower"], roles=FOUR, tokens=tokens), 0, eff(0))
    assert not no_sins["out"][0] and no_sins["tokens"][0][tr.P] == 8


def test_the_last_player_standing_wins():
    tokens = [[7, 0, 0, 0], [0] * 4]
    s = resolving(
        ["people", "tower"], players=2, roles=["prince", "lord"], tokens=tokens, options=SINS
    )
    s, _ = act(s, 0, eff(0))
    assert s["result"]["winners"] == [1] and s["result"]["reason"] == "last_standing"


def test_porchetta_festival_everybody_takes_one_and_wins_go_to_who_plays_first():
    por = {**OFF, "porchetta": "on"}
    # seat 1 the Cardinal and seat 3 the Lord of Silk are each one Tower short
    tokens = [[0] * 4, [5, 3, 0, 3], [0] * 4, [4, 5, 0, 0]]
    s = arrange(
        roles=["prince", "cardinal", "rector", "lord"], tokens=tokens, options=por, current=2
    )
    s["rolls"] = _seed_for(s, ["tower"] * 5)
    s, events = act(s, 2, ROLL)
    assert "porchetta" in [e["kind"] for e in events]
    assert [t[tr.T] for t in s["tokens"]] == [1, 4, 1, 6]
    # counting from seat 2, who rolled, seat 3 plays before seat 1
    assert s["result"]["winners"] == [3] and s["result"]["reason"] == "outside_turn"


def _seed_for(s, wanted):
    """The roll counter at which this game's dice show ``wanted`` (found by trying)."""
    for n in range(200000):
        rng = random.Random(f"{s['seed']}:roll:{n}")
        if [tr.FACES[rng.randrange(6)] for _ in range(5)] == wanted:
            return n
    raise AssertionError("not found")


def test_earthquake_everybody_discards_towers_and_books():
    quake = {**OFF, "earthquake": "on"}
    tokens = [[1, 2, 2, 0], [0, 3, 1, 1], [0] * 4, [5, 0, 1, 4]]  # seat 3 the Mercenary
    s = arrange(roles=FOUR, tokens=tokens, options=quake)
    s["rolls"] = _seed_for(s, ["rat", "wine", "rat", "rat", "wine"])
    s, events = act(s, 0, ROLL)
    assert "earthquake" in [e["kind"] for e in events]
    assert [t[tr.T] + t[tr.B] for t in s["tokens"]] == [0, 0, 0, 0]
    assert s["result"]["winners"] == [3]  # the Mercenary now has 0 Book and wins
    assert s["result"]["reason"] == "outside_turn"


def test_carnival_five_different_symbols_steal_instead_of_acquiring():
    carn = {**OFF, "carnival": "on"}
    tokens = [[0] * 4, [2, 1, 0, 0], [1, 0, 0, 0], [0] * 4]
    s = choosing(
        ["people", "tower", "book", "mortadella", "rat"], roles=FOUR, tokens=tokens, options=carn
    )
    assert s["carnival"]
    s, _ = act(s, 0, {"type": "choose", "dice": [0, 1, 3]})
    legal = tr.legal_actions(s, 0)
    assert {a.get("target") for a in legal if a["effect"] == 0} == {1, 2}
    s, _ = act(s, 0, eff(0, target=2))
    s, _ = act(s, 0, eff(1, target=1))
    assert s["tokens"][0] == [1, 1, 0, 0] and s["tokens"][2] == [0] * 4
    assert s["reserve"] == [tr.RESERVE - 3, tr.RESERVE - 1, tr.RESERVE, tr.RESERVE]
    s, events = act(s, 0, eff(2))  # nobody has a Mortadella: nothing to steal
    assert "nothing" in [e["kind"] for e in events] and s["tokens"][0][tr.M] == 0


# --- variants -------------------------------------------------------------------------------
def test_two_players_a_right_guess_wins():
    s = arrange(players=2, roles=["prince", "lord"])
    s["deck"] = ["rector", "mercenary", "cardinal"]
    guesses = [a for a in tr.legal_actions(s, 0) if a["type"] == "guess"]
    assert {a["role"] for a in guesses} == {"rector", "lord", "mercenary", "cardinal"}
    s2, _ = act(s, 0, {"type": "guess", "target": 1, "role": "lord"})
    assert s2["result"]["winners"] == [0]


def test_two_players_a_wrong_guess_discards_all_tokens_and_draws_a_new_role():
    s = arrange(players=2, roles=["prince", "lord"], tokens=[[2, 1, 0, 3], [1, 0, 0, 0]])
    s["deck"] = ["rector", "mercenary", "cardinal"]
    s, _events = act(s, 0, {"type": "guess", "target": 1, "role": "cardinal"})
    assert s["tokens"][0] == [0] * 4 and s["roles"][0] == "rector"
    assert s["removed"][0] == ["prince"] and s["deck"] == ["mercenary", "cardinal"]
    assert s["current"] == 1 and s["result"] is None
    assert "prince" not in json.dumps(tr.view(s, 1)["revealed"])
    assert tr.view(s, 0)["my_removed"] == ["prince"]


def test_two_players_with_no_role_card_left_one_keeps_ones_role():
    s = arrange(players=2, roles=["prince", "lord"], tokens=[[1, 0, 0, 0], [0] * 4])
    s["deck"] = []
    s, _ = act(s, 0, {"type": "guess", "target": 1, "role": "rector"})
    assert s["roles"][0] == "prince" and s["removed"][0] == [] and s["tokens"][0] == [0] * 4
    assert s["current"] == 1 and not s["out"][0]


def test_the_bots_break_ties_at_random_but_a_seed_replays_the_choice():
    """Issue 24, item 14: at the start of a 2-player game every role the other player may hold is
    as likely, and the bot took the first (always the Prince). The tie is broken with the bot's
    seeded rng: every role is guessed for some seeds, and the same seed picks the same guess."""
    s = arrange(players=2, roles=["lord", "cardinal"])
    s["deck"] = ["prince", "rector", "mercenary"]
    view, legal = tr.view(s, 0), tr.legal_actions(s, 0)
    picks = [
        tr.bot_action(view, legal, "heuristic", random.Random(f"tie:{n}"))["role"]
        for n in range(200)
    ]
    assert set(picks) == {"prince", "rector", "mercenary", "cardinal"}
    assert max(picks.count(r) for r in set(picks)) < 80  # about 50 each, none favoured
    again = [
        tr.bot_action(view, legal, "heuristic", random.Random(f"tie:{n}"))["role"]
        for n in range(200)
    ]
    assert again == picks


def test_two_player_roles_win_about_as_often_with_random_tie_breaks():
    """Before the random tie-break the Prince won 27 % of 2-player games, the others 50-58 %."""
    r = tr.role_win_rates(2, 400, seed=77)
    mean = sum(r["win_rate"].values()) / len(r["win_rate"])
    assert all(0.75 * mean <= rate <= 1.33 * mean for rate in r["win_rate"].values()), r


def test_a_wrong_innkeeper_guess_shows_his_role_to_everybody():
    roles = ["innkeeper", "prince", "lord", "mercenary"]
    s = arrange(roles=roles, tokens=[[2, 2, 0, 3], [0] * 4, [0] * 4, [0] * 4])
    s, _ = act(s, 0, {"type": "guess", "target": 1, "role": "lord"})
    assert tr.view(s, 2)["revealed"][0] == "innkeeper" and tr.private(s, 0) == set()


def test_the_lombard_token_of_an_eliminated_holder_goes_to_his_right():
    tokens = [[7, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    s = resolving(
        ["people", "tower"],
        roles=FOUR,
        tokens=tokens,
        options={**OFF, "sins": "on", "lombard": "on"},
        lombard=0,
    )
    s, _ = act(s, 0, eff(0))
    assert s["out"][0] and s["lombard"] == 3


def test_the_innkeeper_does_not_win_outside_his_turn():
    por = {**OFF, "porchetta": "on"}
    tokens = [[0] * 4, [2, 2, 0, 2], [0] * 4, [0] * 4]
    s = arrange(roles=["prince", "innkeeper", "rector", "lord"], tokens=tokens, options=por)
    s["rolls"] = _seed_for(s, ["mortadella"] * 5)
    s, _ = act(s, 0, ROLL)
    assert tr.meets("innkeeper", s["tokens"][1]) and s["result"] is None


def test_seven_players_the_brigand_steals_and_has_no_sin_limit():
    roles = ["brigand", "prince", "rector", "lord", "mercenary", "cardinal", "innkeeper"]
    tokens = [[9, 0, 1, 0]] + [[1, 0, 1, 0]] * 6
    s = resolving(
        ["people", "book"], players=7, roles=roles, tokens=tokens, options={**OFF, "sins": "on"}
    )
    s, _ = act(s, 0, eff(0, target=3))
    assert s["tokens"][0][tr.P] == 10 and s["tokens"][3][tr.P] == 0 and not s["out"][0]
    s, _ = act(s, 0, eff(1, symbol="book", target=4))
    assert s["tokens"][4][tr.B] == 0 and s["tokens"][0] == [10, 0, 2, 0]


def test_brigand_victory_eight_of_one_and_zero_of_the_other_two():
    assert tr.meets("brigand", [8, 3, 0, 0])
    assert tr.meets("brigand", [0, 0, 9, 0])
    assert not tr.meets("brigand", [8, 0, 1, 0])
    assert not tr.meets("brigand", [7, 0, 0, 0])
    assert not tr.meets("brigand", [0, 8, 0, 0])  # Tower does not count


def test_every_game_ends_by_the_turn_cap_at_worst():
    s = arrange(roles=FOUR, turn=tr.ROUND_CAP * 4)  # the last turn of the cap is on
    s["phase"] = "resolve"
    s["effects"] = [{"id": 0, "kind": "rat"}]
    s, _events = act(s, 0, eff(0))
    assert s["result"] == {"winners": [], "ranking": [[0, 1, 2, 3]], "reason": "turn_cap"}


def test_the_game_is_registered_and_simulates():
    assert registry.rules()["trono"] is tr
    out = simulate.run(tr, 3, 1, {}, ["heuristic"] * 4)
    assert out["finished"] == 3


def test_cardinal_and_innkeeper_win_about_as_often_as_the_table_roles():
    """The ruled conditions, measured: each within the range of the table's four roles, give or
    take a margin (docs/rules/trono-di-mortadella.md has the long runs)."""
    r = tr.role_win_rates(4, 40, seed=500)
    table = [r["win_rate"][k] for k in ("prince", "rector", "lord", "mercenary")]
    for role in ("cardinal", "innkeeper"):
        assert min(table) - 0.1 <= r["win_rate"][role] <= max(table) + 0.1, r


def test_every_role_wins_a_fair_share_with_the_heuristic_bots():
    """Issue #8: each role about as likely to win as the others. A short seeded run (the docs
    have 2,000 games per player count on checking seeds); loose bounds, but a role that almost
    never wins fails."""
    r = tr.role_win_rates(3, 120, seed=2026)
    rates = r["win_rate"]
    assert set(rates) == {*tr.BASE_ROLES, "innkeeper"}
    mean = sum(rates.values()) / len(rates)
    for role, rate in rates.items():
        assert 0.3 * mean <= rate <= 2.0 * mean, (role, r)


def test_the_bots_count_books_as_the_scarce_symbol():
    """A Book comes only from a Book face (a Joker makes any other symbol): the Rector's bot keeps
    a Book as a Book rather than turning it into the People it also lacks."""
    assert tr._turns("rector", (0, 0, 5, 0)) < tr._turns("rector", (4, 2, 0, 0))
    assert tr._turns("rector", (0, 2, 1, 0)) < tr._turns("rector", (1, 2, 0, 0))
    assert tr._turns("lord", (4, 6, 0, 0)) == 0.0
    assert tr._turns("lord", (4, 6, 0, 1)) > 0.0


# --- hypothesis: random legal play -----------------------------------------------------------
class TronoMachine(RuleBasedStateMachine):
    @initialize(
        players=st.integers(2, 7),
        seed=st.integers(0, 2**31),
        options=st.fixed_dictionaries({k: st.sampled_from(tr.ON_OFF) for k in tr.OPTIONS}),
    )
    def start(self, players, seed, options):
        self.players, self.seed, self.options = players, seed, options
        self.state = tr.setup(players, seed, options)
        self.log = []
        self.tokens = sorted(tr.cards(self.state))

    @rule(data=st.data())
    def move(self, data):
        acting = tr.to_act(self.state)
        if not acting:
            return
        seat = acting[0]
        legal = tr.legal_actions(self.state, seat)
        if data.draw(st.booleans()):
            rng = random.Random(data.draw(st.integers(0, 999)))
            action = tr.bot_action(tr.view(self.state, seat), legal, "heuristic", rng)
            assert action in legal
        else:
            action = data.draw(st.sampled_from(legal))
        frozen = json.dumps(self.state, sort_keys=True)
        new, events = tr.apply(self.state, seat, action)
        assert json.dumps(self.state, sort_keys=True) == frozen
        text = json.dumps(events)
        for other in range(self.players):
            for token in tr.private(new, other):
                assert token not in text
        self.log.append((seat, action))
        self.state = new

    @rule()
    def bots_play_to_the_end(self):
        rng = random.Random(self.seed)
        for _ in range(4000):
            acting = tr.to_act(self.state)
            if not acting:
                break
            seat = acting[0]
            action = tr.bot_action(
                tr.view(self.state, seat), tr.legal_actions(self.state, seat), "random", rng
            )
            self.state, _ = tr.apply(self.state, seat, action)
            self.log.append((seat, action))
        assert tr.outcome(self.state) is not None

    @invariant()
    def tokens_are_conserved_with_the_reserve(self):
        assert sorted(tr.cards(self.state)) == self.tokens
        assert all(min(t) >= 0 for t in self.state["tokens"])
        assert min(self.state["reserve"]) >= 0

    @invariant()
    def roles_never_leak_through_view_before_the_end(self):
        views = {p: json.dumps(tr.view(self.state, p)) for p in range(self.players)}
        views[None] = json.dumps(tr.view(self.state, None))
        for other in range(self.players):
            for token in tr.private(self.state, other):
                for seat, text in views.items():
                    assert (token in text) == (seat == other)

    @invariant()
    def replays_from_the_seed(self):
        """A replay of the whole log (every 25 moves, and at the end: replaying after every
        move made this machine quadratic, three quarters of its time)."""
        if len(self.log) % 25 == 0:
            self._replay()

    def teardown(self):
        if hasattr(self, "state"):
            self._replay()

    def _replay(self):
        s = tr.setup(self.players, self.seed, self.options)
        for seat, action in self.log:
            s, _ = tr.apply(s, seat, action)
        assert s == self.state


TronoMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_trono_state_machine = TronoMachine.TestCase


def test_ruling_a_skipped_turn_is_not_played_so_its_player_does_not_win_in_it():
    """docs/rules, "Ruling, a skipped turn": the Rector (seat 1) meets his conditions while
    holding the Skip Turn token; his skipped turn wins nothing, the game goes on to seat 2, and
    he wins at the start of his next played turn, the conditions still met."""
    rector = [4, 2, 5, 0]
    tokens = [[0, 0, 0, 0], rector, [0, 0, 0, 0], [0, 0, 0, 0]]
    s = resolving(["tower"], roles=FOUR, tokens=tokens, skip=[False, True, False, False])
    s, events = act(s, 0, eff(0))
    assert tr.meets("rector", s["tokens"][1])
    assert [e["kind"] for e in events if e["kind"] in {"skipped", "game_over"}] == ["skipped"]
    assert s["result"] is None and s["current"] == 2
    for seat in (2, 3, 0):  # their turns: nothing that touches the Rector's tokens
        s["phase"], s["effects"] = "resolve", [{"id": 0, "kind": "tower"}]
        s, events = act(s, seat, eff(0))
    assert s["result"] is not None and s["result"]["winners"] == [1]
    assert next(e for e in events if e["kind"] == "game_over")["winners"] == [1]
