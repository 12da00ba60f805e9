"""The Celery app. Tasks stay thin: they take ids and call model or pure functions."""

import os

from celery import Celery
from celery import bootsteps
from celery.schedules import crontab
from celery.signals import worker_ready

from config import broker  # noqa: F401 (registers the embedded broker's atomicfs:// URL)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("multiplipotion")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

HEARTBEAT_EVERY = 15.0  # seconds

app.conf.beat_schedule = {
    "worker-heartbeat": {"task": "classroom.tasks.heartbeat", "schedule": 30.0},
    "sweep-stalled-bots": {"task": "games.tasks.sweep_stalled_bots", "schedule": 20.0},
    # A Munchkin "anyone?" window left open by a closed page: the table passes for them.
    "time-out-windows": {"task": "games.tasks.time_out_windows", "schedule": 20.0},
    "expire-family-rooms": {"task": "games.tasks.expire_family_rooms", "schedule": 600.0},
    # Statistics of games that ended while the broker was down (their task was lost).
    "sweep-missed-stats": {"task": "classroom.tasks.sweep_missed_stats", "schedule": 60.0},
    # Sign-in device counts and rate-limit windows that ended days ago.
    "forget-old-throttles": {"task": "classroom.tasks.forget_old_throttles", "schedule": 3600.0},
    # Once a night (UTC): class roll-ups and yesterday's and today's trends.
    "analytics-nightly-rollups": {
        "task": "classroom.tasks.nightly_rollups",
        "schedule": crontab(hour=1, minute=30),
    },
}


def _beat(hostname: str) -> None:
    from classroom.models import WorkerHeartbeat

    WorkerHeartbeat.beat(hostname)


class HeartbeatStep(bootsteps.StartStopStep):
    """Writes the worker's heartbeat row every 15 s, with or without beat running."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, parent, **kwargs):
        self.tref = None
        super().__init__(parent, **kwargs)

    def start(self, parent):
        self.tref = parent.timer.call_repeatedly(HEARTBEAT_EVERY, _beat, (parent.hostname,))

    def stop(self, parent):
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None


app.steps["worker"].add(HeartbeatStep)


@worker_ready.connect
def _on_worker_ready(sender=None, **kwargs):
    _beat(sender.hostname)
