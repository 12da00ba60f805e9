"""Family rooms: seats for people on their own devices, the host, quiet seats."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
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
        return [s for s in self.seat_list() if s.kind == Seat.Kind.OPEN]

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

    def quiet_seats(self, now=None) -> list[tuple["Seat", int, bool]]:
        """(seat, minutes, gone) of the people on other devices than the host's whose device
        has not been seen for FAMILY_QUIET_MINUTES while the game is on.

        Quiet is not gone: a phone that locked its screen during the others' turns holds
        nobody up. A seat is **gone** only when the game waits for it (it is to act) and it
        has not been seen, nor has anything happened at the table, for FAMILY_QUIET_MINUTES;
        ``minutes`` then counts from whichever came later. Only a gone seat may be handed to
        a computer player (docs/family-night.md, "Quiet seats")."""
        if self.status != self.Status.ACTIVE or not self.family or self.paused_at is not None:
            return []
        now = now or timezone.now()
        limit = timedelta(minutes=settings.FAMILY_QUIET_MINUTES)
        acting = set(self.to_act())
        quiet = []
        for seat in self.seat_list():
            if seat.kind not in Seat.TAKEOVER_KINDS or seat.owner_key == self.host_key:
                continue
            seen = seat.last_seen_at or self.created_at
            if now - seen <= limit:
                continue
            if seat.number in acting:
                since = max(seen, self.changed_at)
                if now - since > limit:
                    quiet.append((seat, int((now - since).total_seconds() // 60), True))
                    continue
            quiet.append((seat, int((now - seen).total_seconds() // 60), False))
        return quiet

    def gone_seats(self, now=None) -> list[tuple["Seat", int]]:
        """(seat, minutes) of the quiet seats the game is waiting for: those a computer player
        may take over."""
        return [(seat, minutes) for seat, minutes, gone in self.quiet_seats(now) if gone]

    def hand_to_computer(self, number: int, level: str) -> "Seat | None":
        """A gone person's seat becomes a computer player ("Ana (computer)") that plays on
        through the usual bot task. None when that seat may not be taken over (any more)."""
        with transaction.atomic():
            locked = type(self).objects.select_for_update().get(pk=self.pk)
            gone = {s.number for s, _minutes in locked.gone_seats()}
            if number not in gone:
                return None
            seat = locked.seats.get(number=number)
            seat.handed_over = {"kind": seat.kind, "name": seat.name, "user": seat.user_id}
            seat.former_owner_key, seat.owner_key = seat.owner_key, ""
            seat.kind, seat.bot_level, seat.user = Seat.Kind.BOT, level, None
            seat.name = (str(_("%(name)s (computer)")) % {"name": seat.name})[:40]
            seat.save(
                update_fields=[
                    "handed_over",
                    "former_owner_key",
                    "owner_key",
                    "kind",
                    "bot_level",
                    "user",
                    "name",
                ]
            )
            locked.seating += 1
            locked.save_board(["seating"])
            locked.after_change()
        self.refresh_from_db()
        return seat

    def hand_back(self, keys, now=None) -> "Seat | None":
        """The person whose seat a computer player took over is back (this browser holds
        their key): the seat is theirs again, as it was, and the computer stops. The host's
        card says so for FAMILY_BACK_NOTICE_MINUTES. None when this browser has no seat to
        take back or the game is no longer on."""
        keys = [k for k in keys if k]
        if not keys:
            return None
        with transaction.atomic():
            locked = type(self).objects.select_for_update().get(pk=self.pk)
            if locked.status != self.Status.ACTIVE:
                return None
            seat = (
                locked.seats.select_for_update()
                .filter(former_owner_key__in=keys, kind=Seat.Kind.BOT)
                .first()
            )
            if seat is None:
                return None
            before = seat.handed_over or {}
            seat.kind = before.get("kind") or Seat.Kind.GUEST
            seat.name = before.get("name") or seat.name
            user = before.get("user")
            known = user and get_user_model().objects.filter(pk=user).exists()
            seat.user_id = user if known else None
            seat.owner_key, seat.former_owner_key = seat.former_owner_key, ""
            seat.bot_level, seat.handed_over = "", {}
            seat.back_at = seat.last_seen_at = now or timezone.now()
            seat.save(
                update_fields=[
                    "kind",
                    "name",
                    "user",
                    "owner_key",
                    "former_owner_key",
                    "bot_level",
                    "handed_over",
                    "back_at",
                    "last_seen_at",
                ]
            )
            locked.seating += 1
            locked.save_board(["seating"])
        self.refresh_from_db()
        return seat

    def back_seats(self, now=None) -> list["Seat"]:
        """The people who took their seat back from a computer player in the last
        FAMILY_BACK_NOTICE_MINUTES (the host is told)."""
        now = now or timezone.now()
        limit = timedelta(minutes=settings.FAMILY_BACK_NOTICE_MINUTES)
        return [
            s
            for s in self.seat_list()
            if s.back_at is not None and s.kind != Seat.Kind.BOT and now - s.back_at <= limit
        ]
