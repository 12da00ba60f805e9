"""What the teacher sees when someone may be guessing pictures, and the 7-character class
codes, on a 390×844 phone and at 1366×768, in Italian (the longest of the three languages
here): the warning box names the children, fits the screen with nothing cut, its buttons are
big enough to tap, and "new code" gives a 7-character code that a child then types on the
phone's join page to reach the class."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom
from classroom.models import Preferences
from classroom.models import School
from classroom.models import Student

from .browser_pages import PHONE
from .browser_pages import SCREENSHOTS
from .browser_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["Ada", "Beatrice", "Maximilianus Alexander", "Zoë"]


@pytest.fixture
def guessed_class():
    school = School.objects.create(name="Scuola Ponte", language="it")
    teacher = get_user_model().objects.create_user("guess-it", password="x-long-pass-1")
    Preferences.objects.create(user=teacher, language="it")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    now = timezone.now()
    for i, name in enumerate(NAMES):
        Student.objects.create(
            classroom=classroom,
            name=name,
            pictures="0,4,8",
            # Wrong answers from devices the class has not used: three children, one stopped.
            failed_signins=(0, 2, 6, 1)[i],
            failed_since=now - timedelta(hours=1) if i else None,
            locked_until=now + timedelta(hours=20) if i == 2 else None,
        )
    return teacher, classroom


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls"
    box = page.locator("#guessing")
    assert box.is_visible()
    inner = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert inner[0] <= inner[1] + 1, f"the warning box overflows: {inner}"
    for button in box.locator("button").all():
        rect = button.bounding_box()
        assert rect["height"] >= 44 and rect["x"] >= 0 and rect["x"] + rect["width"] <= width


@pytest.mark.parametrize("viewport", [PHONE, {"width": 1366, "height": 768}], ids=["390", "1366"])
def test_the_guessing_warning_and_a_new_seven_character_code_in_italian(
    page, live_server, guessed_class, viewport
):
    teacher, classroom = guessed_class
    width = viewport["width"]
    page.set_viewport_size(viewport)
    log_in(page, live_server, teacher)

    page.goto(live_server.url + reverse("classroom:class_detail", args=[classroom.pk]))
    assert page.locator("html").get_attribute("lang") == "it"
    # Every child's buttons show in full, beside a status that says new devices are stopped.
    roster = page.locator("table.roster").bounding_box()
    for button in page.locator("table.roster td.actions .btn").all():
        rect = button.bounding_box()
        assert rect["x"] + rect["width"] <= roster["x"] + roster["width"] + 1, "a button is cut"
    box = page.locator("#guessing")
    text = box.inner_text()
    assert "Qualcuno" in text or "indovin" in text, text  # the Italian heading, not English
    assert "Someone may be guessing" not in text
    for name in ("Beatrice", "Maximilianus Alexander", "Zoë"):
        assert name in text
    assert "Ada" not in text  # no wrong answers for her
    assert "9" in text  # 2 + 6 + 1 tries
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"guessing-class-it-{width}.png"), full_page=True)
    fits(page, width)

    page.goto(live_server.url + reverse("classroom:login_cards", args=[classroom.pk]))
    page.screenshot(path=str(SCREENSHOTS / f"guessing-cards-it-{width}.png"), full_page=True)
    fits(page, width)

    # The class code for the projector: 7 characters fit the screen, the widest too.
    widest = Classroom.objects.get(pk=classroom.pk)
    widest.code = "WMWMWMW"
    widest.save(update_fields=["code"])
    page.goto(
        live_server.url + reverse("classroom:login_cards", args=[classroom.pk]) + "?show=code"
    )
    code = page.locator(".class-poster-code")
    rect = code.bounding_box()
    assert code.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(SCREENSHOTS / f"class-code-it-{width}.png"), full_page=True)
    page.goto(live_server.url + reverse("classroom:class_detail", args=[classroom.pk]))

    old_code = widest.code

    # A new code: the old one stops, the new one has 7 characters.
    page.locator("#guessing button.btn-primary").click()
    page.wait_for_load_state()
    classroom.refresh_from_db()
    assert classroom.code != old_code and len(classroom.code) == 7
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(SCREENSHOTS / f"new-code-it-{width}.png"), full_page=True)

    # A child types it on the join page (on the phone: the code box and its button fit).
    child = page.context.browser.new_context(viewport=viewport, has_touch=True, locale="it-IT")
    try:
        phone = child.new_page()
        phone.goto(live_server.url + reverse("classroom:join"))
        field = phone.locator("input[name=code]")
        field.fill(old_code)
        field.press("Enter")
        error = phone.wait_for_selector("#code-error")  # the answer came: no such class
        assert "We could not find" not in error.inner_text()  # in Italian
        assert phone.url.endswith(reverse("classroom:join"))  # the old code no longer works
        field = phone.locator("input[name=code]")
        field.fill(classroom.code[:3] + " " + classroom.code[3:].lower())
        rect = field.bounding_box()
        assert rect["height"] >= 44 and rect["x"] + rect["width"] <= width
        field.press("Enter")
        phone.wait_for_url(f"**{reverse('classroom:join_class', args=[classroom.code])}")
        for name in NAMES:
            assert phone.get_by_text(name, exact=True).first.is_visible()
        assert phone.evaluate("document.documentElement.scrollWidth") <= width
        phone.screenshot(path=str(SCREENSHOTS / f"join-seven-it-{width}.png"), full_page=True)
    finally:
        child.close()
    assert page.console_errors == []
