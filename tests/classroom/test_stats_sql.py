"""The statistics the database computes (classroom/models/stats_sql.py) agree with the pure
functions of classroom.diagnosis, on random evidence (hypothesis), on SQLite and PostgreSQL.

The reference here is written in plain Python from the attempts: it is what the rebuild did
before it moved into SQL, and what docs/analytics.md defines."""

import statistics
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from classroom import diagnosis
from classroom.models import (
    Assignment,
    Attempt,
    ClassFactStat,
    Classroom,
    DailyTrend,
    FactStat,
    School,
    Student,
)
from classroom.models.stats_sql import _at_least, state_case
from games.models import Match, Move, Seat

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 9, 20, 0, tzinfo=UTC)


@pytest.fixture
def place(django_user_model):
    teacher = django_user_model.objects.create_user("t-sql", password="x-long-pass-1")
    school = School.objects.create(name="Rata School", timezone="Pacific/Auckland")
    rooms = [Classroom.objects.create(school=school, teacher=teacher, name=n) for n in "AB"]
    kids = [Student.objects.create(classroom=rooms[i % 2], name=f"K{i}") for i in range(3)]
    slow = Assignment.objects.create(
        classroom=rooms[0], title="Go slow", opens_at=START, accuracy_first=True
    )
    moves = {}
    for kid in kids:
        for assignment in (None, slow):
            match = Match.create(
                "multiplipotion",
                [
                    {"kind": Seat.Kind.STUDENT, "name": kid.name, "student": kid},
                    {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "wizard"},
                ],
                options={"tier": "full"},
                seed=1,
                assignment=assignment,
            )
            moves[(kid.pk, assignment is not None)] = Move.objects.create(
                match=match, ply=1, seat=0, action={}, events=[]
            )
    return school, rooms, kids, moves


# Few children and facts, so facts collect enough attempts to be fluent or mastered; times
# on both sides of the thresholds; clock times that often tie (the rank breaks ties by id).
attempt = st.tuples(
    st.sampled_from([0, 0, 0, 1, 2]),  # which child
    st.sampled_from([(7, 8), (7, 8), (8, 7), (3, 3)]),
    # "unanswered": no answer outside a missed capture. The game never writes one, but the
    # counts must not mix up the two columns: omissions count no answer, the "missed lately"
    # rule counts the context.
    st.sampled_from(["right"] * 6 + ["wrong", "missed", "unanswered"]),
    st.integers(0, 5),  # which wrong answer
    st.sampled_from([900, 2500, 3000, 3001, 5000, 6000, 6001, 9000]),  # response time
    st.tuples(st.integers(0, 2), st.integers(0, 3)),  # day, then minute: ties happen
    st.booleans(),  # an accuracy-first session
)
WRONG = (48, 63, 15, 55, 54, 1000)


def write(place, draws):
    _school, _rooms, kids, moves = place
    Attempt.objects.all().delete()
    rows = []
    for who, (a, b), how, w, ms, (day, minute), slow in draws:
        kid = kids[who]
        answer = {"right": a * b, "wrong": WRONG[w], "missed": None, "unanswered": None}[how]
        if answer == a * b and how == "wrong":
            answer += 1
        move = moves[(kid.pk, slow)]
        rows.append(
            Attempt(
                student=kid,
                match_id=move.match_id,
                move=move,
                a=a,
                b=b,
                answer=answer,
                correct=answer == a * b,
                kind=diagnosis.classify(a, b, answer),
                context="missed" if how == "missed" else "capture",
                response_ms=None if answer is None else ms,
                created_at=START + timedelta(days=day, minutes=minute),
            )
        )
    Attempt.objects.bulk_create(rows)


def expected_fact_stats():
    by_fact = defaultdict(list)
    for t in Attempt.objects.select_related("match__assignment").order_by("created_at", "pk"):
        by_fact[(t.student_id, t.a, t.b)].append(t)
    out = {}
    for key, rows in by_fact.items():
        recent = rows[-diagnosis.RECENT :]
        use_time = not any(t.match.assignment and t.match.assignment.accuracy_first for t in recent)
        m = diagnosis.mastery(
            [diagnosis.Attempt(t.correct, t.response_ms, t.context == "missed") for t in rows],
            use_time=use_time,
        )
        errors = dict.fromkeys(diagnosis.ERROR_KINDS, 0)
        answers = defaultdict(int)
        for t in rows:
            if not t.correct:
                errors[diagnosis.classify(t.a, t.b, t.answer)] += 1
                if t.answer is not None:
                    answers[str(t.answer)] += 1
        out[key] = (
            len(rows),
            sum(t.correct for t in rows),
            sum(t.answer is None for t in rows),
            m.median_ms,
            m.state,
            errors,
            dict(answers),
            max(t.created_at for t in rows),
        )
    return out


def fact_rows():
    return {
        (f.student_id, f.a, f.b): (
            f.attempts,
            f.correct,
            f.omissions,
            f.median_ms,
            f.state,
            f.errors,
            f.wrong_answers,
            f.last_attempt_at,
        )
        for f in FactStat.objects.all()
    }


SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(st.lists(attempt, min_size=1, max_size=80))
def test_fact_stats_in_sql_match_diagnosis(place, draws):
    write(place, draws)
    kids = [k.pk for k in place[2]]
    written = FactStat.objects.rebuild_for(kids)
    assert fact_rows() == expected_fact_stats()
    assert written == FactStat.objects.count()


@SETTINGS
@given(st.lists(attempt, min_size=1, max_size=80))
def test_class_rollups_add_up_the_childrens_rows(place, draws):
    write(place, draws)
    _school, rooms, kids, _moves = place
    FactStat.objects.rebuild_for([k.pk for k in kids])
    ClassFactStat.objects.rebuild_for([r.pk for r in rooms])
    expected = defaultdict(
        lambda: {
            "n": 0, "right": 0, "missed": 0, "kids": set(), "learning": set(), "times": [],
            "answers": defaultdict(int),
        }
    )  # fmt: skip
    for f in FactStat.objects.select_related("student"):
        e = expected[(f.student.classroom_id, min(f.a, f.b), max(f.a, f.b))]
        e["n"] += f.attempts
        e["right"] += f.correct
        e["missed"] += f.omissions
        e["kids"].add(f.student_id)
        if f.state == diagnosis.LEARNING:
            e["learning"].add(f.student_id)
        if f.median_ms is not None:
            e["times"].append(f.median_ms)
        for answer, n in f.wrong_answers.items():
            e["answers"][answer] += n
    got = {
        (c.classroom_id, c.a, c.b): (
            c.attempts, c.correct, c.omissions, c.children, c.struggling, c.median_ms,
            c.wrong_answers,
        )
        for c in ClassFactStat.objects.all()
    }  # fmt: skip
    assert got == {
        key: (
            e["n"], e["right"], e["missed"], len(e["kids"]), len(e["learning"]),
            int(statistics.median(e["times"])) if e["times"] else None, dict(e["answers"]),
        )
        for key, e in expected.items()
    }  # fmt: skip


@SETTINGS
@given(st.lists(attempt, min_size=1, max_size=80))
def test_trends_per_child_class_and_school(place, draws):
    write(place, draws)
    school = place[0]
    DailyTrend.objects.rebuild_for_school(school)
    children = defaultdict(list)
    for t in Attempt.objects.select_related("student"):
        day = t.created_at.astimezone(school.zone).date()
        children[(t.student_id, t.student.classroom_id, day)].append(t)
    expected = {}
    wider = defaultdict(lambda: [0, 0])
    for (sid, cid, day), rows in children.items():
        right = sum(t.correct for t in rows)
        expected[("student", sid, day)] = (len(rows), right)
        for key in (("classroom", cid, day), ("school", school.pk, day)):
            wider[key][0] += len(rows)
            wider[key][1] += right
    for key, (n, right) in wider.items():
        expected[key] = (n, right)
    got = {(r.scope, r.scope_id, r.day): (r.attempts, r.correct) for r in DailyTrend.objects.all()}
    assert got == expected


def test_the_state_thresholds_are_written_from_diagnosis():
    case = state_case("n", "r", "m", "o", "f")
    assert f"n >= {diagnosis.MASTERED_MIN_ATTEMPTS}" in case
    assert f"m <= {diagnosis.MASTERED_MEDIAN_MS}" in case
    assert f"n >= {diagnosis.FLUENT_MIN_ATTEMPTS}" in case
    assert _at_least("r", "n", 0.9) == "r * 10 >= 9 * n"
    assert _at_least("r", "n", 0.8) == "r * 5 >= 4 * n"


def test_the_latest_ten_break_ties_of_time_by_the_order_written(place):
    """Twelve attempts stamped with the same second: the two written first (wrong) are the
    oldest, so the latest ten are all right and quick."""
    draws = [(0, (7, 8), "wrong", 0, 2000, (0, 0), False)] * 2
    draws += [(0, (7, 8), "right", 0, 2000, (0, 0), False)] * 10
    write(place, draws)
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.attempts, stat.correct, stat.state) == (12, 10, diagnosis.MASTERED)
    assert fact_rows() == expected_fact_stats()


def test_the_packed_fact_key_keeps_large_ids_and_factors_apart(place):
    """The rebuild sorts and groups on one integer made of the child's id, a and b: a child id
    near 2**31 and factors at the ends of their range come back as they went in, each fact on
    its own row."""
    _school, rooms, _kids, moves = place
    big = Student.objects.create(pk=2**31 - 1, classroom=rooms[0], name="Big")
    move = next(iter(moves.values()))
    facts = [(32767, 1), (1, 32767), (32767, 32767), (1, 1), (7, 8)]
    Attempt.objects.bulk_create(
        Attempt(
            student=big, match_id=move.match_id, move=move, a=a, b=b, answer=a * b + 1,
            correct=False, kind=diagnosis.classify(a, b, a * b + 1), context="capture",
            response_ms=1500, created_at=START,
        )
        for a, b in facts
    )  # fmt: skip
    FactStat.objects.rebuild_for([big.pk])
    got = set(FactStat.objects.values_list("student_id", "a", "b", "attempts"))
    assert got == {(big.pk, a, b, 1) for a, b in facts}
    assert fact_rows() == expected_fact_stats()


def test_every_kind_of_error_has_its_column_and_errors_reads_them_in_order(place):
    kid = place[2][0]
    for kind in diagnosis.ERROR_KINDS:
        assert FactStat._meta.get_field(f"{kind}_errors").default == 0
    stat = FactStat.objects.create(
        student=kid, a=7, b=8, state=diagnosis.LEARNING, errors={"table": 2, "close": 1}
    )
    stat.refresh_from_db()
    assert (stat.table_errors, stat.close_errors, stat.operand_errors) == (2, 1, 0)
    assert list(stat.errors) == list(diagnosis.ERROR_KINDS)
    assert stat.errors == {**dict.fromkeys(diagnosis.ERROR_KINDS, 0), "table": 2, "close": 1}


def test_a_child_id_beyond_the_packed_key_is_refused():
    with pytest.raises(ValueError, match="beyond the statistics' key"):
        FactStat.objects.rebuild_for([1, 2**31])
