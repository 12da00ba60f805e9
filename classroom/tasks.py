from celery import shared_task

from classroom.models import WorkerHeartbeat


@shared_task(bind=True, ignore_result=True)
def heartbeat(self, sent_at: str = ""):
    """Record that this worker consumed a task (scheduled by beat every 30 s)."""
    WorkerHeartbeat.beat(self.request.hostname or "unknown", sent_at=sent_at)
