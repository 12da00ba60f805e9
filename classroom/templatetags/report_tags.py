"""The "needs help" flags that other pages include with one line (teacher's home, live wall).

The rule is ReportStudentQuerySet.with_help_flags (classroom/models/report_queries.py); the
permission is the same as the pages': only the signed-in teacher's own classes.
"""

from django import template

from classroom.models import Classroom
from classroom.models import Student
from classroom.models.report_queries import help_reasons as reasons_of
from classroom.models.report_queries import stuck_reason as stuck_reason_of

register = template.Library()


@register.simple_tag
def needs_help_for_teacher(user) -> list[dict]:
    """[{"classroom": c, "students": [...]}] for the teacher's active classes, children who
    need help only; classes with nobody flagged are left out."""
    return for_teacher(user)


def for_teacher(user, stuck=False) -> list[dict]:
    if user is None or not user.is_authenticated:
        return []
    out = []
    classes = Classroom.objects.for_teacher(user).active().select_related("school")
    for classroom in classes:
        students = list(in_class(classroom, stuck=stuck))
        if students:
            out.append({"classroom": classroom, "students": students})
    return out


@register.filter
def help_reasons(student) -> list[str]:
    """``{{ s|help_reasons|join:" · " }}``: why a flagged child needs help, in words."""
    return reasons_of(student)


@register.filter
def stuck_reason(student) -> str:
    """``{{ s|stuck_reason }}``: "Stuck on 7 × 8: wrong or missed 3 times in a row"."""
    return stuck_reason_of(student)


@register.simple_tag
def needs_help_in_class(classroom) -> list:
    return list(in_class(classroom))


@register.simple_tag
def stuck_in_class(classroom) -> list:
    """Children of the class stuck on a fact and not flagged (a flagged child's stuck fact is
    among the flag's reasons)."""
    return list(in_class(classroom, stuck=True))


@register.simple_tag
def stuck_for_teacher(user) -> list[dict]:
    """Like ``needs_help_for_teacher``, for the children stuck on a fact and not flagged."""
    return for_teacher(user, stuck=True)


def in_class(classroom, stuck=False):
    children = Student.reports.filter(classroom=classroom).active()
    children = children.stuck_not_flagged() if stuck else children.needing_help()
    return children.order_by("sort_name", "name", "pk")
