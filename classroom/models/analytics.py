"""Evidence and statistics about times-table facts (see docs/analytics.md).

Attempts are written with the move that made them (``Attempt.objects.record_move``). Every
statistic is *rebuilt* from the attempts, never incremented, so running a rebuild twice gives
the same rows (what makes the Celery tasks idempotent and safe to redeliver):
``FactStat.objects.rebuild_for(student_ids)``, ``ClassFactStat.objects.rebuild_for(class_ids)``,
``DailyTrend.objects.rebuild_for_school(school, first_day, last_day)``, ``RecomputeJob.run()``.
The judgement (mastery, kinds of error, focus facts) stays in the pure ``classroom.diagnosis``.
"""

import statistics
from datetime import timedelta
from itertools import groupby

from django.conf import settings
from django.db import models, transaction
from django.db.backends.signals import connection_created
from django.db.models import Case, Count, F, Max, Q, When, Window
from django.db.models.functions import Greatest, Least, RowNumber, TruncDate
from django.dispatch import receiver
from django.utils import timezone

from classroom import diagnosis

BULK = 2000  # rows per INSERT


# --- SQL helpers ---------------------------------------------------------------------------


class Median(models.Aggregate):
    """The median of a column (NULLs ignored): PERCENTILE_CONT on PostgreSQL, the MEDIAN
    aggregate registered below on SQLite. Both average the two middle values."""

    function = "MEDIAN"
    name = "Median"
    output_field = models.FloatField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            function="PERCENTILE_CONT",
            template="%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)",
            **extra,
        )


class _SQLiteMedian:
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


def _int(value):
    return None if value is None else int(value)


def _latest(queryset, partition):
    """The latest ``diagnosis.RECENT`` attempts of every partition (a window query)."""
    return queryset.annotate(
        recent_rank=Window(
            RowNumber(), partition_by=partition, order_by=[F("created_at").desc(), F("pk").desc()]
        )
    ).filter(recent_rank__lte=diagnosis.RECENT)


def _evidence(rows):
    """(correct, response_ms, context, accuracy_first) rows, oldest first → mastery input.
    Time decides the state only when none of the counted attempts was played in an
    "accuracy first" session (speed promised not to count is never scored)."""
    attempts = [
        diagnosis.Attempt(correct=c, ms=ms, omission=ctx == Attempt.Context.MISSED)
        for c, ms, ctx, _af in rows
    ]
    use_time = not any(af for *_rest, af in rows)
    return diagnosis.mastery(attempts, use_time=use_time)


def _lock(model, ids):
    """Serialise rebuilds of the same rows (PostgreSQL row locks; SQLite's write lock is
    taken by the IMMEDIATE transaction already)."""
    list(model.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk"))


# --- evidence ------------------------------------------------------------------------------


class AttemptQuerySet(models.QuerySet):
    def record_move(self, match, move) -> list:
        """Store the ``fact`` events of ``move`` made by a child's seat, in the caller's
        transaction, with one INSERT. No query at all when the move has no fact, and none
        for the seats when the caller prefetched them."""
        facts = [e for e in move.events if e.get("kind") == "fact"]
        if not facts:
            return []
        children = {
            seat.number: seat.student_id
            for seat in match.seats.all()
            if seat.kind == "student" and seat.student_id
        }
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
                home=False,
                created_at=move.created_at,
            )
            for fact in facts
            if fact.get("seat") in children
        ]
        return self.bulk_create(rows) if rows else []

    def with_accuracy_first(self):
        return self.annotate(
            accuracy_first=Case(
                When(match__assignment__accuracy_first=True, then=True),
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

    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="attempts"
    )
    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="attempts")
    move = models.ForeignKey("games.Move", on_delete=models.CASCADE, related_name="attempts")
    a = models.PositiveSmallIntegerField()  # factors in the order the child named them
    b = models.PositiveSmallIntegerField()
    answer = models.PositiveIntegerField(null=True, blank=True)  # None: a missed capture
    correct = models.BooleanField()
    kind = models.CharField(max_length=12)  # classroom.diagnosis.classify
    context = models.CharField(max_length=12, choices=Context.choices)
    response_ms = models.PositiveIntegerField(null=True, blank=True)
    home = models.BooleanField(default=False)  # played at home (family night), not in class
    created_at = models.DateTimeField()

    objects = AttemptQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        indexes = [
            models.Index(fields=["student", "a", "b"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self):
        return f"{self.student_id}: {self.a}×{self.b}={self.answer} ({self.kind})"


class FactStatQuerySet(models.QuerySet):
    def rebuild_for(self, student_ids) -> int:
        """Rebuild these children's rows from all their attempts (delete + insert in one
        transaction). Counts are all-time; the state and median time come from
        ``diagnosis.mastery`` over the latest ten attempts. Five queries whatever the number
        of children. Returns the number of rows written."""
        student_ids = sorted(set(student_ids))
        if not student_ids:
            return 0
        attempts = Attempt.objects.filter(student_id__in=student_ids)
        with transaction.atomic():
            from classroom.models import Student

            _lock(Student, student_ids)
            totals = attempts.values("student_id", "a", "b").annotate(
                n=Count("pk"),
                right=Count("pk", filter=Q(correct=True)),
                missed=Count("pk", filter=Q(answer__isnull=True)),
                last=Max("created_at"),
            )
            wrong = (
                attempts.filter(correct=False)
                .values_list("student_id", "a", "b", "answer")
                .annotate(n=Count("pk"))
            )
            errors, answers = {}, {}
            for sid, a, b, answer, n in wrong:
                key = (sid, a, b)
                kinds = errors.setdefault(key, dict.fromkeys(diagnosis.ERROR_KINDS, 0))
                kinds[diagnosis.classify(a, b, answer)] += n  # the kinds of error_profile
                if answer is not None:
                    answers.setdefault(key, {})[str(answer)] = n
            recent = (
                _latest(attempts.with_accuracy_first(), [F("student_id"), F("a"), F("b")])
                .order_by("student_id", "a", "b", "created_at", "pk")
                .values_list("student_id", "a", "b", "correct", "response_ms", "context",
                             "accuracy_first")
            )  # fmt: skip
            states = {
                key: _evidence([row[3:] for row in rows])
                for key, rows in groupby(recent, key=lambda row: row[:3])
            }
            rows = []
            for t in totals:
                key = (t["student_id"], t["a"], t["b"])
                m = states[key]
                rows.append(
                    FactStat(
                        student_id=key[0],
                        a=key[1],
                        b=key[2],
                        attempts=t["n"],
                        correct=t["right"],
                        omissions=t["missed"],
                        median_ms=m.median_ms,
                        state=m.state,
                        errors=errors.get(key, dict.fromkeys(diagnosis.ERROR_KINDS, 0)),
                        wrong_answers=answers.get(key, {}),
                        last_attempt_at=t["last"],
                    )
                )
            self.filter(student_id__in=student_ids).delete()
            self.bulk_create(rows, batch_size=BULK)
        return len(rows)

    def update_for_match(self, match_id, *, trends=True) -> None:
        """After a match ends: its children's facts, their classes' roll-ups and (unless
        ``trends`` is False: the game-end task sends them on as a task of their own, so the
        heatmap does not wait for them) the trends of the days the match was played."""
        from classroom.models import Student
        from games.models import Match

        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            return
        children = list(
            Student.objects.filter(seats__match=match)
            .select_related("classroom__school")
            .distinct()
        )
        if not children:
            return
        self.rebuild_for([c.pk for c in children])
        ClassFactStat.objects.rebuild_for({c.classroom_id for c in children})
        if trends:
            DailyTrend.objects.update_for_match(match, children)

    def rebuild_recent_players(self, now=None) -> int:
        """Rebuild the children who made an attempt in the last two days (in batches)."""
        since = (now or timezone.now()) - timedelta(days=2)
        ids = sorted(
            set(Attempt.objects.filter(created_at__gte=since).values_list("student_id", flat=True))
        )
        for i in range(0, len(ids), 100):
            self.rebuild_for(ids[i : i + 100])
        return len(ids)

    def focus_facts(self, limit: int = 3) -> list[tuple[int, int]]:
        """``diagnosis.focus_facts`` over these rows (one child's): the facts to practise."""
        states = {}
        for stat in self.filter(state=diagnosis.LEARNING):
            accuracy = stat.correct / stat.attempts if stat.attempts else None
            states[(stat.a, stat.b)] = diagnosis.Mastery(
                stat.state, stat.attempts, accuracy, stat.median_ms, stat.omissions
            )
        return diagnosis.focus_facts(states, limit)


class FactStat(models.Model):
    """A child's statistics for one fact as asked (a × b, order kept); rebuilt from attempts."""

    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="fact_stats"
    )
    a = models.PositiveSmallIntegerField()
    b = models.PositiveSmallIntegerField()
    attempts = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)
    omissions = models.PositiveIntegerField(default=0)
    median_ms = models.PositiveIntegerField(null=True, blank=True)
    state = models.CharField(max_length=10)  # classroom.diagnosis.STATES
    errors = models.JSONField(default=dict, blank=True)  # {"operand": 2, ...}
    wrong_answers = models.JSONField(default=dict, blank=True)  # {"48": 3, ...}
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = FactStatQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["student", "a", "b"], name="one_stat_per_child_fact")
        ]

    def __str__(self):
        return f"{self.student_id}: {self.a}×{self.b} {self.state}"


class ClassFactStatQuerySet(models.QuerySet):
    def rebuild_for(self, classroom_ids) -> int:
        """Rebuild these classes' roll-ups from the attempts of their children (archived
        children too), a fact and its twin together (a ≤ b). ``children``: children with
        attempts; ``struggling``: children whose combined state (mastery over their latest ten
        attempts of either order) is learning; ``median_ms``: the median time of the right
        answers among those counted attempts. Four queries whatever the size."""
        classroom_ids = sorted(set(classroom_ids))
        if not classroom_ids:
            return 0
        attempts = Attempt.objects.filter(student__classroom_id__in=classroom_ids).annotate(
            lo=Least("a", "b"), hi=Greatest("a", "b"), classroom_id=F("student__classroom_id")
        )
        with transaction.atomic():
            from classroom.models import Classroom

            _lock(Classroom, classroom_ids)
            totals = attempts.values("classroom_id", "lo", "hi").annotate(
                n=Count("pk"),
                right=Count("pk", filter=Q(correct=True)),
                missed=Count("pk", filter=Q(answer__isnull=True)),
            )
            answers = {}
            wrong = (
                attempts.filter(correct=False, answer__isnull=False)
                .values_list("classroom_id", "lo", "hi", "answer")
                .annotate(n=Count("pk"))
            )
            for cid, lo, hi, answer, n in wrong:
                answers.setdefault((cid, lo, hi), {})[str(answer)] = n
            recent = (
                _latest(attempts.with_accuracy_first(), [F("student_id"), F("lo"), F("hi")])
                .order_by("classroom_id", "lo", "hi", "student_id", "created_at", "pk")
                .values_list("classroom_id", "lo", "hi", "student_id", "correct", "response_ms",
                             "context", "accuracy_first")
            )  # fmt: skip
            rollups = {}
            for key, fact_rows in groupby(recent, key=lambda row: row[:3]):
                children = struggling = 0
                times = []
                for _sid, rows in groupby(fact_rows, key=lambda row: row[3]):
                    rows = [row[4:] for row in rows]
                    children += 1
                    struggling += _evidence(rows).state == diagnosis.LEARNING
                    times += [ms for correct, ms, *_ in rows if correct and ms is not None]
                median = int(statistics.median(times)) if times else None
                rollups[key] = (children, struggling, median)
            rows = []
            for t in totals:
                key = (t["classroom_id"], t["lo"], t["hi"])
                children, struggling, median = rollups[key]
                rows.append(
                    ClassFactStat(
                        classroom_id=key[0],
                        a=key[1],
                        b=key[2],
                        attempts=t["n"],
                        correct=t["right"],
                        omissions=t["missed"],
                        median_ms=median,
                        children=children,
                        struggling=struggling,
                        wrong_answers=answers.get(key, {}),
                    )
                )
            self.filter(classroom_id__in=classroom_ids).delete()
            self.bulk_create(rows, batch_size=BULK)
        return len(rows)


class ClassFactStat(models.Model):
    """A class's roll-up for one fact (commuted facts together: a ≤ b)."""

    classroom = models.ForeignKey(
        "classroom.Classroom", on_delete=models.CASCADE, related_name="fact_stats"
    )
    a = models.PositiveSmallIntegerField()
    b = models.PositiveSmallIntegerField()
    attempts = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)
    omissions = models.PositiveIntegerField(default=0)
    median_ms = models.PositiveIntegerField(null=True, blank=True)
    children = models.PositiveIntegerField(default=0)  # children with attempts
    struggling = models.PositiveIntegerField(default=0)  # children still learning it
    wrong_answers = models.JSONField(default=dict, blank=True)
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
    def update_for_match(self, match, children=None) -> None:
        """The trends of the days a match was played, in the schools of its children."""
        from classroom.models import Student

        if children is None:
            children = list(
                Student.objects.filter(seats__match=match)
                .select_related("classroom__school")
                .distinct()
            )
        end = match.finished_at or timezone.now()
        for school in {c.classroom.school_id: c.classroom.school for c in children}.values():
            self.rebuild_for_school(
                school, school.local_today(match.created_at), school.local_today(end)
            )

    def rebuild_for_school(self, school, first=None, last=None) -> int:
        """Rebuild a school's trend rows (each child, each class, the school) for the local
        days ``first``..``last`` (every day when both are None). A day runs from midnight to
        midnight in the school's time zone. Three GROUP BY queries."""
        from classroom.models import Classroom, School, Student

        attempts = Attempt.objects.filter(student__classroom__school=school)
        existing = self.all()
        if first is not None:
            attempts = attempts.filter(
                created_at__gte=school.day_start(first),
                created_at__lt=school.day_start(last + timedelta(days=1)),
            )
            existing = existing.filter(day__gte=first, day__lte=last)
        attempts = attempts.annotate(day=TruncDate("created_at", tzinfo=school.zone))
        figures = {
            "attempts": Count("pk"),
            "right": Count("pk", filter=Q(correct=True)),
            "median": Median(Case(When(correct=True, then="response_ms"))),
        }
        scopes = [
            (DailyTrend.Scope.STUDENT, "student_id"),
            (DailyTrend.Scope.CLASSROOM, "student__classroom_id"),
        ]
        rows = []
        with transaction.atomic():
            _lock(School, [school.pk])
            for scope, column in scopes:
                for r in attempts.values("day", column).annotate(**figures).order_by():
                    rows.append(self._row(scope, r[column], r))
            for r in attempts.values("day").annotate(**figures).order_by():
                rows.append(self._row(DailyTrend.Scope.SCHOOL, school.pk, r))
            children = Student.objects.filter(classroom__school=school).values("pk")
            classes = Classroom.objects.filter(school=school).values("pk")
            existing.filter(
                Q(scope=DailyTrend.Scope.STUDENT, scope_id__in=children)
                | Q(scope=DailyTrend.Scope.CLASSROOM, scope_id__in=classes)
                | Q(scope=DailyTrend.Scope.SCHOOL, scope_id=school.pk)
            ).delete()
            self.bulk_create(rows, batch_size=BULK)
        return len(rows)

    @staticmethod
    def _row(scope, scope_id, r):
        return DailyTrend(
            scope=scope,
            scope_id=scope_id,
            day=r["day"],
            attempts=r["attempts"],
            correct=r["right"],
            median_ms=_int(r["median"]),
        )

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
    median_ms = models.PositiveIntegerField(null=True, blank=True)

    objects = DailyTrendQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["scope", "scope_id", "day"], name="one_trend_per_day")
        ]

    def __str__(self):
        return f"{self.scope} {self.scope_id} {self.day}"


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
        done. Each batch of children is rebuilt and counted in the same transaction, so
        ``done`` is exactly the work committed. ``progress(done, total)`` is called as it goes."""
        from classroom.models import Classroom, School

        if self.status not in (self.Status.QUEUED, self.Status.RUNNING):
            return
        ids = list(self.children().values_list("pk", flat=True))
        start = self.done if self.status == self.Status.RUNNING else 0
        start = min(start, len(ids))
        self.status, self.total, self.done = self.Status.RUNNING, len(ids), start
        self.save(update_fields=["status", "total", "done"])
        if progress:
            progress(self.done, self.total)
        try:
            step = max(1, min(100, len(ids) // 20))
            for i in range(start, len(ids), step):
                batch = ids[i : i + step]
                with transaction.atomic():
                    FactStat.objects.rebuild_for(batch)
                    self.done = i + len(batch)
                    RecomputeJob.objects.filter(pk=self.pk).update(done=self.done)
                if progress:
                    progress(self.done, self.total)
            classes = Classroom.objects.all()
            if self.classroom_id is not None:
                classes = classes.filter(pk=self.classroom_id)
            ClassFactStat.objects.rebuild_for(classes.values_list("pk", flat=True))
            for school in School.objects.filter(classrooms__in=classes).distinct():
                DailyTrend.objects.rebuild_for_school(school)
        except Exception:
            self.finish(self.Status.FAILED)
            raise
        self.finish(self.Status.DONE)

    def finish(self, status) -> None:
        self.status, self.finished_at = status, timezone.now()
        self.save(update_fields=["status", "finished_at"])
