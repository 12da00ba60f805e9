"""In headless Debian chromium at 1366×768: the class report lists the hardest facts, a row
opens to show who struggles, a range link swaps the list in place; a child's fact panel
shows the fact week by week. The answers are stored as a game stores them and counted by the
live update. Screenshots: var/screenshots/ranked_class.png, ranked_class_4w.png,
ranked_fact.png."""

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

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_hardest_facts_open_to_show_who_struggles(page, live_server):
    school = School.objects.create(name="Browser school")
    teacher = get_user_model().objects.create_user("hard-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4R")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ali = Student.objects.create(classroom=classroom, name="Ali")
    zoe = Student.objects.create(classroom=classroom, name="Zoë")
    # Within the last 7 days (a few minutes ago, so the three answers of a child to 7 × 8 are
    # in this week on the fact's weekly chart) and, for 9 × 9, two weeks ago.
    t = timezone.now() - timedelta(minutes=10)
    claim_answers(ada, [(9, 9, 72)], when=t - timedelta(weeks=2))  # only in "Last 28 days"
    for child, wrong in ((ada, 48), (ali, 54)):
        claim_answers(child, [(7, 8, wrong), (8, 7, wrong), (7, 8, 56)], when=t)
    claim_answers(zoe, [(7, 8, 56), (6, 9, 45)], when=t)
    claim_answers(ada, [(6, 9, 54)], when=t + timedelta(minutes=1))
    claim_answers(ali, [(3, 4, 12)], when=t + timedelta(minutes=1))
    log_in(page, live_server, teacher)
    url = live_server.url + reverse("classroom:class_report", args=[classroom.pk])
    page.goto(url)
    hardest = page.locator("#hardest")
    hardest.scroll_into_view_if_needed()
    assert hardest.locator('a[aria-current="true"]').inner_text() == "Last 7 days"
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
    assert no_sideways_scroll(page)
    screenshot(page, "ranked_class")

    # The keyboard reaches the range links: "Last 28 days" swaps the list in place.
    link = hardest.get_by_role("link", name="Last 28 days")
    link.focus()
    page.keyboard.press("Enter")
    page.locator('#hardest a[aria-current="true"]', has_text="Last 28 days").wait_for()
    assert page.url == url  # htmx: no navigation
    assert page.locator("#hardest .hardest-row").count() == 3
    assert "9 × 9" in page.locator("#hardest").inner_text()
    page.locator("#hardest").scroll_into_view_if_needed()
    screenshot(page, "ranked_class_4w")

    # The child's fact panel: the fact week by week and when it was last practised.
    page.goto(live_server.url + reverse("classroom:child_fact", args=[ada.pk, 7, 8]))
    trend = page.locator(".fact-trend")
    trend.scroll_into_view_if_needed()
    assert "Last practised:" in trend.inner_text()
    assert trend.locator(".value-label").all_text_contents() == ["1/3"]
    assert no_sideways_scroll(page)
    screenshot(page, "ranked_fact")
    assert page.console_errors == []
    assert page.foreign_requests == []
