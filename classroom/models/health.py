from datetime import timedelta

from django.db import models
from django.utils import timezone


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker said it was alive (read by /healthz)."""

    hostname = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField()
    last_sent_at = models.CharField(max_length=40, blank=True)

    class Meta:
        app_label = "classroom"

    def __str__(self):
        return f"{self.hostname} @ {self.seen_at:%H:%M:%S}"

    @classmethod
    def beat(cls, hostname: str, sent_at: str = "") -> "WorkerHeartbeat":
        defaults = {"seen_at": timezone.now()}
        if sent_at:
            defaults["last_sent_at"] = sent_at
        row, _created = cls.objects.update_or_create(hostname=hostname, defaults=defaults)
        return row

    @classmethod
    def freshest_age(cls) -> timedelta | None:
        latest = cls.objects.order_by("-seen_at").values_list("seen_at", flat=True).first()
        return None if latest is None else timezone.now() - latest
