"""In headless Debian chromium at 1366×768: the teacher taps a fact of a child's heatmap and
sees its detail without a reload; no horizontal scroll, no console error, nothing foreign."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import Classroom, FactStat, School, Student

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_tapping_a_cell_shows_the_fact_detail(page, live_server):
    school = School.objects.create(name="Browser school")
    teacher = get_user_model().objects.create_user("report-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4R")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    FactStat.objects.create(student=ada, a=7, b=8, state="learning", attempts=6, correct=2,
                            errors={"operand": 4}, wrong_answers={"48": 3, "63": 1})  # fmt: skip
    FactStat.objects.create(student=ada, a=8, b=7, state="mastered", attempts=7, correct=7)
    client = Client()
    client.force_login(teacher)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    url = live_server.url + reverse("child_report", args=[ada.pk])
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    cell = page.locator("#cell-7-8")
    box = cell.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44  # a touch target
    assert cell.locator("[aria-hidden=true]").inner_text() == "L"  # the mark, not only colour

    cell.tap()
    page.locator("#fact-title").wait_for()
    assert page.url == url  # htmx: no navigation
    detail = page.locator("#fact-detail")
    assert "7 × 8 = 56" in detail.inner_text()
    assert "neighbouring fact: 6 × 8" in detail.inner_text()
    assert page.locator("#cell-7-8").get_attribute("aria-current") == "true"

    # The keyboard reaches the cells too: Enter on a focused cell opens it.
    page.locator("#cell-8-7").focus()
    page.keyboard.press("Enter")
    page.get_by_text("8 × 7 = 56").wait_for()
    assert "mastered" in page.locator("#fact-detail").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    assert page.console_errors == []
    assert page.foreign_requests == []
