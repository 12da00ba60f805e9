"""The registry of games (games/registry.py): a game is one folder and one line, and every game
of it, the test-only Pebbles included, plays, shows its board and replays without hands."""

import re
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from games import registry
from games.models import Match
from games.models import Seat
from games.registry import Game

from .conftest import guest_client

ROOT = Path(__file__).resolve().parents[2]
SLUGS = sorted(registry.games())
pytestmark = pytest.mark.django_db


def test_pebbles_is_one_folder_and_one_line():
    """Outside its own folder, the test-only game is named by one line of code (the one that
    installs it) and by the docs that point to it as the example."""
    assert "pebbles" in registry.games()
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    named = {}
    for name in files:
        path = ROOT / name
        if name.startswith(("tests/plugins/pebbles/", "docs/")) or not path.is_file():
            continue
        if name == "tests/games/test_registry.py":
            continue
        lines = [
            line
            for line in path.read_text(errors="ignore").splitlines()
            if "pebbles" in line.lower() and not line.lstrip().startswith("#")
        ]
        if lines:
            named[name] = lines
    assert list(named) == ["tests/conftest.py"], named
    assert len(named["tests/conftest.py"]) == 1, named


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_has_its_one_declarative_object(slug):
    game = registry.get(slug)
    assert isinstance(game, Game) and game.slug == slug == game.rules.SLUG
    assert game.name == game.rules.NAME
    # Every option and every level a person may choose has its label: no silent fallback.
    for name, spec in game.rules.OPTIONS.items():
        assert game.option_labels[name]
        assert set(spec["choices"]) <= set(game.option_choice_labels[name])
    assert [lv for lv, _label in game.bot_levels()] == [
        lv for lv in game.rules.LEVELS if lv != "random"
    ]
    assert game.age and game.minutes and str(game.summary)


def test_an_unknown_game_is_no_game():
    with pytest.raises(KeyError):
        registry.get("chess")
    with pytest.raises(KeyError):
        Match.create("chess", [])


def finished(slug):
    """A finished game of ``slug``: computers at every seat, seat 0 seen by the browser "ana"."""
    rules = registry.get(slug).rules
    seats = [
        {"kind": Seat.Kind.BOT, "name": f"Bot {n}", "bot_level": rules.BEST_LEVEL}
        for n in range(rules.MIN_PLAYERS)
    ]
    seats[0].update(name="Ana", owner_key="ana")
    match = Match.create(slug, seats, seed=5, family=True)
    match.play_bot_turns(max_moves=5000)
    match.refresh_from_db()
    assert match.is_over
    return match


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_replays_move_by_move_without_hands(slug):
    match = finished(slug)
    rules = match.engine
    states = [state for _move, state in match.replay_states()]
    total = len(states) - 1
    url = reverse("games:replay", args=[match.public_id])
    ana = guest_client("ana")
    for ply in sorted({0, 1, total // 2, total}):
        response = ana.get(f"{url}?ply={ply}")
        assert response.status_code == 200
        body = response.content.decode()
        assert f"Move {ply} of {total}" in body
        hidden = {t for seat in range(rules.MIN_PLAYERS) for t in rules.private(states[ply], seat)}
        found = [t for t in hidden if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", body)]
        assert not found, (slug, ply, found)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_shows_its_board_and_its_stylesheets(slug):
    match = finished(slug)
    body = guest_client("ana").get(match.get_absolute_url()).content.decode()
    assert 'id="board"' in body
    for css in match.spec.css:
        assert css in body
    assert f"games/{slug}/board.html" == match.spec.board_template


@pytest.mark.parametrize("slug", SLUGS)
def test_an_outsider_gets_404_everywhere_and_changes_nothing(slug):
    """Every game: a browser with no seat at the table is told "not found" by the play page,
    the poll, a move and the hand-off, sees no card of anybody, and the match stays as it is."""
    from .conftest import post_move
    from .conftest import seat_specs
    from .conftest import url

    rules = registry.get(slug).rules
    keys = ["ana", "ben", "cleo", "dev", "eli", "fay", "gus"][: rules.MIN_PLAYERS]
    match = Match.create(slug, seat_specs(keys), seed=4)
    state = rules.load(match.state)
    seat = rules.to_act(state)[0]
    action = rules.legal_actions(state, seat)[0]
    zed = guest_client("zed")
    answers = [
        zed.get(url("play", match)),
        zed.get(url("poll", match) + "?v=0"),
        post_move(zed, match, **{k: v for k, v in action.items() if v is not None}),
        zed.post(url("reveal", match)),
    ]
    assert [r.status_code for r in answers] == [404] * 4
    hidden = {t for n in range(rules.MIN_PLAYERS) for t in rules.private(state, n)}
    for response in answers:
        body = response.content.decode()
        assert not [t for t in hidden if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", body)]
    match.refresh_from_db()
    assert match.version == 0 and not match.moves.exists()
