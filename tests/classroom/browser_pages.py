"""What the classroom's browser tests share: a browser page of a signed-in child or grown-up,
and what a child does there (the warm-up, a game against the computer); a child's answers
stored as the warm-up stores them and counted by the live update; the teacher's language;
screenshots under var/screenshots/."""

import re
import time
from datetime import timedelta
from pathlib import Path

from browser_kit import act
from browser_kit import capture_seen
from browser_kit import record_errors
from browser_kit import session_cookie
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import pgettext

from classroom.models import Attempt
from classroom.models import FactStat
from classroom.models import WarmUp

from .conftest import attempt_fields

VIEWPORT = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

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


def screenshot(page, name: str, *, full_page=False) -> Path:
    """The page as it is now, saved as var/screenshots/<name>.png (to be looked at)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def no_sideways_scroll(page) -> bool:
    """The page is no wider than the browser's window (nothing to scroll sideways)."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


# --- languages --------------------------------------------------------------------------------


def translated(lang: str, msgid: str, context: str = "") -> str:
    """``msgid`` as the catalogue of ``lang`` has it."""
    with translation.override(lang):
        return pgettext(context, msgid) if context else gettext(msgid)


def choose_language(page, live_server, user, lang: str) -> None:
    """The teacher's own page in the browser's English, then the language switcher (as
    tests/classroom/test_languages_browser.py does): ``lang`` from then on. English: the
    page stays as it is."""
    from classroom.models import Preferences

    page.goto(live_server.url + reverse("classroom:teacher_home"))
    assert page.evaluate("document.documentElement.lang") == "en"
    if lang == "en":
        return
    page.locator("#language-choice").select_option(lang)
    page.locator(".language-switch button[type=submit]").click()
    page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    assert Preferences.objects.get(user=user).language == lang


# --- a child's answers, through the real pipeline ---------------------------------------------


def type_answers(student, facts, *, when, ms=2500) -> WarmUp:
    """Warm-up answers: ``facts`` as (a, b, answer) typed in one round starting ``when``, 5 s
    apart, stored as the warm-up stores them and counted by the live update
    (``FactStat.objects.apply_pending``). The round."""
    round_ = WarmUp.objects.create(
        student=student,
        started_at=when,
        timed=True,
        finished_at=when + timedelta(minutes=1),
        stats_at=when + timedelta(minutes=1),
    )
    Attempt.objects.bulk_create(
        Attempt(
            **attempt_fields(
                student, a, b, answer, ms=ms, context="warm-up", warm_up=round_, question=i
            ),
            created_at=when + timedelta(seconds=5 * i),
        )
        for i, (a, b, answer) in enumerate(facts)
    )
    FactStat.objects.apply_pending([student.pk])
    return round_


def claim_answers(student, facts, *, when, ms=4000, context="capture") -> None:
    """Game answers: ``facts`` as (a, b, answer) claimed (``context``: capture, challenge)
    5 s apart from ``when`` (None: a capture left on the board), counted by the live update."""
    Attempt.objects.bulk_create(
        Attempt(
            **attempt_fields(
                student, a, b, answer, ms=ms, context="missed" if answer is None else context
            ),
            created_at=when + timedelta(seconds=5 * i),
        )
        for i, (a, b, answer) in enumerate(facts)
    )
    FactStat.objects.apply_pending([student.pk])


# --- the warm-up ------------------------------------------------------------------------------


def current_sum(page) -> tuple[int, int]:
    label = page.locator("label[for=warmup-answer]").inner_text()
    a, b = map(int, re.findall(r"\d", label)[:2])
    return a, b


def do_the_warm_up(page, warm_up, *, screenshot=None, each_answer=None, answers=WARM_UP_ANSWERS):
    """Type ``answers`` on the keyboard, one per question: True the product, False the product
    plus one, or a function of (a, b) giving the number to type. Before the last one only a
    second is left, so the round ends by itself. ``screenshot``: a path for the page with the
    third answer typed; ``each_answer(page)`` is called once each answer is in. Returns
    (a, b, typed) in order."""
    answered = []
    for i, answer in enumerate(answers):
        page.wait_for_function("document.activeElement.id === 'warmup-answer'")
        a, b = current_sum(page)
        typed = answer(a, b) if callable(answer) else a * b + (0 if answer else 1)
        right = typed == a * b
        token = page.locator("input[name=token]").input_value()
        page.keyboard.type(str(typed))
        if i == 2 and screenshot:
            page.screenshot(path=screenshot)
        if i == len(answers) - 1:
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
