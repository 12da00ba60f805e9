"""The potion warm-up's rounds (classroom.models.warmup), the Coach's choice of facts
(classroom.warmup_plan) and the statistics pipeline for warm-up attempts."""

from datetime import UTC
from datetime import datetime
from datetime import timedelta
from itertools import pairwise

import pytest
from django.core import signing

from classroom import error_kinds
from classroom import knowledge
from classroom import warmup_plan
from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import DailyTrend
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from classroom.models.warmup import GRACE_SECONDS
from classroom.models.warmup import PAUSED_LIMIT
from classroom.models.warmup import SALT
from classroom.models.warmup import WarmUpRefused
from classroom.models.warmup import plan_for
from classroom.tasks import sweep_missed_stats
from classroom.tasks import update_warm_up_stats
from classroom.views.warmup import REFUSED_STATUS
from games.models import Seat

from .conftest import attempt_fields

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


@pytest.fixture
def people(django_user_model):
    class People:
        pass

    p = People()
    p.teacher = django_user_model.objects.create_user("t-warmup", password="x-long-pass-1")
    p.school = School.objects.create(name="Kauri School", timezone="Pacific/Auckland")
    p.classroom = Classroom.objects.create(school=p.school, teacher=p.teacher, name="4K")
    p.ada = Student.objects.create(classroom=p.classroom, name="Ada")
    p.ben = Student.objects.create(classroom=p.classroom, name="Ben")
    p.session = Assignment.objects.create(
        classroom=p.classroom, title="Potions", tier="purple", opens_at=T0 - timedelta(hours=1)
    )
    return p


# --- the plan (pure) ----------------------------------------------------------------------


def test_tier_facts_follow_the_decks():
    green = warmup_plan.tier_facts(warmup_plan.tables_of_tier("green"))
    purple = warmup_plan.tier_facts(warmup_plan.tables_of_tier("purple"))
    full = warmup_plan.tier_facts(warmup_plan.tables_of_tier("full"))
    assert len(green) == 16 and all(a <= 5 and b <= 5 for a, b in green)
    assert (2, 7) in purple and (7, 2) in purple and (4, 5) not in purple
    assert len(full) == 64 and set(green) | set(purple) == set(full)
    assert not set(green) & set(purple)


def test_plan_puts_focus_then_due_then_unseen_then_the_rest():
    tables = range(6, 10)
    focus, due, unseen = [(7, 8)], [(6, 9), (9, 9)], [(8, 6), (2, 7)]
    out = warmup_plan.plan(tables, focus, due, unseen, 12, seed=5)
    assert len(out) == 12
    assert out[0] == (7, 8)
    assert out[1:3] == [(6, 9), (9, 9)]  # due, in the order given (longest unseen first)
    assert set(out[3:4]) <= {(8, 6), (2, 7)}  # the unseen ones next, shuffled
    assert out[warmup_plan.FOCUS_GAP] == (8, 7)  # the focus fact again, the other way round
    tier = set(warmup_plan.tier_facts(tables))
    assert all(f in tier for f in out)


def test_plan_stays_in_the_tier_cycles_and_never_repeats_a_fact_at_once():
    tables = range(2, 6)  # green: 16 facts
    out = warmup_plan.plan(tables, [(7, 8), (3, 4)], [(9, 9)], [], 40, seed=1)
    assert len(out) == 40
    assert (7, 8) not in out and (9, 9) not in out  # not green facts
    assert out[0] == (3, 4)
    assert all(x != y for x, y in pairwise(out))
    assert set(out) == set(warmup_plan.tier_facts(tables))  # every fact, dealt again
    assert warmup_plan.plan(tables, [(3, 4)], [], [], 40, seed=1) == warmup_plan.plan(
        tables, [(3, 4)], [], [], 40, seed=1
    )  # deterministic from the seed
    assert warmup_plan.plan(tables, [], [], [], 0, seed=1) == []


def test_several_focus_facts_each_come_back_spaced():
    focus = [(7, 8), (6, 7), (9, 6)]
    out = warmup_plan.plan(range(2, 10), focus, [], [], 20, seed=3)
    assert out[:3] == focus
    for i, (a, b) in enumerate(focus):
        assert out[i + warmup_plan.FOCUS_GAP] == (b, a)


def test_plan_alternates_facts_begun_with_facts_never_met():
    unfinished, unseen = [(3, 4), (5, 6), (4, 3)], [(2, 2), (9, 9)]
    out = warmup_plan.plan(range(2, 10), [], [], unseen, 7, seed=2, unfinished=unfinished)
    assert out[0::2][:3] == unfinished  # in the order given: the closest to a state first
    assert set(out[1:4:2]) == set(unseen)  # taking turns with the never met, shuffled
    assert out[4] == (4, 3) and (3, 4) in out[:1]  # both orders of a fact begun


# --- starting and asking --------------------------------------------------------------------


def answered(student, facts, *, when, context="warm-up"):
    """``facts`` as (a, b, answer) answered one every 5 s from ``when`` (typed in a warm-up
    round, or claims and missed captures in a game), counted as the pipeline counts them."""
    warm_up = None
    if context == "warm-up":
        warm_up = WarmUp.objects.create(student=student, started_at=when, timed=True)
    Attempt.objects.bulk_create(
        Attempt(
            **attempt_fields(
                student,
                a,
                b,
                answer,
                context="missed" if answer is None else context,
                warm_up=warm_up,
                question=i if warm_up else None,
            ),
            created_at=when + timedelta(seconds=5 * i),
        )
        for i, (a, b, answer) in enumerate(facts)
    )
    FactStat.objects.apply_pending([student.pk])


def squares_at(student, now):
    return knowledge.squares(FactStat.objects.filter(student=student).orders(), now)


def right(a, b, times=1):
    return [(a, b, a * b)] * times


def test_a_session_round_uses_the_sessions_tables_length_and_the_childs_focus(people):
    """The focus fact first (three wrong answers an hour ago), then a known fact whose
    memory is due (two right answers four days ago), then the never-answered fact whose
    twin was answered; the focus fact comes back the other way round; a fact known
    yesterday is not due yet. Only the session's (purple) tables."""
    ada = people.ada
    answered(ada, right(6, 9, 2), when=T0 - timedelta(days=4))
    known = [(6, 6), (7, 7), (8, 8), (9, 9), (6, 8), (8, 6)]
    answered(ada, [f for a, b in known for f in right(a, b, 3)], when=T0 - timedelta(days=1))
    answered(ada, [(7, 8, 42)] * 3, when=T0 - timedelta(hours=1))
    orders = FactStat.objects.filter(student=ada).orders()
    squares = squares_at(ada, T0)
    assert squares[(7, 8)].state == knowledge.NOT_YET
    assert squares[(6, 9)].state == knowledge.KNOWN and knowledge.due_at(orders[(6, 9)]) <= T0
    assert squares[(9, 9)].state == knowledge.KNOWN and knowledge.due_at(orders[(9, 9)]) > T0
    people.session.warm_up_minutes = 2
    people.session.save()
    warm_up = WarmUp.objects.start(ada, people.session, now=T0)
    assert (warm_up.home, warm_up.timed, warm_up.seconds) == (False, True, 120)
    facts = [tuple(f) for f in warm_up.facts]
    assert len(facts) >= 80
    assert facts[:3] == [(7, 8), (6, 9), (9, 6)]
    assert facts[warmup_plan.FOCUS_GAP] == (8, 7)
    assert facts.index((9, 9)) > warmup_plan.FOCUS_GAP  # known and not due: with the rest
    purple = set(warmup_plan.tier_facts(range(6, 10)))
    assert all(f in purple for f in facts)


def test_the_least_known_focus_fact_comes_first_each_followed_by_its_twin(people):
    ada = people.ada
    # Neither stuck (three wrong in a row): right once then wrong twice, and wrong twice.
    answered(ada, [(9, 6, 54), (9, 6, 63), (9, 6, 63)], when=T0 - timedelta(hours=2))
    answered(ada, [(7, 8, 42)] * 2, when=T0 - timedelta(hours=1))
    squares = squares_at(ada, T0)
    assert squares[(7, 8)].state == squares[(9, 6)].state == knowledge.NOT_YET
    assert squares[(7, 8)].p < squares[(9, 6)].p
    facts = [tuple(f) for f in WarmUp.objects.start(ada, people.session, now=T0).facts]
    gap = warmup_plan.FOCUS_GAP
    assert facts[:2] == [(7, 8), (9, 6)]
    assert facts[gap : gap + 2] == [(8, 7), (6, 9)]


def test_a_round_finishes_facts_begun_before_opening_many_new_ones(people):
    """Facts met but not sure yet (a capture left on the board: too little to tell) take
    turns with facts never answered, those whose twin was met first (the order the child may
    know one way round only), the closest to a decision first. Which facts are not sure yet
    is the model's word (the report's squares)."""
    ada = people.ada
    answered(ada, [(6, 7, None), (8, 9, None)], when=T0 - timedelta(hours=2), context="capture")
    answered(ada, right(2, 2, 3), when=T0 - timedelta(hours=1))  # known; not a purple fact
    squares = squares_at(ada, T0)
    unsure = [f for f in ((6, 7), (8, 9)) if squares[f].state == knowledge.UNSURE]
    assert len(unsure) == 2, {f: squares[f] for f in ((6, 7), (8, 9))}
    unsure.sort(key=lambda f: -abs(squares[f].p - 0.5))
    facts = [tuple(f) for f in WarmUp.objects.start(ada, people.session, now=T0).facts]
    assert facts[0:4:2] == unsure
    assert set(facts[1:4:2]) == {(7, 6), (9, 8)}  # never answered, their twins answered
    assert all(x != y for x, y in pairwise(facts))


def test_the_plan_keeps_to_the_tier_and_follows_its_seed(people):
    ada = people.ada
    answered(ada, [(7, 8, 42)] * 3, when=T0 - timedelta(hours=1))
    green = plan_for(ada, "green", 30, seed=1, now=T0)
    assert (7, 8) not in green and (8, 7) not in green
    assert set(green) <= set(warmup_plan.tier_facts(warmup_plan.tables_of_tier("green")))
    assert plan_for(ada, "purple", 30, seed=1, now=T0)[0] == (7, 8)
    # Deterministic from the seed; another seed deals the never-answered facts otherwise.
    assert plan_for(ada, "full", 40, seed=5, now=T0) == plan_for(ada, "full", 40, seed=5, now=T0)
    plans = {tuple(plan_for(people.ben, "full", 20, seed=seed, now=T0)) for seed in range(4)}
    assert len(plans) > 1


def test_a_home_round_is_timed_and_an_accuracy_first_round_is_not(people):
    home = WarmUp.objects.start(people.ada, now=T0)
    assert (home.home, home.timed, home.seconds, home.assignment) == (True, True, 60, None)
    people.session.accuracy_first = True
    people.session.save()
    untimed = WarmUp.objects.start(people.ada, people.session, now=T0)
    assert (untimed.timed, untimed.question_limit()) == (False, 10)
    assert untimed.seconds_left(at(500)) is None
    assert not untimed.is_over(at(500))  # no clock: ends after its questions


def test_ask_signs_the_question_with_the_server_time(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(2))
    assert (q.index, [q.a, q.b]) == (0, warm_up.facts[0])
    payload = signing.loads(q.token, salt=SALT)
    assert payload == {"w": warm_up.pk, "q": 0, "t": int(at(2).timestamp() * 1000)}
    assert warm_up.ask(now=at(60)) is None  # time is up


# --- answering ----------------------------------------------------------------------------


def test_an_answer_is_an_attempt_timed_from_served_to_answered(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(3))
    wrong = q.a * q.b + 1
    result = WarmUp.objects.answer(people.ada, q.token, str(wrong), now=at(5.25))
    assert (result.correct, result.a, result.b, result.product, result.answer) == (
        False,
        q.a,
        q.b,
        q.a * q.b,
        wrong,
    )
    assert not result.finished
    attempt = Attempt.objects.get()
    assert attempt.context == "warm-up" and attempt.warm_up == warm_up and attempt.question == 0
    assert attempt.match is None and attempt.move is None
    assert (attempt.a, attempt.b, attempt.answer, attempt.correct) == (q.a, q.b, wrong, False)
    assert attempt.kind == error_kinds.classify(q.a, q.b, wrong, context="warm-up")
    assert attempt.response_ms == 2250
    assert attempt.created_at == at(5.25) and attempt.home is False
    q2 = warm_up.ask(now=at(6))
    assert q2.index == 1 and [q2.a, q2.b] == warm_up.facts[1]
    right = WarmUp.objects.answer(people.ada, q2.token, f" {q2.a * q2.b} ", now=at(7))
    assert right.correct and warm_up.right_count() == 1
    assert warm_up.summary() == {"answered": 2, "right": 1}


def test_a_replayed_token_is_refused_and_stores_nothing_more(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(1))
    WarmUp.objects.answer(people.ada, q.token, "12", now=at(2))
    with pytest.raises(WarmUpRefused) as refused:
        WarmUp.objects.answer(people.ada, q.token, "13", now=at(3))
    assert REFUSED_STATUS[type(refused.value)] == 409 and "already" in refused.value.message
    assert Attempt.objects.count() == 1 and Attempt.objects.get().answer == 12


def test_a_forged_token_is_refused(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(1))
    forged = signing.dumps({"w": warm_up.pk, "q": 0, "t": 0}, salt="another salt")
    tampered = q.token[:-3] + ("abc" if not q.token.endswith("abc") else "xyz")
    for token in (forged, tampered, "", "nonsense", None):
        with pytest.raises(WarmUpRefused) as refused:
            WarmUp.objects.answer(people.ada, token, "12", now=at(2))
        assert REFUSED_STATUS[type(refused.value)] == 422 and refused.value.message
    assert not Attempt.objects.exists()


def test_another_childs_round_is_refused(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(1))
    with pytest.raises(WarmUpRefused) as refused:
        WarmUp.objects.answer(people.ben, q.token, "12", now=at(2))
    assert REFUSED_STATUS[type(refused.value)] == 404
    assert not Attempt.objects.exists()


@pytest.mark.parametrize("typed", ["", "  ", "abc", "1234", "-5", "4.5", "٣", "7 8"])
def test_typed_garbage_is_refused_and_the_token_still_works(people, typed):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(1))
    with pytest.raises(WarmUpRefused) as refused:
        WarmUp.objects.answer(people.ada, q.token, typed, now=at(2))
    assert REFUSED_STATUS[type(refused.value)] == 422 and refused.value.message
    assert not Attempt.objects.exists()
    assert warm_up.question_for(q.token, at(2)) == q  # the same question, its clock running
    WarmUp.objects.answer(people.ada, q.token, "0", now=at(4))
    assert Attempt.objects.get().response_ms == 3000


def test_a_late_answer_within_the_grace_counts_and_a_later_one_does_not(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(58))
    result = WarmUp.objects.answer(people.ada, q.token, "1", now=at(60 + GRACE_SECONDS - 1))
    assert result.finished  # the time is up: the round is over
    warm_up.refresh_from_db()
    assert warm_up.finished_at is not None
    assert Attempt.objects.get().response_ms == (2 + GRACE_SECONDS - 1) * 1000
    # Served just in time, arrived too late: refused, nothing stored.
    other = WarmUp.objects.start(people.ben, people.session, now=T0)
    q = other.ask(now=at(59))
    with pytest.raises(WarmUpRefused) as refused:
        WarmUp.objects.answer(people.ben, q.token, "1", now=at(60 + GRACE_SECONDS + 1))
    assert REFUSED_STATUS[type(refused.value)] == 409
    assert not Attempt.objects.filter(student=people.ben).exists()


def test_a_late_answer_after_the_round_was_closed_by_time_still_counts(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(59))
    assert warm_up.finish(at(60)) is True  # the page saw the time was up
    warm_up.refresh_from_db()
    warm_up.stats_at = at(61)
    WarmUp.objects.filter(pk=warm_up.pk).update(stats_at=at(61))
    WarmUp.objects.answer(people.ada, q.token, "7", now=at(62))
    warm_up.refresh_from_db()
    assert Attempt.objects.count() == 1
    assert warm_up.stats_at is None  # its statistics are rebuilt again, this answer with them


def test_an_untimed_round_ends_after_its_questions(people, django_capture_on_commit_callbacks):
    people.session.accuracy_first = True
    people.session.save()
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    results = []
    with django_capture_on_commit_callbacks() as callbacks:
        for i in range(10):
            q = warm_up.ask(now=at(10 * i))
            assert q is not None and q.index == i
            results.append(WarmUp.objects.answer(people.ada, q.token, "1", now=at(10 * i + 9)))
    assert [r.finished for r in results] == [False] * 9 + [True]
    assert warm_up.ask(now=at(200)) is None
    warm_up.refresh_from_db()
    assert warm_up.finished_at == at(99) and not warm_up.skipped
    # the statistics, once (with push on, the wall's and the waiting rooms' news too)
    assert sum("enqueue_stats" in c.__qualname__ for c in callbacks) == 1


def test_a_skipped_round_refuses_answers(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(1))
    assert WarmUp.objects.skip_for([people.session.pk], at(2)) == 1
    with pytest.raises(WarmUpRefused) as refused:
        WarmUp.objects.answer(people.ada, q.token, "12", now=at(3))
    assert REFUSED_STATUS[type(refused.value)] == 409
    warm_up.refresh_from_db()
    assert warm_up.skipped and warm_up.is_over(at(3)) and warm_up.ask(at(3)) is None


def test_finish_is_idempotent_and_enqueues_the_statistics_on_commit(
    people, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("games.queue.enqueue", lambda task, *args: sent.append((task, args)))
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    with django_capture_on_commit_callbacks(execute=True):
        assert warm_up.finish(at(20)) is True
        assert sent == []  # not before the commit
        assert warm_up.finish(at(30)) is False
        assert warm_up.finish(at(40), skipped=True) is False
    assert sent == [(update_warm_up_stats, (warm_up.pk,))]
    warm_up.refresh_from_db()
    assert warm_up.finished_at == at(20) and not warm_up.skipped


def test_running_rounds_are_those_not_finished_nor_out_of_time(people):
    now = T0 + timedelta(seconds=30)
    live = WarmUp.objects.start(people.ada, people.session, now=T0)
    done = WarmUp.objects.start(people.ben, people.session, now=T0)
    done.finish(at(10))
    old = WarmUp.objects.start(people.ben, people.session, now=T0 - timedelta(seconds=61))
    people.session.accuracy_first = True
    people.session.save()
    untimed = WarmUp.objects.start(people.ada, people.session, now=T0 - timedelta(minutes=5))
    idle = WarmUp.objects.start(people.ada, people.session, now=T0 - timedelta(minutes=20))
    running = set(WarmUp.objects.running(now).values_list("pk", flat=True))
    assert running == {live.pk, untimed.pk}
    assert {done.pk, old.pk, idle.pk}.isdisjoint(running)
    assert set(WarmUp.objects.running(at(61)).values_list("pk", flat=True)) == {untimed.pk}


# --- "Pause all" on the wall ----------------------------------------------------------------


def test_a_paused_round_keeps_its_time_and_resumes_where_it_stopped(people):
    """Paused 20 s into its minute, for three minutes: still under way, 40 s left all along;
    resumed, its 40 s run from the resume (the pause is added to its start)."""
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    assert WarmUp.objects.filter(pk=warm_up.pk).pause(at(20)) == 1
    warm_up.refresh_from_db()
    assert warm_up.paused_at == at(20) and warm_up.is_paused(at(200))
    assert warm_up.seconds_left(at(200)) == 40 and not warm_up.is_over(at(200))
    assert list(WarmUp.objects.running(at(200))) == [warm_up]  # on the wall: warming up
    assert WarmUp.objects.filter(pk=warm_up.pk).pause(at(30)) == 0  # paused once
    assert WarmUp.objects.filter(pk=warm_up.pk).resume(at(200)) == 1
    warm_up.refresh_from_db()
    assert warm_up.paused_at is None and warm_up.started_at == at(180)
    assert warm_up.seconds_left(at(200)) == 40 and warm_up.deadline() == at(240)
    assert warm_up.ask(at(239)) is not None and warm_up.ask(at(240)) is None


def test_the_question_on_the_screen_may_be_answered_while_paused(people):
    """The answer the child typed as the teacher paused is stored (timed from when it was
    served); no next question is served until the resume, and the clock has not moved."""
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    q = warm_up.ask(now=at(50))
    WarmUp.objects.filter(pk=warm_up.pk).pause(at(55))
    # 70 s after the start: past the minute and its grace, but the clock stopped at 55 s.
    result = WarmUp.objects.answer(people.ada, q.token, str(q.a * q.b), now=at(70))
    assert result.correct and not result.finished
    assert Attempt.objects.get().response_ms == 20_000
    warm_up.refresh_from_db()
    assert warm_up.is_paused(at(70)) and warm_up.seconds_left(at(70)) == 5


def test_a_round_paused_too_long_is_over_and_stays_over(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    WarmUp.objects.filter(pk=warm_up.pk).pause(at(10))
    later = at(10) + PAUSED_LIMIT
    warm_up.refresh_from_db()
    assert not warm_up.is_paused(later) and warm_up.is_over(later)
    assert not WarmUp.objects.running(later).exists()
    assert WarmUp.objects.filter(pk=warm_up.pk).resume(later) == 0
    warm_up.refresh_from_db()
    assert warm_up.paused_at is None and warm_up.started_at == T0 and warm_up.is_over(later)


def test_an_untimed_round_is_not_left_idle_by_a_pause(people):
    people.session.accuracy_first = True
    people.session.save()
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    WarmUp.objects.filter(pk=warm_up.pk).pause(at(600))  # 10 of its 15 idle minutes gone
    resume = at(600) + PAUSED_LIMIT - timedelta(seconds=1)
    WarmUp.objects.filter(pk=warm_up.pk).resume(resume)
    warm_up.refresh_from_db()
    assert not warm_up.is_over(resume + timedelta(minutes=4))
    assert warm_up.is_over(resume + timedelta(minutes=5))


def test_a_round_started_while_the_session_is_paused_starts_paused(people):
    """A Play sent as "Pause all" lands (the page read the session live): the round starts
    with its clock stopped, like a match made then (tests/classroom/test_warmup_races_pg.py
    races the two)."""
    Assignment.objects.filter(pk=people.session.pk).update(status=Assignment.Status.PAUSED)
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    assert warm_up.paused_at == T0 and warm_up.seconds_left(at(100)) == 60
    home = WarmUp.objects.start(people.ben, now=T0)  # at home: no session to pause it
    assert home.paused_at is None


def test_finishing_a_paused_round_clears_the_pause(people):
    warm_up = WarmUp.objects.start(people.ada, people.session, now=T0)
    WarmUp.objects.filter(pk=warm_up.pk).pause(at(10))
    warm_up.refresh_from_db()
    assert WarmUp.objects.skip_for([people.session.pk], at(20)) == 1
    warm_up.refresh_from_db()
    assert warm_up.skipped and warm_up.paused_at is None and warm_up.is_over(at(20))


def test_one_warm_up_before_each_game(people):
    first = WarmUp.objects.before_game(people.ada, people.session, now=T0)
    assert first is not None
    assert WarmUp.objects.before_game(people.ada, people.session, now=at(5)) == first  # resumed
    assert WarmUp.objects.before_game(people.ada, people.session, now=at(61)) is None  # done
    people.session.new_match(
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": people.ada.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
        ],
        options={"tier": "purple"},
    )  # created now, after the round
    second = WarmUp.objects.before_game(people.ada, people.session)
    assert second is not None and second != first  # a new game: a new warm-up
    Assignment.objects.filter(pk=people.session.pk).update(warm_up_skipped=True)
    people.session.refresh_from_db()
    assert WarmUp.objects.before_game(people.ben, people.session) is None
    Assignment.objects.filter(pk=people.session.pk).update(warm_up_skipped=False, warm_up_minutes=0)
    people.session.refresh_from_db()
    assert WarmUp.objects.before_game(people.ben, people.session) is None
    assert WarmUp.objects.count() == 2


# --- statistics -----------------------------------------------------------------------------


def stat_rows(model, **filters):
    fields = [f.name for f in model._meta.fields if f.name not in {"id", "updated_at"}]
    return sorted(
        model.objects.filter(**filters).values_list(*fields),
        key=lambda row: tuple(str(x) for x in row),
    )


def play_round(student, session, answers, start=T0):
    warm_up = WarmUp.objects.start(student, session, now=start)
    for i, answer in enumerate(answers):
        q = warm_up.ask(now=start + timedelta(seconds=3 * i))
        typed = str(q.a * q.b if answer else q.a * q.b + 1)
        WarmUp.objects.answer(student, q.token, typed, now=start + timedelta(seconds=3 * i + 2))
    return warm_up


def test_the_stats_task_counts_each_answer_once_and_is_idempotent(people):
    now = datetime.now(UTC)
    warm_up = play_round(people.ada, people.session, [True, False, True], start=now)
    warm_up.finish(now + timedelta(seconds=10))
    update_warm_up_stats.apply(args=[warm_up.pk])
    first = stat_rows(FactStat, student=people.ada), stat_rows(DailyTrend)
    update_warm_up_stats.apply(args=[warm_up.pk])  # redelivered: the same rows
    assert (stat_rows(FactStat, student=people.ada), stat_rows(DailyTrend)) == first
    assert sum(s.attempts for s in FactStat.objects.filter(student=people.ada)) == 3
    assert sum(s.correct for s in FactStat.objects.filter(student=people.ada)) == 2
    # Each answer is evidence of the fact as asked: the model has seen all three.
    assert sum(s.order.evidence for s in FactStat.objects.filter(student=people.ada)) == 3
    class_days = DailyTrend.objects.filter(scope="classroom", scope_id=people.classroom.pk)
    assert sum(class_days.values_list("attempts", flat=True)) == 3
    today = people.school.local_today(now)
    school_day = DailyTrend.objects.get(scope="school", scope_id=people.school.pk, day=today)
    assert (school_day.attempts, school_day.correct) == (3, 2)
    warm_up.refresh_from_db()
    assert warm_up.stats_at is not None
    assert WarmUp.objects.missing_stats(now + timedelta(minutes=5)) == []


def test_the_sweep_rebuilds_a_round_that_ran_out_with_nobody_there(people):
    now = datetime.now(UTC)
    start = now - timedelta(minutes=5)
    closed_lid = play_round(people.ada, people.session, [True, True], start=start)
    fresh = play_round(people.ben, people.session, [True], start=start)
    fresh.finish(start + timedelta(seconds=20))
    fresh.apply_stats()
    running = play_round(people.ben, people.session, [False], start=now - timedelta(seconds=5))
    assert WarmUp.objects.missing_stats(now) == [closed_lid.pk]
    sweep_missed_stats.apply()
    assert sum(s.attempts for s in FactStat.objects.filter(student=people.ada)) == 2
    assert WarmUp.objects.missing_stats() == []  # idempotent: not found again
    closed_lid.refresh_from_db()
    assert closed_lid.stats_at is not None
    running.refresh_from_db()
    assert running.stats_at is None  # still being played
