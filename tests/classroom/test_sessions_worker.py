"""Resume all lets the computer players continue: a real Celery worker takes the bot turns.

Its own module: the module-scoped ``world`` of the other session tests holds a transaction
open, which a worker process on SQLite would wait behind."""

import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from games.models import Seat


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_resume_all_lets_the_computer_players_continue(celery_routes_to_worker):
    school = School.objects.create(name="Worker school")
    teacher = get_user_model().objects.create_user("worker-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="W")
    child = Student.objects.create(classroom=classroom, name="Wil")
    assignment = Assignment.objects.create(
        classroom=classroom, title="Bots", opens_at=timezone.now(), opponents="bot"
    )
    # The computer moves first, but the session is paused.
    match = assignment.new_match(
        [
            {"kind": Seat.Kind.BOT, "name": "Apprentice Pip", "bot_level": "apprentice"},
            {"kind": Seat.Kind.STUDENT, "name": child.name, "owner_key": child.seat_key},
        ],
        options={"tier": "green"},
        paused_at=timezone.now(),
    )
    client = Client()
    client.force_login(teacher)
    time.sleep(2)
    match.refresh_from_db()
    assert match.version == 0  # paused: the computer waits
    assert client.post(reverse("classroom:wall_resume", args=[classroom.pk])).status_code == 302
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if 1 in match.to_act():
            break
        time.sleep(0.2)
    assert match.version > 0 and 1 in match.to_act(), "the computer never took its turn"
