"""A full recompute on several PostgreSQL connections at once (``RECOMPUTE_CONNECTIONS``):
the same rows as on one connection, a count that never runs ahead of committed work, and a
failure that marks the job failed. These need committed rows (the other connections cannot
see a test's transaction), hence ``transactional_db`` and PostgreSQL."""

import threading

import pytest

from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models.analytics import FactStatQuerySet

from .test_analytics_pipeline_worker import counted
from .test_analytics_pipeline_worker import everything
from .test_analytics_pipeline_worker import many_attempts
from .test_analytics_pipeline_worker import school_with_children
from .test_analytics_pipeline_worker import stat_rows

pytestmark = [pytest.mark.services]


def clear_statistics():
    FactStat.objects.all().delete()
    DailyTrend.objects.all().delete()


def test_several_connections_write_the_same_rows_as_one(
    postgres, transactional_db, settings, monkeypatch
):
    _classroom, children = school_with_children(60)
    attempts = many_attempts(children, per_child=30)
    settings.RECOMPUTE_CONNECTIONS = 2
    assert RecomputeJob.connections() == 2
    seen = []
    threads = set()
    original = FactStatQuerySet.rebuild_for

    def spy(self, ids, **kwargs):
        threads.add(threading.current_thread().name)
        return original(self, ids, **kwargs)

    monkeypatch.setattr(FactStatQuerySet, "rebuild_for", spy)
    job = RecomputeJob.objects.create()
    job.run(progress=lambda done, total: seen.append((done, total)))
    monkeypatch.undo()
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("done", 60, 60)
    assert all(name.startswith("recompute") for name in threads) and len(threads) == 2
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)  # never backwards
    assert seen[-1] == (60, 60)
    assert counted() == attempts
    parallel = everything()
    assert all(parallel), "every kind of statistic has rows"

    clear_statistics()
    settings.RECOMPUTE_CONNECTIONS = 1
    assert RecomputeJob.connections() == 1
    RecomputeJob.objects.create().run()
    assert everything() == parallel


def test_inside_a_transaction_the_recompute_stays_on_its_own_connection(postgres, db, settings):
    settings.RECOMPUTE_CONNECTIONS = 2
    assert RecomputeJob.connections() == 1  # pytest's transaction: others would see nothing


def test_a_failing_batch_fails_the_job_and_counts_only_committed_batches(
    postgres, transactional_db, settings, monkeypatch
):
    _classroom, children = school_with_children(40)
    many_attempts(children, per_child=5)
    settings.RECOMPUTE_CONNECTIONS = 2
    ids = sorted(c.pk for c in children)
    original = FactStatQuerySet.rebuild_for

    def broken(self, batch, **kwargs):
        if ids[20] in batch:
            raise RuntimeError("disk full")
        return original(self, batch, **kwargs)

    monkeypatch.setattr(FactStatQuerySet, "rebuild_for", broken)
    job = RecomputeJob.objects.create()
    with pytest.raises(RuntimeError, match="disk full"):
        job.run()
    monkeypatch.undo()
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None
    assert job.done <= 20  # the batches before the broken one, at most
    done = set(ids[: job.done])
    assert done <= set(FactStat.objects.values_list("student_id", flat=True))


def test_trend_rows_written_with_the_facts_equal_those_of_their_own_rebuild(postgres, db):
    """A batch's trend rows are rebuilt in the facts' transaction (``rebuild_for``): the same
    rows as ``DailyTrend.objects.rebuild_children`` on its own, each school's days in its own
    time zone (two schools half a world apart, attempts at every hour of a fortnight)."""
    _room, east = school_with_children(6)
    _other, west = school_with_children(5)
    for room, zone in ((_room, "Pacific/Auckland"), (_other, "America/Los_Angeles")):
        room.school.timezone = zone
        room.school.save(update_fields=["timezone"])
    many_attempts([*east, *west], per_child=60)
    ids = [c.pk for c in [*west, *east]]

    DailyTrend.objects.rebuild_children(ids)
    on_their_own = stat_rows(DailyTrend)
    assert {row[0] for row in on_their_own} == {"student"} and len(on_their_own) > 11 * 5
    DailyTrend.objects.all().delete()

    assert FactStat.objects.rebuild_for(ids) == FactStat.objects.count()
    assert stat_rows(DailyTrend) == on_their_own
    facts = stat_rows(FactStat)
    FactStat.objects.rebuild_for(ids)  # twice: the same rows
    assert stat_rows(FactStat) == facts and stat_rows(DailyTrend) == on_their_own
