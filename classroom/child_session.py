"""Which child (if any) this browser is signed in as.

A child's session holds the student id, the class's sign-in generation and a digest of the
child's badge and pictures (``Student.signin_key``). It ends at the end of the school day,
when the teacher ends the class's session (the generation moves on), when the teacher gives
the child a new badge or new pictures (the digest changes), or when the child (or the next
child on a shared Chromebook) switches.
"""

import secrets
from datetime import datetime
from datetime import timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone

from classroom import live
from classroom.languages import CHILD_LANGUAGE
from classroom.languages import child_loaded
from classroom.models import Student
from config.prepared import PreparedQuery

AFTER_HOURS_SESSION = timedelta(hours=1)
# Kept in the fresh session of a child the teacher signed out (the class's session ended, a new
# badge or new pictures): the class's code and its school's language, for the next child page
# to send them to their class's names with a word of why (views.sessions.child_page).
SIGNED_OUT_BY_TEACHER = "signed_out_by_teacher"


def session_end(school, now=None) -> datetime:
    """When a child signing in now is signed out: the end of the school day, or an hour
    from now when the school day is already over (homework, a club) or ends within the hour
    (a child who signs in at 15:25 is not signed out five minutes later)."""
    now = now or timezone.now()
    local = now.astimezone(ZoneInfo(school.timezone))
    end = local.replace(
        hour=school.day_ends_at.hour, minute=school.day_ends_at.minute, second=0, microsecond=0
    )
    return max(end, now + AFTER_HOURS_SESSION)


def sign_in_student(request, student: Student) -> None:
    """Start a fresh session for this child (a new session key: no fixation). The child who
    was signed in on this browser before (a shared Chromebook) is signed out."""
    before = request.session.get("student_id")
    if before and before != student.pk:
        Student(pk=before).signed_out()
    request.session.flush()
    request.session.cycle_key()
    request.session["student_id"] = student.pk
    request.session["signin_generation"] = student.classroom.signin_generation
    request.session["signin_key"] = student.signin_key
    request.session["player_key"] = secrets.token_urlsafe(18)
    # The school's language, for the pages that never look the child up (classroom/languages.py).
    request.session[CHILD_LANGUAGE] = student.classroom.school.language
    until = session_end(student.classroom.school)
    request.session.set_expiry(until)
    student.signed_in(until)
    live.class_changed(student.classroom_id)


def sign_out_student(request) -> None:
    student = current_student(request)
    if student is not None:
        student.signed_out()
    request.session.flush()
    if student is not None:
        live.class_changed(student.classroom_id, waiting=True)


# The child with class and school, unless archived: one query, its SQL made once
# (config/prepared.py), as every board request of a child asks for it.
SIGNED_IN_STUDENT = PreparedQuery(
    lambda pk: Student.objects.filter(
        pk=pk, archived_at__isnull=True, classroom__archived_at__isnull=True
    ),
    related=("classroom", "classroom__school"),
    marker=-7_777_777,
)


def signed_in_student(pk) -> Student | None:
    """The child with class and school, unless archived, or None."""
    return SIGNED_IN_STUDENT.first(pk)


def current_student(request) -> Student | None:
    """The signed-in child, or None (also when the teacher ended the session, gave the child a
    new badge or new pictures, or the child was archived or deleted)."""
    student_id = request.session.get("student_id")
    if not student_id:
        return None
    if hasattr(request, "_current_student"):
        return request._current_student
    student = signed_in_student(student_id)
    if student is None:
        request.session.flush()
    elif (
        request.session.get("signin_generation") != student.classroom.signin_generation
        or request.session.get("signin_key") != student.signin_key
    ):
        request.session.flush()
        classroom = student.classroom
        request.session[SIGNED_OUT_BY_TEACHER] = [classroom.code, classroom.school.language]
        student = None
    request._current_student = student
    if student is not None:
        child_loaded(request, student)
    return student
