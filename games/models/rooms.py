"""Family rooms: seats for people on their own devices, the host, quiet seats."""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .ids import new_room_code
from .seats import Seat


class RoomsMixin:
    """Match's family room: the code, filling open seats, the host's computers."""

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
            self.status == self.Status.WAITING
            and not self.seats.filter(kind=Seat.Kind.OPEN).exists()
        ):
            self.status = self.Status.ACTIVE
            self.changed_at = timezone.now()
            fields += ["status", "changed_at"]
        self.save_board(fields)
        if self.status == self.Status.ACTIVE:
            self.after_change()

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
            locked = type(self).objects.select_for_update().get(pk=self.pk)
            if locked.status != self.Status.WAITING:
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
        if self.status != self.Status.ACTIVE or not self.family:
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
            locked = type(self).objects.select_for_update().get(pk=self.pk)
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
            locked.save_board(["seating"])
            locked.after_change()
        self.refresh_from_db()
        return seat
