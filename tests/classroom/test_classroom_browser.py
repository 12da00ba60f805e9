"""The classroom end to end in chromium at 1366×768: a teacher signs up, makes a class,
pastes 24 names, opens the login cards and sets a session; a child signs in with pictures,
plays the computer (in a real Celery worker) to the end; the teacher's wall shows the match
while it is played."""

import pytest
from playwright.sync_api import expect

from classroom.models import Classroom
from classroom.models import Student
from classroom.models import session_of
from games.models import Match

from .browser_pages import play_to_the_end

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NAMES = [
    "Ada", "Ben", "Chloe", "Dev", "Ella", "Finn", "Grace", "Hugo", "Isla", "Jay", "Kai", "Lena",
    "Milo", "Nora", "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tom", "Uma", "Vik", "Wren", "Zoe",
]  # fmt: skip


def new_page(browser, **options):
    context = browser.new_context(
        viewport={"width": 1366, "height": 768}, has_touch=True, **options
    )
    page = context.new_page()
    page.set_default_timeout(25_000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


def no_sideways_scroll(page):
    # Measure a settled page: right after a click the old document may be going away.
    page.wait_for_load_state("load")
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def sign_up_to_the_live_wall(teacher, live_server):
    """A teacher signs up, makes a class of 24, prints its login cards, sets a session against
    the computer and opens the live wall. The class."""
    teacher.goto(live_server.url + "/")
    teacher.get_by_role("link", name="Sign up free").click()
    teacher.get_by_label("First name").fill("Maria")
    teacher.get_by_label("Last name").fill("Lopez")
    teacher.get_by_label("E-mail address").fill("maria@example.com")
    teacher.get_by_label("Password", exact=True).fill("a-long-classroom-pass-42")
    teacher.get_by_label("Password again").fill("a-long-classroom-pass-42")
    teacher.get_by_label("Your school's name").fill("Hillside Primary")
    # The school's time zone starts as the browser's (the teacher's computer is in Mexico City).
    expect(teacher.get_by_label("Your school's time zone")).to_have_value("America/Mexico_City")
    teacher.get_by_role("button", name="Create my account").click()
    teacher.get_by_role("link", name="New class").first.click()
    teacher.get_by_label("Name").fill("Year 3 Owls")
    teacher.get_by_role("button", name="Make the class").click()
    teacher.get_by_label("Paste names, one per line").fill("\n".join(NAMES))
    teacher.get_by_role("button", name="Add to the class").click()
    teacher.get_by_text("24 children added").wait_for()
    classroom = Classroom.objects.get(name="Year 3 Owls")
    assert classroom.school.timezone == "America/Mexico_City"
    assert classroom.students.count() == 24
    assert no_sideways_scroll(teacher)

    teacher.get_by_role("link", name="Login cards").click()
    # The click returns once the new page has begun to arrive: wait for it to be whole.
    teacher.wait_for_load_state("load")
    expect(teacher.locator(".login-card")).to_have_count(24)
    expect(teacher.locator(".login-card-qr svg")).to_have_count(24)  # a QR badge per child

    # A session against the computer, so the child does not wait for a classmate.
    teacher.go_back()
    teacher.get_by_role("link", name="Game sessions").click()
    teacher.get_by_role("link", name="New session").first.click()
    teacher.get_by_label("Title (the children see it)").fill("Green warm-up")
    teacher.locator("label.choice-pill", has_text="Green").first.click()
    teacher.locator("label.choice-pill", has_text="The computer").first.click()
    # No warm-up here: tests/classroom/test_warmup_browser.py plays one.
    teacher.locator("label.choice-pill", has_text="off").first.click()
    teacher.get_by_role("button", name="Set the session").click()
    teacher.get_by_text("Green warm-up").first.wait_for()
    teacher.get_by_role("link", name="Live wall").first.click()
    teacher.wait_for_url("**/wall/")
    teacher.get_by_role("heading", name="Year 3 Owls · live games").wait_for()
    assert no_sideways_scroll(teacher)
    return classroom


def test_a_class_from_sign_up_to_a_finished_game(browser, live_server, celery_routes_to_worker):
    teacher_ctx, teacher, teacher_errors = new_page(browser, timezone_id="America/Mexico_City")
    classroom = sign_up_to_the_live_wall(teacher, live_server)

    # A child signs in: code, name, three pictures.
    child_ctx, child, child_errors = new_page(browser)
    ada = Student.objects.get(classroom=classroom, name="Ada")
    child.goto(live_server.url + "/join/")
    child.get_by_label("Type the class code from the board").fill(classroom.code.lower())
    child.get_by_role("button", name="Go").click()
    child.get_by_role("link", name="Ada").click()
    for slug in ada.picture_slugs:
        child.locator(f"label.pic-{slug}").click()
    child.get_by_role("heading", name="Green warm-up").wait_for()
    child.get_by_role("button", name="Play").first.click()
    child.wait_for_selector("#board")
    match = Match.objects.get(seats__child_link__student=ada)
    assert session_of(match).title == "Green warm-up"

    # The wall shows the match without a reload.
    teacher.locator(".wall-card", has_text="Ada").wait_for()

    play_to_the_end(child, match)
    match.refresh_from_db()
    assert match.is_over
    child.get_by_role("link", name="Back to my page").click()
    child.get_by_text("1 of").first.wait_for()
    assert teacher_errors == [] and child_errors == []
    teacher_ctx.close()
    child_ctx.close()
