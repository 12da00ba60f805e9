"""The analytics pipeline: attempts written with the move, statistics rebuilt from them,
class roll-ups and daily trends, the tasks run in-process, the recompute command and the
Coach. (A real worker process: test_analytics_pipeline_worker.py.)"""

import io
from datetime import UTC
from datetime import date
from datetime import datetime
from datetime import timedelta

import pytest
from django.core.management import CommandError
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from classroom import diagnosis
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import ClassFactStat
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.tasks import nightly_rollups
from classroom.tasks import recompute_job
from classroom.tasks import sweep_missed_stats
from classroom.tasks import update_match_stats
from classroom.tasks import update_match_trends
from games.models import Match
from games.models import Move
from games.models import Seat
from games.multiplipotion import engine as mp

from .conftest import attempt_fields

pytestmark = pytest.mark.django_db

# Purple cards (potion, monster): p01 (6, 12), p02 (7, 14), p03 (8, 16), p04 (9, 18),
# p12 (5, 30), p27 (8, 56), p28 (9, 56).


def board(*, current=0, phase="capture_or_end", areas=((), ()), hands=None, challenge=False):
    """A purple-tier state with these areas (and hands); every other card on the pile."""
    state = mp.setup(2, 1, {"tier": "purple"})
    hands = hands or ((), ())
    used = {*areas[0], *areas[1], *hands[0], *hands[1]}
    state.update(
        current=current,
        phase=phase,
        areas=[list(areas[0]), list(areas[1])],
        hands=[list(hands[0]), list(hands[1])],
        pile=[c for c in mp.TIER_IDS["purple"] if c not in used],
        trophies=[[], []],
        challenge=challenge,
        captured=False,
    )
    return mp.dump(mp.load(mp.dump(state)))


def match_on_board(seats, state, **fields) -> Match:
    match = Match.create("multiplipotion", seats, options={"tier": "purple"}, seed=1, **fields)
    match.state = state
    match.save(update_fields=["state"])
    return Match.objects.get_with_seats(match.public_id)  # as the play view loads it


def child_seat(student):
    return {"kind": Seat.Kind.STUDENT, "name": student.name, "owner_key": student.seat_key}


def bot_seat(level="wizard"):
    return {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": level}


def guest_seat(key):
    return {"kind": Seat.Kind.GUEST, "name": key.title(), "owner_key": key}


CAPTURE_BOARD = {"areas": (["mp-p02", "mp-p27"], ["mp-p28", "mp-p12"])}  # 7 and 8 vs 56, 30
RIGHT = {"type": "capture", "potions": ["mp-p02", "mp-p27"], "monster": "mp-p28"}
WRONG = {"type": "capture", "potions": ["mp-p02", "mp-p27"], "monster": "mp-p12"}


class Evidence:
    """Writes attempts for children as if they had been played (one match and move each)."""

    def __init__(self, assignment=None):
        self.assignment = assignment
        self.matches = {}

    def _match(self, student):
        if student.pk not in self.matches:
            seats = [child_seat(student), bot_seat()]
            create = {"options": {"tier": "full"}, "seed": 3}
            if self.assignment is not None:
                match = self.assignment.new_match(seats, **create)
            else:
                match = Match.create("multiplipotion", seats, **create)
            move = Move.objects.create(match=match, ply=1, seat=0, action={}, events=[])
            self.matches[student.pk] = (match, move)
        return self.matches[student.pk]

    def add(self, student, a, b, answer, *, ms=2000, at=None, context=None):
        match, move = self._match(student)
        context = context or (Attempt.Context.MISSED if answer is None else "capture")
        return Attempt.objects.create(
            **attempt_fields(student, a, b, answer, ms=ms, match=match, move=move, context=context),
            created_at=at or datetime(2026, 3, 10, 9, 0, tzinfo=UTC),
        )


@pytest.fixture
def people(django_user_model):
    class People:
        pass

    p = People()
    p.teacher = django_user_model.objects.create_user("t-analytics", password="x-long-pass-1")
    p.school = School.objects.create(name="Kauri School", timezone="Pacific/Auckland")
    p.classroom = Classroom.objects.create(school=p.school, teacher=p.teacher, name="4K")
    p.other_class = Classroom.objects.create(school=p.school, teacher=p.teacher, name="4L")
    p.ada = Student.objects.create(classroom=p.classroom, name="Ada")
    p.ben = Student.objects.create(classroom=p.classroom, name="Ben")
    p.cat = Student.objects.create(classroom=p.other_class, name="Cat")
    return p


def stat_rows(model, **filters):
    fields = [f.name for f in model._meta.fields if f.name not in {"id", "updated_at"}]
    return sorted(
        model.objects.filter(**filters).values_list(*fields),
        key=lambda row: tuple(str(x) for x in row),
    )


# --- recording ----------------------------------------------------------------------------


def test_a_claim_becomes_an_attempt_with_the_move(people):
    match = match_on_board([child_seat(people.ada), bot_seat()], board(**CAPTURE_BOARD))
    wrong = match.play(0, WRONG, version=match.version).move
    right = match.play(0, RIGHT, version=match.version).move
    rows = list(Attempt.objects.order_by("pk"))
    assert [(r.a, r.b, r.answer, r.correct, r.kind, r.context) for r in rows] == [
        (7, 8, 30, False, diagnosis.TABLE_ERROR, "capture"),
        (7, 8, 56, True, diagnosis.CORRECT, "capture"),
    ]
    assert [r.move_id for r in rows] == [wrong.pk, right.pk]
    assert all(r.student_id == people.ada.pk and r.match_id == match.pk for r in rows)
    assert [r.response_ms for r in rows] == [wrong.think_ms, right.think_ms]
    assert [r.created_at for r in rows] == [wrong.created_at, right.created_at]
    assert not any(r.home for r in rows)


def test_a_missed_capture_is_recorded_without_an_answer_or_a_time(people):
    match = match_on_board([child_seat(people.ada), bot_seat()], board(**CAPTURE_BOARD))
    match.play(0, {"type": "end_turn"}, version=match.version, follow_ups=False)
    (row,) = Attempt.objects.all()
    assert (row.a, row.b, row.answer, row.correct) == (7, 8, None, False)
    assert (row.kind, row.context, row.response_ms) == (diagnosis.OMISSION, "missed", None)


def test_a_successful_challenge_is_evidence_for_the_challenger(people):
    # Ben (seat 1) left 7 × 8 = 56 on the board; Ada (seat 0) calls it out.
    state = board(
        current=0,
        phase="place",
        challenge=True,
        areas=(["mp-p28"], ["mp-p02", "mp-p27"]),
        hands=(["mp-p01"], []),
    )
    match = match_on_board([child_seat(people.ada), child_seat(people.ben)], state)
    action = {"type": "challenge", "potions": ["mp-p02", "mp-p27"], "monster": "mp-p28"}
    match.play(0, action, version=match.version)
    (row,) = Attempt.objects.all()
    assert row.student_id == people.ada.pk
    assert (row.a, row.b, row.answer, row.correct, row.context) == (7, 8, 56, True, "challenge")


def test_a_failed_move_records_nothing(people, monkeypatch):
    match = match_on_board([child_seat(people.ada), bot_seat()], board(**CAPTURE_BOARD))
    with pytest.raises(Exception, match="not your turn"):
        match.play(1, RIGHT, version=match.version)
    stale = match.version + 5
    with pytest.raises(Exception, match="moved on"):
        match.play(0, RIGHT, version=stale)
    assert not Attempt.objects.exists()

    # A failure after the attempts were written rolls them back with the move.
    def boom(self):
        raise RuntimeError("after the insert")

    monkeypatch.setattr(Match, "after_change", boom)
    with pytest.raises(RuntimeError):
        match.play(0, RIGHT, version=match.version)
    assert not Attempt.objects.exists()
    assert not Move.objects.filter(match=match).exists()


def test_a_repeated_move_id_records_once(people):
    match = match_on_board([child_seat(people.ada), bot_seat()], board(**CAPTURE_BOARD))
    match.play(0, WRONG, version=match.version, move_id="m-1")
    match.play(0, WRONG, version=0, move_id="m-1")
    assert Attempt.objects.count() == 1


def test_seats_that_are_not_children_record_nothing_and_cost_no_query(people):
    match = match_on_board([guest_seat("gus"), guest_seat("gil")], board(**CAPTURE_BOARD))
    with CaptureQueriesContext(connection) as queries:
        match.play(0, WRONG, version=match.version)
        match.play(0, RIGHT, version=match.version)
    assert not Attempt.objects.exists()
    touched = " ".join(q["sql"] for q in queries.captured_queries)
    assert "games_seat" not in touched and "classroom_attempt" not in touched


def test_a_whole_game_records_exactly_the_childs_fact_events(people):
    """A child (playing like a learner: some guesses) against the computer, to the end."""
    import random

    rng = random.Random(5)
    match = Match.create(
        "multiplipotion",
        [child_seat(people.ada), bot_seat("apprentice")],
        options={"tier": "full"},
        seed=11,
    )
    module = match.engine
    while not match.is_over:
        state = module.load(match.state)
        seat = module.to_act(state)[0]
        legal = module.legal_actions(state, seat)
        claims = [a for a in legal if a["type"] in {"capture", "challenge"}]
        if seat == 0 and claims and rng.random() < 0.3:
            action = rng.choice(claims)
        else:
            action = module.bot_action(module.view(state, seat), legal, "apprentice", rng)
        match.play(seat, action, version=match.version, follow_ups=False)
    expected = [
        (move.pk, e["a"], e["b"], e["answer"], e["correct"], e["context"])
        for move in match.moves.order_by("ply")
        for e in move.events
        if e["kind"] == "fact" and e["seat"] == 0
    ]
    got = list(
        Attempt.objects.filter(match=match)
        .order_by("move__ply", "pk")
        .values_list("move_id", "a", "b", "answer", "correct", "context")
    )
    assert expected and got == expected
    assert {e[5] for e in expected} >= {"capture"}
    bot_facts = [
        e for m in match.moves.all() for e in m.events if e["kind"] == "fact" and e["seat"] == 1
    ]
    assert bot_facts  # the computer claimed too, and none of that is the child's evidence
    assert Attempt.objects.filter(match=match).count() == len(expected)


# --- a child's statistics ----------------------------------------------------------------


def test_fact_stats_are_rebuilt_from_the_attempts(people):
    ev = Evidence()
    ada = people.ada
    ev.add(ada, 7, 8, 48, ms=4000)  # operand
    ev.add(ada, 7, 8, 15, ms=4000)  # operation
    ev.add(ada, 7, 8, 48, ms=4000)
    ev.add(ada, 7, 8, None)  # missed
    ev.add(ada, 7, 8, 56, ms=3000)
    ev.add(ada, 7, 8, 56, ms=5000)
    for _ in range(6):
        ev.add(ada, 8, 7, 56, ms=1500)  # the twin, asked the other way round: mastered
    assert FactStat.objects.rebuild_for([ada.pk]) == 2

    seven_eight = FactStat.objects.get(student=ada, a=7, b=8)
    assert (seven_eight.attempts, seven_eight.correct, seven_eight.omissions) == (6, 2, 1)
    assert seven_eight.median_ms == 4000  # its own order's latest ten
    assert seven_eight.errors == {
        **dict.fromkeys(diagnosis.ERROR_KINDS, 0),
        "operand": 2,
        "operation": 1,
        "omission": 1,
    }
    assert seven_eight.wrong_answers == {"48": 2, "15": 1}
    assert seven_eight.last_attempt_at == datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
    eight_seven = FactStat.objects.get(student=ada, a=8, b=7)
    assert (eight_seven.median_ms, eight_seven.wrong_answers) == (1500, {})
    # The state pools both orders: the latest ten of the twelve (the same instant: the order
    # written) are the last four of 7 × 8 and the six of 8 × 7, 8 right, one day: fluent.
    for stat in (seven_eight, eight_seven):
        pooled = (stat.recent_attempts, stat.recent_correct, stat.recent_days)
        assert (stat.state, *pooled) == (diagnosis.FLUENT, 10, 8, 1)
        assert (stat.speed_ms, stat.speed_from_game) == (1500, True)  # capture times only


def test_the_state_counts_the_latest_ten_attempts_in_time_order(people):
    ev = Evidence()
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    # Written newest first: the order of the rows must not matter, only created_at.
    for i in reversed(range(12)):
        at = start + timedelta(hours=3 * i)  # over two days: mastery needs two
        ev.add(people.ada, 6, 7, 42 if i >= 2 else 41, ms=1000, at=at)
    FactStat.objects.rebuild_for([people.ada.pk])
    stat = FactStat.objects.get(student=people.ada, a=6, b=7)
    assert (stat.attempts, stat.correct) == (12, 10)  # all-time counts
    assert stat.state == diagnosis.MASTERED  # the two old slips fell out of the latest ten
    assert stat.last_attempt_at == start + timedelta(hours=33)


def test_accuracy_first_sessions_never_score_speed(people):
    slow_session = Assignment.objects.create(
        classroom=people.classroom, title="Calm", opens_at=timezone.now(), accuracy_first=True
    )
    for student, ev in ((people.ada, Evidence(slow_session)), (people.ben, Evidence())):
        for day in range(6):
            ev.add(student, 9, 6, 54, ms=9000, at=datetime(2026, 3, 2 + day, 9, tzinfo=UTC))
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk])
    ada, ben = (FactStat.objects.get(student=s, a=9, b=6) for s in (people.ada, people.ben))
    assert ada.state == diagnosis.MASTERED and ada.median_ms == 9000  # recorded, not scored
    assert ada.speed_ms is None  # no time decided the state
    assert ben.state == diagnosis.LEARNING  # too slow for fluent when speed counts


def test_rebuilding_is_idempotent_and_forgets_deleted_evidence(people):
    ev = Evidence()
    for a, b, answer in ((3, 4, 12), (3, 4, 7), (4, 3, 12), (9, 9, None)):
        ev.add(people.ada, a, b, answer)
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk])
    first = stat_rows(FactStat)
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk])
    assert stat_rows(FactStat) == first and len(first) == 3
    Attempt.objects.filter(a=9).delete()
    FactStat.objects.rebuild_for([people.ada.pk])
    assert not FactStat.objects.filter(a=9).exists()


def test_a_rebuild_touches_only_the_children_asked_for(people):
    ev = Evidence()
    ev.add(people.ada, 2, 3, 6)
    ev.add(people.ben, 2, 3, 5)
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk])
    Attempt.objects.filter(student=people.ben).delete()
    FactStat.objects.rebuild_for([people.ada.pk])
    assert FactStat.objects.filter(student=people.ben).count() == 1


# --- class roll-ups and trends -------------------------------------------------------------


def test_class_rollup_puts_a_fact_and_its_twin_together(people):
    ev = Evidence()
    for answer in (48, 56, None, 48):
        ev.add(people.ada, 7, 8, answer, ms=3000)  # learning
    for _ in range(6):
        ev.add(people.ben, 8, 7, 56, ms=2000)  # mastered
    ev.add(people.ben, 8, 7, 63, ms=2000)
    ev.add(people.cat, 7, 8, 54)  # another class
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk, people.cat.pk])  # first
    assert ClassFactStat.objects.rebuild_for([people.classroom.pk, people.other_class.pk]) == 2
    row = ClassFactStat.objects.get(classroom=people.classroom)
    assert (row.a, row.b) == (7, 8)
    assert (row.attempts, row.correct, row.omissions) == (11, 7, 1)
    assert (row.children, row.struggling) == (2, 1)
    assert row.wrong_answers == {"48": 2, "63": 1}
    # The median of the children's median times: Ada's 7 × 8 (3 s) and Ben's 8 × 7 (2 s).
    assert row.median_ms == 2500
    other = ClassFactStat.objects.get(classroom=people.other_class)
    assert (other.attempts, other.children, other.struggling) == (1, 1, 1)
    first = stat_rows(ClassFactStat)
    ClassFactStat.objects.rebuild_for([people.classroom.pk, people.other_class.pk])
    assert stat_rows(ClassFactStat) == first


TREND = ("scope", "scope_id", "day", "attempts", "correct")


def test_daily_trends_use_the_schools_midnight(people):
    ev = Evidence()
    # Auckland is UTC+13 in March: 10:30 UTC is 23:30 on the 10th, 11:30 UTC is 00:30 on the 11th.
    ev.add(people.ada, 3, 3, 9, ms=1000, at=datetime(2026, 3, 10, 10, 30, tzinfo=UTC))
    ev.add(people.ada, 3, 3, 9, ms=3000, at=datetime(2026, 3, 10, 10, 45, tzinfo=UTC))
    ev.add(people.ada, 3, 3, 6, ms=500, at=datetime(2026, 3, 10, 10, 50, tzinfo=UTC))
    ev.add(people.ben, 3, 4, 12, ms=2000, at=datetime(2026, 3, 10, 11, 30, tzinfo=UTC))
    ev.add(people.cat, 3, 4, None, at=datetime(2026, 3, 10, 11, 40, tzinfo=UTC))
    FactStat.objects.apply_pending([people.ada.pk, people.ben.pk, people.cat.pk])  # counted
    rows = set(DailyTrend.objects.values_list(*TREND))
    d10, d11 = date(2026, 3, 10), date(2026, 3, 11)
    assert rows == {
        ("student", people.ada.pk, d10, 3, 2),
        ("student", people.ben.pk, d11, 1, 1),
        ("student", people.cat.pk, d11, 1, 0),
        ("classroom", people.classroom.pk, d10, 3, 2),
        ("classroom", people.classroom.pk, d11, 1, 1),
        ("classroom", people.other_class.pk, d11, 1, 0),
        ("school", people.school.pk, d10, 3, 2),
        ("school", people.school.pk, d11, 2, 1),
    }
    DailyTrend.objects.rebuild_for_school(people.school)  # the same from the attempts
    assert set(DailyTrend.objects.values_list(*TREND)) == rows
    # One day only: the other day's rows stay, this day's are rebuilt (not added to).
    DailyTrend.objects.rebuild_for_school(people.school, d11, d11)
    DailyTrend.objects.rebuild_for_school(people.school, d11, d11)
    assert set(DailyTrend.objects.values_list(*TREND)) == rows


def test_nightly_rollups_count_pending_attempts_and_rebuild_yesterday_and_today_only(people):
    ev = Evidence()
    now = timezone.now()
    today = people.school.local_today(now)
    ev.add(people.ada, 5, 5, 25, at=now - timedelta(minutes=5))
    ev.add(people.ada, 5, 5, 20, at=now - timedelta(days=9))
    old = DailyTrend.objects.create(
        scope="student", scope_id=people.ada.pk, day=today - timedelta(days=9), attempts=99
    )
    nightly_rollups.apply()
    # An abandoned match's attempts (no task at its end) are counted: added to that day's
    # row; older days are not rebuilt (the 99 stays, plus the one attempt).
    assert DailyTrend.objects.get(pk=old.pk).attempts == 100
    assert DailyTrend.objects.get(scope="student", scope_id=people.ada.pk, day=today).attempts == 1
    assert ClassFactStat.objects.get(classroom=people.classroom, a=5, b=5).attempts == 2
    assert FactStat.objects.get(student=people.ada, a=5, b=5).attempts == 2
    nightly_rollups.apply()  # twice: nothing more
    assert DailyTrend.objects.get(pk=old.pk).attempts == 100
    assert FactStat.objects.get(student=people.ada, a=5, b=5).attempts == 2


def test_a_sweep_rebuilds_the_statistics_of_games_whose_task_was_lost(people):
    """The broker was down when Ada's and Ben's games ended: no update_match_stats ran. The
    minute sweep finds those games (and not one whose statistics are fresh, nor one still
    being played) and rebuilds them once."""
    now = timezone.now()
    lost, fresh = Evidence(), Evidence()
    lost.add(people.ada, 6, 7, 42, at=now - timedelta(minutes=20))
    fresh.add(people.ben, 6, 7, 41, at=now - timedelta(minutes=20))
    playing = Evidence()
    playing.add(people.cat, 3, 3, 9, at=now - timedelta(minutes=20))
    for ev in (lost, fresh):
        match = next(iter(ev.matches.values()))[0]
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.FINISHED, finished_at=now - timedelta(minutes=10)
        )
    FactStat.objects.update_for_match(next(iter(fresh.matches.values()))[0].pk)  # Ben's ran
    ada_match = next(iter(lost.matches.values()))[0]
    assert FactStat.objects.matches_missing_stats(now) == [ada_match.pk]
    sweep_missed_stats.apply()
    assert FactStat.objects.get(student=people.ada, a=6, b=7).attempts == 1
    assert ClassFactStat.objects.get(classroom=people.classroom, a=6, b=7).attempts == 2
    assert FactStat.objects.matches_missing_stats() == []  # nothing left: idempotent
    assert not FactStat.objects.filter(student=people.cat).exists()


# --- tasks, jobs and the command -------------------------------------------------------------


def test_a_finished_match_with_a_child_enqueues_its_update(
    people, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("games.queue.enqueue", lambda task, *args: sent.append((task, args)))
    state = board(areas=(["mp-p02", "mp-p27"], ["mp-p28", "mp-p12"]))
    state["trophies"] = [["mp-p04", "mp-p05", "mp-p01", "mp-p03"], []]
    state["pile"] = [c for c in state["pile"] if c not in state["trophies"][0]]
    match = match_on_board([child_seat(people.ada), bot_seat()], state)
    with django_capture_on_commit_callbacks(execute=True):
        match.play(0, RIGHT, version=match.version)  # the fifth trophy
    assert match.status == Match.Status.FINISHED
    assert sent == [(update_match_stats, (match.pk,))]
    update_match_stats.apply(args=[match.pk])
    update_match_stats.apply(args=[match.pk])  # redelivered: the same numbers
    # The trends are counted by the same task; the old trends task (a message enqueued
    # before the incremental statistics) finds nothing left to count.
    assert sent[1:] == []
    update_match_trends.apply(args=[match.pk])
    assert not Attempt.objects.filter(match=match, stats_applied=False).exists()
    stat = FactStat.objects.get(student=people.ada)
    assert (stat.a, stat.b, stat.attempts, stat.correct) == (7, 8, 1, 1)
    assert ClassFactStat.objects.get(classroom=people.classroom).attempts == 1
    today = people.school.local_today()
    assert (
        DailyTrend.objects.get(scope="school", scope_id=people.school.pk, day=today).attempts == 1
    )


def test_a_finished_match_without_children_enqueues_no_update(
    people, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("games.queue.enqueue", lambda task, *args: sent.append(task.name))
    state = board(areas=(["mp-p02", "mp-p27"], ["mp-p28", "mp-p12"]))
    state["trophies"] = [["mp-p04", "mp-p05", "mp-p01", "mp-p03"], []]
    state["pile"] = [c for c in state["pile"] if c not in state["trophies"][0]]
    match = match_on_board([guest_seat("gus"), bot_seat()], state)
    with django_capture_on_commit_callbacks(execute=True):
        match.play(0, RIGHT, version=match.version)
    assert match.status == Match.Status.FINISHED
    assert "classroom.tasks.update_match_stats" not in sent


def test_recompute_job_rebuilds_its_class_with_progress(people):
    ev = Evidence()
    ev.add(people.ada, 4, 6, 24)
    ev.add(people.cat, 4, 6, 20)
    job = RecomputeJob.objects.create(classroom=people.classroom, requested_by=people.teacher)
    recompute_job.apply(args=[job.pk])
    job.refresh_from_db()
    assert (job.status, job.total, job.done) == ("done", 2, 2)
    assert job.finished_at is not None
    assert FactStat.objects.filter(student=people.ada).count() == 1
    assert not FactStat.objects.filter(student=people.cat).exists()  # another class
    assert ClassFactStat.objects.filter(classroom=people.classroom).count() == 1
    # Redelivered after it finished: nothing happens.
    Attempt.objects.all().delete()
    recompute_job.apply(args=[job.pk])
    assert FactStat.objects.filter(student=people.ada).count() == 1


def test_a_running_job_continues_after_the_children_it_counted(people):
    ev = Evidence()
    ev.add(people.ada, 4, 6, 24)
    ev.add(people.ben, 4, 6, 24)
    first, second = sorted([people.ada, people.ben], key=lambda s: s.pk)
    job = RecomputeJob.objects.create(classroom=people.classroom, status="running", total=2, done=1)
    recompute_job.apply(args=[job.pk])
    job.refresh_from_db()
    assert (job.status, job.done) == ("done", 2)
    assert FactStat.objects.filter(student=second).exists()
    assert not FactStat.objects.filter(student=first).exists()  # counted as done before


def test_a_job_that_fails_says_so(people, monkeypatch):
    Evidence().add(people.ada, 4, 6, 24)

    def broken(self, ids, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(type(FactStat.objects.all()), "rebuild_for", broken)
    job = RecomputeJob.objects.create()
    with pytest.raises(RuntimeError):
        job.run()
    job.refresh_from_db()
    assert job.status == "failed" and job.finished_at is not None


def test_recompute_command_rebuilds_everything_with_progress(people):
    ev = Evidence()
    ev.add(people.ada, 6, 6, 36)
    ev.add(people.cat, 6, 6, 12)
    out = io.StringIO()
    call_command("recompute", stdout=out)
    assert "Recomputing: 3/3 children" in out.getvalue()
    assert FactStat.objects.count() == 2
    assert ClassFactStat.objects.count() == 2
    assert DailyTrend.objects.filter(scope="school").count() == 1
    out = io.StringIO()
    call_command("recompute", "--classroom", str(people.other_class.pk), stdout=out)
    assert "1/1 children" in out.getvalue() and "4L" in out.getvalue()
    with pytest.raises(CommandError, match="no class"):
        call_command("recompute", "--classroom", "999999")


# --- the Coach ---------------------------------------------------------------------------------

# The coach (seat 1) must place a card. The child (seat 0) shows potions 7 and 8, so a
# monster 56 could be captured by the child: a plain wizard avoids giving it; a coach whose
# child must practise 7 × 8 puts it in front of them.
COACH_BOARD = {
    "current": 1,
    "phase": "place",
    "areas": (["mp-p02", "mp-p03"], ["mp-p05"]),
    "hands": ([], ["mp-p28", "mp-p01", "mp-p04"]),
}


def learning(student, a, b):
    return FactStat.objects.create(
        student=student, a=a, b=b, attempts=5, correct=1, state=diagnosis.LEARNING
    )


def test_bot_focus_is_the_focus_facts_of_the_child_opposite(people):
    learning(people.ada, 7, 8)
    FactStat.objects.create(student=people.ada, a=2, b=2, attempts=9, correct=9, state="mastered")
    learning(people.ben, 3, 3)
    match = Match.create(
        "multiplipotion", [child_seat(people.ada), bot_seat("coach")], options={"tier": "full"}
    )
    coach = match.seats.get(number=1)
    assert coach.bot_focus() == [(7, 8)]
    assert match.seats.get(number=0).bot_focus() is None  # a child's seat
    wizard = Match.create(
        "multiplipotion", [child_seat(people.ada), bot_seat("wizard")], options={"tier": "full"}
    )
    assert wizard.seats.get(number=1).bot_focus() is None  # only the Coach level
    guests = Match.create(
        "multiplipotion", [guest_seat("gus"), bot_seat("coach")], options={"tier": "full"}
    )
    assert guests.seats.get(number=1).bot_focus() is None  # nobody's facts to practise


def test_the_coach_engine_level_uses_focus():
    import random

    state = mp.load(board(**COACH_BOARD))
    view, legal = mp.view(state, 1), mp.legal_actions(state, 1)
    for seed in range(5):
        coach = mp.bot_action(view, legal, "coach", random.Random(seed), [(7, 8)])
        assert mp.MONSTER[coach["card"]] == 56
        plain = mp.bot_action(view, legal, "coach", random.Random(seed), None)
        assert mp.MONSTER[plain["card"]] != 56
        wizard = mp.bot_action(view, legal, "wizard", random.Random(seed), [(7, 8)])
        assert mp.MONSTER[wizard["card"]] != 56  # focus is the Coach's alone


def test_a_coach_puts_the_childs_focus_fact_in_front_of_them(people):
    learning(people.ada, 7, 8)
    match = match_on_board([child_seat(people.ada), bot_seat("coach")], board(**COACH_BOARD))
    Match.objects.get(pk=match.pk).play_bot_turns()
    placed = Move.objects.get(match=match, ply=1)
    assert placed.seat == 1 and mp.MONSTER[placed.action["card"]] == 56
