"""A teacher's (or the command's) whole rebuild of the statistics, with live progress: in
batches on one connection, or on several threads with their own connections (PostgreSQL)."""

from django.conf import settings
from django.db import connections
from django.db import models
from django.db import transaction
from django.utils import timezone

from .analytics import DailyTrend
from .analytics import FactStat


class RecomputeJob(models.Model):
    """A teacher's (or the command's) request to rebuild statistics, with live progress."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    classroom = models.ForeignKey(
        "classroom.Classroom", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "classroom"
        ordering = ["-created_at"]

    def __str__(self):
        return f"recompute {self.pk} ({self.status})"

    # --- running ----------------------------------------------------------------------
    def children(self):
        """The children in scope, in a fixed order (a redelivered job resumes in it)."""
        from classroom.models import Student

        qs = Student.objects.order_by("pk")
        return qs if self.classroom_id is None else qs.filter(classroom_id=self.classroom_id)

    def run(self, progress=None) -> None:
        """Rebuild every statistic in scope. Idempotent: a finished (done or failed) job does
        nothing; a running one (its worker died) continues after the children it counted as
        done. ``done`` never counts a child whose rows are not committed: on one connection
        each batch is rebuilt and counted in the same transaction; on several (PostgreSQL,
        ``settings.RECOMPUTE_CONNECTIONS``) it counts the batches committed so far in order
        (a redelivered job redoes at most the batches that were in flight). ``progress(done,
        total)`` is called as it goes."""
        from classroom.models import Classroom
        from classroom.models import School

        if self.status not in (self.Status.QUEUED, self.Status.RUNNING):
            return
        ids = list(self.children().values_list("pk", flat=True))
        start = self.done if self.status == self.Status.RUNNING else 0
        start = min(start, len(ids))
        self.status, self.total, self.done = self.Status.RUNNING, len(ids), start
        self.save(update_fields=["status", "total", "done"])
        if progress:
            progress(self.done, self.total)
        classes = Classroom.objects.all()
        if self.classroom_id is not None:
            classes = classes.filter(pk=self.classroom_id)
        step = max(1, min(100, len(ids) // 20))
        batches = [ids[i : i + step] for i in range(start, len(ids), step)]
        try:
            schools = list(School.objects.filter(classrooms__in=classes).distinct())
            workers = self.connections()
            if workers > 1:
                self._run_on_connections(workers, batches, schools, progress)
            else:
                for batch in batches:
                    with transaction.atomic():
                        self.rebuild_batch(batch)
                        self.done += len(batch)
                        RecomputeJob.objects.filter(pk=self.pk).update(done=self.done)
                    if progress:
                        progress(self.done, self.total)
                for school in schools:
                    DailyTrend.objects.rebuild_rollups(school)
        except Exception:
            self.finish(self.Status.FAILED)
            raise
        self.finish(self.Status.DONE)

    @staticmethod
    def rebuild_batch(student_ids) -> None:
        """One batch of children: their facts and every day of their trends, together."""
        FactStat.objects.rebuild_for(student_ids)

    @staticmethod
    def connections() -> int:
        """How many database connections a recompute uses: ``RECOMPUTE_CONNECTIONS`` on
        PostgreSQL outside a transaction (other connections would not see its rows), else 1
        (SQLite has one writer at a time)."""
        connection = connections[FactStat.objects.db]
        if connection.vendor != "postgresql" or connection.in_atomic_block:
            return 1
        return settings.RECOMPUTE_CONNECTIONS

    def _run_on_connections(self, workers, batches, schools, progress) -> None:
        """The same rebuilds on ``workers`` threads, each with its own connection: the
        children's batches first, then the schools' trend roll-ups (they read the children's
        trend rows). This thread keeps the count."""
        from concurrent.futures import ThreadPoolExecutor
        from concurrent.futures import as_completed

        def own_connection(rebuild, *args):
            try:
                return rebuild(*args)
            finally:
                connections.close_all()  # this thread's connections only

        pool = ThreadPoolExecutor(workers, thread_name_prefix="recompute")
        try:
            facts = {
                pool.submit(own_connection, self.rebuild_batch, batch): n
                for n, batch in enumerate(batches)
            }
            finished, counted = set(), 0
            for future in as_completed(facts):
                future.result()
                finished.add(facts[future])
                while counted in finished:
                    self.done += len(batches[counted])
                    counted += 1
                RecomputeJob.objects.filter(pk=self.pk).update(done=self.done)
                if progress:
                    progress(self.done, self.total)
            rollups = [
                pool.submit(own_connection, DailyTrend.objects.rebuild_rollups, school)
                for school in schools
            ]
            for future in rollups:
                future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def finish(self, status) -> None:
        self.status, self.finished_at = status, timezone.now()
        self.save(update_fields=["status", "finished_at"])
