import secrets
from datetime import time, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class School(models.Model):
    name = models.CharField(_("name"), max_length=120)
    # Children's sessions end at this local time (the end of the school day).
    day_ends_at = models.TimeField(_("school day ends at"), default=time(16, 0))
    timezone = models.CharField(_("time zone"), max_length=64, default=settings.TIME_ZONE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "classroom"
        verbose_name = _("school")
        verbose_name_plural = _("schools")
        ordering = ["name"]

    def __str__(self):
        return self.name


class Membership(models.Model):
    """A grown-up's place in a school: a school admin or a teacher."""

    class Role(models.TextChoices):
        ADMIN = "admin", _("School admin")
        TEACHER = "teacher", _("Teacher")

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

    class Meta:
        app_label = "classroom"
        ordering = ["-created_at"]

    def __str__(self):
        return f"invite to {self.school} ({self.role})"
