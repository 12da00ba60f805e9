from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AssignmentQuerySet(models.QuerySet):
    def for_teacher(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(classroom__teacher=user)


class Assignment(models.Model):
    """A MultipliPotion session a teacher sets for a class, some groups or some children."""

    class Tier(models.TextChoices):
        GREEN = "green", _("Green: tables 2 to 5")
        PURPLE = "purple", _("Purple: tables 6 to 9")
        FULL = "full", _("Rainbow: tables 2 to 9")

    class Opponents(models.TextChoices):
        CLASSMATES = "classmates", _("Classmates, paired automatically")
        BOT = "bot", _("The computer")
        CLASSMATES_THEN_BOT = "classmates_then_bot", _("Classmates, or the computer after 20 s")

    class Target(models.TextChoices):
        GAMES = "games", _("games")
        MINUTES = "minutes", _("minutes")

    class Status(models.TextChoices):
        LIVE = "live", _("Live")
        PAUSED = "paused", _("Paused")
        ENDED = "ended", _("Ended")

    classroom = models.ForeignKey(
        "classroom.Classroom", on_delete=models.CASCADE, related_name="assignments"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    title = models.CharField(_("title"), max_length=80)
    tier = models.CharField(_("tables"), max_length=10, choices=Tier.choices, default=Tier.GREEN)
    # Per-child tier where needed: {"<student id>": "purple"}.
    tier_overrides = models.JSONField(default=dict, blank=True)
    opponents = models.CharField(
        _("opponents"),
        max_length=24,
        choices=Opponents.choices,
        default=Opponents.CLASSMATES_THEN_BOT,
    )
    bot_level = models.CharField(_("computer level"), max_length=20, default="apprentice")
    target_kind = models.CharField(max_length=10, choices=Target.choices, default=Target.GAMES)
    target_value = models.PositiveSmallIntegerField(_("target"), default=3)
    opens_at = models.DateTimeField(_("opens at"))
    closes_at = models.DateTimeField(_("closes at"), null=True, blank=True)
    # Speed is recorded but never shown or scored.
    accuracy_first = models.BooleanField(_("accuracy first"), default=False)
    # Empty groups and students: the whole class.
    groups = models.ManyToManyField("classroom.Group", blank=True, related_name="assignments")
    students = models.ManyToManyField("classroom.Student", blank=True, related_name="assignments")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        ordering = ["-opens_at"]

    def __str__(self):
        return self.title


class WaitingEntry(models.Model):
    """A child in the waiting room of an assignment, until paired (or given the computer)."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="waiting")
    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="waiting"
    )
    tier = models.CharField(max_length=10)
    created_at = models.DateTimeField(auto_now_add=True)
    match = models.ForeignKey(
        "games.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        app_label = "classroom"
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "student"], name="one_waiting_entry_per_child"
            ),
        ]

    def __str__(self):
        return f"{self.student} waiting in {self.assignment}"
