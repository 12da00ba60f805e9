"""What teachers see (classroom/views/reports.py): a child's and a class's reports, the
exports and the rebuild button only for the class's teacher (teacher_a for class A);
anyone else logged in gets 404; not logged in as a grown-up (children too): the log-in page.
The school report: only a school admin, each seeing their own school."""

from django.urls import reverse
from expected import ALL
from expected import LOGIN
from expected import teacher_a_only as owner


def child(name, *extra):
    return lambda w: reverse(name, args=[w.child_a.pk, *extra])


def klass(name, *extra):
    return lambda w: reverse(name, args=[w.class_a.pk, *extra])


def job_url(w):
    from classroom.models import RecomputeJob

    job, _ = RecomputeJob.objects.get_or_create(classroom=w.class_a, defaults={"total": 3})
    return reverse("classroom:recompute_progress", args=[job.pk])


ENTRIES = [
    {
        "name": "classroom:child_report",
        "url": child("classroom:child_report"),
        "expect": owner(200),
    },
    {
        "name": "classroom:child_fact",
        "url": child("classroom:child_fact", 7, 8),
        "expect": owner(200),
    },
    {
        "name": "classroom:child_report_print",
        "url": child("classroom:child_report_print"),
        "expect": owner(200),
    },
    {
        "name": "classroom:child_export_json",
        "url": child("classroom:child_export_json"),
        "expect": owner(200),
    },
    {
        "name": "classroom:child_export_csv",
        "url": child("classroom:child_export_csv"),
        "expect": owner(200),
    },
    {
        "name": "classroom:class_report",
        "url": klass("classroom:class_report"),
        "expect": owner(200),
    },
    {
        "name": "classroom:class_fact",
        "url": klass("classroom:class_fact", 7, 8),
        "expect": owner(200),
    },
    {
        "name": "classroom:class_export_csv",
        "url": klass("classroom:class_export_csv"),
        "expect": owner(200),
    },
    {
        "name": "classroom:class_hardest",
        "url": klass("classroom:class_hardest"),
        "expect": owner(200),
    },
    {
        # A plain POST: the job is made and the teacher goes back to the report (302).
        "name": "classroom:recompute_start",
        "method": "post",
        "url": klass("classroom:recompute_start"),
        "expect": owner(302),
    },
    {
        # A plain GET of the polled bar: back to the class report with the bar (302).
        "name": "classroom:recompute_progress",
        "url": job_url,
        "expect": owner(302),
    },
    {
        "name": "classroom:school_report",
        "url": lambda w: reverse("classroom:school_report"),
        "expect": {role: {"admin_a": 200, "admin_b": 200}.get(role, 404) for role in ALL} | LOGIN,
    },
    {
        "name": "classroom:school_hardest",
        "url": lambda w: reverse("classroom:school_hardest"),
        "expect": {role: {"admin_a": 200, "admin_b": 200}.get(role, 404) for role in ALL} | LOGIN,
    },
]
