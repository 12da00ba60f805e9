"""The teacher's class pages at 1366×768 in English, Spanish and Italian, whose words are
longer: the class report's table of children shows every column without a sideways scroll
(its Flag column was hidden in Italian), a child's status keeps to one line ("In classe"
broke on every row) and the new group's name box keeps room for a name ("Nome del gruppo"
broke into three lines beside a 55 px box). Found in a teacher's browser walk."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from classroom.models import Classroom
from classroom.models import Preferences
from classroom.models import School
from classroom.models import Student

from .browser_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_the_class_pages_fit_in_every_language(page, live_server, lang):
    school = School.objects.create(name="Scuola", language=lang)
    teacher = get_user_model().objects.create_user(f"layout-{lang}", password="x-long-pass-1")
    Preferences.objects.create(user=teacher, language=lang)
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    names = ["Ada", "Ben", "José-María O'Neil", "Maximilianus Alexander", "Zoë"]
    Student.objects.bulk_create([Student(classroom=classroom, name=n) for n in names])
    log_in(page, live_server, teacher)

    page.goto(live_server.url + reverse("classroom:class_report", args=[classroom.pk]))
    assert page.locator("html").get_attribute("lang") == lang
    table = page.locator("#children-title ~ .table-wide")
    assert table.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the table scrolls"
    flag = page.locator("#children-title ~ .table-wide th").last.bounding_box()
    assert flag["x"] + flag["width"] <= 1366

    page.goto(live_server.url + reverse("classroom:class_detail", args=[classroom.pk]))
    heights = page.locator("td .status-active").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert len(heights) == len(names) and max(heights) < 40, heights  # one line each
    box = page.locator("#group-new input[name=name]").bounding_box()
    assert box["width"] >= 150
    label = page.locator("#group-new label").bounding_box()
    assert label["height"] < 40  # "Nome del gruppo" on one line
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    page.screenshot(path=f"/tmp/class-{lang}.png", full_page=True)
    assert page.console_errors == []


def test_groups_added_by_keyboard_show_at_once_one_after_another(page, live_server):
    """Enter in the new group's box: the class page reloads with the group listed, its message
    and an empty box, and a second group goes in the same way (before, the page only scrolled
    to "#groups", unchanged, and the second Enter sent nothing; found in a keyboard walk)."""
    school = School.objects.create(name="School")
    teacher = get_user_model().objects.create_user("groups-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    log_in(page, live_server, teacher)
    page.goto(live_server.url + reverse("classroom:class_detail", args=[classroom.pk]))
    for name in ("Foxes", "Badgers"):
        box = page.locator("#group-new input[name=name]")
        box.fill(name)
        with page.expect_navigation():
            box.press("Enter")
        page.locator("#groups").get_by_text(name).first.wait_for()
        assert page.locator("#group-new input[name=name]").input_value() == ""
        page.get_by_text(re.compile(rf"Group \W*{name}\W* added\.")).wait_for()
    assert sorted(classroom.groups.values_list("name", flat=True)) == ["Badgers", "Foxes"]
    assert page.console_errors == []
