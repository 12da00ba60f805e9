"""A child signs in on a 1366×768 touch Chromebook (headless Debian chromium): the class code,
then taps only: their name and their three pictures. The form sends itself on the third
picture (static/js/signin.js), so there is no extra "OK" tap."""

import uuid

import pytest
from django.urls import reverse

from classroom.models import PICTURES
from classroom.models import Classroom
from classroom.models import PictureTries
from classroom.models import School
from classroom.models import Student

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):
    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "default": default}


@pytest.fixture
def class_3a(django_user_model):
    teacher = django_user_model.objects.create_user("t", "t@example.com", "pw-123456789")
    school = School.objects.create(name="Oak")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="3A")
    for name in ["Zoe", "Ada", "Ben", "Mia"]:
        Student.objects.create(classroom=classroom, name=name, pictures="0,4,8")
    return classroom


def tile(page, index):
    return page.locator("label.pic-tile").filter(has_text=PICTURES[index]).first


def real_errors(page):
    # Chromium logs every 4xx answer to an htmx request; those are expected here.
    return [e for e in page.console_errors if "status of 422" not in e]


def test_code_then_name_then_three_pictures_reaches_the_child_home(page, live_server, class_3a):
    page.goto(live_server.url + reverse("classroom:join"))
    page.get_by_label("Type the class code from the board").fill(
        f"{class_3a.code[:3].lower()} {class_3a.code[3:].lower()}"
    )
    page.get_by_role("button", name="Go").tap()
    page.wait_for_url(f"**{reverse('classroom:join_class', args=[class_3a.code])}")

    taps = 0
    names = page.locator(".name-btn .name-text").all_inner_texts()
    assert names == ["Ada", "Ben", "Mia", "Zoe"]
    page.get_by_role("link", name="Mia").tap()
    taps += 1
    page.wait_for_selector(".picture-grid")
    assert page.locator("label.pic-tile").count() == 9
    box = tile(page, 0).bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44

    for index in (8, 0, 4):  # any order
        tile(page, index).tap()
        taps += 1
    page.wait_for_url(f"**{reverse('classroom:child_home')}")
    assert taps == 4  # 1 name + 3 pictures; no confirm tap
    assert "Mia" in page.locator("main").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    assert real_errors(page) == []
    assert page.foreign_requests == []


def test_a_code_typed_again_before_the_first_answer_comes_is_the_one_that_counts(
    page, live_server, class_3a
):
    """On a slow network a child sends a mistyped code, sees it, types the right one and sends
    it before the first answer has come: the second is sent (the first is given up), and the
    first's late answer does not put the form back over the class's names."""
    held = []

    def slow_first(route):
        if route.request.method == "POST" and not held:
            held.append(route.request.post_data)
            page.wait_for_timeout(800)  # the first answer takes its time
        route.continue_()

    page.route("**/join/", slow_first)
    page.goto(live_server.url + reverse("classroom:join"))
    field = page.get_by_label("Type the class code from the board")
    field.fill("AAAAAAA")
    field.press("Enter")
    field.fill(class_3a.code)
    field.press("Enter")
    page.wait_for_url(f"**{reverse('classroom:join_class', args=[class_3a.code])}")
    assert page.locator(".name-btn .name-text").all_inner_texts() == ["Ada", "Ben", "Mia", "Zoe"]
    assert held and "AAAAAAA" in held[0]
    page.unroute_all(behavior="ignoreErrors")  # the given-up first request's wait


def test_wrong_pictures_say_so_and_the_child_tries_again(page, live_server, class_3a):
    ada = class_3a.students.get(name="Ada")
    page.goto(live_server.url + reverse("classroom:join_pictures", args=[class_3a.code, ada.pk]))
    for index in (1, 2, 3):
        tile(page, index).tap()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "Those are not your pictures. Try again!" in alert.inner_text()
    assert page.locator("label.pic-tile input:checked").count() == 0
    for index in (0, 4, 8):
        tile(page, index).tap()
    page.wait_for_url(f"**{reverse('classroom:child_home')}")
    # The right answer cleared this device's wrong try (the count of new devices stays).
    assert not PictureTries.objects.filter(student=ada).exists()
    assert real_errors(page) == []


def test_thats_me_tapped_after_the_third_picture_keeps_the_answer(page, live_server, class_3a):
    """The third picture sends the form; a child who then taps "That's me!" as well (as the
    page says) sees "Those are not your pictures", not "Tap three pictures" (found in a
    child's browser walk), and the wrong try counts once."""
    ada = class_3a.students.get(name="Ada")
    page.goto(live_server.url + reverse("classroom:join_pictures", args=[class_3a.code, ada.pk]))
    for index in (1, 2, 3):
        tile(page, index).tap()
    page.locator(".signin-submit").tap()  # at once: the first answer may still be on its way
    alert = page.get_by_role("alert")
    alert.wait_for()
    page.locator(".signin-submit").tap()  # and again, with the answer on screen
    page.wait_for_timeout(500)
    assert "Those are not your pictures. Try again!" in page.get_by_role("alert").inner_text()
    assert "Tap three pictures" not in page.locator("#pictures-step").inner_text()
    ada.refresh_from_db()
    assert ada.failed_signins == 1
    assert page.evaluate("document.activeElement.name") == "pictures"
    assert real_errors(page) == []


def test_the_keyboard_alone_works_too(page, live_server, class_3a):
    ben = class_3a.students.get(name="Ben")
    page.goto(live_server.url + reverse("classroom:join_pictures", args=[class_3a.code, ben.pk]))
    checkboxes = page.locator("label.pic-tile input")
    checkboxes.nth(0).focus()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # the fifth picture (fish)
    assert checkboxes.nth(4).is_checked()
    for _ in range(4):
        page.keyboard.press("Tab")
    page.keyboard.press("Space")  # rocket: the third one sends the form
    page.wait_for_url(f"**{reverse('classroom:child_home')}")


def test_the_badge_signs_in_with_one_tap(page, live_server, class_3a):
    zoe = class_3a.students.get(name="Zoe")
    page.goto(live_server.url + reverse("classroom:join_badge", args=[zoe.badge_token]))
    page.get_by_role("button", name="I’m Zoe: start").tap()
    page.wait_for_url(f"**{reverse('classroom:child_home')}")
    assert "Zoe" in page.locator("main").inner_text()
    assert real_errors(page) == []


def test_switching_child_takes_two_taps_and_a_stray_one_changes_nothing(
    page, live_server, class_3a
):
    zoe = class_3a.students.get(name="Zoe")
    page.goto(live_server.url + reverse("classroom:join_badge", args=[zoe.badge_token]))
    page.get_by_role("button", name="I’m Zoe: start").tap()
    page.wait_for_url(f"**{reverse('classroom:child_home')}")
    switch = page.locator("header summary", has_text="Not Zoe? Switch")
    box = switch.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44
    confirm = page.get_by_role("button", name="Yes, switch")
    assert not confirm.is_visible()
    switch.tap()  # the first tap only opens the question
    assert confirm.is_visible()
    assert "Zoe will be signed out on this computer." in page.locator("header").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    switch.tap()  # a second tap on the summary closes it again: still Zoe
    assert not confirm.is_visible()
    assert page.url.endswith(reverse("classroom:child_home"))
    switch.tap()
    confirm.tap()
    page.wait_for_url(f"**{reverse('classroom:join_class', args=[class_3a.code])}")
    assert page.locator(".name-btn .name-text").all_inner_texts() == ["Ada", "Ben", "Mia", "Zoe"]
    assert real_errors(page) == []


def test_each_step_starts_the_keyboard_on_the_first_thing_to_choose(page, live_server, class_3a):
    """After the code, the focus is on the first name (not the page's top, six Tabs through the
    header away); after the name, on the first picture; the Enter and Space keys do the rest."""

    def focused():
        return page.evaluate(
            "(document.activeElement.closest('label') || document.activeElement).innerText.trim()"
        )

    page.goto(live_server.url + reverse("classroom:join"))
    page.keyboard.type(class_3a.code.lower())
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{reverse('classroom:join_class', args=[class_3a.code])}")
    page.wait_for_load_state("load")
    assert focused() == "Ada"  # the names in their order: Ada, Ben, Mia, Zoe
    page.keyboard.press("Tab")
    assert focused() == "Ben"
    ben = class_3a.students.get(name="Ben")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{reverse('classroom:join_pictures', args=[class_3a.code, ben.pk])}")
    page.wait_for_load_state("load")
    first = page.locator("label.pic-tile input").first
    assert first.evaluate("e => e === document.activeElement")
