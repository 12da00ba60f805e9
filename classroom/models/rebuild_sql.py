"""What the statistics' writers share below the models: the tables' names for the few
hand-written statements (the trend rows' upserts and roll-ups), running one ``INSERT …
SELECT``, PostgreSQL's settings for a large statement, the row locks that serialise
rebuilds of the same rows, and SQLite's MEDIAN (PostgreSQL has PERCENTILE_CONT) for the
median times of the hardest facts (``hardest.Median``)."""

import statistics

from django.db import connections
from django.db.backends.signals import connection_created
from django.dispatch import receiver
from django.utils import timezone

from games.models import Match


class _SQLiteMedian:
    """MEDIAN for SQLite (PostgreSQL has PERCENTILE_CONT): averages the two middle values."""

    def __init__(self):
        self.values = []

    def step(self, value):
        if value is not None:
            self.values.append(value)

    def finalize(self):
        return statistics.median(self.values) if self.values else None


@receiver(connection_created, dispatch_uid="classroom.analytics.sqlite_median")
def _register_sqlite_median(sender, connection, **kwargs):
    if connection.vendor == "sqlite":
        connection.connection.create_aggregate("MEDIAN", 1, _SQLiteMedian)


def table_names() -> dict:
    from classroom.models import Assignment
    from classroom.models import Attempt
    from classroom.models import Classroom
    from classroom.models import DailyTrend
    from classroom.models import FactStat
    from classroom.models import School
    from classroom.models import SessionMatch
    from classroom.models import Student
    from classroom.models import WarmUp

    models_ = {
        "session_match": SessionMatch,
        "attempt": Attempt,
        "fact": FactStat,
        "trend": DailyTrend,
        "student": Student,
        "classroom": Classroom,
        "school": School,
        "assignment": Assignment,
        "match": Match,
        "warmup": WarmUp,
    }
    return {name: model._meta.db_table for name, model in models_.items()}


def insert_select(queryset, sql: str, params) -> int:
    """Run one ``INSERT … SELECT`` on the queryset's database; the number of rows written."""
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        return max(cursor.rowcount, 0)


def no_jit(queryset):
    """PostgreSQL compiles a statement this large to machine code first (JIT), which costs
    more than it saves here (0.2–0.3 s of a 1,000-child rebuild): off for this transaction.
    And a batch's sort (50,000 attempts of 50 children) fits in memory instead of spilling to
    disk at the default 4 MB."""
    connection = connections[queryset.db]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")
            cursor.execute("SET LOCAL work_mem = '32MB'")


def db_now(queryset):
    return connections[queryset.db].ops.adapt_datetimefield_value(timezone.now())


def lock_rows(model, ids, *, share=False):
    """Serialise rebuilds of the same rows (PostgreSQL row locks; SQLite's write lock is
    taken by the IMMEDIATE transaction already). ``share``: rebuilds holding a share lock
    run side by side; an exclusive one waits for them all, and they for it."""
    queryset = model.objects.filter(pk__in=ids).order_by("pk").values_list("pk")
    connection = connections[queryset.db]
    if not share:
        list(queryset.select_for_update())
    elif connection.vendor == "postgresql" and ids:
        sql, params = queryset.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} FOR SHARE", params)
