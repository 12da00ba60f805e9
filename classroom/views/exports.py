"""The exports: a class's and a child's attempts as CSV, a child's as JSON (the raw evidence,
docs/analytics.md, "Exports"). Only for the class's teacher (anyone else 404)."""

import csv
import json
from datetime import UTC

from django.http import HttpResponse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_safe

from classroom import charts
from classroom import knowledge
from classroom.models import Attempt
from classroom.models import Student
from classroom.models.report_queries import summaries
from classroom.views.access import teacher_page
from classroom.views.report_context import my_class
from classroom.views.report_context import my_student

# --- exports ----------------------------------------------------------------------------------


CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value):
    """A spreadsheet must not run a cell as a formula."""
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return "'" + value
    return value


def download(content: str, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def csv_download(filename: str) -> tuple[HttpResponse, "csv.writer"]:
    """An empty CSV attachment (UTF-8 with a byte-order mark, so spreadsheet programs read the
    names right) and a ``csv.writer`` that writes its rows straight into it."""
    response = download("\ufeff", filename, "text/csv; charset=utf-8")
    return response, csv.writer(response, lineterminator="\r\n")


def file_stem(name: str, pk: int) -> str:
    return f"{slugify(name) or 'class'}-{pk}"


@teacher_page
@require_safe
def class_export_csv(request, pk):
    """One row per child of the class (not archived), one column per fact as asked (2×2 …
    9×9): what the child's report says of it, in the teacher's language ("knows it", "not
    yet", "not sure yet", "knows it, slowly"; ``knowledge.summarise``, as on the pages)."""
    classroom = my_class(request, pk)
    students = (
        Student.reports.filter(classroom=classroom)
        .active()
        .select_related("group")
        .order_by("sort_name", "name", "pk")
        .with_help_flags()
    )
    facts = knowledge.ORDERS
    response, writer = csv_download(f"{file_stem(classroom.name, classroom.pk)}-facts.csv")
    writer.writerow(
        [
            pgettext("CSV column: a child's name", "Child"),
            pgettext("CSV column: the child's group", "Group"),
            _("Needs help"),
            *[f"{a}×{b}" for a, b in facts],
        ]
    )
    for s in students:
        writer.writerow(
            [
                csv_safe(s.name),
                csv_safe(s.group.name if s.group_id else ""),
                _("yes") if s.needs_help else "",
                *[charts.state_label(s.summary.squares[f].state) for f in facts],
            ]
        )
    return response


EXPORT_FIELDS = [
    "match",
    "time",
    "a",
    "b",
    "answer",
    "correct",
    "kind",
    "context",
    "response_ms",
]


def export_rows(student):
    """Every attempt of the child, oldest first, with only the fields of EXPORT_FIELDS; a
    wrong answer's kind as the reports name it (with the child's own shares of the kinds:
    ``knowledge.Summary.named``)."""
    named = summaries([student.pk])[student.pk].named
    attempts = (
        Attempt.objects.filter(student=student)
        .order_by("created_at", "pk")
        # match and time are the match's public id and created_at; the rest are named alike.
        .values_list("match__public_id", "created_at", *EXPORT_FIELDS[2:])
    )
    for match, created_at, a, b, answer, correct, kind, context, ms in attempts.iterator(
        chunk_size=2000
    ):
        yield {
            "match": match or ("warm-up" if context == "warm-up" else None),  # no match
            "time": created_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "a": a,
            "b": b,
            "answer": answer,
            "correct": correct,
            "kind": kind if correct or answer is None else named.get((a, b, answer), kind),
            "context": context,
            "response_ms": ms,
        }


@teacher_page
@require_safe
def child_export_json(request, pk):
    """The child's full data: name, class and every attempt. Nothing else is stored about a
    child's play (their moves belong to the matches, which hold the same answers)."""
    student = my_student(request, pk)
    body = {
        "name": student.name,
        "class": student.classroom.name,
        "attempts": list(export_rows(student)),
    }
    return download(
        json.dumps(body, ensure_ascii=False, indent=1),
        f"{file_stem(student.name, student.pk)}-multiplipotion.json",
        "application/json; charset=utf-8",
    )


@teacher_page
@require_safe
def child_export_csv(request, pk):
    student = my_student(request, pk)
    stem = file_stem(student.name, student.pk)
    response, writer = csv_download(f"{stem}-multiplipotion.csv")
    writer.writerow(["name", "class", *EXPORT_FIELDS])
    name, class_name = csv_safe(student.name), csv_safe(student.classroom.name)
    for row in export_rows(student):
        cells = [row[f] for f in EXPORT_FIELDS]
        cells = ["" if v is None else ("true" if v is True else "false" if v is False else v)
                 for v in cells]  # fmt: skip
        writer.writerow([name, class_name, *cells])
    return response
