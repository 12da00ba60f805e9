"""The analytics pipeline: attempts written with the move, the knowledge model's rows
(``FactStat``) folded from them, daily trends, the tasks run in-process, the repairs after a
child moves or is deleted, the recompute command and the Coach. (A real worker process:
test_analytics_pipeline_worker.py; the live update against a replay:
test_knowledge_store.py.)"""

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

from classroom import error_kinds
from classroom import knowledge
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
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
AT = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)  # the attempts' default time


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
# Ada (seat 0) calls out the 7 × 8 = 56 that Ben (seat 1) left on the board.
CHALLENGE_BOARD = {
    "current": 0,
    "phase": "place",
    "challenge": True,
    "areas": (["mp-p28"], ["mp-p02", "mp-p27"]),
    "hands": (["mp-p01"], []),
}
CHALLENGE = {"type": "challenge", "potions": ["mp-p02", "mp-p27"], "monster": "mp-p28"}


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
            created_at=at or AT,
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


@pytest.fixture
def tasks_run_at_commit(monkeypatch, django_capture_on_commit_callbacks):
    """What a worker does with the tasks the models enqueue on commit, in this process."""
    monkeypatch.setattr("games.queue.enqueue", lambda task, *args, **kw: task(*args))
    return django_capture_on_commit_callbacks


def stat_rows(model, **filters):
    fields = [f.name for f in model._meta.fields if f.name not in {"id", "updated_at"}]
    return sorted(
        model.objects.filter(**filters).values_list(*fields),
        key=lambda row: tuple(str(x) for x in row),
    )


def squares_of(student, now):
    """The child's 64 squares as the reports show them at ``now``."""
    return knowledge.squares(FactStat.objects.filter(student=student).orders(), now)


# --- recording ----------------------------------------------------------------------------


def test_a_claim_becomes_an_attempt_with_the_move(people):
    match = match_on_board([child_seat(people.ada), bot_seat()], board(**CAPTURE_BOARD))
    wrong = match.play(0, WRONG, version=match.version).move
    right = match.play(0, RIGHT, version=match.version).move
    rows = list(Attempt.objects.order_by("pk"))
    assert [(r.a, r.b, r.answer, r.correct, r.context) for r in rows] == [
        (7, 8, 30, False, "capture"),
        (7, 8, 56, True, "capture"),
    ]
    # A claim carries the monsters the child could tap (the board), which its kind is
    # weighed against.
    assert [r.options for r in rows] == [[30, 56], [30, 56]]
    assert rows[0].kind == error_kinds.classify(7, 8, 30, context="capture", options=[30, 56])
    assert rows[1].kind == error_kinds.CORRECT
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
    assert (row.kind, row.context, row.response_ms) == (error_kinds.OMISSION, "missed", None)
    assert row.options is None


def test_a_successful_challenge_is_evidence_for_the_challenger(people):
    # Ben (seat 1) left 7 × 8 = 56 on the board; Ada (seat 0) calls it out.
    match = match_on_board(
        [child_seat(people.ada), child_seat(people.ben)], board(**CHALLENGE_BOARD)
    )
    match.play(0, CHALLENGE, version=match.version)
    (row,) = Attempt.objects.all()
    assert row.student_id == people.ada.pk
    assert (row.a, row.b, row.answer, row.correct, row.context) == (7, 8, 56, True, "challenge")
    assert row.options == [56]  # the challenger's own monsters


def test_a_tap_after_being_caught_is_stored_as_forced_and_is_no_evidence(people):
    """Caught by Ada's challenge, Ben must capture: his tap is stored (context "forced") and
    counted apart, never as evidence of the pair tapped, nor in the day's trend."""
    match = match_on_board(
        [child_seat(people.ada), child_seat(people.ben)], board(**CHALLENGE_BOARD)
    )
    match.play(0, CHALLENGE, version=match.version)
    match.play(1, RIGHT, version=match.version)  # the same pair, now Ben's to tap
    rows = list(Attempt.objects.order_by("pk").values_list("student_id", "context", "correct"))
    assert rows == [(people.ada.pk, "challenge", True), (people.ben.pk, "forced", True)]
    assert FactStat.objects.apply_pending([people.ada.pk, people.ben.pk]) == 2
    ben = FactStat.objects.get(student=people.ben, a=7, b=8)
    assert (ben.attempts, ben.correct, ben.forced) == (0, 0, 1)
    assert ben.order.evidence == 0
    assert not squares_of(people.ben, timezone.now())[(7, 8)].answered
    ada = FactStat.objects.get(student=people.ada, a=7, b=8)
    assert (ada.attempts, ada.correct, ada.forced) == (1, 1, 0) and ada.order.evidence == 1
    trend = DailyTrend.objects.filter(scope="student")
    assert list(trend.values_list("scope_id", "attempts")) == [(people.ada.pk, 1)]
    assert sum(DailyTrend.objects.filter(scope="school").values_list("attempts", flat=True)) == 1
    # The same in a rebuild.
    first = stat_rows(FactStat)
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk])
    assert stat_rows(FactStat) == first


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
        ev.add(ada, 8, 7, 56, ms=1500)  # the twin, asked the other way round: always right
    assert FactStat.objects.rebuild_for([ada.pk]) == 2

    seven_eight = FactStat.objects.get(student=ada, a=7, b=8)
    counts = (seven_eight.attempts, seven_eight.correct, seven_eight.omissions)
    assert counts == (6, 2, 1) and seven_eight.forced == 0
    assert seven_eight.wrong_answers == {"48": 2, "15": 1}
    assert seven_eight.median_ms == 4000  # its own right answers' times: 3 s and 5 s
    assert seven_eight.last_attempt_at == AT
    eight_seven = FactStat.objects.get(student=ada, a=8, b=7)
    assert (eight_seven.median_ms, eight_seven.wrong_answers) == (1500, {})
    # Each order is a fact of its own: 8 × 7 is known, 7 × 8 (four of six wrong or missed)
    # is not, and its square counts its own latest five answers.
    assert eight_seven.p_known > seven_eight.p_known
    squares = squares_of(ada, AT + timedelta(hours=1))
    assert squares[(8, 7)].state == knowledge.KNOWN
    assert squares[(8, 7)].speed_from_game  # capture times only: never "slowly"
    assert squares[(7, 8)].state in (knowledge.NOT_YET, knowledge.UNSURE)
    assert (squares[(7, 8)].right, squares[(7, 8)].latest) == (2, 5)

    # The live update writes the same rows as the rebuild.
    rebuilt = stat_rows(FactStat)
    FactStat.objects.all().delete()
    Attempt.objects.update(stats_applied=False)
    assert FactStat.objects.apply_pending([ada.pk]) == 12
    assert stat_rows(FactStat) == rebuilt


def test_the_model_reads_the_attempts_in_time_order_not_the_rows_order(people):
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    when = [start + timedelta(hours=3 * i) for i in range(12)]  # over two days
    answers = [41, 41] + [42] * 10  # two old slips, then right ten times
    # Ada's written newest first, Ben's oldest first: only created_at counts.
    ev = Evidence()
    for at, answer in reversed(list(zip(when, answers, strict=True))):
        ev.add(people.ada, 6, 7, answer, ms=1000, at=at)
    for at, answer in zip(when, answers, strict=True):
        ev.add(people.ben, 6, 7, answer, ms=1000, at=at)
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk])
    ada, ben = (FactStat.objects.get(student=s, a=6, b=7) for s in (people.ada, people.ben))
    assert (ada.attempts, ada.correct) == (12, 10)  # all-time counts
    assert ada.model == ben.model and ada.p_known == ben.p_known
    assert ada.last_attempt_at == when[-1]
    square = squares_of(people.ada, when[-1] + timedelta(hours=1))[(6, 7)]
    assert square.state == knowledge.KNOWN
    assert (square.right, square.latest) == (5, 5)  # the two old slips fell out of the latest


def test_accuracy_first_answers_never_make_a_fact_slow(people):
    """Nine seconds an answer, every day of a week: "knows it, slowly" when the speed is
    scored (challenges in a plain game); plain "knows it" in an accuracy-first session and
    in an untimed warm-up round, whose times are recorded but never scored."""
    slow_session = Assignment.objects.create(
        classroom=people.classroom, title="Calm", opens_at=timezone.now(), accuracy_first=True
    )
    days = [datetime(2026, 3, 2 + day, 9, tzinfo=UTC) for day in range(6)]
    for student, ev in ((people.ada, Evidence(slow_session)), (people.ben, Evidence())):
        for at in days:
            ev.add(student, 9, 6, 54, ms=9000, at=at, context="challenge")
    untimed = WarmUp.objects.create(student=people.cat, started_at=days[0], timed=False)
    Attempt.objects.bulk_create(
        Attempt(
            **attempt_fields(
                people.cat, 9, 6, 54, ms=9000, context="warm-up", warm_up=untimed, question=i
            ),
            created_at=at,
        )
        for i, at in enumerate(days)
    )
    FactStat.objects.rebuild_for([people.ada.pk, people.ben.pk, people.cat.pk])
    later = days[-1] + timedelta(hours=1)
    shown = {
        s.name: squares_of(s, later)[(9, 6)].state for s in (people.ada, people.ben, people.cat)
    }
    assert shown == {"Ada": knowledge.KNOWN, "Ben": knowledge.SLOW, "Cat": knowledge.KNOWN}
    assert FactStat.objects.get(student=people.ada, a=9, b=6).median_ms == 9000  # recorded


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


# --- trends, the sweep and the nightly run ---------------------------------------------------

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
    ev.add(people.ada, 5, 5, 20, at=now - timedelta(days=9))
    ev.add(people.ada, 5, 5, 25, at=now - timedelta(minutes=5))
    old = DailyTrend.objects.create(
        scope="student", scope_id=people.ada.pk, day=today - timedelta(days=9), attempts=99
    )
    nightly_rollups.apply()
    # An abandoned match's attempts (no task at its end) are counted: added to that day's
    # row; older days are not rebuilt (the 99 stays, plus the one attempt).
    assert DailyTrend.objects.get(pk=old.pk).attempts == 100
    assert DailyTrend.objects.get(scope="student", scope_id=people.ada.pk, day=today).attempts == 1
    assert DailyTrend.objects.get(scope="classroom", day=today).attempts == 1
    assert FactStat.objects.get(student=people.ada, a=5, b=5).attempts == 2
    nightly_rollups.apply()  # twice: nothing more
    assert DailyTrend.objects.get(pk=old.pk).attempts == 100
    assert FactStat.objects.get(student=people.ada, a=5, b=5).attempts == 2


def test_the_sweep_counts_games_still_going_and_games_whose_task_was_lost(people):
    """The broker was down when Ada's game ended: no update_match_stats ran. Cat's game is
    still going. The minute's sweep counts the attempts made more than a few seconds ago
    (Ada's, and Cat's so far: a game reaches the reports within a minute, not at its end),
    and leaves Ben's, made this instant in another game (its move may still be committing),
    to the next sweep."""
    now = timezone.now()
    lost, fresh, playing = Evidence(), Evidence(), Evidence()
    lost.add(people.ada, 6, 7, 42, at=now - timedelta(minutes=20))
    fresh.add(people.ben, 6, 7, 41, at=now - timedelta(minutes=20))
    playing.add(people.cat, 3, 3, 9, at=now - timedelta(minutes=2))
    playing.add(people.cat, 3, 3, 9, at=now - timedelta(minutes=1))
    for ev in (lost, fresh):
        match = next(iter(ev.matches.values()))[0]
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.FINISHED, finished_at=now - timedelta(minutes=10)
        )
    FactStat.objects.update_for_match(next(iter(fresh.matches.values()))[0].pk)  # Ben's ran
    just_now = Evidence().add(people.ben, 4, 4, 16, at=now)
    ada_match = next(iter(lost.matches.values()))[0]
    assert FactStat.objects.matches_missing_stats(now) == [ada_match.pk]
    sweep_missed_stats.apply()
    assert FactStat.objects.get(student=people.ada, a=6, b=7).attempts == 1
    assert FactStat.objects.get(student=people.cat, a=3, b=3).attempts == 2
    assert list(Attempt.objects.filter(stats_applied=False)) == [just_now]
    assert FactStat.objects.matches_missing_stats() == []  # nothing left: idempotent
    assert sum(DailyTrend.objects.filter(scope="school").values_list("attempts", flat=True)) == 4
    counted = stat_rows(FactStat), stat_rows(DailyTrend)
    sweep_missed_stats.apply()  # again at once: nothing new
    assert (stat_rows(FactStat), stat_rows(DailyTrend)) == counted
    # By the next minute's sweep its move has long committed: counted then, once.
    Attempt.objects.filter(pk=just_now.pk).update(created_at=now - timedelta(seconds=6))
    sweep_missed_stats.apply()
    sweep_missed_stats.apply()
    assert FactStat.objects.get(student=people.ben, a=4, b=4).attempts == 1
    assert not Attempt.objects.filter(stats_applied=False).exists()


# --- repairs: a child moved or deleted -------------------------------------------------------


def test_a_hard_delete_replays_the_classmates_who_played_the_child(people, tasks_run_at_commit):
    """Ada and Ben played each other: the game goes with Ben, so Ada's answer in it leaves
    her statistics and her class's and school's trends (the task replays her)."""
    match = match_on_board(
        [child_seat(people.ada), child_seat(people.ben)], board(**CHALLENGE_BOARD)
    )
    match.play(0, CHALLENGE, version=match.version, follow_ups=False)
    Evidence().add(people.ada, 3, 4, 12, at=timezone.now() - timedelta(minutes=1))
    FactStat.objects.apply_pending([people.ada.pk, people.ben.pk])
    assert FactStat.objects.filter(student=people.ada).count() == 2
    with tasks_run_at_commit(execute=True):
        people.ben.delete_everything()
    assert not Match.objects.filter(pk=match.pk).exists()
    ada_rows = FactStat.objects.filter(student=people.ada).values_list("a", "b", "attempts")
    assert list(ada_rows) == [(3, 4, 1)]
    for scope in ("student", "classroom", "school"):
        rows = DailyTrend.objects.filter(scope=scope)
        assert sum(rows.values_list("attempts", flat=True)) == 1, scope
    live = stat_rows(FactStat), stat_rows(DailyTrend)
    FactStat.objects.all().delete()
    DailyTrend.objects.all().delete()
    RecomputeJob.objects.create().run()
    assert (stat_rows(FactStat), stat_rows(DailyTrend)) == live


def test_a_move_to_a_school_in_another_time_zone_replays_the_child(people, tasks_run_at_commit):
    """11:30 UTC on 10 March is past midnight in Auckland (the 11th) and the morning of the
    10th in Los Angeles: moved there, the child's days, and both schools' rows, follow."""
    far = School.objects.create(name="Oak", timezone="America/Los_Angeles")
    room = Classroom.objects.create(school=far, teacher=people.teacher, name="5O")
    Evidence().add(people.ada, 3, 3, 9, at=datetime(2026, 3, 10, 11, 30, tzinfo=UTC))
    FactStat.objects.apply_pending([people.ada.pk])
    d10, d11 = date(2026, 3, 10), date(2026, 3, 11)
    assert set(DailyTrend.objects.values_list(*TREND)) == {
        ("student", people.ada.pk, d11, 1, 1),
        ("classroom", people.classroom.pk, d11, 1, 1),
        ("school", people.school.pk, d11, 1, 1),
    }
    with tasks_run_at_commit(execute=True):
        people.ada.move_to(room)
    assert set(DailyTrend.objects.values_list(*TREND)) == {
        ("student", people.ada.pk, d10, 1, 1),
        ("classroom", room.pk, d10, 1, 1),
        ("school", far.pk, d10, 1, 1),
    }
    assert FactStat.objects.get(student=people.ada).attempts == 1


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
    once = stat_rows(FactStat), stat_rows(DailyTrend)
    update_match_stats.apply(args=[match.pk])  # redelivered: the same numbers
    # The trends are counted by the same task; the old trends task (a message enqueued
    # before the incremental statistics) finds nothing left to count.
    assert sent[1:] == []
    update_match_trends.apply(args=[match.pk])
    assert (stat_rows(FactStat), stat_rows(DailyTrend)) == once
    assert not Attempt.objects.filter(match=match, stats_applied=False).exists()
    stat = FactStat.objects.get(student=people.ada)
    assert (stat.a, stat.b, stat.attempts, stat.correct) == (7, 8, 1, 1)
    today = people.school.local_today()
    for scope, scope_id in (("classroom", people.classroom.pk), ("school", people.school.pk)):
        assert DailyTrend.objects.get(scope=scope, scope_id=scope_id, day=today).attempts == 1


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
    assert DailyTrend.objects.filter(scope="classroom", scope_id=people.classroom.pk).exists()
    # Redelivered after it finished: nothing happens.
    Attempt.objects.all().delete()
    recompute_job.apply(args=[job.pk])
    assert FactStat.objects.filter(student=people.ada).count() == 1


def test_a_jobs_progress_never_goes_backwards_and_ends_at_its_total(people):
    for student in (people.ada, people.ben, people.cat):
        Evidence().add(student, 4, 6, 24)
    seen = []
    job = RecomputeJob.objects.create()
    job.run(progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)
    assert [done for done, _total in seen] == sorted(done for done, _total in seen)
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("done", 3, 3)


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
    assert DailyTrend.objects.filter(scope="classroom").count() == 2  # each class's day
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


def answered(student, a, b, answer, times):
    """``times`` claims of a × b = ``answer`` in the last hour, counted."""
    ev = Evidence()
    for i in range(times):
        ev.add(student, a, b, answer, at=timezone.now() - timedelta(minutes=50 - i))
    FactStat.objects.apply_pending([student.pk])


def test_bot_focus_is_the_focus_facts_of_the_child_opposite(people):
    answered(people.ada, 7, 8, 54, 3)  # wrong three times: not yet
    answered(people.ada, 2, 2, 4, 9)  # known
    answered(people.ben, 3, 3, 6, 3)
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
    answered(people.ada, 7, 8, 54, 3)
    match = match_on_board([child_seat(people.ada), bot_seat("coach")], board(**COACH_BOARD))
    Match.objects.get(pk=match.pk).play_bot_turns()
    placed = Move.objects.get(match=match, ply=1)
    assert placed.seat == 1 and mp.MONSTER[placed.action["card"]] == 56
