"""Seed the children of one load step with the models (no HTTP): one new school, classes of
``class_size`` children, a teacher per class, one open game session (Assignment) per class
and every child already paired with a classmate in a match of that session.

The children then sign in through the real picture sign-in (they need their class code, id and
pictures, written to a JSON file for the load clients) and find their game through the real
"Play" button of their session, as a class does after the teacher pairs them.
"""

from __future__ import annotations

import json
import secrets
from datetime import time
from datetime import timedelta
from pathlib import Path


def seed_children(children: int, *, class_size: int = 30, label: str = "load") -> list[dict]:
    """Create ``children`` (rounded up to even) children and their matches; return one dict
    per child: code, student, pictures, assignment, match (public id), seat."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from classroom.models import Assignment
    from classroom.models import Classroom
    from classroom.models import Membership
    from classroom.models import School
    from classroom.models import Student
    from games.models import Seat

    children += children % 2
    class_size += class_size % 2
    user_model = get_user_model()
    tag = secrets.token_hex(3)
    out: list[dict] = []
    with transaction.atomic():
        # The school day never ends during a load step (a child's session lasts until then).
        school = School.objects.create(
            name=f"Load school {label} {tag}", day_ends_at=time(23, 59), timezone="UTC"
        )
        made = 0
        number = 0
        while made < children:
            number += 1
            size = min(class_size, children - made)
            teacher = user_model.objects.create_user(
                f"load-{tag}-{number}", password=None, first_name=f"Teacher {number}"
            )
            Membership.objects.create(user=teacher, school=school)
            classroom = Classroom.objects.create(school=school, teacher=teacher, name=f"L{number}")
            students = Student.objects.bulk_create(
                Student(classroom=classroom, name=f"Child {number}-{i + 1}") for i in range(size)
            )
            assignment = Assignment.objects.create(
                classroom=classroom,
                created_by=teacher,
                title="Load test",
                tier=Assignment.Tier.GREEN,
                target_value=50,
                opens_at=timezone.now() - timedelta(minutes=1),
                warm_up_minutes=0,  # the load test measures game moves, not warm-ups
            )
            for first, second in zip(students[::2], students[1::2], strict=True):
                match = assignment.new_match(
                    [
                        {"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key}
                        for s in (first, second)
                    ],
                    options={"tier": assignment.tier},
                )
                for seat, student in enumerate((first, second)):
                    out.append(
                        {
                            "code": classroom.code,
                            "student": student.pk,
                            "pictures": student.pictures.split(","),
                            "assignment": assignment.pk,
                            "match": match.public_id,
                            "seat": seat,
                        }
                    )
            made += size
    return out


def write_children(children: list[dict], path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(children), encoding="utf-8")
    return path
