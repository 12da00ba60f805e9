"""What the classroom's browser tests share: a browser page of a signed-in child or grown-up,
and what a child does there (the warm-up, a game against the computer)."""

import re
import time
from datetime import timedelta
from pathlib import Path

from browser_kit import act
from browser_kit import capture_seen
from browser_kit import record_errors
from browser_kit import session_cookie
from django.test import Client
from django.utils import timezone

from classroom.models import WarmUp

VIEWPORT = {"width": 1366, "height": 768}

# The warm-up, as typed: True a right answer, False a wrong one (the product plus one).
WARM_UP_ANSWERS = (True, False, True, True, False, True)


def teacher_session(user) -> str:
    """The session key of ``user`` logged in."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def log_in(page, live_server, user) -> None:
    """The page's browser context logged in as ``user``."""
    page.context.add_cookies(session_cookie(live_server, teacher_session(user)))


def new_page(browser, live_server, session_key, *, touch=False, timeout=20_000):
    """A page in a new context that holds ``session_key``; ``page.console_errors`` collects the
    console's errors and the page's uncaught exceptions."""
    context = browser.new_context(viewport=VIEWPORT, has_touch=touch)
    context.add_cookies(session_cookie(live_server, session_key))
    page = context.new_page()
    page.set_default_timeout(timeout)
    page.console_errors = []
    record_errors(page, page.console_errors)
    return context, page


def wait_until(condition, what: str, timeout: float = 30, log: Path | None = None):
    """Poll ``condition`` (a database state another process changes) until it holds; on a
    timeout, say what was awaited (with the end of the worker's ``log``)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            tail = log.read_text()[-3000:] if log and log.exists() else ""
            raise AssertionError(f"timed out waiting for {what}\n{tail}")
        time.sleep(0.05)


# --- the warm-up ------------------------------------------------------------------------------


def current_sum(page) -> tuple[int, int]:
    label = page.locator("label[for=warmup-answer]").inner_text()
    a, b = map(int, re.findall(r"\d", label)[:2])
    return a, b


def do_the_warm_up(page, warm_up, *, screenshot=None, each_answer=None):
    """Type WARM_UP_ANSWERS on the keyboard; before the last one only a second is left, so
    the round ends by itself. ``screenshot``: a path for the page with the third answer typed;
    ``each_answer(page)`` is called once each answer is in. Returns (a, b, typed) in order."""
    answered = []
    for i, right in enumerate(WARM_UP_ANSWERS):
        page.wait_for_function("document.activeElement.id === 'warmup-answer'")
        a, b = current_sum(page)
        typed = a * b if right else a * b + 1
        token = page.locator("input[name=token]").input_value()
        page.keyboard.type(str(typed))
        if i == 2 and screenshot:
            page.screenshot(path=screenshot)
        if i == len(WARM_UP_ANSWERS) - 1:
            WarmUp.objects.filter(pk=warm_up.pk).update(
                started_at=timezone.now() - timedelta(seconds=warm_up.seconds - 1)
            )
        page.keyboard.press("Enter")
        # The answer is in when the next question (another token) or the end is swapped in.
        page.wait_for_function(
            """t => document.querySelector('.warmup-end') ||
                   (document.querySelector('input[name=token]') || {}).value !== t""",
            arg=token,
        )
        feedback = page.locator(
            ".warmup-feedback.is-right" if right else ".warmup-feedback.is-other"
        )
        if page.locator(".warmup-end").count() == 0:
            assert f"{a} × {b} = {a * b}" in feedback.inner_text()
        if each_answer:
            each_answer(page)
        answered.append((a, b, typed))
    return answered


# --- a game of MultipliPotion against the computer --------------------------------------------


def play_to_the_end(child, match, *, end_turn="End my turn", each_turn=None):
    """The child plays in the browser: a card, every capture it can see, end of turn (the
    button named ``end_turn``, in the language of the page). ``each_turn(child)`` is called
    on each board of the child's turn, before they act."""
    for _ in range(200):
        match.refresh_from_db()
        if match.is_over:
            break
        child.wait_for_selector(".turn-banner.mine, .result-text")
        if child.locator(".result-text").count():
            break
        if each_turn:
            each_turn(child)
        hand = child.locator(".hand button.slot-hand")
        if hand.count():
            act(child, lambda h=hand: h.first.click())
        if child.locator(".result-text").count():
            break
        capture_seen(child)
        if child.locator(".result-text").count():
            break
        act(child, lambda: child.get_by_role("button", name=end_turn).click())
