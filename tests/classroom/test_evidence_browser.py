"""End to end in headless Debian chromium at 1366×768 (issue 19, "Done when"): a child who
answered 2 × 5 and 5 × 2 right three times and 6 × 7 and 7 × 6 wrong twice an hour before
does the potion warm-up of a session (asked 6 × 7 and 7 × 6 first, the focus facts, and
wrong again; one answer a key away on the number pad; the rest right), goes on to the game
against the computer and makes a capture there; the game is finished through
``Match.play``; the statistics are counted by a real Celery worker, as in production; then
the teacher's heatmap of the child shows the facts known and the facts not yet apart (a
different colour class, a different mark, different words, "right/latest"), and the facts
never asked as such; the repair's replay of every
answer shows the same squares. What each square should show is read from the stored
attempts. Screenshots in var/screenshots/: e2e_warmup, e2e_warmup_end, e2e_game,
e2e_heatmap (the viewport) and e2e_heatmap_full (the whole report)."""

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

from classroom import error_kinds
from classroom import knowledge
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from classroom.models.report_queries import summaries
from games.models import Match
from games.models import MoveRejected
from games.multiplipotion import engine as mp

from .browser_pages import SCREENSHOTS
from .browser_pages import do_the_warm_up
from .browser_pages import new_page
from .browser_pages import screenshot
from .browser_pages import teacher_session
from .browser_pages import type_answers
from .browser_pages import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NATURAL_TURNS = 6  # turns the child plays in the browser looking for a capture


# Every square of the heatmap as the teacher's browser has it.
READ_HEATMAP = """() => [...document.querySelectorAll('table.heatmap .heat-cell')].map(c => ({
  id: c.id,
  classes: [...c.classList],
  ratio: (c.querySelector('.heat-ratio') || {}).textContent || '',
  mark: (c.querySelector('.heat-mark') || {}).textContent || '',
  twin: (c.querySelector('.heat-twin') || {}).textContent || '',
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

# What a square says, in its class, its mark and its words.
SHOWN = {
    "heat-known": ("✓", "knows it"),
    "heat-slow": ("S", "knows it, slowly"),
    "heat-not_yet": ("✗", "not yet"),
    "heat-unsure": ("?", "not sure yet"),
}


def key_away(a: int, b: int) -> int:
    """The product with one digit a neighbouring key of the number pad: a slip of the finger."""
    return error_kinds.keypad_variants(a * b)[0][0]


def wrong(a: int, b: int) -> int:
    """A wrong answer that is no slip of the finger (no key of the pad is 2 from its own)."""
    answer = a * b + 20
    assert not error_kinds.is_keypad_slip(a, b, answer)
    return answer


EARLIER = [(2, 5, 10), (5, 2, 10)] * 3 + [(6, 7, 62), (7, 6, 62)] * 2  # an hour before


def typed_answer(i: int):
    """What the child types for the i-th question: 6 × 7 and 7 × 6 wrong (their third wrong
    answer: both are focus facts), the third question a key away, the others right."""

    def answer(a: int, b: int) -> int:
        if {a, b} == {6, 7}:
            return wrong(a, b)
        return key_away(a, b) if i == 2 else a * b

    return answer


TYPED = tuple(typed_answer(i) for i in range(6))


def expected_squares(student) -> dict[tuple[int, int], dict]:
    """From the stored attempts (the taps after being caught left out: no evidence), each fact
    as asked: whether it was answered, its own latest answers (``knowledge.WINDOW``; a missed
    capture is not right) and, where the answers leave no doubt whatever the model's numbers,
    what the square must say (``expect``): three answers or more, all right, and none wrong
    the other way round: "known"; three or more, all typed wrong and none a slip of the
    finger: "not_yet"; right answers only, either order: "not not_yet"; else None (a slip of
    the finger weighs less than another wrong answer, as measured: docs/analytics.md)."""
    rows = list(
        Attempt.objects.filter(student=student)
        .exclude(context=Attempt.Context.FORCED)
        .order_by("created_at", "pk")
        .values_list("a", "b", "answer", "correct", "context")
    )
    own, kinds = defaultdict(list), defaultdict(list)
    for a, b, answer, correct, context in rows:
        slip = context == "warm-up" and error_kinds.is_keypad_slip(a, b, answer)
        kind = "right" if correct else "slip" if slip else "typed" if context == "warm-up" else "?"
        own[(a, b)].append(correct)
        kinds[(a, b)].append(kind)
    out = {}
    for a, b in knowledge.ORDERS:
        latest = own[(a, b)][-knowledge.WINDOW :]
        mine, both = set(kinds[(a, b)]), set(kinds[(a, b)]) | set(kinds[(b, a)])
        expect = None
        if len(kinds[(a, b)]) >= 3 and mine == {"typed"}:
            expect = "not_yet"
        elif len(kinds[(a, b)]) >= 3 and both == {"right"}:
            expect = "known"
        elif latest and both == {"right"}:
            expect = "not not_yet"
        out[(a, b)] = {"answered": bool(latest), "right": sum(latest), "n": len(latest),
                       "expect": expect}  # fmt: skip
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
    # The focus facts first: the weaker of 6 × 7 and 7 × 6, the other way round 4 later.
    assert {tuple(warm_up.facts[0]), tuple(warm_up.facts[4])} == {(6, 7), (7, 6)}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    typed = do_the_warm_up(
        child, warm_up, screenshot=str(SCREENSHOTS / "e2e_warmup.png"), answers=TYPED
    )
    right = sum(1 for a, b, t in typed if t == a * b)
    child.get_by_text(f"You got {right} facts right!").wait_for(timeout=15_000)
    screenshot(child, "e2e_warmup_end")
    assert [(a, b) for a, b, _t in typed] == [tuple(f) for f in warm_up.facts[: len(typed)]]
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
    screenshot(child, "e2e_game")
    captured = Attempt.objects.filter(student=ada, match=match, context="capture")
    assert captured.filter(correct=True).exists()
    assert {(x.a, x.b) for x in captured} >= {fact}
    finish_through_the_models(match, worker)
    child.wait_for_selector(".result-text")  # the child's board learns the end by itself
    return child, typed, match


def assert_apart(report, squares, expected, typed, model):
    """Every square says what its answers say, in colour, mark and words, and what the
    model's summary of the counted rows says (``model``: the squares of
    ``report_queries.summaries``); known, not yet and never asked squares differ in colour
    and mark; a wrong answer typed in the warm-up shows as "not yet", a slip of the finger
    does not."""
    known, not_yet, unasked = [], [], []
    for (a, b), want in expected.items():
        cell = squares[f"cell-{a}-{b}"]
        where = (a, b, want, cell)
        (state,) = [c for c in cell["classes"] if c in SHOWN]
        assert state == f"heat-{model[(a, b)].state}", where
        mark, words = SHOWN[state]
        assert cell["mark"] == mark, where
        assert cell["words"] == cell["title"], where
        if not want["answered"]:
            assert "heat-estimate" in cell["classes"] and cell["ratio"] == "", where
            assert cell["title"].startswith(f"{a} × {b}: not asked yet"), where
            if state == "heat-unsure":
                unasked.append(cell)
            continue
        assert "heat-estimate" not in cell["classes"], where
        assert cell["ratio"] == f"{want['right']}/{want['n']}", where
        assert cell["title"].startswith(
            f"{a} × {b}: {words}, {want['right']} right of the latest {want['n']}"
        ), where
        if want["expect"] == "known":
            assert state == "heat-known", where
        elif want["expect"] == "not_yet":
            assert state == "heat-not_yet", where
        elif want["expect"] == "not not_yet":
            assert state != "heat-not_yet", where
        if state == "heat-known":
            known.append(cell)
        elif state == "heat-not_yet":
            not_yet.append(cell)
        # The other order's mark beside ⇄ exactly when one is known and the other not yet.
        twin = squares[f"cell-{b}-{a}"]
        twin_state = next(c for c in twin["classes"] if c in SHOWN)
        differ = expected[(b, a)]["answered"] and {state, twin_state} in (
            {"heat-known", "heat-not_yet"},
            {"heat-slow", "heat-not_yet"},
        )
        assert cell["twin"] == (f"⇄{SHOWN[twin_state][0]}" if differ else ""), where
    # The warm-up alone gives squares of both kinds (and 64 facts leave many never asked).
    assert known and not_yet and unasked
    for a, b, _answer in typed:
        if expected[(a, b)]["expect"] == "not_yet":
            assert squares[f"cell-{a}-{b}"] in not_yet
    # Apart at a glance: three different colours, three different marks.
    assert len({known[0]["background"], not_yet[0]["background"], unasked[0]["background"]}) == 3
    assert len({known[0]["mark"], not_yet[0]["mark"], unasked[0]["mark"]}) == 3
    one_known, one_not_yet = (
        report.locator(f"#{cells[0]['id']} .heat-ratio") for cells in (known, not_yet)
    )
    assert one_known.is_visible() and one_not_yet.is_visible()


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
    # An hour before, in another round: 2 × 5 and 5 × 2 right three times, 6 × 7 and 7 × 6
    # wrong twice (so the session's warm-up asks them first).
    type_answers(ada, EARLIER, when=timezone.now() - timedelta(hours=1))
    contexts = []
    try:
        # --- the child: the warm-up, then the game --------------------------------------
        child, typed, match = warm_up_and_play(
            browser, live_server, ada, assignment, contexts, worker
        )

        # --- the worker counts the answers (nothing here writes a FactStat) ----------------
        match.refresh_from_db()
        attempts = Attempt.objects.filter(student=ada)
        total = attempts.count()
        assert total > len(EARLIER) + len(TYPED)  # the game's attempts too

        def counted():
            stats = FactStat.objects.filter(student=ada).aggregate(
                n=Sum("attempts"), forced=Sum("forced"), at=Max("updated_at")
            )
            return (
                (stats["n"] or 0) + (stats["forced"] or 0) == total
                and not attempts.filter(stats_applied=False).exists()
                and stats["at"] >= match.finished_at
            )

        wait_until(counted, "the statistics of the match from the worker", log=worker)

        # --- the teacher's heatmap ---------------------------------------------------------
        context, report = new_page(browser, live_server, teacher_session(teacher))
        contexts.append(context)
        report.goto(live_server.url + reverse("classroom:child_report", args=[ada.pk]))
        heatmap = report.locator("table.heatmap")
        heatmap.wait_for()
        squares = {cell["id"]: cell for cell in report.evaluate(READ_HEATMAP)}
        assert len(squares) == 64
        expected = expected_squares(ada)
        model = summaries([ada.pk])[ada.pk].squares
        assert_apart(report, squares, expected, typed, model)
        heatmap.scroll_into_view_if_needed()
        screenshot(report, "e2e_heatmap")
        screenshot(report, "e2e_heatmap_full", full_page=True)

        # --- the repair's replay of every answer gives the same squares -----------------
        FactStat.objects.rebuild_for([ada.pk])
        report.reload()
        assert {cell["id"]: cell for cell in report.evaluate(READ_HEATMAP)} == squares
        for page in (child, report):
            assert page.console_errors == []
    finally:
        for context in contexts:
            context.close()
