"""The "needs help" flags that other pages include with one line (teacher's home, live wall).

The rule is ReportStudentQuerySet.with_help_flags (classroom/models/report_queries.py); the
permission is the same as the pages': only the signed-in teacher's own classes.
"""

from django import template

from classroom.models import Classroom, Student
from classroom.models.report_queries import help_reasons as reasons_of

register = template.Library()


@register.simple_tag
def needs_help_for_teacher(user) -> list[dict]:
    """[{"classroom": c, "students": [...]}] for the teacher's active classes, children who
    need help only; classes with nobody flagged are left out."""
    if user is None or not user.is_authenticated:
        return []
    out = []
    classes = Classroom.objects.for_teacher(user).active().select_related("school")
    for classroom in classes:
        students = list(in_class(classroom))
        if students:
            out.append({"classroom": classroom, "students": students})
    return out


@register.filter
def help_reasons(student) -> list[str]:
    """``{{ s|help_reasons|join:" · " }}``: why a flagged child needs help, in words."""
    return reasons_of(student)


@register.simple_tag
def needs_help_in_class(classroom) -> list:
    return list(in_class(classroom))


def in_class(classroom):
    return (
        Student.reports.filter(classroom=classroom)
        .active()
        .needing_help()
        .order_by("sort_name", "name", "pk")
    )
