"""Classes, groups and children: what a teacher keeps in their class lists.

Every object is found through its teacher (``for_teacher``): another teacher's class,
group or child answers 404.
"""

from django.contrib import messages
from django.db import transaction
from django.shortcuts import get_object_or_404
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import ngettext
from django.utils.translation import pgettext
from django.views.decorators.http import require_http_methods
from django.views.decorators.http import require_POST
from django.views.decorators.http import require_safe

from classroom.forms import ClassForm
from classroom.forms import GroupForm
from classroom.forms import MoveForm
from classroom.forms import RosterForm
from classroom.forms import StudentForm
from classroom.models import Classroom
from classroom.models import Group
from classroom.models import Student
from classroom.models.roster import ROSTER_MAX_ROWS
from classroom.views.access import teacher_page
from config.names import isolate
from config.names import name_key

from .accounts import membership_of
from .accounts import not_in_a_school
from .responses import done
from .responses import finish
from .responses import render_page

DETAIL = "classroom/rosters/class_detail.html"
# The session's copy of a paste's lines that were not added (roster_add, then class_detail).
LEFTOVER = "roster_leftover"
CLASS_FORM = "classroom/rosters/class_form.html"
GROUP_FORM = "classroom/rosters/group_form.html"
STUDENT_FORM = "classroom/rosters/student_form.html"
STUDENT_MOVE = "classroom/rosters/student_move.html"
STUDENT_DELETE = "classroom/rosters/student_delete.html"


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
        "guessing": classroom.guessing(),
    }
    context.update(forms_)
    return context


def class_url(classroom):
    return reverse("classroom:class_detail", args=[classroom.pk])


# --- classes -----------------------------------------------------------------------------------
@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
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
        return done(
            request,
            class_url(classroom),
            gettext("Class %(name)s is ready: add the children.")
            % {"name": isolate(classroom.name)},
        )
    return render(request, CLASS_FORM, context)


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def class_edit(request, pk):
    classroom = my_class(request, pk)
    form = ClassForm(request.POST or None, instance=classroom, teacher=request.user)
    context = {"form": form, "classroom": classroom}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, CLASS_FORM, "form", context, status=422)
        form.save()
        return done(request, class_url(classroom), gettext("Class renamed."))
    return render(request, CLASS_FORM, context)


@teacher_page
@require_safe
def class_detail(request, pk):
    classroom = my_class(request, pk)
    forms_ = {}
    leftover = request.session.pop(LEFTOVER, None)
    if isinstance(leftover, dict) and leftover.get("class") == classroom.pk:
        # The lines of the last paste that were not added, back in the box with their reasons
        # (read again: a name added meanwhile is now "already in this class").
        form = RosterForm({"names": str(leftover.get("text", ""))}, classroom=classroom)
        form.is_valid()
        forms_ = {"roster_form": form, "leftover": True}
    return render(request, DETAIL, detail_context(classroom, **forms_))


@teacher_page
@require_POST
def class_archive(request, pk):
    classroom = my_class(request, pk)
    classroom.archive()
    return done(
        request,
        reverse("classroom:teacher_home"),
        gettext("%(name)s is archived: its children cannot sign in. You can restore it.")
        % {"name": isolate(classroom.name)},
    )


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
    return done(
        request,
        class_url(classroom),
        gettext("%(name)s is back.") % {"name": isolate(classroom.name)},
    )


@teacher_page
@require_POST
def class_code_new(request, pk):
    classroom = my_class(request, pk)
    classroom.regenerate_code()
    return done(
        request,
        class_url(classroom) + "#class-code",
        gettext("New class code: %(code)s. The old code no longer works.")
        % {"code": classroom.code},
    )


@teacher_page
@require_POST
def roster_add(request, pk):
    classroom = my_class(request, pk)
    form = RosterForm(request.POST, request.FILES, classroom=classroom)
    if not form.is_valid():
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
    bad = form.reading.bad_lines
    if not bad:
        return done(request, class_url(classroom), text)
    text += " " + ngettext(
        "%(count)d line was not added: it is in the box below, to fix.",
        "%(count)d lines were not added: they are in the box below, to fix.",
        len(bad),
    ) % {"count": len(bad)}
    request.session[LEFTOVER] = {"class": classroom.pk, "text": "\n".join(bad)}
    # (No "#add-children": to the page the browser is on, a new fragment would not reload it;
    # the box's alert takes the focus, which brings it into view.)
    return done(request, class_url(classroom), text)


# --- groups ------------------------------------------------------------------------------------
@teacher_page
@require_POST
def group_new(request, pk):
    classroom = my_class(request, pk)
    form = GroupForm(request.POST, classroom=classroom)
    if not form.is_valid():
        context = detail_context(classroom, group_form=form)
        return render_page(request, DETAIL, "group_form", context, status=422)
    group = form.save()
    return done(
        request,
        class_url(classroom) + "#groups",
        gettext("Group %(name)s added.") % {"name": isolate(group.name)},
    )


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def group_edit(request, pk):
    group = my_group(request, pk)
    form = GroupForm(request.POST or None, instance=group, classroom=group.classroom)
    context = {"form": form, "group": group, "classroom": group.classroom}
    if request.method == "POST":
        if not form.is_valid():
            return render_page(request, GROUP_FORM, "form", context, status=422)
        form.save()
        return done(request, class_url(group.classroom) + "#groups", gettext("Group renamed."))
    return render(request, GROUP_FORM, context)


@teacher_page
@require_POST
def group_delete(request, pk):
    group = my_group(request, pk)
    classroom = group.classroom
    group.delete()  # its children stay in the class, without a group
    return done(
        request,
        class_url(classroom) + "#groups",
        gettext("Group %(name)s removed; its children are still in the class.")
        % {"name": isolate(group.name)},
    )


# --- children ----------------------------------------------------------------------------------
@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def student_edit(request, pk):
    student = my_student(request, pk)
    form = StudentForm(request.POST or None, instance=student)
    context = {"form": form, "student": student, "classroom": student.classroom}
    if request.method == "POST":
        with transaction.atomic():  # the name is checked and saved under the class's lock
            student.classroom.lock_names()
            saved = form.is_valid() and bool(form.save())
        if not saved:
            return render_page(request, STUDENT_FORM, "form", context, status=422)
        return done(
            request,
            class_url(student.classroom),
            pgettext("message: a child's details were saved", "Saved."),
        )
    return render(request, STUDENT_FORM, context)


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def student_move(request, pk):
    student = my_student(request, pk)
    form = MoveForm(request.POST or None, student=student, teacher=request.user)
    context = {"form": form, "student": student, "classroom": student.classroom}
    if request.method == "POST":
        old = student.classroom
        with transaction.atomic():  # the form locks the target class's names (MoveForm)
            moved = form.is_valid()
            if moved:
                target = form.cleaned_data["classroom"]
                student.move_to(target)
        if not moved:
            return render_page(request, STUDENT_MOVE, "form", context, status=422)
        return done(
            request,
            class_url(old),
            gettext("%(name)s moved to %(class)s.")
            % {"name": isolate(student.name), "class": isolate(target.name)},
        )
    return render(request, STUDENT_MOVE, context)


@teacher_page
@require_POST
def student_archive(request, pk):
    student = my_student(request, pk)
    student.archive()
    return done(
        request,
        class_url(student.classroom),
        gettext("%(name)s is archived: they cannot sign in. You can restore them.")
        % {"name": isolate(student.name)},
    )


@teacher_page
@require_POST
def student_restore(request, pk):
    student = my_student(request, pk)
    student.restore()
    return done(
        request,
        class_url(student.classroom),
        gettext("%(name)s is back.") % {"name": isolate(student.name)},
    )


@teacher_page
@require_http_methods(["GET", "HEAD", "POST"])
def student_delete(request, pk):
    student = my_student(request, pk)
    classroom = student.classroom
    if request.method in ("GET", "HEAD"):
        games = student.child_seats.values("seat__match").distinct().count()
        return render(
            request, STUDENT_DELETE, {"student": student, "classroom": classroom, "games": games}
        )
    name = student.name
    with transaction.atomic():
        student.delete_everything()
    return done(
        request,
        class_url(classroom),
        gettext("%(name)s and all their data are deleted.") % {"name": isolate(name)},
    )
