"""Hidden information through HTTP: random games of every game played seat by seat through
the real views (one browser per seat), and every answer any seat gets (the play page, the
htmx board, polls, accepted and refused moves) searched for every other seat's private tokens
(``engine.private(state, other)``). Zero may be found.

The suite plays LEAK_GAMES=5 games per game, but stops after the game that passes LEAK_PLIES=150
moves in all (so one game of Munchkin, 250–800 moves between random players, and two of Il Trono);
``make soak`` plays LEAK_GAMES (1,000) of each with no move budget (LEAK_PLIES=0)."""

import os
import random

import pytest

from games import registry
from games.models import Match

from .conftest import body
from .conftest import count
from .conftest import game_params
from .conftest import guest_seats
from .conftest import move_data
from .conftest import seat_client
from .conftest import token_pattern

GAMES_PER_GAME = count("LEAK_GAMES", 5)
PLY_BUDGET = int(os.environ.get("LEAK_PLIES") or 150)  # 0: no budget
MAX_PLIES = 2500
HTMX = {"HTTP_HX_REQUEST": "true"}


class Table:
    """One match and one browser per seat."""

    def __init__(self, slug: str, seed: int):
        self.rng = random.Random(seed)
        self.module = module = registry.get(slug).rules
        players = self.rng.randint(module.MIN_PLAYERS, module.MAX_PLAYERS)
        options = {
            name: self.rng.choice(list(spec["choices"])) for name, spec in module.OPTIONS.items()
        }
        seats = guest_seats(players, prefix=f"leak{seed}")
        self.match = Match.create(slug, seats, options=options, seed=seed)
        self.clients = [seat_client(spec["owner_key"]) for spec in seats]
        self.levels = [self.rng.choice(list(module.LEVELS)) for _ in seats]
        self.players = players
        self.answers = 0
        self._state = None
        self.own_seen = 0  # answers that show the viewer's own private tokens: the search works

    def state(self):
        """The match's state now. Only an accepted move changes it (every seat is a person
        here: no computer player moves in between), so the checks after a move share one
        read of it."""
        if self._state is None:
            self.match.refresh_from_db()
            self._state = self.module.load(self.match.state)
        return self._state

    def check(self, response, seat: int, what: str):
        """The answer to ``seat`` shows none of another seat's private tokens."""
        assert response.status_code < 500, (what, response.status_code)
        if response.status_code == 204:
            return
        self.answers += 1
        state = self.state()
        text = body(response)
        for other in range(self.players):
            if other == seat:
                own = token_pattern(self.module.private(state, seat))
                self.own_seen += bool(own and own.search(text))
                continue
            pattern = token_pattern(self.module.private(state, other))
            found = pattern.findall(text) if pattern else []
            assert not found, (
                f"{self.module.SLUG} seed {self.match.seed}: {what} to seat {seat} shows seat "
                f"{other}'s hidden {sorted(set(found))} (version {self.match.version})"
            )

    def url(self, name: str) -> str:
        return f"/play/{self.match.public_id}/{name}"

    def play_one(self):
        state = self.state()
        version, token = self.match.version, self.match.poll_token
        acting = list(self.module.to_act(state))
        seat = self.rng.choice(acting)
        legal = self.module.legal_actions(state, seat)
        if self.rng.random() < 0.1:
            action = self.rng.choice(legal)
        else:
            view = self.module.view(state, seat)
            action = self.module.bot_action(view, legal, self.levels[seat], self.rng)
        client = self.clients[seat]
        # Now and then: a seat that may not act tries, and a stale form is sent.
        idle = [s for s in range(self.players) if s not in acting]
        if idle and self.rng.random() < 0.1:
            other = self.rng.choice(idle)
            answer = self.clients[other].post(self.url("move/"), move_data(action, version), **HTMX)
            assert answer.status_code == 403, answer.status_code
            self.check(answer, other, "a refused move (not your turn)")
        # (A form of before another seat's secret choice is not stale: Match.moved_on_for.)
        if version and self.rng.random() < 0.05 and self.match.moved_on_for(seat, version - 1):
            answer = client.post(self.url("move/"), move_data(action, version - 1), **HTMX)
            assert answer.status_code == 409, answer.status_code
            self.check(answer, seat, "a stale move")
        headers = HTMX if self.rng.random() < 0.8 else {}
        answer = client.post(self.url("move/"), move_data(action, version), **headers)
        self._state = None  # the move was applied (asserted next)
        assert answer.status_code == 200, (
            f"{self.module.SLUG}: the move {action} of seat {seat} posted as a form was "
            f"answered {answer.status_code}: {body(answer)[:300]}"
        )
        self.check(answer, seat, "the answer to a move")
        # The other seats poll: all of them every few moves, else two (a 6-player game
        # would otherwise spend most of its time on polls).
        others = [s for s in range(self.players) if s != seat]
        if len(others) > 2 and self.rng.random() > 0.2:
            others = self.rng.sample(others, 2)
        for other in others:
            poll = self.clients[other].get(self.url("poll/"), {"v": token}, **HTMX)
            self.check(poll, other, "a poll")
        if self.rng.random() < 0.1:
            other = self.rng.randrange(self.players)
            self.check(self.clients[other].get(self.url("")), other, "the play page")

    def play(self) -> int:
        for seat in range(self.players):
            self.check(self.clients[seat].get(self.url("")), seat, "the play page")
        plies = 0
        while not self.match.is_over and plies < MAX_PLIES:
            self.play_one()
            plies += 1
        for seat in range(self.players):
            self.check(self.clients[seat].get(self.url("")), seat, "the final page")
        return plies


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("slug", game_params())
def test_no_response_shows_another_seats_hidden_cards(slug):
    finished = answers = plies = own_seen = played = 0
    for i in range(GAMES_PER_GAME):
        if PLY_BUDGET and plies >= PLY_BUDGET:
            break
        table = Table(slug, seed=1000 + i)
        plies += table.play()
        played += 1
        finished += table.match.is_over
        answers += table.answers
        own_seen += table.own_seen
    print(
        f"\n{slug}: {played} games ({finished} finished), {plies} moves, "
        f"{answers} answers searched ({own_seen} showed the own hand), 0 leaks"
    )
    assert finished >= played * 0.9, "random games should mostly finish"
    assert answers > played * 10
    # The same search does find a seat's own cards in its own answers.
    assert own_seen > answers * 0.1, (own_seen, answers)
