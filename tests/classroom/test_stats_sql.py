"""The statistics the database computes (classroom/models/stats_sql.py) agree with the pure
functions of classroom.diagnosis, on random evidence (hypothesis), on SQLite and PostgreSQL.

The reference here is written in plain Python from the attempts: it is what the rebuild did
before it moved into SQL, and what docs/analytics.md defines."""

import statistics
from collections import defaultdict
from datetime import UTC
from datetime import datetime
from datetime import timedelta

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from classroom import diagnosis
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from classroom.models import session_of
from classroom.models.stats_sql import _at_least
from classroom.models.stats_sql import state_case
from games.models import Match
from games.models import Move
from games.models import Seat

from .conftest import attempt_fields

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
    moves, warm_ups = {}, {}
    for kid in kids:
        for assignment in (None, slow):
            seats = [
                {"kind": Seat.Kind.STUDENT, "name": kid.name, "owner_key": kid.seat_key},
                {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "wizard"},
            ]
            create = {"options": {"tier": "full"}, "seed": 1}
            if assignment is None:
                match = Match.create("multiplipotion", seats, **create)
            else:
                match = assignment.new_match(seats, **create)
            moves[(kid.pk, assignment is not None)] = Move.objects.create(
                match=match, ply=1, seat=0, action={}, events=[]
            )
            warm_ups[(kid.pk, assignment is not None)] = WarmUp.objects.create(
                student=kid, assignment=assignment, timed=assignment is None, started_at=START
            )
    return school, rooms, kids, moves, warm_ups


# Few children and facts, so facts collect enough attempts to be fluent or mastered; times
# on both sides of the thresholds; clock times that often tie (the rank breaks ties by id),
# and some either side of the school's midnight (Auckland: 11:00 UTC in March) so that local
# days differ from UTC days; both orders of a fact, which pool.
attempt = st.tuples(
    st.sampled_from([0, 0, 0, 1, 2]),  # which child
    st.sampled_from([(7, 8), (7, 8), (8, 7), (3, 3), (2, 9)]),
    # "unanswered": no answer outside a missed capture. The game never writes one, but the
    # counts must not mix up the two columns: omissions count no answer, the "missed lately"
    # rule counts the context.
    st.sampled_from(["right"] * 6 + ["wrong", "missed", "unanswered"]),
    st.integers(0, 5),  # which wrong answer
    st.sampled_from([900, 2500, 3000, 3001, 5000, 6000, 6001, 9000]),  # response time
    # day, then minute: ties happen; 899 and 900 minutes after 20:00 UTC are 23:59 and 00:00
    # in Auckland
    st.tuples(st.integers(0, 2), st.sampled_from([0, 0, 1, 2, 3, 899, 900])),
    st.booleans(),  # an accuracy-first session (or an untimed warm-up)
    st.sampled_from(["capture"] * 4 + ["challenge", "warm-up"]),  # where the answer came from
)
WRONG = (48, 63, 15, 55, 54, 1000)


def write(place, draws):
    _school, _rooms, kids, moves, warm_ups = place
    Attempt.objects.all().delete()
    rows = []
    questions = defaultdict(int)
    for who, (a, b), how, w, ms, (day, minute), slow, source in draws:
        kid = kids[who]
        answer = {"right": a * b, "wrong": WRONG[w], "missed": None, "unanswered": None}[how]
        if answer == a * b and how == "wrong":
            answer += 1
        warm_up = how != "missed" and source == "warm-up"
        context = "missed" if how == "missed" else source
        game = {} if warm_up else {"match_id": moves[(kid.pk, slow)].match_id}
        if warm_up:
            round_ = warm_ups[(kid.pk, slow)]
            game = {"warm_up": round_, "question": questions[round_.pk]}
            questions[round_.pk] += 1
        else:
            game["move"] = moves[(kid.pk, slow)]
        rows.append(
            Attempt(
                **attempt_fields(kid, a, b, answer, ms=ms, context=context, **game),
                created_at=START + timedelta(days=day, minutes=minute),
            )
        )
    Attempt.objects.bulk_create(rows)


def untimed(t) -> bool:
    if t.warm_up_id is not None:
        return not t.warm_up.timed
    return bool(session_of(t.match) and session_of(t.match).accuracy_first)


def expected_fact_stats():
    zone = School.objects.get().zone
    by_fact, pooled = defaultdict(list), defaultdict(list)
    for t in Attempt.objects.select_related("match__session_link__assignment", "warm_up").order_by(
        "created_at", "pk"
    ):
        by_fact[(t.student_id, t.a, t.b)].append(t)
        pooled[(t.student_id, min(t.a, t.b), max(t.a, t.b))].append(t)
    states = {
        key: diagnosis.mastery(
            [
                diagnosis.Attempt(
                    t.correct,
                    t.response_ms,
                    t.context == "missed",
                    game_time=t.context not in ("warm-up", "challenge"),
                    untimed=untimed(t),
                    day=t.created_at.astimezone(zone).date(),
                )
                for t in rows
            ]
        )
        for key, rows in pooled.items()
    }
    out = {}
    for key, rows in by_fact.items():
        sid, a, b = key
        m = states[(sid, min(a, b), max(a, b))]
        times = [t.response_ms for t in rows[-diagnosis.RECENT :] if t.correct]
        times = [ms for ms in times if ms is not None]
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
            int(statistics.median(times)) if times else None,
            m.state,
            (m.attempts, m.correct, m.days, m.speed_ms, m.speed_from_game),
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
            (f.recent_attempts, f.recent_correct, f.recent_days, f.speed_ms, f.speed_from_game),
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
    """On PostgreSQL the fused statement (the trend rows ride along)."""
    write(place, draws)
    kids = [k.pk for k in place[2]]
    written = FactStat.objects.rebuild_for(kids)
    assert fact_rows() == expected_fact_stats()
    assert written == FactStat.objects.count()
    assert not Attempt.objects.filter(stats_applied=False).exists()  # all counted


@SETTINGS
@given(st.lists(attempt, min_size=1, max_size=80), st.integers(1, 4))
def test_incremental_stats_match_diagnosis(place, draws, parts):
    """The incremental path, the attempts counted in ``parts`` steps in the order written
    (times out of order across steps too), gives the same figures as the pure functions,
    and the same rows (windows included) as the full rebuild."""
    _school, _rooms, kids, _moves, _warm_ups = place
    write(place, draws)
    for model in (FactStat, ClassFactStat, DailyTrend):  # hypothesis' examples share the db
        model.objects.all().delete()
    ids = list(Attempt.objects.order_by("pk").values_list("pk", flat=True))
    Attempt.objects.update(stats_applied=True)
    for k in range(parts):
        step = ids[k * len(ids) // parts : (k + 1) * len(ids) // parts]
        Attempt.objects.filter(pk__in=step).update(stats_applied=False)
        FactStat.objects.apply_pending([kid.pk for kid in kids])
    assert fact_rows() == expected_fact_stats()
    incremental = full_rows()
    assert FactStat.objects.apply_pending([kid.pk for kid in kids]) == 0  # idempotent
    assert full_rows() == incremental
    FactStat.objects.rebuild_for([kid.pk for kid in kids])
    assert full_rows() == incremental


def full_rows():
    fields = [f.name for f in FactStat._meta.fields if f.name not in {"id", "updated_at"}]
    return sorted(FactStat.objects.values_list(*fields), key=lambda r: tuple(map(str, r)))


@SETTINGS
@given(st.lists(attempt, min_size=1, max_size=80))
def test_class_rollups_add_up_the_childrens_rows(place, draws):
    write(place, draws)
    _school, rooms, kids, _moves, _warm_ups = place
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
        if f.state in (diagnosis.LEARNING, diagnosis.WRONG_SO_FAR):
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
    FactStat.objects.rebuild_for([k.pk for k in place[2]])  # counts them (and their rows)
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
    case = state_case("n", "r", "m", "o", "f", "d")
    assert f"n <= {diagnosis.EARLY} AND r = n THEN '{diagnosis.RIGHT_SO_FAR}'" in case
    assert f"n >= {diagnosis.MASTERED_MIN_ATTEMPTS}" in case
    assert f"m <= {diagnosis.MASTERED_MEDIAN_MS}" in case
    assert f"d >= {diagnosis.MASTERED_MIN_DAYS}" in case
    assert f"n >= {diagnosis.FLUENT_MIN_ATTEMPTS}" in case
    assert _at_least("r", "n", 0.9) == "r * 10 >= 9 * n"
    assert _at_least("r", "n", 0.8) == "r * 5 >= 4 * n"


def draw(how="right", fact=(7, 8), ms=2000, day=0, minute=0, slow=False, source="capture"):
    return (0, fact, how, 0, ms, (day, minute), slow, source)


def test_the_latest_ten_break_ties_of_time_by_the_order_written(place):
    """Twelve attempts stamped with the same second: the two written first (wrong) are the
    oldest, so the latest ten are all right and quick."""
    draws = [draw("wrong")] * 2 + [draw()] * 5 + [draw(day=1)] * 5
    write(place, draws)
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.attempts, stat.correct, stat.state) == (12, 10, diagnosis.MASTERED)
    assert fact_rows() == expected_fact_stats()


def test_mastered_needs_two_school_days(place):
    """Ten quick right answers within one Auckland day (two UTC days: 20:00 and 10:59 UTC
    the next morning) are fluent; one more a minute later, after local midnight, masters it."""
    one_day = [draw(minute=0)] * 5 + [draw(minute=899)] * 5
    write(place, one_day)
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.state, stat.recent_days) == (diagnosis.FLUENT, 1)
    write(place, [*one_day, draw(minute=900)])
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.state, stat.recent_days) == (diagnosis.MASTERED, 2)
    assert fact_rows() == expected_fact_stats()


def test_both_orders_pool_and_keep_their_own_counts(place):
    """7 × 8 right three times and 8 × 7 wrong once: one pooled fact of four attempts
    (learning: 75 %), each order with its own counts; a single right 2 × 9 is right so far."""
    write(place, [draw()] * 3 + [draw("wrong", fact=(8, 7))] + [draw(fact=(2, 9))])
    FactStat.objects.rebuild_for([place[2][0].pk])
    rows = {(f.a, f.b): f for f in FactStat.objects.all()}
    assert {k: (f.attempts, f.correct) for k, f in rows.items()} == {
        (7, 8): (3, 3),
        (8, 7): (1, 0),
        (2, 9): (1, 1),
    }
    for f in (rows[(7, 8)], rows[(8, 7)]):
        assert (f.state, f.recent_attempts, f.recent_correct) == (diagnosis.LEARNING, 4, 3)
    assert rows[(2, 9)].state == diagnosis.RIGHT_SO_FAR
    assert fact_rows() == expected_fact_stats()


def test_retrieval_times_beat_game_times(place):
    """Slow captures and quick warm-up answers: the warm-up's times decide; with captures
    only, the game times do and are marked so; an untimed warm-up keeps speed out."""
    captures = [draw(ms=9000, day=d) for d in (0, 1, 2)] * 2
    write(place, captures)
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.state, stat.speed_ms, stat.speed_from_game) == (diagnosis.LEARNING, 9000, True)
    write(place, [*captures, draw(ms=1500, source="warm-up", day=2)])
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.state, stat.speed_ms, stat.speed_from_game) == (diagnosis.MASTERED, 1500, False)
    write(place, [*captures, draw(ms=1500, source="warm-up", day=2, slow=True)])
    FactStat.objects.rebuild_for([place[2][0].pk])
    stat = FactStat.objects.get()
    assert (stat.state, stat.speed_ms, stat.speed_from_game) == (diagnosis.MASTERED, None, False)
    assert fact_rows() == expected_fact_stats()


@pytest.mark.usefixtures("postgres")
def test_fact_stats_on_postgresql_with_trends(place):
    """The PostgreSQL statement with the trend rows riding along computes the same."""
    draws = [draw(day=d, minute=m) for d in (0, 1) for m in (0, 899, 900)] * 2
    draws += [draw("wrong", fact=(8, 7), source="warm-up"), draw(fact=(3, 3), source="challenge")]
    write(place, draws)
    FactStat.objects.rebuild_for([k.pk for k in place[2]])
    assert fact_rows() == expected_fact_stats()


def test_the_packed_fact_key_keeps_large_ids_and_factors_apart(place):
    """The rebuild sorts and groups on one integer made of the child's id, a and b: a child id
    near 2**31 and factors at the ends of their range come back as they went in, each fact on
    its own row."""
    _school, rooms, _kids, moves, _warm_ups = place
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


def test_due_for_review_lists_mastered_facts_unseen_for_four_weeks(place):
    """Mastered 3 × 3 and 7 × 8 / 8 × 7, last seen 10 March; 2 × 9 only fluent. On 7 April
    (28 days on) both mastered facts are due, 7 × 8 by both rows; a later 8 × 7 keeps it off."""
    mastered = [draw(fact=f, day=d) for f in ((3, 3), (7, 8), (8, 7)) for d in (0, 1)] * 3
    write(place, [*mastered, *[draw(fact=(2, 9), ms=5000, day=d) for d in (0, 1)] * 3])
    kid = place[2][0]
    FactStat.objects.rebuild_for([kid.pk])
    last = FactStat.objects.filter(student=kid).latest("last_attempt_at").last_attempt_at
    mine = FactStat.objects.filter(student=kid)
    due = last + timedelta(days=diagnosis.REVIEW_AFTER_DAYS)
    assert mine.due_for_review(due - timedelta(seconds=1)).pooled_facts() == []
    assert mine.due_for_review(due).pooled_facts() == [(3, 3), (7, 8)]
    assert set(mine.due_for_review(due).values_list("a", "b")) == {(3, 3), (7, 8), (8, 7)}
    Attempt.objects.filter(a=8, b=7).update(created_at=last + timedelta(days=1))
    FactStat.objects.rebuild_for([kid.pk])
    assert mine.due_for_review(due).pooled_facts() == [(3, 3)]  # the twin was seen since
