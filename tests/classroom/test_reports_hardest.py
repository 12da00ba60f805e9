"""The views a teacher acts on (docs/analytics.md, "What teachers see"): the class's and the
school's hardest facts over a rolling date range (the last 7 days, the last 28 days, all
time), the struggle rule, the class's median times, and a child's fact week by week with
when it was last practised. Attempts are written directly, as the game writes them (the
game itself is tested elsewhere); the taps after being caught for a missed capture
("forced") are stored but never count. Everything else is the real code."""

import re
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from classroom import charts
from classroom.models import Attempt
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from classroom.models import hardest
from classroom.views import report_context

from .conftest import attempt_fields

HX = {"HX-Request": "true"}


def answer(student, a, b, given, *, when, context="capture", ms=2000, match=None, warm_up=None):
    """One attempt: ``given`` None is a missed capture."""
    if given is None:
        context, ms = "missed", None
    return Attempt.objects.create(
        **attempt_fields(student, a, b, given, ms=ms, match=match, warm_up=warm_up),
        context=context,
        created_at=when,
    )


def answers(student, a, b, right, wrong, *, when, wrong_answer=None, **extra):
    for i in range(right):
        answer(student, a, b, a * b, when=when + timedelta(seconds=i), **extra)
    for i in range(wrong):
        given = wrong_answer if wrong_answer is not None else a * b + 1
        answer(student, a, b, given, when=when + timedelta(seconds=100 + i), **extra)


def school_of(world) -> School:
    return School.objects.get(pk=world.school_a.pk)


def section(html: str) -> str:
    match = re.search(r'<section class="card hardest-card" id="hardest".*?</section>', html, re.S)
    assert match, "no hardest facts section"
    return match.group(0)


def ranked(html: str) -> list[tuple[str, str, str]]:
    """(fact, x, y) of each row, in order."""
    return re.findall(
        r'class="hardest-name"[^>]*>(\d × \d)<.*?class="hardest-count">(\d+) of (\d+) child',
        section(html),
        flags=re.S,
    )


def facts_of(class_ids, since=None) -> dict[tuple[int, int], hardest.HardFact]:
    return {(f.a, f.b): f for f in hardest.hardest_facts(hardest.attempts_of(class_ids, since))}


# --- the date ranges ------------------------------------------------------------------------


def test_the_ranges_roll_back_from_now_in_any_time_zone():
    """The last 7 days are now minus 7 × 24 hours (not "since Monday"), the last 28 days
    now minus 28 × 24 hours, wherever the school is."""
    now = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
    for zone in ("Pacific/Auckland", "Europe/London", "America/Los_Angeles"):
        school = School(name="Kauri", timezone=zone)
        assert hardest.range_start(school, "7d", now) == now - timedelta(days=7)
        assert hardest.range_start(school, "4w", now) == now - timedelta(days=28)
        assert hardest.range_start(school, "all", now) is None
    assert hardest.DEFAULT_RANGE == "7d"
    assert hardest.RANGES == ("7d", "4w", "all")


@pytest.mark.django_db
def test_an_answer_6_days_ago_counts_in_the_last_7_days_and_8_days_ago_does_not(world):
    school, now = school_of(world), timezone.now()
    answer(world.child_a, 6, 7, 41, when=now - timedelta(days=6))
    answer(world.child_a2, 8, 9, 71, when=now - timedelta(days=8))
    week = facts_of([world.class_a.pk], hardest.range_start(school, "7d", now))
    assert set(week) == {(6, 7)}
    four = facts_of([world.class_a.pk], hardest.range_start(school, "4w", now))
    assert set(four) == {(6, 7), (8, 9)}


@pytest.mark.django_db
def test_on_a_monday_morning_the_weekends_answers_still_count(world):
    """Monday 2 March 2026, 08:00 in Auckland: Sunday's and last Wednesday's answers are in
    the last 7 days (a range from Monday 00:00 would have shown an empty list)."""
    School.objects.filter(pk=world.school_a.pk).update(timezone="Pacific/Auckland")
    school = school_of(world)
    monday = datetime(2026, 3, 2, 8, 0, tzinfo=school.zone)
    assert monday.weekday() == 0
    answer(world.child_a, 7, 8, 48, when=monday - timedelta(hours=20))  # Sunday, 12:00
    answer(world.child_a2, 6, 9, 45, when=monday - timedelta(days=5))  # Wednesday
    answer(world.child_a2, 4, 6, 25, when=monday - timedelta(days=7, minutes=1))  # too old
    since = hardest.range_start(school, "7d", monday)
    assert since < school.week_start(monday)
    assert set(facts_of([world.class_a.pk], since)) == {(7, 8), (6, 9)}


# --- the ranking rule -----------------------------------------------------------------------


@pytest.fixture
def crafted(world):
    """Class A in the last 7 days: Ada, Ali, Cy, Di; Eve is archived; Bea is in class B.
    Expected ranking: 6 × 9 (2 of 2), 4 × 8 (2 of 3), 3 × 5 (1 of 1), 7 × 8 (1 of 2, 4 right
    of 6), 2 × 2 (1 of 2, 3 right of 4); 5 × 5 nobody in the last 7 days. The taps after
    being caught never count: they would change 3 × 5 and 2 × 2, and add 9 × 9."""
    school = school_of(world)
    now = timezone.now()
    t = now - timedelta(hours=1)
    ada, ali = world.child_a, world.child_a2
    cy = Student.objects.create(classroom=world.class_a, name="Cy")
    di = Student.objects.create(classroom=world.class_a, name="Di")
    eve = Student.objects.create(classroom=world.class_a, name="Eve")
    # 6 × 9: Ada 0 of 1; Ali 1 of 3 (two missed captures, as 9 × 6).
    answer(ada, 6, 9, 45, when=t)
    answer(ali, 9, 6, 54, when=t)
    answer(ali, 9, 6, None, when=t)
    answer(ali, 9, 6, None, when=t)
    # 4 × 8: Ada 0 of 2 (28, 28), Ali 1 of 2 (wrong 36): half counts; Cy 2 of 2.
    answers(ada, 4, 8, 0, 2, when=t, wrong_answer=28)
    answer(ali, 8, 4, 32, when=t)
    answer(ali, 8, 4, 36, when=t)
    answers(cy, 4, 8, 2, 0, when=t)
    # 3 × 5: Cy 0 of 1 (and three right taps after being caught: not counted).
    answer(cy, 3, 5, 8, when=t)
    answers(cy, 3, 5, 3, 0, when=t, context="forced")
    # 7 × 8 pooled: Ada right as 7 × 8, wrong (48) as 8 × 7: 1 of 2, struggles; Ali 3 of 4.
    answer(ada, 7, 8, 56, when=t)
    answer(ada, 8, 7, 48, when=t)
    answers(ali, 7, 8, 3, 1, when=t, wrong_answer=54)
    # 2 × 2: Di 1 of 2; Ali 2 of 2 (and two wrong taps after being caught: not counted).
    answers(di, 2, 2, 1, 1, when=t, wrong_answer=5)
    answers(ali, 2, 2, 2, 0, when=t)
    answers(ali, 2, 2, 0, 2, when=t, wrong_answer=6, context="forced")
    # 9 × 9: taps after being caught only.
    answers(di, 9, 9, 0, 3, when=t, wrong_answer=80, context="forced")
    # 5 × 5: Ada 3 of 3 in the last 7 days (nobody struggles)...
    answers(ada, 5, 5, 3, 0, when=t)
    # ...but 0 of 5 eight days ago: only in "last 28 days" and "all".
    answers(ada, 5, 5, 0, 5, when=now - timedelta(days=8), wrong_answer=20)
    # Not counted: Bea (class B), Eve (archived).
    answers(world.child_b, 7, 8, 0, 9, when=t, wrong_answer=15)
    answers(world.child_b, 2, 9, 0, 4, when=t)
    answers(eve, 6, 9, 0, 5, when=t, wrong_answer=15)
    eve.archive()
    return {"school": school, "start": now - timedelta(days=7), "cy": cy, "di": di, "eve": eve}


@pytest.mark.django_db
def test_facts_are_ranked_by_children_struggling_then_share_then_accuracy(world, crafted):
    attempts = hardest.attempts_of([world.class_a.pk], crafted["start"])
    facts = hardest.hardest_facts(attempts)
    got = [(f.a, f.b, f.struggling, f.children, f.correct, f.attempts) for f in facts]
    assert got == [
        (6, 9, 2, 2, 1, 4),
        (4, 8, 2, 3, 3, 6),
        (3, 5, 1, 1, 0, 1),
        (7, 8, 1, 2, 4, 6),
        (2, 2, 1, 2, 3, 4),
    ]
    by_fact = {(f.a, f.b): f for f in facts}
    # The typical wrong answers pool both orders; a missed capture has no answer.
    assert by_fact[(7, 8)].wrong_answers == [(48, 1), (54, 1)]  # Bea's 15 is class B's
    assert by_fact[(6, 9)].wrong_answers == [(45, 1)]  # Eve's 15 left out: archived
    assert by_fact[(4, 8)].wrong_answers == [(28, 2), (36, 1)]
    assert by_fact[(2, 2)].wrong_answers == [(5, 1)]  # Ali's taps after being caught: no
    who = hardest.strugglers(attempts, facts)
    assert sorted((r["student_id"], r["lo"], r["hi"], r["n_right"], r["n"]) for r in who) == sorted(
        [
            (world.child_a.pk, 6, 9, 0, 1),
            (world.child_a2.pk, 6, 9, 1, 3),
            (world.child_a.pk, 4, 8, 0, 2),
            (world.child_a2.pk, 4, 8, 1, 2),
            (crafted["cy"].pk, 3, 5, 0, 1),
            (world.child_a.pk, 7, 8, 1, 2),
            (crafted["di"].pk, 2, 2, 1, 2),
        ]
    )


@pytest.mark.django_db
def test_the_taps_after_being_caught_never_count(world, crafted):
    """In no range: not as an answer, not as a child who answered the fact."""
    for key in hardest.RANGES:
        since = hardest.range_start(crafted["school"], key)
        attempts = hardest.attempts_of([world.class_a.pk], since)
        assert not attempts.filter(context="forced").exists(), key
        facts = {(f.a, f.b): f for f in hardest.hardest_facts(attempts)}
        assert (9, 9) not in facts, key
        assert (facts[(3, 5)].attempts, facts[(3, 5)].correct) == (1, 0), key


@pytest.mark.django_db
def test_the_range_decides_which_attempts_count(world, crafted):
    school, ids = crafted["school"], [world.class_a.pk]
    week = facts_of(ids, hardest.range_start(school, "7d"))
    assert (5, 5) not in week
    # The five wrong answers eight days ago count in the last 28 days.
    five = facts_of(ids, hardest.range_start(school, "4w"))[(5, 5)]
    assert (five.struggling, five.children, five.correct, five.attempts) == (1, 1, 3, 8)
    assert five.wrong_answers == [(20, 5)]
    assert (5, 5) in facts_of(ids)


@pytest.mark.django_db
def test_only_facts_someone_struggles_with_and_at_most_ten(world):
    t = timezone.now() - timedelta(minutes=1)
    facts = [(a, b) for a in range(2, 10) for b in range(a, 10)][:12]
    for a, b in facts:
        answer(world.child_a, a, b, a * b + 1, when=t)  # 12 facts struggled with
    answers(world.child_a2, 9, 9, 4, 0, when=t)  # known: never listed
    got = hardest.hardest_facts(hardest.attempts_of([world.class_a.pk]))
    assert len(got) == hardest.TOP == 10
    assert [(f.a, f.b) for f in got] == facts[:10]  # all equal: the smaller fact first


# --- the class report -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_class_report_lists_the_hardest_facts_with_who_struggles(world, crafted):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:class_report", args=[world.class_a.pk]))
        .text
    )
    assert ranked(html) == [
        ("6 × 9", "2", "2"),
        ("4 × 8", "2", "3"),
        ("3 × 5", "1", "1"),
        ("7 × 8", "1", "2"),
        ("2 × 2", "1", "2"),
    ]
    part = section(html)
    assert "style=" not in html
    rows = re.findall(r'<li class="hardest-row">.*?</li>', part, flags=re.S)
    four_eight = rows[1]
    assert "3 right of 6 (50 %)" in four_eight
    for given, times in ((28, "2 times"), (36, "1 time")):
        why = charts.explain_answer(4, 8, given, "operand")
        assert "answer to" in why
        assert f"<b>{given}</b> ({times}, {why})" in four_eight
    # Who struggles: behind a <details>, isolated names, right of attempts, their fact page.
    who = re.search(r"<details.*?</details>", four_eight, flags=re.S).group(0)
    assert "<summary>Who struggles</summary>" in who
    ada_href = reverse("classroom:child_fact", args=[world.child_a.pk, 4, 8])
    assert f'<a href="{ada_href}"><bdi>Ada</bdi></a>' in who
    assert "<bdi>Ali</bdi>" in who and "Cy" not in who
    assert who.index("Ada") < who.index("Ali")  # weakest first: 0 of 2, then 1 of 2
    assert ">0 of 2<" in who and ">1 of 2<" in who
    assert f'href="{reverse("classroom:class_fact", args=[world.class_a.pk, 4, 8])}"' in four_eight
    assert "and 9 × 6" in rows[0]  # the other order, pooled
    assert "Eve" not in part and "Bea" not in part


@pytest.mark.django_db
def test_the_range_links_are_real_links_and_htmx_swaps_the_list(world, crafted):
    client = world.client("teacher_a")
    pk = world.class_a.pk
    html = section(client.get(reverse("classroom:class_report", args=[pk])).text)
    links = re.findall(r'<a class="btn btn-quiet" href="([^"]+)" hx-get="([^"]+)"[^>]*>', html)
    page, part = (
        reverse("classroom:class_report", args=[pk]),
        reverse("classroom:class_hardest", args=[pk]),
    )
    assert links == [
        (f"{page}?range={key}#hardest", f"{part}?range={key}") for key in ("7d", "4w", "all")
    ]
    assert re.search(r'aria-current="true">Last 7 days<', html)
    assert ("5 × 5", "1", "1") not in ranked(html)
    # htmx: the list alone, "last 28 days" marked.
    response = client.get(f"{part}?range=4w", headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.text and response.text.strip().startswith("<section")
    assert re.search(r'aria-current="true">Last 28 days<', response.text)
    assert ("5 × 5", "1", "1") in ranked(response.text)
    # A plain request: the whole report with that range.
    response = client.get(f"{page}?range=all")
    assert response.status_code == 200 and "<html" in response.text
    assert re.search(r'aria-current="true">All time<', response.text)
    assert ("5 × 5", "1", "1") in ranked(response.text)
    plain = client.get(f"{part}?range=4w")
    assert plain.status_code == 200 and "<html" in plain.text and 'id="facts"' in plain.text


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize("bad", ["week", "year", "%27"])
def test_an_unknown_range_is_422_and_shows_the_last_7_days(world, crafted, htmx, bad):
    """ "week" was a range (since Monday) before the ranges rolled: an old link gets the
    message too."""
    client = world.client("teacher_a")
    pk = world.class_a.pk
    url = (
        reverse("classroom:class_hardest" if htmx else "classroom:class_report", args=[pk])
        + f"?range={bad}"
    )
    response = client.get(url, headers=HX if htmx else {})
    assert response.status_code == 422
    assert "That date range does not exist: showing the last 7 days." in response.text
    assert re.search(r'aria-current="true">Last 7 days<', response.text)
    assert ("5 × 5", "1", "1") not in ranked(response.text)
    assert ("6 × 9", "2", "2") in ranked(response.text)


@pytest.mark.django_db
def test_only_the_class_teacher_sees_the_class_list(world, crafted):
    url = reverse("classroom:class_hardest", args=[world.class_a.pk])
    assert world.client("teacher_a").get(url, headers=HX).status_code == 200
    for role in ("teacher_b", "admin_a", "admin_b", "superuser"):
        assert world.client(role).get(url, headers=HX).status_code == 404, role
        assert world.client(role).get(url).status_code == 404, role
    for role in ("anonymous", "child_a"):
        response = world.client(role).get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_the_class_list_costs_the_same_queries_for_more_children(world):
    t = timezone.now() - timedelta(minutes=1)
    url = reverse("classroom:class_hardest", args=[world.class_a.pk])
    client = world.client("teacher_a")

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url, headers=HX).status_code == 200
        return len(queries)

    answer(world.child_a, 7, 8, 50, when=t)
    few = count()
    for i in range(8):
        child = Student.objects.create(classroom=world.class_a, name=f"Kid {i}")
        for a in range(2, 8):
            answers(child, a, 9, 0, 2, when=t)
    assert count() == few
    # The list itself: ranking, typical answers, who struggles, their names, median times.
    request = RequestFactory().get(url, {"range": "all"})
    with CaptureQueriesContext(connection) as queries:
        ctx = report_context.class_hardest_context(request, world.class_a)
    assert len(ctx["rows"]) == 7 and len(queries) == 5


# --- median times --------------------------------------------------------------------------


@pytest.mark.django_db
def test_median_times_separate_warm_up_game_and_challenge_and_skip_accuracy_first(world):
    t = timezone.now() - timedelta(hours=1)
    ada, ali = world.child_a, world.child_a2
    timed = WarmUp.objects.create(student=ada, started_at=t, timed=True)
    untimed = WarmUp.objects.create(student=ali, started_at=t, timed=False)
    for ms in (1000, 1500, 2000):
        answer(ada, 3, 4, 12, when=t, context="warm-up", ms=ms, warm_up=timed)
    answer(ada, 3, 4, 13, when=t, context="warm-up", ms=100, warm_up=timed)  # wrong: no time
    answer(ali, 3, 4, 12, when=t, context="warm-up", ms=50, warm_up=untimed)  # accuracy first
    answer(ada, 6, 7, 42, when=t, ms=2000)  # a game outside any session is timed
    answer(ali, 6, 7, 42, when=t, ms=5000)
    answer(ali, 6, 7, 42, when=t, ms=90000, context="forced")  # after being caught: no
    world.assignment_a.accuracy_first = True
    world.assignment_a.save()
    answer(ada, 6, 7, 42, when=t, ms=30000, match=world.match_a)  # accuracy first: left out
    answer(ada, 2, 8, 16, when=t, context="challenge", ms=4000, match=world.match_a)
    answer(world.child_b, 6, 7, 42, when=t, ms=90000)  # class B

    times = hardest.median_times(hardest.attempts_of([world.class_a.pk], t - timedelta(hours=1)))
    assert times["warm_up"] == {"median_ms": 1500, "timed": 3, "accuracy_first": 1}
    assert times["game"] == {"median_ms": 3500, "timed": 2, "accuracy_first": 1}
    assert times["challenge"] == {"median_ms": None, "timed": 0, "accuracy_first": 1}

    html = (
        world.client("teacher_a")
        .get(reverse("classroom:class_report", args=[world.class_a.pk]))
        .text
    )
    dl = re.search(r'<dl class="fact-numbers hardest-times">.*?</dl>', html, re.S).group(0)
    assert re.search(r"<dt>warm-up</dt><dd>1.5 s", dl)
    assert re.search(r"<dt>game time</dt><dd>3.5 s", dl)
    assert "includes choosing the cards" in dl
    assert re.search(r"<dt>challenges</dt><dd><span class=\"muted\">not shown: accuracy-first", dl)


# --- the school -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_school_list_adds_up_the_classes_with_counts_per_class_and_no_names(world, crafted):
    response = world.client("admin_a").get(reverse("classroom:school_report"))
    assert response.status_code == 200
    html = response.text
    rows = ranked(html)
    # Bea (class B) 0 of 9 on 7 × 8 and 0 of 4 on 2 × 9 join class A's children: 7 × 8 is
    # now 2 of 3 like 4 × 8, and less often right (4 of 15 against 3 of 6).
    assert rows[:3] == [("6 × 9", "2", "2"), ("7 × 8", "2", "3"), ("4 × 8", "2", "3")]
    assert ("2 × 9", "1", "1") in rows
    part = section(html)
    seven_eight = re.findall(r'<li class="hardest-row">.*?</li>', part, flags=re.S)[1]
    table = re.search(r"<tbody>.*?</tbody>", seven_eight, flags=re.S).group(0)
    assert re.findall(r"<bdi>(\w+)</bdi></th><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)",
                      table) == [("3A", "1", "2"), ("3B", "1", "1")]  # fmt: skip
    for name in ("Ada", "Ali", "Bea", "Cy", "Di", "Eve"):
        assert name not in part, name
    assert "Counts per class only" in part
    assert 'href="/teacher/' not in part  # no link into a class's pages


@pytest.mark.django_db
def test_the_school_list_is_the_admins_only_and_takes_a_range(world, crafted):
    url = reverse("classroom:school_hardest")
    for role in ("teacher_a", "teacher_b", "superuser"):
        assert world.client(role).get(url, headers=HX).status_code == 404, role
    # admin_b's school has no class: an empty list, nothing of school A.
    other = world.client("admin_b").get(url, headers=HX)
    assert other.status_code == 200 and "Nobody struggled" in other.text
    client = world.client("admin_a")
    response = client.get(url + "?range=4w", headers=HX)
    assert response.status_code == 200 and "<html" not in response.text
    assert ("5 × 5", "1", "1") in ranked(response.text)
    assert re.search(r'aria-current="true">Last 28 days<', response.text)
    assert ("5 × 5", "1", "1") not in ranked(client.get(url, headers=HX).text)  # 7 days
    assert client.get(url + "?range=4w").status_code == 200  # plain: the whole report
    bad = client.get(reverse("classroom:school_report") + "?range=%27", headers={})
    assert bad.status_code == 422 and "does not exist" in bad.text


# --- a child's fact: week by week, last practised -----------------------------------------


@pytest.mark.django_db
def test_the_fact_panel_shows_both_orders_week_by_week_and_empty_weeks(world):
    School.objects.filter(pk=world.school_a.pk).update(timezone="Pacific/Auckland")
    school = school_of(world)
    ada = world.child_a
    monday = school.week_start()
    answer(ada, 7, 8, 56, when=monday + timedelta(seconds=1))  # this week (local)
    answer(ada, 8, 7, 48, when=monday + timedelta(seconds=2))
    answer(ada, 8, 7, 56, when=monday - timedelta(seconds=1))  # Sunday 23:59:59: last week
    answer(ada, 7, 8, 56, when=monday - timedelta(weeks=3))
    answer(ada, 7, 9, 63, when=monday + timedelta(seconds=3))  # another fact
    answer(world.child_a2, 7, 8, 50, when=monday + timedelta(seconds=3))  # another child
    answer(ada, 7, 8, 50, when=monday - timedelta(weeks=12))  # before the 12 weeks

    url = reverse("classroom:child_fact", args=[ada.pk, 7, 8])
    html = world.client("teacher_a").get(url, headers=HX).text
    trend = re.search(r'<section class="fact-trend".*?</section>', html, re.S).group(0)
    assert "7 × 8 and 8 × 7, week by week" in trend
    svg = re.search(r"<svg.*?</svg>", trend, re.S).group(0)
    assert "style=" not in svg and "http" not in svg
    values = re.findall(r'class="value-label"[^>]*>(\d+/\d+)<', svg)
    assert values == ["1/1", "1/1", "1/2"]  # three weeks ago, last week, this week
    assert svg.count('class="empty-label"') == 9  # 12 weeks, 9 without answers
    table = re.findall(r"<tr><th scope=\"row\">([^<]+)</th><td class=\"num\">(.*?)</td>", trend)
    assert len(table) == 12
    first_week = (monday - timedelta(weeks=11)).astimezone(school.zone)
    assert table[0][0] == first_week.strftime("%a %-d %b %Y")
    assert table[-1][1] == "2" and table[-2][1] == "1" and table[-3][1].endswith("none</span>")
    # Last practised: Monday 00:00:02, local (this week, so 0 to 6 days ago).
    day = monday.astimezone(school.zone).date()
    days = (school.local_today() - day).days
    ago = "today" if days == 0 else f"{days}\xa0day{'s' if days > 1 else ''} ago"
    assert f"Last practised: {ago} ({day.day} {day:%b} {day.year})." in trend


@pytest.mark.django_db
def test_last_practised_is_a_local_date_and_how_long_ago(world):
    School.objects.filter(pk=world.school_a.pk).update(timezone="Pacific/Auckland")
    school = school_of(world)
    ada = world.child_a
    today = school.local_today()
    # Local midnight plus a second, 3 days ago: in UTC that is the day before.
    when = school.day_start(today - timedelta(days=3)) + timedelta(seconds=1)
    assert when.astimezone(UTC).date() == today - timedelta(days=4)
    answer(ada, 8, 6, 48, when=when)
    detail = report_context.fact_history(Student.objects.get(pk=ada.pk), 6, 8)
    assert detail["last_practised"] == when
    assert detail["last_practised_ago"] == "3\xa0days ago"
    html = world.client("teacher_a").get(reverse("classroom:child_fact", args=[ada.pk, 6, 8])).text
    day = today - timedelta(days=3)
    assert f"Last practised: 3\xa0days ago ({day.day} {day:%b} {day.year})." in html

    never = world.client("teacher_a").get(reverse("classroom:child_fact", args=[ada.pk, 9, 9])).text
    assert "Not practised yet." in never and "No answers to this fact in the last 12 weeks" in never


def test_the_fact_trend_bars_are_whole_numbers_scaled_to_the_busiest_week():
    today = datetime(2026, 12, 3).date()
    monday = charts.week_of(today)
    weeks = charts.weekly([(monday, 4, 1), (monday - timedelta(weeks=2), 2, 2)], today)
    chart = report_context.fact_trend_chart(weeks)
    bars = chart["weeks"]
    assert len(bars) == 12 and chart["weeks_with_data"] == 2
    assert (chart["total"], chart["right"]) == (6, 3)
    this, two_ago, empty = bars[-1], bars[-3], bars[-2]
    assert this["total_h"] == 90 and this["right_h"] == 22  # 4 answers tallest, 1 right
    assert two_ago["total_h"] == 45 and two_ago["right_h"] == 45
    assert empty["attempts"] == 0 and empty["total_h"] == 0
    for bar in bars:
        assert all(isinstance(bar[k], int) for k in ("x", "total_y", "right_y", "value_y"))
