"""The potion warm-up: a short quick-fire round of typed times-table answers before a game
(docs/classroom/warm-up.md). Each answer is an ``Attempt`` with context ``warm-up``."""

from django.db import models


class WarmUp(models.Model):
    """One round of warm-up questions for one child, in a session or at home."""

    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="warm_ups"
    )
    assignment = models.ForeignKey(
        "classroom.Assignment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="warm_ups",
    )
    home = models.BooleanField(default=False)  # done at home, not in a session
    timed = models.BooleanField(default=True)  # False: an "accuracy first" session's round
    seconds = models.PositiveSmallIntegerField(default=60)  # the round's length
    facts = models.JSONField(default=list)  # [[a, b], ...]: the questions in the order asked
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    skipped = models.BooleanField(default=False)  # ended by the teacher's "skip"
    stats_at = models.DateTimeField(null=True, blank=True)  # statistics rebuilt after the end

    class Meta:
        app_label = "classroom"
        indexes = [models.Index(fields=["student", "-started_at"])]

    def __str__(self):
        return f"warm-up {self.pk} of {self.student_id}"
