"""What teachers see: the child, class and school reports, the fact details, the exports, the
"needs help" and "stuck" flags and the rebuild button. The evidence is written as the game
and the warm-up write it (attempts) and counted by the live update
(``FactStat.objects.apply_pending``); the pages are then read. What the knowledge model
says of a fact is tested in test_knowledge.py and, through the pages, in
test_report_knowledge.py; here the pages' shape, permissions and rules around it."""

import csv
import io
import json
import re
from datetime import UTC
from datetime import date
from datetime import datetime
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import resolve
from django.urls import reverse
from django.utils import timezone

from classroom import charts
from classroom import knowledge
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import Student
from classroom.models import WarmUp
from classroom.models.report_queries import help_reasons
from classroom.models.report_queries import stuck_reason
from games.models import Move

from ..conftest import without_tokens
from .conftest import attempt_fields

OUTSIDERS = ("teacher_b", "admin_a", "admin_b", "superuser")
CHILDREN = ("anonymous", "child_a", "child_b")

_ply = iter(range(10_000, 100_000))


def attempt(student, match, a, b, answer, *, when, context="capture", ms=2000, count=True):
    """One game attempt written with its move, as the engine writes it (``answer`` None: a
    missed capture), then counted by the live update (``count``)."""
    if answer is None:
        context = "missed"
    move = Move.objects.create(
        match=match, ply=next(_ply), seat=0, action={"type": "test"}, created_at=when
    )
    row = Attempt.objects.create(
        **attempt_fields(student, a, b, answer, ms=ms, match=match, move=move, context=context),
        created_at=when,
    )
    if count:
        FactStat.objects.apply_pending([student.pk])
    return row


def typed(student, facts, *, when=None, ms=2500):
    """Warm-up answers: ``facts`` as (a, b, answer) typed in one round starting ``when``
    (default: ten minutes ago), five seconds apart, then counted."""
    when = when or timezone.now() - timedelta(minutes=10)
    round_ = WarmUp.objects.create(student=student, started_at=when, timed=True)
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


def right(a, b, times=3):
    return [(a, b, a * b)] * times


def wrong(a, b, times=3):
    """Wrong answers no key of the number pad explains (+20: no key is 2 from its digit)."""
    return [(a, b, a * b + 20)] * times


def svg_blocks(html: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.S)


def cell(html: str, a: int, b: int) -> str:
    """The <a> of one heatmap cell."""
    found = re.search(rf'<a id="cell-{a}-{b}"[^>]*>.*?</a>', html, flags=re.S)
    assert found, f"no cell {a}×{b}"
    return found.group(0)


def mark(html: str) -> str:
    return re.search(r'<span class="heat-mark">([^<]*)</span>', html).group(1)


def ratio(html: str) -> str | None:
    found = re.search(r'<span class="heat-ratio">([^<]*)</span>', html)
    return found.group(1) if found else None


def section(html: str, title_id: str) -> str:
    return re.search(rf'id="{title_id}".*?</section>', html, flags=re.S).group(0)


def csv_rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


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
        "class_export_csv": ["Child,Group,Needs help,2×2,2×3"],
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
    typed(world.child_a, wrong(7, 8))
    client = world.client(role)
    for url in child_urls(world) + class_urls(world):
        response = client.get(url)
        assert response.status_code == 404, (role, url)
        assert "export" not in response.get("Content-Disposition", ""), url
        text = response.content.decode()
        assert "7 × 8" not in text and "Ada" not in without_tokens(text), url


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


@pytest.mark.django_db
def test_the_child_heatmap_has_a_cell_per_fact_as_asked_with_a_text_mark(world):
    ada, now = world.child_a, timezone.now()
    typed(ada, right(2, 3) + wrong(4, 4), when=now - timedelta(hours=2))
    typed(ada, right(5, 5), when=now - timedelta(hours=1), ms=8000)  # right, but slowly
    for i in range(3):  # captures in a game: a game time, choosing the cards included
        attempt(ada, world.match_a, 3, 4, 12, when=now - timedelta(minutes=30 - i), ms=4200)
    html = world.client("teacher_a").get(reverse("classroom:child_report", args=[ada.pk])).text
    cells = re.findall(r'<a id="cell-(\d)-(\d)"', html)
    assert len(cells) == 64 and len(set(cells)) == 64
    assert ("7", "8") in cells and ("8", "7") in cells
    known = cell(html, 2, 3)
    assert "heat-known" in known and mark(known) == "✓" and ratio(known) == "3/3"
    assert "speed-quick" in known and ">2.5s<" in known
    assert "2 × 3: knows it, 3 right of the latest 3; quick, 2.5 s" in known
    not_yet = cell(html, 4, 4)
    assert "heat-not_yet" in not_yet and mark(not_yet) == "✗" and ratio(not_yet) == "0/3"
    slow = cell(html, 5, 5)
    assert "heat-slow" in slow and mark(slow) == "S" and "speed-slow" in slow
    assert "5 × 5: knows it, slowly, 3 right of the latest 3; slow, 8.0 s" in slow
    game = cell(html, 3, 4)
    assert ">~4.2s<" in game and "speed-quick" not in game  # a game time is never "quick"
    assert "steady, 4.2 s game time (includes choosing the cards)" in game
    # Never answered: not sure yet, marked as an estimate, in words.
    never = cell(html, 9, 9)
    assert "heat-unsure heat-estimate" in never and mark(never) == "?" and ratio(never) is None
    assert "9 × 9: not asked yet" in never
    # …and so says the table behind the map.
    assert '<th scope="row">9 × 9</th><td>not sure yet</td><td class="num">—</td>' in html
    assert '<th scope="row">4 × 4</th><td>not yet</td><td class="num">0/3</td>' in html
    # Each cell is a real link to the fact's detail, loaded by htmx into the page.
    href = reverse("classroom:child_fact", args=[ada.pk, 7, 8])
    assert f'href="{href}"' in cell(html, 7, 8) and f'hx-get="{href}"' in cell(html, 7, 8)


@pytest.mark.django_db
def test_as_asked_each_square_shows_its_own_orders_latest_answers(world):
    """3 × 2 and 2 × 3 each show their own latest answers (up to ``knowledge.WINDOW``); an
    order asked only the other way round shows no ratio and says so; "Twins together" adds
    both orders' answers up."""
    ada = world.child_a
    answers = [6, 6, 6, 7, 6, 6, 7, 6]  # 2 × 3 eight times: the square counts the latest
    typed(ada, [(2, 3, x) for x in answers] + right(3, 2, 1) + right(4, 6, 2))
    teacher = world.client("teacher_a")
    html = teacher.get(reverse("classroom:child_report", args=[ada.pk])).text
    latest = answers[-knowledge.WINDOW :]
    assert ratio(cell(html, 2, 3)) == f"{latest.count(6)}/{len(latest)}"
    assert ratio(cell(html, 3, 2)) == "1/1"
    assert ratio(cell(html, 6, 4)) is None  # asked only as 4 × 6
    assert "6 × 4: not asked yet" in cell(html, 6, 4)
    assert "so 7 × 8 and 8 × 7 can differ" in html
    together = teacher.get(reverse("classroom:child_report", args=[ada.pk]), {"view": "together"})
    both = f"{latest.count(6) + 1}/{len(latest) + 1}"
    assert ratio(cell(together.text, 2, 3)) == both == ratio(cell(together.text, 3, 2))
    assert "so 7 × 8 and 8 × 7 can differ" not in together.text


@pytest.mark.django_db
def test_twins_together_show_the_weaker_order_and_both_counts(world):
    ada = world.child_a
    typed(ada, right(3, 7) + wrong(7, 3))  # knows 3 × 7, not yet 7 × 3
    url = reverse("classroom:child_report", args=[ada.pk])
    html = world.client("teacher_a").get(url + "?view=together").text
    for a, b in ((3, 7), (7, 3)):
        c = cell(html, a, b)
        assert "heat-not_yet" in c and ratio(c) == "3/6", (a, b)
    table = re.search(r'class="chart-data".*?</details>', html, flags=re.S).group(0)
    assert '<th scope="row">3 × 7 / 7 × 3</th><td>not yet</td><td class="num">3/6</td>' in table
    assert "7 × 3 / 3 × 7" not in table  # each fact once
    focus = section(html, "focus-title")
    assert "?view=together" in focus  # the focus links keep the view
    as_asked = world.client("teacher_a").get(url).text
    assert "heat-known" in cell(as_asked, 3, 7) and "heat-not_yet" in cell(as_asked, 7, 3)


@pytest.mark.django_db
def test_the_child_report_shows_focus_facts_and_error_kinds_in_words(world):
    ada, now = world.child_a, timezone.now()
    typed(
        ada,
        [(6, 9, 15), (6, 9, 15)] + right(2, 2) + [(7, 8, 48)] * 3,  # stuck on 7 × 8
        when=now - timedelta(minutes=20),
    )
    attempt(ada, world.match_a, 3, 4, None, when=now - timedelta(minutes=5))
    html = world.client("teacher_a").get(reverse("classroom:child_report", args=[ada.pk])).text
    focus = section(html, "focus-title")
    listed = re.findall(r"(\d) × (\d) = (\d+)</a>", focus)
    assert listed[0] == ("7", "8", "56")  # the fact the child is stuck on first
    assert ("6", "9", "54") in listed and ("2", "2", "4") not in listed  # not yet; known: no
    assert "0 right of the latest 3" in focus
    # Listed once: the empty detail panel points to the list instead of repeating it.
    assert html.count('class="focus-list"') == 1
    assert 'href="#focus-title"' in html
    # Each opens in the panel, as a square does (its real link kept).
    link = reverse("classroom:child_fact", args=[ada.pk, 7, 8])
    assert f'href="{link}" hx-get="{link}" hx-target="#facts"' in focus
    # The kinds of mistakes, only those counted, each with what it means.
    assert kind_rows(html) == {
        "answer of another fact": "3",
        "added or subtracted instead": "2",
        "missed capture": "1",
    }
    help_text = section(html, "errors-title")
    assert "<b>added or subtracted instead</b>: 7 + 8 = 15" in help_text
    assert "digits the other way round" not in help_text  # no help for a kind not counted


@pytest.mark.django_db
def test_a_child_who_knows_every_fact_answered_has_no_focus_facts(world):
    typed(world.child_a, right(2, 2) + right(3, 3))
    url = reverse("classroom:child_report", args=[world.child_a.pk])
    html = world.client("teacher_a").get(url).text
    assert "focus-list" not in html and "nothing to focus on yet" in section(html, "focus-title")
    assert 'href="#focus-title"' not in html


def kind_rows(html: str) -> dict[str, str]:
    """The child report's "Kinds of mistakes" table: {label: count}."""
    kinds = re.search(r'class="[^"]*kinds-table.*?</table>', html, flags=re.S).group(0)
    return dict(re.findall(r'<th scope="row">([^<]+)</th><td class="num">(\d+)</td>', kinds))


@pytest.mark.django_db
def test_the_printable_report_shows_the_same_kinds_as_the_page(world):
    """Game answers are named as on the page: a claim is a monster's value (7 × 8 → 54 a near
    miss, 6 × 6 → 63 its digits turned round); a capture left on the board is a miss."""
    ada, now = world.child_a, timezone.now()
    attempt(ada, world.match_a, 7, 8, 54, when=now - timedelta(minutes=3))
    attempt(ada, world.match_a, 6, 6, 63, when=now - timedelta(minutes=2))
    attempt(ada, world.match_a, 7, 8, None, when=now - timedelta(minutes=1))
    client = world.client("teacher_a")
    html = client.get(reverse("classroom:child_report", args=[ada.pk])).text
    rows = kind_rows(html)
    assert rows == {"near miss": "1", "digits the other way round": "1", "missed capture": "1"}
    assert "the right digits the other way round: 7 × 8 → 65" in section(html, "errors-title")
    printed = client.get(reverse("classroom:child_report_print", args=[ada.pk])).text
    assert kind_rows(printed) == rows


@pytest.mark.django_db
def test_a_child_without_answers_has_no_kinds_table(world):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:child_report", args=[world.child_a.pk]))
        .text
    )
    assert "kinds-table" not in html and "No answers yet." in html


# --- a child's fact ---------------------------------------------------------------------------


@pytest.fixture
def seven_eight(world):
    """Ada on 7 × 8 in games: right twice (4.2 s), 48 twice, 15, a capture missed, then a
    tap after being caught (no evidence). 8 × 7 never asked."""
    ada, now = world.child_a, timezone.now()
    for i, given in enumerate([56, 56, 48, 48, 15, None]):
        attempt(ada, world.match_a, 7, 8, given, when=now - timedelta(minutes=20 - i), ms=4200)
    attempt(ada, world.match_a, 7, 8, 56, when=now - timedelta(minutes=5), context="forced")
    return ada


@pytest.mark.django_db
def test_the_fact_detail_partial(world, seven_eight):
    url = reverse("classroom:child_fact", args=[seven_eight.pk, 7, 8])
    response = world.client("teacher_a").get(url, headers={"HX-Request": "true"})
    html = response.text
    assert response.status_code == 200
    assert "<html" not in html and 'id="facts"' in html  # the partial only
    assert "7 × 8 = 56" in html
    assert 'aria-current="true"' in cell(html, 7, 8)  # the tapped cell is marked
    assert 'aria-current="true"' not in cell(html, 8, 7)
    # The counts: the tap after being caught is not an answer.
    numbers = re.search(r'<dl class="fact-numbers">.*?</dl>', html, flags=re.S).group(0)
    answers, right_, missed = re.findall(r"<dd>(\d+)", numbers)[:3]
    assert (answers, right_, missed) == ("6", "2", "1") and "(33 %)" in numbers
    # What the square says, and the order never asked.
    panel = html[html.index('id="fact-detail"') :]
    assert "heat-not_yet" in panel.split("</h2>")[1].split("</span>")[0]
    assert "7 × 8: not yet, 1 right of the latest 5" in panel
    assert "steady, 4.2 s game time (includes choosing the cards)" in panel
    assert "8 × 7: not asked yet." in panel
    # Typical wrong answers, most frequent first, with their kind in words.
    assert re.search(
        r">48</th><td[^>]*>2</td><td>the answer to 6 × 8, not 7 × 8</td>.*"
        r">15</th><td[^>]*>1</td><td>added instead \(7 \+ 8\)</td>",
        panel,
        flags=re.S,
    )
    # The latest answers, the tap after being caught said to be no evidence.
    latest = re.search(r'<ol class="recent-list">.*?</ol>', panel, flags=re.S).group(0)
    assert "56, tapped after being caught (not counted)" in latest
    assert "capture missed" in latest and "48 (answer of another fact)" in latest
    # The last 7 days, each order's square at the end of each day: 7 × 8 not yet today;
    # 8 × 7, never answered, nothing.
    week = re.search(r"week-table.*?</table>", panel, flags=re.S).group(0)
    assert re.findall(r'<th scope="col">(\d × \d)</th>', week) == ["7 × 8", "8 × 7"]
    days = re.findall(r"<tr><th scope=\"row\">.*?</tr>", week)
    assert len(days) == 7
    assert re.search(r'<td class="state-not_yet">not yet</td><td>—</td></tr>$', days[-1])
    # The keyboard's focus goes to the fact's heading once swapped in (a screen reader reads
    # it), not on the whole page, which opens where it was asked.
    assert '<h2 id="fact-title" tabindex="-1" data-autofocus>' in html
    page = world.client("teacher_a").get(url).text
    assert 'id="fact-title"' in page and "data-autofocus" not in page
    class_fact = reverse("classroom:class_fact", args=[world.class_a.pk, 7, 8])
    swapped = world.client("teacher_a").get(class_fact, headers={"HX-Request": "true"}).text
    assert '<h2 id="fact-title" tabindex="-1" data-autofocus>' in swapped


@pytest.mark.django_db
def test_the_fact_panel_shows_yesterdays_state_apart_from_todays(world):
    """A fact learned this week: "The last 7 days" says not yet on the day it was wrong and
    knows it on the day it was right (the square's state at the end of each day)."""
    ada = world.child_a
    school = world.class_a.school
    today = school.local_today()
    typed(ada, wrong(6, 7), when=school.day_start(today - timedelta(days=2)) + timedelta(hours=10))
    # today, even a minute after midnight
    when = max(school.day_start(today), timezone.now() - timedelta(minutes=10))
    typed(ada, right(6, 7, 8), when=when)
    url = reverse("classroom:child_fact", args=[ada.pk, 6, 7])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    week = re.search(r"week-table.*?</table>", html, flags=re.S).group(0)
    days = [re.findall(r"<td[^>]*>([^<]*)</td>", row)[0] for row in week.split("<tr>")[2:]]
    assert days[:4] == ["—"] * 4  # before the first answer
    assert days[4:6] == ["not yet", "not yet"]  # two days ago, yesterday
    assert days[6] == "knows it"  # today


@pytest.mark.django_db
def test_a_square_fact_is_not_counted_with_itself(world):
    """4 × 4 is its own twin: its panel names it once (no "4 × 4 and 4 × 4", no link to
    itself the other way round, one column a day)."""
    ada = world.child_a
    typed(ada, right(4, 4, 2) + wrong(4, 4, 1))
    url = reverse("classroom:child_fact", args=[ada.pk, 4, 4])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    assert "4 × 4, week by week" in html
    assert "4 × 4 and 4 × 4" not in html and "Show 4 × 4" not in html
    week = re.search(r"week-table.*?</table>", html, flags=re.S).group(0)
    assert re.findall(r'<th scope="col">(\d × \d)</th>', week) == ["4 × 4"]


@pytest.mark.django_db
def test_a_plain_request_for_a_fact_is_the_whole_report_with_the_fact_open(world, seven_eight):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:child_fact", args=[seven_eight.pk, 7, 8]))
        .text
    )
    assert "<html" in html and "7 × 8 = 56" in html and 'id="focus-title"' in html


@pytest.mark.django_db
def test_median_time_of_timed_answers_and_none_for_accuracy_first_only(world):
    ada, now = world.child_a, timezone.now()
    for i, (given, ms) in enumerate([(56, 3000), (56, 5000), (48, 1000), (56, 4000)]):
        attempt(ada, world.match_a, 7, 8, given, when=now - timedelta(minutes=10 - i), ms=ms)
    client = world.client("teacher_a")
    html = client.get(reverse("classroom:child_fact", args=[ada.pk, 7, 8])).text
    assert "4.0 s" in html  # median of the right answers 3000, 5000, 4000 (not the wrong 1000)
    assert "✗</span> 48 (answer of another fact)" in html

    world.assignment_a.accuracy_first = True
    world.assignment_a.save()
    html = client.get(reverse("classroom:child_fact", args=[ada.pk, 7, 8])).text
    assert "not shown: accuracy-first sessions only" in html
    assert " s</dd>" not in html


@pytest.mark.django_db
def test_a_game_outside_any_session_is_timed(world):
    """A game outside any session is timed: its right answers give the median."""
    ada = world.child_a
    match = world.match_b  # no assignment
    attempt(ada, match, 3, 3, 9, when=timezone.now(), ms=2500)
    assert Assignment.objects.filter(matches=match).count() == 0
    html = world.client("teacher_a").get(reverse("classroom:child_fact", args=[ada.pk, 3, 3])).text
    assert "2.5 s" in html


# --- the trend -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_daily_trend_is_an_svg_without_style_and_with_a_table(world):
    ada = world.child_a
    today = world.class_a.school.local_today()
    for student, day, attempts, correct in [
        (ada, today, 8, 6),
        (ada, today - timedelta(days=1), 4, 4),
        (ada, today - timedelta(days=6), 2, 1),
        (ada, today - timedelta(days=charts.TREND_DAYS), 10, 5),  # before the 28 days
        (world.child_a2, today, 50, 50),  # another child
    ]:
        DailyTrend.objects.create(
            scope="student", scope_id=student.pk, day=day, attempts=attempts, correct=correct
        )
    html = world.client("teacher_a").get(reverse("classroom:child_report", args=[ada.pk])).text
    svgs = svg_blocks(html)
    assert svgs
    for svg in svgs:
        assert "style=" not in svg
        assert "http" not in svg and "href" not in svg
    assert "style=" not in html  # no inline style anywhere on the page
    trend = next(s for s in svgs if "trend-chart" in s)
    assert len(re.findall(r"<circle ", trend)) == 3  # a point a day with answers
    assert trend.count('class="trend-line"') == 1  # yesterday to today; 6 days ago alone
    assert "75 % right of 8 answers" in trend and "50 % right of 2 answers" in trend
    assert "Share of right answers per day, last 28 days" in trend
    trend_section = section(html, "trend-title")
    table = re.search(r"<tbody>.*?</tbody>", trend_section, flags=re.S).group(0)
    assert re.findall(
        r'<td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+) %', table
    ) == [("2", "1", "50"), ("4", "4", "100"), ("8", "6", "75")]  # oldest first


def test_daily_totals_and_gaps_break_the_line():
    today = date(2025, 11, 5)  # a Wednesday
    days = charts.daily(
        [(date(2025, 11, 5), 4, 2), (date(2025, 11, 3), 5, 5), (date(2024, 1, 1), 9, 9)],
        today,
        days=3,
    )
    assert [(d["day"], d["attempts"], d["accuracy"], d["monday"]) for d in days] == [
        (date(2025, 11, 3), 5, 100, True),
        (date(2025, 11, 4), 0, None, False),
        (date(2025, 11, 5), 4, 50, False),
    ]
    chart = charts.trend_chart(days)
    assert chart["lines"] == []  # two lone points, no line across the empty day
    assert [p.get("y") is not None for p in chart["points"]] == [True, False, True]
    # The last day's label ("23/11", centred, 14 px digits ≈ 8 px wide) stays in the SVG.
    assert chart["points"][-1]["x"] + len("23/11") * 8 / 2 <= chart["width"]
    assert (chart["total"], chart["days_with_data"]) == (9, 2)


def test_weekly_totals_keep_empty_weeks():
    """A fact's bars in its panel, week by week (Monday first)."""
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


# --- exports -----------------------------------------------------------------------------------


@pytest.fixture
def exported(world):
    ada = world.child_a
    t = datetime(2025, 11, 4, 9, 30, 0, tzinfo=UTC)
    attempt(ada, world.match_a, 7, 8, 56, when=t, ms=2100)
    attempt(ada, world.match_a, 7, 8, 48, when=t + timedelta(seconds=5), ms=3400)
    attempt(ada, world.match_a, 6, 9, None, when=t + timedelta(seconds=9), ms=None)
    attempt(ada, world.match_a, 6, 9, 54, when=t + timedelta(seconds=12), context="forced")
    attempt(world.child_b, world.match_b, 2, 2, 4, when=t)  # another child: never exported
    return ada


@pytest.mark.django_db
def test_the_child_json_export_is_exactly_their_attempts(world, exported):
    """Every attempt, the tap after being caught too (stored, with its context)."""
    response = world.client("teacher_a").get(
        reverse("classroom:child_export_json", args=[exported.pk])
    )
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    m = world.match_a.public_id

    def row(time, a, b, answer, correct, kind, context, ms):
        return {
            "match": m,
            "time": time,
            "a": a,
            "b": b,
            "answer": answer,
            "correct": correct,
            "kind": kind,
            "context": context,
            "response_ms": ms,
        }

    assert json.loads(response.content) == {
        "name": "Ada",
        "class": "3A",
        "attempts": [
            row("2025-11-04T09:30:00Z", 7, 8, 56, True, "correct", "capture", 2100),
            row("2025-11-04T09:30:05Z", 7, 8, 48, False, "operand", "capture", 3400),
            row("2025-11-04T09:30:09Z", 6, 9, None, False, "omission", "missed", None),
            row("2025-11-04T09:30:12Z", 6, 9, 54, True, "correct", "forced", 2000),
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
        f"Ada,3A,{m},2025-11-04T09:30:12Z,6,9,54,true,correct,forced,2000\r\n"
    )


@pytest.mark.django_db
def test_the_class_csv_has_a_row_per_child_a_help_flag_and_a_column_per_fact(world):
    ada, ali = world.child_a, world.child_a2
    # Ada: wrong on a dozen facts, twice each: she needs help.
    typed(ada, [(a, b, a * b + 20) for a, b in knowledge.ORDERS[: knowledge.HELP_MIN_FACTS]] * 2)
    typed(ali, right(2, 2) + right(8, 7))
    typed(world.child_b, wrong(2, 2))  # class B: not in A's file
    archived = Student.objects.create(classroom=world.class_a, name="Gone")
    typed(archived, wrong(2, 2))
    archived.archive()
    response = world.client("teacher_a").get(
        reverse("classroom:class_export_csv", args=[world.class_a.pk])
    )
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = csv_rows(response)
    header = rows[0]
    assert header[:5] == ["Child", "Group", "Needs help", "2×2", "2×3"] and header[-1] == "9×9"
    assert len(header) == 3 + 64 and len(set(header)) == len(header)
    body = {r[0]: dict(zip(header, r, strict=True)) for r in rows[1:]}
    assert list(body) == ["Ada", "Ali"]  # archived children and other classes left out
    assert body["Ada"]["Group"] == "Owls" and body["Ali"]["Group"] == ""
    assert body["Ada"]["Needs help"] == "yes" and body["Ali"]["Needs help"] == ""
    assert body["Ada"]["2×2"] == "not yet" and body["Ali"]["2×2"] == "knows it"
    assert body["Ali"]["8×7"] == "knows it" and body["Ali"]["7×8"] != "not yet"
    assert body["Ali"]["9×9"] == "not sure yet"  # never answered: never empty
    assert all(v for r in body.values() for k, v in r.items() if "×" in k)


@pytest.mark.django_db
def test_no_csv_cell_starts_a_formula(world):
    from classroom.views.exports import csv_safe

    assert csv_safe("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert csv_safe("Ada") == "Ada" and csv_safe(3) == 3
    sly = Student.objects.create(classroom=world.class_a, name='=HYPERLINK("x")')
    Classroom.objects.filter(pk=world.class_a.pk).update(name="+3A")
    client = world.client("teacher_a")
    url = reverse("classroom:class_export_csv", args=[world.class_a.pk])
    names = [r[0] for r in csv_rows(client.get(url))]
    assert '\'=HYPERLINK("x")' in names and '=HYPERLINK("x")' not in names
    attempt(sly, world.match_a, 2, 2, 4, when=timezone.now())
    rows = csv_rows(client.get(reverse("classroom:child_export_csv", args=[sly.pk])))
    assert rows[1][:2] == ['\'=HYPERLINK("x")', "'+3A"]


@pytest.mark.django_db
def test_the_printable_report(world):
    ada = world.child_a
    typed(ada, wrong(6, 9) + right(2, 2))
    response = world.client("teacher_a").get(reverse("classroom:child_report_print", args=[ada.pk]))
    html = response.text
    assert "print-sheet" in html and "css/reports.css" in html
    assert "style=" not in html
    focus = re.search(r'<ol class="focus-list">.*?</ol>', html, flags=re.S).group(0)
    assert "<b>6 × 9</b>" in focus
    assert "<a " not in html.split('class="heatmap"')[1].split("</table>")[0]  # plain squares
    assert html.count("heat-not_yet") >= 1 and "Knows 1 fact of the 64" in html


# --- the class ---------------------------------------------------------------------------------


@pytest.fixture
def class_evidence(world):
    """Class A: Ada, Ali, Cy, Di. 7 × 8: Ada not yet (48, 48, 54), Ali knows it. 6 × 9: Ada
    and Ali not yet (15 each time). 2 × 5: Ada knows it. Cy and Di: nothing answered. Bea
    (class B) not yet on 3 × 3."""
    ada, ali = world.child_a, world.child_a2
    cy = Student.objects.create(classroom=world.class_a, name="Cy")
    di = Student.objects.create(classroom=world.class_a, name="Di")
    typed(ada, [(7, 8, 48), (7, 8, 48), (7, 8, 54)] + [(6, 9, 15)] * 3 + right(2, 5))
    typed(ali, right(7, 8) + [(6, 9, 15)] * 2)
    typed(world.child_b, wrong(3, 3))
    return {"cy": cy, "di": di}


@pytest.mark.django_db
def test_the_class_heatmap_counts_each_childs_square_by_band(world, class_evidence):
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:class_report", args=[world.class_a.pk]))
        .text
    )
    seven_eight = cell(html, 7, 8)  # 1 of 4: fewer than a third
    assert "heat-band-some" in seven_eight and ratio(seven_eight) == "1/4"
    assert "7 × 8: 1 of 4 children not yet, 2 not sure yet, 1 know it" in seven_eight
    assert "heat-band-many" in cell(html, 6, 9) and ratio(cell(html, 6, 9)) == "2/4"
    assert "heat-band-nobody" in cell(html, 2, 5) and ratio(cell(html, 2, 5)) == "0/4"
    # Facts as asked: 8 × 7 is a square of its own (nobody answered it that way round).
    assert "heat-band-nobody" in cell(html, 8, 7)
    assert "heat-band-nobody" in cell(html, 3, 3)  # class B's answers are not class A's
    table = re.search(r'class="chart-data".*?</details>', html, flags=re.S).group(0)
    assert re.search(
        r'<th scope="row">7 × 8</th><td class="num">1</td><td class="num">2</td>'
        r'<td class="num">1</td><td>fewer than a third of the children not yet</td>',
        table,
    )
    # The most common wrong answers of the class, with their kind.
    common = re.search(r"most common wrong answers.*?</table>", html, flags=re.S).group(0)
    found = re.findall(
        r"(\d) × (\d)</a></th><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)", common
    )
    assert found == [("6", "9", "15", "5"), ("7", "8", "48", "2"), ("7", "8", "54", "1")]
    assert "added instead (6 + 9)" in common
    assert "style=" not in html


@pytest.mark.django_db
def test_a_class_without_children_has_empty_squares(world):
    empty = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="4Z")
    html = world.client("teacher_a").get(reverse("classroom:class_report", args=[empty.pk])).text
    squares = re.findall(r'<a id="cell-\d-\d" class="heat-cell ([^"]*)"', html)
    assert len(squares) == 64 and set(squares) == {"heat-band-none"}
    assert "No children in this class yet." in html


@pytest.mark.django_db
def test_the_class_fact_partial_lists_who_is_not_yet(world, class_evidence):
    url = reverse("classroom:class_fact", args=[world.class_a.pk, 7, 8])
    html = world.client("teacher_a").get(url, headers={"HX-Request": "true"}).text
    assert "<html" not in html
    panel = html[html.index('id="fact-detail"') :]
    not_yet = re.search(r"1 child not yet</h3>.*?</table>", panel, flags=re.S).group(0)
    assert "<bdi>Ada</bdi>" in not_yet and "Ali" not in not_yet
    assert ">0/3<" in not_yet  # her latest answers to 7 × 8
    assert "<td>not sure yet</td>" in not_yet  # 8 × 7, the other way round
    assert reverse("classroom:child_fact", args=[world.child_a.pk, 7, 8]) in not_yet
    unsure = panel.split("Not sure yet:")[1].split("</p>")[0]
    assert "<bdi>Cy</bdi>" in unsure and "<bdi>Di</bdi>" in unsure and "Ada" not in unsure
    known = panel.split("Know it:")[1].split("</p>")[0]
    assert "<bdi>Ali</bdi>" in known and "(knows it)" in known
    assert re.search(r">48</th><td[^>]*>2</td><td>the answer to 6 × 8, not 7 × 8</td>", panel)
    other_way = reverse("classroom:class_fact", args=[world.class_a.pk, 8, 7])
    assert f'href="{other_way}"' in panel


@pytest.mark.django_db
def test_archived_children_leave_the_class_map_and_its_panel(world, class_evidence):
    Student.objects.get(pk=world.child_a.pk).archive()
    client = world.client("teacher_a")
    html = client.get(reverse("classroom:class_report", args=[world.class_a.pk])).text
    assert ratio(cell(html, 7, 8)) == "0/3" and ratio(cell(html, 6, 9)) == "1/3"
    url = reverse("classroom:class_fact", args=[world.class_a.pk, 7, 8])
    panel = client.get(url, headers={"HX-Request": "true"}).text
    panel = panel[panel.index('id="fact-detail"') :]
    assert "No child is “not yet” on this fact." in panel and "Ada" not in panel
    # 9 × 9: nobody has answered it: every child still in the class is "not sure yet".
    url = reverse("classroom:class_fact", args=[world.class_a.pk, 9, 9])
    panel = client.get(url, headers={"HX-Request": "true"}).text
    panel = panel[panel.index('id="fact-detail"') :]
    unsure = panel.split("Not sure yet:")[1].split("</p>")[0]
    assert "Ali" in unsure and "Cy" in unsure and "Ada" not in unsure
    assert "Know it:" not in panel


@pytest.mark.django_db
def test_moving_or_deleting_a_child_rebuilds_what_the_class_pages_read(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    from classroom import tasks
    from games import queue
    from games.models import Match
    from games.models import Seat

    sent = []
    monkeypatch.setattr(queue, "enqueue", lambda task, *args: sent.append((task, args)))
    typed(world.child_a, wrong(7, 8))
    client = world.client("teacher_a")
    other = Classroom.objects.create(school=world.school_a, name="Year 4", teacher=world.teacher_a)
    ada = Student.objects.get(pk=world.child_a.pk)  # not the module's shared object
    with django_capture_on_commit_callbacks(execute=True):
        ada.move_to(other)
    assert sent == [(tasks.rebuild_class_stats, (sorted([world.class_a.pk, other.pk]),))]
    tasks.rebuild_class_stats(*sent[0][1])  # what the worker runs
    # Each class map counts the children in it now.
    old = client.get(reverse("classroom:class_report", args=[world.class_a.pk])).text
    new = client.get(reverse("classroom:class_report", args=[other.pk])).text
    assert ratio(cell(old, 7, 8)) == "0/1" and ratio(cell(new, 7, 8)) == "1/1"
    # Deleting Ada deletes her games, with Ali's answers in their game together: Ali's facts
    # are rebuilt too (his FactStat rows came from that game only).
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": ada.seat_key},
            {"kind": Seat.Kind.STUDENT, "name": "Ali", "owner_key": world.child_a2.seat_key},
        ],
        options={"tier": "green"},
        seed=5,
    )
    for i in range(3):
        attempt(world.child_a2, match, 6, 7, 41, when=timezone.now() - timedelta(minutes=i))
    assert "heat-band-many" in cell(
        client.get(reverse("classroom:class_report", args=[world.class_a.pk])).text, 6, 7
    )
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        ada.delete_everything()
    assert sent == [(tasks.rebuild_class_stats, ([other.pk], [world.child_a2.pk]))]
    tasks.rebuild_class_stats(*sent[0][1])
    assert not FactStat.objects.filter(student=world.child_a2).exists()  # no answers left
    html = client.get(reverse("classroom:class_report", args=[world.class_a.pk])).text
    assert ratio(cell(html, 6, 7)) == "0/1"


# --- needs help and stuck ----------------------------------------------------------------------


def flagged(world, name="Ada", now=None):
    children = Student.reports.filter(classroom=world.class_a).with_help_flags(now)
    return next(s for s in children if s.name == name)


# Facts as asked for the help rule's tests, 7 × 8 and 6 × 9 (the stuck ones) left out.
PLAIN = [f for f in knowledge.ORDERS if {f[0], f[1]} not in ({7, 8}, {6, 9})]


def wrong_on(n, *, start=0):
    """One wrong answer to each of ``n`` facts as asked."""
    return [(a, b, a * b + 20) for a, b in PLAIN[start : start + n]]


def right_on(n, *, start=0):
    return [(a, b, a * b) for a, b in PLAIN[start : start + n]]


@pytest.mark.django_db
def test_needs_help_is_judged_once_enough_facts_are_answered(world):
    """Wrong on every fact answered (twice: one wrong answer can be a slip): flagged once
    the child has answered ``knowledge.HELP_MIN_FACTS`` facts, not before."""
    enough = knowledge.HELP_MIN_FACTS
    typed(world.child_a, wrong_on(enough - 1) * 2)
    ada = flagged(world)
    assert (ada.answered_facts, ada.needs_help, ada.low_accuracy) == (enough - 1, False, False)
    assert ada.not_yet_facts >= enough - 1 and ada.known_facts == 0
    typed(world.child_a, wrong_on(1, start=enough - 1) * 2)
    ada = flagged(world)
    assert (ada.answered_facts, ada.needs_help, ada.low_accuracy) == (enough, True, True)
    assert ada.likely_percent < 60
    assert ada.stuck is False  # one answer a fact: stuck on none
    # Right on as many facts: no flag.
    typed(world.child_a2, right_on(enough + 8))
    ali = flagged(world, "Ali")
    assert ali.needs_help is False and ali.known_facts >= enough + 8
    assert ali.likely_percent >= 60


@pytest.mark.django_db
def test_a_child_wrong_again_and_again_on_two_facts_is_stuck_not_flagged(world):
    """The warm-up asks a weak fact again and again: a child right on 18 facts and wrong 15
    times on each of two is no child to flag, though under 40 % of all their answers were
    right; they are shown stuck on one of them."""
    now = timezone.now()
    typed(world.child_a, right_on(18), when=now - timedelta(hours=2))
    typed(world.child_a, [(7, 8, 48), (8, 7, 63)] * 15, when=now - timedelta(hours=1))
    ada = flagged(world)
    assert (ada.recent_correct, ada.recent_attempts) == (18, 48)
    assert ada.needs_help is False and ada.not_yet_facts >= 2
    assert (ada.stuck, ada.stuck_a, ada.stuck_b) == (True, 7, 8)
    assert ada.stuck_run >= 3


@pytest.mark.django_db
def test_the_last_7_days_figures_roll_and_leave_out_taps_after_being_caught(world):
    ada, match, now = world.child_a, world.match_a, timezone.now()
    for i in range(5):  # 8 days ago: not in the last 7 days
        attempt(ada, match, 2, 2 + i, 2 * (2 + i), when=now - timedelta(days=8, minutes=i))
    ada_ = flagged(world, now=now)
    assert (ada_.recent_attempts, ada_.recent_correct) == (0, 0)
    when = now - timedelta(days=6, hours=23, minutes=44)  # all inside the window
    attempt(ada, match, 3, 3, 9, when=when)
    attempt(ada, match, 3, 4, 13, when=when + timedelta(minutes=1))
    attempt(ada, match, 3, 5, None, when=when + timedelta(minutes=2))
    attempt(ada, match, 3, 5, 15, when=when + timedelta(minutes=3), context="forced")
    ada_ = flagged(world, now=now)
    assert (ada_.recent_correct, ada_.recent_attempts, ada_.recent_omissions) == (1, 3, 1)
    # A day later, the same answers no longer count: the window rolls (it is not "since
    # Monday", so a Monday morning still sees last week's play).
    ada_ = flagged(world, now=now + timedelta(days=1))
    assert (ada_.recent_attempts, ada_.recent_omissions) == (0, 0)
    # The class table shows them: right of all, and the captures missed.
    html = (
        world.client("teacher_a")
        .get(reverse("classroom:class_report", args=[world.class_a.pk]))
        .text
    )
    table = html[html.index('id="children-title"') :]
    row = re.search(r"<bdi>Ada</bdi></a></th>.*?</tr>", table, flags=re.S).group(0)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert cells[0] == "1 of 3" and cells[3] == "1"


@pytest.mark.django_db
def test_stuck_on_a_fact_as_asked_wrong_or_missed_three_times_in_a_row(world):
    ada, match, now = world.child_a, world.match_a, timezone.now()

    def at(minutes):
        return now - timedelta(days=2) + timedelta(minutes=minutes)

    attempt(ada, match, 7, 8, 54, when=at(1))
    attempt(ada, match, 2, 2, 4, when=at(2))  # another fact, right: no matter
    attempt(ada, match, 7, 8, 48, when=at(3))
    attempt(ada, match, 8, 7, 48, when=at(4))  # the other way round: an order of its own
    assert flagged(world).stuck is False  # two in a row as 7 × 8
    attempt(ada, match, 7, 8, None, when=at(5))  # a missed capture is wrong too
    ada_ = flagged(world)
    assert (ada_.stuck, ada_.stuck_a, ada_.stuck_b, ada_.stuck_run) == (True, 7, 8, 3)
    assert ada_.needs_help is False  # shown beside the flag, on its own: it raises none
    assert [
        s.name for s in Student.reports.filter(classroom=world.class_a).stuck_not_flagged()
    ] == ["Ada"]
    attempt(ada, match, 7, 8, 56, when=at(6))  # right at last: the run ends
    assert flagged(world).stuck is False
    attempt(ada, match, 7, 8, 63, when=at(7))
    attempt(ada, match, 7, 8, 63, when=at(8))
    attempt(ada, match, 7, 8, 63, when=at(9), context="forced")  # no evidence: not counted
    assert flagged(world).stuck is False  # two since the right answer
    attempt(ada, match, 7, 8, 63, when=at(10))
    assert flagged(world).stuck_run == 3
    # A run whose latest answer is older than 7 days is no longer news.
    assert flagged(world, now=at(10) + timedelta(days=7, seconds=30)).stuck is False
    assert flagged(world, now=at(10) + timedelta(days=7)).stuck is True  # at the edge: in


@pytest.mark.django_db
def test_a_run_counts_the_orders_latest_answers_however_old_if_the_last_is_recent(world):
    ada, match, now = world.child_a, world.match_a, timezone.now()
    attempt(ada, match, 6, 9, 56, when=now - timedelta(days=9))
    attempt(ada, match, 6, 9, 56, when=now - timedelta(days=8))
    assert flagged(world).stuck is False  # two, and long ago
    attempt(ada, match, 6, 9, 56, when=now - timedelta(hours=1))
    ada_ = flagged(world)
    assert (ada_.stuck_a, ada_.stuck_b, ada_.stuck_run) == (6, 9, 3)


@pytest.mark.django_db
def test_the_reasons_are_shown_in_words_wherever_the_flag_is(world):
    typed(world.child_a, wrong_on(knowledge.HELP_MIN_FACTS) * 2)  # a dozen facts, all wrong
    ali = world.child_a2
    typed(ali, [(7, 8, 48)] * 3)
    ada = flagged(world)
    (low,) = help_reasons(ada)
    assert low == (
        f"Likely right on about {ada.likely_percent} % of the 64 facts: not yet on "
        f"{ada.not_yet_facts} of them"
    )
    stuck = "Stuck on 7 × 8: wrong or missed 3 times in a row"
    assert help_reasons(flagged(world, "Ali")) == []  # stuck, not flagged
    assert stuck_reason(flagged(world, "Ali")) == stuck and stuck_reason(ada) == ""
    client = world.client("teacher_a")
    report = client.get(reverse("classroom:class_report", args=[world.class_a.pk])).text
    card = section(report, "help-title")
    assert low in card and "<bdi>Ada</bdi>" in card and "Ali" not in card
    stuck_card = section(report, "stuck-title")
    assert stuck in stuck_card and "<bdi>Ali</bdi>" in stuck_card and "Ada" not in stuck_card
    # The children's table: right in the last 7 days, facts known and not yet, the flags.
    table = report[report.index('id="children-title"') :]
    row = re.search(r"<bdi>Ada</bdi></a></th>.*?</tr>", table, flags=re.S).group(0)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert cells[:3] == [
        f"0 of {2 * knowledge.HELP_MIN_FACTS}",
        str(ada.known_facts),
        str(ada.not_yet_facts),
    ]
    assert "needs help" in row and "stuck:" not in row
    ali_row = re.search(r"<bdi>Ali</bdi></a></th>.*?</tr>", table, flags=re.S).group(0)
    assert "stuck: 7 × 8" in ali_row and "needs help" not in ali_row
    assert re.findall(r'<td class="num">([^<]*)</td>', ali_row)[0] == "0 of 3"
    wall = client.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text
    details = re.search(r'<details class="needs-help-wall">.*?</details>', wall, flags=re.S)
    assert "Needs help: 1 child" in details.group(0) and low in details.group(0)
    stuck_box = re.search(r'<details class="needs-help-wall stuck-wall">.*?</details>', wall, re.S)
    assert "Stuck on a fact: 1 child" in stuck_box.group(0) and stuck in stuck_box.group(0)
    # The wall is on the projector: the class reads the names, not the scores; the reasons
    # are the links' tooltips and screen-reader text.
    for box in (details.group(0), stuck_box.group(0)):
        seen = re.sub(r'<span class="visually-hidden">.*?</span>|<[^>]+>', "", box)
        assert "%" not in seen and "wrong or missed" not in seen, seen
    assert f'title="{low}"' in details.group(0)
    home = client.get(reverse("classroom:teacher_home")).text
    box = section(home, "needs-help-title")
    assert low in box and stuck not in box
    home_stuck = section(home, "stuck-title")
    assert stuck in home_stuck and "<bdi>Ali</bdi>" in home_stuck
    child = client.get(reverse("classroom:child_report", args=[ali.pk])).text
    assert 'id="help-title"' not in child
    panel = section(child, "stuck-title")
    assert stuck in panel and low not in panel
    # A flagged child who is stuck as well: the stuck fact is among the flag's reasons.
    typed(world.child_a, [(6, 9, 56)] * 3, when=timezone.now() - timedelta(minutes=1))
    ada = flagged(world)
    assert help_reasons(ada)[1:] == ["Stuck on 6 × 9: wrong or missed 3 times in a row"]
    assert (
        'id="stuck-title"'
        not in client.get(reverse("classroom:child_report", args=[world.child_a.pk])).text
    )  # on the child's report, among the flag's reasons
    # No answers left (a repair after deleting them): no flag, no stuck fact.
    Attempt.objects.filter(student=ali).delete()
    FactStat.objects.rebuild_for([ali.pk])
    child = client.get(reverse("classroom:child_report", args=[ali.pk])).text
    assert 'id="help-title"' not in child and 'id="stuck-title"' not in child


@pytest.mark.django_db
def test_the_help_flags_cost_the_same_queries_for_more_children(world):
    typed(world.child_a, wrong_on(knowledge.HELP_MIN_FACTS))
    client = world.client("teacher_a")

    def count():
        with CaptureQueriesContext(connection) as queries:
            flags = Student.reports.filter(classroom=world.class_a).with_help_flags()
        with CaptureQueriesContext(connection) as home:
            assert client.get(reverse("classroom:teacher_home")).status_code == 200
        return len(flags), len(queries), len(home)

    children, few, home = count()
    for i in range(6):
        kid = Student.objects.create(classroom=world.class_a, name=f"Kid {i}")
        typed(kid, wrong_on(knowledge.HELP_MIN_FACTS, start=i))
    more, many, home_many = count()
    assert more == children + 6
    assert many == few <= 4  # the children, their rows, their wrong answers, their week
    assert home_many == home


@pytest.mark.django_db
def test_needs_help_shows_on_the_teachers_home_and_the_wall(world):
    typed(world.child_a, wrong_on(knowledge.HELP_MIN_FACTS))
    typed(world.child_b, wrong_on(knowledge.HELP_MIN_FACTS))  # teacher_b's child
    home = world.client("teacher_a").get(reverse("classroom:teacher_home")).text
    box = section(home, "needs-help-title")
    assert "Ada" in box and "Ali" not in box
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
    other_box = section(other, "needs-help-title")
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
def test_the_school_heatmap_counts_the_children_of_its_classes_without_names(world):
    typed(world.child_a, wrong(7, 8))  # class A: not yet
    typed(world.child_b, right(7, 8))  # class B: knows it
    Student.objects.create(classroom=world.class_b, name="Cy")
    gone = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="Old")
    typed(Student.objects.create(classroom=gone, name="Zed"), wrong(7, 8))
    gone.archive()  # an archived class is not counted
    today = world.school_a.local_today()
    DailyTrend.objects.update_or_create(
        scope="school",
        scope_id=world.school_a.pk,
        day=today,
        defaults={"attempts": 10, "correct": 9},
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
    # Ada, Ali, Bea and Cy: one of four not yet.
    assert "heat-band-some" in seven_eight and ">1/4<" in seven_eight
    assert "7 × 8: 1 of 4 children not yet, 2 not sure yet, 1 know it" in seven_eight
    heatmap = html.split('class="heatmap"')[1].split("</table>")[0]
    assert "<a " not in heatmap  # no link into a class's pages
    for name in ("Ada", "Ali", "Bea", "Cy", "Zed"):
        assert f">{name}<" not in html and f"<bdi>{name}</bdi>" not in html, name
    table = section(html, "trend-title")
    assert re.search(r'<td class="num">10</td><td class="num">9</td><td class="num">90 %', table)
    assert "style=" not in html
    other = world.client("admin_b").get(reverse("classroom:school_report")).text
    assert ">1/4<" not in other


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
def test_the_class_tabs_mark_the_page_you_are_on(world):
    teacher = world.client("teacher_a")
    pk = world.class_a.pk
    for name in ("classroom:class_detail", "classroom:assignment_list", "classroom:class_report"):
        html = teacher.get(reverse(name, args=[pk])).text
        nav = html.split('class="class-nav"')[1].split("</nav>")[0]
        current = re.findall(r'href="([^"]+)" aria-current="page"', nav)
        assert current == [reverse(name, args=[pk])], (name, current)


def test_a_class_square_label_counts_one_child_in_the_singular():
    from classroom.charts import GroupCounts
    from classroom.charts import group_cell

    assert group_cell(7, 8, GroupCounts(not_yet=1)).label == (
        "7 × 8: 1 of 1 child not yet, 0 not sure yet, 0 know it"
    )
    assert group_cell(7, 8, GroupCounts(known=1, unsure=1)).label == (
        "7 × 8: 0 of 2 children not yet, 1 not sure yet, 1 know it"
    )
    assert group_cell(7, 8, GroupCounts()).label == "no children yet"
