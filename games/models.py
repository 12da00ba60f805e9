"""Matches, their seats and the append-only move log.

``Match.play`` is the one code path that applies a move: it locks the match, checks the
version, asks the pure engine, stores the new state and the move, bumps the version and,
once the transaction commits, enqueues the follow-ups (bot turns, analytics).
"""

import logging
import random
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import engine
from games.engine import IllegalAction

logger = logging.getLogger(__name__)

RECENT_MOVES = 4
PUBLIC_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def new_public_id() -> str:
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(10))


def new_seed() -> int:
    return secrets.randbelow(2**31)


def enqueue(task, *args, **options) -> bool:
    """Send a Celery task; a broker outage is logged, never turned into a failed request
    (the move is already stored, and the sweeper or the next move picks the work up).
    ``options`` go to apply_async (e.g. ``queue``)."""
    try:
        task.apply_async(args=args, **options)
        return True
    except Exception:
        logger.exception("could not enqueue %s%r", task.name, args)
        return False


class MoveRejected(Exception):
    """A move that was not applied. ``status`` is the HTTP status the web layer answers."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class StaleVersion(MoveRejected):
    status = 409


class NotYourTurn(MoveRejected):
    status = 403


class IllegalMove(MoveRejected):
    status = 422


class MatchQuerySet(models.QuerySet):
    def get_with_seats(self, public_id: str) -> "Match":
        """The match and its seats in one query (raises Match.DoesNotExist)."""
        seats = list(
            Seat.objects.filter(match__public_id=public_id)
            .select_related("match")
            .order_by("number")
        )
        if not seats:
            raise Match.DoesNotExist
        match = seats[0].match
        for seat in seats:
            seat.match = match
        prefetched = match.seats.all()
        prefetched._result_cache, prefetched._prefetch_done = seats, True
        match._prefetched_objects_cache = {"seats": prefetched}
        return match

    def live(self):
        return self.filter(status=Match.Status.ACTIVE)

    def stalled_on_bots(self, seconds: int = 10):
        """Live matches with a computer player that have not changed for a while: if a bot
        must act there, its task was lost (e.g. the broker was down when it was sent)."""
        cutoff = timezone.now() - timedelta(seconds=seconds)
        return self.live().filter(changed_at__lt=cutoff, seats__kind=Seat.Kind.BOT).distinct()


class Match(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        ACTIVE = "active", _("Playing")
        FINISHED = "finished", _("Finished")
        ABANDONED = "abandoned", _("Abandoned")

    public_id = models.CharField(max_length=12, unique=True, default=new_public_id, editable=False)
    # A slug of games.engine.GAMES (checked by Match.create; no DB choices, so adding a game
    # needs no migration).
    game = models.CharField(max_length=20)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(default=new_seed)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField()
    # The events of the last few moves, for the play screen's log (no extra query).
    recent_events = models.JSONField(default=list, blank=True)
    outcome = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    # A classroom session this match belongs to (None: a practice or family game).
    assignment = models.ForeignKey(
        "classroom.Assignment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="matches",
    )
    # Set while the teacher has paused the session: moves wait until it is cleared.
    paused_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the state last changed: the moment the seat to act could first act.
    changed_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "changed_at"])]

    def __str__(self):
        return f"{self.game_name} {self.public_id}"

    def get_absolute_url(self):
        return reverse("games:play", args=[self.public_id])

    @property
    def game_name(self) -> str:
        return self.engine.NAME if self.game in engine.GAMES else self.game

    @staticmethod
    def board_token(version: int, paused_at) -> str:
        """What a polling board compares: the version, and whether the game is paused."""
        return f"{version}p" if paused_at else str(version)

    @property
    def poll_token(self) -> str:
        return self.board_token(self.version, self.paused_at)

    # --- engine access -------------------------------------------------------------
    @property
    def engine(self):
        return engine.get(self.game)

    def load_state(self):
        return self.engine.load(self.state)

    def view_for(self, seat_number: int | None) -> dict:
        return self.engine.view(self.load_state(), seat_number)

    def to_act(self) -> tuple[int, ...]:
        return tuple(self.engine.to_act(self.load_state()))

    @property
    def is_over(self) -> bool:
        return self.status in {self.Status.FINISHED, self.Status.ABANDONED}

    # --- creation ---------------------------------------------------------------------
    @classmethod
    def create(cls, game: str, seats: list[dict], options: dict | None = None, seed=None, **fields):
        """Set up a match with its seats. ``seats`` are Seat field dicts in seat order."""
        module = engine.get(game)
        seed = new_seed() if seed is None else seed
        state = module.setup(len(seats), seed, options or {})
        with transaction.atomic():
            match = cls.objects.create(
                game=game,
                options=options or {},
                seed=seed,
                state=module.dump(state),
                status=cls.Status.ACTIVE
                if all(s.get("kind") != Seat.Kind.OPEN for s in seats)
                else cls.Status.WAITING,
                **fields,
            )
            Seat.objects.bulk_create(
                Seat(match=match, number=i, **spec) for i, spec in enumerate(seats)
            )
            match.after_change()
        return match

    # --- the one code path that applies a move ----------------------------------------
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
        match = Match.objects.select_for_update().get(pk=self.pk)
        seats = getattr(self, "_prefetched_objects_cache", {}).get("seats")
        if seats is not None:  # seats do not change during play: reuse the caller's
            match._prefetched_objects_cache = {"seats": seats}
        stale = version is not None and int(version) != match.version
        if move_id and (stale or version is None):
            # A repeated move id comes back with the version it was first sent with.
            existing = match.moves.filter(client_move_id=move_id).first()
            if existing is not None:
                self._sync(match)
                return Played(match=self, move=existing, duplicate=True)
        if stale:
            self._sync(match)
            raise StaleVersion(str(_("The game moved on. Here is the latest board.")))
        if match.paused_at is not None and match.status == Match.Status.ACTIVE:
            self._sync(match)
            raise NotYourTurn(str(_("Your teacher has paused the game. Wait a moment.")))
        if match.status != Match.Status.ACTIVE:
            self._sync(match)
            if match.status == Match.Status.WAITING:
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
            match.status = Match.Status.FINISHED
            match.outcome = result
            match.finished_at = now
        match.save(update_fields=list(self.SYNCED_FIELDS))
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
        # The evidence of a child's seat, in this transaction: no move, no attempt.
        from classroom.models import Attempt

        Attempt.objects.record_move(match, move)
        if follow_ups:
            match.after_change()
        self._sync(match)
        return Played(match=self, move=move, duplicate=False)

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

    def _sync(self, other: "Match") -> None:
        for name in self.SYNCED_FIELDS + self.SYNCED_READONLY:
            setattr(self, name, getattr(other, name))

    def after_change(self):
        """Follow-ups once the change is committed: bots take their turns in the worker; a
        finished match with a child's seat updates the child's statistics (analytics)."""
        if self.status == Match.Status.ACTIVE and self.bot_to_act():
            from games.tasks import play_bots

            match_id, version = self.pk, self.version
            transaction.on_commit(lambda: enqueue(play_bots, match_id, version))
        elif self.status == Match.Status.FINISHED and any(
            seat.kind == Seat.Kind.STUDENT for seat in self.seats.all()
        ):
            from classroom.tasks import update_match_stats

            match_id = self.pk
            transaction.on_commit(lambda: enqueue(update_match_stats, match_id))

    def seat_filled(self):
        """Called (under lock) after an open seat was taken: start when the table is full."""
        if (
            self.status == Match.Status.WAITING
            and not self.seats.filter(kind=Seat.Kind.OPEN).exists()
        ):
            self.status = Match.Status.ACTIVE
            self.changed_at = timezone.now()
            self.save(update_fields=["status", "changed_at"])
            self.after_change()

    def can_spectate(self, user) -> bool:
        """Teachers of a seated child, and superusers, may watch (never any hand)."""
        if not user.is_authenticated:
            return False
        if user.is_superuser:
            return True
        return self.seats.filter(student__classroom__teacher=user).exists()

    # --- bots ---------------------------------------------------------------------------
    def bot_to_act(self) -> list["Seat"]:
        if self.paused_at is not None:
            return []
        acting = set(self.to_act())
        return [s for s in self.seats.all() if s.kind == Seat.Kind.BOT and s.number in acting]

    def play_bot_turns(self, max_moves: int = 500) -> int:
        """Let every bot that must act play until a person must act. Idempotent: a bot
        that is not to act does nothing. Returns the number of moves played."""
        played = 0
        while played < max_moves:
            self.refresh_from_db()
            if self.status != Match.Status.ACTIVE:
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

    # --- replay -------------------------------------------------------------------------
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
    match: Match
    move: "Move"
    duplicate: bool = False
    events: list = field(default_factory=list)

    def __post_init__(self):
        self.events = list(self.move.events)


class SeatQuerySet(models.QuerySet):
    def owned_by_key_or_user(self, key: str, user, student_id=None):
        q = models.Q(pk__in=[])
        if key:
            q |= models.Q(owner_key=key)
        if user.is_authenticated:
            q |= models.Q(user=user)
        if student_id:
            q |= models.Q(student_id=student_id)
        return self.filter(q)


class Seat(models.Model):
    class Kind(models.TextChoices):
        GUEST = "guest", _("Guest")
        USER = "user", _("Signed-in user")
        STUDENT = "student", _("Student")
        BOT = "bot", _("Computer player")
        OPEN = "open", _("Open seat")

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(_("name"), max_length=40)
    # The browser session that plays this seat (a guest's or a child's device).
    owner_key = models.CharField(max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    student = models.ForeignKey(
        "classroom.Student", null=True, blank=True, on_delete=models.CASCADE, related_name="seats"
    )
    bot_level = models.CharField(max_length=20, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)

    objects = SeatQuerySet.as_manager()

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="unique_seat_number"),
        ]

    def __str__(self):
        return f"{self.name} (seat {self.number})"

    def owned_by(self, key: str, user, student_id=None) -> bool:
        if key and self.owner_key == key:
            return True
        if student_id and self.student_id == student_id:
            return True
        return bool(user.is_authenticated and self.user_id == user.pk)

    @property
    def is_bot(self) -> bool:
        return self.kind == self.Kind.BOT

    def bot_focus(self) -> list[tuple[int, int]] | None:
        """The Coach level's facts to put in front of its opponent: the focus facts
        (classroom.diagnosis.focus_facts) of the child sitting opposite. None for any other
        seat, level or opponent. One query."""
        if self.kind != self.Kind.BOT or self.bot_level != "coach":
            return None
        from classroom.models import FactStat

        opposite = (
            Seat.objects.filter(match_id=self.match_id, kind=self.Kind.STUDENT)
            .exclude(number=self.number)
            .values("student_id")
        )
        return FactStat.objects.filter(student__in=opposite).focus_facts() or None


class Move(models.Model):
    """One applied move: append-only, never edited."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
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
