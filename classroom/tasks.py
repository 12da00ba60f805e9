from celery import shared_task

from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import Student
from classroom.models import WarmUp
from classroom.models import WorkerHeartbeat
from games import models as game_models
from games import queue as games_queue


@shared_task(bind=True, ignore_result=True)
def heartbeat(self, sent_at: str = ""):
    """Record that this worker consumed a task (scheduled by beat every 30 s)."""
    WorkerHeartbeat.beat(self.request.hostname or "unknown", sent_at=sent_at)


# --- analytics (docs/analytics.md, "Pipeline"): every task rebuilds from the attempts, so
# running one twice, or a redelivery after a killed worker, counts every attempt once.


@shared_task(bind=True, ignore_result=True, acks_late=True)
def update_match_stats(self, match_id: int):
    """A match ended: its children's facts and their classes' roll-ups (what the heatmaps
    show), then the day's trends as a task of their own, on the same queue."""
    FactStat.objects.update_for_match(match_id, trends=False)
    queue = (self.request.delivery_info or {}).get("routing_key")
    if queue:
        games_queue.enqueue(update_match_trends, match_id, queue=queue)
    else:
        games_queue.enqueue(update_match_trends, match_id)


@shared_task(ignore_result=True, acks_late=True)
def update_match_trends(match_id: int):
    """The trends of the days a finished match was played (idempotent: a rebuild)."""
    match = game_models.Match.objects.filter(pk=match_id).first()
    if match is not None:
        DailyTrend.objects.update_for_match(match)


@shared_task(ignore_result=True, acks_late=True)
def sweep_missed_stats():
    """Beat, every minute: matches that ended in the last hours whose statistics were never
    rebuilt (the broker was down when they ended, so ``update_match_stats`` was lost) get them
    now, with their trends. Idempotent: a rebuilt match is not found again."""
    for match_id in FactStat.objects.matches_missing_stats():
        FactStat.objects.update_for_match(match_id)
    # Warm-up rounds too: one that ran out of time with nobody there to finish it (the lid
    # was closed), or whose own task was lost.
    for warm_up_id in WarmUp.objects.missing_stats():
        update_warm_up_stats(warm_up_id)


@shared_task(ignore_result=True, acks_late=True)
def update_warm_up_stats(warm_up_id: int):
    """A warm-up round ended: the child's facts, the class's roll-up and the trends of the
    round's days, then the round's ``stats_at`` (idempotent: rebuilds)."""
    warm_up = WarmUp.objects.filter(pk=warm_up_id).first()
    if warm_up is not None:
        warm_up.rebuild_stats()


@shared_task(ignore_result=True, acks_late=True)
def rebuild_class_stats(classroom_ids: list[int], student_ids: list[int] | None = None):
    """A child moved to another class or was deleted: first the facts of ``student_ids``
    (classmates whose games with a deleted child went with it), then the heatmaps of those
    classes and of theirs, now rather than tonight (idempotent: rebuilds)."""
    classes = set(classroom_ids)
    if student_ids:
        FactStat.objects.rebuild_for(student_ids, trends=True)
        classes |= set(
            Student.objects.filter(pk__in=student_ids).values_list("classroom_id", flat=True)
        )
    ClassFactStat.objects.rebuild_for(sorted(classes))


@shared_task(ignore_result=True, acks_late=True)
def nightly_rollups():
    """Beat, once a night: the facts of children who played since yesterday (matches that
    were abandoned never sent update_match_stats), every active class's roll-up, and the
    trends of yesterday and today in each school's time zone."""
    FactStat.objects.rebuild_recent_players()
    ClassFactStat.objects.rebuild_for(Classroom.objects.active().values_list("pk", flat=True))
    DailyTrend.objects.rebuild_recent()


@shared_task(ignore_result=True, acks_late=True)
def recompute_job(job_id: int):
    """Rebuild everything in a RecomputeJob's scope, with progress (teacher button)."""
    job = RecomputeJob.objects.filter(pk=job_id).first()
    if job is not None:
        job.run()


@shared_task(ignore_result=True, acks_late=True)
def forget_old_throttles():
    """Drop sign-in device counts and rate-limit windows that ended days ago (idempotent)."""
    from classroom.models import RateLimit
    from classroom.models import SignInDevice

    SignInDevice.forget_old()
    RateLimit.forget_old()
