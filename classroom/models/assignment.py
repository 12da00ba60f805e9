"""Assignments (the sessions a teacher sets), their progress, and pairing in the waiting room.

Pairing rules (docs/classroom/sessions.md):
- children with the same tier are paired, the two who have waited longest first;
- opponents "the computer": a computer match at once;
- "classmates, or the computer after 20 s": a child alone for 20 s plays the computer;
- "classmates" only: nobody waits forever, so a child alone for 60 s plays the computer too;
- a child whose waiting room has not been seen for a while (tab closed, lid shut) is
  taken out of the queue instead of being paired with somebody who is not there.
"""

from django.conf import settings
from django.core.cache import cache
from django.db import models
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext
from django.utils.translation import pgettext_lazy

from classroom import live
from games.models import Match
from games.models import Seat

# Seconds a lone child waits before the computer joins.
BOT_FALLBACK_AFTER = 20
CLASSMATES_ONLY_FALLBACK_AFTER = 60
# A waiting room polls every 2 s; an entry not seen for this long is somebody who left.
WAITING_PRESENCE = 12

BOT_LEVELS = {
    "apprentice": _("Apprentice Pip"),
    "wizard": _("Grand Wizard Zed"),
    # Puts the child's weakest facts (their focus facts) in front of them.
    "coach": _("Coach Luna"),
}

LIVE_MATCH_STATUSES = ("active", "waiting")


class AssignmentQuerySet(models.QuerySet):
    def for_teacher(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(classroom__teacher=user)

    def not_ended(self):
        return self.filter(status__in=["live", "paused"])

    def open_now(self):
        now = timezone.now()
        return self.filter(status__in=["live", "paused"], opens_at__lte=now).filter(
            models.Q(closes_at__isnull=True) | models.Q(closes_at__gt=now)
        )

    def for_student(self, student):
        """Assignments set for this child: the whole class, one of the child's groups, or
        the child by name."""
        whole_class = models.Q(groups__isnull=True, students__isnull=True)
        mine = whole_class | models.Q(students=student)
        if student.group_id:
            mine |= models.Q(groups=student.group_id)
        return self.filter(classroom_id=student.classroom_id).filter(mine).distinct()

    def end(self) -> int:
        """End these assignments: their live matches are abandoned and nobody waits any more.
        Returns the number of assignments ended."""

        now = timezone.now()
        with transaction.atomic():
            ended = list(self.not_ended().values_list("pk", "classroom_id"))
            ids = [pk for pk, _classroom_id in ended]
            for classroom_id in {classroom_id for _pk, classroom_id in ended}:
                live.class_changed(classroom_id, waiting=True)
            Match.objects.filter(assignments__in=ids, status__in=LIVE_MATCH_STATUSES).update_boards(
                status=Match.Status.ABANDONED, finished_at=now, paused_at=None
            )
            WaitingEntry.objects.filter(assignment_id__in=ids).delete()
            return Assignment.objects.filter(pk__in=ids).update(
                status=Assignment.Status.ENDED, ended_at=now
            )


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
        GAMES = "games", pgettext_lazy("a game session's target: count games", "games")
        MINUTES = "minutes", pgettext_lazy("a game session's target: count minutes", "minutes")

    class Status(models.TextChoices):
        LIVE = "live", pgettext_lazy("a game session's state", "Live")
        PAUSED = "paused", pgettext_lazy("a game session's state", "Paused")
        ENDED = "ended", pgettext_lazy("a game session's state", "Ended")

    classroom = models.ForeignKey(
        "classroom.Classroom", on_delete=models.CASCADE, related_name="assignments"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    title = models.CharField(_("title"), max_length=80)
    tier = models.CharField(
        pgettext_lazy("a game session's field: which times tables", "tables"),
        max_length=10,
        choices=Tier.choices,
        default=Tier.GREEN,
    )
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
    target_value = models.PositiveSmallIntegerField(
        pgettext_lazy("a game session's target (games or minutes)", "target"), default=3
    )
    opens_at = models.DateTimeField(_("opens at"))
    closes_at = models.DateTimeField(_("closes at"), null=True, blank=True)
    # Speed is recorded but never shown or scored.
    accuracy_first = models.BooleanField(_("accuracy first"), default=False)
    # The potion warm-up before each game (classroom.models.warmup): its length in minutes
    # (0: no warm-up), and the teacher's "skip the warm-up" for everyone in the session.
    warm_up_minutes = models.PositiveSmallIntegerField(
        pgettext_lazy("a game session's field: how long the warm-up is", "warm-up"),
        choices=[
            (0, pgettext_lazy("warm-up length: no warm-up", "off")),
            (1, _("1 minute")),
            (2, _("2 minutes")),
        ],
        default=1,
    )
    warm_up_skipped = models.BooleanField(default=False)
    # Empty groups and students: the whole class.
    groups = models.ManyToManyField("classroom.Group", blank=True, related_name="assignments")
    students = models.ManyToManyField("classroom.Student", blank=True, related_name="assignments")
    # The session's matches. The link is the classroom's (SessionMatch): the games platform
    # knows nothing of sessions (docs/platform.md, "Layers"). ``match.assignments`` back.
    matches = models.ManyToManyField(
        "games.Match", through="classroom.SessionMatch", related_name="assignments", blank=True
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        ordering = ["-opens_at"]

    def __str__(self):
        return self.title

    # --- state ------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        now = timezone.now()
        return (
            self.status != self.Status.ENDED
            and self.opens_at <= now
            and (self.closes_at is None or self.closes_at > now)
        )

    def state_label(self) -> str:
        """In words, for the teacher's list: open now, starts later, closed or ended."""
        now = timezone.now()
        if self.status == self.Status.ENDED:
            return pgettext("a game session's state", "Ended")
        if self.opens_at > now:
            return pgettext("a game session's state", "Starts later")
        if self.closes_at is not None and self.closes_at <= now:
            return pgettext("a game session's state", "Closed")
        if self.status == self.Status.PAUSED:
            return pgettext("a game session's state", "Paused")
        return pgettext("a game session's state", "Open now")

    def bot_label(self) -> str:
        """The computer player's name for the teacher's list (with classmates only, it plays a
        child left alone for a minute)."""
        name = str(BOT_LEVELS.get(self.bot_level, BOT_LEVELS["apprentice"]))
        if self.opponents == self.Opponents.CLASSMATES:
            return _("%(name)s after %(n)s s alone") % {
                "name": name,
                "n": CLASSMATES_ONLY_FALLBACK_AFTER,
            }
        return name

    def is_set_for(self, student) -> bool:
        return Assignment.objects.for_student(student).filter(pk=self.pk).exists()

    def who_label(self) -> str:
        groups = [g.name for g in self.groups.all()]
        students = [s.name for s in self.students.all()]
        if groups:
            return ", ".join(groups)
        if students:
            return ", ".join(students)
        return str(_("The whole class"))

    # --- per child ----------------------------------------------------------------------
    def tier_for(self, student) -> str:
        return self.tier_overrides.get(str(student.pk), self.tier)

    def settings_for_again(self) -> dict:
        """The form's starting values for a new session like this one ("Use again")."""
        groups, students = list(self.groups.all()), list(self.students.all())
        initial = {
            "title": self.title,
            "tier": self.tier,
            "opponents": self.opponents,
            "bot_level": self.bot_level,
            "target_kind": self.target_kind,
            "target_value": self.target_value,
            "accuracy_first": self.accuracy_first,
            "warm_up_minutes": self.warm_up_minutes,
            "groups": groups,
            "students": students,
            "who": "groups" if groups else "children" if students else "class",
        }
        initial.update({f"tier_{pk}": tier for pk, tier in self.tier_overrides.items()})
        return initial

    def children_on_other_tables(self, students=None) -> int:
        """How many of the children this session is set for play other tables than its own
        (an override equal to the session's tables, or for a child the session does not
        cover, changes nothing for now and is not counted). ``students``: the class's active
        children by id, when the caller has them (the session list: no query per session)."""
        differing = {int(pk) for pk, tier in self.tier_overrides.items() if tier != self.tier}
        if not differing:
            return 0
        if students is None:
            from classroom.models.roster import Student

            students = {
                s.pk: s
                for s in Student.objects.active().filter(
                    pk__in=differing, classroom_id=self.classroom_id
                )
            }
        named = {s.pk for s in self.students.all()}
        groups = {g.pk for g in self.groups.all()}
        children = [students[pk] for pk in differing if pk in students]
        if groups:
            children = [c for c in children if c.group_id in groups]
        elif named:
            children = [c for c in children if c.pk in named]
        return len(children)

    def games_finished_by(self, student) -> int:
        return (
            self.matches.filter(status="finished", seats__child_link__student=student)
            .distinct()
            .count()
        )

    def minutes_played_by(self, student) -> int:
        """Whole minutes spent in this assignment's games (a game in progress counts up to
        its last move)."""
        seconds = 0
        for match in self.matches.filter(seats__child_link__student=student).distinct():
            end = match.finished_at or match.changed_at
            seconds += max(0, (end - match.created_at).total_seconds())
        return int(seconds // 60)

    def progress_for(self, student) -> dict:
        """{"done": n, "target": m, "kind": "games" | "minutes", "complete": bool} for the
        child's home page. Never anything about speed."""
        if self.target_kind == self.Target.GAMES:
            done = self.games_finished_by(student)
        else:
            done = self.minutes_played_by(student)
        return {
            "done": min(done, self.target_value),
            "target": self.target_value,
            "kind": self.target_kind,
            "complete": done >= self.target_value,
        }

    def covers(self, student) -> bool:
        """Whether this session is set for ``student``, read from the prefetched groups and
        children (``for_student`` asks the database the same question)."""
        groups = {g.pk for g in self.groups.all()}
        named = {s.pk for s in self.students.all()}
        if not groups and not named:
            return True
        return student.pk in named or (student.group_id is not None and student.group_id in groups)

    def done_by(self, student_ids) -> dict[int, int]:
        """{child id: games finished, or whole minutes played (the session's target kind)} in
        this session, for these children, in one query: the live wall's progress, the same
        figures as ``progress_for`` gives one child."""
        from .child_seat import ChildSeat

        links = ChildSeat.objects.filter(
            student_id__in=student_ids, seat__match__session_link__assignment=self
        )
        if self.target_kind == self.Target.GAMES:
            rows = (
                links.filter(seat__match__status="finished")
                .values("student_id")
                .annotate(n=models.Count("seat__match_id", distinct=True))
            )
            return {row["student_id"]: row["n"] for row in rows}
        seconds: dict[int, float] = {}
        for pk, created, finished, changed in links.values_list(
            "student_id",
            "seat__match__created_at",
            "seat__match__finished_at",
            "seat__match__changed_at",
        ):
            end = finished or changed
            seconds[pk] = seconds.get(pk, 0) + max(0, (end - created).total_seconds())
        return {pk: int(total // 60) for pk, total in seconds.items()}

    def live_matches(self):

        return self.matches.filter(status__in=LIVE_MATCH_STATUSES)

    def active_match_for(self, student):
        """The child's game in progress in this assignment, if any."""
        return (
            self.live_matches()
            .filter(seats__child_link__student=student)
            .order_by("-created_at")
            .first()
        )

    def new_match(self, seats: list[dict], game: str = "multiplipotion", **create) -> "Match":
        """A match of this session: ``Match.create(game, seats, **create)`` and its link
        (SessionMatch), in one transaction."""
        with transaction.atomic():
            match = Match.create(game, seats, **create)
            SessionMatch.objects.create(match=match, assignment=self)
            live.class_changed(self.classroom_id)  # a new game on the wall
        return match

    # --- pairing ------------------------------------------------------------------------
    def bot_seat(self) -> dict:

        level = self.bot_level if self.bot_level in BOT_LEVELS else "apprentice"
        return {"kind": Seat.Kind.BOT, "name": str(BOT_LEVELS[level]), "bot_level": level}

    def fallback_after(self) -> int | None:
        """Seconds a lone child waits before playing the computer (0: at once)."""
        if self.opponents == self.Opponents.BOT:
            return 0
        if self.opponents == self.Opponents.CLASSMATES_THEN_BOT:
            return BOT_FALLBACK_AFTER
        return CLASSMATES_ONLY_FALLBACK_AFTER

    def pair_waiting(self, now=None) -> list:
        """Pair the children waiting in this assignment; return the matches made.

        Runs under a lock: the assignment row and its waiting rows are locked
        (select_for_update; SQLite serialises writers), so two children entering at once
        make exactly one match.
        """

        made = []
        with transaction.atomic():
            locked = Assignment.objects.select_for_update().filter(pk=self.pk).first()
            if locked is None or not locked.is_open:
                return made
            now = now or timezone.now()
            entries = list(
                WaitingEntry.objects.select_for_update()
                .filter(assignment=locked, match__isnull=True)
                .select_related("student")
                .order_by("created_at", "pk")
            )
            gone = [e for e in entries if not e.is_present(now)]
            if gone:
                WaitingEntry.objects.filter(pk__in=[e.pk for e in gone]).delete()
                live.class_changed(locked.classroom_id, waiting=True)
            entries = [e for e in entries if e not in gone]
            paused_at = now if locked.status == Assignment.Status.PAUSED else None

            def make(tier, seats, paired):
                match = locked.new_match(seats, options={"tier": tier}, paused_at=paused_at)
                WaitingEntry.objects.filter(pk__in=[e.pk for e in paired]).update(match=match)
                live.class_changed(locked.classroom_id, waiting=True)  # they go to their game
                for e in paired:
                    e.match = match
                made.append(match)

            def seat(entry):
                return {
                    "kind": Seat.Kind.STUDENT,
                    "name": entry.student.name,
                    "owner_key": entry.student.seat_key,
                }

            by_tier: dict[str, list] = {}
            for entry in entries:
                by_tier.setdefault(entry.tier, []).append(entry)
            fallback = locked.fallback_after()
            for tier, queue in by_tier.items():
                if locked.opponents != Assignment.Opponents.BOT:
                    while len(queue) >= 2:
                        first, second = queue.pop(0), queue.pop(0)
                        make(tier, [seat(first), seat(second)], [first, second])
                for entry in queue:
                    if (now - entry.created_at).total_seconds() >= fallback:
                        make(tier, [seat(entry), locked.bot_seat()], [entry])
        return made


class SessionMatch(models.Model):
    """A match played in a classroom session: one session a match at most (a practice or
    family game has none). Deleting the session unlinks its matches and keeps them."""

    match = models.OneToOneField(
        "games.Match", on_delete=models.CASCADE, primary_key=True, related_name="session_link"
    )
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="match_links")

    class Meta:
        verbose_name = _("session match")
        verbose_name_plural = _("session matches")

    def __str__(self):
        return f"{self.assignment} · {self.match_id}"


def session_of(match) -> "Assignment | None":
    """The session ``match`` was played in, or None (a practice or family game). One query,
    none when ``session_link__assignment`` was selected or prefetched."""
    try:
        return match.session_link.assignment
    except SessionMatch.DoesNotExist:
        return None


class WaitingEntryQuerySet(models.QuerySet):
    def enter(self, assignment, student) -> "WaitingEntry":
        """Put the child in the waiting room (again): a fresh place at the back of the queue,
        unless they are waiting right now (a second tap on Play keeps their place)."""
        entry, created = self.get_or_create(
            assignment=assignment,
            student=student,
            defaults={"tier": assignment.tier_for(student)},
        )
        tier = assignment.tier_for(student)
        if not created and (
            entry.match_id is not None or entry.tier != tier or not entry.is_present()
        ):
            entry.match = None
            entry.tier = tier
            entry.created_at = timezone.now()
            entry.save(update_fields=["match", "tier", "created_at"])
        entry.touch()
        live.class_changed(assignment.classroom_id, waiting=True)
        return entry

    def pair(self, assignment) -> list:
        return assignment.pair_waiting()


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

    objects = WaitingEntryQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        verbose_name = _("child in a waiting room")
        verbose_name_plural = _("children in waiting rooms")
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "student"], name="one_waiting_entry_per_child"
            ),
        ]

    def __str__(self):
        return f"{self.student} waiting in {self.assignment}"

    # Presence: the waiting room page says "still here" on every poll. Kept in the cache
    # (no field for it): a lost cache only means entries count as present.
    def _seen_key(self) -> str:
        return f"waiting-seen:{self.pk}:{self.created_at.timestamp():.0f}"

    def touch(self) -> None:
        cache.set(self._seen_key(), timezone.now().timestamp(), timeout=3600)

    def is_present(self, now=None) -> bool:
        now = now or timezone.now()
        if (now - self.created_at).total_seconds() < WAITING_PRESENCE:
            return True
        seen = cache.get(self._seen_key())
        if seen is None:
            return True
        return now.timestamp() - seen < WAITING_PRESENCE

    def waited_seconds(self, now=None) -> int:
        return max(0, int(((now or timezone.now()) - self.created_at).total_seconds()))
