from io import StringIO

import pytest
from django.core.management import call_command

from classroom.models import Assignment, ClassFactStat, Classroom, FactStat, School, Student
from games.models import Match


@pytest.mark.django_db
def test_demo_data_fills_every_dashboard_once():
    out = StringIO()
    call_command("seed_demo", stdout=out)
    classroom = Classroom.objects.get(name="4B")
    assert School.objects.count() == 1
    assert Student.objects.filter(classroom=classroom).count() == 24
    finished = Match.objects.filter(status=Match.Status.FINISHED)
    assert finished.count() == 8
    assert set(finished.values_list("assignment", flat=True)) == {Assignment.objects.get().pk}
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
    assert School.objects.count() == 1 and Match.objects.count() == 8
