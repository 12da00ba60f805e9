"""What teachers see: the child, class and school reports, the fact details, the exports, the
"needs help" rule and the rebuild button. Statistics rows are created directly here (the
pipeline that fills them is tested in test_analytics_pipeline*.py)."""

import csv
import io
import json
import re
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest
from django.urls import resolve
from django.urls import reverse
from django.utils import timezone

from classroom import charts
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import Student
from games.models import Move

from ..conftest import without_tokens
from .conftest import attempt_fields

OUTSIDERS = ("teacher_b", "admin_a", "admin_b", "superuser")
CHILDREN = ("anonymous", "child_a", "child_b")


def stat(student, a, b, state, attempts=0, correct=0, **extra):
    return FactStat.objects.create(
        student=student, a=a, b=b, state=state, attempts=attempts, correct=correct, **extra
    )


_ply = iter(range(10_000, 100_000))


def attempt(student, match, a, b, answer, *, when, context="capture", ms=2000):
    move = Move.objects.create(
        match=match, ply=next(_ply), seat=0, action={"type": "test"}, created_at=when
    )
    return Attempt.objects.create(
        **attempt_fields(student, a, b, answer, ms=ms, match=match, move=move, context=context),
        created_at=when,
    )


def svg_blocks(html: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.S)


def cell(html: str, a: int, b: int) -> str:
    """The <a> of one heatmap cell."""
    match = re.search(rf'<a id="cell-{a}-{b}"[^>]*>.*?</a>', html, flags=re.S)
    assert match, f"no cell {a}×{b}"
    return match.group(0)


# --- who may see what --------------------------------------------------------------------------


def child_urls(world):
    pk = world.child_a.pk
    return [
        reverse("classroom:child_report", args=[pk]),
        reverse("classroom:child_fact", args=[pk, 7, 8]),
        reverse("classroom:child_report_print", args=[pk]),
        reverse("classroom:child_export_json", args=[pk]),
        reverse("classroom:child_export_csv", args=[pk]),
    ]


def class_urls(world):
    pk = world.class_a.pk
    return [
        reverse("classroom:class_report", args=[pk]),
        reverse("classroom:class_fact", args=[pk, 7, 8]),
        reverse("classroom:class_export_csv", args=[pk]),
    ]


@pytest.mark.django_db
def test_the_class_teacher_sees_every_report_of_their_class(world):
    """Each page and export is the one asked for: the child's or the class's, the fact's."""
    client = world.client("teacher_a")
    child, room = world.child_a.name, world.class_a.name
    wanted = {
        "child_report": [child],
        "child_fact": [child, "7 × 8"],
        "child_report_print": [child],
        "child_export_json": ['"name": "Ada"', f'"class": "{room}"'],
        "child_export_csv": ["name,class,match,time,a,b,answer"],
        "class_report": [room],
        "class_fact": [room, "7 × 8"],
        "class_export_csv": ["child,group,2x2"],
    }
    for url in child_urls(world) + class_urls(world):
        response = client.get(url)
        assert response.status_code == 200, url
        text = response.content.decode("utf-8-sig")
        name = resolve(url).url_name
        for piece in wanted[name]:
            assert piece in text, (url, piece)


@pytest.mark.django_db
@pytest.mark.parametrize("role", OUTSIDERS)
def test_a_colleague_an_admin_or_a_superuser_gets_404(world, role):
    """Not found, and nothing of the child's evidence in the answer."""
    client = world.client(role)
    for url in child_urls(world) + class_urls(world):
        response = client.get(url)
        assert response.status_code == 404, (role, url)
        assert "export" not in response.get("Content-Disposition", ""), url
        assert "7 × 8" not in response.content.decode(), url


@pytest.mark.django_db
@pytest.mark.parametrize("role", CHILDREN)
def test_children_and_strangers_are_sent_to_log_in(world, role):
    client = world.client(role)
    for url in child_urls(world) + class_urls(world) + [reverse("classroom:school_report")]:
        response = client.get(url)
        assert response.status_code == 302, (role, url)
        assert response["Location"].startswith(reverse("login")), url


@pytest.mark.django_db
def test_the_school_report_is_only_for_the_school_admin(world):
    assert world.client("admin_a").get(reverse("classroom:school_report")).status_code == 200
    assert world.client("admin_b").get(reverse("classroom:school_report")).status_code == 200
    for role in ("teacher_a", "teacher_b", "superuser"):
        assert world.client(role).get(reverse("classroom:school_report")).status_code == 404, role


@pytest.mark.django_db
def test_a_fact_outside_the_tables_is_404(world):
    client = world.client("teacher_a")
    assert (
        client.get(reverse("classroom:child_fact", args=[world.child_a.pk, 1, 8])).status_code
        == 404
    )
    assert (
        client.get(reverse("classroom:class_fact", args=[world.class_a.pk, 7, 10])).status_code
        == 404
    )


# --- the child's heatmap -----------------------------------------------------------------------


@pytest.fixture
def ada_stats(world):
    """Rows as the rebuild writes them: the state and recent figures pooled over both orders
    (7 × 8 and 8 × 7 carry the same), the counts per order."""
    ada = world.child_a
    pooled = {"recent_attempts": 10, "recent_correct": 6, "recent_days": 2, "speed_ms": 4200}
    stat(
        ada,
        7,
        8,
        "learning",
        attempts=6,
        correct=2,
        omissions=1,
        errors={"operand": 3, "omission": 1},
        wrong_answers={"48": 2, "15": 1},
        speed_from_game=True,
        **pooled,
    )
    stat(ada, 8, 7, "learning", attempts=8, correct=8, median_ms=1500, speed_from_game=True,
         **pooled)  # fmt: skip
    stat(ada, 2, 3, "fluent", attempts=4, correct=4, median_ms=4000, recent_attempts=4,
         recent_correct=4, speed_ms=2500)  # fmt: skip
    stat(ada, 6, 9, "learning", attempts=5, correct=1, errors={"table": 2, "close": 2},
         recent_attempts=5, recent_correct=1, speed_ms=5000)  # fmt: skip
    stat(ada, 4, 4, "wrong_so_far", attempts=3, correct=2, errors={"operation": 1},
         recent_attempts=3, recent_correct=2, speed_ms=2000)  # fmt: skip
    # right every time, but slow: shown "right but slow"
    stat(ada, 5, 5, "learning", attempts=5, correct=5, recent_attempts=5, recent_correct=5,
         speed_ms=8000)  # fmt: skip
    stat(ada, 3, 4, "right_so_far", attempts=1, correct=1, recent_attempts=1, recent_correct=1,
         speed_ms=1800)  # fmt: skip
    long_ago = timezone.now() - timedelta(days=29)
    stat(ada, 2, 2, "mastered", attempts=8, correct=8, recent_attempts=8, recent_correct=8,
         recent_days=3, speed_ms=1200, last_attempt_at=long_ago)  # fmt: skip
    return ada


def mark(html):
    return re.search(r'<span class="heat-mark">([^<]*)</span>', html).group(1)


@pytest.mark.django_db
def test_the_child_heatmap_has_a_cell_per_fact_as_asked_with_a_text_mark(world, ada_stats):
    html = (
        world.client("teacher_a").get(reverse("classroom:child_report", args=[ada_stats.pk])).text
    )
    cells = re.findall(r'<a id="cell-(\d)-(\d)"', html)
    assert len(cells) == 64
    assert ("7", "8") in cells and ("8", "7") in cells
    seven_eight, eight_seven = cell(html, 7, 8), cell(html, 8, 7)
    for c in (seven_eight, eight_seven):  # the pooled state in both orders' squares
        assert "heat-learning" in c and mark(c) == "L" and ">6/10<" in c and ">~4.2s<" in c
    assert (
        "7 × 8: learning, 6 right of the latest 10 (both orders together); steady, 4.2 s game "
        "time (includes choosing the cards)"
    ) in seven_eight
    assert "heat-fluent" in cell(html, 2, 3) and mark(cell(html, 2, 3)) == "F"
    assert "speed-quick" in cell(html, 2, 3) and ">2.5s<" in cell(html, 2, 3)
    # 3 × 2 never asked this way round: the fact's state all the same (it pools both orders)
    assert "heat-fluent" in cell(html, 3, 2) and "3 × 2: fluent, 4 right of the latest 4" in (
        cell(html, 3, 2)
    )
    # …and so does the table behind the map, with this order's own (zero) counts
    assert '<th scope="row">3 × 2</th><td>fluent</td><td class="num">0</td>' in html
    assert '<th scope="row">9 × 9</th><td>not seen yet</td><td class="num">0</td>' in html
    assert "heat-not_seen" in cell(html, 9, 9) and "·" in cell(html, 9, 9)
    assert "not seen yet" in cell(html, 9, 9)
    # Issue 19: 1 right of 1 does not look like 0 right of 1, nor slow-but-right like wrong.
    right, wrong = cell(html, 3, 4), cell(html, 4, 4)
    assert "heat-right_so_far" in right and mark(right) == "✓" and ">1/1<" in right
    assert "heat-wrong_so_far" in wrong and mark(wrong) == "✗" and ">2/3<" in wrong
    slow = cell(html, 5, 5)
    assert "heat-slow" in slow and mark(slow) == "S" and "speed-slow" in slow
    assert "5 × 5: right but slow, 5 right of the latest 5" in slow and "slow, 8.0 s" in slow
    # Mastered, not seen for four weeks: check again (the stored state stays mastered).
    due = cell(html, 2, 2)
    assert "heat-check_again" in due and mark(due) == "M?" and "check again" in due
    # Each cell is a real link to the fact's detail, loaded by htmx into the page.
    href = reverse("classroom:child_fact", args=[ada_stats.pk, 7, 8])
    assert f'href="{href}"' in seven_eight and f'hx-get="{href}"' in seven_eight


@pytest.mark.django_db
def test_twins_together_show_the_pooled_state_and_both_counts(world, ada_stats):
    url = reverse("classroom:child_report", args=[ada_stats.pk]) + "?view=together"
    html = world.client("teacher_a").get(url).text
    for a, b in ((7, 8), (8, 7)):
        c = cell(html, a, b)
        assert "heat-learning" in c and "6 right of the latest 10" in c
    assert "heat-fluent" in cell(html, 3, 2)  # 2 × 3 fluent, 3 × 2 not seen: fluent
    assert "4 × 4: wrong so far, 2 right of the latest 3" in cell(html, 4, 4)  # counted once
    table = re.search(r'class="chart-data".*?</details>', html, flags=re.S).group(0)
    assert re.search(r"7 × 8 / 8 × 7</th><td>learning</td><td class=\"num\">14</td>", table)
    # The tapped square's panel says what the square counts, then the fact as asked.
    url = reverse("classroom:child_fact", args=[ada_stats.pk, 3, 2]) + "?view=together"
    panel = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    panel = panel[panel.index('id="fact-detail"') :]
    assert "3 × 2 and 2 × 3 together:</b> fluent, 4 right of 4 answers." in panel
    assert "Below: 3 × 2 as asked." in panel and "has not met this fact" in panel
    focus = re.search(r'id="focus-title".*?</section>', html, flags=re.S).group(0)
    assert "?view=together" in focus  # the focus links keep the view


@pytest.mark.django_db
def test_the_child_report_shows_focus_facts_and_error_kinds_in_words(world, ada_stats):
    html = (
        world.client("teacher_a").get(reverse("classroom:child_report", args=[ada_stats.pk])).text
    )
    focus = re.search(r'id="focus-title".*?</section>', html, flags=re.S).group(0)
    # Wrong so far or learning, the lowest share right lately first: 6 × 9 (1 of 5), 7 × 8
    # (6 of 10, both orders: the one got wrong most), 4 × 4 (2 of 3); 5 × 5 (5 of 5) is 4th.
    assert re.findall(r"(\d) × (\d) = \d+</a>", focus) == [("6", "9"), ("7", "8"), ("4", "4")]
    assert "6 right of the latest 10" in focus
    # Listed once: the empty detail panel points to the list instead of repeating it.
    assert html.count('class="focus-list"') == 1
    assert 'href="#focus-title"' in html
    # Each opens in the panel, as a square does (its real link kept).
    link = reverse("classroom:child_fact", args=[ada_stats.pk, 6, 9])
    assert f'href="{link}" hx-get="{link}" hx-target="#facts"' in focus
    rows = kind_rows(html)
    assert rows["neighbouring fact"] == "3"
    assert rows["another times-table answer"] == "2"
    assert rows["near miss"] == "2"
    assert rows["added, subtracted or wrote the numbers side by side"] == "1"
    assert rows["missed capture"] == "1"
    # No attempt is stored in this fixture, so no context says which other kinds could be.
    assert "other" not in rows and "digits the other way round" not in rows


def kind_rows(html: str) -> dict[str, str]:
    """The child report's "Kinds of mistakes" table: {label: count}."""
    kinds = re.search(r'class="[^"]*kinds-table.*?</table>', html, flags=re.S).group(0)
    return dict(re.findall(r'<th scope="row">([^<]+)</th><td class="num">(\d+)</td>', kinds))


def kinds_help(html: str) -> str:
    return re.search(r'id="errors-title".*?</section>', html, flags=re.S).group(0)


@pytest.mark.django_db
def test_a_game_only_report_shows_no_empty_row_for_a_kind_games_cannot_give(world):
    """In a game a claimed answer is always a monster on the board: never OTHER. A child with
    game attempts only sees every other kind (zeros are news there) but no empty "other"; an
    attempt from a context not in diagnosis.CONTEXT_KINDS (a later warm-up) brings it."""
    ada, now = world.child_a, timezone.now()
    attempt(ada, world.match_a, 7, 8, 54, when=now - timedelta(minutes=3))  # the 54/56 miss
    attempt(ada, world.match_a, 6, 6, 63, when=now - timedelta(minutes=2))  # 36 turned round
    attempt(ada, world.match_a, 7, 8, None, when=now - timedelta(minutes=1), context="missed")
    FactStat.objects.rebuild_for([ada.pk])
    url = reverse("classroom:child_report", args=[ada.pk])
    html = world.client("teacher_a").get(url).text
    rows = kind_rows(html)
    assert rows == {
        "neighbouring fact": "0",
        "near miss": "1",
        "0 or one of the two numbers": "0",
        "added, subtracted or wrote the numbers side by side": "0",
        "digits the other way round": "1",
        "another times-table answer": "0",
        "missed capture": "1",
    }
    help_text = kinds_help(html)
    assert "one or two steps away" in help_text and "7 × 8 → 65" in help_text
    assert "none of these" not in help_text  # no help for a kind not shown
    # The printable report shows the same rows.
    printed = (
        world.client("teacher_a").get(reverse("classroom:child_report_print", args=[ada.pk])).text
    )
    assert kind_rows(printed) == rows

    attempt(ada, world.match_a, 7, 8, 57, when=now, context="warm-up")
    FactStat.objects.rebuild_for([ada.pk])
    rows = kind_rows(world.client("teacher_a").get(url).text)
    assert rows["other"] == "0" and rows["near miss"] == "2"


@pytest.mark.django_db
def test_a_child_without_answers_has_no_kinds_table(world):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:child_report", args=[world.child_a.pk]))
        .text
    )
    assert "kinds-table" not in html and "No answers yet." in html


@pytest.mark.django_db
def test_the_fact_detail_partial(world, ada_stats):
    url = reverse("classroom:child_fact", args=[ada_stats.pk, 7, 8])
    response = world.client("teacher_a").get(url, headers={"HX-Request": "true"})
    html = response.text
    assert response.status_code == 200
    assert "<html" not in html and 'id="facts"' in html  # the partial only
    assert "7 × 8 = 56" in html
    assert 'aria-current="true"' in cell(html, 7, 8)  # the tapped cell is marked
    numbers = re.search(r'<dl class="fact-numbers">.*?</dl>', html, flags=re.S).group(0)
    assert "<dd>6</dd>" in numbers and "2 <span" in numbers and "(33 %)" in numbers
    # Typical wrong answers, most frequent first, with their kind in words.
    assert re.search(
        r">48</th><td[^>]*>2</td><td>neighbouring fact, one step away: 6 × 8</td>", html
    )
    assert re.search(r">15</th><td[^>]*>1</td><td>added instead \(7 \+ 8\)</td>", html)
    assert "Its twin 8 × 7: learning." in html
    assert "The state counts 7 × 8 and 8 × 7 together: 6 right of the latest 10." in html
    assert "Speed: steady, 4.2 s game time (includes choosing the cards)." in html
    # The keyboard's focus goes to the fact's heading once swapped in (a screen reader reads
    # it; before, Enter on a square changed the panel in silence: a keyboard walk), not on
    # the whole page, which opens where it was asked.
    assert '<h2 id="fact-title" tabindex="-1" data-autofocus>' in html
    page = world.client("teacher_a").get(url).text
    assert 'id="fact-title"' in page and "data-autofocus" not in page
    class_fact = reverse("classroom:class_fact", args=[world.class_a.pk, 7, 8])
    swapped = world.client("teacher_a").get(class_fact, headers={"HX-Request": "true"}).text
    assert '<h2 id="fact-title" tabindex="-1" data-autofocus>' in swapped


@pytest.mark.django_db
def test_as_asked_each_square_shows_its_own_orders_latest_answers(world):
    """A child who knows 3 × 2 but not 2 × 3: "As asked" shows 1/8 and 4/7 (before, both
    squares showed the pooled 5/10, as "Twins together" does; found in a teacher's browser
    walk); the colour is still the state of both orders together. An order asked only the
    other way round shows no ratio and says so."""

    def window(right, n):
        return [[i, 1_000_000 + i, int(i < right), 2000, 0, 0, 0] for i in range(n)]

    pooled = {"recent_attempts": 10, "recent_correct": 5, "speed_ms": 3000}
    ada = world.child_a
    stat(ada, 2, 3, "learning", attempts=8, correct=1, latest=window(1, 8), **pooled)
    stat(ada, 3, 2, "learning", attempts=7, correct=4, latest=window(4, 7), **pooled)
    stat(ada, 4, 6, "learning", attempts=5, correct=2, latest=window(2, 5), recent_attempts=5,
         recent_correct=2, speed_ms=3000)  # fmt: skip
    teacher = world.client("teacher_a")
    html = teacher.get(reverse("classroom:child_report", args=[ada.pk])).text
    ratio = r'<span class="heat-ratio">([^<]*)</span>'
    assert re.search(ratio, cell(html, 2, 3)).group(1) == "1/8"
    assert re.search(ratio, cell(html, 3, 2)).group(1) == "4/7"
    assert "heat-learning" in cell(html, 2, 3) and "heat-learning" in cell(html, 3, 2)
    assert (
        "2 × 3 as asked: 1 right of its latest 8; both orders together: learning, 5 right of "
        "the latest 10" in cell(html, 2, 3)
    )
    assert "heat-ratio" not in cell(html, 6, 4)  # asked only as 4 × 6
    assert "6 × 4: not asked this way yet; both orders together: learning" in cell(html, 6, 4)
    assert "so 7 × 8 and 8 × 7 can differ" in html
    together = teacher.get(reverse("classroom:child_report", args=[ada.pk]), {"view": "together"})
    assert re.search(ratio, cell(together.text, 2, 3)).group(1) == "5/10"
    assert "so 7 × 8 and 8 × 7 can differ" not in together.text


@pytest.mark.django_db
def test_a_square_fact_is_not_counted_with_itself(world, ada_stats):
    """4 × 4 is its own twin: its panel says what the state counts without "4 × 4 and 4 × 4
    together" (found in a teacher's browser walk)."""
    url = reverse("classroom:child_fact", args=[ada_stats.pk, 4, 4])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    assert "The state counts the latest answers: 2 right of the latest 3." in html
    assert "4 × 4 and 4 × 4" not in html


@pytest.mark.django_db
def test_a_plain_request_for_a_fact_is_the_whole_report_with_the_fact_open(world, ada_stats):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:child_fact", args=[ada_stats.pk, 7, 8]))
        .text
    )
    assert "<html" in html and "7 × 8 = 56" in html and 'id="focus-title"' in html


@pytest.mark.django_db
def test_median_time_of_timed_answers_and_none_for_accuracy_first_only(world, ada_stats):
    now = timezone.now()
    for i, (answer, ms) in enumerate([(56, 3000), (56, 5000), (48, 1000), (56, 4000)]):
        attempt(ada_stats, world.match_a, 7, 8, answer, when=now - timedelta(minutes=10 - i), ms=ms)
    client = world.client("teacher_a")
    html = client.get(reverse("classroom:child_fact", args=[ada_stats.pk, 7, 8])).text
    assert "4.0 s" in html  # median of the right answers 3000, 5000, 4000 (not the wrong 1000)
    assert "✗</span> 48 (neighbouring fact)" in html

    world.assignment_a.accuracy_first = True
    world.assignment_a.save()
    html = client.get(reverse("classroom:child_fact", args=[ada_stats.pk, 7, 8])).text
    assert "not shown: accuracy-first sessions only" in html
    assert " s</dd>" not in html


@pytest.mark.django_db
def test_the_trend_line_is_an_svg_without_style_and_with_a_table(world, ada_stats):
    today = world.class_a.school.local_today()
    monday = today - timedelta(days=today.weekday())
    for student, day, attempts, correct in [
        (ada_stats, monday, 8, 6),
        (ada_stats, monday - timedelta(days=6), 2, 1),
        (ada_stats, monday - timedelta(days=7), 10, 5),
        (world.child_a2, monday, 50, 50),
    ]:
        DailyTrend.objects.create(
            scope="student", scope_id=student.pk, day=day, attempts=attempts, correct=correct
        )
    html = (
        world.client("teacher_a").get(reverse("classroom:child_report", args=[ada_stats.pk])).text
    )
    svgs = svg_blocks(html)
    assert svgs
    for svg in svgs:
        assert "style=" not in svg
        assert "http" not in svg and "href" not in svg
    assert "style=" not in html  # no inline style anywhere on the page
    trend = next(s for s in svgs if "trend-chart" in s)
    assert 'class="trend-line"' in trend
    assert ">75</text>" in trend  # this week: 6 of 8
    assert ">50</text>" in trend  # last week: 1 + 5 of 2 + 10
    table = re.search(r"Week starting.*?</table>", html, flags=re.S).group(0)
    assert re.search(
        r"<td class=\"num\">8</td><td class=\"num\">6</td><td class=\"num\">75 %", table
    )
    assert re.search(
        r"<td class=\"num\">12</td><td class=\"num\">6</td><td class=\"num\">50 %", table
    )


def test_weekly_totals_and_gaps_break_the_line():
    from datetime import date

    today = date(2025, 11, 5)  # a Wednesday
    weeks = charts.weekly(
        [(date(2025, 11, 3), 4, 2), (date(2025, 10, 20), 5, 5), (date(2024, 1, 1), 9, 9)],
        today,
        weeks=3,
    )
    assert [(w["week"], w["attempts"], w["accuracy"]) for w in weeks] == [
        (date(2025, 10, 20), 5, 100),
        (date(2025, 10, 27), 0, None),
        (date(2025, 11, 3), 4, 50),
    ]
    chart = charts.trend_chart(weeks)
    assert chart["lines"] == []  # two lone points, no line across the empty week
    assert [p.get("y") is not None for p in chart["points"]] == [True, False, True]
    # The last week's label ("23/11", centred, 14 px digits ≈ 8 px wide) stays in the SVG.
    assert chart["points"][-1]["x"] + len("23/11") * 8 / 2 <= chart["width"]


# --- exports -----------------------------------------------------------------------------------


@pytest.fixture
def exported(world):
    ada = world.child_a
    t = datetime(2025, 11, 4, 9, 30, 0, tzinfo=UTC)
    attempt(ada, world.match_a, 7, 8, 56, when=t, ms=2100)
    attempt(ada, world.match_a, 7, 8, 48, when=t + timedelta(seconds=5), ms=3400)
    attempt(
        ada, world.match_a, 6, 9, None, when=t + timedelta(seconds=9), context="missed", ms=None
    )
    attempt(world.child_b, world.match_b, 2, 2, 4, when=t)  # another child: never exported
    return ada


@pytest.mark.django_db
def test_the_child_json_export_is_exactly_their_attempts(world, exported):
    response = world.client("teacher_a").get(
        reverse("classroom:child_export_json", args=[exported.pk])
    )
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    m = world.match_a.public_id
    assert json.loads(response.content) == {
        "name": "Ada",
        "class": "3A",
        "attempts": [
            {
                "match": m,
                "time": "2025-11-04T09:30:00Z",
                "a": 7,
                "b": 8,
                "answer": 56,
                "correct": True,
                "kind": "correct",
                "context": "capture",
                "response_ms": 2100,
            },
            {
                "match": m,
                "time": "2025-11-04T09:30:05Z",
                "a": 7,
                "b": 8,
                "answer": 48,
                "correct": False,
                "kind": "operand",
                "context": "capture",
                "response_ms": 3400,
            },
            {
                "match": m,
                "time": "2025-11-04T09:30:09Z",
                "a": 6,
                "b": 9,
                "answer": None,
                "correct": False,
                "kind": "omission",
                "context": "missed",
                "response_ms": None,
            },
        ],
    }


@pytest.mark.django_db
def test_the_child_csv_export_is_exactly_their_attempts(world, exported):
    response = world.client("teacher_a").get(
        reverse("classroom:child_export_csv", args=[exported.pk])
    )
    assert response["Content-Type"].startswith("text/csv")
    m = world.match_a.public_id
    assert response.content.decode("utf-8") == (
        "\ufeffname,class,match,time,a,b,answer,correct,kind,context,response_ms\r\n"
        f"Ada,3A,{m},2025-11-04T09:30:00Z,7,8,56,true,correct,capture,2100\r\n"
        f"Ada,3A,{m},2025-11-04T09:30:05Z,7,8,48,false,operand,capture,3400\r\n"
        f"Ada,3A,{m},2025-11-04T09:30:09Z,6,9,,false,omission,missed,\r\n"
    )


@pytest.mark.django_db
def test_the_class_csv_has_a_row_per_child_and_a_column_per_fact(world):
    stat(world.child_a, 7, 8, "learning", attempts=3, correct=1)
    stat(world.child_a, 8, 7, "mastered", attempts=7, correct=7)
    stat(world.child_a2, 2, 2, "fluent", attempts=4, correct=4)
    stat(world.child_b, 2, 2, "mastered", attempts=9, correct=9)  # class B: not in A's file
    archived = Student.objects.create(classroom=world.class_a, name="Gone")
    archived.archive()
    response = world.client("teacher_a").get(
        reverse("classroom:class_export_csv", args=[world.class_a.pk])
    )
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header = rows[0]
    assert header[:4] == ["child", "group", "2x2", "2x3"] and header[-1] == "9x9"
    assert len(header) == 2 + 64
    body = {r[0]: dict(zip(header, r, strict=True)) for r in rows[1:]}
    assert set(body) == {"Ada", "Ali"}  # archived children are left out
    assert body["Ada"]["group"] == "Owls"
    assert body["Ada"]["7x8"] == "learning" and body["Ada"]["8x7"] == "mastered"
    assert body["Ada"]["2x2"] == ""  # not seen: empty
    assert body["Ali"]["2x2"] == "fluent"


def test_csv_cells_never_start_a_formula():
    from classroom.views.exports import csv_safe

    assert csv_safe("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert csv_safe("Ada") == "Ada" and csv_safe(3) == 3


@pytest.mark.django_db
def test_the_printable_report(world, ada_stats):
    response = world.client("teacher_a").get(
        reverse("classroom:child_report_print", args=[ada_stats.pk])
    )
    html = response.text
    assert "print-sheet" in html and "css/reports.css" in html
    assert "6 × 9" in html and "style=" not in html
    assert 'id="print-7-8"' not in html  # no links on paper: cells are plain squares


# --- the class ---------------------------------------------------------------------------------


@pytest.fixture
def class_stats(world):
    fields = ("a", "b", "attempts", "correct", "children", "struggling", "wrong_answers")
    for row in [
        (7, 8, 20, 10, 3, 1, {"48": 4, "54": 1}),
        (2, 5, 9, 9, 2, 0, {}),
        (6, 9, 9, 3, 2, 2, {"15": 6}),
    ]:
        ClassFactStat.objects.create(classroom=world.class_a, **dict(zip(fields, row, strict=True)))
    ClassFactStat.objects.create(
        classroom=world.class_b, a=3, b=3, attempts=9, correct=3, children=1, struggling=1
    )
    stat(world.child_a, 7, 8, "learning", attempts=6, correct=2)
    stat(world.child_a, 8, 7, "fluent", attempts=5, correct=5)
    stat(world.child_a2, 8, 7, "mastered", attempts=8, correct=8)


@pytest.mark.django_db
def test_the_class_heatmap_counts_twins_together(world, class_stats):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:class_report", args=[world.class_a.pk]))
        .text
    )
    for a, b in ((7, 8), (8, 7)):
        c = cell(html, a, b)
        assert "heat-band-some" in c and ">1/3<" in c  # fewer than half struggling
        assert "1 of 3 children who tried it wrong so far or still learning it" in c
    assert "heat-band-nobody" in cell(html, 5, 2) and ">0/2<" in cell(html, 5, 2)
    assert "heat-band-many" in cell(html, 9, 6) and ">2/2<" in cell(html, 9, 6)
    assert "heat-band-none" in cell(html, 3, 3)  # class B's numbers are not class A's
    # The most common wrong answers of the class, with their kind.
    common = re.search(r"most common wrong answers.*?</table>", html, flags=re.S).group(0)
    found = re.findall(
        r"(\d) × (\d)</a></th><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)", common
    )
    assert found == [("6", "9", "15", "6"), ("7", "8", "48", "4"), ("7", "8", "54", "1")]
    assert "style=" not in html


@pytest.mark.django_db
def test_the_class_fact_partial_lists_who_struggles(world, class_stats):
    url = reverse("classroom:class_fact", args=[world.class_a.pk, 7, 8])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    assert "<html" not in html
    struggling = re.search(r"still learning it</h3>.*?</table>", html, flags=re.S).group(0)
    assert "Ada" in struggling and "Ali" not in struggling
    assert "Know it:" in html and "Ali" in html.split("Know it:")[1]
    assert re.search(
        r">48</th><td[^>]*>4</td><td>neighbouring fact, one step away: 6 × 8</td>", html
    )
    assert reverse("classroom:child_fact", args=[world.child_a.pk, 7, 8]) in struggling


@pytest.mark.django_db
def test_the_class_fact_partial_lists_archived_children_as_the_square_counts_them(
    world, class_stats
):
    Student.objects.get(pk=world.child_a.pk).archive()
    url = reverse("classroom:class_fact", args=[world.class_a.pk, 7, 8])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    struggling = re.search(r"still learning it</h3>.*?</table>", html, flags=re.S).group(0)
    assert "Ada" in struggling and "(archived)" in struggling
    # 9 × 9: nobody has met it, and the panel says so (not "nobody ... is still learning it").
    url = reverse("classroom:class_fact", args=[world.class_a.pk, 9, 9])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    panel = html[html.index('id="fact-detail"') :]
    assert "Nobody in the class has met this fact yet." in panel
    assert "still learning it" not in panel
    not_met = panel[panel.index("Not met yet:") :].split("</p>")[0]
    assert "Ali" in not_met and "Ada" not in not_met  # only children still in the class


@pytest.mark.django_db
def test_moving_or_deleting_a_child_rebuilds_the_class_heatmaps(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    from classroom import tasks
    from games import queue

    sent = []
    monkeypatch.setattr(queue, "enqueue", lambda task, *args: sent.append((task, args)))
    stat(world.child_a, 7, 8, "learning", attempts=6, correct=2)
    ClassFactStat.objects.rebuild_for([world.class_a.pk])
    assert ClassFactStat.objects.get(classroom=world.class_a, a=7, b=8).struggling == 1
    other = Classroom.objects.create(school=world.school_a, name="Year 4", teacher=world.teacher_a)
    ada = Student.objects.get(pk=world.child_a.pk)  # not the module's shared object
    with django_capture_on_commit_callbacks(execute=True):
        ada.move_to(other)
    assert sent == [(tasks.rebuild_class_stats, (sorted([world.class_a.pk, other.pk]),))]
    tasks.rebuild_class_stats(*sent[0][1])  # what the worker runs
    assert not ClassFactStat.objects.filter(classroom=world.class_a, a=7, b=8).exists()
    assert ClassFactStat.objects.get(classroom=other, a=7, b=8).struggling == 1
    # Deleting Ada deletes her games, with Ali's answers in their game together: Ali's facts
    # are rebuilt too (his FactStat row came from that game only), then both classes.
    from games.models import Match
    from games.models import Seat

    Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": ada.seat_key},
            {"kind": Seat.Kind.STUDENT, "name": "Ali", "owner_key": world.child_a2.seat_key},
        ],
        options={"tier": "green"},
        seed=5,
    )
    stat(world.child_a2, 6, 7, "learning", attempts=3, correct=1)
    ClassFactStat.objects.rebuild_for([world.class_a.pk])
    assert ClassFactStat.objects.filter(classroom=world.class_a, a=6, b=7).exists()
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        ada.delete_everything()
    assert sent == [(tasks.rebuild_class_stats, ([other.pk], [world.child_a2.pk]))]
    tasks.rebuild_class_stats(*sent[0][1])
    assert not ClassFactStat.objects.filter(classroom=other).exists()
    assert not FactStat.objects.filter(student=world.child_a2).exists()  # no answers left
    assert not ClassFactStat.objects.filter(classroom=world.class_a, a=6, b=7).exists()


# --- needs help --------------------------------------------------------------------------------


def flags(world, now=None):
    return {
        s.name: (s.weak_facts, s.needs_help)
        for s in Student.reports.filter(classroom=world.class_a).with_help_flags(now)
    }


def flagged(world, name="Ada", now=None):
    return Student.reports.filter(classroom=world.class_a).with_help_flags(now).get(name=name)


FACTS = [(a, b) for a in range(2, 10) for b in range(a, 10)]  # the 36 facts, 7 × 8 = 8 × 7


@pytest.mark.django_db
def test_the_help_flags_statement_asks_each_figure_once(world):
    """Each figure's subquery is written once: the flags are decided from the figures as the
    rows are read. Decided in SQL, every use of a figure repeated its subquery (53 SELECTs, the
    stuck fact's four times; docs/performance.md, "JIT off")."""
    queryset = Student.reports.filter(classroom=world.class_a).with_help_flags()
    sql = str(queryset.query)
    assert sql.count("HAVING") == 1  # the stuck fact's run
    assert sql.count("SELECT") <= 20
    assert [s.name for s in queryset.order_by("name")] == ["Ada", "Ali"]


def answers(world, right, wrong, *, missed=0, when=None, child=None):
    """``right`` + ``wrong`` answers and ``missed`` captures, each of another fact (so no
    fact is stuck, and each is a first try while fewer than 36), a minute apart, ending at
    ``when`` (default: now)."""
    child = child or world.child_a
    when = when or timezone.now()
    kinds = ["right"] * right + ["wrong"] * wrong + ["missed"] * missed
    for i, kind in enumerate(kinds):
        a, b = FACTS[(Attempt.objects.filter(student=child).count()) % len(FACTS)]
        at = when - timedelta(minutes=len(kinds) - i)
        if kind == "missed":
            attempt(child, world.match_a, a, b, None, context="missed", when=at)
        else:
            attempt(child, world.match_a, a, b, a * b + (0 if kind == "right" else 1), when=at)


@pytest.mark.django_db
def test_weak_facts_are_counted_but_do_not_flag_a_child(world):
    ada = world.child_a
    stat(ada, 2, 3, "learning", attempts=5, correct=2)  # 40 %: weak
    stat(ada, 2, 4, "learning", attempts=10, correct=5)  # 50 %: weak
    stat(ada, 2, 5, "learning", attempts=4, correct=0)  # only 4 attempts: not weak
    stat(ada, 2, 6, "learning", attempts=5, correct=3)  # exactly 60 %: not weak
    stat(ada, 2, 7, "fluent", attempts=5, correct=2)  # not learning: not weak
    assert flags(world)["Ada"] == (2, False)
    stat(ada, 2, 8, "learning", attempts=6, correct=3)  # 50 %: the third weak fact
    stat(ada, 2, 9, "learning", attempts=6, correct=0)
    assert flags(world)["Ada"] == (4, False)  # shown in the table and reasons, no flag
    assert flags(world)["Ali"] == (0, False)


@pytest.mark.django_db
def test_low_accuracy_needs_15_answers_under_60_percent(world):
    answers(world, 0, 14)  # 14 answers, none right: too few to judge
    ada = flagged(world)
    assert (ada.recent_attempts, ada.low_accuracy, ada.needs_help) == (14, False, False)
    answers(world, 0, 1)  # the 15th
    ada = flagged(world)
    assert (ada.recent_first_right, ada.recent_facts, ada.low_accuracy, ada.needs_help) == (
        0, 15, True, True,
    )  # fmt: skip
    Attempt.objects.all().delete()
    answers(world, 12, 8)  # exactly 60 %: not low
    assert flagged(world).low_accuracy is False
    answers(world, 1, 1)  # 13 of 22: 59 %
    ada = flagged(world)
    assert (ada.recent_first_right, ada.recent_facts, ada.low_accuracy) == (13, 22, True)
    assert (ada.recent_correct, ada.recent_attempts) == (13, 22)  # one try a fact here
    assert ada.stuck is False and ada.weak_facts == 0  # low accuracy is the only reason
    assert ada.needs_help is True
    assert flags(world)["Ali"] == (0, False)


@pytest.mark.django_db
def test_low_accuracy_needs_8_facts(world):
    ada, match, now = world.child_a, world.match_a, timezone.now()
    for i in range(20):  # 20 answers, all wrong, of 7 facts: too few facts to judge
        a, b = FACTS[i % 7]
        attempt(ada, match, a, b, a * b + 1, when=now - timedelta(minutes=30 - i))
    ada_ = flagged(world)
    assert (ada_.recent_attempts, ada_.recent_facts, ada_.low_accuracy) == (20, 7, False)
    a, b = FACTS[7]
    attempt(ada, match, a, b, a * b + 1, when=now - timedelta(minutes=5))  # the 8th fact
    assert flagged(world).needs_help is True


@pytest.mark.django_db
def test_each_fact_counts_once_at_its_first_try(world):
    """The warm-up asks a weak fact again and again: a child right first time on 18 of 20
    facts and wrong 30 times more on their two weak ones is no child to flag, though under
    40 % of all their answers were right."""
    ada, match, now = world.child_a, world.match_a, timezone.now()
    answers(world, 18, 2, when=now - timedelta(hours=2))  # 20 facts; 4 × 7 and 4 × 8 wrong
    assert FACTS[18:20] == [(4, 7), (4, 8)]
    for i in range(15):  # again and again, wrong, and one as its twin: the same fact
        attempt(ada, match, 4, 7, 27, when=now - timedelta(minutes=40 - 2 * i))
        attempt(ada, match, 8, 4, 36, when=now - timedelta(minutes=39 - 2 * i))
    ada_ = flagged(world)
    assert (ada_.recent_correct, ada_.recent_attempts) == (18, 50)  # 36 % of every answer
    assert (ada_.recent_first_right, ada_.recent_facts) == (18, 20)
    assert ada_.needs_help is False
    assert ada_.stuck is True  # …and shown as stuck on one of them
    # The first try is the first in the window: a right answer 8 days ago does not count.
    Attempt.objects.all().delete()
    for i, (a, b) in enumerate(FACTS[:15]):
        attempt(ada, match, a, b, a * b, when=now - timedelta(days=8, minutes=i))
        attempt(ada, match, b, a, a * b + 1, when=now - timedelta(hours=1, minutes=i))
        attempt(ada, match, a, b, a * b, when=now - timedelta(minutes=i))
    ada_ = flagged(world)
    assert (ada_.recent_first_right, ada_.recent_facts, ada_.recent_attempts) == (0, 15, 30)
    assert ada_.needs_help is True


@pytest.mark.django_db
def test_a_missed_capture_counts_as_a_wrong_answer(world):
    answers(world, 9, 6)  # 60 % of 15
    assert flagged(world).low_accuracy is False
    answers(world, 0, 0, missed=1)  # 9 of 16
    ada = flagged(world)
    assert (ada.recent_first_right, ada.recent_facts, ada.low_accuracy) == (9, 16, True)
    assert ada.recent_omissions == 1


@pytest.mark.django_db
def test_low_accuracy_counts_the_last_7_days_only(world):
    now = timezone.now()
    answers(world, 0, 15, when=now - timedelta(days=7, minutes=1))  # 8 days ago … 7 days + 1'
    ada = flagged(world, now=now)
    assert (ada.recent_attempts, ada.needs_help) == (0, False)
    Attempt.objects.all().delete()
    answers(world, 0, 15, when=now - timedelta(days=6, hours=23, minutes=44))  # all inside
    ada = flagged(world, now=now)
    assert (ada.recent_attempts, ada.low_accuracy) == (15, True)
    # A week later, the same answers no longer count: the window rolls, it is not "since
    # Monday" (so a Monday morning still sees last week's play).
    ada = flagged(world, now=now + timedelta(days=1))
    assert (ada.recent_attempts, ada.needs_help) == (0, False)


@pytest.mark.django_db
def test_stuck_on_a_fact_wrong_or_missed_three_times_in_a_row(world):
    ada, match, now = world.child_a, world.match_a, timezone.now()

    def at(minutes):
        return now - timedelta(days=2) + timedelta(minutes=minutes)

    attempt(ada, match, 7, 8, 54, when=at(1))
    attempt(ada, match, 2, 2, 4, when=at(2))  # another fact, right: no matter
    attempt(ada, match, 8, 7, 48, when=at(3))  # the twin: the same fact, either way round
    assert flagged(world).stuck is False  # two in a row
    attempt(ada, match, 8, 7, None, context="missed", when=at(5))  # a missed one is wrong too
    ada_ = flagged(world)
    assert (ada_.stuck, ada_.stuck_a, ada_.stuck_b, ada_.stuck_run) == (True, 7, 8, 3)
    assert ada_.low_accuracy is False and ada_.weak_facts == 0
    assert ada_.needs_help is False  # shown beside the flag, on its own: it raises none
    assert list(Student.reports.filter(classroom=world.class_a).stuck_not_flagged()) == [ada]
    attempt(ada, match, 8, 7, 56, when=at(6))  # right at last, the other way round: run ends
    assert flagged(world).stuck is False
    attempt(ada, match, 6, 7, 41, when=at(7))
    attempt(ada, match, 6, 7, 43, when=at(8))
    attempt(ada, match, 6, 6, 35, when=at(9))  # another fact: not the same run
    assert flagged(world).stuck is False
    attempt(ada, match, 7, 8, 63, when=at(7))
    attempt(ada, match, 7, 8, 63, when=at(8))
    assert flagged(world).stuck is False  # two since the right answer
    attempt(ada, match, 7, 8, 63, when=at(9))
    assert flagged(world).stuck_run == 3
    # Older than 7 days, the same run is no longer news.
    assert flagged(world, now=at(8) + timedelta(days=7, seconds=30)).stuck is False  # 2 left
    assert flagged(world, now=at(7) + timedelta(days=7)).stuck is True  # at the edge: in


@pytest.mark.django_db
def test_stuck_wrong_answers_before_the_window_do_not_count(world):
    ada, match, now = world.child_a, world.match_a, timezone.now()
    attempt(ada, match, 6, 9, 56, when=now - timedelta(days=8))
    attempt(ada, match, 6, 9, 56, when=now - timedelta(days=8))
    attempt(ada, match, 6, 9, 56, when=now - timedelta(hours=1))
    assert flagged(world).stuck is False
    attempt(ada, match, 6, 9, 56, when=now - timedelta(minutes=30))
    attempt(ada, match, 6, 9, 56, when=now - timedelta(minutes=20))
    ada_ = flagged(world)
    assert (ada_.stuck_a, ada_.stuck_b, ada_.stuck_run) == (6, 9, 3)


@pytest.mark.django_db
def test_the_reasons_are_shown_in_words_wherever_the_flag_is(world):
    from classroom.models.report_queries import help_reasons
    from classroom.models.report_queries import stuck_reason

    answers(world, 7, 9)  # 7 right of 16, each a fact of its own
    ali, match, now = world.child_a2, world.match_a, timezone.now()
    for minutes in (3, 2, 1):
        attempt(ali, match, 7, 8, 48, when=now - timedelta(minutes=minutes))
    low = "Right at the first try on 7 of 16 facts in the last 7 days (43 %)"
    stuck = "Stuck on 7 × 8: wrong or missed 3 times in a row"
    assert help_reasons(flagged(world)) == [low]
    assert help_reasons(flagged(world, "Ali")) == []  # stuck, not flagged
    assert stuck_reason(flagged(world, "Ali")) == stuck and stuck_reason(flagged(world)) == ""
    client = world.client("teacher_a")
    report = client.get(reverse("classroom:class_report", args=[world.class_a.pk])).text
    card = re.search(r'id="help-title".*?</section>', report, flags=re.S).group(0)
    assert low in card and "<bdi>Ada</bdi>" in card and "Ali" not in card
    stuck_card = re.search(r'id="stuck-title".*?</section>', report, flags=re.S).group(0)
    assert stuck in stuck_card and "<bdi>Ali</bdi>" in stuck_card and "Ada" not in stuck_card
    table = report[report.index('id="children-title"') :]
    row = re.search(r"<bdi>Ada</bdi></a></th>.*?</tr>", table, flags=re.S).group(0)
    assert row.count("7 of 16") == 2  # the table: right in the last 7 days, and first tries
    assert "First try right, 7 days" in report
    assert "stuck: 7 × 8" in report  # the table's flag column
    wall = client.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text
    details = re.search(r'<details class="needs-help-wall">.*?</details>', wall, flags=re.S)
    assert "Needs help: 1 child" in details.group(0) and low in details.group(0)
    stuck_box = re.search(r'<details class="needs-help-wall stuck-wall">.*?</details>', wall, re.S)
    assert "Stuck on a fact: 1 child" in stuck_box.group(0) and stuck in stuck_box.group(0)
    # The wall is on the projector: the class reads the names, not the scores (found in a
    # teacher's browser walk); the reasons are the links' tooltips and screen-reader text.
    for box in (details.group(0), stuck_box.group(0)):
        seen = re.sub(r'<span class="visually-hidden">.*?</span>|<[^>]+>', "", box)
        assert "%" not in seen and "wrong or missed" not in seen, seen
    assert f'title="{low}"' in details.group(0)
    home = client.get(reverse("classroom:teacher_home")).text
    box = re.search(r'id="needs-help-title".*?</section>', home, flags=re.S).group(0)
    assert low in box and stuck not in box
    home_stuck = re.search(r'id="stuck-title".*?</section>', home, flags=re.S).group(0)
    assert stuck in home_stuck and "<bdi>Ali</bdi>" in home_stuck
    child = client.get(reverse("classroom:child_report", args=[ali.pk])).text
    assert 'id="help-title"' not in child
    panel = re.search(r'id="stuck-title".*?</section>', child, flags=re.S).group(0)
    assert stuck in panel and low not in panel
    # A flagged child who is stuck as well: the stuck fact is among the flag's reasons.
    for minutes in (6, 5, 4):
        attempt(world.child_a, match, 6, 9, 56, when=now - timedelta(seconds=minutes))
    ada = flagged(world)
    assert help_reasons(ada) == [
        "Right at the first try on 7 of 17 facts in the last 7 days (41 %)",
        "Stuck on 6 × 9: wrong or missed 3 times in a row",
    ]
    Attempt.objects.filter(student=ali).delete()
    child = client.get(reverse("classroom:child_report", args=[ali.pk])).text
    assert 'id="help-title"' not in child and 'id="stuck-title"' not in child


@pytest.mark.django_db
def test_the_teachers_home_asks_for_the_help_flags_once_a_class(world):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    classes = Classroom.objects.for_teacher(world.teacher_a).active().count()
    client = world.client("teacher_a")
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("classroom:teacher_home")).status_code == 200
    # the help flags' statement is the one with the stuck fact's HAVING
    assert sum("HAVING" in q["sql"] for q in queries.captured_queries) == classes >= 1


@pytest.mark.django_db
def test_needs_help_shows_on_the_teachers_home_and_the_wall(world):
    answers(world, 5, 10)  # Ada: 5 of 15 facts right at the first try
    for a in (3, 4, 5):
        stat(world.child_a, 2, a, "learning", attempts=5, correct=1)
    answers(world, 0, 15, child=world.child_b)  # teacher_b's child
    home = world.client("teacher_a").get(reverse("classroom:teacher_home")).text
    box = re.search(r'id="needs-help-title".*?</section>', home, flags=re.S).group(0)
    assert "Ada" in box and "Ali" not in box and "3 weak facts" in box
    assert "Bea" not in without_tokens(home) and world.child_b.name not in box
    assert reverse("classroom:child_report", args=[world.child_a.pk]) in box
    wall = (
        world.client("teacher_a")
        .get(reverse("classroom:session_wall", args=[world.class_a.pk]))
        .text
    )
    details = re.search(r'<details class="needs-help-wall">.*?</details>', wall, flags=re.S)
    assert details and "Ada" in details.group(0) and " open" not in details.group(0)[:40]
    assert "stuck-wall" not in wall  # nobody stuck: no empty box
    # teacher_b sees their own flagged child, and nothing of class A.
    other = world.client("teacher_b").get(reverse("classroom:teacher_home")).text
    other_box = re.search(r'id="needs-help-title".*?</section>', other, flags=re.S).group(0)
    assert world.child_b.name in other_box and "Ada" not in other


# --- rebuilding the statistics ---------------------------------------------------------------


@pytest.mark.django_db
def test_recompute_start_creates_a_job_and_enqueues_it_after_commit(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("classroom.views.reports.send_recompute", lambda pk: sent.append(pk))
    client = world.client("teacher_a")
    url = reverse("classroom:recompute_start", args=[world.class_a.pk])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    job = RecomputeJob.objects.get(classroom=world.class_a)
    assert job.requested_by == world.teacher_a and job.status == "queued"
    assert len(callbacks) == 1 and sent == []
    callbacks[0]()
    assert sent == [job.pk]
    assert reverse("classroom:recompute_progress", args=[job.pk]) in response.text
    assert 'hx-trigger="every 1s"' in response.text
    # A second press while it runs: 409 and the same job's bar, nothing new.
    again = client.post(url, headers={"HX-Request": "true"})
    assert again.status_code == 409
    assert RecomputeJob.objects.filter(classroom=world.class_a).count() == 1


@pytest.mark.django_db
def test_a_plain_post_redirects_to_the_report_with_the_bar(
    world, django_capture_on_commit_callbacks
):
    client = world.client("teacher_a")
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(reverse("classroom:recompute_start", args=[world.class_a.pk]))
    job = RecomputeJob.objects.get(classroom=world.class_a)
    assert response.status_code == 302
    assert response["Location"].endswith(f"?job={job.pk}")
    page = client.get(response["Location"]).text
    assert 'id="recompute-bar"' in page


@pytest.mark.django_db
def test_a_stale_job_does_not_block_a_new_one(world, django_capture_on_commit_callbacks):
    old = RecomputeJob.objects.create(classroom=world.class_a, status="running")
    RecomputeJob.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=False):
        response = world.client("teacher_a").post(
            reverse("classroom:recompute_start", args=[world.class_a.pk]),
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200
    assert RecomputeJob.objects.filter(classroom=world.class_a).count() == 2


@pytest.mark.django_db
def test_a_job_that_cannot_be_sent_is_marked_failed(world, monkeypatch):
    from classroom.views import reports

    job = RecomputeJob.objects.create(classroom=world.class_a)
    monkeypatch.setattr("games.queue.enqueue", lambda task, *args: False)
    reports.send_recompute(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None


@pytest.mark.django_db
def test_recompute_progress_polls_until_done_then_answers_286(world):
    job = RecomputeJob.objects.create(classroom=world.class_a, status="running", total=10, done=4)
    url = reverse("classroom:recompute_progress", args=[job.pk])
    client = world.client("teacher_a")
    running = client.get(url, headers={"HX-Request": "true"})
    assert running.status_code == 200
    assert 'value="40"' in running.text and "4 of 10" in running.text
    assert 'hx-trigger="every 1s"' in running.text
    RecomputeJob.objects.filter(pk=job.pk).update(status="done", done=10)
    done = client.get(url, headers={"HX-Request": "true"})
    assert done.status_code == 286
    assert "hx-trigger" not in done.text and "Rebuilt." in done.text
    # "Show the new numbers": the report, without yesterday's news; the job's own page keeps it.
    report = reverse("classroom:class_report", args=[world.class_a.pk])
    page = client.get(report).text
    assert "Rebuilt." not in page and "Rebuild the statistics" in page
    assert "Rebuilt." in client.get(f"{report}?job={job.pk}").text
    for role in OUTSIDERS:
        assert world.client(role).get(url, headers={"HX-Request": "true"}).status_code == 404
    assert (
        world.client("teacher_b")
        .post(reverse("classroom:recompute_start", args=[world.class_a.pk]))
        .status_code
        == 404
    )


# --- the school --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_school_heatmap_adds_up_the_classes(world, class_stats):
    ClassFactStat.objects.create(
        classroom=world.class_b, a=7, b=8, attempts=4, correct=4, children=3, struggling=0
    )
    today = world.school_a.local_today()
    DailyTrend.objects.create(
        scope="school", scope_id=world.school_a.pk, day=today, attempts=10, correct=9
    )
    html = world.client("admin_a").get(reverse("classroom:school_report")).text
    # The admin's page menu, with this page marked (as on the overview).
    nav = html.split('class="school-nav"')[1].split("</nav>")[0]
    assert re.findall(r'href="([^"]+)" aria-current="page"', nav) == [
        reverse("classroom:school_report")
    ]
    assert reverse("classroom:invite_list") in nav and reverse("classroom:school_dashboard") in nav
    pattern = r'<span class="heat-cell[^"]*"[^>]*title="7 × 8[^"]*">.*?</span></span>'
    seven_eight = re.search(pattern, html).group(0)
    assert "heat-band-some" in seven_eight and ">1/6<" in seven_eight  # (1 + 0) of (3 + 3)
    assert "<a id=" not in html.split('class="heatmap"')[1].split("</table>")[0]
    assert ">90</text>" in html  # this week's trend point: 9 of 10
    assert "style=" not in html
    other = world.client("admin_b").get(reverse("classroom:school_report")).text
    assert ">1/6<" not in other


# --- reachable from the teacher's pages -----------------------------------------------------


@pytest.mark.django_db
def test_the_class_nav_and_roster_rows_link_to_the_reports(world):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:class_detail", args=[world.class_a.pk]))
        .text
    )
    assert reverse("classroom:class_report", args=[world.class_a.pk]) in html
    assert reverse("classroom:child_report", args=[world.child_a.pk]) in html
    assert reverse("classroom:child_report", args=[world.child_a2.pk]) in html


@pytest.mark.django_db
def test_a_game_outside_any_session_is_timed(world):
    """A game outside any session is timed: its right answers give the median."""
    ada = world.child_a
    match = world.match_b  # no assignment
    stat(ada, 3, 3, "learning", attempts=1, correct=1)
    attempt(ada, match, 3, 3, 9, when=timezone.now(), ms=2500)
    assert Assignment.objects.filter(matches=match).count() == 0
    html = world.client("teacher_a").get(reverse("classroom:child_fact", args=[ada.pk, 3, 3])).text
    assert "2.5 s" in html


@pytest.mark.django_db
def test_the_class_tabs_mark_the_page_you_are_on(world):
    teacher = world.client("teacher_a")
    pk = world.class_a.pk
    for name in ("classroom:class_detail", "classroom:assignment_list", "classroom:class_report"):
        html = teacher.get(reverse(name, args=[pk])).text
        nav = html.split('class="class-nav"')[1].split("</nav>")[0]
        current = re.findall(r'href="([^"]+)" aria-current="page"', nav)
        assert current == [reverse(name, args=[pk])], (name, current)


def test_a_class_square_label_counts_one_child_in_the_singular():
    from classroom.charts import group_cell

    assert group_cell(7, 8, 1, 1).label == (
        "7 × 8: 1 of 1 child who tried it wrong so far or still learning it"
    )
    assert group_cell(7, 8, 2, 0).label == (
        "7 × 8: 0 of 2 children who tried it wrong so far or still learning it"
    )
