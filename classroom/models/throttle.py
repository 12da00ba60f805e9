"""A counter per key and fixed window in the database, for limits that must hold under
parallel requests and while the cache is down (password-reset e-mails, docs/classroom/
accounts-and-rosters.md). The row is locked while it is checked and counted."""

import hashlib
from datetime import timedelta

from django.db import models
from django.db import transaction
from django.utils import timezone


class RateLimit(models.Model):
    key = models.CharField(max_length=64, unique=True)  # digest of kind and value
    window_start = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        app_label = "classroom"

    def __str__(self) -> str:
        return f"{self.key[:8]}: {self.count}"

    @staticmethod
    def key_for(kind: str, value: str) -> str:
        return hashlib.sha256(f"{kind}|{value}".encode()).hexdigest()

    @classmethod
    def hit(cls, kind: str, value: str, limit: int, window: timedelta, now=None) -> bool:
        """Count one more use of ``kind``/``value`` in its window and return True, or return
        False (and count nothing) when the window already holds ``limit`` uses."""
        key = cls.key_for(kind, value)
        with transaction.atomic():
            now = now or timezone.now()
            cls.objects.bulk_create([cls(key=key, window_start=now)], ignore_conflicts=True)
            row = cls.objects.select_for_update().get(key=key)
            if row.window_start + window <= now:
                row.window_start, row.count = now, 0
            if row.count >= limit:
                return False
            row.count += 1
            row.save(update_fields=["window_start", "count"])
            return True

    @classmethod
    def give_back(cls, kind: str, value: str) -> None:
        """Take back one use ``hit`` counted (it turned out not to count: a right answer).
        Counted first and given back, as ``config.throttle`` does, so that parallel requests
        can never all pass a check made before any of them counted."""
        cls.objects.filter(key=cls.key_for(kind, value), count__gt=0).update(
            count=models.F("count") - 1
        )

    @classmethod
    def forget_old(cls, older_than: timedelta = timedelta(days=2), now=None) -> int:
        now = now or timezone.now()
        return cls.objects.filter(window_start__lt=now - older_than).delete()[0]
