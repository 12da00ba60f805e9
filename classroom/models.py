import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# Class codes avoid characters a child can misread: no 0/O, 1/I/L, 2/Z, 5/S, 8/B.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6


def new_class_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class School(models.Model):
    name = models.CharField(_("name"), max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self):
        return f"{self.user} ({self.get_role_display()}, {self.school})"


class ClassroomQuerySet(models.QuerySet):
    def for_teacher(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(teacher=user)

    def active(self):
        return self.filter(archived_at__isnull=True)


class Classroom(models.Model):
    school = models.ForeignKey(School, on_delete=models.CASCADE, related_name="classrooms")
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="classrooms"
    )
    name = models.CharField(_("name"), max_length=60)
    code = models.CharField(_("class code"), max_length=CODE_LENGTH, unique=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ClassroomQuerySet.as_manager()

    class Meta:
        verbose_name = _("class")
        verbose_name_plural = _("classes")
        ordering = ["name"]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        if not self.code:
            self.code = self.unused_code()
        super().save(*args, **kwargs)

    @classmethod
    def unused_code(cls) -> str:
        while True:
            code = new_class_code()
            if not cls.objects.filter(code=code).exists():
                return code


class Student(models.Model):
    """A child: a first name or nickname and a class, nothing more."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="students")
    name = models.CharField(_("first name or nickname"), max_length=40)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("student")
        verbose_name_plural = _("students")
        ordering = ["name"]

    def __str__(self):
        return self.name


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker said it was alive (read by /healthz)."""

    hostname = models.CharField(max_length=200, unique=True)
    seen_at = models.DateTimeField()
    last_sent_at = models.CharField(max_length=40, blank=True)

    def __str__(self):
        return f"{self.hostname} @ {self.seen_at:%H:%M:%S}"

    @classmethod
    def beat(cls, hostname: str, sent_at: str = "") -> "WorkerHeartbeat":
        defaults = {"seen_at": timezone.now()}
        if sent_at:
            defaults["last_sent_at"] = sent_at
        row, _created = cls.objects.update_or_create(hostname=hostname, defaults=defaults)
        return row

    @classmethod
    def freshest_age(cls) -> timedelta | None:
        latest = cls.objects.order_by("-seen_at").values_list("seen_at", flat=True).first()
        return None if latest is None else timezone.now() - latest
