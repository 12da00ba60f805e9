"""What teachers see, the views: a child's and a class's fact reports, the school's report,
the hardest facts and the "rebuild the statistics" button (docs/analytics.md, "What teachers
see"). Their context is shaped in report_context.py; the exports are exports.py.

What a child knows is read from the knowledge model's state in FactStat (filled by the
pipeline in classroom/tasks.py) through ``knowledge.summarise``, the attempts per day from
DailyTrend; nothing here computes them from the attempts except a fact's median time (see
``timed_median``), the hardest facts of a range, the class's median times and a fact's
weeks (``classroom.models.hardest``), and the exports, which are the raw attempts.

Permissions: a child's and a class's pages only for the class's teacher (anyone else 404;
not logged in as a grown-up, children included: the log-in page); the school report only for
the school's admin.
"""

import logging
from datetime import timedelta

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.shortcuts import redirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from django.views.decorators.http import require_safe
from django_htmx.http import HttpResponseStopPolling

from classroom import charts
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import RecomputeJob
from classroom.models import Student
from classroom.views.access import teacher_page
from classroom.views.report_context import admin_school
from classroom.views.report_context import check_fact
from classroom.views.report_context import child_context
from classroom.views.report_context import class_context
from classroom.views.report_context import class_hardest_context
from classroom.views.report_context import group_heatmap
from classroom.views.report_context import group_table
from classroom.views.report_context import job_context
from classroom.views.report_context import my_class
from classroom.views.report_context import my_student
from classroom.views.report_context import partial
from classroom.views.report_context import school_hardest_context
from classroom.views.report_context import trend_for
from games import queue

logger = logging.getLogger(__name__)

# An unfinished rebuild younger than this blocks a second one for the same class; an older
# one is taken as lost (a worker that never picked it up) and a new one may start.
RECOMPUTE_STALE_AFTER = timedelta(minutes=15)


CHILD = "classroom/reports/child.html"


@teacher_page
@require_safe
def child_report(request, pk):
    student = my_student(request, pk)
    return render(request, partial(request, CHILD, "facts"), child_context(request, student))


@teacher_page
@require_safe
def child_fact(request, pk, a, b):
    """One fact of a child: the detail panel (htmx, with the heatmap showing the selected
    cell) or, for a plain request, the whole report with that fact open."""
    check_fact(a, b)
    student = my_student(request, pk)
    return render(
        request, partial(request, CHILD, "facts"), child_context(request, student, (a, b))
    )


@teacher_page
@require_safe
def child_report_print(request, pk):
    student = my_student(request, pk)
    ctx = child_context(request, student)
    for row in ctx["rows"]:
        for cell in row["cells"]:
            cell.href = ""  # paper: plain squares, no links
    ctx["printed_at"] = timezone.now()
    return render(request, "classroom/reports/print.html", ctx)


CLASS = "classroom/reports/class.html"


@teacher_page
@require_safe
def class_report(request, pk):
    classroom = my_class(request, pk)
    ctx = class_context(request, classroom)
    return render(request, partial(request, CLASS, "facts"), ctx, status=range_status(ctx))


@teacher_page
@require_safe
def class_fact(request, pk, a, b):
    check_fact(a, b)
    classroom = my_class(request, pk)
    return render(
        request, partial(request, CLASS, "facts"), class_context(request, classroom, (a, b))
    )


# --- rebuilding the statistics ----------------------------------------------------------------


def send_recompute(job_id: int) -> None:
    """After the commit: hand the job to the worker (helper F's task). If the task or the
    broker is not there, the job is marked failed so the progress bar stops."""

    try:
        from classroom.tasks import recompute_job
    except ImportError:
        logger.exception("classroom.tasks.recompute_job is missing")
        sent = False
    else:
        sent = queue.enqueue(recompute_job, job_id)
    if not sent:
        RecomputeJob.objects.filter(pk=job_id).exclude(status=RecomputeJob.Status.DONE).update(
            status=RecomputeJob.Status.FAILED, finished_at=timezone.now()
        )


PROGRESS = "classroom/reports/_recompute.html"


@teacher_page
@require_POST
def recompute_start(request, pk):
    """Rebuild this class's statistics. One rebuild at a time per class: while one is
    queued or running (and not stale), the answer is 409 with its progress bar."""
    classroom = my_class(request, pk)
    with transaction.atomic():
        Classroom.objects.select_for_update().filter(pk=classroom.pk).first()
        running = (
            RecomputeJob.objects.filter(
                classroom=classroom,
                status__in=[RecomputeJob.Status.QUEUED, RecomputeJob.Status.RUNNING],
                created_at__gte=timezone.now() - RECOMPUTE_STALE_AFTER,
            )
            .order_by("-created_at")
            .first()
        )
        if running is not None:
            if request.htmx:
                ctx = {"classroom": classroom, **job_context(running)}
                return render(request, PROGRESS, ctx, status=409)
            return redirect(
                f"{reverse('classroom:class_report', args=[classroom.pk])}?job={running.pk}"
            )
        job = RecomputeJob.objects.create(classroom=classroom, requested_by=request.user)
        transaction.on_commit(lambda: send_recompute(job.pk))
    if request.htmx:
        return render(request, PROGRESS, {"classroom": classroom, **job_context(job)})
    return redirect(f"{reverse('classroom:class_report', args=[classroom.pk])}?job={job.pk}")


@never_cache
@teacher_page
@require_safe
def recompute_progress(request, pk):
    """The polled progress bar; 286 (htmx: stop polling) once the job is done or failed."""
    job = get_object_or_404(
        RecomputeJob.objects.filter(classroom__teacher=request.user).select_related("classroom"),
        pk=pk,
    )
    if not request.htmx:
        return redirect(
            f"{reverse('classroom:class_report', args=[job.classroom_id])}?job={job.pk}"
        )
    ctx = {"classroom": job.classroom, **job_context(job)}
    if ctx["finished"]:  # django-htmx's 286: the bar's last look, and htmx stops polling
        return HttpResponseStopPolling(render_to_string(PROGRESS, ctx, request))
    return render(request, PROGRESS, ctx)


# --- the school -------------------------------------------------------------------------------


@teacher_page
@require_safe
def school_report(request):
    school = admin_school(request)
    classes = school.classrooms.active()
    children = Student.reports.filter(classroom__in=classes).active().with_help_flags()
    counts = charts.count_squares([s.summary for s in children])
    ranked = school_hardest_context(request, school, classes)
    return render(
        request,
        "classroom/reports/school.html",
        {
            "hardest": ranked,
            "school": school,
            "rows": group_heatmap(counts),
            "table_rows": group_table(counts),
            "class_count": classes.count(),
            "trend": trend_for(DailyTrend.Scope.SCHOOL, school.pk, school.local_today()),
        },
        status=422 if ranked["bad_range"] else 200,
    )


HARDEST = "classroom/reports/_hardest.html"


def range_status(ctx: dict) -> int:
    """422 when the page's ``range`` was not one of ``hardest.RANGES`` (what it shows is
    this week, with a message)."""
    ranked = ctx.get("hardest")
    return 422 if ranked and ranked["bad_range"] else 200


@teacher_page
@require_safe
def class_hardest(request, pk):
    """The class's hardest facts over a range: the list alone for htmx, else the report."""
    classroom = my_class(request, pk)
    if request.htmx:
        ctx = {"hardest": class_hardest_context(request, classroom), "classroom": classroom}
        return render(request, HARDEST, ctx, status=range_status(ctx))
    ctx = class_context(request, classroom)
    return render(request, CLASS, ctx, status=range_status(ctx))


@teacher_page
@require_safe
def school_hardest(request):
    """The school's hardest facts over a range: the list alone for htmx, else the report."""
    if not request.htmx:
        return school_report(request)
    school = admin_school(request)
    ctx = {"hardest": school_hardest_context(request, school, school.classrooms.active())}
    return render(request, HARDEST, ctx, status=range_status(ctx))
