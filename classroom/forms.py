"""The classroom's forms: the grown-ups' log-in and sign-up, the school's invites, classes,
groups and children, and the teacher's game sessions."""

import zoneinfo
from functools import cache

from babel import Locale
from babel.core import get_global
from babel.dates import get_timezone_location
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone
from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import Group
from classroom.models import Invite
from classroom.models import School
from classroom.models import Student
from classroom.models.roster import GROUP_MAX_LENGTH
from classroom.models.roster import NAME_MAX_LENGTH
from classroom.models.roster import ROSTER_MAX_BYTES
from classroom.models.roster import child_name_problem
from classroom.models.roster import group_name_problem
from classroom.models.roster import roster_text
from classroom.models.roster import tidy
from config.collation import sort_key
from config.names import NameField
from config.names import clean_name
from config.names import isolate
from config.names import name_key

User = get_user_model()

# --- grown-ups: logging in and signing up ------------------------------------------------------
# The log-in lockout (classroom/views/accounts.py, django-axes): LOGIN_FAILURE_LIMIT wrong
# passwords from one network lock an account's log-in from that network for
# LOGIN_LOCKOUT_SECONDS (the account's known browsers excepted).
LOGIN_FAILURE_LIMIT = 10
LOGIN_LOCKOUT_SECONDS = 15 * 60


def resolve_login(typed: str) -> str | None:
    """The user name of the account that a typed name means: a user name in any case, or
    the e-mail address of exactly one account; None when none matches."""
    typed = (typed or "").strip()
    if not typed or "\x00" in typed:  # no account has one, and PostgreSQL refuses it: a 500
        return None
    user = User.objects.filter(username__iexact=typed).order_by("pk").first()
    if user is None and "@" in typed:
        matches = list(User.objects.filter(email__iexact=typed)[:2])
        user = matches[0] if len(matches) == 1 else None
    return user.get_username() if user is not None else None


class EmailLoginForm(AuthenticationForm):
    """Log in with the e-mail address (the username of every grown-up who signed up) or a
    plain username (the demo users "teacher" and "head"), in any case."""

    username = forms.CharField(
        label=_("E-mail address or user name"),
        max_length=254,
        widget=forms.TextInput(
            attrs={"autofocus": True, "autocomplete": "username", "inputmode": "email"}
        ),
    )

    def clean(self):
        raw = self.cleaned_data.get("username") or ""
        self.cleaned_data["username"] = resolve_login(raw) or raw.strip()
        try:
            return super().clean()
        except ValidationError:
            if getattr(self.request, "axes_locked_out", False):
                raise ValidationError(
                    _(
                        "Too many wrong passwords for this account. Wait %(minutes)s minutes "
                        "and try again, or reset your password."
                    ),
                    code="locked_out",
                    params={"minutes": LOGIN_LOCKOUT_SECONDS // 60},
                ) from None
            raise


class GrownUpForm(forms.Form):
    first_name = NameField(
        label=_("First name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "given-name"}),
    )
    last_name = NameField(
        label=_("Last name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "family-name"}),
    )
    email = forms.EmailField(
        label=_("E-mail address"),
        max_length=150,
        help_text=_("You log in with it, and a forgotten password is reset through it."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=pgettext_lazy("form field label", "Password"),
        strip=False,
        help_text=_("At least 8 characters, not only digits, not a common password."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_email(self):
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(Q(username__iexact=email) | Q(email__iexact=email)).exists():
            raise ValidationError(
                _(
                    "There is already an account with this e-mail address: log in instead, "
                    "or reset your password from the log-in page."
                ),
                code="taken",
            )
        return email

    def clean(self):
        data = super().clean()
        p1, p2 = data.get("password1"), data.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", _("The two passwords are not the same."))
        elif p1:
            email = data.get("email") or ""
            candidate = User(
                username=email,
                email=email,
                first_name=data.get("first_name", ""),
                last_name=data.get("last_name", ""),
            )
            try:
                password_validation.validate_password(p1, candidate)
            except ValidationError as error:
                self.add_error("password1", error)
        return data

    def save(self):
        data = self.cleaned_data
        return User.objects.create_user(
            username=data["email"],
            email=data["email"],
            password=data["password1"],
            first_name=data["first_name"].strip(),
            last_name=data["last_name"].strip(),
        )


# --- a school's time zone -----------------------------------------------------------------------
# The IANA zones of places (no "Etc/GMT+5", no old aliases such as "US/Eastern").
ZONE_AREAS = ("Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe")
ZONE_AREAS += ("Indian", "Pacific")


@cache
def time_zone_names() -> tuple[str, ...]:
    """The zones of places, without the old names of zones (CLDR's aliases: "Australia/South"
    is "Australia/Adelaide")."""
    aliases = get_global("zone_aliases")
    return tuple(
        sorted(
            z
            for z in zoneinfo.available_timezones()
            if z.split("/", 1)[0] in ZONE_AREAS and "/" in z and z not in aliases
        )
    )


@cache
def time_zone_choices_in(language: str) -> list[tuple[str, str]]:
    """Each zone named by its country and city in ``language``, from CLDR (Babel): "Spain
    (Madrid)", "España (Madrid)", "Spagna (Madrid)"; in that language's alphabetical order."""
    locale = Locale.parse(translation.to_locale(language if language != "en" else "en-gb"))
    territories = get_global("zone_territories")
    choices = []
    for zone in time_zone_names():
        city = get_timezone_location(zone, locale=locale, return_city=True)
        code = territories.get(zone, "")
        country = locale.territories.get(code, "") if code and code != "001" else ""
        choices.append((zone, f"{country} ({city})" if country and country != city else city))
    return sorted(choices, key=lambda choice: sort_key(choice[1], language))


def zone_place(zone: str) -> str:
    """The zone as the time-zone menu names it in the page's language ("España (Madrid)")."""
    return dict(time_zone_choices()).get(zone, zone)


def time_zone_choices() -> list[tuple[str, str]]:
    """The zones, named in the page's language (the choices are read when the form is shown)."""
    return time_zone_choices_in(translation.get_language() or settings.LANGUAGE_CODE)


class TimeZoneField(forms.ChoiceField):
    """A school's time zone: the school day, reports, trends and archive dates follow it. The
    page's script (static/js/time_zone.js) picks the browser's zone while the field is new."""

    def __init__(self, *, browser_default=False, **kwargs):
        kwargs.setdefault("label", _("Your school's time zone"))
        kwargs.setdefault("help_text", _("The school day, the reports and the dates follow it."))
        widget = forms.Select(attrs={"data-browser-zone": ""} if browser_default else {})
        super().__init__(choices=time_zone_choices, widget=widget, **kwargs)


class SignupForm(GrownUpForm):
    school_name = NameField(
        label=_("Your school's name"),
        max_length=120,
        widget=forms.TextInput(attrs={"autocomplete": "organization"}),
    )
    time_zone = TimeZoneField(initial=settings.TIME_ZONE, browser_default=True)

    field_order = [
        *("first_name", "last_name", "email", "school_name", "time_zone"),
        *("password1", "password2"),
    ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.is_bound:  # the zone the teacher sent stays as it was sent
            self.fields["time_zone"].widget.attrs.pop("data-browser-zone", None)


class SchoolForm(forms.ModelForm):
    """The school admin's settings of their school: its name, time zone and the language of
    its children's screens."""

    name = NameField(label=_("School name"), max_length=120)
    timezone = TimeZoneField(label=_("Time zone"))

    class Meta:
        model = School
        fields = ["name", "timezone", "language"]
        help_texts = {
            "language": _(
                "Sign-in, the games, the children's pages and the printed cards speak it. "
                "Each teacher chooses their own."
            )
        }


# --- the school's invites ----------------------------------------------------------------------
class InviteForm(forms.ModelForm):
    class Meta:
        model = Invite
        fields = ["role", "note"]
        labels = {
            "role": _("They join the school as"),
            "note": _("Who is it for? (only school admins see this)"),
        }
        help_texts = {"note": _("For example: Ms Patel, Year 4")}
        widgets = {"role": forms.RadioSelect}

    def clean_note(self):
        # Usually a colleague's name: cleaned like every typed name (config/names.py).
        return clean_name(self.cleaned_data["note"])


# --- classes, groups and children --------------------------------------------------------------
class ClassForm(forms.ModelForm):
    class Meta:
        model = Classroom
        fields = ["name"]
        labels = {"name": _("Class name")}
        help_texts = {"name": _("For example “3B” or “Year 4 Robins”.")}
        # Names people type are cleaned as they come in (config/names.py).
        field_classes = {"name": NameField}
        error_messages = {"name": {"required": _("Give the class a name.")}}

    def __init__(self, *args, teacher, **kwargs):
        super().__init__(*args, **kwargs)
        self.teacher = teacher

    def clean_name(self):
        name = tidy(self.cleaned_data["name"])
        if not name:
            raise ValidationError(_("Give the class a name."), code="required")
        same = Classroom.objects.for_teacher(self.teacher).active()
        if self.instance.pk:
            same = same.exclude(pk=self.instance.pk)
        key = name_key(name)  # "3B", "3b" and "3 B" with an accent look alike on a list
        if any(name_key(other) == key for other in same.values_list("name", flat=True)):
            raise ValidationError(_("You already have a class with this name."), code="taken")
        return name


class GroupForm(forms.ModelForm):
    class Meta:
        model = Group
        fields = ["name"]
        labels = {"name": _("Group name")}
        field_classes = {"name": NameField}
        error_messages = {"name": {"required": _("Give the group a name.")}}

    def __init__(self, *args, classroom, **kwargs):
        super().__init__(*args, **kwargs)
        self.classroom = classroom
        self.fields["name"].widget.attrs["maxlength"] = GROUP_MAX_LENGTH

    def clean_name(self):
        name = tidy(self.cleaned_data["name"])
        problem = group_name_problem(name) if name else _("Give the group a name.")
        if problem:
            raise ValidationError(problem)
        same = self.classroom.groups.all()
        if self.instance.pk:
            same = same.exclude(pk=self.instance.pk)
        key = name_key(name)
        if any(name_key(other) == key for other in same.values_list("name", flat=True)):
            raise ValidationError(_("This class already has a group with this name."))
        return name

    def save(self, commit=True):
        self.instance.classroom = self.classroom
        return super().save(commit)


class StudentForm(forms.ModelForm):
    class Meta:
        model = Student
        fields = ["name", "group"]
        labels = {
            "name": _("First name or nickname"),
            "group": pgettext_lazy("form field label: the child's group", "Group"),
        }
        help_texts = {"name": _("Nothing more: no surname, no e-mail address.")}
        field_classes = {"name": NameField}
        error_messages = {"name": {"required": _("Type the child's first name or nickname.")}}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["group"].queryset = self.instance.classroom.groups.all()
        self.fields["group"].empty_label = _("No group")
        self.fields["name"].widget.attrs["maxlength"] = NAME_MAX_LENGTH

    def clean_name(self):
        name = tidy(self.cleaned_data["name"])
        problem = child_name_problem(name)
        if problem:
            raise ValidationError(capfirst(problem) + ".")
        if self.instance.classroom.name_taken_by(name, exclude=self.instance):
            raise ValidationError(
                _("Another child in this class is called %(name)s: add an initial.")
                % {"name": isolate(name)}
            )
        return name


class MoveForm(forms.Form):
    classroom = forms.ModelChoiceField(
        label=_("Move to the class"),
        queryset=Classroom.objects.none(),
        widget=forms.RadioSelect,
        empty_label=None,
        error_messages={"invalid_choice": _("Choose one of your classes.")},
    )

    def __init__(self, *args, student, teacher, **kwargs):
        super().__init__(*args, **kwargs)
        self.student = student
        self.fields["classroom"].queryset = (
            Classroom.objects.for_teacher(teacher).active().exclude(pk=student.classroom_id)
        )

    def clean_classroom(self):
        target = self.cleaned_data["classroom"]
        target.lock_names()  # until the view's transaction has moved the child
        if target.name_taken_by(self.student.name):
            raise ValidationError(
                _("%(class)s already has a child called %(name)s: rename one of them first.")
                % {"class": isolate(target.name), "name": isolate(self.student.name)}
            )
        return target


class RosterForm(forms.Form):
    names = forms.CharField(
        label=_("Paste names, one per line"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "wrap": "off"}),
    )
    csv_file = forms.FileField(label=_("… or choose a CSV file"), required=False)

    def __init__(self, *args, classroom, **kwargs):
        super().__init__(*args, **kwargs)
        self.classroom = classroom
        self.reading = None
        self.text = ""
        self.fields["csv_file"].widget.attrs["accept"] = ".csv,.txt,text/csv,text/plain"

    def clean(self):
        data = super().clean()
        text, upload = data.get("names") or "", data.get("csv_file")
        if upload and text.strip():
            raise ValidationError(_("Paste names or choose a file, not both."))
        if upload:
            text = self.read_upload(upload)
        elif not text.strip():
            raise ValidationError(_("Paste some names, or choose a CSV file."))
        if len(text.encode("utf-8")) > ROSTER_MAX_BYTES:
            raise ValidationError(_("That is too much text: at most 100 KB."))
        self.text = roster_text(text)
        self.reading = self.classroom.read_roster(self.text)
        # The good lines are added even when others are bad (the view gives the bad ones back
        # to fix), unless nothing is good or the whole list is refused (too many lines).
        if not self.reading.rows or any(n is None for n, _reason in self.reading.errors):
            self.data = self.data.copy()
            self.data["names"] = self.text  # the box shows the lines as they are numbered
            raise ValidationError(
                _("Nothing was added. Fix the lines below and try again."), code="lines"
            )
        return data

    def read_upload(self, upload) -> str:
        if upload.size > ROSTER_MAX_BYTES:
            raise ValidationError(_("The file is too big: at most 100 KB."))
        raw = upload.read()
        if raw.startswith(b"PK\x03\x04"):
            raise ValidationError(
                _("This looks like a spreadsheet file. Save it as “CSV UTF-8” and choose that.")
            )
        if b"\x00" in raw:
            raise ValidationError(_("This is not a text file. Choose a CSV file."))
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValidationError(
                _("The file is not in UTF-8. In your spreadsheet, save it as “CSV UTF-8”.")
            ) from error


# --- the teacher's game sessions (a MultipliPotion session) ------------------------------------
LOCAL_INPUT = "%Y-%m-%dT%H:%M"
TARGET_LIMITS = {"games": 20, "minutes": 120}
SAME_AS_CLASS = ""


class LocalDateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs):
        super().__init__(format=LOCAL_INPUT, **kwargs)


class AssignmentForm(forms.ModelForm):
    WHO_CHOICES = [
        ("class", _("The whole class")),
        ("groups", _("Some groups")),
        ("children", _("Chosen children")),
    ]

    who = forms.ChoiceField(
        label=_("Who plays?"), choices=WHO_CHOICES, initial="class", widget=forms.RadioSelect
    )
    bot_level = forms.ChoiceField(
        label=_("Computer level"),
        choices=[
            ("apprentice", _("Apprentice Pip (gentle)")),
            ("wizard", _("Grand Wizard Zed (sharp)")),
            ("coach", _("Coach Luna (plays each child's weakest facts)")),
        ],
        initial="apprentice",
        widget=forms.RadioSelect,
    )

    class Meta:
        model = Assignment
        fields = [
            "title",
            "tier",
            "opponents",
            "bot_level",
            "target_kind",
            "target_value",
            "opens_at",
            "closes_at",
            "accuracy_first",
            "warm_up_minutes",
            "groups",
            "students",
        ]
        labels = {
            "title": _("Title (the children see it)"),
            "tier": _("Which tables?"),
            "opponents": _("Who do they play against?"),
            "target_kind": pgettext_lazy("session form: count games or minutes", "Target"),
            "target_value": pgettext_lazy("session form: how many games or minutes", "How many?"),
            "opens_at": pgettext_lazy("session form: when the session opens", "Opens at"),
            "closes_at": _("Closes at (optional)"),
            "accuracy_first": _("Accuracy first: record speed but never show or score it"),
            "warm_up_minutes": _("Potion warm-up before each game"),
            "groups": pgettext_lazy("session form: which groups play", "Groups"),
            "students": pgettext_lazy("session form: which children play", "Children"),
        }
        widgets = {
            "tier": forms.RadioSelect,
            "warm_up_minutes": forms.RadioSelect,
            "opponents": forms.RadioSelect,
            "target_kind": forms.RadioSelect,
            "target_value": forms.NumberInput(attrs={"min": 1, "max": 120, "inputmode": "numeric"}),
            "opens_at": LocalDateTimeInput(),
            "closes_at": LocalDateTimeInput(),
            "groups": forms.CheckboxSelectMultiple,
            "students": forms.CheckboxSelectMultiple,
        }
        help_texts = {
            "warm_up_minutes": _(
                "Before each game, a short quick-fire round of typed answers, the child's "
                "weakest facts first. In an accuracy-first session it has no clock: "
                "10 questions per minute chosen. In a class's first weeks, 2 minutes shows "
                "you every fact sooner."
            ),
        }

    def __init__(self, *args, classroom, **kwargs):
        super().__init__(*args, **kwargs)
        self.classroom = classroom
        self.fields["title"].widget.attrs.update({"autocomplete": "off", "maxlength": 80})
        self.fields["target_kind"].label = pgettext_lazy(
            "session form: count games or minutes", "Target"
        )
        # Left out of a form (an older page, a script): the session keeps its length.
        self.fields["warm_up_minutes"].required = False
        self.fields["groups"].queryset = classroom.groups.all()
        self.fields["students"].queryset = Student.objects.active().filter(classroom=classroom)
        self.fields["groups"].required = False
        self.fields["students"].required = False
        self.children = list(self.fields["students"].queryset)
        overrides = self.instance.tier_overrides if self.instance.pk else {}
        tier_choices = [(SAME_AS_CLASS, _("Same as the class")), *Assignment.Tier.choices]
        for child in self.children:
            self.fields[f"tier_{child.pk}"] = forms.ChoiceField(
                label=child.name,
                choices=tier_choices,
                required=False,
                initial=overrides.get(str(child.pk), SAME_AS_CLASS),
                # Not Django's "id_tier_<pk>": that is also the id of the tables radios' options.
                widget=forms.Select(attrs={"id": f"id_child_tier_{child.pk}"}),
            )
        if self.instance.pk:
            if self.instance.groups.exists():
                self.initial["who"] = "groups"
            elif self.instance.students.exists():
                self.initial["who"] = "children"
        else:
            self.initial.setdefault(
                "opens_at", timezone.localtime().replace(second=0, microsecond=0)
            )

    def tier_fields(self):
        """(child, bound select) for the per-child override table."""
        return [(child, self[f"tier_{child.pk}"]) for child in self.children]

    def has_overrides(self) -> bool:
        return any(bf.value() for _child, bf in self.tier_fields())

    def clean_title(self):
        title = clean_name(self.cleaned_data["title"])  # typed text the children see
        if not title:
            raise forms.ValidationError(_("Give the session a title."))
        return title

    def clean_warm_up_minutes(self):
        minutes = self.cleaned_data.get("warm_up_minutes")
        if minutes in (None, ""):
            return self.instance.warm_up_minutes if self.instance.pk else 1
        return minutes

    def clean(self):
        data = super().clean()
        kind, value = data.get("target_kind"), data.get("target_value")
        if kind and value is not None:
            limit = TARGET_LIMITS.get(kind, 120)
            if not 1 <= value <= limit:
                self.add_error(
                    "target_value",
                    _("Choose a number from 1 to %(limit)s.") % {"limit": limit},
                )
        opens, closes = data.get("opens_at"), data.get("closes_at")
        if opens and closes and closes <= opens:
            self.add_error("closes_at", _("The session must close after it opens."))
        if closes and closes <= timezone.now() and "closes_at" not in self.errors:
            self.add_error("closes_at", _("This time has already passed."))
        who = data.get("who")
        if who == "groups" and not data.get("groups"):
            self.add_error("groups", _("Tick at least one group."))
        if who == "children" and not data.get("students"):
            self.add_error("students", _("Tick at least one child."))
        return data

    def save(self, commit=True):
        assignment = super().save(commit=False)
        assignment.classroom = self.classroom
        assignment.tier_overrides = {
            str(child.pk): tier
            for child in self.children
            if (tier := self.cleaned_data.get(f"tier_{child.pk}"))
        }
        if commit:
            from classroom import live

            assignment.save()
            live.class_changed(self.classroom.pk, waiting=True)  # the wall's sessions
            who = self.cleaned_data["who"]
            assignment.groups.set(self.cleaned_data["groups"] if who == "groups" else [])
            assignment.students.set(self.cleaned_data["students"] if who == "children" else [])
        return assignment
