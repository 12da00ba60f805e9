"""What the statistics' rebuilds share below the models: SQLite's MEDIAN and LOCAL_DAY (PostgreSQL
has PERCENTILE_CONT and AT TIME ZONE), the tables' names for the hand-written statements of
stats_sql.py, running one ``INSERT … SELECT``, PostgreSQL's settings for a large statement, and
the row locks that serialise rebuilds of the same rows."""

import json
import statistics
from datetime import UTC
from datetime import datetime
from datetime import timedelta
from zoneinfo import ZoneInfo

from django.db import connections
from django.db.backends.signals import connection_created
from django.dispatch import receiver
from django.utils import timezone

from games.models import Match

CHUNK = 500  # ids per INSERT … SELECT (SQLite allows 32,766 parameters)


class _SQLiteMedian:
    """MEDIAN for SQLite (PostgreSQL has PERCENTILE_CONT): averages the two middle values."""

    def __init__(self):
        self.values = []

    def step(self, value):
        if value is not None:
            self.values.append(value)

    def finalize(self):
        return statistics.median(self.values) if self.values else None


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_us(moment: datetime) -> int:
    """A time as whole microseconds since 1970 (exact: no float on the way), the time of an
    attempt in a FactStat row's window."""
    return (moment - EPOCH) // timedelta(microseconds=1)


def _sqlite_moment(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class _SQLiteLatestWindow:
    """LATEST_WINDOW for SQLite (PostgreSQL: jsonb_agg … ORDER BY): the window of a FactStat
    row, a JSON array of [id, µs, correct, response_ms, missed, af, game_time] ordered by
    the rank given first (newest first)."""

    def __init__(self):
        self.rows = []

    def step(self, rank, pk, stamp, correct, ms, missed, af, game):
        moment = epoch_us(_sqlite_moment(stamp))
        self.rows.append((rank, [pk, moment, int(correct), ms, int(missed), int(af), int(game)]))

    def finalize(self):
        return json.dumps([row for _rank, row in sorted(self.rows, key=lambda r: r[0])])


def _sqlite_local_day(stamp, zone):
    """LOCAL_DAY for SQLite (PostgreSQL has AT TIME ZONE): the day, in the time zone named
    ``zone``, of a stored UTC time ("2026-03-09 20:00:00[.ffffff]"), as "YYYY-MM-DD"."""
    if stamp is None:
        return None
    moment = datetime.fromisoformat(stamp)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(ZoneInfo(zone)).date().isoformat()


@receiver(connection_created, dispatch_uid="classroom.analytics.sqlite_median")
def _register_sqlite_median(sender, connection, **kwargs):
    if connection.vendor == "sqlite":
        connection.connection.create_aggregate("MEDIAN", 1, _SQLiteMedian)
        connection.connection.create_aggregate("LATEST_WINDOW", 8, _SQLiteLatestWindow)
        connection.connection.create_function("LOCAL_DAY", 2, _sqlite_local_day, deterministic=True)


def table_names() -> dict:
    from classroom.models import Assignment
    from classroom.models import Attempt
    from classroom.models import ClassFactStat
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
        "class": ClassFactStat,
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
