"""Questions the teachers' reports ask about many rows (see docs/analytics.md, "What teachers
see"). The statistics themselves are filled by the pipeline (FactStat, ClassFactStat,
DailyTrend); these QuerySets only read them.

``Student.reports`` is a second manager on Student (the roster's ``objects`` stays the
default): ``Student.reports.for_teacher(user).needing_help(week_start)``.
"""

from django.db import models
from django.db.models import Count, Exists, ExpressionWrapper, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from classroom.diagnosis import LEARNING

from .analytics import Attempt, FactStat
from .roster import Student, StudentQuerySet

# "Needs help": a child with at least WEAK_FACTS facts (as asked) still being learned with an
# accuracy under 60 % over at least WEAK_MIN_ATTEMPTS attempts, or at least WEEK_OMISSIONS
# captures left on the board since Monday (the school's local week).
WEAK_FACTS = 3
WEAK_MIN_ATTEMPTS = 5
WEAK_ACCURACY_NUM, WEAK_ACCURACY_DEN = 3, 5  # accuracy < 3/5 = 60 %
WEEK_OMISSIONS = 3


class FactStatReportQuerySet(models.QuerySet):
    def weak(self):
        """Facts still being learned with accuracy under 60 % over at least 5 attempts."""
        return (
            self.filter(state=LEARNING, attempts__gte=WEAK_MIN_ATTEMPTS)
            .annotate(
                _margin=ExpressionWrapper(
                    F("correct") * WEAK_ACCURACY_DEN - F("attempts") * WEAK_ACCURACY_NUM,
                    output_field=models.IntegerField(),
                )
            )
            .filter(_margin__lt=0)
        )


def weak_facts():
    return FactStatReportQuerySet(model=FactStat)


class ReportStudentQuerySet(StudentQuerySet):
    def with_help_flags(self, week_start):
        """Annotate ``weak_facts`` (see FactStatReportQuerySet.weak), ``week_omissions``
        (missed captures since ``week_start``) and ``needs_help``. Two subqueries, no join
        that multiplies rows."""
        weak = (
            weak_facts()
            .weak()
            .filter(student=OuterRef("pk"))
            .order_by()
            .values("student")
            .annotate(n=Count("pk"))
            .values("n")
        )
        missed = (
            Attempt.objects.filter(
                student=OuterRef("pk"),
                context=Attempt.Context.MISSED,
                created_at__gte=week_start,
            )
            .order_by()
            .values("student")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return self.annotate(
            weak_facts=Coalesce(Subquery(weak, output_field=models.IntegerField()), 0),
            week_omissions=Coalesce(Subquery(missed, output_field=models.IntegerField()), 0),
        ).annotate(
            needs_help=models.Case(
                models.When(
                    Q(weak_facts__gte=WEAK_FACTS) | Q(week_omissions__gte=WEEK_OMISSIONS),
                    then=True,
                ),
                default=False,
                output_field=models.BooleanField(),
            )
        )

    def needing_help(self, week_start):
        return self.with_help_flags(week_start).filter(needs_help=True)

    def with_any_stats(self):
        return self.filter(Exists(FactStat.objects.filter(student=OuterRef("pk"))))


class ReportStudentManager(models.Manager.from_queryset(ReportStudentQuerySet)):
    use_in_migrations = False


# A second, non-default manager: ``Student.objects`` (the roster's) stays the default.
Student.add_to_class("reports", ReportStudentManager())
