"""Properties every game engine of the registry (games/registry.py) must have (new games join
automatically)."""

import ast
import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import games.engine
from games import registry
from games.engine import IllegalAction
from games.multiplipotion import engine as mp

ENGINE_DIR = Path(games.engine.__file__).parent
GAMES = registry.rules()
SLUGS = sorted(GAMES)


def get(slug):
    return registry.get(slug).rules


PROTOCOL = [
    "SLUG",
    "NAME",
    "MIN_PLAYERS",
    "MAX_PLAYERS",
    "OPTIONS",
    "LEVELS",
    "setup",
    "to_act",
    "legal_actions",
    "apply",
    "view",
    "outcome",
    "dump",
    "load",
    "private",
    "bot_action",
    "describe",
    "cards",
]
STEPS = 250


# ------------------------------------------------------------------------------------------
# Static checks
# ------------------------------------------------------------------------------------------
def _engine_files():
    """games/engine/ and, for each game, its engine module and the modules of its package that
    the engine imports (``from .cards import ...``, ``from . import x``)."""
    files = set(ENGINE_DIR.rglob("*.py"))
    for mod in GAMES.values():
        path = Path(mod.__file__)
        files.add(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
                files.update(path.parent / f"{name}.py" for name in names)
    assert len(files) > len(list(ENGINE_DIR.rglob("*.py")))
    return sorted(files)


def test_no_django_import_anywhere_in_the_engine():
    for path in _engine_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] != "django", f"{path} imports {name}"


def test_no_global_random_functions_in_the_engine():
    """All chance comes from random.Random instances seeded from the state."""
    for path in _engine_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                assert [a.name for a in node.names] == ["Random"], path
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path}:{node.lineno} uses random.{node.attr}"


def test_registry():
    assert "multiplipotion" in GAMES
    assert get("multiplipotion") is mp
    with pytest.raises(KeyError):
        get("chess")
    assert issubclass(IllegalAction, Exception)


@pytest.mark.parametrize("slug", SLUGS)
def test_module_exposes_the_protocol(slug):
    mod = get(slug)
    for name in PROTOCOL:
        assert hasattr(mod, name), name
    assert slug == mod.SLUG
    assert "random" in mod.LEVELS
    assert 1 <= mod.MIN_PLAYERS <= mod.MAX_PLAYERS
    for spec in mod.OPTIONS.values():
        assert spec["default"] in spec["choices"]
    json.dumps(mod.OPTIONS)


@pytest.mark.parametrize("slug", SLUGS)
def test_setup_rejects_bad_players_and_options(slug):
    mod = get(slug)
    with pytest.raises(ValueError):
        mod.setup(mod.MAX_PLAYERS + 1, 0, {})
    with pytest.raises(ValueError):
        mod.setup(mod.MIN_PLAYERS, 0, {"no-such-option": 1})
    for name in mod.OPTIONS:
        with pytest.raises(ValueError):
            mod.setup(mod.MIN_PLAYERS, 0, {name: "no-such-choice"})


# ------------------------------------------------------------------------------------------
# Random play with invariants
# ------------------------------------------------------------------------------------------
def _options(mod, data):
    return {
        name: data.draw(st.sampled_from(spec["choices"]), label=name)
        for name, spec in mod.OPTIONS.items()
    }


def _check_leaks(mod, state, players, events):
    views = {seat: json.dumps(mod.view(state, seat)) for seat in range(players)}
    views[None] = json.dumps(mod.view(state, None))
    events_text = json.dumps(events)
    for other in range(players):
        tokens = mod.private(state, other)
        for seat, text in views.items():
            if seat == other:
                for token in tokens:
                    assert token in text  # the owner does see them
                continue
            for token in tokens:
                assert token not in text, (token, seat, other)
        for token in tokens:
            assert token not in events_text, (token, events)


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31), data=st.data())
def test_random_play_keeps_every_invariant(slug, seed, data):
    mod = get(slug)
    players = data.draw(st.integers(mod.MIN_PLAYERS, mod.MAX_PLAYERS), label="players")
    options = _options(mod, data)
    state = mod.setup(players, seed, options)
    deck = sorted(mod.cards(state))
    assert len(deck) == len(set(deck))
    log = []
    for _ in range(STEPS):
        acting = mod.to_act(state)
        if not acting:
            assert mod.outcome(state) is not None
            break
        assert mod.outcome(state) is None
        for seat in range(players):
            if seat not in acting:
                assert mod.legal_actions(state, seat) == []
        seat = data.draw(st.sampled_from(acting), label="seat")
        legal = mod.legal_actions(state, seat)
        assert legal, "a seat that may act has something to do"
        assert legal == mod.legal_actions(state, seat)  # deterministic order
        frozen = copy.deepcopy(state)
        for action in legal:  # every legal action applies without raising
            mod.apply(state, seat, action)
        if data.draw(st.booleans(), label="bot plays"):
            # a bot move now and then takes the game further (captures, challenges, the end)
            level = "wizard" if "wizard" in mod.LEVELS else "random"
            rng = random.Random(data.draw(st.integers(0, 2**16), label="bot seed"))
            action = mod.bot_action(mod.view(state, seat), legal, level, rng, None)
            assert action in legal
        else:
            action = data.draw(st.sampled_from(legal), label="action")
        new, events = mod.apply(state, seat, action)
        assert state == frozen, "apply must never mutate its input"
        for seat_not_acting in set(range(players)) - set(acting):
            with pytest.raises(IllegalAction):
                mod.apply(state, seat_not_acting, action)
        log.append((seat, action))
        event(f"{slug} reached {mod.view(new, None).get('phase', '?')}")
        # conservation
        now = sorted(mod.cards(new))
        assert now == deck
        # dump/load round trip through JSON
        assert mod.load(json.loads(json.dumps(mod.dump(new)))) == new
        # leaks
        json.dumps(events)
        for e in events:
            assert "kind" in e
            assert isinstance(mod.describe(e), str)
        _check_leaks(mod, new, players, events)
        json.dumps(mod.outcome(new))
        state = new
    event("finished" if mod.outcome(state) is not None else "unfinished")
    # determinism: the same seed and actions give the same state
    replay = mod.setup(players, seed, options)
    for seat, action in log:
        replay, _ = mod.apply(replay, seat, action)
    assert replay == state


BOT_CASES = [(slug, level) for slug in SLUGS for level in get(slug).LEVELS]


@pytest.mark.parametrize("slug, level", BOT_CASES, ids=[f"{s}-{lv}" for s, lv in BOT_CASES])
def test_every_game_ends_with_bot_play(slug, level):
    """40 games per level: every option choice in turn, each with the fewest and the most
    players (games with many options or slow games stay within seconds)."""
    mod = get(slug)
    option_sets = [{}, *({n: c} for n, s in mod.OPTIONS.items() for c in s["choices"])]
    for seed in range(40):
        options = option_sets[seed % len(option_sets)]
        counts = (mod.MIN_PLAYERS, mod.MAX_PLAYERS)
        players = counts[(seed + seed // len(option_sets)) % 2]
        state = mod.setup(players, seed, options)
        rng = random.Random(seed)
        for _ in range(3000):
            acting = mod.to_act(state)
            if not acting:
                break
            seat = acting[0]
            legal = mod.legal_actions(state, seat)
            action = mod.bot_action(mod.view(state, seat), legal, level, rng, None)
            assert action in legal
            state, _ = mod.apply(state, seat, action)
        result = mod.outcome(state)
        assert result is not None, (seed, options)
        assert set(result) >= {"winners", "ranking", "reason"}
        assert sorted(s for group in result["ranking"] for s in group) == list(range(players))


# ------------------------------------------------------------------------------------------
# MultipliPotion: the draw pile is hidden from everybody
# ------------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31), tier=st.sampled_from(["green", "full"]))
def test_multiplipotion_draw_pile_never_shows(seed, tier):
    state = mp.setup(2, seed, {"tier": tier})
    rng = random.Random(seed)
    levels = ["apprentice", "wizard"]
    while mp.to_act(state):
        seat = mp.to_act(state)[0]
        action = mp.bot_action(
            mp.view(state, seat), mp.legal_actions(state, seat), "apprentice", rng
        )
        if rng.random() < 0.3:
            action = mp.bot_action(
                mp.view(state, seat), mp.legal_actions(state, seat), levels[seat], rng
            )
        new, events = mp.apply(state, seat, action)
        hidden_before = set(state["pile"]) | set(state["hands"][0]) | set(state["hands"][1])
        still_hidden = (set(new["pile"]) | set(new["hands"][0]) | set(new["hands"][1])) & (
            hidden_before
        )
        text = json.dumps(events)
        for token in still_hidden:
            assert token not in text
        for seat_view in (0, 1, None):
            text = json.dumps(mp.view(new, seat_view))
            for token in new["pile"]:
                assert token not in text
        state = new
    assert mp.outcome(state) is not None


def test_load_rejects_a_state_that_does_not_add_up():
    s = mp.setup(2, 0, {})
    d = mp.dump(s)
    d["pile"] = d["pile"][1:]
    with pytest.raises(ValueError):
        mp.load(d)
    with pytest.raises(ValueError):
        mp.load({"game": "chess"})
