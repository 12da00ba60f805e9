"""In headless Debian chromium: two children press Play, are paired, and the teacher's wall
shows their match without a reload; Pause all stops the children's moves."""

import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from browser_kit import child_session
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from games.models import Match

from . import browser_pages
from .browser_pages import teacher_session

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def new_page(browser, live_server, session_key):
    return browser_pages.new_page(browser, live_server, session_key, touch=True, timeout=25_000)


def test_two_children_are_paired_and_the_wall_shows_their_game_live(browser, live_server):
    school = School.objects.create(name="Browser school")
    teacher = get_user_model().objects.create_user("wall-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="5E")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    ben = Student.objects.create(classroom=classroom, name="Ben")
    # A class of 24: the wall lists every child with what they are doing.
    others = [
        "Maximilianus Alexander",
        "Apprentice",
        "Zoë",
        "Ñoño",
        *[f"Kid {i}" for i in range(18)],
    ]
    Student.objects.bulk_create([Student(classroom=classroom, name=n) for n in others])
    Student.objects.get(name="Zoë").signed_in(timezone.now() + timedelta(hours=2))
    assignment = Assignment.objects.create(
        classroom=classroom,
        title="Potion duel",
        opens_at=timezone.now() - timedelta(minutes=1),
        opponents="classmates",
        target_value=2,
        warm_up_minutes=0,  # straight to the waiting room (the warm-up: test_warmup_browser.py)
    )
    contexts = []
    try:
        ctx, wall = new_page(browser, live_server, teacher_session(teacher))
        contexts.append(ctx)
        wall.goto(live_server.url + reverse("classroom:session_wall", args=[classroom.pk]))
        wall.get_by_text("0 games being played").wait_for()
        assert "Not signed in yet" in wall.locator(".child-progress", has_text="Ada").inner_text()
        assert "Signed in" in wall.locator(".child-progress", has_text="Zoë").inner_text()
        assert "1 of 24 signed in" in wall.locator(".wall-children-counts").inner_text()

        pages = {}
        for child in (ada, ben):
            ctx, page = new_page(browser, live_server, child_session(child))
            contexts.append(ctx)
            page.goto(live_server.url + reverse("classroom:child_home"))
            page.get_by_text("0 of 2 games").wait_for()
            pages[child.name] = page

        pages["Ada"].get_by_role("button", name="Play Potion duel").click()
        pages["Ada"].get_by_text("Waiting for a classmate").wait_for()
        # The wall sees Ada waiting, without a reload.
        wall.locator(".wall-waiting", has_text="Ada").wait_for()
        wall.locator(".child-progress.is-waiting", has_text="Ada").wait_for()
        pages["Ben"].get_by_role("button", name="Play Potion duel").click()
        pages["Ben"].wait_for_selector("#board")
        # Ada's waiting room notices the pairing and takes her to the game.
        pages["Ada"].wait_for_selector("#board")
        match = Match.objects.get(assignments=assignment)
        assert {s.child_link.student_id for s in match.seats.all()} == {ada.pk, ben.pk}

        # The wall shows the match within a few seconds, without a reload.
        card = wall.locator(".wall-card", has_text="Ada")
        card.wait_for()
        assert "Ben" in card.inner_text()
        assert "Ada's turn" in card.inner_text()
        for name in ("Ada", "Ben"):
            row = wall.locator(".child-progress.is-playing", has_text=name)
            row.wait_for()
            assert "0 of 2 games" in row.inner_text()
        # Every child's row fits its box (long names wrap between words, never spill out).
        spilled = wall.evaluate(
            """() => [...document.querySelectorAll('.child-progress')]
                .filter(li => li.scrollWidth > li.clientWidth + 1).map(li => li.innerText)"""
        )
        assert spilled == []
        wall.screenshot(path=str(Path(tempfile.gettempdir()) / "wall-children.png"), full_page=True)
        assert card.get_by_role("link", name="Watch").get_attribute("href") == reverse(
            "games:spectate", args=[match.public_id]
        )

        wall.get_by_role("button", name="Pause all").click()
        wall.locator(".wall-card .flag-paused").wait_for()
        ada_page = pages["Ada"]
        # Ada's board hears of it by push: it says so and offers no move (clicking a card of
        # the board before it heard raced the push: a CI run under load failed on it).
        ada_page.locator(".paused-banner", has_text="paused").wait_for()
        assert ada_page.locator(".hand button.slot-hand").count() == 0
        # A move sent anyway, as from a board that had not heard yet, is refused (403).
        match.refresh_from_db()
        seat = next(s.number for s in match.seats.all() if s.child_link.student_id == ada.pk)
        card = match.engine.view(match.load_state(), seat)["hand"][0]["id"]
        status, text = ada_page.evaluate(
            """(card) => {
                const form = document.querySelector('#board form.hand');
                const data = new FormData(form);
                data.set('card', card);
                return fetch(form.action, {method: 'POST', body: data})
                    .then(r => r.text().then(text => [r.status, text]));
            }""",
            card,
        )
        assert status == 403 and "paused" in text  # not a CSRF refusal: the pause's
        match.refresh_from_db()
        assert match.version == 0 and match.paused_at is not None

        wall.get_by_role("button", name="Resume all").click()
        wall.locator(".wall-card .flag-paused").wait_for(state="detached")
        ada_page.locator(".hand button.slot-hand").first.click()
        ada_page.wait_for_function("() => document.querySelector('#board').dataset.version !== '0'")
        # No CSP violation or script error anywhere (the refused paused move is a 403).
        for page in [wall, *pages.values()]:
            assert [e for e in page.console_errors if "status of 403" not in e] == []
    finally:
        for ctx in contexts:
            ctx.close()
