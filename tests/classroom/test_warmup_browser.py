"""In headless Debian chromium at 1366×768: a child presses Play, does the potion warm-up by
touch (tapping the number pad) or by keyboard (digits and Enter), sees the end of the round
and goes on to the game. Every answer is an Attempt; screenshots in /tmp/warmup_*.png."""

import re
from datetime import timedelta

import pytest
from browser_kit import child_session
from browser_kit import session_cookie
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp

from .browser_pages import VIEWPORT
from .browser_pages import new_page
from .browser_pages import teacher_session

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def child_page(browser, live_server, student, *, touch):
    return new_page(browser, live_server, child_session(student), touch=touch)


@pytest.fixture
def session_of_the_computer():
    school = School.objects.create(name="Browser school")
    teacher_model = Classroom._meta.get_field("teacher").related_model
    teacher = teacher_model.objects.create_user("warm-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="5W")
    assignment = Assignment.objects.create(
        classroom=classroom,
        title="Potion duel",
        tier="full",
        opens_at=timezone.now() - timedelta(minutes=1),
        opponents="bot",
    )
    return classroom, assignment


def current_sum(page) -> tuple[int, int]:
    label = page.locator("label[for=warmup-answer]").inner_text()
    a, b = map(int, re.findall(r"\d", label)[:2])
    return a, b


def press_play(page, live_server):
    page.goto(live_server.url + reverse("classroom:child_home"))
    page.get_by_role("button", name="Play Potion duel").click()
    page.wait_for_url(re.compile(r"/me/warm-up/\d+/$"))
    page.get_by_text("Time left").wait_for()


def end_the_time(warm_up, seconds_left):
    """Move the round's start back so that only ``seconds_left`` remain."""
    WarmUp.objects.filter(pk=warm_up.pk).update(
        started_at=timezone.now() - timedelta(seconds=warm_up.seconds - seconds_left)
    )


def go_on_to_the_game(page, activate):
    button = page.get_by_role("button", name="Go to the game")
    button.wait_for()
    activate(button)
    page.wait_for_url(re.compile(r"/(play/\w+|me/waiting/\d+)/$"))
    page.wait_for_url(re.compile(r"/play/\w+/$"))  # the computer plays at once


def test_a_warm_up_by_touch_then_the_game(browser, live_server, session_of_the_computer):
    classroom, _session = session_of_the_computer
    ada = Student.objects.create(classroom=classroom, name="Ada")
    context, page = child_page(browser, live_server, ada, touch=True)
    try:
        press_play(page, live_server)
        warm_up = WarmUp.objects.get(student=ada)
        # The teacher's wall shows Ada warming up, in words.
        wall_context = browser.new_context(viewport=VIEWPORT)
        wall_context.add_cookies(session_cookie(live_server, teacher_session(classroom.teacher)))
        wall = wall_context.new_page()
        wall.goto(live_server.url + reverse("classroom:session_wall", args=[classroom.pk]))
        wall.locator(".wall-warming", has_text="Warming up (1): Ada").wait_for()
        assert wall.get_by_role("button", name="Skip the warm-up").is_visible()
        wall.screenshot(path="/tmp/warmup_wall.png")
        wall_context.close()
        pad = page.locator(".pad")
        for key in ["1", "7", "del", "0", "OK"]:  # every key visible, big enough to tap
            button = (
                pad.get_by_role("button", name="OK", exact=True)
                if key == "OK"
                else pad.locator(f"[data-pad-key='{key}']")
            )
            box = button.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, (key, box)
        # A slip first, corrected with the pad's delete key.
        pad.locator("[data-pad-key='9']").tap()
        pad.locator("[data-pad-key='del']").tap()
        assert page.locator("#warmup-answer").input_value() == ""
        answered = []
        for i in range(3):
            a, b = current_sum(page)
            typed = str(a * b) if i != 1 else str(a * b + 1)  # the second one wrong
            for digit in typed:
                pad.locator(f"[data-pad-key='{digit}']").tap()
            assert page.locator("#warmup-answer").input_value() == typed
            if i == 2:
                page.screenshot(path="/tmp/warmup_touch.png")
            pad.get_by_role("button", name="OK", exact=True).tap()
            feedback = page.locator(".warmup-feedback")
            if typed == str(a * b):
                feedback.filter(has_text=f"{a} × {b} = {a * b}").and_(
                    page.locator(".is-right")
                ).wait_for()
            else:
                page.locator(".warmup-feedback.is-other").get_by_text(
                    f"{a} × {b} = {a * b}"
                ).wait_for()
                assert "Good try!" in feedback.inner_text()
            answered.append((a, b, int(typed)))
        # The time runs out while the child looks at the next question.
        end_the_time(warm_up, 4)
        a, b = current_sum(page)
        for digit in str(a * b):
            pad.locator(f"[data-pad-key='{digit}']").tap()
        pad.get_by_role("button", name="OK", exact=True).tap()
        answered.append((a, b, a * b))
        page.get_by_text("You got 3 facts right!").wait_for(timeout=15_000)
        page.screenshot(path="/tmp/warmup_touch_end.png")
        rows = list(
            Attempt.objects.filter(student=ada).order_by("question").values_list("a", "b", "answer")
        )
        assert rows == answered
        assert all(
            Attempt.objects.filter(student=ada, context="warm-up", warm_up=warm_up).values_list(
                "response_ms", flat=True
            )
        )
        go_on_to_the_game(page, lambda button: button.tap())
        assert WarmUp.objects.filter(student=ada).count() == 1
        assert page.console_errors == []
    finally:
        context.close()


def test_a_warm_up_by_keyboard_then_the_game(browser, live_server, session_of_the_computer):
    classroom, _session = session_of_the_computer
    ben = Student.objects.create(classroom=classroom, name="Ben")
    context, page = child_page(browser, live_server, ben, touch=False)
    try:
        press_play(page, live_server)
        warm_up = WarmUp.objects.get(student=ben)
        answer_box = page.locator("#warmup-answer")
        assert page.evaluate("document.activeElement.id") == "warmup-answer"
        # Not a number: a clear message, nothing stored, the same question.
        before = current_sum(page)
        page.keyboard.press("Enter")
        page.get_by_text("Type your answer with the number keys").wait_for()
        assert current_sum(page) == before and not Attempt.objects.exists()
        answered = []
        for i in range(4):
            page.wait_for_function("document.activeElement.id === 'warmup-answer'")
            a, b = current_sum(page)
            typed = str(a * b) if i != 2 else str(a * b + 10)
            page.keyboard.type(typed)
            assert answer_box.input_value() == typed
            if i == 3:
                page.screenshot(path="/tmp/warmup_keyboard.png")
                end_the_time(warm_up, 3)  # the next question has three seconds left
            page.keyboard.press("Enter")
            page.locator(".warmup-feedback").get_by_text(f"{a} × {b} = {a * b}").wait_for()
            answered.append((a, b, int(typed)))
        # Nobody types: the server ends the round when the time is up, the page shows it.
        page.get_by_text("You got 3 facts right!").wait_for(timeout=15_000)
        page.screenshot(path="/tmp/warmup_keyboard_end.png")
        assert (
            page.evaluate("document.activeElement.textContent").strip().endswith("Go to the game")
        )
        rows = list(
            Attempt.objects.filter(student=ben).order_by("question").values_list("a", "b", "answer")
        )
        assert rows == answered
        go_on_to_the_game(page, lambda button: page.keyboard.press("Enter"))
        # The empty answer's 422 is logged by the browser; nothing else went wrong.
        assert [e for e in page.console_errors if "status of 422" not in e] == []
    finally:
        context.close()


def test_pause_all_stops_the_warm_up_and_resume_all_brings_the_question_back(
    browser, live_server, session_of_the_computer
):
    """The teacher presses "Pause all" while Cat warms up: the answer she sends is taken,
    then the page says the teacher has paused the games, the clock standing still; it asks
    every 3 s (204 while paused) and "Resume all" brings the next question back by itself."""
    from django.test import Client

    classroom, _session = session_of_the_computer
    cat = Student.objects.create(classroom=classroom, name="Cat")
    teacher = Client()
    teacher.force_login(classroom.teacher)
    context, page = child_page(browser, live_server, cat, touch=False)
    try:
        press_play(page, live_server)
        warm_up = WarmUp.objects.get(student=cat)
        teacher.post(reverse("classroom:wall_pause", args=[classroom.pk]))
        a, b = current_sum(page)
        page.keyboard.type(str(a * b))
        page.keyboard.press("Enter")
        page.get_by_text("Your teacher has paused the games.").wait_for()
        page.locator(".warmup-feedback").get_by_text(f"{a} × {b} = {a * b}").wait_for()
        assert page.locator("#warmup-answer").count() == 0
        check_again = page.get_by_role("link", name="Check again")
        assert check_again.evaluate("el => el === document.activeElement")
        clock = page.locator(".warmup-paused .warmup-clock b").inner_text()
        with page.expect_response(lambda r: "paused=1" in r.url) as polled:
            pass
        assert polled.value.status == 204
        assert page.locator(".warmup-paused .warmup-clock b").inner_text() == clock
        page.screenshot(path="/tmp/warmup_paused.png")
        teacher.post(reverse("classroom:wall_resume", args=[classroom.pk]))
        focused = "() => document.activeElement.id === 'warmup-answer'"
        page.wait_for_function(focused, timeout=10_000)
        assert current_sum(page) == tuple(warm_up.facts[1])
        left = int(page.locator("[data-seconds-left]").get_attribute("data-seconds-left"))
        minutes, seconds = map(int, clock.split(":"))
        assert minutes * 60 + seconds - 3 <= left <= minutes * 60 + seconds
        assert Attempt.objects.filter(student=cat).count() == 1
        assert page.console_errors == []
    finally:
        context.close()
