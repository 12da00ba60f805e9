"""End to end in headless Debian chromium at 1366×768 (issue 19, "Done when"): a child does
the potion warm-up of a session (some answers right, two wrong), goes on to the game against
the computer and makes a capture there; the game is finished through ``Match.play``; the
statistics are rebuilt by a real Celery worker, as in production; then the teacher's heatmap
of the child shows the facts answered right and the facts answered wrong apart (a different
colour class, a different mark, different words, "right/answers") and the facts never
answered as no evidence. What each square should show is read from the stored attempts.
Screenshots: /tmp/e2e_warmup.png, /tmp/e2e_warmup_end.png, /tmp/e2e_game.png,
/tmp/e2e_heatmap.png (the viewport) and /tmp/e2e_heatmap_full.png (the whole report)."""

import random
import re
import time
from collections import defaultdict
from datetime import timedelta
from itertools import combinations
from pathlib import Path

import pytest
from browser_kit import act
from browser_kit import capture_seen
from browser_kit import child_session
from django.contrib.auth import get_user_model
from django.db.models import Max
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from classroom.diagnosis import EARLY
from classroom.diagnosis import RECENT
from classroom.diagnosis import TABLE
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from games.models import Match
from games.models import MoveRejected
from games.multiplipotion import engine as mp

from .browser_pages import WARM_UP_ANSWERS
from .browser_pages import do_the_warm_up
from .browser_pages import new_page
from .browser_pages import teacher_session
from .browser_pages import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NATURAL_TURNS = 6  # turns the child plays in the browser looking for a capture


# Every square of the heatmap as the teacher's browser has it.
READ_HEATMAP = """() => [...document.querySelectorAll('table.heatmap .heat-cell')].map(c => ({
  id: c.id,
  classes: [...c.classList],
  ratio: (c.querySelector('.heat-ratio') || {}).textContent || '',
  mark: (c.querySelector('.heat-mark') || {}).textContent || '',
  title: c.title,
  words: c.querySelector('.visually-hidden').textContent,
  background: getComputedStyle(c).backgroundColor,
}))"""


# --- the game ---------------------------------------------------------------------------------


def card_making_a_capture(match) -> str | None:
    """The card of the child's hand (seat 0) that, placed, lets two of their potions make a
    monster of the computer's: what a careful child looks for. None: the first card."""
    match.refresh_from_db()
    state = mp.load(match.state)
    monsters = {mp.MONSTER[m] for m in state["areas"][1]}
    for card in state["hands"][0]:
        potions = [mp.POTION[c] for c in [*state["areas"][0], card]]
        if any(p * q in monsters for p, q in combinations(potions, 2)):
            return card
    return state["hands"][0][0] if state["hands"][0] else None


def arrange_a_capture(match) -> None:
    """No capture came up in NATURAL_TURNS turns (a rare shuffle): put, at the child's turn,
    two of their potions in their area and the monster they make in the computer's area,
    every card still in the game once (as tests/games/test_browser_play.py does)."""
    from itertools import permutations

    match.refresh_from_db()
    state = mp.load(match.state)
    won = {c for trophies in state["trophies"] for c in trophies}
    ids = [c for c in mp.cards(state) if c not in won]
    for a, b, m in permutations(ids, 3):
        if mp.POTION[a] * mp.POTION[b] == mp.MONSTER[m]:
            break
    rest = [c for c in ids if c not in (a, b, m)]
    state.update(areas=[[a, b], [m]], hands=[[rest[0]], [rest[1]]], pile=rest[2:])
    state.update(current=0, phase="place", challenge=False, captured=False, missed=False)
    state["ply"] += 1  # in step with the version: the board's feedback compares the two
    Match.objects.filter(pk=match.pk).update(state=mp.dump(state), version=match.version + 1)


def capture_in_the_browser(page, match) -> tuple[int, int]:
    """Child's turns in the browser (place the card a careful child would, capture when two
    potions make a monster, end the turn) until one capture is made. Returns its fact."""
    for turn in range(NATURAL_TURNS + 1):
        page.wait_for_selector(".turn-banner.mine")
        if turn == NATURAL_TURNS:
            arrange_a_capture(match)
            page.reload()
            page.wait_for_selector(".turn-banner.mine")
        hand = page.locator(".hand button.slot-hand")
        if hand.count():
            card = card_making_a_capture(match)
            act(page, lambda c=card: page.locator(f'.hand button.slot-hand[value="{c}"]').click())
        capture = capture_seen(page)
        if capture:
            assert page.locator(".feedback-ok").count() == 1
            return mp.POTION[capture[0]], mp.POTION[capture[1]]
        end = page.get_by_role("button", name="End my turn")
        if end.count():
            act(page, end.click)
    raise AssertionError("no capture in the browser")


def finish_through_the_models(match, log: Path) -> None:
    """The child's seat plays on through ``Match.play`` (the engine's legal actions, the way
    the apprentice computer chooses); the computer's seat plays in the Celery worker."""
    module = match.engine
    rng = random.Random(match.seed)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the match did not end"
        match.refresh_from_db()
        if match.is_over:
            return
        if 0 not in match.to_act():
            seen = match.version
            wait_until(
                lambda v=seen: Match.objects.get(pk=match.pk).version != v,
                "the computer's move in the worker",
                log=log,
            )
            continue
        state = module.load(match.state)
        legal = module.legal_actions(state, 0)
        action = module.bot_action(module.view(state, 0), legal, "apprentice", rng)
        try:
            match.play(0, action, version=match.version)
        except MoveRejected:
            continue


# --- what the heatmap should show -------------------------------------------------------------


def expected_squares(student) -> dict[tuple[int, int], dict]:
    """From the stored attempts: each square as asked (a, b). A square whose fact has no
    attempt in either order is not seen; otherwise its state comes from the latest RECENT of
    the fact and its twin together (up to EARLY of them it is right or wrong so far), and its
    ratio is right/answers of the latest RECENT of the order as asked ("own"; none when it was
    asked only the other way round)."""
    rows = list(
        Attempt.objects.filter(student=student)
        .order_by("created_at", "pk")
        .values_list("a", "b", "correct")
    )
    pooled, own = defaultdict(list), defaultdict(list)
    for a, b, ok in rows:
        pooled[(min(a, b), max(a, b))].append(ok)
        own[(a, b)].append(ok)
    out = {}
    for a in TABLE:
        for b in TABLE:
            recent = pooled[(min(a, b), max(a, b))][-RECENT:]
            if not recent:
                out[(a, b)] = {"state": "not_seen"}
                continue
            right, n = sum(recent), len(recent)
            state = None  # four answers or more: a state of the speed rules too, not checked
            if n <= EARLY:
                state = "right_so_far" if right == n else "wrong_so_far"
            mine = own[(a, b)][-RECENT:]
            out[(a, b)] = {"state": state, "right": right, "n": n, "own": mine}
    return out


def warm_up_and_play(browser, live_server, ada, assignment, contexts, worker):
    """The child: Play, the warm-up (its attempts stored as typed), the game (a capture in the
    browser, the rest through the models) until the board shows the end. (page, typed, match)"""
    context, child = new_page(browser, live_server, child_session(ada))
    contexts.append(context)
    child.goto(live_server.url + reverse("classroom:child_home"))
    child.get_by_role("button", name="Play Potion duel").click()
    child.wait_for_url(re.compile(r"/me/warm-up/\d+/$"))
    child.get_by_text("Time left").wait_for()
    warm_up = WarmUp.objects.get(student=ada, assignment=assignment)
    assert warm_up.seconds == 60
    typed = do_the_warm_up(child, warm_up, screenshot="/tmp/e2e_warmup.png")
    right = sum(WARM_UP_ANSWERS)
    child.get_by_text(f"You got {right} facts right!").wait_for(timeout=15_000)
    child.screenshot(path="/tmp/e2e_warmup_end.png")
    stored = list(
        Attempt.objects.filter(student=ada, warm_up=warm_up)
        .order_by("question")
        .values_list("a", "b", "answer", "correct")
    )
    assert stored == [(a, b, t, t == a * b) for a, b, t in typed]
    child.get_by_role("button", name="Go to the game").click()
    child.wait_for_url(re.compile(r"/play/\w+/$"))  # waiting room, then the computer
    child.wait_for_selector("#board")
    match = Match.objects.get(assignments=assignment)
    assert match.seats.get(number=0).child_link.student_id == ada.pk

    # --- the game: a capture in the browser, the rest through the models -------------
    fact = capture_in_the_browser(child, match)
    child.screenshot(path="/tmp/e2e_game.png")
    captured = Attempt.objects.filter(student=ada, match=match, context="capture")
    assert captured.filter(correct=True).exists()
    assert {(x.a, x.b) for x in captured} >= {fact}
    finish_through_the_models(match, worker)
    child.wait_for_selector(".result-text")  # the child's board learns the end by itself
    return child, typed, match


def assert_apart(report, squares, expected, typed):
    """Every square says what the statistics say; right, wrong and unseen squares differ in
    colour and mark, and a wrong answer typed in the warm-up shows as a wrong square."""
    right_only, wrong, unseen = [], [], []
    for (a, b), want in expected.items():
        cell = squares[f"cell-{a}-{b}"]
        where = (a, b, want, cell)
        if want["state"] == "not_seen":
            assert "heat-not_seen" in cell["classes"], where
            assert cell["mark"] == "·" and cell["ratio"] == "", where
            assert cell["title"] == cell["words"] == f"{a} × {b}: not seen yet", where
            unseen.append(cell)
            continue
        mine = want["own"]
        assert cell["ratio"] == (f"{sum(mine)}/{len(mine)}" if mine else ""), where
        if mine:
            assert f"as asked: {sum(mine)} right of its latest {len(mine)}" in cell["title"]
        else:
            assert "not asked this way yet" in cell["title"], where
        assert f"{want['right']} right of the latest {want['n']}" in cell["title"], where
        assert cell["words"] == cell["title"], where
        if want["state"] == "right_so_far":
            assert "heat-right_so_far" in cell["classes"], where
            assert cell["mark"] == "✓" and "right so far" in cell["title"], where
            right_only.append(cell)
        elif want["state"] == "wrong_so_far":
            assert "heat-wrong_so_far" in cell["classes"], where
            assert cell["mark"] == "✗" and "wrong so far" in cell["title"], where
            wrong.append(cell)
    # The warm-up alone gives squares of both kinds (and 64 facts leave many unseen).
    assert right_only and wrong and unseen
    for a, b, t in typed:
        if t != a * b and expected[(a, b)]["state"] is not None:
            assert squares[f"cell-{a}-{b}"] in wrong
    # Apart at a glance: three different colours, three different marks.
    assert len({right_only[0]["background"], wrong[0]["background"], unseen[0]["background"]}) == 3
    one_right, one_wrong = (
        report.locator(f"#{next(c for c in cells if c['ratio'])['id']} .heat-ratio")
        for cells in (right_only, wrong)
    )
    assert one_right.is_visible() and one_wrong.is_visible()


def test_the_heatmap_after_a_warm_up_and_a_game_shows_right_and_wrong_apart(
    browser, live_server, worker
):
    school = School.objects.create(name="Evidence school")
    teacher = get_user_model().objects.create_user("e2e-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4E")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    assignment = Assignment.objects.create(
        classroom=classroom,
        created_by=teacher,
        title="Potion duel",
        tier="full",
        opens_at=timezone.now() - timedelta(minutes=1),
        opponents="bot",
        warm_up_minutes=1,
    )
    contexts = []
    try:
        # --- the child: the warm-up, then the game --------------------------------------
        child, typed, match = warm_up_and_play(
            browser, live_server, ada, assignment, contexts, worker
        )

        # --- the worker rebuilds the statistics (nothing here writes a FactStat) ----------
        match.refresh_from_db()
        total = Attempt.objects.filter(student=ada).count()
        assert total > len(WARM_UP_ANSWERS)  # the game's attempts too

        def rebuilt():
            stats = FactStat.objects.filter(student=ada).aggregate(
                n=Sum("attempts"), at=Max("updated_at")
            )
            return stats["n"] == total and stats["at"] >= match.finished_at

        wait_until(rebuilt, "the statistics of the match from the worker", log=worker)

        # --- the teacher's heatmap ---------------------------------------------------------
        context, report = new_page(browser, live_server, teacher_session(teacher))
        contexts.append(context)
        report.goto(live_server.url + reverse("classroom:child_report", args=[ada.pk]))
        heatmap = report.locator("table.heatmap")
        heatmap.wait_for()
        squares = {cell["id"]: cell for cell in report.evaluate(READ_HEATMAP)}
        assert len(squares) == 64
        expected = expected_squares(ada)
        assert_apart(report, squares, expected, typed)
        heatmap.scroll_into_view_if_needed()
        report.screenshot(path="/tmp/e2e_heatmap.png")
        report.screenshot(path="/tmp/e2e_heatmap_full.png", full_page=True)
        for page in (child, report):
            assert page.console_errors == []
    finally:
        for context in contexts:
            context.close()
