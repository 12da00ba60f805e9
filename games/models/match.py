"""The match: its fields, its game, how it is set up. Moves, family rooms, computer players
and the clock are the mixins of their own modules (moves.py, rooms.py, bots.py, timeouts.py)."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games import live
from games import registry
from games import signals

from .bots import BotsMixin
from .ids import ROOM_CODE_LENGTH
from .ids import TIMEOUT_GRACE_SECONDS
from .ids import new_public_id
from .ids import new_seed
from .ids import normalize_room_code
from .moves import MovesMixin
from .rooms import RoomsMixin
from .seats import SEATS_WITH_MATCH
from .seats import Seat
from .timeouts import TimeoutsMixin


class MatchQuerySet(models.QuerySet):
    def update_boards(self, **fields) -> int:
        """``update(**fields)`` for fields a board's token is made of (``status``,
        ``paused_at``, …), and the boards of the matches it changed hear of it once committed
        (``games.live``): the one way to change many boards' tokens at once."""
        with transaction.atomic():
            rows = list(self.values_list("pk", "public_id"))
            changed = self.model.objects.filter(pk__in=[pk for pk, _id in rows]).update(**fields)
            live.boards_changed(public_id for _pk, public_id in rows)
        return changed

    def get_with_seats(self, public_id: str) -> "Match":
        """The match and its seats in one query (raises Match.DoesNotExist); its SQL is made
        once (config/prepared.py: every board request makes it)."""
        seats = SEATS_WITH_MATCH.all(public_id, using=self.db)
        if not seats:
            raise Match.DoesNotExist
        match = seats[0].match
        for seat in seats:
            seat.match = match
        match.loaded_seats = seats  # what ``seat_list`` answers
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
                    default=models.Value(
                        str(
                            pgettext_lazy(
                                "the name a guest's seat keeps after the room expires", "Guest"
                            )
                        )
                    ),
                ),
                owner_key="",
                former_owner_key="",
                handed_over={},
                user=None,
                last_seen_at=None,
            )
            Match.objects.filter(
                pk__in=keep, status__in=[Match.Status.WAITING, Match.Status.ACTIVE]
            ).update_boards(status=Match.Status.ABANDONED)
            Match.objects.filter(pk__in=keep).update(room_code=None, host_key="", expired_at=now)
            gone = Match.objects.filter(pk__in=rooms.exclude(pk__in=keep).values("pk"))
            live.boards_changed(gone.values_list("public_id", flat=True))
            deleted = gone.delete()[1].get("games.Match", 0)
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


class Match(MovesMixin, RoomsMixin, BotsMixin, TimeoutsMixin, models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        ACTIVE = "active", pgettext_lazy("a game's status", "Playing")
        FINISHED = "finished", pgettext_lazy("a game's status", "Finished")
        ABANDONED = "abandoned", pgettext_lazy("a game's status", "Abandoned")

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

    def seat_list(self) -> list:
        """The match's seats by number: those loaded with it (``loaded_seats``, set by
        ``Match.objects.get_with_seats``), else ``seats.all()`` (one query, or none after a
        ``prefetch_related("seats")``). Seats do not change while a board is drawn: a view
        that changes one loads the match again."""
        loaded = self.__dict__.get("loaded_seats")
        return loaded if loaded is not None else list(self.seats.all())

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

    def save_board(self, fields) -> None:
        """Save ``fields``, among them some of the board's token (``version``, ``seating``,
        ``status``, ``paused_at``), and publish the new token once committed (``games.live``):
        the one way to change one board's token."""
        self.save(update_fields=list(fields))
        live.board_changed(self)

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

    def recent_lines(
        self, line_of, names, limit: int, since_seat: int | None = None, most: int | None = None
    ) -> list[str]:
        """The last ``limit`` sentences of the recent public events: ``line_of(event, names)``
        is the game's presenter (None: an event it does not tell). With ``since_seat``, more
        when more happened since that seat's own last kept move: everything since then, up to
        ``most`` sentences."""
        lines = []
        since = 0
        for seat, events in self.recent_events:
            if seat == since_seat:
                since = len(lines)  # the sentences of this seat's own move count too
            lines += [line for event in events if (line := line_of(event, names))]
        count = limit
        if since_seat is not None and any(s == since_seat for s, _e in self.recent_events):
            count = max(limit, min(most or limit, len(lines) - since))
        return lines[-count:] if count else []

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

    def can_spectate(self, user) -> bool:
        """Whoever holds ``games.view_match`` on this match may watch (never any hand):
        superusers, and whom the authentication backends let (the classroom's: the teachers
        of a seated child)."""
        return user.is_authenticated and user.has_perm("games.view_match", self)
