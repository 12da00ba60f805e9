"""In headless Debian chromium at 1366×768: a child's heatmap with every state, built from real
attempts by the real rebuild. Each square fits its text (right/latest, mark, speed) inside a
44 px touch target, and the page does not scroll sideways. ``STATES_SCREENSHOT=path`` saves a
screenshot there (to look at it)."""

import os
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from classroom import diagnosis
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from games.models import Match
from games.models import Move
from games.models import Seat

from .browser_pages import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def evidence(ada):
    """(a, b, pattern, ms, context, days ago of the first): '1' right, '0' wrong, 'm' missed."""
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": ada.name, "owner_key": ada.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "wizard"},
        ],
        options={"tier": "full"},
        seed=1,
    )
    move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
    now = timezone.now()
    plan = [
        (7, 8, "1", 2500, "capture", 0),  # right so far
        (6, 7, "0", 2500, "capture", 0),  # wrong so far
        (3, 4, "11", 9000, "capture", 0),  # right so far, slowly
        (6, 8, "0100", 5000, "capture", 1),  # learning
        (8, 9, "11111", 9000, "capture", 2),  # right but slow (game time)
        (4, 7, "11111", 4000, "challenge", 2),  # fluent, challenge times
        (2, 9, "111111", 2000, "capture", 3),  # mastered
        (5, 5, "111111", 1500, "challenge", 40),  # mastered, 40 days ago: check again
    ]
    rows = []
    for a, b, pattern, ms, context, ago in plan:
        for i, c in enumerate(pattern):
            answer = None if c == "m" else a * b if c == "1" else a * b + 1
            when = now - timedelta(days=ago) + timedelta(hours=20 * i) * (ago > 0)
            when = min(when, now - timedelta(minutes=len(pattern) - i))
            rows.append(
                Attempt(student=ada, match=match, move=move, a=a, b=b, answer=answer,
                        correct=c == "1", kind=diagnosis.classify(a, b, answer),
                        context="missed" if c == "m" else context,
                        response_ms=None if c == "m" else ms, created_at=when)
            )  # fmt: skip
    Attempt.objects.bulk_create(rows)
    FactStat.objects.rebuild_for([ada.pk])


def test_a_heatmap_of_every_state_fits_and_reads(page, live_server):
    school = School.objects.create(name="States school")
    teacher = get_user_model().objects.create_user("states-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4S")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    evidence(ada)
    states = dict(((s.a, s.b), s.state) for s in FactStat.objects.filter(student=ada))
    assert states == {
        (7, 8): "right_so_far", (6, 7): "wrong_so_far", (3, 4): "right_so_far",
        (6, 8): "learning", (8, 9): "learning", (4, 7): "fluent", (2, 9): "mastered",
        (5, 5): "mastered",
    }  # fmt: skip
    log_in(page, live_server, teacher)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(live_server.url + reverse("classroom:child_report", args=[ada.pk]))
    expected = {
        (7, 8): ("heat-right_so_far", "✓", "1/1", "~2.5s"),
        (6, 7): ("heat-wrong_so_far", "✗", "0/1", ""),
        (3, 4): ("heat-right_so_far", "✓", "2/2", "~9.0s"),
        (6, 8): ("heat-learning", "L", "1/4", "~5.0s"),
        (8, 9): ("heat-slow", "S", "5/5", "~9.0s"),
        (4, 7): ("heat-fluent", "F", "5/5", "4.0s"),
        (2, 9): ("heat-mastered", "M", "6/6", "~2.0s"),
        (5, 5): ("heat-check_again", "M?", "6/6", "1.5s"),
    }
    for (a, b), (css, mark, ratio, speed) in expected.items():
        cell = page.locator(f"#cell-{a}-{b}")
        assert css in cell.get_attribute("class"), (a, b)
        assert cell.locator(".heat-mark").inner_text() == mark, (a, b)
        assert cell.locator(".heat-ratio").inner_text() == ratio, (a, b)
        shown = cell.locator(".heat-speed")
        assert (shown.inner_text() if shown.count() else "") == speed, (a, b)
        box = cell.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44
        # the text stays inside the square
        text = cell.locator(".heat-text").bounding_box()
        assert text["width"] <= box["width"] and text["height"] <= box["height"], (a, b)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    assert page.console_errors == []
    assert page.foreign_requests == []
    if os.environ.get("STATES_SCREENSHOT"):
        page.screenshot(path=os.environ["STATES_SCREENSHOT"], full_page=False)
