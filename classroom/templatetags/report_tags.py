"""The "needs help" flags that other pages include with one line (teacher's home, live wall).

The rule is ReportStudentQuerySet.with_help_flags (classroom/models/report_queries.py); the
permission is the same as the pages': only the signed-in teacher's own classes.
"""

from django import template

from classroom.models import Classroom
from classroom.models import Student
from classroom.models.report_queries import help_lists
from classroom.models.report_queries import help_reasons as reasons_of
from classroom.models.report_queries import stuck_reason as stuck_reason_of

register = template.Library()


@register.simple_tag
def help_for_teacher(user) -> dict:
    """{"flagged": groups, "stuck": groups} for the teacher's active classes, a group being
    {"classroom": c, "students": [...]}: the children who need help, and the children stuck on
    a fact and not flagged (a flagged child's stuck fact is among the flag's reasons). Classes
    with nobody in a list are left out of it. Three queries a class."""
    out: dict[str, list] = {"flagged": [], "stuck": []}
    if user is None or not user.is_authenticated:
        return out
    classes = Classroom.objects.for_teacher(user).active().select_related("school")
    for classroom in classes:
        for key, students in help_in_class(classroom).items():
            if students:
                out[key].append({"classroom": classroom, "students": students})
    return out


@register.simple_tag
def help_in_class(classroom) -> dict:
    """{"flagged": [...], "stuck": [...]}: the class's active children who need help, and those
    stuck on a fact and not flagged, by name; three queries."""
    children = Student.reports.filter(classroom=classroom).active()
    return help_lists(children.order_by("sort_name", "name", "pk").with_help_flags())


@register.filter
def help_reasons(student) -> list[str]:
    """``{{ s|help_reasons|join:" · " }}``: why a flagged child needs help, in words."""
    return reasons_of(student)


@register.filter
def stuck_reason(student) -> str:
    """``{{ s|stuck_reason }}``: "Stuck on 7 × 8: wrong or missed 3 times in a row"."""
    return stuck_reason_of(student)
