"""Classroom models, one module per area. Fields live here; behaviour that belongs to one
area lives in that area's mixin (e.g. picture sign-in in ``signin.py``)."""

from .analytics import Attempt
from .analytics import DailyTrend
from .analytics import FactStat
from .assignment import Assignment
from .assignment import AssignmentQuerySet
from .assignment import SessionMatch
from .assignment import WaitingEntry
from .assignment import session_of
from .child_seat import ChildSeat
from .child_seat import seat_key_of
from .child_seat import student_pk_of
from .health import WorkerHeartbeat
from .preferences import Preferences
from .recompute import RecomputeJob
from .report_queries import ReportStudentQuerySet
from .roster import CODE_ALPHABET
from .roster import CODE_LENGTH
from .roster import PICTURES
from .roster import Classroom
from .roster import ClassroomQuerySet
from .roster import Group
from .roster import Student
from .roster import StudentQuerySet
from .roster import new_class_code
from .school import Invite
from .school import Membership
from .school import School
from .signin import KnownDevice
from .signin import PictureTries
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
    "Classroom",
    "ClassroomQuerySet",
    "DailyTrend",
    "FactStat",
    "Group",
    "Invite",
    "KnownDevice",
    "Membership",
    "PictureTries",
    "Preferences",
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
