import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .signin import ClassroomSignIn, StudentSignIn

# Class codes avoid characters a child can misread: no 0/O, 1/I/L, 2/Z, 5/S, 8/B.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6

# The nine pictures of the picture password (static/img/pictures/<slug>.svg).
PICTURES = ["sun", "moon", "star", "cat", "fish", "tree", "apple", "boat", "rocket"]


def new_class_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_badge_token() -> str:
    return secrets.token_urlsafe(18)


def new_pictures() -> str:
    """Three of the nine pictures, chosen at random, stored sorted: "2,5,7"."""
    picks = sorted(secrets.SystemRandom().sample(range(len(PICTURES)), 3))
    return ",".join(str(i) for i in picks)


class ClassroomQuerySet(models.QuerySet):
    def for_teacher(self, user):
        """The classes a teacher teaches (another teacher's class is not found: 404)."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(teacher=user)

    def for_school_admin(self, user):
        """Every class of the school a school admin runs."""
        membership = getattr(user, "membership", None) if user.is_authenticated else None
        if membership is None or not membership.is_admin:
            return self.none()
        return self.filter(school_id=membership.school_id)

    def active(self):
        return self.filter(archived_at__isnull=True)

    def archived(self):
        return self.filter(archived_at__isnull=False)


class Classroom(ClassroomSignIn, models.Model):
    school = models.ForeignKey(
        "classroom.School", on_delete=models.CASCADE, related_name="classrooms"
    )
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="classrooms"
    )
    name = models.CharField(_("name"), max_length=60)
    code = models.CharField(_("class code"), max_length=CODE_LENGTH, unique=True)
    # Bumped when the teacher ends the session: every child signed in to the class is signed out.
    signin_generation = models.PositiveIntegerField(default=0)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ClassroomQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
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


class Group(models.Model):
    """A group of children inside a class (a table, a set, a reading group)."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(_("name"), max_length=40)

    class Meta:
        app_label = "classroom"
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "name"], name="unique_group_name"),
        ]

    def __str__(self):
        return self.name


class StudentQuerySet(models.QuerySet):
    def active(self):
        return self.filter(archived_at__isnull=True)

    def for_teacher(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(classroom__teacher=user)


class Student(StudentSignIn, models.Model):
    """A child: a first name or nickname and a class, nothing more (no e-mail, no birth date)."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="students")
    group = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="students"
    )
    name = models.CharField(_("first name or nickname"), max_length=40)
    # Picture password: three of the nine PICTURES, as sorted indexes "2,5,7".
    pictures = models.CharField(max_length=20, default=new_pictures)
    # The personal QR badge signs the child in; a new token revokes the printed badge.
    badge_token = models.CharField(max_length=40, unique=True, default=new_badge_token)
    failed_signins = models.PositiveSmallIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = StudentQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        verbose_name = _("student")
        verbose_name_plural = _("students")
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def picture_slugs(self) -> list[str]:
        return [PICTURES[int(i)] for i in self.pictures.split(",") if i]
