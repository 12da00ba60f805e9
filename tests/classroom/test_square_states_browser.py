"""In headless Debian chromium at 1366×768: a child's heatmap with each of the four things a
square can say (knows it, knows it slowly, not yet, not sure yet), a fact never asked that
the child's other answers say is not yet, and a fact known one way round only, all from
real answers counted by the live update. Each square has its own colour and mark, fits its
text in a 44 px touch target, and its text (and the other order's mark beside ⇄) reads at
4.5 : 1 or better; a keyboard goes over the squares row by row, sees where it is, and opens
a square with Enter. Screenshot: var/screenshots/square_states.png."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import School
from classroom.models import Student

from .browser_pages import claim_answers
from .browser_pages import log_in
from .browser_pages import no_sideways_scroll
from .browser_pages import screenshot
from .browser_pages import type_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What each square shows: its class, mark, right of the latest, speed, the other order's mark.
ADA_SQUARES = {
    (7, 8): ("heat-known", "✓", "3/3", "2.5s", ""),  # three quick right answers
    (8, 9): ("heat-slow", "S", "4/4", "9.0s", ""),  # right, typed in 9 s each
    (6, 7): ("heat-not_yet", "✗", "0/3", "", ""),  # three wrong answers
    (3, 7): ("heat-known", "✓", "3/3", "2.5s", "⇄✗"),  # known, its twin not yet
    (7, 3): ("heat-not_yet", "✗", "0/3", "", "⇄✓"),
    (2, 9): ("heat-known", "✓", "3/3", "~4.0s", ""),  # captures: a game time
    # 24, then 25: a key away, a slip of the finger: not "not yet", and 1 right of 2 is not
    # enough to say "knows it" (the colour never contradicts the number)
    (4, 6): ("heat-unsure", "?", "1/2", "2.5s", ""),
    (9, 9): ("heat-unsure", "?", "", "", ""),  # never asked
}
# A WCAG AA ratio for text: the marks and numbers are small, bold text.
TEXT_CONTRAST = 4.5

READ_COLOURS = """c => {
  const style = e => getComputedStyle(e);
  const twin = c.querySelector('.heat-twin');
  return {
    text: style(c).color, background: style(c).backgroundColor,
    twinText: twin ? style(twin).color : null,
    twinBackground: twin ? style(twin).backgroundColor : null,
  };
}"""


def rgb(css: str) -> tuple[float, float, float]:
    r, g, b = (int(x) for x in re.findall(r"[\d.]+", css)[:3])
    return r, g, b


def luminance(css: str) -> float:
    def channel(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb(css))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: str, bg: str) -> float:
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ada_answers(ada) -> None:
    now = timezone.now()
    type_answers(ada, [(7, 8, 56)] * 3 + [(3, 7, 21)] * 3 + [(4, 6, 24), (4, 6, 25)],
                 when=now - timedelta(hours=3))  # fmt: skip
    type_answers(ada, [(8, 9, 72)] * 4, when=now - timedelta(hours=3, minutes=-5), ms=9000)
    type_answers(ada, [(6, 7, 62)] * 3 + [(7, 3, 41)] * 3, when=now - timedelta(hours=2))
    claim_answers(ada, [(2, 9, 18)] * 3, when=now - timedelta(hours=1), ms=4000)


def ben_answers(ben) -> None:
    """Every fact of the 6–9 tables wrong, twice: 16 facts answered, the rest unasked."""
    hard = [(a, b, a * b + 20) for a in range(6, 10) for b in range(6, 10)]
    type_answers(ben, hard * 2, when=timezone.now() - timedelta(hours=1))


def check_square(page, a, b, want) -> dict:
    css, mark, ratio, speed, twin = want
    cell = page.locator(f"#cell-{a}-{b}")
    classes = cell.get_attribute("class").split()
    assert css in classes, (a, b, classes)
    assert ("heat-estimate" in classes) == (ratio == ""), (a, b, classes)
    assert cell.locator(".heat-mark").inner_text() == mark, (a, b)
    shown = cell.locator(".heat-ratio")
    assert (shown.inner_text() if shown.count() else "") == ratio, (a, b)
    shown = cell.locator(".heat-speed")
    assert (shown.inner_text() if shown.count() else "") == speed, (a, b)
    shown = cell.locator(".heat-twin")
    assert (shown.inner_text() if shown.count() else "") == twin, (a, b)
    box = cell.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, (a, b, box)  # a touch target
    # the text, and the other order's mark, stay inside the square
    for part in (".heat-text", ".heat-twin"):
        if cell.locator(part).count():
            inner = cell.locator(part).bounding_box()
            assert inner["x"] >= box["x"] and inner["y"] >= box["y"], (a, b, part)
            assert inner["x"] + inner["width"] <= box["x"] + box["width"], (a, b, part)
            assert inner["y"] + inner["height"] <= box["y"] + box["height"], (a, b, part)
    colours = cell.evaluate(READ_COLOURS)
    assert contrast(colours["text"], colours["background"]) >= TEXT_CONTRAST, (a, b, colours)
    if twin:
        ratio_twin = contrast(colours["twinText"], colours["twinBackground"])
        assert ratio_twin >= TEXT_CONTRAST, (a, b, colours)
    return colours


def test_each_state_has_its_colour_and_mark_and_reads_well(page, live_server):
    school = School.objects.create(name="States school")
    teacher = get_user_model().objects.create_user("states-teacher", password="x-long-pass-1")
    Membership.objects.create(user=teacher, school=school, role=Membership.Role.TEACHER)
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4S")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ben = Student.objects.create(classroom=classroom, name="Ben")
    ada_answers(ada)
    ben_answers(ben)
    log_in(page, live_server, teacher)

    page.goto(live_server.url + reverse("classroom:child_report", args=[ada.pk]))
    backgrounds = {}
    for (a, b), want in ADA_SQUARES.items():
        colours = check_square(page, a, b, want)
        backgrounds.setdefault(want[0], set()).add(colours["background"])
    # The four states apart at a glance: one colour each, four colours, four marks.
    assert all(len(found) == 1 for found in backgrounds.values()), backgrounds
    assert len({next(iter(found)) for found in backgrounds.values()}) == 4, backgrounds
    assert len({want[1] for want in ADA_SQUARES.values()}) == 4
    # The words say what the colour says, both orders when they differ.
    label = page.locator("#cell-7-3").get_attribute("title")
    assert label.startswith("7 × 3: not yet, 0 right of the latest 3"), label
    assert "3 × 7: knows it, 3 right of the latest 3" in label, label
    assert page.locator("#cell-7-3 .visually-hidden").inner_text() == label
    assert page.locator("#cell-8-9").get_attribute("title").startswith("8 × 9: knows it, slowly")
    assert page.locator("#cell-9-9").get_attribute("title") == "9 × 9: not asked yet"
    assert no_sideways_scroll(page)
    page.locator("table.heatmap").scroll_into_view_if_needed()
    screenshot(page, "square_states")

    # Ben answered 16 facts of the 6–9 tables wrong: 9 × 2, never asked but in the 9s, is
    # likely not yet too, and says it apart (a paler colour, dashed, no "right of the
    # latest"); 2 × 2 shares no number with them: nothing is said of it.
    page.goto(live_server.url + reverse("classroom:child_report", args=[ben.pk]))
    check_square(page, 9, 2, ("heat-not_yet", "✗", "", "", ""))
    check_square(page, 2, 2, ("heat-unsure", "?", "", "", ""))
    estimate = page.locator("#cell-9-2")
    assert estimate.get_attribute("title") == (
        "9 × 2: not asked yet, likely not yet (from the other answers)"
    )
    answered = page.locator("#cell-6-6").evaluate(READ_COLOURS)["background"]
    assert estimate.evaluate(READ_COLOURS)["background"] != answered
    assert estimate.evaluate("c => getComputedStyle(c).borderTopStyle") == "dashed"
    screenshot(page, "square_states_estimate")
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_a_keyboard_goes_over_the_squares_row_by_row_and_opens_one(page, live_server):
    school = School.objects.create(name="Keys school")
    teacher = get_user_model().objects.create_user("keys-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4K")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ada_answers(ada)
    log_in(page, live_server, teacher)
    url = live_server.url + reverse("classroom:child_report", args=[ada.pk])
    page.goto(url)

    def focused() -> str:
        return page.evaluate("document.activeElement.id || document.activeElement.className")

    # Past the view switch: "Skip the squares", then the squares, row 2 first, left to right.
    page.locator(".view-toggle a").last.focus()
    page.keyboard.press("Tab")
    assert focused() == "heat-skip no-print"
    page.keyboard.press("Tab")
    assert focused() == "cell-2-2"
    ring = page.evaluate(
        "(() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()"
    )
    assert ring[0] != "none" and ring[1] >= 2, ring  # where the keyboard is shows
    for b in range(3, 10):
        page.keyboard.press("Tab")
        assert focused() == f"cell-2-{b}"
    page.keyboard.press("Tab")
    assert focused() == "cell-3-2"  # the next row
    for _ in range(5):
        page.keyboard.press("Tab")
    assert focused() == "cell-3-7"

    # Enter opens the square's panel in place; the keyboard lands on its title.
    page.keyboard.press("Enter")
    page.locator("#fact-title", has_text="3 × 7 = 21").wait_for()
    page.wait_for_function("document.activeElement.id === 'fact-title'")
    assert page.url == url  # htmx: no navigation
    assert page.locator("#cell-3-7").get_attribute("aria-current") == "true"
    detail = page.locator("#fact-detail").inner_text()
    assert "7 × 3: not yet" in detail  # the other order, which differs
    # From the panel, the other order is one link away.
    page.get_by_role("link", name="Show 7 × 3").focus()
    page.keyboard.press("Enter")
    page.locator("#fact-title", has_text="7 × 3 = 21").wait_for()
    assert page.locator("#cell-7-3").get_attribute("aria-current") == "true"
    assert no_sideways_scroll(page)
    screenshot(page, "square_keyboard")
    assert page.console_errors == []


def overlap(one: dict, other: dict) -> float:
    """The area two boxes share (0: none)."""
    width = min(one["x"] + one["width"], other["x"] + other["width"]) - max(one["x"], other["x"])
    height = min(one["y"] + one["height"], other["y"] + other["height"]) - max(one["y"], other["y"])
    return max(width, 0) * max(height, 0)


def test_the_other_orders_mark_leaves_the_squares_numbers_readable(browser, live_server):
    """The ⇄ mark of the other order sits in the square's corner, over none of its own text
    ("3/3", the mark, the speed). Screenshot at twice the pixels: square_twins_2x.png."""
    school = School.objects.create(name="Twins school")
    teacher = get_user_model().objects.create_user("twins-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4T")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ada_answers(ada)
    context = browser.new_context(viewport={"width": 1366, "height": 768}, device_scale_factor=2)
    try:
        page = context.new_page()
        log_in(page, live_server, teacher)
        page.goto(live_server.url + reverse("classroom:child_report", args=[ada.pk]))
        page.locator("#cell-3-7").scroll_into_view_if_needed()
        screenshot(page, "square_twins_2x")
        covered = {}
        for a, b in ((3, 7), (7, 3)):
            cell = page.locator(f"#cell-{a}-{b}")
            twin = cell.locator(".heat-twin").bounding_box()
            for part in (".heat-ratio", ".heat-mark", ".heat-speed"):
                if cell.locator(part).count():
                    shared = overlap(twin, cell.locator(part).bounding_box())
                    if shared > 0:
                        covered[(a, b, part)] = round(shared)
        assert covered == {}, f"the ⇄ mark covers the square's own text (px²): {covered}"
    finally:
        context.close()
