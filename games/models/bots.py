"""Computer players: who must act, and playing their turns through the one move path."""

import random

from .moves import StaleVersion
from .seats import Seat


class BotsMixin:
    """Match's computer players."""

    def bot_to_act(self) -> list["Seat"]:
        if self.paused_at is not None:
            return []
        acting = set(self.to_act())
        return [s for s in self.seat_list() if s.kind == Seat.Kind.BOT and s.number in acting]

    def play_bot_turns(self, max_moves: int = 500) -> int:
        """Let every bot that must act play until a person must act. Idempotent: a bot
        that is not to act does nothing. Returns the number of moves played."""
        played = 0
        while played < max_moves:
            self.refresh_from_db()
            if self.status != self.Status.ACTIVE:
                break
            bots = self.bot_to_act()
            if not bots:
                break
            seat = bots[0]
            module = self.engine
            state = module.load(self.state)
            view = module.view(state, seat.number)
            legal = module.legal_actions(state, seat.number)
            rng = random.Random(f"{self.seed}:bot:{seat.number}:{self.version}")
            action = module.bot_action(
                view, legal, seat.bot_level or "wizard", rng, seat.bot_focus()
            )
            try:
                self.play(seat.number, action, version=self.version)
            except StaleVersion:
                continue
            played += 1
        return played
