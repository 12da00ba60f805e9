"""Classes, groups and children: what a teacher keeps in their class lists.

Every object is found through its teacher (``for_teacher``): another teacher's class,
group or child answers 404.
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from classroom.models import Classroom, Group, Student
from classroom.models.roster import (
    GROUP_MAX_LENGTH,
    NAME_MAX_LENGTH,
    ROSTER_MAX_BYTES,
    ROSTER_MAX_ROWS,
    child_name_problem,
    group_name_problem,
    tidy,
)
from classroom.views.access import teacher_page
from config.names import NameField, isolate, name_key

from .accounts import finish, membership_of, not_in_a_school, render_page

DETAIL = "classroom/rosters/class_detail.html"
CLASS_FORM = "classroom/rosters/class_form.html"
GROUP_FORM = "classroom/rosters/group_form.html"
STUDENT_FORM = "classroom/rosters/student_form.html"
STUDENT_MOVE = "classroom/rosters/student_move.html"
STUDENT_DELETE = "classroom/rosters/student_delete.html"


# --- forms -------------------------------------------------------------------------------------
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
        labels = {"name": _("First name or nickname"), "group": _("Group")}
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
        self.reading = self.classroom.read_roster(text)
        if self.reading.errors:
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


# --- page helpers ------------------------------------------------------------------------------
def my_class(request, pk) -> Classroom:
    return get_object_or_404(Classroom.objects.for_teacher(request.user), pk=pk)


def my_student(request, pk) -> Student:
    return get_object_or_404(
        Student.objects.for_teacher(request.user).select_related("classroom", "group"), pk=pk
    )


def my_group(request, pk) -> Group:
    return get_object_or_404(
        Group.objects.for_teacher(request.user).select_related("classroom"), pk=pk
    )


def detail_context(classroom, **forms_):
    students = list(classroom.students.select_related("group"))
    context = {
        "classroom": classroom,
        "students": [s for s in students if s.archived_at is None],
        "archived_students": [s for s in students if s.archived_at is not None],
        "groups": list(classroom.groups.all()),
        "roster_form": RosterForm(classroom=classroom),
        "group_form": GroupForm(classroom=classroom),
        "max_rows": ROSTER_MAX_ROWS,
    }
    context.update(forms_)
    return context


def class_url(classroom):
    return reverse("classroom:class_detail", args=[classroom.pk])


# --- classes -----------------------------------------------------------------------------------
@teacher_page
@require_http_methods(["GET", "POST"])
def class_new(request):
    membership = membership_of(request.user)
    if membership is None:
        return not_in_a_school(request, status=403)
    form = ClassForm(request.POST or None, teacher=request.user)
    context = {"form": form, "classroom": None}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, CLASS_FORM, "form", context, status=422)
        classroom = form.save(commit=False)
        classroom.school = membership.school
        classroom.teacher = request.user
        classroom.save()
        messages.success(
            request,
            gettext("Class %(name)s is ready: add the children.")
            % {"name": isolate(classroom.name)},
        )
        return finish(request, class_url(classroom))
    return render(request, CLASS_FORM, context)


@teacher_page
@require_http_methods(["GET", "POST"])
def class_edit(request, pk):
    classroom = my_class(request, pk)
    form = ClassForm(request.POST or None, instance=classroom, teacher=request.user)
    context = {"form": form, "classroom": classroom}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, CLASS_FORM, "form", context, status=422)
        form.save()
        messages.success(request, gettext("Class renamed."))
        return finish(request, class_url(classroom))
    return render(request, CLASS_FORM, context)


@teacher_page
@require_http_methods(["GET"])
def class_detail(request, pk):
    classroom = my_class(request, pk)
    with timezone.override(classroom.school.zone):  # "Locked until 10:42", the school's time
        return render(request, DETAIL, detail_context(classroom))


@teacher_page
@require_POST
def class_archive(request, pk):
    classroom = my_class(request, pk)
    classroom.archive()
    messages.success(
        request,
        gettext("%(name)s is archived: its children cannot sign in. You can restore it.")
        % {"name": isolate(classroom.name)},
    )
    return finish(request, reverse("classroom:teacher_home"))


@teacher_page
@require_POST
def class_restore(request, pk):
    classroom = my_class(request, pk)
    others = Classroom.objects.for_teacher(request.user).active().values_list("name", flat=True)
    clash = any(name_key(other) == name_key(classroom.name) for other in others)
    if classroom.is_archived and clash:
        messages.error(
            request,
            gettext("You already have an active class called %(name)s: rename one first.")
            % {"name": isolate(classroom.name)},
        )
        return finish(request, class_url(classroom))
    classroom.restore()
    messages.success(request, gettext("%(name)s is back.") % {"name": isolate(classroom.name)})
    return finish(request, class_url(classroom))


@teacher_page
@require_POST
def class_code_new(request, pk):
    classroom = my_class(request, pk)
    classroom.regenerate_code()
    messages.success(
        request,
        gettext("New class code: %(code)s. The old code no longer works.")
        % {"code": classroom.code},
    )
    return finish(request, class_url(classroom) + "#class-code")


@teacher_page
@require_POST
def roster_add(request, pk):
    classroom = my_class(request, pk)
    form = RosterForm(request.POST, request.FILES, classroom=classroom)
    if not form.is_valid():
        with timezone.override(classroom.school.zone):
            return render_page(
                request, DETAIL, "add_form", detail_context(classroom, roster_form=form), status=422
            )
    students, new_groups = classroom.add_roster(form.reading)
    text = ngettext("%(count)d child added.", "%(count)d children added.", len(students)) % {
        "count": len(students)
    }
    if new_groups:
        text += " " + gettext("New groups: %(names)s.") % {
            "names": ", ".join(isolate(g.name) for g in new_groups)
        }
    messages.success(request, text)
    return finish(request, class_url(classroom))


# --- groups ------------------------------------------------------------------------------------
@teacher_page
@require_POST
def group_new(request, pk):
    classroom = my_class(request, pk)
    form = GroupForm(request.POST, classroom=classroom)
    if not form.is_valid():
        with timezone.override(classroom.school.zone):
            context = detail_context(classroom, group_form=form)
            return render_page(request, DETAIL, "group_form", context, status=422)
    group = form.save()
    messages.success(request, gettext("Group %(name)s added.") % {"name": isolate(group.name)})
    return finish(request, class_url(classroom) + "#groups")


@teacher_page
@require_http_methods(["GET", "POST"])
def group_edit(request, pk):
    group = my_group(request, pk)
    form = GroupForm(request.POST or None, instance=group, classroom=group.classroom)
    context = {"form": form, "group": group, "classroom": group.classroom}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, GROUP_FORM, "form", context, status=422)
        form.save()
        messages.success(request, gettext("Group renamed."))
        return finish(request, class_url(group.classroom) + "#groups")
    return render(request, GROUP_FORM, context)


@teacher_page
@require_POST
def group_delete(request, pk):
    group = my_group(request, pk)
    classroom = group.classroom
    group.delete()  # its children stay in the class, without a group
    messages.success(
        request,
        gettext("Group %(name)s removed; its children are still in the class.")
        % {"name": isolate(group.name)},
    )
    return finish(request, class_url(classroom) + "#groups")


# --- children ----------------------------------------------------------------------------------
@teacher_page
@require_http_methods(["GET", "POST"])
def student_edit(request, pk):
    student = my_student(request, pk)
    form = StudentForm(request.POST or None, instance=student)
    context = {"form": form, "student": student, "classroom": student.classroom}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, STUDENT_FORM, "form", context, status=422)
        form.save()
        messages.success(request, gettext("Saved."))
        return finish(request, class_url(student.classroom))
    return render(request, STUDENT_FORM, context)


@teacher_page
@require_http_methods(["GET", "POST"])
def student_move(request, pk):
    student = my_student(request, pk)
    form = MoveForm(request.POST or None, student=student, teacher=request.user)
    context = {"form": form, "student": student, "classroom": student.classroom}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, STUDENT_MOVE, "form", context, status=422)
        old = student.classroom
        target = form.cleaned_data["classroom"]
        student.move_to(target)
        messages.success(
            request,
            gettext("%(name)s moved to %(class)s.")
            % {"name": isolate(student.name), "class": isolate(target.name)},
        )
        return finish(request, class_url(old))
    return render(request, STUDENT_MOVE, context)


@teacher_page
@require_POST
def student_archive(request, pk):
    student = my_student(request, pk)
    student.archive()
    messages.success(
        request,
        gettext("%(name)s is archived: they cannot sign in. You can restore them.")
        % {"name": isolate(student.name)},
    )
    return finish(request, class_url(student.classroom))


@teacher_page
@require_POST
def student_restore(request, pk):
    student = my_student(request, pk)
    student.restore()
    messages.success(request, gettext("%(name)s is back.") % {"name": isolate(student.name)})
    return finish(request, class_url(student.classroom))


@teacher_page
@require_http_methods(["GET", "POST"])
def student_delete(request, pk):
    student = my_student(request, pk)
    classroom = student.classroom
    if request.method == "GET":
        games = student.seats.values("match").distinct().count()
        return render(
            request, STUDENT_DELETE, {"student": student, "classroom": classroom, "games": games}
        )
    name = student.name
    with transaction.atomic():
        student.delete_everything()
    messages.success(
        request, gettext("%(name)s and all their data are deleted.") % {"name": isolate(name)}
    )
    return finish(request, class_url(classroom))
