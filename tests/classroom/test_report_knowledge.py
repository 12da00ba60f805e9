"""What the reports say of what a child knows, through the real pipeline: attempts stored as
the warm-up stores them, counted by the live update, read by the pages (docs/analytics.md,
"What teachers see"). Each page and export reads ``knowledge.summarise`` (one definition)."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils import translation

from classroom import knowledge
from classroom.models import Attempt
from classroom.models import FactStat
from classroom.models import WarmUp
from classroom.models.report_queries import summaries

from .conftest import attempt_fields

pytestmark = pytest.mark.django_db


def typed(student, facts, *, when, ms=2500):
    """Warm-up answers: ``facts`` as (a, b, answer) typed in one round starting ``when``."""
    round_ = WarmUp.objects.create(student=student, started_at=when, timed=True)
    Attempt.objects.bulk_create(
        Attempt(
            **attempt_fields(
                student, a, b, answer, ms=ms, context="warm-up", warm_up=round_, question=i
            ),
            created_at=when + timedelta(seconds=5 * i),
        )
        for i, (a, b, answer) in enumerate(facts)
    )
    FactStat.objects.apply_pending([student.pk])


def cell(html: str, a: int, b: int) -> str:
    found = re.search(rf'<a id="cell-{a}-{b}"[^>]*>.*?</a>', html, flags=re.S)
    assert found, f"no cell {a}×{b}"
    return found.group(0)


@pytest.fixture
def ada(world):
    return world.child_a


@pytest.fixture
def teacher(client, world):
    client.force_login(world.teacher_a)
    return client


def order_pattern_answers():
    """Knows 3 × 7, 4 × 9, 2 × 6 and 5 × 8 as asked, and not yet the other way round."""
    facts = [(3, 7), (4, 9), (2, 6), (5, 8)]
    right = [(a, b, a * b) for a, b in facts] * 3
    wrong = [(b, a, a * b + 20) for a, b in facts] * 3  # no key of the pad is 2 from its digit
    return right, wrong


def test_a_square_shows_both_orders_when_they_differ(teacher, ada):
    now = timezone.now()
    right, wrong = order_pattern_answers()
    typed(ada, right, when=now - timedelta(hours=2))
    typed(ada, wrong, when=now - timedelta(hours=1))
    page = teacher.get(reverse("classroom:child_report", args=[ada.pk])).content.decode()
    known, not_yet = cell(page, 3, 7), cell(page, 7, 3)
    assert "heat-known" in known and "3/3" in known
    assert "heat-not_yet" in not_yet and "0/3" in not_yet
    # each shows the other order's mark beside ⇄, and says both in words
    assert "heat-twin-not_yet" in known and "heat-twin-known" in not_yet
    assert "7 × 3: not yet" in known and "3 × 7: knows it" in not_yet


def test_the_child_report_names_the_order_pattern_with_what_to_do(teacher, ada):
    now = timezone.now()
    right, wrong = order_pattern_answers()
    typed(ada, right, when=now - timedelta(hours=2))
    typed(ada, wrong, when=now - timedelta(hours=1))
    page = teacher.get(reverse("classroom:child_report", args=[ada.pk])).content.decode()
    assert "Knows some facts one way round only" in page
    assert "knows 3 × 7" in page and "not yet 7 × 3" in page
    assert "Turn an array of dots round" in page
    csv_page = teacher.get(reverse("classroom:class_export_csv", args=[ada.classroom_id]))
    assert csv_page.status_code == 200


def test_a_slip_of_the_finger_leaves_a_known_fact_known(teacher, ada):
    now = timezone.now()
    typed(ada, [(7, 8, 56)] * 3, when=now - timedelta(hours=2))
    typed(ada, [(7, 8, 59)], when=now - timedelta(hours=1))  # 6 → 9: a neighbouring key
    square = summaries([ada.pk])[ada.pk].squares[(7, 8)]
    assert square.state == knowledge.KNOWN


def test_a_fact_learned_in_a_session_turns_in_that_session(teacher, ada):
    monday = timezone.now() - timedelta(days=4)
    typed(ada, [(6, 8, 42), (8, 6, 42)] * 2, when=monday)
    assert summaries([ada.pk])[ada.pk].squares[(6, 8)].state == knowledge.NOT_YET
    friday = timezone.now() - timedelta(minutes=10)
    typed(ada, [(6, 8, 48), (8, 6, 48)] * 3, when=friday)
    assert summaries([ada.pk])[ada.pk].squares[(6, 8)].state != knowledge.NOT_YET
    typed(ada, [(6, 8, 48), (8, 6, 48)], when=friday + timedelta(minutes=2))
    assert summaries([ada.pk])[ada.pk].squares[(6, 8)].state == knowledge.KNOWN
    page = teacher.get(reverse("classroom:child_fact", args=[ada.pk, 6, 8])).content.decode()
    assert "The last 7 days" in page  # the fact's day-by-day states


def test_the_main_kind_of_mistake_is_named_with_what_to_do(teacher, ada):
    now = timezone.now()
    typed(ada, [(7, 8, 15), (6, 9, 15), (4, 7, 11), (5, 8, 13), (9, 6, 15)], when=now)
    page = teacher.get(reverse("classroom:child_report", args=[ada.pk])).content.decode()
    assert "Main kind of mistake" in page
    assert "added or subtracted instead" in page


def test_the_class_map_counts_each_childs_own_square(teacher, world, ada):
    now = timezone.now()
    typed(ada, [(7, 8, 48)] * 3, when=now)
    typed(world.child_a2, [(7, 8, 56)] * 3, when=now)
    page = teacher.get(reverse("classroom:class_report", args=[ada.classroom_id])).content
    square = cell(page.decode(), 7, 8)
    assert "1/2" in square  # one of the class's two children not yet
    detail = teacher.get(reverse("classroom:class_fact", args=[ada.classroom_id, 7, 8]))
    text = detail.content.decode()
    assert "1 child not yet" in text and "Know it:" in text


def test_the_class_csv_writes_a_teachers_words_in_the_teachers_language(teacher, world, ada):
    now = timezone.now()
    typed(ada, [(7, 8, 48)] * 3 + [(2, 2, 4)] * 3, when=now)
    with translation.override("es"):
        response = teacher.get(
            reverse("classroom:class_export_csv", args=[ada.classroom_id]),
            HTTP_ACCEPT_LANGUAGE="es",
        )
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header = rows[0]
    assert header[0] != "Child"  # the Spanish catalogue's word
    ada_row = next(r for r in rows if r[0] == ada.name)
    assert ada_row[header.index("7×8")] not in ("", "not_yet")
    english = teacher.get(reverse("classroom:class_export_csv", args=[ada.classroom_id]))
    rows = list(csv.reader(io.StringIO(english.content.decode("utf-8-sig"))))
    ada_row = next(r for r in rows if r[0] == ada.name)
    assert ada_row[rows[0].index("7×8")] == "not yet"
    assert ada_row[rows[0].index("2×2")] == "knows it"
    assert ada_row[rows[0].index("9×9")] == "not sure yet"


def test_every_report_page_answers(teacher, world, ada, client):
    now = timezone.now()
    right, wrong = order_pattern_answers()
    typed(ada, right + wrong, when=now)
    pk, room = ada.pk, ada.classroom_id
    for url in (
        reverse("classroom:child_report", args=[pk]),
        reverse("classroom:child_report", args=[pk]) + "?view=together",
        reverse("classroom:child_fact", args=[pk, 7, 3]),
        reverse("classroom:child_fact", args=[pk, 9, 9]),
        reverse("classroom:child_report_print", args=[pk]),
        reverse("classroom:class_report", args=[room]),
        reverse("classroom:class_fact", args=[room, 3, 7]),
        reverse("classroom:class_hardest", args=[room]),
    ):
        assert teacher.get(url).status_code == 200, url
    client.force_login(world.admin_a)
    assert client.get(reverse("classroom:school_report")).status_code == 200
