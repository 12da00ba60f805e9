"""What teachers see (classroom/views/reports.py): a child's and a class's reports, the
exports and the rebuild button only for the class's teacher (teacher_a for class A);
anyone else logged in gets 404; not logged in as a grown-up (children too): the log-in page.
The school report: only a school admin, each seeing their own school."""

from django.urls import reverse

ALL = (
    "anonymous",
    "child_a",
    "child_b",
    "teacher_a",
    "teacher_b",
    "admin_a",
    "admin_b",
    "superuser",
)
LOGIN = {"anonymous": 302, "child_a": 302, "child_b": 302}


def owner(status):
    expect = dict.fromkeys(ALL, 404) | LOGIN | {"teacher_a": status}
    return {role: expect[role] for role in ALL}


def child(name, *extra):
    return lambda w: reverse(name, args=[w.child_a.pk, *extra])


def klass(name, *extra):
    return lambda w: reverse(name, args=[w.class_a.pk, *extra])


def job_url(w):
    from classroom.models import RecomputeJob

    job, _ = RecomputeJob.objects.get_or_create(classroom=w.class_a, defaults={"total": 3})
    return reverse("recompute_progress", args=[job.pk])


ENTRIES = [
    {"name": "child_report", "url": child("child_report"), "expect": owner(200)},
    {"name": "child_fact", "url": child("child_fact", 7, 8), "expect": owner(200)},
    {"name": "child_report_print", "url": child("child_report_print"), "expect": owner(200)},
    {"name": "child_export_json", "url": child("child_export_json"), "expect": owner(200)},
    {"name": "child_export_csv", "url": child("child_export_csv"), "expect": owner(200)},
    {"name": "class_report", "url": klass("class_report"), "expect": owner(200)},
    {"name": "class_fact", "url": klass("class_fact", 7, 8), "expect": owner(200)},
    {"name": "class_export_csv", "url": klass("class_export_csv"), "expect": owner(200)},
    {"name": "class_hardest", "url": klass("class_hardest"), "expect": owner(200)},
    {
        # A plain POST: the job is made and the teacher goes back to the report (302).
        "name": "recompute_start",
        "method": "post",
        "url": klass("recompute_start"),
        "expect": owner(302),
    },
    {
        # A plain GET of the polled bar: back to the class report with the bar (302).
        "name": "recompute_progress",
        "url": job_url,
        "expect": owner(302),
    },
    {
        "name": "school_report",
        "url": lambda w: reverse("school_report"),
        "expect": {role: {"admin_a": 200, "admin_b": 200}.get(role, 404) for role in ALL} | LOGIN,
    },
    {
        "name": "school_hardest",
        "url": lambda w: reverse("school_hardest"),
        "expect": {role: {"admin_a": 200, "admin_b": 200}.get(role, 404) for role in ALL} | LOGIN,
    },
]
