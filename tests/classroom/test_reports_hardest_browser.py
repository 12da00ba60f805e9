"""In headless Debian chromium at 1366×768: the class report lists the hardest facts, a row
opens to show who struggles, a range link swaps the list in place; a child's fact panel
shows the fact week by week. Screenshots: /tmp/ranked_class.png, /tmp/ranked_fact.png."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from classroom import charts
from classroom.models import Attempt
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student

from .browser_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def answer(student, a, b, given, when):
    Attempt.objects.create(student=student, a=a, b=b, answer=given, correct=given == a * b,
                           kind=charts.classify(a, b, given), context="capture",
                           response_ms=2500, created_at=when)  # fmt: skip


def test_the_hardest_facts_open_to_show_who_struggles(page, live_server):
    school = School.objects.create(name="Browser school")
    teacher = get_user_model().objects.create_user("hard-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4R")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ali = Student.objects.create(classroom=classroom, name="Ali")
    zoe = Student.objects.create(classroom=classroom, name="Zoë")
    t = school.week_start() + timedelta(minutes=1)
    for child, wrong in ((ada, 48), (ali, 54)):
        answer(child, 7, 8, wrong, t)
        answer(child, 8, 7, wrong, t + timedelta(seconds=1))
        answer(child, 7, 8, 56, t + timedelta(seconds=2))
    answer(zoe, 7, 8, 56, t)
    answer(zoe, 6, 9, 45, t)
    answer(ada, 6, 9, 54, t)
    answer(ali, 3, 4, 12, t)
    answer(ada, 9, 9, 72, t - timedelta(weeks=2))  # only in "last 4 weeks"
    FactStat.objects.rebuild_for([ada.pk, ali.pk, zoe.pk])  # the heatmap, as after a game
    ClassFactStat.objects.rebuild_for([classroom.pk])
    log_in(page, live_server, teacher)
    url = live_server.url + reverse("classroom:class_report", args=[classroom.pk])
    page.goto(url)
    hardest = page.locator("#hardest")
    hardest.scroll_into_view_if_needed()
    rows = hardest.locator(".hardest-row")
    assert rows.count() == 2
    first = rows.nth(0)
    assert "7 × 8" in first.inner_text() and "2 of 3 children struggle" in first.inner_text()
    assert "48 (2 times, " in first.inner_text()
    who = first.locator("details")
    assert not who.locator("table").is_visible()
    summary = who.locator("summary")
    box = summary.bounding_box()
    assert box["height"] >= 44  # a touch target
    summary.tap()
    who.locator("table").wait_for(state="visible")
    names = who.locator("tbody th").all_inner_texts()
    assert names == ["Ada", "Ali"]
    assert who.locator("tbody a").first.get_attribute("href") == reverse(
        "classroom:child_fact", args=[ada.pk, 7, 8]
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path="/tmp/ranked_class.png")

    # The keyboard reaches the range links: "Last 4 weeks" swaps the list in place.
    link = hardest.get_by_role("link", name="Last 4 weeks")
    link.focus()
    page.keyboard.press("Enter")
    page.locator('#hardest a[aria-current="true"]', has_text="Last 4 weeks").wait_for()
    assert page.url == url  # htmx: no navigation
    assert page.locator("#hardest .hardest-row").count() == 3
    assert "9 × 9" in page.locator("#hardest").inner_text()
    page.locator("#hardest").scroll_into_view_if_needed()
    page.screenshot(path="/tmp/ranked_class_4w.png")

    # The child's fact panel: the fact week by week and when it was last practised.
    page.goto(live_server.url + reverse("classroom:child_fact", args=[ada.pk, 7, 8]))
    trend = page.locator(".fact-trend")
    trend.scroll_into_view_if_needed()
    assert "Last practised:" in trend.inner_text()
    assert trend.locator(".value-label").all_text_contents() == ["1/3"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path="/tmp/ranked_fact.png")
    assert page.console_errors == []
    assert page.foreign_requests == []
