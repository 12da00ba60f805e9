"""Child sign-in behaviour: class codes, picture passwords, badges, lockout and the per-class
rate limit (mixed into Classroom and Student; the fields live in ``roster.py``).

The rules (docs/classroom/child-sign-in.md):

- A class code is typed case-insensitively; spaces, dashes and dots are ignored. The code
  alphabet has no look-alike pairs (neither 0 nor O, neither 1 nor I nor L...), so a character
  outside it cannot be mapped to a sure guess: such a code is simply not found.
- A child picks 3 of the 9 pictures, in any order. Five wrong answers in a row lock the child's
  picture sign-in for ``LOCKOUT_MINUTES``; a right answer (or a badge) resets the count; the
  teacher can unlock at once.
- Each class accepts at most ``CLASS_SIGNIN_FAILURES_PER_MINUTE`` wrong picture answers a
  minute (counted in the Django cache, per class, never per IP address); past that every
  picture answer of the class waits for the next minute. Right answers are not counted, so a
  whole class signing in at once is never slowed down.
"""

import re
import secrets
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

LOCKOUT_AFTER = 5  # wrong picture answers in a row
LOCKOUT_MINUTES = 10
DEFAULT_FAILURES_PER_MINUTE = 60

_SEPARATORS = re.compile(r"[\s\-_.·/]+")


def _clock() -> float:
    """Seconds since the epoch (a seam for tests of the minute window)."""
    return time.time()


def failures_per_minute() -> int:
    return int(getattr(settings, "CLASS_SIGNIN_FAILURES_PER_MINUTE", DEFAULT_FAILURES_PER_MINUTE))


class ClassroomSignIn:
    # --- the class code ---------------------------------------------------------------

    @classmethod
    def normalize_code(cls, raw: str) -> str | None:
        """The canonical code for what a child typed ("  cd-k3 7m" → "CDK37M"), or None when
        it cannot be a class code (wrong length or a character outside the alphabet)."""
        from .roster import CODE_ALPHABET, CODE_LENGTH

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
        return reverse("join_class", args=[self.code])

    def students_for_signin(self):
        """The children who may sign in, alphabetically (archived children are hidden)."""
        return self.students.active().order_by("sort_name", "name", "pk")

    # --- ending every child's session -------------------------------------------------

    def end_signins(self) -> None:
        """Sign every child of the class out (their session holds the old generation)."""
        type(self).objects.filter(pk=self.pk).update(
            signin_generation=models.F("signin_generation") + 1
        )
        self.refresh_from_db(fields=["signin_generation"])

    # --- the per-class rate limit -------------------------------------------------------

    def _signin_rate_key(self, now: float | None = None) -> str:
        minute = int((now if now is not None else _clock()) // 60)
        return f"signin-failures:{self.pk}:{minute}"

    def signin_rate_exceeded(self, now: float | None = None) -> bool:
        """True when the class had its quota of wrong picture answers this minute."""
        return (cache.get(self._signin_rate_key(now)) or 0) >= failures_per_minute()

    def count_signin_failure(self, now: float | None = None) -> int:
        key = self._signin_rate_key(now)
        cache.add(key, 0, timeout=120)
        try:
            return cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=120)
            return 1


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
        """Three new pictures (never the same three again); the printed card is out of date."""
        from .roster import new_pictures

        old = self.pictures
        while self.pictures == old:
            self.pictures = new_pictures()
        self.failed_signins = 0
        self.locked_until = None
        self.save(update_fields=["pictures", "failed_signins", "locked_until"])

    # --- lockout -----------------------------------------------------------------------------

    def is_locked_at(self, now) -> bool:
        return self.locked_until is not None and self.locked_until > now

    @property
    def is_locked(self) -> bool:
        return self.is_locked_at(timezone.now())

    def register_failure(self) -> bool:
        """Count a wrong picture answer; lock after LOCKOUT_AFTER in a row. Returns True when
        the child is now locked. Row-locked, so two tabs cannot both skip the count."""
        with transaction.atomic():
            row = type(self).objects.select_for_update().get(pk=self.pk)
            now = timezone.now()
            if row.locked_until is not None and row.locked_until <= now:
                # The cool-off is over: a fresh run of attempts.
                row.locked_until = None
                row.failed_signins = 0
            row.failed_signins += 1
            if row.failed_signins >= LOCKOUT_AFTER:
                row.locked_until = now + timedelta(minutes=LOCKOUT_MINUTES)
            row.save(update_fields=["failed_signins", "locked_until"])
        self.failed_signins, self.locked_until = row.failed_signins, row.locked_until
        return self.is_locked

    def register_success(self) -> None:
        if self.failed_signins or self.locked_until:
            self.unlock()

    def unlock(self) -> None:
        self.failed_signins = 0
        self.locked_until = None
        self.save(update_fields=["failed_signins", "locked_until"])

    # --- the personal QR badge ------------------------------------------------------------

    def new_badge(self) -> None:
        """A new badge token: the printed badge stops working."""
        from .roster import new_badge_token

        self.badge_token = new_badge_token()
        self.save(update_fields=["badge_token"])

    def get_badge_url(self) -> str:
        return reverse("join_badge", args=[self.badge_token])

    def get_signin_url(self) -> str:
        return reverse("join_pictures", args=[self.classroom.code, self.pk])
