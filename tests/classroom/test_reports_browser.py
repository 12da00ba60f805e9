"""In headless Debian chromium at 1366×768: the teacher taps a fact of a child's heatmap and
sees its detail without a reload; no horizontal scroll, no console error, nothing foreign.
The answers are stored as the warm-up and the game store them and counted by the live
update. Screenshots: var/screenshots/report_fact.png, report_print.png."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student

from .browser_pages import claim_answers
from .browser_pages import log_in
from .browser_pages import no_sideways_scroll
from .browser_pages import screenshot
from .browser_pages import type_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_tapping_a_cell_shows_the_fact_detail(page, live_server):
    school = School.objects.create(name="Browser school")
    teacher = get_user_model().objects.create_user("report-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4R")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    now = timezone.now()
    # 8 × 7 typed right three times; then 7 × 8 typed as 48 (6 × 8's answer) twice, and
    # captured right once in a game (in 4.2 s, choosing the cards included).
    type_answers(ada, [(8, 7, 56)] * 3, when=now - timedelta(hours=3))
    type_answers(ada, [(7, 8, 48)] * 2, when=now - timedelta(hours=2))
    claim_answers(ada, [(7, 8, 56)], when=now - timedelta(hours=1), ms=4200)
    log_in(page, live_server, teacher)
    url = live_server.url + reverse("classroom:child_report", args=[ada.pk])
    page.goto(url)
    assert no_sideways_scroll(page)
    cell = page.locator("#cell-7-8")
    box = cell.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44  # a touch target
    assert "heat-not_yet" in cell.get_attribute("class")
    assert cell.locator(".heat-mark").inner_text() == "✗"  # the mark, not only colour
    assert cell.locator(".heat-ratio").inner_text() == "1/3"  # right of the latest
    assert cell.locator(".heat-speed").inner_text() == "~4.2s"  # speed apart: game time
    assert cell.locator(".heat-twin").inner_text() == "⇄✓"  # 8 × 7 is known

    cell.tap()
    page.locator("#fact-title", has_text="7 × 8 = 56").wait_for()
    assert page.url == url  # htmx: no navigation
    detail = page.locator("#fact-detail")
    text = detail.inner_text()
    assert "the answer to 6 × 8, not 7 × 8" in text  # why 48, in words
    assert "8 × 7: knows it, 3 right of the latest 3" in text  # the other order
    assert page.locator("#cell-7-8").get_attribute("aria-current") == "true"
    page.locator("#fact-detail").scroll_into_view_if_needed()
    screenshot(page, "report_fact")

    # The keyboard reaches the cells too: Enter on a focused cell opens it.
    page.locator("#cell-8-7").focus()
    page.keyboard.press("Enter")
    page.locator("#fact-title", has_text="8 × 7 = 56").wait_for()
    assert "3 right of the latest 3" in page.locator("#fact-detail").inner_text()
    assert no_sideways_scroll(page)
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
    # The 7s, each answered wrong in several ways (another fact's answer, added, a near
    # miss, digits the other way round, one of no clear kind) and right once or twice.
    answers = []
    for a in range(2, 10):
        p = a * 7
        answers += [(a, 7, p - 7), (a, 7, a + 7), (a, 7, p + 2), (a, 7, p + 101), (a, 7, p)]
        answers += [(7, a, p - a), (7, a, p)]
    type_answers(ada, answers, when=timezone.now() - timedelta(hours=1))
    log_in(page, live_server, teacher)
    # A4 is 210 mm; less the sheet's 12 mm margins, 186 mm = 703 CSS pixels at 96 per inch.
    page.set_viewport_size({"width": 703, "height": 1000})
    page.emulate_media(media="print")
    page.goto(live_server.url + reverse("classroom:child_report_print", args=[ada.pk]))
    assert page.locator("h1").inner_text().startswith("Ada")
    assert page.locator(".heat-cell.heat-not_yet").count() >= 8  # the 7s, wrong
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
    screenshot(page, "report_print", full_page=True)
    assert page.console_errors == []
