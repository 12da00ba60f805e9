"""The one code path that applies a move (``MovesMixin.play``), what it refuses, and the
append-only move log."""

from dataclasses import dataclass
from dataclasses import field

from django.db import IntegrityError
from django.db import models
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import queue
from games import signals
from games.engine import IllegalAction

from .ids import RECENT_MOVES


class MoveRejected(Exception):
    """A move that was not applied; ``message`` says why, for the person (the web layer
    chooses the status code: games.views.REJECTED_STATUS)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class StaleVersion(MoveRejected):
    """The board the move was made on is out of date."""


class NotYourTurn(MoveRejected):
    """That seat may not act now."""


class IllegalMove(MoveRejected):
    """The engine refused the action."""


class MovesMixin:
    """Match's moves: ``play`` locks the match, checks the version (``moved_on_for``), asks the
    pure engine, stores the new state and the move, bumps the version and, once committed,
    enqueues the follow-ups (``after_change``). ``replay_states`` plays them again."""

    def play(
        self, seat_number: int, action: dict, *, version=None, move_id: str = "", follow_ups=True
    ) -> "Played":
        """Apply ``action`` for ``seat_number``; raise a ``MoveRejected`` and change nothing
        when it may not be applied. The same ``move_id`` twice is applied once.
        ``follow_ups=False`` (demo data, replays of scripted games) enqueues no bot turn."""
        try:
            with transaction.atomic():
                return self._play_locked(
                    seat_number, action, version=version, move_id=move_id, follow_ups=follow_ups
                )
        except IntegrityError:
            # A racing request stored the same move id first: answer as it was answered.
            existing = Move.objects.filter(match_id=self.pk, client_move_id=move_id).first()
            if move_id and existing is not None:
                self.refresh_from_db()
                return Played(match=self, move=existing, duplicate=True)
            raise

    def _play_locked(self, seat_number, action, *, version, move_id, follow_ups) -> "Played":
        match = type(self).objects.select_for_update().get(pk=self.pk)
        seats = self.__dict__.get("loaded_seats")
        if seats is not None:  # seats do not change during play: reuse the caller's
            match.loaded_seats = seats
        older = version is not None and int(version) != match.version
        if move_id and (older or version is None):
            # A repeated move id comes back with the version it was first sent with.
            existing = match.moves.filter(client_move_id=move_id).first()
            if existing is not None:
                self._sync(match)
                return Played(match=self, move=existing, duplicate=True)
        if older and match.moved_on_for(seat_number, int(version)):
            self._sync(match)
            raise StaleVersion(str(_("The game moved on. Here is the latest board.")))
        if match.paused_at is not None and match.status == self.Status.ACTIVE:
            self._sync(match)
            raise NotYourTurn(str(_("Your teacher has paused the game. Wait a moment.")))
        if match.status != self.Status.ACTIVE:
            self._sync(match)
            if match.status == self.Status.WAITING:
                raise NotYourTurn(str(_("We are still waiting for players to join.")))
            raise NotYourTurn(str(_("This game is over.")))
        module = match.engine
        state = module.load(match.state)
        if seat_number not in module.to_act(state):
            self._sync(match)
            raise NotYourTurn(str(_("It is not your turn yet.")))
        if not isinstance(action, dict):
            raise IllegalMove(str(_("I do not understand that move.")))
        try:
            new_state, events = module.apply(state, seat_number, action)
        except IllegalAction as exc:
            self._sync(match)
            raise IllegalMove(str(exc)) from exc
        now = timezone.now()
        think_ms = max(0, int((now - match.changed_at).total_seconds() * 1000))
        match.state = module.dump(new_state)
        match.recent_events = [*match.recent_events[-(RECENT_MOVES - 1) :], [seat_number, events]]
        match.version += 1
        match.changed_at = now
        result = module.outcome(new_state)
        if result is not None:
            match.status = self.Status.FINISHED
            match.outcome = result
            match.finished_at = now
        match.save_board(self.SYNCED_FIELDS)
        move = Move.objects.create(
            match=match,
            ply=match.version,
            seat=seat_number,
            action=action,
            events=events,
            client_move_id=move_id or None,
            think_ms=think_ms,
            created_at=now,
        )
        # What the apps on the platform keep of a move, in this transaction (the classroom:
        # the evidence of a child's seat): no move without it, nothing of it without the move.
        signals.move_applied.send(sender=type(self), match=match, move=move)
        if follow_ups:
            match.after_change()
        self._sync(match)
        return Played(match=self, move=move, duplicate=False)

    def moved_on_for(self, seat_number: int, version: int) -> bool:
        """Whether a form of the board ``seat_number`` saw at ``version`` is stale: some move
        since then changed what that seat saw in a way that matters to it. Every move does,
        except another seat's secret choice in a round of simultaneous choices that is still
        open (a Muertoons contest, a Mortadelo duel): a move whose only events are of the
        engine's ``COMMITMENTS`` kinds. Such a move tells the seat only that the other has
        chosen (public: its view lists who has chosen) and leaves its own choice as it was;
        the engine still checks the move against the current state. Call it under the row
        lock (``Match.play`` does), so no move lands in between."""
        if version == self.version:
            return False
        quiet = getattr(self.engine, "COMMITMENTS", frozenset())
        if not quiet or not 0 <= version < self.version:
            return True
        since = list(self.moves.filter(ply__gt=version).values_list("seat", "events"))
        if len(since) != self.version - version:
            return True
        return any(
            seat == seat_number
            or not events
            or any(not isinstance(e, dict) or e.get("kind") not in quiet for e in events)
            for seat, events in since
        )

    SYNCED_FIELDS = (
        "state",
        "recent_events",
        "version",
        "changed_at",
        "status",
        "outcome",
        "finished_at",
    )
    SYNCED_READONLY = ("paused_at",)

    def _sync(self, other) -> None:
        for name in self.SYNCED_FIELDS + self.SYNCED_READONLY:
            setattr(self, name, getattr(other, name))

    def after_change(self):
        """Follow-ups once the change is committed: bots take their turns in the worker; the
        apps on the platform hear of the change (``signals.match_changed``: the classroom
        updates a child's statistics when a game with a child's seat has finished)."""
        if self.status == self.Status.ACTIVE and self.bot_to_act():
            from games.tasks import play_bots

            match_id = self.pk
            transaction.on_commit(lambda: queue.enqueue(play_bots, match_id))
        signals.match_changed.send(sender=type(self), match=self)

    def replay_states(self):
        """Yield (move or None, state) from the seed through every stored move."""
        module = self.engine
        state = module.setup(self.seats.count(), self.seed, self.options)
        yield None, state
        for move in self.moves.order_by("ply"):
            state, _events = module.apply(state, move.seat, move.action)
            yield move, state


@dataclass
class Played:
    match: models.Model  # the Match
    move: "Move"
    duplicate: bool = False
    events: list = field(default_factory=list)

    def __post_init__(self):
        self.events = list(self.move.events)


class Move(models.Model):
    """One applied move: append-only, never edited."""

    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    events = models.JSONField(default=list)
    # NULL (not "") when the client sent none, so the unique constraint ignores it.
    client_move_id = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    think_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "ply"]
        constraints = [
            models.UniqueConstraint(fields=["match", "ply"], name="unique_move_ply"),
            models.UniqueConstraint(
                fields=["match", "client_move_id"], name="unique_client_move_id"
            ),
        ]

    def __str__(self):
        return f"{self.match_id}#{self.ply} seat {self.seat}: {self.action}"
