"""Evidence and statistics about times-table facts (see docs/analytics.md, "Pipeline").

Attempts are written with the move that made them (``Attempt.objects.record_move``). In
normal operation the statistics are incremental: ``FactStat.objects.apply_pending`` counts a
child's attempts not yet counted (``Attempt.stats_applied``, the idempotency record) into the
touched facts, the class's touched facts and the days' trend rows (incremental.py). Full
rebuilds from all the attempts are repairs and write the same rows:
``FactStat.objects.rebuild_for(student_ids)`` and ``repair``,
``ClassFactStat.objects.rebuild_for(class_ids)``,
``DailyTrend.objects.rebuild_for_school(school, first_day, last_day)``, and a whole rebuild
with progress, ``RecomputeJob.run()`` (recompute.py). The SQL they share is rebuild_sql.py
and stats_sql.py. The judgement (mastery, kinds of error, focus facts) stays in the pure
``classroom.diagnosis``.
"""

import json
from datetime import timedelta

from django.db import connections
from django.db import models
from django.db import transaction
from django.db.models import Case
from django.db.models import Count
from django.db.models import Q
from django.db.models import When
from django.db.models.functions import TruncDate
from django.utils import timezone

from classroom import diagnosis
from games.models import Match

from . import stats_sql
from .child_seat import student_pk_of
from .rebuild_sql import CHUNK
from .rebuild_sql import db_now
from .rebuild_sql import insert_select
from .rebuild_sql import lock_rows
from .rebuild_sql import no_jit
from .rebuild_sql import table_names
from .stats_sql import error_column

# --- evidence ------------------------------------------------------------------------------


class AttemptQuerySet(models.QuerySet):
    def record_move(self, match, move) -> list:
        """Store the ``fact`` events of ``move`` made by a child's seat, in the caller's
        transaction, with one INSERT. No query at all when the move has no fact, and none
        for the seats when the caller prefetched them."""
        facts = [e for e in move.events if e.get("kind") == "fact"]
        if not facts:
            return []
        # A child's seat names its child in its owner key (child_seat.student_pk_of).
        children = {seat.number: pk for seat in match.seats.all() if (pk := student_pk_of(seat))}
        rows = [
            Attempt(
                student_id=children[fact["seat"]],
                match_id=match.pk,
                move=move,
                a=fact["a"],
                b=fact["b"],
                answer=fact["answer"],
                correct=bool(fact["correct"]),
                kind=diagnosis.classify(fact["a"], fact["b"], fact["answer"]),
                context=fact["context"],
                response_ms=None if fact["context"] == Attempt.Context.MISSED else move.think_ms,
                home=match.family,  # a family-night game: played at home
                created_at=move.created_at,
            )
            for fact in facts
            if fact.get("seat") in children
        ]
        return self.bulk_create(rows) if rows else []

    def with_accuracy_first(self):
        return self.annotate(
            accuracy_first=Case(
                When(match__session_link__assignment__accuracy_first=True, then=True),
                default=False,
                output_field=models.BooleanField(),
            )
        )


class Attempt(models.Model):
    """One multiplication a child asserted or missed, stored with the move that made it."""

    class Context(models.TextChoices):
        CAPTURE = "capture"
        CHALLENGE = "challenge"
        MISSED = "missed"
        WARM_UP = "warm-up"  # typed on the warm-up's number pad (classroom.models.warmup)

    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="attempts"
    )
    # A game's attempt has its match and move; a warm-up's has its round and question number.
    match = models.ForeignKey(
        "games.Match", null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    move = models.ForeignKey(
        "games.Move", null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    warm_up = models.ForeignKey(
        "classroom.WarmUp",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="attempts",
    )
    question = models.PositiveSmallIntegerField(null=True, blank=True)  # 0, 1, 2… in the round
    a = models.PositiveSmallIntegerField()  # factors in the order the child named them
    b = models.PositiveSmallIntegerField()
    answer = models.PositiveIntegerField(null=True, blank=True)  # None: a missed capture
    correct = models.BooleanField()
    kind = models.CharField(max_length=12)  # classroom.diagnosis.classify
    context = models.CharField(max_length=12, choices=Context.choices)
    response_ms = models.PositiveIntegerField(null=True, blank=True)
    home = models.BooleanField(default=False)  # played at home (family night), not in class
    created_at = models.DateTimeField()
    # The idempotency record of the incremental statistics (docs/analytics.md, "Pipeline"):
    # set in the transaction that adds this attempt to its child's statistics (or rebuilds
    # them), so a task run twice, or redelivered after a killed worker, counts it once.
    stats_applied = models.BooleanField(default=False, db_default=False)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        indexes = [
            # A child's attempts of one fact, newest first: the order in which the rebuild
            # ranks them, so the database reads them ranked without sorting.
            models.Index(
                fields=["student", "a", "b", "-created_at", "-id"], name="attempt_latest_of_fact"
            ),
            models.Index(fields=["created_at"]),
            # What is still to be counted, per child: small, only the unapplied attempts.
            models.Index(
                fields=["student"],
                condition=models.Q(stats_applied=False),
                name="attempt_stats_pending",
            ),
        ]
        constraints = [
            # A warm-up question is answered once: a replayed answer cannot be stored twice.
            models.UniqueConstraint(
                fields=["warm_up", "question"],
                condition=models.Q(warm_up__isnull=False),
                name="one_answer_per_warm_up_question",
            ),
        ]

    def __str__(self):
        return f"{self.student_id}: {self.a}×{self.b}={self.answer} ({self.kind})"


class FactStatQuerySet(models.QuerySet):
    # --- the incremental path (normal operation: incremental.py) --------------------------
    def apply_pending(self, student_ids) -> int:
        """Count these children's attempts not yet counted into their statistics: their
        touched facts, their classes' touched facts and the days' trend rows, one
        transaction per child that also marks the attempts applied (idempotent, safe under
        concurrent tasks, see ``incremental.apply_child``). Returns the attempts applied."""
        from .incremental import apply_child

        return sum(apply_child(pk, using=self.db) for pk in sorted(set(student_ids)))

    def apply_all_pending(self) -> int:
        """Every child with attempts not yet counted (abandoned matches, lost tasks): what
        the nightly run and the sweep fall back on. Reads the small pending index."""
        ids = Attempt.objects.filter(stats_applied=False).values_list("student_id", flat=True)
        return self.apply_pending(set(ids))

    def update_for_match(self, match_id) -> int:
        """After a match ends: its children's pending attempts counted (``apply_pending``).
        Returns the attempts applied (0 when the match is gone or already counted)."""
        from classroom.models import ChildSeat

        ids = ChildSeat.objects.filter(seat__match_id=match_id).values_list("student_id", flat=True)
        return self.apply_pending(set(ids))

    # --- the full rebuild (repair only) ----------------------------------------------------
    def rebuild_for(self, student_ids) -> int:
        """Rebuild these children's rows from all their attempts (delete + insert in one
        transaction), with every day of their own trend rows, and mark every attempt of
        theirs applied: a repair (rules changed, an import, a hard delete, the teacher's
        button), never needed in normal operation. Counts are all-time; the state and median
        time are those of ``diagnosis.mastery`` over the latest ten attempts, computed by the
        database (``stats_sql.fact_stats``: one ``INSERT … SELECT`` per 500 children; on
        PostgreSQL the trend rows in the same statements, so the attempts are read once).
        The rows are exactly those the incremental path writes. The classes' roll-ups and the
        schools' trend roll-ups are the caller's (``repair``). Returns the FactStat rows
        written."""
        student_ids = sorted(set(student_ids))
        if not student_ids:
            return 0
        if student_ids[-1] >= stats_sql.MAX_PACKED_STUDENT_ID:
            # The statement's one-integer key for a child's fact would overflow (and SQLite
            # would silently turn it into a float): refuse rather than merge facts.
            raise ValueError(f"a child id of {student_ids[-1]} is beyond the statistics' key")
        vendor, tables = connections[self.db].vendor, table_names()
        fused = vendor == "postgresql"
        written = 0
        with transaction.atomic(using=self.db):
            from classroom.models import Student

            no_jit(self)
            lock_rows(Student, student_ids)
            self.filter(student_id__in=student_ids).delete()
            # From now on every attempt of theirs is in the rows written below.
            Attempt.objects.using(self.db).filter(
                student_id__in=student_ids, stats_applied=False
            ).update(stats_applied=True)
            # Each school's children with its time zone: a day of the 2-day rule (and a
            # trend day) is the school's local day.
            groups = DailyTrend.objects.using(self.db).clear_children(student_ids)
            for school, ids in groups:
                zone = school.zone.key
                trend_params = [DailyTrend.Scope.STUDENT.value, zone] if fused else []
                for i in range(0, len(ids), CHUNK):
                    chunk = ids[i : i + CHUNK]
                    sql = stats_sql.fact_stats(vendor, tables, len(chunk), trends=fused)
                    written += insert_select(self, sql, [*chunk, *trend_params, zone, db_now(self)])
            if not fused:
                for school, ids in groups:
                    attempts = Attempt.objects.using(self.db).filter(student_id__in=ids)
                    DailyTrend.objects.using(self.db)._insert_children(school, attempts)
        return written

    def repair(self, student_ids, classroom_ids=()) -> None:
        """A full rebuild of these children, then the roll-ups that add them up: the
        ``ClassFactStat`` of their classes and of ``classroom_ids``, and the class and
        school trend rows of those classes' schools."""
        from classroom.models import Classroom
        from classroom.models import School
        from classroom.models import Student

        self.rebuild_for(student_ids)
        classes = set(classroom_ids) | set(
            Student.objects.filter(pk__in=student_ids).values_list("classroom_id", flat=True)
        )
        ClassFactStat.objects.using(self.db).rebuild_for(classes)
        schools = Classroom.objects.filter(pk__in=classes).values_list("school_id", flat=True)
        for school in School.objects.filter(pk__in=set(schools)).order_by("pk"):
            DailyTrend.objects.using(self.db).rebuild_rollups(school)

    def matches_missing_stats(self, now=None, *, within=timedelta(hours=6), limit=50) -> list:
        """Matches that ended lately (at least 10 s ago: their own task has had its chance)
        with a child's attempts not yet counted (their ``update_match_stats`` was lost, e.g.
        the broker was down when the game ended): the ids, oldest first."""
        now = now or timezone.now()
        return list(
            Match.objects.filter(
                finished_at__gte=now - within,
                finished_at__lte=now - timedelta(seconds=10),
            )
            .filter(
                models.Exists(
                    Attempt.objects.filter(match=models.OuterRef("pk"), stats_applied=False)
                )
            )
            .order_by("finished_at")
            .values_list("pk", flat=True)[:limit]
        )

    def focus_facts(self, limit: int = 3) -> list[tuple[int, int]]:
        """``diagnosis.focus_facts`` over these rows (one child's): the facts to practise,
        ranked by the pooled recent figures, one per fact and its twin (in the order with
        the most wrong answers)."""
        states, wrong = {}, {}
        for stat in self.filter(state__in=diagnosis.STRUGGLING):
            states[(stat.a, stat.b)] = stat.pooled_mastery()
            wrong[(stat.a, stat.b)] = stat.attempts - stat.correct
        return diagnosis.focus_facts(states, limit, wrong)

    def due_for_review(self, now=None):
        """Mastered facts whose latest attempt (either order) is ``REVIEW_AFTER_DAYS`` or more
        before ``now``: what the reports show as "check again" and the warm-up asks again.
        Both orders of a fact are rows here; ``pooled_facts()`` gives one (a, b) per fact."""
        now = now or timezone.now()
        return self.filter(
            state=diagnosis.MASTERED,
            last_attempt_at__lte=now - timedelta(days=diagnosis.REVIEW_AFTER_DAYS),
        ).exclude(
            # the twin was seen since: the pooled fact's latest attempt is recent
            models.Exists(
                FactStat.objects.filter(
                    student=models.OuterRef("student"),
                    a=models.OuterRef("b"),
                    b=models.OuterRef("a"),
                    last_attempt_at__gt=now - timedelta(days=diagnosis.REVIEW_AFTER_DAYS),
                )
            )
        )

    def pooled_facts(self) -> list[tuple[int, int]]:
        """The facts of these rows, each fact and its twin once, smaller number first."""
        return sorted({(min(a, b), max(a, b)) for a, b in self.values_list("a", "b")})


class FactFigures(models.Model):
    """What a child's and a class's statistics of one fact both count."""

    a = models.PositiveSmallIntegerField()
    b = models.PositiveSmallIntegerField()
    attempts = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)
    omissions = models.PositiveIntegerField(default=0)
    median_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        abstract = True
        app_label = "classroom"


class FactStat(FactFigures):
    """A child's statistics for one fact as asked (a × b, order kept), counted from attempts."""

    # No index of its own: the unique (student, a, b) constraint's index serves it.
    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="fact_stats", db_index=False
    )
    # The state and the figures that decide it pool both orders (7 × 8 and 8 × 7 share
    # them; docs/analytics.md, "States"): the latest attempts of the fact either way round.
    state = models.CharField(max_length=12)  # classroom.diagnosis.STATES
    recent_attempts = models.PositiveSmallIntegerField(db_default=0)
    recent_correct = models.PositiveSmallIntegerField(db_default=0)
    recent_days = models.PositiveSmallIntegerField(db_default=0)  # different days among them
    speed_ms = models.PositiveIntegerField(null=True, blank=True)  # the time the state used
    speed_from_game = models.BooleanField(db_default=False)  # …taken from game times only
    # The wrong answers by kind (classroom.diagnosis.ERROR_KINDS), a column each: counting
    # them into columns costs the rebuild far less than building a JSON object per row.
    # ``errors`` reads and writes them as one dict.
    operand_errors = models.PositiveIntegerField(default=0)
    close_errors = models.PositiveIntegerField(default=0)
    zero_one_errors = models.PositiveIntegerField(default=0)
    operation_errors = models.PositiveIntegerField(default=0)
    reversed_errors = models.PositiveIntegerField(default=0)
    table_errors = models.PositiveIntegerField(default=0)
    other_errors = models.PositiveIntegerField(default=0)
    omission_errors = models.PositiveIntegerField(default=0)
    wrong_answers = models.JSONField(default=dict, blank=True)  # {"48": 3, ...}
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    # The latest ten attempts of this order, newest first, each
    # [id, created_at in µs since 1970, correct, response_ms, missed capture, accuracy
    # first, game time] (0/1 for the flags): the window the incremental update slides, so
    # the median and the pooled state need no scan of the attempts (``incremental.py``).
    latest = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = FactStatQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["student", "a", "b"], name="one_stat_per_child_fact")
        ]

    def __str__(self):
        return f"{self.student_id}: {self.a}×{self.b} {self.state}"

    def pooled_mastery(self) -> diagnosis.Mastery:
        """The pooled figures of this row (both orders together) as ``diagnosis.Mastery``."""
        n, right = self.recent_attempts, self.recent_correct
        return diagnosis.Mastery(
            self.state,
            n,
            right / n if n else None,
            self.speed_ms,
            self.omissions,
            correct=right,
            days=self.recent_days,
            speed_from_game=self.speed_from_game,
        )

    @property
    def errors(self) -> dict[str, int]:
        """Wrong answers by kind, every kind (zeros too), in ``diagnosis.ERROR_KINDS`` order:
        the shape of ``diagnosis.error_profile``."""
        return {kind: getattr(self, error_column(kind)) for kind in diagnosis.ERROR_KINDS}

    @errors.setter
    def errors(self, counts: dict | None) -> None:
        """Set every kind's column from a dict of counts (a kind left out, or None: 0)."""
        counts = counts or {}
        for kind in diagnosis.ERROR_KINDS:
            setattr(self, error_column(kind), int(counts.get(kind, 0)))


class ClassFactStatQuerySet(models.QuerySet):
    def rebuild_for(self, classroom_ids) -> int:
        """Rebuild these classes' roll-ups, a fact and its twin together (a ≤ b), from the
        ``FactStat`` rows of their children (archived children too; a child counts in their
        current class), so the children's rows must be up to date first: ``attempts``,
        ``correct``, ``omissions`` and ``wrong_answers`` added up; ``children``: children
        with a row; ``struggling``: children still learning it in either order (what the
        fact's list of children shows); ``median_ms``: the median of the children's median
        times (each child and order counts once). One ``INSERT … SELECT``."""
        classroom_ids = sorted(set(classroom_ids))
        if not classroom_ids:
            return 0
        vendor, tables = connections[self.db].vendor, table_names()
        written = 0
        with transaction.atomic(using=self.db):
            from classroom.models import Classroom

            no_jit(self)
            lock_rows(Classroom, classroom_ids)
            self.filter(classroom_id__in=classroom_ids).delete()
            for i in range(0, len(classroom_ids), CHUNK):
                chunk = classroom_ids[i : i + CHUNK]
                sql = stats_sql.class_stats(vendor, tables, len(chunk))
                written += insert_select(self, sql, [*chunk, db_now(self)])
        return written

    def add_changes(self, classroom_id, changes) -> int:
        """Add one child's changes to one class's rows of the touched pooled facts (the
        incremental path's step, under the class's row lock, in the caller's transaction):
        ``changes``, one dict per fact (``stats_sql.CLASS_DELTA_COLUMNS``); the median of the
        children's median times is taken again from the row's ``medians``. One upsert."""
        if not changes:
            return 0
        vendor, tables = connections[self.db].vendor, table_names()
        sql = stats_sql.class_delta(vendor, tables)
        payload = json.dumps(changes)
        return insert_select(self, sql, [payload, classroom_id, db_now(self)])


class ClassFactStat(FactFigures):
    """A class's roll-up for one fact (commuted facts together: a ≤ b)."""

    # No index of its own: the unique (classroom, a, b) constraint's index serves it.
    classroom = models.ForeignKey(
        "classroom.Classroom", on_delete=models.CASCADE, related_name="fact_stats", db_index=False
    )
    children = models.PositiveIntegerField(default=0)  # children with attempts
    struggling = models.PositiveIntegerField(default=0)  # children still learning it
    wrong_answers = models.JSONField(default=dict, blank=True)
    # Each child's median time of each order of the fact, {"child:a:b": ms or null}: what
    # median_ms is the median of, kept so that a child's game updates it without reading
    # the classmates' FactStat rows (stats_sql.class_delta).
    medians = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ClassFactStatQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["classroom", "a", "b"], name="one_stat_per_class_fact")
        ]

    def __str__(self):
        return f"{self.classroom_id}: {self.a}×{self.b}"


class DailyTrendQuerySet(models.QuerySet):
    def rebuild_for_school(self, school, first=None, last=None) -> int:
        """Rebuild a school's trend rows (each child, each class, the school) for the local
        days ``first``..``last`` (every day when both are None). A day runs from midnight to
        midnight in the school's time zone. The children's rows come from their attempts
        (one GROUP BY); a class's and the school's add up their children's rows of the same
        day. Three ``INSERT … SELECT``, nothing through Python."""
        from classroom.models import School
        from classroom.models import Student

        # Only counted attempts: one not yet applied is added by the incremental path.
        attempts = Attempt.objects.filter(student__classroom__school=school, stats_applied=True)
        existing = self.all()
        if first is not None:
            attempts = attempts.filter(
                created_at__gte=school.day_start(first),
                created_at__lt=school.day_start(last + timedelta(days=1)),
            )
            existing = existing.filter(day__gte=first, day__lte=last)
        written = 0
        with transaction.atomic(using=self.db):
            no_jit(self)
            lock_rows(School, [school.pk])
            existing.filter(
                Q(
                    scope=DailyTrend.Scope.STUDENT,
                    scope_id__in=Student.objects.filter(classroom__school=school).values("pk"),
                )
                | self._rollup_rows(school)
            ).delete()
            written += self._insert_children(school, attempts)
            written += self._insert_rollups(school, first, last)
        return written

    def rebuild_children(self, student_ids) -> int:
        """Every day's rows of these children (a full recompute does them batch by batch, in
        the batch's transaction, then each school's ``rebuild_rollups``)."""
        written = 0
        with transaction.atomic(using=self.db):
            no_jit(self)
            for school, ids in self.clear_children(student_ids):
                attempts = Attempt.objects.filter(student_id__in=ids)
                written += self._insert_children(school, attempts)
        return written

    def clear_children(self, student_ids) -> list:
        """Delete every trend row of these children, in the caller's transaction, under a
        share lock on their schools: batches of one school run side by side, and a school's
        own rebuild (a game's end) waits for them. Returns (school, their children's ids)
        for each school, in order."""
        from classroom.models import School

        groups = self.children_by_school(student_ids)
        lock_rows(School, [school.pk for school, _ids in groups], share=True)
        self.filter(scope=DailyTrend.Scope.STUDENT, scope_id__in=student_ids).delete()
        return groups

    def children_by_school(self, student_ids) -> list:
        """(school, its children's ids among these) for each school, in order. Two queries."""
        from classroom.models import School
        from classroom.models import Student

        schools: dict[int, list[int]] = {}
        for pk, school_id in Student.objects.filter(pk__in=student_ids).values_list(
            "pk", "classroom__school_id"
        ):
            schools.setdefault(school_id, []).append(pk)
        return [
            (school, sorted(schools[school.pk]))
            for school in School.objects.filter(pk__in=schools).order_by("pk")
        ]

    def rebuild_rollups(self, school) -> int:
        """Every day's rows of a school's classes and of the school, from its children's
        rows (after ``rebuild_children``)."""
        from classroom.models import School

        with transaction.atomic(using=self.db):
            no_jit(self)
            lock_rows(School, [school.pk])
            self.filter(self._rollup_rows(school)).delete()
            return self._insert_rollups(school, None, None)

    @staticmethod
    def _rollup_rows(school) -> Q:
        """The rows of a school's classes and of the school itself."""
        from classroom.models import Classroom

        return Q(
            scope=DailyTrend.Scope.CLASSROOM,
            scope_id__in=Classroom.objects.filter(school=school).values("pk"),
        ) | Q(scope=DailyTrend.Scope.SCHOOL, scope_id=school.pk)

    def _insert_children(self, school, attempts) -> int:
        """INSERT the children's rows of these attempts, grouped by child and local day."""
        children = (
            attempts.annotate(day=TruncDate("created_at", tzinfo=school.zone))
            .values("day", "student_id")
            .annotate(n=Count("pk"), n_right=Count("pk", filter=Q(correct=True)))
            .order_by()
        )
        select, params = children.query.sql_with_params()
        return insert_select(
            self,
            f"INSERT INTO {table_names()['trend']} (scope, scope_id, day, attempts, correct) "  # noqa: S608
            f"SELECT %s, q.student_id, q.day, q.n, q.n_right FROM ({select}) q",
            [DailyTrend.Scope.STUDENT.value, *params],
        )

    def _insert_rollups(self, school, first, last) -> int:
        """INSERT the rows of the school's classes and of the school for the days
        ``first``..``last`` (every day when None) from its children's rows."""
        connection = connections[self.db]
        vendor, tables, ops = connection.vendor, table_names(), connection.ops
        days, day_params = "", []
        if first is not None:
            days = "AND r.day >= %s AND r.day <= %s"
            day_params = [ops.adapt_datefield_value(first), ops.adapt_datefield_value(last)]
        written = 0
        for scope, column in (
            (DailyTrend.Scope.CLASSROOM, "s.classroom_id"),
            (DailyTrend.Scope.SCHOOL, "c.school_id"),
        ):
            written += insert_select(
                self,
                stats_sql.trend_rollup(vendor, tables, scope.value, column, days),
                [DailyTrend.Scope.STUDENT.value, school.pk, *day_params],
            )
        return written

    def rebuild_recent(self, now=None) -> None:
        """Yesterday and today in every school's own time zone (the nightly roll-up)."""
        from classroom.models import School

        for school in School.objects.all():
            today = school.local_today(now)
            self.rebuild_for_school(school, today - timedelta(days=1), today)


class DailyTrend(models.Model):
    """Attempts and accuracy per day, for a child, a class or a school (trend charts)."""

    class Scope(models.TextChoices):
        STUDENT = "student"
        CLASSROOM = "classroom"
        SCHOOL = "school"

    scope = models.CharField(max_length=10, choices=Scope.choices)
    scope_id = models.PositiveBigIntegerField()
    day = models.DateField()
    attempts = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)

    objects = DailyTrendQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["scope", "scope_id", "day"], name="one_trend_per_day")
        ]

    def __str__(self):
        return f"{self.scope} {self.scope_id} {self.day}"
