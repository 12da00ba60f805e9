"""Child sign-in behaviour: class codes, picture passwords, badges, the child's lockout and the
device throttle (mixed into Classroom and Student; the fields live in ``roster.py``).

The rules (docs/classroom/child-sign-in.md):

- A class code is typed case-insensitively; spaces, dashes and dots are ignored. The code
  alphabet has no look-alike pairs (neither 0 nor O, neither 1 nor I nor L...), so a character
  outside it cannot be mapped to a sure guess: such a code is simply not found.
- A child picks 3 of the 9 pictures, in any order (84 combinations).
- A device is the browser's signed ``mp_device`` cookie (a client without one: its network
  address). A device is **known** to a class once a child of the class signed in on it
  (``KnownDevice``): the class's own Chromebooks. Nobody can make a device known without
  knowing a child's pictures or holding a badge.
- **Per child and device**: five wrong answers in a row for one child from one device lock that
  device out of that child for ``LOCKOUT_MINUTES`` (``PictureTries``); a right answer on that
  device resets it. Wrong answers from elsewhere never lock the child on the class's devices.
- **Per child, from unknown devices**: ``UNKNOWN_DEVICE_LIMIT`` wrong answers for a child from
  devices the class has not used, in ``UNKNOWN_WINDOW_HOURS``, stop every unknown device from
  answering for that child until the window ends (the child still signs in on a class
  Chromebook, or with the badge). This bounds a stranger who takes a fresh cookie for every
  guess. The teacher sees the count (``Classroom.guessing``) and can unlock or change the code.
- **Per network, from unknown devices**: at most ``NETWORK_UNKNOWN_LIMIT`` answers in
  ``NETWORK_WINDOW_MINUTES`` from unknown devices of one network address (an IPv6 client's
  /64), so one client cannot spray guesses over every child of every class.
- **Per device** (``SignInDevice``): a device that sends wrong answers is slowed and then
  stopped on its own: from its ``DEVICE_SLOW_AFTER``-th wrong answer it waits
  ``DEVICE_WAIT_SECONDS`` between answers, and after ``DEVICE_STOP_AFTER`` wrong answers it is
  stopped for the rest of its ``DEVICE_WINDOW_MINUTES`` window. Its refused answers are never
  compared and never count against a child. A right answer forgives the device.
- Lock, check, compare and count happen in one transaction (``Student.answer_pictures``): the
  device's row, the network's count, the child's row and the child-and-device row are locked
  in that order (``select_for_update``; SQLite's IMMEDIATE transactions serialise writers), so
  no number of parallel requests gets past a limit.
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

LOCKOUT_AFTER = 5  # wrong picture answers in a row for one child from one device
LOCKOUT_MINUTES = 10
UNKNOWN_DEVICE_LIMIT = 6  # wrong answers for one child from devices the class has not used
UNKNOWN_WINDOW_HOURS = 24
NETWORK_UNKNOWN_LIMIT = 100  # answers not right from unknown devices of one network address
NETWORK_WINDOW_MINUTES = 10
GUESSING_ALERT = 3  # wrong answers from unknown devices that put a warning on the class pages
KNOWN_DEVICE_DAYS = 180  # a device unused by the class this long is no longer known
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
        from .roster import CODE_LENGTHS

        code = _SEPARATORS.sub("", raw or "").upper()
        if len(code) not in CODE_LENGTHS or any(ch not in CODE_ALPHABET for ch in code):
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
        """Unlock every child of the class at once (wrong tries forgotten, on every device),
        and forgive the devices whose last wrong answer was for this class; how many children
        were locked or had wrong tries."""
        SignInDevice.objects.filter(classroom=self).update(failures=0, last_failure_at=None)
        tried = set(
            PictureTries.objects.filter(student__classroom=self).values_list(
                "student_id", flat=True
            )
        )
        PictureTries.objects.filter(student__classroom=self).delete()
        flagged = self.students.filter(
            models.Q(failed_signins__gt=0) | models.Q(locked_until__isnull=False)
        )
        tried |= set(flagged.values_list("pk", flat=True))
        flagged.update(failed_signins=0, failed_since=None, locked_until=None)
        return len(tried)

    def guessing(self, now=None) -> "Guessing":
        """The wrong picture answers for this class's children from devices the class has not
        used, in their current windows: the teacher's warning that someone may be guessing."""
        now = now or timezone.now()
        since = now - timedelta(hours=UNKNOWN_WINDOW_HOURS)
        rows = list(
            self.students.active()
            .filter(failed_signins__gt=0, failed_since__gt=since)
            .order_by("sort_name", "pk")
            .values_list("name", "failed_signins", "locked_until")
        )
        return Guessing(
            tries=sum(n for _name, n, _until in rows),
            names=[name for name, _n, _until in rows],
            stopped=sum(1 for _name, _n, until in rows if until is not None and until > now),
        )


@dataclass(frozen=True)
class Guessing:
    tries: int  # wrong answers from unknown devices in the window, all children
    names: list[str]  # the children they were for
    stopped: int  # children whose unknown devices are stopped now

    @property
    def alert(self) -> bool:
        return self.tries >= GUESSING_ALERT


class Verdict(enum.Enum):
    SIGNED_IN = "signed_in"
    WRONG = "wrong"
    LOCKED = "locked"  # the child's picture sign-in is locked (now or already)
    DEVICE_WAIT = "device_wait"  # this device must wait a few seconds
    DEVICE_STOPPED = "device_stopped"  # this device is stopped until its window ends
    NETWORK_STOPPED = "network_stopped"  # too many answers from new devices of this network


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    wait_seconds: int = 0  # DEVICE_WAIT, DEVICE_STOPPED and NETWORK_STOPPED: how long
    lock: str | None = None  # LOCKED: "device" or "unknown" (``lock_on``)


@dataclass(frozen=True)
class Trouble:
    unknown_tries: int  # wrong answers from devices the class has not used, this window
    unknown_until: object  # those devices are stopped until (a datetime) or None
    device_tries: int  # wrong answers in a row on devices, added up
    device_until: object  # a device is locked out of this child until (a datetime) or None

    @property
    def any(self) -> bool:
        return bool(self.unknown_tries or self.device_tries)

    @property
    def locked_until(self):
        """The latest lock now in force, or None."""
        times = [t for t in (self.unknown_until, self.device_until) if t is not None]
        return max(times) if times else None


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

    def answer_pictures(
        self, chosen, device_key: str, now=None, *, known: bool = False, network: str = ""
    ) -> Answer:
        """Lock, check, compare and count, all in one transaction. ``chosen``: three distinct
        picture indexes (the view checks the shape); ``device_key``:
        ``SignInDevice.key_for(request)``; ``known``: whether a child of this class has
        signed in on this device (``KnownDevice.is_known``); ``network``: the client's
        network (``config.throttle.client_network``)."""
        from .throttle import RateLimit

        with transaction.atomic():
            now = now or timezone.now()
            device = SignInDevice.locked(device_key, now)
            refused = device.refusal(now)
            if refused is not None:
                return refused
            if not known and not RateLimit.hit(
                "pictures-network",
                network,
                NETWORK_UNKNOWN_LIMIT,
                timedelta(minutes=NETWORK_WINDOW_MINUTES),
                now,
            ):
                return Answer(Verdict.NETWORK_STOPPED, NETWORK_WINDOW_MINUTES * 60)
            row = type(self).objects.select_for_update().get(pk=self.pk)
            row.window_over(now)
            tries = PictureTries.locked(row, device_key, now)
            if tries.is_locked_at(now):
                answer = Answer(Verdict.LOCKED, lock="device")
            elif not known and row.is_locked_at(now):
                answer = Answer(Verdict.LOCKED, lock="unknown")
            elif row.check_pictures(chosen):
                tries.delete()
                device.forgive()
                if not known:  # a right answer is no guess: only the others count
                    RateLimit.give_back("pictures-network", network)
                answer = Answer(Verdict.SIGNED_IN)
            else:
                tries.count_failure(now)
                if not known:
                    row.failed_signins += 1
                    row.failed_since = row.failed_since or now
                    if row.failed_signins >= UNKNOWN_DEVICE_LIMIT:
                        row.locked_until = row.failed_since + timedelta(hours=UNKNOWN_WINDOW_HOURS)
                row.save(update_fields=["failed_signins", "failed_since", "locked_until"])
                device.count_failure(now, row.classroom_id)
                if tries.is_locked_at(now):
                    answer = Answer(Verdict.LOCKED, lock="device")
                elif not known and row.is_locked_at(now):
                    answer = Answer(Verdict.LOCKED, lock="unknown")
                else:
                    answer = Answer(Verdict.WRONG)
        self.failed_signins, self.failed_since = row.failed_signins, row.failed_since
        self.locked_until = row.locked_until
        return answer

    def window_over(self, now) -> None:
        """Forget the wrong answers from unknown devices once their window has ended."""
        if (
            self.failed_since is not None
            and self.failed_since + timedelta(hours=UNKNOWN_WINDOW_HOURS) <= now
        ):
            self.failed_signins, self.failed_since, self.locked_until = 0, None, None

    def lock_on(self, device_key: str, known: bool, now=None) -> str | None:
        """Why this device may not answer for the child now: "device" (five wrong in a row
        here), "unknown" (devices the class has not used are stopped for the child) or None."""
        now = now or timezone.now()
        if PictureTries.objects.filter(
            student=self, device=device_key, locked_until__gt=now
        ).exists():
            return "device"
        if not known and self.is_locked_at(now):
            return "unknown"
        return None

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

    # --- lockout ----------------------------------------------------------------------------

    def is_locked_at(self, now) -> bool:
        """Unknown devices are stopped from answering for this child (``locked_until``)."""
        return self.locked_until is not None and self.locked_until > now

    @property
    def is_locked(self) -> bool:
        return self.is_locked_at(timezone.now())

    def signin_trouble(self, now=None) -> "Trouble":
        """What the teacher's login card says about this child's wrong answers (reads
        ``picture_tries``: prefetch it for a list of children)."""
        now = now or timezone.now()
        fresh = (
            self.failed_since is not None
            and self.failed_since + timedelta(hours=UNKNOWN_WINDOW_HOURS) > now
        )
        device_until = [t.locked_until for t in self.picture_tries.all() if t.is_locked_at(now)]
        return Trouble(
            unknown_tries=self.failed_signins if fresh else 0,
            unknown_until=self.locked_until if self.is_locked_at(now) else None,
            device_tries=sum(t.failures for t in self.picture_tries.all()),
            device_until=max(device_until) if device_until else None,
        )

    def register_success(self, device_key: str | None = None) -> None:
        """The badge signed the child in on this device: its wrong tries there are forgotten
        (the count from unknown devices stays: the teacher sees it)."""
        if device_key:
            PictureTries.objects.filter(student=self, device=device_key).delete()

    def unlock(self) -> None:
        """The teacher unlocks the child: every device's wrong tries are forgotten."""
        PictureTries.objects.filter(student=self).delete()
        self.failed_signins = 0
        self.failed_since = None
        self.locked_until = None
        self.save(update_fields=["failed_signins", "failed_since", "locked_until"])

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

        return (
            SignInDevice.cookie_key(request)
            or hashlib.sha256(f"address:{client_address(request)}".encode()).hexdigest()
        )

    @staticmethod
    def cookie_key(request) -> str | None:
        """The digest of this request's device cookie, or None when it sends none (such a
        client is never a known device)."""
        token = request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT)
        return hashlib.sha256(f"cookie:{token}".encode()).hexdigest() if token else None

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


class PictureTries(models.Model):
    """One device's wrong answers in a row for one child (``LOCKOUT_AFTER`` lock that device
    out of that child for ``LOCKOUT_MINUTES``). ``device``: ``SignInDevice.key_for``."""

    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="picture_tries"
    )
    device = models.CharField(max_length=64)
    failures = models.PositiveSmallIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["student", "device"], name="picture_tries_once")
        ]

    def __str__(self) -> str:
        return f"{self.student_id} on {self.device[:8]}: {self.failures} wrong"

    @classmethod
    def locked(cls, student, device: str, now) -> "PictureTries":
        """The row, locked for this transaction (made if new)."""
        cls.objects.bulk_create(
            [cls(student=student, device=device, updated_at=now)], ignore_conflicts=True
        )
        return cls.objects.select_for_update().get(student=student, device=device)

    def is_locked_at(self, now) -> bool:
        return self.locked_until is not None and self.locked_until > now

    def count_failure(self, now) -> None:
        if self.locked_until is not None:  # the cool-off is over: a fresh run
            self.failures, self.locked_until = 0, None
        self.failures += 1
        if self.failures >= LOCKOUT_AFTER:
            self.locked_until = now + timedelta(minutes=LOCKOUT_MINUTES)
        self.updated_at = now
        self.save(update_fields=["failures", "locked_until", "updated_at"])

    @classmethod
    def forget_old(cls, now=None) -> int:
        """Drop rows untouched for a day (beat, hourly)."""
        now = now or timezone.now()
        return cls.objects.filter(updated_at__lt=now - timedelta(days=1)).delete()[0]


class KnownDevice(models.Model):
    """A device on which a child of the class has signed in (pictures or badge): the class's
    own Chromebooks. Wrong answers from unknown devices are limited per child
    (``UNKNOWN_DEVICE_LIMIT``); a known device is never stopped by them. ``device``: the
    digest of the device cookie (``SignInDevice.cookie_key``), never an address."""

    device = models.CharField(max_length=64)
    classroom = models.ForeignKey("classroom.Classroom", on_delete=models.CASCADE, related_name="+")
    last_signin_at = models.DateTimeField()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["device", "classroom"], name="known_device_once")
        ]

    def __str__(self) -> str:
        return f"{self.device[:8]} in class {self.classroom_id}"

    @classmethod
    def is_known(cls, request, classroom) -> bool:
        key = SignInDevice.cookie_key(request)
        return key is not None and cls.objects.filter(device=key, classroom=classroom).exists()

    @classmethod
    def known_key(cls, request) -> str | None:
        """This device's key if a child of any class has signed in on it (the class-code
        limit counts such a device on its own: ``config.throttle``), else None."""
        key = SignInDevice.cookie_key(request)
        return key if key is not None and cls.objects.filter(device=key).exists() else None

    @classmethod
    def signed_in(cls, request, classroom, now=None) -> None:
        """A child of ``classroom`` signed in on this device: it is the class's (a client
        with no device cookie is not remembered)."""
        key = SignInDevice.cookie_key(request)
        if key is None:
            return
        now = now or timezone.now()
        updated = cls.objects.filter(device=key, classroom=classroom).update(last_signin_at=now)
        if not updated:
            cls.objects.bulk_create(
                [cls(device=key, classroom=classroom, last_signin_at=now)],
                ignore_conflicts=True,
            )

    @classmethod
    def forget_old(cls, now=None) -> int:
        now = now or timezone.now()
        cutoff = now - timedelta(days=KNOWN_DEVICE_DAYS)
        return cls.objects.filter(last_signin_at__lt=cutoff).delete()[0]


def _ceil_seconds(delta: timedelta) -> int:
    return max(1, int(-(-delta.total_seconds() // 1)))
