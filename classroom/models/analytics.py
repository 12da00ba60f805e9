"""Evidence and what it says about times-table facts (docs/analytics.md, "Pipeline").

Attempts are written with the move (or the warm-up answer) that made them
(``Attempt.objects.record_move``). The knowledge model (``classroom.knowledge``, a pure fold
over a child's attempts in time order) is kept in each child's ``FactStat`` rows: the live
update folds a child's attempts not yet counted (``Attempt.stats_applied``, the idempotency
record) into them (``FactStat.objects.apply_pending``, knowledge_store.py); the repair
replays every attempt (``FactStat.objects.rebuild_for``, and a whole rebuild with progress,
``RecomputeJob.run()``). ``DailyTrend`` counts the attempts of each local day, for the trend
charts. SQL reads and writes the rows; the rules are in ``classroom.knowledge`` and
``classroom.error_kinds``.
"""

from datetime import timedelta

from django.db import connections
from django.db import models
from django.db import transaction
from django.db.models import Count
from django.db.models import Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from classroom import error_kinds
from classroom import knowledge
from games.models import Match

from .child_seat import student_pk_of
from .rebuild_sql import insert_select
from .rebuild_sql import lock_rows
from .rebuild_sql import no_jit
from .rebuild_sql import table_names

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
        children = {seat.number: pk for seat in match.seat_list() if (pk := student_pk_of(seat))}
        rows = [
            Attempt(
                student_id=children[fact["seat"]],
                match_id=match.pk,
                move=move,
                a=fact["a"],
                b=fact["b"],
                answer=fact["answer"],
                correct=bool(fact["correct"]),
                kind=error_kinds.classify(
                    fact["a"],
                    fact["b"],
                    fact["answer"],
                    context=fact["context"],
                    options=fact.get("options"),
                ),
                context=fact["context"],
                options=fact.get("options"),
                response_ms=None if fact["context"] == Attempt.Context.MISSED else move.think_ms,
                home=match.family,  # a family-night game: played at home
                created_at=move.created_at,
            )
            for fact in facts
            if fact.get("seat") in children
        ]
        return self.bulk_create(rows) if rows else []


class Attempt(models.Model):
    """One multiplication a child asserted or missed, stored with the move that made it."""

    class Context(models.TextChoices):
        CAPTURE = "capture"
        CHALLENGE = "challenge"
        MISSED = "missed"
        WARM_UP = "warm-up"  # typed on the warm-up's number pad (classroom.models.warmup)
        # A claim after being caught for a missed capture: stored, marked, and not evidence
        # of the pair tapped (the child must capture and may tap at random).
        FORCED = "forced"

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
    kind = models.CharField(max_length=12)  # classroom.error_kinds.classify
    context = models.CharField(max_length=12, choices=Context.choices)
    # A claim in a game: the values of the monsters the child could tap then (the board),
    # what its kind is weighed against (classroom.error_kinds.classify).
    options = models.JSONField(null=True, blank=True)
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
    # --- the live update (normal operation: knowledge_store.py) ----------------------------
    def apply_pending(self, student_ids) -> int:
        """Count these children's attempts not yet counted into their statistics: the fold of
        the knowledge model over their rows and the days' trend rows, one transaction per
        child that also marks the attempts applied (idempotent, safe under concurrent tasks,
        ``knowledge_store.apply_child``). Returns the attempts applied."""
        from .knowledge_store import apply_child

        return sum(apply_child(pk, using=self.db) for pk in sorted(set(student_ids)))

    def apply_all_pending(self, *, settled=None) -> int:
        """Every child with attempts not yet counted (games still going, abandoned matches,
        lost tasks): what the minute's sweep and the nightly run fall back on. ``settled``:
        only the children with a pending attempt made before it (a child whose only pending
        attempts are younger waits for the next sweep: their move may still be committing);
        each child found has all their pending attempts counted."""
        pending = Attempt.objects.filter(stats_applied=False)
        if settled is not None:
            pending = pending.filter(created_at__lt=settled)
        return self.apply_pending(set(pending.values_list("student_id", flat=True)))

    def update_for_match(self, match_id) -> int:
        """After a match ends: its children's pending attempts counted (``apply_pending``).
        Returns the attempts applied (0 when the match is gone or already counted)."""
        from classroom.models import ChildSeat

        ids = ChildSeat.objects.filter(seat__match_id=match_id).values_list("student_id", flat=True)
        return self.apply_pending(set(ids))

    # --- the full rebuild (repair only) ----------------------------------------------------
    def rebuild_for(self, student_ids) -> int:
        """Rebuild these children's rows by replaying every attempt of theirs through the
        knowledge model's fold (``knowledge_store.rebuild_children``), with every day of their
        own trend rows, and mark every attempt of theirs applied: a repair (rules changed, an
        import, a hard delete, the teacher's button). The rows are exactly those the live
        update writes. The schools' trend roll-ups are the caller's (``repair``). Returns
        the FactStat rows written."""
        from .knowledge_store import rebuild_children

        student_ids = sorted(set(student_ids))
        if not student_ids:
            return 0
        with transaction.atomic(using=self.db):
            written = rebuild_children(student_ids, using=self.db)
            DailyTrend.objects.using(self.db).rebuild_children(student_ids)
        return written

    def repair(self, student_ids, classroom_ids=()) -> None:
        """A full rebuild of these children, then the class and school trend rows of their
        classes' schools and of ``classroom_ids``' schools."""
        from classroom.models import Classroom
        from classroom.models import School
        from classroom.models import Student

        self.rebuild_for(student_ids)
        classes = set(classroom_ids) | set(
            Student.objects.filter(pk__in=student_ids).values_list("classroom_id", flat=True)
        )
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

    def orders(self) -> dict:
        """These rows (one child's) as the knowledge model's state, ``{(a, b): Order}``."""
        from .knowledge_store import orders_of

        return orders_of(self)

    def focus_facts(self, limit: int = 3, now=None) -> list[tuple[int, int]]:
        """``knowledge.focus`` over these rows (one child's): the facts to practise, the
        least known first, one per fact and its twin (the weaker order)."""
        return knowledge.focus(self.orders(), now or timezone.now(), limit)


class FactStat(models.Model):
    """A child's evidence and knowledge of one fact as asked (a × b, order kept): counts of
    the attempts, and the knowledge model's state (``classroom.knowledge.Order``)."""

    # No index of its own: the unique (student, a, b) constraint's index serves it.
    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="fact_stats", db_index=False
    )
    a = models.PositiveSmallIntegerField()
    b = models.PositiveSmallIntegerField()
    attempts = models.PositiveIntegerField(default=0)  # answers and missed captures
    correct = models.PositiveIntegerField(default=0)
    omissions = models.PositiveIntegerField(default=0)  # missed captures
    forced = models.PositiveIntegerField(default=0)  # taps after being caught: not evidence
    median_ms = models.PositiveIntegerField(null=True, blank=True)  # the model's speed
    # The knowledge model's P(knows it) just after the latest evidence (before forgetting:
    # ``knowledge.p_now`` applies it), and its whole state (``knowledge.Order.to_json``).
    p_known = models.FloatField(default=0.0)
    model = models.JSONField(default=dict, blank=True)
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
        return f"{self.student_id}: {self.a}×{self.b} p={self.p_known:.2f}"

    @property
    def order(self):
        """The knowledge model's state of this fact as asked."""
        return knowledge.Order.from_json(self.model)


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
            attempts.exclude(context=Attempt.Context.FORCED)
            .annotate(day=TruncDate("created_at", tzinfo=school.zone))
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
        tables, ops = table_names(), connection.ops
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
                _trend_rollup(tables, scope.value, column, days),
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


def _trend_rollup(t: dict, scope: str, column: str, days: str) -> str:
    """INSERT the trend rows of a wider scope (a class or the school) from its children's
    rows of the same days: sums. Parameters: the children's scope, the school, then those of
    ``days`` (a condition on ``r.day``). ``column``: the SQL of the wider scope's id."""
    return f"""
INSERT INTO {t["trend"]} (scope, scope_id, day, attempts, correct)
SELECT '{scope}', {column}, r.day, SUM(r.attempts), SUM(r.correct)
FROM {t["trend"]} r JOIN {t["student"]} s ON s.id = r.scope_id
JOIN {t["classroom"]} c ON c.id = s.classroom_id
WHERE r.scope = %s AND c.school_id = %s {days}
GROUP BY {column}, r.day
"""  # noqa: S608 (table names and constants; values are parameters)
