"""Assignments on the model layer: who they are for, progress, and pairing in the waiting room."""

import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import Group
from classroom.models import School
from classroom.models import Student
from classroom.models import WaitingEntry
from classroom.models import session_of
from classroom.models.assignment import WAITING_PRESENCE
from games.models import Match
from games.models import NotYourTurn
from games.models import Seat


def make_class(name="4C", children=("Ada", "Ben", "Cy", "Dee")):
    school = School.objects.create(name=f"School {name}")
    teacher = get_user_model().objects.create_user(f"teacher-{name}", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name=name)
    kids = [Student.objects.create(classroom=classroom, name=n) for n in children]
    return classroom, kids


def make_assignment(classroom, **fields):
    fields.setdefault("title", "Tables time")
    fields.setdefault("opens_at", timezone.now() - timedelta(minutes=1))
    return Assignment.objects.create(classroom=classroom, created_by=classroom.teacher, **fields)


def wait(assignment, student, seconds_ago=0):
    entry = WaitingEntry.objects.enter(assignment, student)
    if seconds_ago:
        WaitingEntry.objects.filter(pk=entry.pk).update(
            created_at=timezone.now() - timedelta(seconds=seconds_ago)
        )
        entry.refresh_from_db()
        entry.touch()  # the child's waiting room is still polling
    return entry


def finish(match):
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished_at=timezone.now()
    )


def student_match(assignment, *students, bot=False):
    seats = [{"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key} for s in students]
    if bot:
        seats.append(assignment.bot_seat())
    return assignment.new_match(seats, options={"tier": "green"})


# --- who an assignment is for ------------------------------------------------------------


@pytest.mark.django_db
def test_for_student_whole_class_group_and_chosen_children():
    classroom, (ada, ben, cy, _dee) = make_class()
    owls = Group.objects.create(classroom=classroom, name="Owls")
    ada.group = owls
    ada.save()
    _other, (zed, *_rest) = make_class("5D", ["Zed"])
    whole = make_assignment(classroom, title="Everyone")
    group = make_assignment(classroom, title="Owls only")
    group.groups.add(owls)
    chosen = make_assignment(classroom, title="Ben and Cy")
    chosen.students.add(ben, cy)

    def titles(student):
        return set(Assignment.objects.for_student(student).values_list("title", flat=True))

    assert titles(ada) == {"Everyone", "Owls only"}
    assert titles(ben) == {"Everyone", "Ben and Cy"}
    assert titles(cy) == {"Everyone", "Ben and Cy"}
    assert titles(zed) == set()
    assert whole.is_set_for(ada) and not chosen.is_set_for(ada) and group.is_set_for(ada)


@pytest.mark.django_db
def test_open_now_leaves_out_future_closed_and_ended_sessions():
    classroom, _kids = make_class()
    now = timezone.now()
    make_assignment(classroom, title="open")
    make_assignment(classroom, title="later", opens_at=now + timedelta(hours=1))
    make_assignment(classroom, title="closed", closes_at=now - timedelta(minutes=1))
    make_assignment(classroom, title="ended", status=Assignment.Status.ENDED)
    make_assignment(classroom, title="paused", status=Assignment.Status.PAUSED)
    open_titles = set(Assignment.objects.open_now().values_list("title", flat=True))
    assert open_titles == {"open", "paused"}


@pytest.mark.django_db
def test_tier_override_for_one_child():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, tier="green", tier_overrides={str(ben.pk): "purple"})
    assert assignment.tier_for(ada) == "green"
    assert assignment.tier_for(ben) == "purple"


# --- progress -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_progress_in_games_counts_finished_games_only_and_caps_at_the_target():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, target_kind="games", target_value=2)
    assert assignment.progress_for(ada) == {
        "done": 0,
        "target": 2,
        "kind": "games",
        "complete": False,
    }
    finish(student_match(assignment, ada, ben))
    student_match(assignment, ada, bot=True)  # still being played: does not count
    assert assignment.progress_for(ada)["done"] == 1
    assert assignment.progress_for(ben)["done"] == 1
    finish(student_match(assignment, ada, bot=True))
    finish(student_match(assignment, ada, bot=True))
    progress = assignment.progress_for(ada)
    assert progress["done"] == 2 and progress["complete"] is True
    # a game of another assignment does not count
    elsewhere = make_assignment(classroom, title="Other")
    finish(student_match(elsewhere, ben, bot=True))
    assert assignment.progress_for(ben)["done"] == 1


@pytest.mark.django_db
def test_progress_in_minutes_adds_up_the_time_in_games():
    classroom, (ada, *_r) = make_class()
    assignment = make_assignment(classroom, target_kind="minutes", target_value=10)
    now = timezone.now()
    for minutes in (3, 4):
        match = student_match(assignment, ada, bot=True)
        Match.objects.filter(pk=match.pk).update(
            created_at=now - timedelta(minutes=minutes, seconds=30),
            changed_at=now,
        )
    assert assignment.progress_for(ada) == {
        "done": 8,
        "target": 10,
        "kind": "minutes",
        "complete": False,
    }


# --- pairing ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_two_children_with_the_same_tier_are_paired_longest_waiting_first():
    classroom, (ada, ben, cy, _dee) = make_class()
    assignment = make_assignment(classroom, opponents="classmates")
    wait(assignment, ada, seconds_ago=9)
    wait(assignment, ben, seconds_ago=5)
    wait(assignment, cy, seconds_ago=1)
    made = WaitingEntry.objects.pair(assignment)
    assert len(made) == 1
    match = made[0]
    seats = list(match.seats.order_by("number"))
    assert [(s.kind, s.child_link.student) for s in seats] == [
        (Seat.Kind.STUDENT, ada),
        (Seat.Kind.STUDENT, ben),
    ]
    assert session_of(match) == assignment
    assert match.options == {"tier": "green"}
    assert match.status == Match.Status.ACTIVE
    entries = {e.student_id: e.match_id for e in assignment.waiting.all()}
    assert entries == {ada.pk: match.pk, ben.pk: match.pk, cy.pk: None}


@pytest.mark.django_db
def test_children_on_different_tables_are_not_paired():
    classroom, (ada, ben, cy, _dee) = make_class()
    assignment = make_assignment(
        classroom, opponents="classmates", tier_overrides={str(ben.pk): "purple"}
    )
    wait(assignment, ada)
    wait(assignment, ben)
    assert assignment.pair_waiting() == []
    wait(assignment, cy)
    (match,) = assignment.pair_waiting()
    assert {s.child_link.student_id for s in match.seats.all()} == {ada.pk, cy.pk}
    assert match.options == {"tier": "green"}
    assert WaitingEntry.objects.get(student=ben).match is None


@pytest.mark.django_db
def test_purple_children_play_a_purple_game():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, tier="purple")
    wait(assignment, ada)
    wait(assignment, ben)
    (match,) = assignment.pair_waiting()
    assert match.options == {"tier": "purple"}
    assert match.load_state()["tier"] == "purple"


@pytest.mark.django_db
def test_computer_opponents_play_at_once_at_the_chosen_level():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, opponents="bot", bot_level="wizard")
    wait(assignment, ada)
    wait(assignment, ben)
    made = assignment.pair_waiting()
    assert len(made) == 2  # not paired with each other: each plays the computer
    for match in made:
        kinds = [s.kind for s in match.seats.order_by("number")]
        assert kinds == [Seat.Kind.STUDENT, Seat.Kind.BOT]
        bot = match.seats.get(kind=Seat.Kind.BOT)
        assert (bot.bot_level, bot.name) == ("wizard", "Grand Wizard Zed")


@pytest.mark.django_db
def test_classmates_then_computer_after_20_seconds_alone():
    classroom, (ada, *_r) = make_class()
    assignment = make_assignment(classroom, opponents="classmates_then_bot")
    wait(assignment, ada, seconds_ago=15)
    assert assignment.pair_waiting() == []
    wait(assignment, ada)  # already waiting: keeps the place in the queue
    WaitingEntry.objects.filter(student=ada).update(
        created_at=timezone.now() - timedelta(seconds=21)
    )
    WaitingEntry.objects.get(student=ada).touch()
    (match,) = assignment.pair_waiting()
    bot = match.seats.get(kind=Seat.Kind.BOT)
    assert bot.name == "Apprentice Pip" and bot.bot_level == "apprentice"


@pytest.mark.django_db
def test_classmates_only_the_computer_joins_after_60_seconds_so_nobody_waits_forever():
    classroom, (ada, *_r) = make_class()
    assignment = make_assignment(classroom, opponents="classmates")
    wait(assignment, ada, seconds_ago=45)
    assert assignment.pair_waiting() == []
    WaitingEntry.objects.filter(student=ada).update(
        created_at=timezone.now() - timedelta(seconds=61)
    )
    WaitingEntry.objects.get(student=ada).touch()
    (match,) = assignment.pair_waiting()
    assert match.seats.filter(kind=Seat.Kind.BOT).count() == 1


@pytest.mark.django_db
def test_no_double_pairing():
    classroom, (ada, ben, cy, _dee) = make_class()
    assignment = make_assignment(classroom, opponents="classmates_then_bot")
    wait(assignment, ada)
    wait(assignment, ben)
    first = assignment.pair_waiting()
    assert len(first) == 1
    assert assignment.pair_waiting() == []
    # a child already in a game is not paired again, even after the bot delay
    WaitingEntry.objects.update(created_at=timezone.now() - timedelta(seconds=30))
    wait(assignment, cy)
    assert assignment.pair_waiting() == []
    assert Match.objects.filter(assignments=assignment).count() == 1


@pytest.mark.django_db
def test_a_child_who_left_the_waiting_room_is_not_paired():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, opponents="classmates")
    gone = wait(assignment, ada, seconds_ago=40)
    # the waiting room last polled long ago (the tab was closed)
    from django.core.cache import cache

    cache.set(gone._seen_key(), timezone.now().timestamp() - WAITING_PRESENCE - 5)
    wait(assignment, ben)
    assert assignment.pair_waiting() == []
    assert not WaitingEntry.objects.filter(student=ada).exists()
    assert WaitingEntry.objects.filter(student=ben, match__isnull=True).exists()


@pytest.mark.django_db
def test_pairing_does_nothing_once_the_session_is_over():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom)
    wait(assignment, ada)
    wait(assignment, ben)
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.ENDED)
    assert assignment.pair_waiting() == []
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_match_made_while_the_session_is_paused_starts_paused():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, status=Assignment.Status.PAUSED)
    wait(assignment, ada)
    wait(assignment, ben)
    (match,) = assignment.pair_waiting()
    assert match.paused_at is not None
    with pytest.raises(NotYourTurn, match="paused"):
        match.play(0, {"type": "end_turn"}, version=match.version)


@pytest.mark.django_db
def test_entering_again_after_a_game_gives_a_fresh_place():
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom)
    wait(assignment, ada, seconds_ago=5)
    wait(assignment, ben, seconds_ago=5)
    (match,) = assignment.pair_waiting()
    finish(match)
    entry = WaitingEntry.objects.enter(assignment, ada)
    assert entry.match is None
    assert entry.waited_seconds() < 2
    assert WaitingEntry.objects.filter(student=ada).count() == 1


@pytest.mark.django_db
def test_ending_assignments_abandons_their_games_and_empties_the_waiting_room():
    classroom, (ada, ben, cy, _dee) = make_class()
    assignment = make_assignment(classroom)
    match = student_match(assignment, ada, ben)
    wait(assignment, cy)
    assert Assignment.objects.filter(pk=assignment.pk).end() == 1
    assignment.refresh_from_db()
    match.refresh_from_db()
    assert assignment.status == Assignment.Status.ENDED and assignment.ended_at
    assert match.status == Match.Status.ABANDONED
    assert not assignment.waiting.exists()


@pytest.mark.django_db
def test_pause_blocks_moves_until_cleared():
    classroom, (ada, *_r) = make_class()
    assignment = make_assignment(classroom)
    match = student_match(assignment, ada, bot=True)
    Match.objects.filter(pk=match.pk).update(paused_at=timezone.now())
    match.refresh_from_db()
    hand = match.view_for(0)["hand"]
    with pytest.raises(NotYourTurn, match="paused"):
        match.play(0, {"type": "place", "card": hand[0]["id"]}, version=match.version)
    assert match.moves.count() == 0
    Match.objects.filter(pk=match.pk).update(paused_at=None)
    match.refresh_from_db()
    match.play(0, {"type": "place", "card": hand[0]["id"]}, version=match.version)
    assert match.moves.count() == 1


# --- the race: two children press Play at the same moment ---------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_children_entering_at_once_make_exactly_one_match(postgres):
    classroom, (ada, ben, *_r) = make_class()
    assignment = make_assignment(classroom, opponents="classmates")
    for _round in range(5):
        start = threading.Barrier(2)
        errors = []

        def press_play(student, start=start, errors=errors):
            try:
                start.wait()
                WaitingEntry.objects.enter(assignment, student)
                assignment.pair_waiting()
            except Exception as exc:
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=press_play, args=(s,)) for s in (ada, ben)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        # Whoever entered last saw both children; the other found nobody left to pair.
        matches = list(Match.objects.filter(assignments=assignment, status="active"))
        assert len(matches) == 1
        assert {s.child_link.student_id for s in matches[0].seats.all()} == {ada.pk, ben.pk}
        entries = WaitingEntry.objects.filter(assignment=assignment)
        assert {e.match_id for e in entries} == {matches[0].pk}
        finish(matches[0])


@pytest.mark.django_db
def test_a_child_who_comes_back_later_gets_a_fresh_place_not_an_instant_computer():
    from django.core.cache import cache

    classroom, (ada, *_r) = make_class()
    assignment = make_assignment(classroom, opponents="classmates_then_bot")
    old = wait(assignment, ada, seconds_ago=300)
    cache.set(old._seen_key(), timezone.now().timestamp() - 290)  # left long ago
    entry = WaitingEntry.objects.enter(assignment, ada)
    assert entry.waited_seconds() < 2
    assert assignment.pair_waiting() == []


def test_a_coach_session_seats_coach_luna(world):
    from classroom.models import Assignment

    world.assignment_a.opponents = Assignment.Opponents.BOT
    world.assignment_a.bot_level = "coach"
    seat = world.assignment_a.bot_seat()
    assert seat["bot_level"] == "coach" and seat["name"] == "Coach Luna"
