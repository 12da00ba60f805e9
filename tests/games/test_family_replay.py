"""Replays for every game: a finished Muertoons match replays move by move without hands;
a game without its own replay board shows the public log."""

import dataclasses

import pytest
from django.urls import reverse

from config.names import isolate
from games import registry
from games.models import Match
from games.models import Seat

from .conftest import guest_client

HTMX = {"HTTP_HX_REQUEST": "true"}
pytestmark = pytest.mark.django_db


def swap_game(monkeypatch, slug, **changes):
    """The registry with game ``slug`` changed (dataclasses.replace) for one test."""
    games = dict(registry.games())
    games[slug] = dataclasses.replace(games[slug], **changes)
    monkeypatch.setattr(registry, "games", lambda: games)


def finished_muertoons():
    match = Match.create(
        "muertoons",
        [
            {"kind": Seat.Kind.BOT, "name": "Ana", "bot_level": "heuristic", "owner_key": "ana"},
            {"kind": Seat.Kind.BOT, "name": "Coco", "bot_level": "heuristic"},
            {"kind": Seat.Kind.BOT, "name": "Memo", "bot_level": "random"},
        ],
        seed=11,
        family=True,
    )
    match.play_bot_turns(max_moves=3000)
    match.refresh_from_db()
    assert match.is_over
    return match


def test_a_finished_muertoons_match_replays_move_by_move_without_hands():
    match = finished_muertoons()
    ana = guest_client("ana")
    url = reverse("games:replay", args=[match.public_id])
    total = match.moves.count()
    states = {move.ply if move else 0: state for move, state in match.replay_states()}
    engine = match.engine
    for ply in (0, 1, 2, total // 2, total):
        response = ana.get(f"{url}?ply={ply}", **(HTMX if ply % 2 else {}))
        assert response.status_code == 200
        body = response.content.decode()
        assert f"Move {ply} of {total}" in body
        assert "Top of the pile" in body
        # No hand of that moment, not even a card id in an attribute.
        hands = {c for seat in range(3) for c in engine.private(states[ply], seat)}
        assert not [c for c in hands if c in body], ply
    body = ana.get(f"{url}?ply=1").content.decode()
    first = match.moves.get(ply=1)
    names = {0: isolate("Ana"), 1: isolate("Coco"), 2: isolate("Memo")}  # as the board has them
    line = registry.get("muertoons").event_line(first.events[0], names)
    assert line and line.replace("'", "&#x27;") in body


def test_the_finished_muertoons_board_links_to_the_replay():
    match = finished_muertoons()
    body = guest_client("ana").get(match.get_absolute_url()).content.decode()
    assert reverse("games:replay", args=[match.public_id]) in body


def test_a_game_without_a_replay_board_shows_the_public_log(monkeypatch):
    match = finished_muertoons()
    swap_game(monkeypatch, "muertoons", replay=None)
    body = (
        guest_client("ana")
        .get(reverse("games:replay", args=[match.public_id]) + "?ply=3")
        .content.decode()
    )
    assert "What happened so far" in body and "Move 3 of" in body
    # The game's log lines, without its replay board.
    assert "Top of the pile" not in body and "<li>" in body


def test_an_unfinished_family_game_does_not_replay_yet():
    match = Match.create(
        "muertoons",
        [
            {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "ana"},
            {"kind": Seat.Kind.BOT, "name": "Coco", "bot_level": "heuristic"},
            {"kind": Seat.Kind.BOT, "name": "Memo", "bot_level": "heuristic"},
        ],
        family=True,
    )
    response = guest_client("ana").get(reverse("games:replay", args=[match.public_id]))
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    assert (
        guest_client("zed").get(reverse("games:replay", args=[match.public_id])).status_code == 404
    )


def test_a_move_without_a_log_line_is_not_called_the_deal(monkeypatch):
    """A move whose events the log leaves out (a pass, say) reads "Coco made a move." in the
    replay; only move 0 is the start of the game."""
    match = finished_muertoons()
    swap_game(monkeypatch, "muertoons", event_line=lambda event, names: None)
    url = reverse("games:replay", args=[match.public_id])
    ana = guest_client("ana")
    assert "The game begins." in ana.get(f"{url}?ply=0").content.decode()
    second = match.moves.get(ply=2)
    mover = isolate({0: "Ana", 1: "Coco", 2: "Memo"}[second.seat])
    body = ana.get(f"{url}?ply=2").content.decode()
    assert f"{mover} made a move." in body and "The game begins." not in body


def test_a_finished_pass_and_play_game_offers_play_again_on_its_device():
    """Two people on one device: once the game is over nobody is "to act", but the device
    still plays at this table, so it gets the family's Play again."""
    match = Match.create(
        "muertoons",
        [
            {"kind": Seat.Kind.BOT, "name": "Ana", "bot_level": "heuristic", "owner_key": "fam"},
            {"kind": Seat.Kind.BOT, "name": "Ben", "bot_level": "heuristic", "owner_key": "fam"},
            {"kind": Seat.Kind.BOT, "name": "Coco", "bot_level": "heuristic"},
        ],
        seed=11,
        family=True,
    )
    match.play_bot_turns(max_moves=3000)
    match.refresh_from_db()
    assert match.is_over
    match.seats.filter(owner_key="fam").update(kind=Seat.Kind.GUEST, bot_level="")
    body = guest_client("fam").get(match.get_absolute_url()).content.decode()
    again = reverse("games:new_family", args=["muertoons"])
    assert f'href="{again}" data-autofocus>Play again</a>' in body
