"""Seats: who plays a match's seat (a guest's or a child's device key, a user, a computer)."""

from datetime import UTC

from django.conf import settings
from django.db import connections
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from config.prepared import PreparedQuery
from games import signals

from .ids import SEEN_EVERY


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
        match_table = Seat._meta.get_field("match").related_model._meta.db_table
        sql = (
            "SELECT m.version, m.paused_at, m.seating, m.status, s.last_seen_at "  # noqa: S608
            f"FROM {Seat._meta.db_table} s JOIN {match_table} m ON m.id = s.match_id "
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


# A match's seats with the match, by the match's public id (Match.objects.get_with_seats): its
# SQL made once (config/prepared.py), as every board request makes it.
SEATS_WITH_MATCH = PreparedQuery(
    lambda public_id: Seat.objects.filter(match__public_id=public_id).order_by("number"),
    related=("match",),
    marker="~public-id-marker~",
)


def seen_lately(last_seen_at, now=None) -> bool:
    """Whether last_seen_at is recent enough not to be written again (throttle)."""
    now = now or timezone.now()
    return last_seen_at is not None and (now - last_seen_at).total_seconds() < SEEN_EVERY


class Seat(models.Model):
    class Kind(models.TextChoices):
        GUEST = "guest", pgettext_lazy("a seat's kind", "Guest")
        USER = "user", _("Signed-in user")
        STUDENT = "student", pgettext_lazy("a seat's kind", "Student")
        BOT = "bot", _("Computer player")
        OPEN = "open", _("Open seat")

    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="seats")
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
    # What the computer player took over ({"kind", "name", "user"}), so that the person can
    # take the seat back as it was (``Match.hand_back``); empty otherwise.
    handed_over = models.JSONField(default=dict, blank=True)
    # When the person last took the seat back from a computer player: the host is told for
    # a few minutes (``Match.back_seats``).
    back_at = models.DateTimeField(null=True, blank=True)

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
