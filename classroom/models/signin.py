"""Child sign-in behaviour: class codes, picture passwords, badges, the child's lockout and the
device throttle (mixed into Classroom and Student; the fields live in ``roster.py``).

The rules (docs/classroom/child-sign-in.md):

- A class code is typed case-insensitively; spaces, dashes and dots are ignored. The code
  alphabet has no look-alike pairs (neither 0 nor O, neither 1 nor I nor L...), so a character
  outside it cannot be mapped to a sure guess: such a code is simply not found.
- A child picks 3 of the 9 pictures, in any order. Five wrong answers in a row lock the child's
  picture sign-in for ``LOCKOUT_MINUTES``; a right answer (or a badge) resets the count; the
  teacher can unlock one child or the whole class at once.
- A device (the browser's ``mp_device`` cookie; a client without one: its network address)
  that sends wrong answers is slowed and then stopped on its own (``SignInDevice``), before
  it can lock many children: from its ``DEVICE_SLOW_AFTER``-th wrong answer it waits
  ``DEVICE_WAIT_SECONDS`` between answers, and after ``DEVICE_STOP_AFTER`` wrong answers it
  is stopped for the rest of its ``DEVICE_WINDOW_MINUTES`` window. Its refused answers are
  never compared and never count against a child. A right answer forgives the device (the
  next child on a shared Chromebook starts afresh); the teacher's "unlock everyone" forgives
  the devices whose last wrong answer was for the class.
- Lock, check, compare and count happen in one transaction (``Student.answer_pictures``): the
  device's row and then the child's row are locked (``select_for_update``; SQLite's
  IMMEDIATE transactions serialise writers), so no number of parallel requests gets more
  than ``LOCKOUT_AFTER`` wrong answers compared per child and lockout window.
"""

import enum
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import models
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

LOCKOUT_AFTER = 5  # wrong picture answers in a row
LOCKOUT_MINUTES = 10
DEVICE_SLOW_AFTER = 3  # wrong answers from one device before it must wait between answers
DEVICE_WAIT_SECONDS = 10
DEVICE_STOP_AFTER = 8  # wrong answers from one device in its window: stopped
DEVICE_WINDOW_MINUTES = 10

_SEPARATORS = re.compile(r"[\s\-_.·/]+")


class ClassroomSignIn:
    # --- the class code ---------------------------------------------------------------

    @classmethod
    def normalize_code(cls, raw: str) -> str | None:
        """The canonical code for what a child typed ("  cd-k3 7m" → "CDK37M"), or None when
        it cannot be a class code (wrong length or a character outside the alphabet)."""
        from .roster import CODE_ALPHABET
        from .roster import CODE_LENGTH

        code = _SEPARATORS.sub("", raw or "").upper()
        if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
            return None
        return code

    @classmethod
    def find_for_signin(cls, raw: str):
        """The active class with this code, or None."""
        code = cls.normalize_code(raw)
        if code is None:
            return None
        return cls.objects.active().select_related("school").filter(code=code).first()

    def get_join_url(self) -> str:
        return reverse("classroom:join_class", args=[self.code])

    def students_for_signin(self):
        """The children who may sign in, alphabetically (archived children are hidden)."""
        return self.students.active().order_by("sort_name", "name", "pk")

    # --- ending every child's session -------------------------------------------------

    def end_signins(self) -> None:
        """Sign every child of the class out (their session holds the old generation)."""
        from classroom import live

        type(self).objects.filter(pk=self.pk).update(
            signin_generation=models.F("signin_generation") + 1
        )
        self.students.filter(signed_in_until__isnull=False).update(signed_in_until=None)
        live.class_changed(self.pk, waiting=True)
        self.refresh_from_db(fields=["signin_generation"])

    def unlock_children(self) -> int:
        """Unlock every child of the class at once (wrong tries forgotten), and forgive the
        devices whose last wrong answer was for this class; how many children were locked or
        had wrong tries."""
        SignInDevice.objects.filter(classroom=self).update(failures=0, last_failure_at=None)
        return self.students.filter(
            models.Q(failed_signins__gt=0) | models.Q(locked_until__isnull=False)
        ).update(failed_signins=0, locked_until=None)


class Verdict(enum.Enum):
    SIGNED_IN = "signed_in"
    WRONG = "wrong"
    LOCKED = "locked"  # the child's picture sign-in is locked (now or already)
    DEVICE_WAIT = "device_wait"  # this device must wait a few seconds
    DEVICE_STOPPED = "device_stopped"  # this device is stopped until its window ends


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    wait_seconds: int = 0  # DEVICE_WAIT and DEVICE_STOPPED: how long


class StudentSignIn:
    # --- the picture password -------------------------------------------------------------

    @property
    def picture_indexes(self) -> list[int]:
        return [int(i) for i in self.pictures.split(",") if i]

    def check_pictures(self, chosen) -> bool:
        """Are these (any order) the child's three pictures?"""
        try:
            answer = ",".join(str(i) for i in sorted({int(i) for i in chosen}))
        except (TypeError, ValueError):
            return False
        return secrets.compare_digest(answer, self.pictures)

    def new_pictures(self) -> None:
        """Three new pictures (never the same three again); the printed card is out of date
        and every session obtained with the old pictures ends (``signin_key``)."""
        from .roster import new_pictures

        old = self.pictures
        while self.pictures == old:
            self.pictures = new_pictures()
        self.failed_signins = 0
        self.locked_until = None
        self.signed_in_until = None
        self.save(update_fields=["pictures", "failed_signins", "locked_until", "signed_in_until"])
        self.signins_ended()

    @property
    def signin_key(self) -> str:
        """A digest of the child's credentials, kept in the child's session: a new badge or
        new pictures change it, which ends every session obtained with the old ones."""
        raw = f"{self.badge_token}|{self.pictures}".encode()
        return hashlib.sha256(raw).hexdigest()[:24]

    def answer_pictures(self, chosen, device_key: str, now=None) -> Answer:
        """Lock the device and the child, check both, compare the pictures and count, all in
        one transaction. ``chosen``: three distinct picture indexes (the view checks the
        shape); ``device_key``: ``SignInDevice.key_for(request)``."""
        with transaction.atomic():
            now = now or timezone.now()
            device = SignInDevice.locked(device_key, now)
            refused = device.refusal(now)
            if refused is not None:
                return refused
            row = type(self).objects.select_for_update().get(pk=self.pk)
            if row.is_locked_at(now):
                answer = Answer(Verdict.LOCKED)
            elif row.check_pictures(chosen):
                row.failed_signins, row.locked_until = 0, None
                row.save(update_fields=["failed_signins", "locked_until"])
                device.forgive()
                answer = Answer(Verdict.SIGNED_IN)
            else:
                if row.locked_until is not None:  # the cool-off is over: a fresh run
                    row.failed_signins, row.locked_until = 0, None
                row.failed_signins += 1
                if row.failed_signins >= LOCKOUT_AFTER:
                    row.locked_until = now + timedelta(minutes=LOCKOUT_MINUTES)
                row.save(update_fields=["failed_signins", "locked_until"])
                device.count_failure(now, row.classroom_id)
                answer = Answer(Verdict.LOCKED if row.locked_until else Verdict.WRONG)
        self.failed_signins, self.locked_until = row.failed_signins, row.locked_until
        return answer

    # --- signed in or not (the live wall) ---------------------------------------------------

    def signed_in(self, until) -> None:
        """The child signed in for a session that lasts ``until`` (one UPDATE)."""
        self.signed_in_until = until
        type(self).objects.filter(pk=self.pk).update(signed_in_until=until)

    def signed_out(self) -> None:
        self.signed_in_until = None
        type(self).objects.filter(pk=self.pk, signed_in_until__isnull=False).update(
            signed_in_until=None
        )

    def is_signed_in(self, now=None) -> bool:
        """Whether the child's latest sign-in still lasts (the session may have been ended
        by the teacher, new pictures or a new badge, which clear it)."""
        return self.signed_in_until is not None and self.signed_in_until > (now or timezone.now())

    # --- lockout -----------------------------------------------------------------------------

    def is_locked_at(self, now) -> bool:
        return self.locked_until is not None and self.locked_until > now

    @property
    def is_locked(self) -> bool:
        return self.is_locked_at(timezone.now())

    def register_success(self) -> None:
        if self.failed_signins or self.locked_until:
            self.unlock()

    def unlock(self) -> None:
        self.failed_signins = 0
        self.locked_until = None
        self.save(update_fields=["failed_signins", "locked_until"])

    # --- the personal QR badge ------------------------------------------------------------

    def new_badge(self) -> None:
        """A new badge token: the printed badge stops working, and so does every session
        obtained with the old one (``signin_key``)."""
        from .roster import new_badge_token

        self.badge_token = new_badge_token()
        self.signed_in_until = None
        self.save(update_fields=["badge_token", "signed_in_until"])
        self.signins_ended()

    def signins_ended(self) -> None:
        """The child's sessions ended (new pictures or badge): the class's wall and waiting
        rooms hear of it."""
        from classroom import live

        live.class_changed(self.classroom_id, waiting=True)

    def get_badge_url(self) -> str:
        return reverse("classroom:join_badge", args=[self.badge_token])

    def get_signin_url(self) -> str:
        return reverse("classroom:join_pictures", args=[self.classroom.code, self.pk])


DEVICE_COOKIE = "mp_device"
DEVICE_COOKIE_SALT = "classroom.signin.device"


class SignInDevice(models.Model):
    """The wrong picture answers of one device in its current window. ``key``: a digest of
    the device's cookie (or, for a client that sends none, of its network address), so the
    table holds nothing that names a person or a browser."""

    key = models.CharField(max_length=64, unique=True)
    window_start = models.DateTimeField()
    failures = models.PositiveIntegerField(default=0)
    last_failure_at = models.DateTimeField(null=True, blank=True)
    # The class of the last wrong answer: the teacher's "unlock everyone" forgives it too.
    classroom = models.ForeignKey(
        "classroom.Classroom", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        app_label = "classroom"

    def __str__(self) -> str:
        return f"device {self.key[:8]}: {self.failures} wrong"

    @staticmethod
    def key_for(request) -> str:
        """This request's device: its signed ``mp_device`` cookie, else its address."""
        from config.throttle import client_address

        token = request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT)
        raw = f"cookie:{token}" if token else f"address:{client_address(request)}"
        return hashlib.sha256(raw.encode()).hexdigest()

    @staticmethod
    def remember(request, response) -> None:
        """Give a browser its device cookie (random, a year) if it has none."""
        if request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT):
            return
        response.set_signed_cookie(
            DEVICE_COOKIE,
            secrets.token_urlsafe(16),
            salt=DEVICE_COOKIE_SALT,
            max_age=365 * 24 * 3600,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )

    @classmethod
    def locked(cls, key: str, now) -> "SignInDevice":
        """The device's row, locked for this transaction (made if new; a window that has run
        out starts again)."""
        cls.objects.bulk_create([cls(key=key, window_start=now)], ignore_conflicts=True)
        device = cls.objects.select_for_update().get(key=key)
        if device.window_start + timedelta(minutes=DEVICE_WINDOW_MINUTES) <= now:
            device.window_start, device.failures, device.last_failure_at = now, 0, None
            device.save(update_fields=["window_start", "failures", "last_failure_at"])
        return device

    def refusal(self, now) -> Answer | None:
        """Why this device may not answer now, or None."""
        if self.failures >= DEVICE_STOP_AFTER:
            end = self.window_start + timedelta(minutes=DEVICE_WINDOW_MINUTES)
            return Answer(Verdict.DEVICE_STOPPED, _ceil_seconds(end - now))
        if self.failures >= DEVICE_SLOW_AFTER and self.last_failure_at is not None:
            ready = self.last_failure_at + timedelta(seconds=DEVICE_WAIT_SECONDS)
            if ready > now:
                return Answer(Verdict.DEVICE_WAIT, _ceil_seconds(ready - now))
        return None

    def count_failure(self, now, classroom_id) -> None:
        self.failures += 1
        self.last_failure_at = now
        self.classroom_id = classroom_id
        self.save(update_fields=["failures", "last_failure_at", "classroom"])

    def forgive(self) -> None:
        """A right answer: whoever uses this device knows a child's pictures (the next child
        on a shared Chromebook starts afresh)."""
        if self.failures:
            self.failures, self.last_failure_at = 0, None
            self.save(update_fields=["failures", "last_failure_at"])

    @classmethod
    def forget_old(cls, now=None) -> int:
        """Drop rows whose window ended more than a day ago (beat, daily)."""
        now = now or timezone.now()
        cutoff = now - timedelta(minutes=DEVICE_WINDOW_MINUTES) - timedelta(days=1)
        return cls.objects.filter(window_start__lt=cutoff).delete()[0]


def _ceil_seconds(delta: timedelta) -> int:
    return max(1, int(-(-delta.total_seconds() // 1)))
