"""Classroom models, one module per area. Fields live here; behaviour that belongs to one
area lives in that area's mixin (e.g. picture sign-in in ``signin.py``)."""

from .analytics import Attempt, ClassFactStat, DailyTrend, FactStat
from .assignment import Assignment, AssignmentQuerySet, SessionMatch, WaitingEntry, session_of
from .child_seat import ChildSeat, seat_key_of, student_pk_of
from .health import WorkerHeartbeat
from .recompute import RecomputeJob
from .report_queries import ReportStudentQuerySet
from .roster import (
    CODE_ALPHABET,
    CODE_LENGTH,
    PICTURES,
    Classroom,
    ClassroomQuerySet,
    Group,
    Student,
    StudentQuerySet,
    new_class_code,
)
from .school import Invite, Membership, School
from .signin import SignInDevice
from .throttle import RateLimit
from .warmup import WarmUp

__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "PICTURES",
    "Assignment",
    "AssignmentQuerySet",
    "Attempt",
    "ChildSeat",
    "ClassFactStat",
    "Classroom",
    "ClassroomQuerySet",
    "DailyTrend",
    "FactStat",
    "Group",
    "Invite",
    "Membership",
    "RateLimit",
    "RecomputeJob",
    "ReportStudentQuerySet",
    "School",
    "SessionMatch",
    "SignInDevice",
    "Student",
    "StudentQuerySet",
    "WaitingEntry",
    "WarmUp",
    "WorkerHeartbeat",
    "new_class_code",
    "seat_key_of",
    "session_of",
    "student_pk_of",
]
