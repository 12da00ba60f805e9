from io import StringIO

import pytest
from django.core.management import call_command

from classroom.management.commands.seed_demo import DEMO_CHILDREN
from classroom.management.commands.seed_demo import DEMO_PLAYERS
from classroom.management.commands.seed_demo import DEMO_SKILLS
from classroom.management.commands.seed_demo import Skill
from classroom.models import Assignment
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
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
    # The demo games' statistics are built, so the reports are not empty either.
    players = Student.objects.filter(attempts__isnull=False).distinct()
    assert players.count() == 8
    assert FactStat.objects.filter(student__in=players).exists()
    assert ClassFactStat.objects.filter(classroom=classroom).exists()
    # Answers at a child's pace: real times (not 0.0 s), and not all in the same minute.
    from classroom.models import Attempt

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


@pytest.mark.django_db
def test_the_demo_class_shows_a_flag_and_a_stuck_fact():
    """A new teacher sees what a "needs help" flag looks like (children right at the first try
    on under 60 % of their facts) and what "stuck on a fact" looks like; the others are
    neither."""
    out = StringIO()
    call_command("seed_demo", "--quiet-logins", stdout=out)
    children = list(Student.reports.filter(classroom__name="4B").with_help_flags())
    flagged = [s.name for s in children if s.needs_help]
    assert flagged and set(flagged) <= {"Ben", "Chloe", "Grace"}
    assert all(s.low_accuracy for s in children if s.needs_help)
    stuck = {s.name for s in children if s.stuck and not s.needs_help}
    assert stuck & {"Dev", "Finn"}  # (a steady child's three slips on one fact may join them)
    steady = Student.reports.filter(classroom__name="4B", name__in=["Ada", "Ella", "Hugo"])
    assert not any(s.needs_help for s in steady.with_help_flags())
    text = out.getvalue()
    assert f"Needs help in 4B: {len(flagged)} of 24 children." in text
    assert "Right at the first try on " in text
    assert f"Stuck on a fact, not flagged: {len(stuck)}." in text
    assert "Dev: Stuck on 2 × 4: wrong or missed" in text or "Finn: Stuck on 4 × 5" in text
