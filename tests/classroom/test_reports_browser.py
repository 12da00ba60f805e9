"""In headless Debian chromium at 1366×768: the teacher taps a fact of a child's heatmap and
sees its detail without a reload; no horizontal scroll, no console error, nothing foreign."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student

from .browser_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_tapping_a_cell_shows_the_fact_detail(page, live_server):
    school = School.objects.create(name="Browser school")
    teacher = get_user_model().objects.create_user("report-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4R")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    pooled = {
        "state": "learning",
        "recent_attempts": 10,
        "recent_correct": 6,
        "speed_ms": 4200,
        "speed_from_game": True,
    }  # fmt: skip  (both orders carry the pooled state)
    FactStat.objects.create(student=ada, a=7, b=8, attempts=6, correct=2,
                            errors={"operand": 4}, wrong_answers={"48": 3, "63": 1},
                            **pooled)  # fmt: skip
    FactStat.objects.create(student=ada, a=8, b=7, attempts=4, correct=4, **pooled)
    log_in(page, live_server, teacher)
    url = live_server.url + reverse("classroom:child_report", args=[ada.pk])
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    cell = page.locator("#cell-7-8")
    box = cell.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44  # a touch target
    assert cell.locator(".heat-mark").inner_text() == "L"  # the mark, not only colour
    assert cell.locator(".heat-ratio").inner_text() == "6/10"  # right of the latest
    assert cell.locator(".heat-speed").inner_text() == "~4.2s"  # speed apart: game time

    cell.tap()
    page.locator("#fact-title").wait_for()
    assert page.url == url  # htmx: no navigation
    detail = page.locator("#fact-detail")
    assert "7 × 8 = 56" in detail.inner_text()
    assert "neighbouring fact, one step away: 6 × 8" in detail.inner_text()
    assert page.locator("#cell-7-8").get_attribute("aria-current") == "true"

    # The keyboard reaches the cells too: Enter on a focused cell opens it.
    page.locator("#cell-8-7").focus()
    page.keyboard.press("Enter")
    page.get_by_text("8 × 7 = 56").wait_for()
    assert "6 right of the latest 10" in page.locator("#fact-detail").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    # A keyboard need not pass the 64 squares: "Skip the squares" comes first, seen once
    # focused, and the next Tab lands past the map (found in a teacher's walk: 100+ Tabs).
    skip = page.locator(".heat-skip")
    assert skip.bounding_box()["width"] <= 1
    page.locator(".view-toggle a").last.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "heat-skip no-print"
    box = skip.bounding_box()
    assert box["width"] > 44 and box["height"] >= 44
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("!document.activeElement.closest('.heatmap')")
    assert not page.evaluate("document.activeElement.classList.contains('heat-cell')")
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_the_printed_report_fits_the_width_of_an_a4_page(page, live_server):
    school = School.objects.create(name="Print school")
    teacher = get_user_model().objects.create_user("print-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4P")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    for a in range(2, 10):
        FactStat.objects.create(student=ada, a=a, b=7, state="learning", attempts=9, correct=3,
                                errors={"operand": 2, "table": 1, "operation": 1, "close": 1,
                                        "other": 1}, wrong_answers={"48": 3})  # fmt: skip
    log_in(page, live_server, teacher)
    # A4 is 210 mm; less the sheet's 12 mm margins, 186 mm = 703 CSS pixels at 96 per inch.
    page.set_viewport_size({"width": 703, "height": 1000})
    page.emulate_media(media="print")
    page.goto(live_server.url + reverse("classroom:child_report_print", args=[ada.pk]))
    assert page.locator("h1").inner_text().startswith("Ada")
    widest = page.evaluate(
        "Math.max(...[...document.querySelectorAll('.print-sheet *')]"
        ".map(e => e.getBoundingClientRect().right))"
    )
    culprit = page.evaluate(
        "[...document.querySelectorAll('.print-sheet *')]"
        ".filter(e => e.getBoundingClientRect().right > 703)"
        ".map(e => e.tagName + '.' + e.className).slice(0, 8).join(' | ')"
    )
    assert widest <= 703, f"the printed report reaches {widest:.0f} px of 703: {culprit}"
    assert page.console_errors == []
