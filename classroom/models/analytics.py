"""Evidence and statistics about times-table facts (see docs/analytics.md)."""

from django.conf import settings
from django.db import models


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

    class Meta:
        app_label = "classroom"
        indexes = [
            models.Index(fields=["student", "a", "b"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self):
        return f"{self.student_id}: {self.a}×{self.b}={self.answer} ({self.kind})"


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

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["student", "a", "b"], name="one_stat_per_child_fact")
        ]

    def __str__(self):
        return f"{self.student_id}: {self.a}×{self.b} {self.state}"


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

    class Meta:
        app_label = "classroom"
        constraints = [
            models.UniqueConstraint(fields=["classroom", "a", "b"], name="one_stat_per_class_fact")
        ]

    def __str__(self):
        return f"{self.classroom_id}: {self.a}×{self.b}"


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
