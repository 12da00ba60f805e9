"""A person whose time ran out (Munchkin's "anyone?" window): the engine's timeout action."""

from .moves import MoveRejected
from .seats import Seat


class TimeoutsMixin:
    """Match's clock."""

    def time_out(self) -> int:
        """The people to act whose time is up get their engine's timeout action, through
        ``play`` (the one code path; a bot's turn follows as after any move). A move that
        lost a race (the person acted meanwhile) is skipped. Returns the moves played."""
        module = self.engine
        hook = getattr(module, "timeout_action", None)
        if hook is None or self.status != self.Status.ACTIVE or self.paused_at is not None:
            return 0
        people = {s.number for s in self.seat_list() if s.kind != Seat.Kind.BOT}
        played = 0
        for number in self.to_act():
            action = hook(module.load(self.state), number) if number in people else None
            if action is None:
                continue
            try:
                self.play(number, action, version=self.version)
            except MoveRejected:
                continue
            played += 1
        return played
