from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import WarmUp
from classroom.models import WorkerHeartbeat


@shared_task(bind=True, ignore_result=True)
def heartbeat(self, sent_at: str = ""):
    """Record that this worker consumed a task (scheduled by beat every 30 s)."""
    WorkerHeartbeat.beat(self.request.hostname or "unknown", sent_at=sent_at)


# An attempt younger than this is left to the next sweep: its move may still be committing.
SETTLE = timedelta(seconds=5)

# --- analytics (docs/analytics.md, "Pipeline"): a game's or a warm-up's end counts its
# children's new attempts into their statistics (incremental, marked applied in the same
# transaction), so running a task twice, or a redelivery after a killed worker, counts every
# attempt once. Full rebuilds are repairs only (a hard delete, the teacher's button).


@shared_task(ignore_result=True, acks_late=True)
def update_match_stats(match_id: int):
    """A match ended: its children's new attempts counted into their facts, their classes'
    touched facts and the days' trend rows (``FactStat.objects.update_for_match``)."""
    FactStat.objects.update_for_match(match_id)


@shared_task(ignore_result=True, acks_late=True)
def update_match_trends(match_id: int):
    """Kept for messages enqueued before the incremental statistics: the trends are now
    counted by ``update_match_stats`` itself, so this counts whatever is still pending."""
    FactStat.objects.update_for_match(match_id)


@shared_task(ignore_result=True, acks_late=True)
def sweep_missed_stats():
    """Beat, every minute: every attempt not yet counted, made more than a few seconds ago,
    is counted now: those of games still going (so they reach the reports within a minute,
    not at the game's end), of games whose ``update_match_stats`` was lost (the broker was
    down when they ended) and of abandoned ones. Idempotent: a counted attempt is not
    found again."""
    FactStat.objects.apply_all_pending(settled=timezone.now() - SETTLE)
    # Warm-up rounds too: one that ran out of time with nobody there to finish it (the lid
    # was closed), or whose own task was lost.
    for warm_up_id in WarmUp.objects.missing_stats():
        update_warm_up_stats(warm_up_id)


@shared_task(ignore_result=True, acks_late=True)
def update_warm_up_stats(warm_up_id: int):
    """A warm-up round ended: the child's new attempts counted, then the round's
    ``stats_at`` (idempotent)."""
    warm_up = WarmUp.objects.filter(pk=warm_up_id).first()
    if warm_up is not None:
        warm_up.apply_stats()


@shared_task(ignore_result=True, acks_late=True)
def rebuild_class_stats(classroom_ids: list[int], student_ids: list[int] | None = None):
    """A child moved to another class or was deleted (a repair): first a full rebuild of
    ``student_ids`` (classmates whose games with a deleted child went with it), then the
    class and school trend rows of those classes' schools (idempotent: rebuilds)."""
    FactStat.objects.repair(student_ids or [], classroom_ids)


@shared_task(ignore_result=True, acks_late=True)
def nightly_rollups():
    """Beat, once a night: attempts not yet counted (the sweep's safety net), and the trends
    of yesterday and today in each school's time zone rebuilt from the counted attempts (a
    safety net: they come out the same)."""
    FactStat.objects.apply_all_pending()
    DailyTrend.objects.rebuild_recent()


@shared_task(ignore_result=True, acks_late=True)
def recompute_job(job_id: int):
    """Rebuild everything in a RecomputeJob's scope, with progress (teacher button)."""
    job = RecomputeJob.objects.filter(pk=job_id).first()
    if job is not None:
        job.run()


@shared_task(ignore_result=True, acks_late=True)
def forget_old_throttles():
    """Drop sign-in device counts, a child's wrong tries on a device and rate-limit windows
    that ended days ago, and the class devices unused for months (idempotent)."""
    from classroom.models import KnownDevice
    from classroom.models import PictureTries
    from classroom.models import RateLimit
    from classroom.models import SignInDevice

    SignInDevice.forget_old()
    PictureTries.forget_old()
    KnownDevice.forget_old()
    RateLimit.forget_old()
