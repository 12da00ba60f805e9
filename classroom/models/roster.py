import csv
import re
import secrets
import unicodedata
from dataclasses import dataclass
from dataclasses import field

from django.conf import settings
from django.db import models
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from classroom import live
from config.collation import sort_key
from config.names import clean_name
from config.names import isolate
from config.names import name_key
from games import queue
from games.models import Match

from .child_seat import ChildSeat
from .child_seat import seat_key_of
from .signin import ClassroomSignIn
from .signin import StudentSignIn

# Class codes avoid characters a child can misread: no 0/O, 1/I/L, 2/Z, 5/S, 8/B.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
# New codes have 7 characters (25⁷ ≈ 6.1 billion); classes made before keep their 6 until the
# teacher asks for a new code, so both lengths are read (docs/classroom/child-sign-in.md).
CODE_LENGTH = 7
CODE_LENGTHS = (6, 7)

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
    code = models.CharField(_("class code"), max_length=max(CODE_LENGTHS), unique=True)
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
        self.name = clean_name(self.name)  # every way in, the Django admin's too
        if not self.code:
            self.code = self.unused_code()
        super().save(*args, **kwargs)

    @classmethod
    def unused_code(cls) -> str:
        while True:
            code = new_class_code()
            if not cls.objects.filter(code=code).exists():
                return code

    # --- the teacher's roster behaviour ---------------------------------------------------
    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def code_characters(self) -> list[str]:
        """The class code one character at a time (shown spaced out, read out one by one)."""
        return list(self.code)

    def archive(self) -> None:
        """Archive the class at the end of the year: children can no longer sign in, and
        every child signed in now is signed out. Nothing is deleted."""
        if self.archived_at is None:
            self.archived_at = timezone.now()
            self.signin_generation += 1
            self.save(update_fields=["archived_at", "signin_generation"])
            live.class_changed(self.pk, waiting=True)  # every child signed out

    def restore(self) -> None:
        if self.archived_at is not None:
            self.archived_at = None
            self.save(update_fields=["archived_at"])

    def regenerate_code(self) -> str:
        """A new class code; the old one stops working at once."""
        self.code = self.unused_code()
        self.save(update_fields=["code"])
        return self.code

    def name_taken_by(self, name: str, exclude=None):
        """The child of this class (archived ones too) whose name is ``name``, ignoring
        case and accents (``name_key``, kept in ``sort_name``), or None: two children with
        the same name cannot tell their names apart on the sign-in screen."""
        students = self.students.filter(sort_name=name_sort_key(name, self.school.language))
        if exclude is not None:
            students = students.exclude(pk=exclude.pk)
        return students.first()

    def group_named(self, name: str):
        """The group of this class called ``name``, ignoring case and accents, or None."""
        key = name_key(name)
        return next((g for g in self.groups.all() if name_key(g.name) == key), None)

    def read_roster(self, text: str) -> "RosterReading":
        """Check a pasted or uploaded roster line by line against the rules and this
        class's children. Nothing is saved."""
        return read_roster(text, self)

    def lock_names(self) -> None:
        """Lock the class's row until the transaction ends: whoever checks a child's name
        against the class and then writes it holds this lock, so two tabs adding or renaming
        children at once cannot both pass the check with the same name (PostgreSQL; SQLite
        serialises its writers)."""
        list(type(self).objects.select_for_update().filter(pk=self.pk).values_list("pk"))

    def add_roster(self, reading: "RosterReading") -> tuple[list["Student"], list["Group"]]:
        """Add every good line of a reading in one transaction (its bad lines are the
        teacher's to fix: ``reading.bad_lines``); groups the class does not have yet are
        created. A reading refused as a whole (no good line, or too many lines) adds nothing.
        The reading is made again under the class's lock (``lock_names``), so a name another
        tab added meanwhile becomes a bad line instead of a second child of that name
        (``reading`` is updated). Returns (children, new groups)."""
        if not reading.rows or any(n is None for n, _reason in reading.errors):
            raise ValueError("only a reading with good lines, not refused whole, is added")
        with transaction.atomic():
            self.lock_names()
            fresh = read_roster(reading.text, self)
            reading.rows, reading.errors, reading.lines = fresh.rows, fresh.errors, fresh.lines
            if not reading.rows or any(n is None for n, _reason in reading.errors):
                return [], []
            groups = {name_key(g.name): g for g in self.groups.select_for_update()}
            new_groups = []
            for row in reading.rows:
                if row.group and name_key(row.group) not in groups:
                    group = Group.objects.create(classroom=self, name=row.group)
                    groups[name_key(row.group)] = group
                    new_groups.append(group)
            students = Student.objects.bulk_create(
                Student(
                    classroom=self,
                    name=row.name,
                    group=groups[name_key(row.group)] if row.group else None,
                )
                for row in reading.rows
            )
        return students, new_groups


class GroupQuerySet(models.QuerySet):
    def for_teacher(self, user):
        if not user.is_authenticated:
            return self.none()
        return self.filter(classroom__teacher=user)


class Group(models.Model):
    """A group of children inside a class (a table, a set, a reading group)."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(_("name"), max_length=40)

    objects = GroupQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "name"], name="unique_group_name"),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.name = clean_name(self.name)
        super().save(*args, **kwargs)


SORT_NAME_LENGTH = 255


def name_sort_key(name: str, language: str = settings.LANGUAGE_CODE) -> str:
    """How a name sorts in every list of children, and how two children's names compare:
    letters without their accents and case ("Émilie" with the Es, "bob" with the Bs), in the
    order of the school's language ("Ñoño" after "Nora" in Spanish): a child finds their name
    where they look (``config.collation``; compatibility forms folded first, as ``name_key``)."""
    return sort_key(unicodedata.normalize("NFKC", clean_name(name)), language)[:SORT_NAME_LENGTH]


class StudentQuerySet(models.QuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for obj in objs:
            obj.name = clean_name(obj.name)
            obj.sort_name = name_sort_key(obj.name, obj.classroom.school.language)
        return super().bulk_create(objs, *args, **kwargs)

    def resort(self, language: str) -> int:
        """Recompute these children's ``sort_name`` for ``language`` (their school's language
        changed): how many changed."""
        changed = []
        for student in self.only("pk", "name", "sort_name"):
            key = name_sort_key(student.name, language)
            if key != student.sort_name:
                student.sort_name = key
                changed.append(student)
        self.model.objects.bulk_update(changed, ["sort_name"], batch_size=500)
        return len(changed)

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
    # Wrong picture answers from devices the class has not used, in the window that began at
    # failed_since; locked_until: those devices are stopped for this child (models/signin.py).
    failed_signins = models.PositiveSmallIntegerField(default=0)
    failed_since = models.DateTimeField(null=True, blank=True)
    locked_until = models.DateTimeField(null=True, blank=True)
    # Until when the child's latest sign-in lasts (its session's end: the end of the school
    # day); None once signed out. The live wall's "not signed in yet" (``is_signed_in``).
    signed_in_until = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # name_sort_key(name), kept by save() and bulk_create(): the order of every list.
    sort_name = models.CharField(max_length=SORT_NAME_LENGTH, default="", editable=False)

    objects = StudentQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        verbose_name = _("student")
        verbose_name_plural = _("students")
        ordering = ["sort_name", "name", "pk"]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.name = clean_name(self.name)  # every way in, the Django admin's too
        self.sort_name = name_sort_key(self.name, self.classroom.school.language)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "sort_name"}
        super().save(*args, **kwargs)

    @property
    def seat_key(self) -> str:
        """The player key that owns this child's seats, on whichever device they sign in
        (``ChildSeat``; the middleware gives it to their requests: ``request.seat_keys``)."""
        return seat_key_of(self.pk)

    @property
    def picture_slugs(self) -> list[str]:
        return [PICTURES[int(i)] for i in self.pictures.split(",") if i]

    # --- the teacher's roster behaviour ---------------------------------------------------
    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def roster_status(self) -> str:
        """ "archived", "locked" (picture sign-in cooling off) or "active"."""
        if self.is_archived:
            return "archived"
        if self.is_locked:  # picture sign-in cooling off (StudentSignIn)
            return "locked"
        return "active"

    def archive(self) -> None:
        """The child leaves the roster (cannot sign in, not paired) but keeps their games."""
        if self.archived_at is None:
            self.archived_at = timezone.now()
            self.save(update_fields=["archived_at"])
            if self.waiting.all().delete()[0]:
                live.class_changed(self.classroom_id, waiting=True)

    def restore(self) -> None:
        if self.archived_at is not None:
            self.archived_at = None
            self.save(update_fields=["archived_at"])

    def move_to(self, classroom: Classroom) -> None:
        """Move the child to another class: no group there yet, and the old class's
        assignments no longer name them (their finished games stay in their history)."""
        with transaction.atomic():
            old = self.classroom
            self.assignments.remove(*self.assignments.filter(classroom=old))
            if self.waiting.all().delete()[0]:
                live.class_changed(old.pk, waiting=True)
            _forget_tier_overrides(old, self.pk)
            self.classroom = classroom
            self.group = None
            self.save(update_fields=["classroom", "group"])
            # The school's local day decides the child's trend days and the 2-day rule: into
            # a school in another time zone, the child's own statistics are rebuilt too.
            rebuild = [self.pk] if old.school.zone.key != classroom.school.zone.key else []
            _rebuild_class_stats_on_commit([old.pk, classroom.pk], rebuild)

    def delete_everything(self) -> None:
        """Hard delete: the child and every row about them. Their matches go too (a move is
        a child's answer to a times-table fact), with their seats, moves and waiting
        entries; assignment links and per-child tiers are removed."""

        with transaction.atomic():
            matches = Match.objects.filter(seats__child_link__student=self)
            # Their opponents' answers in those games go with them: rebuild their facts too.
            others = set(
                ChildSeat.objects.filter(seat__match__in=matches)
                .exclude(student=self)
                .values_list("student_id", flat=True)
            )
            matches.delete()
            _forget_tier_overrides(self.classroom, self.pk)
            classroom_id = self.classroom_id
            from classroom.models import DailyTrend

            DailyTrend.objects.filter(scope=DailyTrend.Scope.STUDENT, scope_id=self.pk).delete()
            self.delete()
            _rebuild_class_stats_on_commit([classroom_id], others)


def _rebuild_class_stats_on_commit(classroom_ids, student_ids=()) -> None:
    """The class heatmaps add up their children's facts: after a child moves or is deleted,
    rebuild those classes' roll-ups (and the facts of ``student_ids`` first) once the change
    is committed (a worker task)."""
    from classroom.tasks import rebuild_class_stats  # the tasks import the models

    ids = sorted(set(classroom_ids))
    students = sorted(set(student_ids))
    if students:
        transaction.on_commit(lambda: queue.enqueue(rebuild_class_stats, ids, students))
    else:
        transaction.on_commit(lambda: queue.enqueue(rebuild_class_stats, ids))


def _forget_tier_overrides(classroom, student_pk) -> None:
    key = str(student_pk)
    for assignment in classroom.assignments.filter(tier_overrides__has_key=key):
        assignment.tier_overrides.pop(key, None)
        assignment.save(update_fields=["tier_overrides"])


# --- reading a pasted or uploaded roster ----------------------------------------------------
ROSTER_MAX_ROWS = 60
ROSTER_MAX_BYTES = 100 * 1024
NAME_MAX_LENGTH = 40
GROUP_MAX_LENGTH = 40
# Letters (any alphabet), digits, spaces, hyphens, apostrophes and full stops: "Ali B.",
# "Anne-Marie", "O'Neil", "Zoë".
NAME_PATTERN = re.compile(r"^[^\W_][\w .'’\-]*$")
# A first line of these words is a spreadsheet's header, not a child: in English, Spanish and
# Italian (a school's spreadsheet is in its own language), compared case- and accent-blind.
HEADER_NAMES = {
    *("name", "names", "first name", "firstname", "forename", "given name", "nickname"),
    *("child", "children", "pupil", "pupils", "student", "students", "child name"),
    *("pupil name", "student name", "child's name", "name of child"),
    *("nombre", "nombres", "nombre del alumno", "nombre del nino", "apodo", "alumno"),
    *("alumna", "alumnos", "alumnado", "estudiante", "estudiantes", "nino", "nina", "ninos"),
    *("nome", "nomi", "nome del bambino", "nome dell'alunno", "soprannome", "alunno"),
    *("alunna", "alunni", "studente", "studenti", "bambino", "bambina", "bambini"),
}
HEADER_GROUPS = {
    *("group", "groups", "group name", "table", "team", ""),
    *("grupo", "grupos", "nombre del grupo", "mesa", "equipo"),
    *("gruppo", "gruppi", "nome del gruppo", "tavolo", "squadra"),
}


def header_word(cell: str) -> str:
    """A header cell as HEADER_NAMES holds it: lower case, no accents, no trailing colon."""
    bare = unicodedata.normalize("NFD", cell.casefold().rstrip(":").strip())
    return "".join(c for c in bare if not unicodedata.combining(c)).replace("’", "'")


def tidy(value: str) -> str:
    """A typed name cleaned: NFC, no control or format characters, trimmed, inner runs of
    spaces made one space (``config.names.clean_name``)."""
    return clean_name(value)


def child_name_problem(name: str):
    """Why ``name`` (already tidied) cannot be a child's name, or None."""
    if not name:
        return _("the name is empty")
    if "@" in name:
        return _("this looks like an e-mail address: first name or nickname only")
    if len(name) > NAME_MAX_LENGTH:
        return _("too long (at most 40 characters): first name or nickname only")
    if name.replace(" ", "").isdigit():
        return _("digits only: first name or nickname only")
    if not any(ch.isalpha() for ch in name):
        return _("needs at least one letter")
    if not NAME_PATTERN.match(name):
        return _("use letters, digits, spaces, hyphens, apostrophes or full stops only")
    return None


def group_name_problem(name: str):
    if len(name) > GROUP_MAX_LENGTH:
        return _("the group name is too long (at most 40 characters)")
    if "@" in name:
        return _("the group name looks like an e-mail address")
    return None


@dataclass
class RosterRow:
    line: int
    name: str
    group: str = ""


@dataclass
class RosterReading:
    rows: list[RosterRow] = field(default_factory=list)
    # (line number or None for the whole list, reason)
    errors: list[tuple] = field(default_factory=list)
    # The text of each line, by its number (the bad ones go back in the box to be fixed).
    lines: dict[int, str] = field(default_factory=dict)
    # The text read (``Classroom.add_roster`` reads it again under the class's lock).
    text: str = ""

    @property
    def problems(self) -> list[tuple]:
        """(line number or None, the line's text or "", reason) for each error."""
        return [(n, self.lines.get(n, "") if n else "", reason) for n, reason in self.errors]

    @property
    def bad_lines(self) -> list[str]:
        """The lines with a problem, as they were typed, in their order."""
        return [self.lines[n] for n, _reason in self.errors if n is not None]

    @property
    def new_group_names(self) -> list[str]:
        return sorted({row.group for row in self.rows if row.group}, key=str.lower)


def _delimiter(lines: list[str]) -> str | None:
    for candidate in ("\t", ";", ","):
        if any(candidate in line for line in lines):
            return candidate
    return None


def roster_text(text: str) -> str:
    """A pasted list or a file as the box shows it: no byte-order mark, no empty lines."""
    return "\n".join(line for line in text.lstrip("\ufeff").splitlines() if line.strip())


def read_roster(text: str, classroom: Classroom | None = None) -> RosterReading:
    """One child per line: "name" or "name<sep>group" with a tab, ";" or "," between (a
    spreadsheet's CSV or a copied column). A first line "name,group" ("Nome;Gruppo",
    "Forename,Group": HEADER_NAMES, HEADER_GROUPS) is a header and is skipped. Empty lines are
    left out, and the lines are numbered without them: as the box shows the text once it is
    given back (``roster_text``). Every bad line is reported with its number."""
    reading = RosterReading(text=text)
    lines = roster_text(text).splitlines()
    delimiter = _delimiter(lines)
    first_seen: dict[str, int] = {}
    existing = {}
    groups = {}
    if classroom is not None and classroom.pk:
        existing = {name_key(n): n for n in classroom.students.values_list("name", flat=True)}
        groups = {name_key(g.name): g.name for g in classroom.groups.all()}
    data_rows = 0
    for number, raw in enumerate(lines, start=1):
        reading.lines[number] = raw
        if delimiter:
            cells = next(csv.reader([raw], delimiter=delimiter, skipinitialspace=True), [])
        else:
            cells = [raw]
        cells = [tidy(c) for c in cells]
        while len(cells) > 1 and not cells[-1]:
            cells.pop()
        if not any(cells):
            continue
        if (
            data_rows == 0
            and not reading.errors
            and header_word(cells[0]) in HEADER_NAMES
            and (len(cells) == 1 or header_word(cells[1]) in HEADER_GROUPS)
            and len(cells) <= 2
        ):
            continue  # the header row
        data_rows += 1
        if len(cells) > 2:
            reading.errors.append(
                (number, _("too many columns: only a name and, if you like, a group"))
            )
            continue
        name = cells[0]
        group = cells[1] if len(cells) > 1 else ""
        problem = child_name_problem(name)
        if problem is None and group:
            problem = group_name_problem(group)
        if problem is None:
            key = name_key(name)  # "Ana", "ANA" and "Aná" are one name on the sign-in screen
            if key in first_seen:
                problem = _(
                    "%(name)s is on line %(line)s too: add an initial to tell them apart "
                    "(e.g. “%(name)s B.”)"
                ) % {"name": isolate(name), "line": first_seen[key]}
            elif key in existing:
                problem = _(
                    "%(name)s is already in this class: add an initial (e.g. “%(name)s B.”)"
                ) % {"name": isolate(existing[key])}
            first_seen.setdefault(key, number)
        if problem:
            reading.errors.append((number, problem))
        else:
            reading.rows.append(RosterRow(number, name, groups.get(name_key(group), group)))
    if data_rows > ROSTER_MAX_ROWS:
        reading.errors.insert(
            0,
            (
                None,
                _("%(count)s children in one go is too many: at most %(max)s at a time.")
                % {"count": data_rows, "max": ROSTER_MAX_ROWS},
            ),
        )
    if not reading.rows and not reading.errors:
        reading.errors.append((None, _("There are no names to add.")))
    return reading
