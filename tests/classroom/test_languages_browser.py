"""Walks in Spanish and in Italian, in headless Debian chromium at 1366×768 with touch
(docs/languages.md): every page speaks its language, says so in <html lang>, and shows no
English sentence of the interface (an English msgid of the catalogue whose translation
differs, in the page's visible text, its text nodes, tooltips and labels: EnglishOnPage).

- A school whose language is es / it, a device whose browser is English: a child signs in by
  tapping their name and their three pictures, does the session's warm-up and plays it against
  the computer (in a real Celery worker) to the end. The school's language wins.
- Their teacher chooses the language with the switcher and reads the child's report (the
  heatmap, the trend chart); the school admin reads the dashboard. The charts' SVG is XML and
  its coordinates use dots.
- A family at home, the browser in es-ES / it-IT and nobody logged in, plays a few turns of
  Munchkin and of Il Trono di Mortadella against computer players.

Screenshots: /tmp/walk_<lang>_<step>.png."""

import re
from datetime import timedelta

import pytest
from browser_kit import page_words
from catalogue_kit import EnglishOnPage
from catalogue_kit import numbers_with_commas
from catalogue_kit import svgs
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import pgettext

from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import Membership
from classroom.models import Preferences
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from games import registry
from games.models import Match

from ..games.browser_helpers import LOCALES
from ..games.browser_helpers import munchkin_move
from ..games.browser_helpers import start_family_game
from ..games.browser_helpers import trono_move
from .browser_pages import VIEWPORT
from .browser_pages import WARM_UP_ANSWERS
from .browser_pages import do_the_warm_up
from .browser_pages import log_in
from .browser_pages import play_to_the_end
from .browser_pages import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LANGS = ["es", "it"]
# What people type, in each language: the school, the class, the session, the child, the
# teacher and the admin.
TYPED = {
    "es": {
        "school": "CEIP La Paz",
        "class": "4.º B",
        "session": "Duelo de pociones",
        "child": "Lucía",
        "teacher": ("Marta", "Núñez"),
        "admin": ("Jorge", "Ibáñez"),
    },
    "it": {
        "school": "Scuola Primaria Dante",
        "class": "4ª B",
        "session": "Sfida di pozioni",
        "child": "Niccolò",
        "teacher": ("Chiara", "Esposito"),
        "admin": ("Luca", "Bianchi"),
    },
}
# Each language named in its own words by the switcher ("English" on a Spanish page too).
LANGUAGE_NAMES = ("English", "Español", "Italiano")
GAME_NAMES = [game.name for game in registry.games().values()]
FAMILY_MOVES = 14  # the person's moves in each family game: a few turns round the table


class Walk:
    """The pages of one walk in ``lang``: each one's <html lang> and English sentences, kept
    to be asserted at the end (so one run names every English string), and a screenshot."""

    def __init__(self, lang: str, typed=()):
        self.lang = lang
        self.english = EnglishOnPage(lang, ignore=[*typed, *LANGUAGE_NAMES, *GAME_NAMES])
        self.wrong_lang: dict[str, str] = {}
        self.found: dict[str, list[str]] = {}
        self.checked = 0

    def check(self, page, step: str | None = None) -> None:
        """The page as it is now: its language and its words; ``step``: a screenshot too."""
        words = page_words(page)
        self.checked += 1
        where = step or f"{page.url} (check {self.checked})"
        html_lang = page.evaluate("document.documentElement.lang")
        if html_lang != self.lang:
            self.wrong_lang[where] = html_lang
        english = self.english(words)
        if english:
            self.found[where] = english
        if step:
            page.screenshot(path=f"/tmp/walk_{self.lang}_{step}.png")

    def assert_clean(self) -> None:
        assert not self.wrong_lang, f"<html lang> not {self.lang}: {self.wrong_lang}"
        found = "\n".join(f"{where}: {english}" for where, english in self.found.items())
        assert not self.found, f"English on the {self.lang} pages:\n{found}"


def translated(lang: str, msgid: str, context: str = "") -> str:
    """``msgid`` as the catalogue of ``lang`` has it (for finding a button by its name)."""
    with translation.override(lang):
        return pgettext(context, msgid) if context else gettext(msgid)


def new_page(browser, locale: str):
    """A 1366×768 touch page in a new context whose browser speaks ``locale``; its script
    errors in ``page.errors``."""
    context = browser.new_context(viewport=VIEWPORT, has_touch=True, locale=locale)
    page = context.new_page()
    page.set_default_timeout(25_000)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return context, page


def a_school(lang: str):
    """A school in ``lang``, its admin, a class with its teacher, a child in it and a session
    against the computer with a one-minute warm-up (as tests/classroom/test_evidence_browser.py
    sets one up)."""
    typed = TYPED[lang]
    User = get_user_model()
    school = School.objects.create(name=typed["school"], language=lang, timezone="Europe/Rome")

    def grown_up(key, role):
        first, last = typed[key]
        user = User.objects.create_user(
            f"{key}-{lang}", f"{key}-{lang}@example.com", "x-long-pass-1",
            first_name=first, last_name=last,
        )  # fmt: skip
        Membership.objects.create(user=user, school=school, role=role)
        return user

    teacher = grown_up("teacher", Membership.Role.TEACHER)
    admin = grown_up("admin", Membership.Role.ADMIN)
    classroom = Classroom.objects.create(school=school, teacher=teacher, name=typed["class"])
    child = Student.objects.create(classroom=classroom, name=typed["child"])
    assignment = Assignment.objects.create(
        classroom=classroom,
        created_by=teacher,
        title=typed["session"],
        tier="green",
        opens_at=timezone.now() - timedelta(minutes=1),
        opponents="bot",
        warm_up_minutes=1,
    )
    return teacher, admin, child, assignment


def the_child_plays(browser, live_server, walk, child, assignment):
    """On an English browser: the class's names, the pictures, the child's page, the warm-up,
    the game to the end, back to their page. The match."""
    lang = walk.lang
    context, page = new_page(browser, "en-GB")
    try:
        page.goto(live_server.url + reverse("classroom:join_class", args=[child.classroom.code]))
        walk.check(page, "01_names")
        page.get_by_role("link", name=child.name).click()
        page.locator(".picture-grid").wait_for()
        walk.check(page, "02_pictures")
        for slug in child.picture_slugs:
            page.locator(f"label.pic-{slug}").click()
        page.wait_for_url("**/me/")
        page.locator(".session-card").wait_for()
        walk.check(page, "03_home")

        play = translated(lang, "Play", "button: start playing in a session")
        page.get_by_role("button", name=play).first.click()
        page.wait_for_url(re.compile(r"/me/warm-up/\d+/$"))
        walk.check(page, "04_warm_up")
        warm_up = WarmUp.objects.get(student=child, assignment=assignment)
        do_the_warm_up(page, warm_up, each_answer=walk.check)
        page.locator(".warmup-end").wait_for(timeout=15_000)
        walk.check(page, "05_warm_up_end")

        page.get_by_role("button", name=translated(lang, "Go to the game")).click()
        page.wait_for_url(re.compile(r"/play/\w+/$"))  # the waiting room, then the computer
        page.wait_for_selector("#board")
        walk.check(page, "06_board")
        match = Match.objects.get(assignments=assignment)
        play_to_the_end(page, match, end_turn=translated(lang, "End my turn"), each_turn=walk.check)
        page.wait_for_selector(".result-text")
        walk.check(page, "07_board_end")
        match.refresh_from_db()
        assert match.is_over

        page.get_by_role("link", name=translated(lang, "Back to my page")).click()
        page.wait_for_url("**/me/")
        page.locator(".session-card").wait_for()
        walk.check(page, "08_home_after")
        assert page.errors == []
        return match
    finally:
        context.close()


def some_weeks_of_history(child, match, worker) -> None:
    """The worker has rebuilt the child's statistics from the warm-up and the game (as in
    tests/classroom/test_evidence_browser.py); five earlier weeks of trend rows are made here.
    The game may have added no attempt: the child's captures are its only facts (it makes
    every capture it sees, so it misses none), and the computer can win five to nothing (in
    ten runs the game added 2 to 5 attempts). So what is awaited is every attempt counted."""
    attempts = Attempt.objects.filter(student=child)
    total = attempts.count()
    assert total >= len(WARM_UP_ANSWERS)
    assert attempts.filter(match=match).count() == total - len(WARM_UP_ANSWERS)

    def rebuilt():
        stats = FactStat.objects.filter(student=child).aggregate(n=Sum("attempts"))
        return stats["n"] == total and not attempts.filter(stats_applied=False).exists()

    wait_until(rebuilt, "the statistics of the match from the worker", log=worker)
    today = child.classroom.school.local_today()
    for weeks, (attempts, correct) in enumerate([(12, 7), (20, 13), (9, 8), (15, 10), (6, 5)]):
        DailyTrend.objects.create(
            scope=DailyTrend.Scope.STUDENT,
            scope_id=child.pk,
            day=today - timedelta(weeks=weeks + 1),
            attempts=attempts,
            correct=correct,
        )


def choose_the_language(page, walk, user) -> None:
    """The grown-up's own page, in the browser's English, then the switcher: ``walk.lang``."""
    assert page.evaluate("document.documentElement.lang") == "en"
    page.locator("#language-choice").select_option(walk.lang)
    page.locator(".language-switch button[type=submit]").click()
    page.wait_for_function("l => document.documentElement.lang === l", arg=walk.lang)
    assert Preferences.objects.get(user=user).language == walk.lang


def the_charts(html: str, chart_class: str) -> None:
    """The chart of class ``chart_class`` is in the page, every SVG of the page parses as XML
    and no number in it is written with a comma."""
    charts = svgs(html)
    assert any(chart_class in svg.get("class", "") for svg in charts), chart_class
    for svg in charts:
        assert numbers_with_commas(svg) == [], svg.get("class")


@pytest.mark.parametrize("lang", LANGS)
def test_a_child_plays_and_their_teacher_reads_the_report_in_the_schools_language(
    browser, live_server, worker, lang
):
    teacher, admin, child, assignment = a_school(lang)
    typed = TYPED[lang]
    walk = Walk(lang, typed=[child.name, typed["school"], typed["class"], typed["session"]])

    match = the_child_plays(browser, live_server, walk, child, assignment)
    some_weeks_of_history(child, match, worker)

    # The teacher, on an English browser, chooses the language and reads the child's report.
    context, page = new_page(browser, "en-GB")
    log_in(page, live_server, teacher)
    try:
        page.goto(live_server.url + reverse("classroom:teacher_home"))
        choose_the_language(page, walk, teacher)
        walk.check(page, "09_teacher_home")
        response = page.goto(live_server.url + reverse("classroom:child_report", args=[child.pk]))
        heatmap = page.locator("table.heatmap")
        heatmap.scroll_into_view_if_needed()
        assert page.locator("table.heatmap .heat-cell").count() == 64
        walk.check(page, "10_report_heatmap")
        page.locator("svg.trend-chart").scroll_into_view_if_needed()
        # today's point (one day of play: a line needs two days)
        assert page.locator("svg.trend-chart .trend-point circle").count() >= 1
        walk.check(page, "11_report_trend")
        the_charts(response.text(), "trend-chart")
        assert page.errors == []
    finally:
        context.close()

    # The school admin, the same way, reads the dashboard.
    context, page = new_page(browser, "en-GB")
    log_in(page, live_server, admin)
    try:
        page.goto(live_server.url + reverse("classroom:school_dashboard"))
        choose_the_language(page, walk, admin)
        response = page.goto(live_server.url + reverse("classroom:school_dashboard"))
        walk.check(page, "12_school_dashboard")
        page.locator("svg.bar-chart").scroll_into_view_if_needed()
        walk.check(page, "13_school_dashboard_chart")
        the_charts(response.text(), "bar-chart")
        assert page.errors == []
    finally:
        context.close()
    walk.assert_clean()


def a_few_turns(page, walk, move, name: str) -> None:
    """The person makes FAMILY_MOVES moves (``move(page, phase)``), the computers theirs in
    the worker; every board is checked, some photographed."""
    for turn in range(FAMILY_MOVES):
        page.wait_for_selector(".turn-banner.mine, .result-text", timeout=60_000)
        if page.locator(".result-text").count():
            break
        walk.check(page, f"{name}_{turn:02d}" if turn in (0, FAMILY_MOVES // 2) else None)
        phase = page.locator("#board").get_attribute("data-phase")
        assert move(page, phase), f"{name}: nothing to do in phase {phase}"
    walk.check(page, f"{name}_last")


@pytest.mark.parametrize("lang", LANGS)
def test_a_family_plays_munchkin_and_il_trono_at_home_in_its_language(
    browser, live_server, celery_routes_to_worker, lang
):
    walk = Walk(lang, typed=["Ana"])
    context, page = new_page(browser, LOCALES[lang])
    try:
        page.goto(live_server.url + reverse("games:family"))
        walk.check(page, "14_family")
        page.goto(live_server.url + reverse("games:new_family", args=["munchkin"]))
        walk.check(page, "15_munchkin_set_up")
    finally:
        context.close()

    plays = []

    def munchkin(page, phase):
        tapped = munchkin_move(page, plays_left=len(plays) <= 6)
        plays.extend([tapped] if tapped == "button.mk-play" else [])
        return tapped

    for step, slug, move in (("16", "munchkin", munchkin), ("17", "trono", trono_move)):
        context, page, errors, _ = start_family_game(browser, live_server, slug, lang)
        try:
            a_few_turns(page, walk, move, f"{step}_{slug}")
            assert errors == []
        finally:
            context.close()
    walk.assert_clean()
