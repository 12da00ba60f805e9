import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from classroom import knowledge
from classroom.management.commands.seed_demo import DEMO_CHILDREN
from classroom.management.commands.seed_demo import DEMO_PLAYERS
from classroom.management.commands.seed_demo import DEMO_SKILLS
from classroom.management.commands.seed_demo import Skill
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from classroom.models.report_queries import summaries
from games.models import Match

GAMES = sum(DEMO_SKILLS.get(name, Skill()).games for name in sorted(DEMO_CHILDREN)[:DEMO_PLAYERS])


@pytest.mark.django_db
def test_demo_data_fills_every_dashboard_once():
    out = StringIO()
    call_command("seed_demo", stdout=out)
    classroom = Classroom.objects.get(name="4B")
    assert School.objects.count() == 1
    assert Student.objects.filter(classroom=classroom).count() == 24
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert finished.count() == GAMES
    assert set(finished.values_list("assignments", flat=True)) == {Assignment.objects.get().pk}
    assert all(m.moves.filter(seat=0).exists() for m in finished)
    # The demo games' statistics are built, so the reports are not empty either: every
    # answer counted into the knowledge model, and the class's days.
    players = Student.objects.filter(attempts__isnull=False).distinct()
    assert players.count() == 8
    assert FactStat.objects.filter(student__in=players).exists()
    assert not Attempt.objects.filter(stats_applied=False).exists()
    counted = sum(FactStat.objects.values_list("attempts", flat=True))
    forced = sum(FactStat.objects.values_list("forced", flat=True))
    assert counted + forced == Attempt.objects.count()
    assert DailyTrend.objects.filter(scope="classroom", scope_id=classroom.pk).exists()
    # Answers at a child's pace: real times (not 0.0 s), and not all in the same minute.
    timed = Attempt.objects.exclude(response_ms=None)
    assert timed.exists() and not timed.filter(response_ms__lt=1000).exists()
    assert FactStat.objects.filter(median_ms__gte=1000).exists()
    one_game = Attempt.objects.filter(match=finished.first())
    assert one_game.values("created_at").distinct().count() == one_game.count()
    from django.utils import timezone

    assert not Attempt.objects.filter(created_at__gt=timezone.now()).exists()  # none ahead
    text = out.getvalue()
    assert classroom.code in text and "potion-demo" in text
    call_command("seed_demo", stdout=StringIO())
    assert School.objects.count() == 1 and Match.objects.count() == GAMES


def squares_of(html: str) -> dict[str, set]:
    """The child heatmap's squares by state class: {"heat-known": {"7-8", …}, …}."""
    found: dict[str, set] = {}
    for cell in re.finditer(r'<a id="cell-(\d)-(\d)"[^>]*class="([^"]*)"', html):
        for css in cell.group(3).split():
            if css.startswith("heat-"):
                found.setdefault(css, set()).add(f"{cell.group(1)}-{cell.group(2)}")
    return found


@pytest.mark.django_db
def test_the_demo_class_shows_a_flag_a_stuck_fact_and_both_kinds_of_square():
    """A new teacher sees what a "needs help" flag looks like (children likely right on under
    60 % of the facts), what "stuck on a fact" looks like, and squares that say "knows it"
    and "not yet"; the steady children are not flagged."""
    out = StringIO()
    call_command("seed_demo", "--quiet-logins", stdout=out)
    children = Student.reports.filter(classroom__name="4B").order_by("name").with_help_flags()
    flagged = [s.name for s in children if s.needs_help]
    assert flagged and set(flagged) <= {"Ben", "Chloe", "Grace"}
    assert all(s.low_accuracy and s.likely_percent < 60 for s in children if s.needs_help)
    stuck = {s.name for s in children if s.stuck and not s.needs_help}
    assert stuck & {"Dev", "Finn"}  # (a steady child's three slips on one fact may join them)
    steady = Student.reports.filter(classroom__name="4B", name__in=["Ada", "Ella", "Hugo"])
    assert not any(s.needs_help for s in steady.with_help_flags())
    # Squares of both kinds, among the facts the children answered.
    shown = [
        sq.state
        for summary in summaries([s.pk for s in children]).values()
        for sq in summary.squares.values()
        if sq.answered
    ]
    assert knowledge.KNOWN in shown and knowledge.NOT_YET in shown
    text = out.getvalue()
    assert f"Needs help in 4B: {len(flagged)} of 24 children." in text
    assert "Likely right on about " in text
    assert f"Stuck on a fact, not flagged: {len(stuck)}." in text
    assert re.search(r"(Dev: Stuck on (2 × 4|4 × 2)|Finn: Stuck on (4 × 5|5 × 4)): wrong", text)
    # The teacher's pages say so: the class report flags them, and a stuck child's heatmap
    # has both kinds of square, their stuck fact "not yet".
    client = Client()
    client.force_login(get_user_model().objects.get(username="teacher"))
    room = Classroom.objects.get(name="4B")
    page = client.get(reverse("classroom:class_report", args=[room.pk])).content.decode()
    assert page.count('<span class="help-flag">') == len(flagged)
    assert page.count('<span class="stuck-flag">') == sum(s.stuck for s in children)
    dev = next(s for s in children if s.name in stuck & {"Dev", "Finn"})
    page = client.get(reverse("classroom:child_report", args=[dev.pk])).content.decode()
    squares = squares_of(page)
    assert squares.get("heat-known") and squares.get("heat-not_yet")
    assert f"{dev.stuck_a}-{dev.stuck_b}" in squares["heat-not_yet"]
