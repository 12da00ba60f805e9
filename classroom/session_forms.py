"""The teacher's form for an assignment (a MultipliPotion session)."""

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from classroom.models import Assignment, Student
from config.names import clean_name

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
            "target_kind": _("Target"),
            "target_value": _("How many?"),
            "opens_at": _("Opens at"),
            "closes_at": _("Closes at (optional)"),
            "accuracy_first": _("Accuracy first: record speed but never show or score it"),
            "warm_up_minutes": _("Potion warm-up before each game"),
            "groups": _("Groups"),
            "students": _("Children"),
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
        self.fields["target_kind"].label = _("Target")
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
            assignment.save()
            who = self.cleaned_data["who"]
            assignment.groups.set(self.cleaned_data["groups"] if who == "groups" else [])
            assignment.students.set(self.cleaned_data["students"] if who == "children" else [])
        return assignment
