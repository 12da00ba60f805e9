import secrets
from datetime import date
from datetime import datetime
from datetime import time
from datetime import timedelta
from zoneinfo import ZoneInfo
from zoneinfo import ZoneInfoNotFoundError

from django.conf import settings
from django.db import models
from django.db import transaction
from django.db.models import Count
from django.db.models import Exists
from django.db.models import F
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models.functions import TruncDate
from django.urls import NoReverseMatch
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from classroom import live
from config.names import clean_name
from games.models import Match
from games.models import Move
from games.models import Seat

# How far back the school dashboard's "games per day" chart looks.
GAMES_CHART_DAYS = 28


class SchoolQuerySet(models.QuerySet):
    def for_admin(self, user):
        """The school a user runs as its school admin (none for anybody else)."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(memberships__user=user, memberships__role=Membership.Role.ADMIN)

    def of_member(self, user):
        """The school a grown-up is in, as a school admin or a teacher (a user has one
        membership at most: none for a visitor, a child or a superuser without a school)."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(memberships__user=user)


class School(models.Model):
    name = models.CharField(_("name"), max_length=120)
    # Children's sessions end at this local time (the end of the school day).
    day_ends_at = models.TimeField(_("school day ends at"), default=time(16, 0))
    timezone = models.CharField(_("time zone"), max_length=64, default=settings.TIME_ZONE)
    # The language of the children's screens (sign-in, play, their pages, printed cards).
    language = models.CharField(
        _("language of the children's screens"),
        max_length=8,
        choices=settings.LANGUAGES,
        default=settings.LANGUAGE_CODE,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SchoolQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        verbose_name = _("school")
        verbose_name_plural = _("schools")
        ordering = ["name"]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.name = clean_name(self.name)  # every way in, the Django admin's too
        super().save(*args, **kwargs)

    # --- the school's clock -----------------------------------------------------------
    @property
    def zone(self) -> ZoneInfo:
        """The school's time zone (the site's when the stored name is unknown)."""
        try:
            return ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo(settings.TIME_ZONE)

    def local_today(self, now=None) -> date:
        return (now or timezone.now()).astimezone(self.zone).date()

    def day_start(self, day: date) -> datetime:
        """Local midnight at the start of ``day``, as an aware datetime."""
        return datetime.combine(day, time.min, tzinfo=self.zone)

    def week_start(self, now=None) -> datetime:
        """Local midnight on the Monday of the current school week."""
        today = self.local_today(now)
        return self.day_start(today - timedelta(days=today.weekday()))

    # --- figures for the school admin's dashboard ---------------------------------------
    def active_children(self, now=None) -> dict:
        """{"today": n, "week": m}: distinct children of this school with at least one move
        of their own seat since local midnight / since Monday's local midnight. One query."""

        now = now or timezone.now()
        today_start = self.day_start(self.local_today(now))
        week_start = self.week_start(now)
        counts = Move.objects.filter(
            created_at__gte=week_start,
            created_at__lte=now,
            match__seats__number=F("seat"),
            match__seats__child_link__student__classroom__school=self,
        ).aggregate(
            week=Count("match__seats__child_link__student", distinct=True),
            today=Count(
                "match__seats__child_link__student",
                distinct=True,
                filter=Q(created_at__gte=today_start),
            ),
        )
        return {"today": counts["today"] or 0, "week": counts["week"] or 0}

    def games_per_day(self, days: int = GAMES_CHART_DAYS, now=None) -> list[tuple[date, int]]:
        """[(local date, finished games)] for the last ``days`` days up to today, oldest
        first, zeros included. A game counts once on the local day it finished when at least
        one child of this school had a seat in it. One query."""

        now = now or timezone.now()
        today = self.local_today(now)
        first = today - timedelta(days=days - 1)
        in_school = Seat.objects.filter(
            match=OuterRef("pk"), child_link__student__classroom__school=self
        )
        rows = (
            Match.objects.filter(
                status=Match.Status.FINISHED,
                finished_at__gte=self.day_start(first),
                finished_at__lte=now,
            )
            .filter(Exists(in_school))
            .annotate(day=TruncDate("finished_at", tzinfo=self.zone))
            .values("day")
            .annotate(n=Count("pk"))
            .order_by("day")
        )
        per_day = {row["day"]: row["n"] for row in rows}
        return [
            (first + timedelta(days=i), per_day.get(first + timedelta(days=i), 0))
            for i in range(days)
        ]

    def staff(self):
        """The school's grown-ups (admins first), each with ``class_count``: their active
        classes in this school. One query."""
        return (
            self.memberships.select_related("user")
            .annotate(
                class_count=Count(
                    "user__classrooms",
                    filter=Q(
                        user__classrooms__school_id=F("school_id"),
                        user__classrooms__archived_at__isnull=True,
                    ),
                    distinct=True,
                )
            )
            .order_by("role", "user__first_name", "user__last_name", "user__username")
        )

    def classes_with_counts(self):
        """Every class of the school (active first, then the most recently archived), each
        with ``child_count``: its children who are not archived. One query."""
        return (
            self.classrooms.select_related("teacher")
            .annotate(child_count=Count("students", filter=Q(students__archived_at__isnull=True)))
            .order_by(F("archived_at").desc(nulls_first=True), "name")
        )

    # --- year end -------------------------------------------------------------------------
    def archive_active_classes(self, now=None) -> int:
        """Archive every active class of the school at once (the end of the school year),
        like ``Classroom.archive``: children signed in to them are signed out, and their
        sessions that are still open are ended. Returns how many classes were archived.
        Each teacher can restore a class later."""
        from .assignment import Assignment
        from .roster import Classroom

        with transaction.atomic():
            classes = Classroom.objects.select_for_update().filter(school=self).active()
            ids = list(classes.values_list("pk", flat=True))
            Assignment.objects.filter(classroom_id__in=ids).end()
            for pk in ids:
                live.class_changed(pk, waiting=True)  # every child signed out
            return Classroom.objects.filter(pk__in=ids).update(
                archived_at=now or timezone.now(),
                signin_generation=F("signin_generation") + 1,
            )


class Membership(models.Model):
    """A grown-up's place in a school: a school admin or a teacher."""

    class Role(models.TextChoices):
        ADMIN = "admin", _("School admin")
        TEACHER = "teacher", pgettext_lazy("a grown-up's role in a school", "Teacher")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership"
    )
    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.TEACHER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "classroom"
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self):
        return f"{self.user} ({self.get_role_display()}, {self.school})"

    @property
    def is_admin(self) -> bool:
        return self.role == self.Role.ADMIN


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


def invite_expiry():
    return timezone.now() + timedelta(days=14)


class InviteQuerySet(models.QuerySet):
    def usable(self, now=None):
        return self.filter(
            used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now or timezone.now()
        )


class Invite(models.Model):
    """A link that lets a grown-up join a school as a teacher (or school admin)."""

    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    role = models.CharField(
        max_length=10, choices=Membership.Role.choices, default=Membership.Role.TEACHER
    )
    note = models.CharField(_("who is it for? (only you see this)"), max_length=120, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(default=invite_expiry)
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        ordering = ["-created_at"]

    def __str__(self):
        return f"invite to {self.school} ({self.role})"

    def get_absolute_url(self) -> str:
        """The path of the link to send (the accept page)."""
        try:
            return reverse("classroom:invite_accept", args=[self.token])
        except NoReverseMatch:
            return f"/invite/{self.token}/"

    class State(models.TextChoices):
        OPEN = "open", pgettext_lazy("an invite link's state", "Open")
        USED = "used", pgettext_lazy("an invite link's state", "Used")
        REVOKED = "revoked", pgettext_lazy("an invite link's state", "Revoked")
        EXPIRED = "expired", pgettext_lazy("an invite link's state", "Expired")

    @property
    def state(self) -> str:
        if self.used_at is not None:
            return self.State.USED
        if self.revoked_at is not None:
            return self.State.REVOKED
        if self.expires_at <= timezone.now():
            return self.State.EXPIRED
        return self.State.OPEN

    def get_state_display(self) -> str:
        return self.State(self.state).label

    def revoke(self, now=None) -> bool:
        """Revoke the link unless it was used or revoked already (checked in the database,
        so a link accepted a moment ago stays used). Returns whether it was revoked."""
        now = now or timezone.now()
        changed = Invite.objects.filter(
            pk=self.pk, used_at__isnull=True, revoked_at__isnull=True
        ).update(revoked_at=now)
        if changed:
            self.revoked_at = now
        return bool(changed)

    @property
    def is_usable(self) -> bool:
        return self.used_at is None and self.revoked_at is None and self.expires_at > timezone.now()

    def accept(self, user) -> Membership:
        """Make ``user`` a member of the school (once). Callers check ``is_usable`` first,
        under a row lock, so one link makes one member."""
        membership = Membership.objects.create(user=user, school=self.school, role=self.role)
        self.used_at = timezone.now()
        self.used_by = user
        self.save(update_fields=["used_at", "used_by"])
        return membership
