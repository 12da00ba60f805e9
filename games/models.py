"""Matches, their seats and the append-only move log.

``Match.play`` is the one code path that applies a move: it locks the match, checks the
version (``moved_on_for``: has the board the form came from changed in a way that matters to
the seat?), asks the pure engine, stores the new state and the move, bumps the version and,
once the transaction commits, enqueues the follow-ups (bot turns, analytics).
"""

import logging
import random
import secrets
from dataclasses import dataclass, field
from datetime import UTC, timedelta

from django.conf import settings
from django.db import IntegrityError, connections, models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from config.prepared import PreparedQuery
from games import queue, registry, signals
from games.engine import IllegalAction

logger = logging.getLogger(__name__)

RECENT_MOVES = 4
PUBLIC_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
# Room codes are read aloud and typed on a phone: capital letters only, none that look or
# sound alike (no I/L, O/Q, B, S, Z, V/U...).
ROOM_CODE_ALPHABET = "ACDEFGHJKMNPRTWXY"
ROOM_CODE_LENGTH = 6
# A seat's last_seen_at is written at most this often (seconds).
SEEN_EVERY = 15
# A person's "anyone?" window passes by itself on their open page after 20 s; with the page
# closed, the worker passes for them this long after the last change (games.tasks).
TIMEOUT_GRACE_SECONDS = 45


def new_public_id() -> str:
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(10))


def new_room_code() -> str:
    return "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def normalize_room_code(text: str) -> str:
    """What a person typed ("acd-efg ", "ACDEFG") as a stored code."""
    return "".join(ch for ch in (text or "").upper() if ch.isalnum())[: ROOM_CODE_LENGTH * 2]


def new_seed() -> int:
    return secrets.randbelow(2**31)


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


class MatchQuerySet(models.QuerySet):
    def get_with_seats(self, public_id: str) -> "Match":
        """The match and its seats in one query (raises Match.DoesNotExist); the query is
        compiled once (config/prepared.py: every board request makes it)."""
        seats = SEATS_WITH_MATCH.all(public_id, using=self.db)
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

    def by_room_code(self, text: str):
        """The family room with this code (None when there is none)."""
        code = normalize_room_code(text)
        if len(code) != ROOM_CODE_LENGTH:
            return None
        return self.filter(room_code=code, expired_at__isnull=True).first()

    def expired_rooms(self, now=None):
        """Family games nobody has touched for FAMILY_ROOM_TTL_HOURS (not yet expired)."""
        now = now or timezone.now()
        cutoff = now - timedelta(hours=settings.FAMILY_ROOM_TTL_HOURS)
        return self.filter(family=True, expired_at__isnull=True, changed_at__lt=cutoff)

    def expire_rooms(self, now=None) -> tuple[int, int]:
        """Expire old family rooms so that nothing about a guest outlives them. A room with a
        child's seat is scrubbed: the guests' names, player keys and the room code go, the
        child's seat and the moves stay (and so whatever the apps on the platform keep of a
        child's moves: the classroom's attempts, written for a child's seat only, whose FK to
        the match cascades). Any other room is deleted with its seats and moves. Idempotent.
        Returns (deleted, scrubbed)."""
        now = now or timezone.now()
        rooms = self.expired_rooms(now)
        evidence = models.Q(
            models.Exists(Seat.objects.filter(match=models.OuterRef("pk"), kind=Seat.Kind.STUDENT))
        )
        with transaction.atomic():
            keep = list(rooms.filter(evidence).values_list("pk", flat=True))
            Seat.objects.filter(match_id__in=keep).exclude(kind=Seat.Kind.STUDENT).update(
                name=models.Case(
                    models.When(kind=Seat.Kind.BOT, then=models.Value(str(_("Computer player")))),
                    default=models.Value(str(_("Guest"))),
                ),
                owner_key="",
                former_owner_key="",
                user=None,
                last_seen_at=None,
            )
            Match.objects.filter(
                pk__in=keep, status__in=[Match.Status.WAITING, Match.Status.ACTIVE]
            ).update(status=Match.Status.ABANDONED)
            Match.objects.filter(pk__in=keep).update(room_code=None, host_key="", expired_at=now)
            deleted = (
                Match.objects.filter(pk__in=rooms.exclude(pk__in=keep).values("pk"))
                .delete()[1]
                .get("games.Match", 0)
            )
        return deleted, len(keep)

    def time_out_overdue(self, now=None) -> int:
        """Play the timeout action (``engine.timeout_action``: Munchkin's pass in an "anyone?"
        window) of every person whose window has been open for ``TIMEOUT_GRACE_SECONDS``
        while their page is closed (an open page passes by itself after 20 s). Returns the
        number of moves played."""
        timed = [
            slug for slug, rules in registry.rules().items() if hasattr(rules, "timeout_action")
        ]
        cutoff = (now or timezone.now()) - timedelta(seconds=TIMEOUT_GRACE_SECONDS)
        overdue = self.live().filter(game__in=timed, paused_at__isnull=True, changed_at__lt=cutoff)
        return sum(match.time_out() for match in overdue.order_by("changed_at")[:200])

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
    # The slug of an installed game (games/registry.py; checked by Match.create): no DB choices, so
    # adding a game needs no migration.
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
    # Set while the teacher has paused the session: moves wait until it is cleared.
    paused_at = models.DateTimeField(null=True, blank=True)
    # Family night: a game set up on /family/ (its child seats' attempts are home play; it
    # expires after FAMILY_ROOM_TTL_HOURS without a change).
    family = models.BooleanField(default=False)
    # A family room with seats for people on their own devices: the code they type to join.
    room_code = models.CharField(max_length=12, null=True, blank=True, unique=True)
    # The player key of the device that set the game up (the host).
    host_key = models.CharField(max_length=64, blank=True)
    # Bumped whenever a seat changes hands (a join, a start, a computer taking over): the
    # polling boards compare it, as the version only counts moves.
    seating = models.PositiveIntegerField(default=0)
    expired_at = models.DateTimeField(null=True, blank=True)
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
        return self.engine.NAME if self.game in registry.games() else self.game

    @staticmethod
    def board_token(version: int, paused_at, seating: int = 0, status: str = "") -> str:
        """What a polling board compares: the version, the seating (joins, computers taking
        over), whether the game is paused, and whether it was stopped (a teacher ended the
        session, a family room expired: no move, so no new version)."""
        token = str(version)
        if seating:
            token += f"s{seating}"
        if status == Match.Status.ABANDONED:
            token += "x"
        return f"{token}p" if paused_at else token

    @property
    def poll_token(self) -> str:
        return self.board_token(self.version, self.paused_at, self.seating, self.status)

    # --- engine access -------------------------------------------------------------
    @property
    def spec(self) -> "registry.Game":
        """The game's declarative object (games/<slug>/game.py): board, texts, stylesheets."""
        return registry.get(self.game)

    @property
    def engine(self):
        """The game's pure rules engine (games/<slug>/engine.py)."""
        return registry.get(self.game).rules

    def load_state(self):
        return self.engine.load(self.state)

    def view_for(self, seat_number: int | None) -> dict:
        return self.engine.view(self.load_state(), seat_number)

    def to_act(self) -> tuple[int, ...]:
        return tuple(self.engine.to_act(self.load_state()))

    @property
    def is_over(self) -> bool:
        return self.status in {self.Status.FINISHED, self.Status.ABANDONED}

    def recent_lines(self, line_of, names, limit: int) -> list[str]:
        """The last ``limit`` sentences of the recent public events: ``line_of(event, names)``
        is the game's presenter (None: an event it does not tell)."""
        lines = [
            line
            for _seat, events in self.recent_events
            for event in events
            if (line := line_of(event, names))
        ]
        return lines[-limit:]

    # --- creation ---------------------------------------------------------------------
    @classmethod
    def create(cls, game: str, seats: list[dict], options: dict | None = None, seed=None, **fields):
        """Set up a match with its seats. ``seats`` are Seat field dicts in seat order."""
        module = registry.get(game).rules
        seed = new_seed() if seed is None else seed
        state = module.setup(len(seats), seed, options or {})
        if fields.get("family") and any(s.get("kind") == Seat.Kind.OPEN for s in seats):
            fields.setdefault("room_code", cls.free_room_code())
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
            created = Seat.objects.bulk_create(
                Seat(match=match, number=i, **spec) for i, spec in enumerate(seats)
            )
            signals.seats_taken.send(sender=Match, match=match, seats=created)
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
        # What the apps on the platform keep of a move, in this transaction (the classroom:
        # the evidence of a child's seat): no move without it, nothing of it without the move.
        signals.move_applied.send(sender=Match, match=match, move=move)
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

    def _sync(self, other: "Match") -> None:
        for name in self.SYNCED_FIELDS + self.SYNCED_READONLY:
            setattr(self, name, getattr(other, name))

    def after_change(self):
        """Follow-ups once the change is committed: bots take their turns in the worker; the
        apps on the platform hear of the change (``signals.match_changed``: the classroom
        updates a child's statistics when a game with a child's seat has finished)."""
        if self.status == Match.Status.ACTIVE and self.bot_to_act():
            from games.tasks import play_bots

            match_id = self.pk
            transaction.on_commit(lambda: queue.enqueue(play_bots, match_id))
        signals.match_changed.send(sender=Match, match=self)

    @classmethod
    def free_room_code(cls) -> str:
        """A room code no live room uses (the unique constraint is the last word)."""
        for _attempt in range(20):
            code = new_room_code()
            if not cls.objects.filter(room_code=code).exists():
                return code
        return new_room_code()

    def seat_filled(self):
        """Called (under lock) after an open seat was taken: the polling boards learn of it,
        and the game starts when the table is full."""
        self.seating += 1
        fields = ["seating"]
        if (
            self.status == Match.Status.WAITING
            and not self.seats.filter(kind=Seat.Kind.OPEN).exists()
        ):
            self.status = Match.Status.ACTIVE
            self.changed_at = timezone.now()
            fields += ["status", "changed_at"]
        self.save(update_fields=fields)
        if self.status == Match.Status.ACTIVE:
            self.after_change()

    # --- family rooms ---------------------------------------------------------------------
    def is_host(self, keys) -> bool:
        """The device that set this game up (its player key), whichever seats it plays."""
        return bool(self.host_key) and self.host_key in keys

    def open_seats(self) -> list["Seat"]:
        return [s for s in self.seats.all() if s.kind == Seat.Kind.OPEN]

    def start_with_computers(self, level: str) -> list["Seat"]:
        """The host starts without waiting: every open seat goes to a computer player at
        ``level``. Returns the seats filled (none when the game is no longer waiting)."""
        from games.forms import family_bot_name

        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=self.pk)
            if locked.status != Match.Status.WAITING:
                self.refresh_from_db()
                return []
            seats = list(locked.seats.filter(kind=Seat.Kind.OPEN).order_by("number"))
            taken = locked.seats.filter(kind=Seat.Kind.BOT).count()
            for i, seat in enumerate(seats):
                seat.kind, seat.bot_level = Seat.Kind.BOT, level
                seat.name = family_bot_name(taken + i)
                seat.save(update_fields=["kind", "bot_level", "name"])
            locked.seat_filled()
        self.refresh_from_db()
        return seats

    def quiet_seats(self, now=None) -> list[tuple["Seat", int]]:
        """(seat, minutes) of the people on other devices than the host's who have not been
        seen for FAMILY_QUIET_MINUTES while the game is on."""
        if self.status != Match.Status.ACTIVE or not self.family:
            return []
        now = now or timezone.now()
        limit = timedelta(minutes=settings.FAMILY_QUIET_MINUTES)
        quiet = []
        for seat in self.seats.all():
            if seat.kind not in Seat.TAKEOVER_KINDS or seat.owner_key == self.host_key:
                continue
            seen = seat.last_seen_at or self.created_at
            if now - seen > limit:
                quiet.append((seat, int((now - seen).total_seconds() // 60)))
        return quiet

    def hand_to_computer(self, number: int, level: str) -> "Seat | None":
        """A quiet person's seat becomes a computer player ("Ana (computer)") that plays on
        through the usual bot task. None when that seat may not be taken over (any more)."""
        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=self.pk)
            quiet = {s.number for s, _minutes in locked.quiet_seats()}
            if number not in quiet:
                return None
            seat = locked.seats.get(number=number)
            seat.former_owner_key, seat.owner_key = seat.owner_key, ""
            seat.kind, seat.bot_level, seat.user = Seat.Kind.BOT, level, None
            seat.name = (str(_("%(name)s (computer)")) % {"name": seat.name})[:40]
            seat.save(
                update_fields=["former_owner_key", "owner_key", "kind", "bot_level", "user", "name"]
            )
            locked.seating += 1
            locked.save(update_fields=["seating"])
            locked.after_change()
        self.refresh_from_db()
        return seat

    def can_spectate(self, user) -> bool:
        """Whoever holds ``games.view_match`` on this match may watch (never any hand):
        superusers, and whom the authentication backends let (the classroom's: the teachers
        of a seated child)."""
        return user.is_authenticated and user.has_perm("games.view_match", self)

    # --- bots ---------------------------------------------------------------------------
    def time_out(self) -> int:
        """The people to act whose time is up get their engine's timeout action, through
        ``play`` (the one code path; a bot's turn follows as after any move). A move that
        lost a race (the person acted meanwhile) is skipped. Returns the moves played."""
        module = self.engine
        hook = getattr(module, "timeout_action", None)
        if hook is None or self.status != Match.Status.ACTIVE or self.paused_at is not None:
            return 0
        people = {s.number for s in self.seats.all() if s.kind != Seat.Kind.BOT}
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
    def owned_by_key_or_user(self, key, user):
        """``key``: one player key or several (``games.views.player_keys``: the session's, the
        signed cookie's and the seat keys an app gives the request)."""
        q = models.Q(pk__in=[])
        keys = [k for k in ([key] if isinstance(key, str) else key) if k]
        if keys:
            q |= models.Q(owner_key__in=keys)
        if user.is_authenticated:
            q |= models.Q(user=user)
        return self.filter(q)

    def mark_seen(self, now=None) -> int:
        """One UPDATE: these seats' devices are showing the game."""
        return self.update(last_seen_at=now or timezone.now())

    def poll_row(self, public_id: str, key, user):
        """(version, paused_at, seating, status, last_seen_at) of the match ``public_id``
        through the first seat this browser plays (``owned_by_key_or_user``), or None: the same
        row as ``filter(match__public_id=...).owned_by_key_or_user(...).values_list(...)
        .first()``. Hand-written SQL because every child's board asks every 1-3 s: building that ORM
        query cost 0.6 ms of CPU, about a third of a whole poll (docs/performance.md, "Load")."""
        keys = [k for k in ([key] if isinstance(key, str) else key) if k]
        owners, params = [], [public_id]
        if keys:
            owners.append(f"s.owner_key IN ({', '.join(['%s'] * len(keys))})")
            params += keys
        if user.is_authenticated:
            owners.append("s.user_id = %s")
            params.append(user.pk)
        if not owners:
            return None
        # Table names from the models; every value is a parameter.
        sql = (
            "SELECT m.version, m.paused_at, m.seating, m.status, s.last_seen_at "  # noqa: S608
            f"FROM {Seat._meta.db_table} s JOIN {Match._meta.db_table} m ON m.id = s.match_id "
            f"WHERE m.public_id = %s AND ({' OR '.join(owners)}) ORDER BY s.number LIMIT 1"
        )
        with connections[self.db].cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        version, paused_at, seating, status, last_seen_at = row
        if last_seen_at is not None and timezone.is_naive(last_seen_at):  # SQLite: UTC, naive
            last_seen_at = timezone.make_aware(last_seen_at, UTC)
        return version, paused_at, seating, status, last_seen_at


# A match's seats with the match, by the match's public id (Match.objects.get_with_seats).
SEATS_WITH_MATCH = PreparedQuery(
    lambda public_id: (
        Seat.objects.filter(match__public_id=public_id).select_related("match").order_by("number")
    ),
    marker="~public-id-marker~",
)


def seen_lately(last_seen_at, now=None) -> bool:
    """Whether last_seen_at is recent enough not to be written again (throttle)."""
    now = now or timezone.now()
    return last_seen_at is not None and (now - last_seen_at).total_seconds() < SEEN_EVERY


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
    # The player key that plays this seat: a browser's own (a guest's device, random) or one
    # an app on the platform gives the requests it vouches for (the classroom: a signed-in
    # child's ``child:<id>``, on whichever device they sign in; games.views.player_keys).
    owner_key = models.CharField(max_length=64, blank=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    bot_level = models.CharField(max_length=20, blank=True)
    # When this seat's device last showed the game (written at most every SEEN_EVERY s).
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # The player key of the person whose quiet seat a computer player took over: when they
    # come back they are told so.
    former_owner_key = models.CharField(max_length=64, blank=True, db_index=True)

    # People whose seat the host may hand to a computer player when they go quiet.
    TAKEOVER_KINDS = ("guest", "user")

    objects = SeatQuerySet.as_manager()

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="unique_seat_number"),
        ]

    def __str__(self):
        return f"{self.name} (seat {self.number})"

    def owned_by(self, key, user) -> bool:
        keys = [key] if isinstance(key, str) else key
        if self.owner_key and self.owner_key in keys:
            return True
        return bool(user.is_authenticated and self.user_id == user.pk)

    @property
    def is_bot(self) -> bool:
        return self.kind == self.Kind.BOT

    def bot_focus(self) -> list[tuple[int, int]] | None:
        """The Coach level's facts to put in front of its opponent: what the apps on the
        platform answer for the children's seats opposite (``signals.bot_focus``; the
        classroom: their focus facts). None for any other seat, level or opponent."""
        if self.kind != self.Kind.BOT or self.bot_level != "coach":
            return None
        opposite = Seat.objects.filter(match_id=self.match_id, kind=self.Kind.STUDENT).exclude(
            number=self.number
        )
        return signals.first_answer(signals.bot_focus, seat=self, seats=opposite) or None


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
