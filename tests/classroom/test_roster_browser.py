"""Pasting a class list with some bad lines, in chromium at 1366×768 (issue 24, item 1): the
good lines are added, the bad ones come back in the box numbered as it shows them, and every
reason is on the page (no little scrolling box hiding the last one)."""

import pytest
from django.contrib.auth import get_user_model

from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import School

from .browser_pages import new_page
from .browser_pages import teacher_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GOOD = ["Ada", "Ben", "Chloe", "Dev", "Ella", "Finn", "Grace", "Hugo", "Isla", "Jay"]
BAD = ["ana@example.com", "Ben", "12345", "Finn", "Kai, Owls, extra"]


def test_a_paste_with_five_bad_lines_adds_ten_and_gives_back_five(browser, live_server):
    school = School.objects.create(name="Hillside")
    user = get_user_model().objects.create_user("maria", "maria@example.com", "pw-123456789")
    Membership.objects.create(user=user, school=school)
    classroom = Classroom.objects.create(school=school, teacher=user, name="3 Owls")
    context, page = new_page(browser, live_server, teacher_session(user), touch=True)
    page.goto(f"{live_server.url}/teacher/classes/{classroom.pk}/")
    pasted = "\n".join([*GOOD[:5], "", BAD[0], BAD[1], *GOOD[5:], "", *BAD[2:]])
    page.get_by_label("Paste names, one per line").fill(pasted)
    page.get_by_role("button", name="Add to the class").click()
    page.get_by_text("10 children added.").wait_for()
    page.get_by_text("5 lines were not added").wait_for()
    assert classroom.students.count() == 10
    box = page.get_by_label("Paste names, one per line")
    assert box.input_value().splitlines() == BAD
    errors = page.locator(".line-errors li")
    assert errors.count() == 5
    assert [errors.nth(i).locator(".line-no").inner_text() for i in range(5)] == [
        f"Line {n}:" for n in range(1, 6)
    ]
    said = errors.nth(1).inner_text().replace("\u2068", "").replace("\u2069", "")
    assert "already in this class" in said and "Ben B." in said  # the first Ben is in now
    # The whole list shows: no scrolling box of its own hides the last reason.
    listing = page.locator(".line-errors")
    assert listing.evaluate("e => e.scrollHeight <= e.clientHeight + 1")
    errors.nth(4).scroll_into_view_if_needed()
    assert errors.nth(4).is_visible()
    page.screenshot(path="/tmp/roster_partial.png", full_page=True)
    # The teacher fixes the five lines and adds them.
    box.fill("Ana\nBen B.\nLeo\nFinn B.\nKai, Owls")
    page.get_by_role("button", name="Add to the class").click()
    page.get_by_text("5 children added.").wait_for()
    assert classroom.students.count() == 15
    assert page.locator(".line-errors").count() == 0
    assert not page.console_errors
    context.close()
