"""A child's seat in a game: the classroom's link from a ``games.Seat`` to the Student who
plays it (the games platform names no classroom model: docs/platform.md, "Layers").

A seat is owned by a player key, a child's as any other: ``child:<student id>``
(``Student.seat_key``). No browser's own key can be one (games makes those: random tokens
without a colon, or the signed cookie's); the classroom's middleware gives the key to the
requests of the signed-in child (``request.seat_keys``), so the child reaches their seat from
whichever device they sign in on, and nobody else does. The ``ChildSeat`` row is made from
that key inside the transaction that seats the child (``games.signals.seats_taken``); the
classroom's queries join through it (``seats__child_link__student``)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Seat

SEAT_KEY_PREFIX = "child:"


def seat_key_of(student_pk: int) -> str:
    """The player key that owns the seats of the child ``student_pk``."""
    return f"{SEAT_KEY_PREFIX}{int(student_pk)}"


def student_pk_of(seat) -> int | None:
    """The child playing ``seat``, read from its owner key (no query); None for a seat that
    is not a child's."""
    key = seat.owner_key or ""
    if seat.kind != Seat.Kind.STUDENT or not key.startswith(SEAT_KEY_PREFIX):
        return None
    digits = key[len(SEAT_KEY_PREFIX) :]
    return int(digits) if digits.isascii() and digits.isdigit() else None


class ChildSeatQuerySet(models.QuerySet):
    def link(self, seats) -> list["ChildSeat"]:
        """A ChildSeat for each child's seat among ``seats`` (saved seats), in one INSERT;
        no query when there is none."""
        rows = [
            ChildSeat(seat=seat, student_id=pk) for seat in seats if (pk := student_pk_of(seat))
        ]
        return self.bulk_create(rows) if rows else []


class ChildSeat(models.Model):
    """A seat played by a child of a class: one child a seat (a guest, a grown-up or a
    computer player has none). Deleting the seat (its match) deletes the link; deleting the
    child deletes their seats (``receivers.delete_seats_of_child``)."""

    seat = models.OneToOneField(
        "games.Seat", on_delete=models.CASCADE, primary_key=True, related_name="child_link"
    )
    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="child_seats"
    )

    objects = ChildSeatQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        verbose_name = _("child's seat")
        verbose_name_plural = _("children's seats")

    def __str__(self):
        return f"{self.student_id} · seat {self.seat_id}"
