"""Game-session pages: the teacher's assignment pages, the child's home, Play and the waiting
room, and the live wall (pause, resume, end)."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import School
from classroom.models import Student
from classroom.models import WaitingEntry
from games.models import Match
from games.models import Seat

from ..conftest import child_client
from ..conftest import without_tokens

OUTSIDERS = ("teacher_b", "admin_a", "admin_b", "superuser")


def csrf_from(response) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.text).group(1)


def form_data(world, **over):
    data = {
        "title": "Friday tables",
        "tier": "green",
        "opponents": "classmates_then_bot",
        "bot_level": "apprentice",
        "target_kind": "games",
        "target_value": "5",
        "opens_at": timezone.localtime().strftime("%Y-%m-%dT%H:%M"),
        "closes_at": "",
        "who": "class",
    }
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


# --- teacher: assignment pages -------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", OUTSIDERS)
def test_assignment_pages_are_only_for_the_class_teacher(world, role):
    client = world.client(role)
    urls = [
        reverse("classroom:assignment_list", args=[world.class_a.pk]),
        reverse("classroom:assignment_new", args=[world.class_a.pk]),
        reverse("classroom:assignment_edit", args=[world.assignment_a.pk]),
    ]
    for url in urls:
        assert client.get(url).status_code == 404, url
    response = client.post(
        reverse("classroom:assignment_new", args=[world.class_a.pk]), form_data(world)
    )
    assert response.status_code == 404
    response = client.post(reverse("classroom:assignment_end", args=[world.assignment_a.pk]))
    assert response.status_code == 404
    assert Assignment.objects.count() == 1
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.status == Assignment.Status.LIVE


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "child_a", "child_b"])
def test_a_visitor_or_a_child_is_sent_to_log_in(world, role):
    for name, pk in [
        ("classroom:assignment_list", world.class_a.pk),
        ("classroom:session_wall", world.class_a.pk),
    ]:
        response = world.client(role).get(reverse(name, args=[pk]))
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_teacher_sets_a_session_for_the_whole_class(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.teacher_a)
    page = client.get(reverse("classroom:assignment_new", args=[world.class_a.pk]))
    assert page.status_code == 200
    assert "Same as the class" in page.text  # the per-child tables table
    data = form_data(world, csrfmiddlewaretoken=csrf_from(page))
    data[f"tier_{world.child_a2.pk}"] = "purple"
    response = client.post(reverse("classroom:assignment_new", args=[world.class_a.pk]), data)
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:assignment_list", args=[world.class_a.pk])
    made = Assignment.objects.get(title="Friday tables")
    assert made.classroom == world.class_a and made.created_by == world.teacher_a
    assert made.tier_overrides == {str(world.child_a2.pk): "purple"}
    assert made.target_value == 5 and made.opponents == "classmates_then_bot"
    assert made.is_set_for(world.child_a) and made.is_set_for(world.child_a2)
    listing = client.get(response["Location"])
    assert "Friday tables" in listing.text and "Open now" in listing.text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "opponents, level, shown, not_shown",
    [
        ("bot", "coach", "The computer (Coach Luna)", "Apprentice Pip"),
        ("classmates_then_bot", "wizard", "(Grand Wizard Zed)", "Apprentice Pip"),
        ("bot", "apprentice", "The computer (Apprentice Pip)", "Coach Luna"),
        (
            "classmates",
            "wizard",
            "Classmates, paired automatically (Grand Wizard Zed after 60 s alone)",
            "Apprentice Pip",
        ),
    ],
)
def test_the_list_names_the_computer_player_the_session_uses(
    world, opponents, level, shown, not_shown
):
    Assignment.objects.create(
        classroom=world.class_a,
        created_by=world.teacher_a,
        title="Levels",
        opponents=opponents,
        bot_level=level,
        opens_at=timezone.now(),
    )
    client = Client()
    client.force_login(world.teacher_a)
    listing = client.get(reverse("classroom:assignment_list", args=[world.class_a.pk])).text
    entry = listing[listing.index("Levels") :]
    assert shown in entry and not_shown not in entry


@pytest.mark.django_db
def test_the_list_counts_only_children_really_on_other_tables(world):
    session = Assignment.objects.create(
        classroom=world.class_a,
        created_by=world.teacher_a,
        title="Mixed",
        tier="green",
        opens_at=timezone.now(),
        tier_overrides={
            str(world.child_a.pk): "green",  # the session's own tables: nothing different
            str(world.child_a2.pk): "purple",
            str(world.child_b.pk): "purple",  # not in this class
        },
    )
    assert session.children_on_other_tables() == 1
    client = Client()
    client.force_login(world.teacher_a)
    listing = client.get(reverse("classroom:assignment_list", args=[world.class_a.pk])).text
    assert "1 child on other tables" in listing[listing.index("Mixed") :]
    session.students.set([world.child_a])  # Ali, on purple, is not in this session at all
    assert session.children_on_other_tables() == 0
    listing = client.get(reverse("classroom:assignment_list", args=[world.class_a.pk])).text
    assert "on other tables" not in listing[listing.index("Mixed") :]
    session.students.clear()
    session.groups.set([world.group_a])
    ali = Student.objects.filter(pk=world.child_a2.pk)
    ali.update(group=world.group_a)
    assert session.children_on_other_tables() == 1  # Ali is in the Owls
    ali.update(group=None)
    assert session.children_on_other_tables() == 0


@pytest.mark.django_db
def test_a_session_for_a_group_or_chosen_children(world):
    client = world.client("teacher_a")
    url = reverse("classroom:assignment_new", args=[world.class_a.pk])
    client.post(url, form_data(world, title="Owls", who="groups", groups=[world.group_a.pk]))
    client.post(url, form_data(world, title="Ali", who="children", students=[world.child_a2.pk]))
    owls = Assignment.objects.get(title="Owls")
    ali = Assignment.objects.get(title="Ali")
    assert list(owls.groups.all()) == [world.group_a] and not owls.students.exists()
    assert owls.is_set_for(world.child_a) and not owls.is_set_for(world.child_a2)
    assert ali.is_set_for(world.child_a2) and not ali.is_set_for(world.child_a)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "over, message",
    [
        ({"title": "   "}, "This field is required."),
        ({"target_value": "0"}, "Choose a number from 1 to 20."),
        ({"target_kind": "minutes", "target_value": "500"}, "Choose a number from 1 to 120."),
        ({"target_value": "lots"}, "Enter a whole number."),
        ({"tier": "gold"}, "Select a valid choice."),
        ({"opens_at": "tomorrow-ish"}, "Enter a valid date/time."),
        ({"who": "groups"}, "Tick at least one group."),
        ({"who": "children"}, "Tick at least one child."),
        ({"bot_level": "genius"}, "Select a valid choice."),
    ],
)
def test_bad_input_answers_422_inline_and_saves_nothing(world, over, message):
    client = world.client("teacher_a")
    url = reverse("classroom:assignment_new", args=[world.class_a.pk])
    response = client.post(url, form_data(world, **over), headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert message in response.text
    assert "<html" not in response.text  # the form partial only
    assert Assignment.objects.count() == 1


@pytest.mark.django_db
def test_closing_before_opening_is_refused(world):
    client = world.client("teacher_a")
    now = timezone.localtime()
    data = form_data(
        world,
        opens_at=(now + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"),
        closes_at=(now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"),
    )
    response = client.post(reverse("classroom:assignment_new", args=[world.class_a.pk]), data)
    assert response.status_code == 422
    assert "The session must close after it opens." in response.text
    assert "<html" in response.text  # without htmx: the whole page
    assert Assignment.objects.count() == 1


@pytest.mark.django_db
def test_a_child_of_another_class_cannot_be_picked(world):
    client = world.client("teacher_a")
    data = form_data(world, who="children", students=[world.child_b.pk])
    response = client.post(reverse("classroom:assignment_new", args=[world.class_a.pk]), data)
    assert response.status_code == 422
    assert Assignment.objects.count() == 1


@pytest.mark.django_db
def test_edit_and_end_a_session(world):
    client = world.client("teacher_a")
    url = reverse("classroom:assignment_edit", args=[world.assignment_a.pk])
    page = client.get(url)
    assert page.status_code == 200 and "Practice" in page.text
    response = client.post(url, form_data(world, title="Practice 2", target_kind="minutes"))
    assert response.status_code == 302
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.title == "Practice 2" and world.assignment_a.target_kind == "minutes"
    # "End…" first says what ending does, then asks for a second tap.
    listing = client.get(reverse("classroom:assignment_list", args=[world.class_a.pk])).text
    assert '<details class="end-confirm">' in listing
    assert "The game being played stops now. The children stay signed in." in listing
    assert "Yes, end “Practice 2”" in listing
    response = client.post(reverse("classroom:assignment_end", args=[world.assignment_a.pk]))
    assert response.status_code == 302
    world.assignment_a.refresh_from_db()
    world.match_a.refresh_from_db()
    assert world.assignment_a.status == Assignment.Status.ENDED
    assert world.match_a.status == Match.Status.ABANDONED
    home = world.client("child_a").get(reverse("classroom:child_home"))
    assert "Practice 2" not in home.text


# --- the child's home -----------------------------------------------------------------------


@pytest.mark.django_db
def test_child_home_needs_a_signed_in_child(world):
    response = Client().get(reverse("classroom:child_home"))
    assert response.status_code == 302 and response["Location"] == reverse("classroom:join")


@pytest.mark.django_db
def test_child_home_shows_the_session_progress_play_and_the_game_in_progress(world):
    response = world.client("child_a").get(reverse("classroom:child_home"))
    assert response.status_code == 200
    text = response.text
    assert "Practice" in text
    assert "0 of 3 games" in text
    assert 'max="3" value="0"' in text  # the bar
    assert reverse("classroom:child_play", args=[world.assignment_a.pk]) in text
    assert reverse("games:play", args=[world.match_a.public_id]) in text  # resume
    assert "Pip" in text
    other = world.client("child_b").get(reverse("classroom:child_home"))
    assert "Practice" not in other.text


@pytest.mark.django_db
def test_a_finished_target_says_done_and_still_lets_the_child_play(world):
    Assignment.objects.filter(pk=world.assignment_a.pk).update(target_value=1)
    Match.objects.filter(pk=world.match_a.pk).update(status="finished", finished_at=timezone.now())
    text = world.client("child_a").get(reverse("classroom:child_home")).text
    assert "1 of 1 game" in text
    assert "Done! Well played" in text
    assert "Play more" in text
    assert reverse("classroom:child_play", args=[world.assignment_a.pk]) in text


@pytest.mark.django_db
def test_minutes_target_in_words(world):
    Assignment.objects.filter(pk=world.assignment_a.pk).update(
        target_kind="minutes", target_value=10
    )
    Match.objects.filter(pk=world.match_a.pk).update(
        created_at=timezone.now() - timedelta(minutes=6, seconds=5), changed_at=timezone.now()
    )
    text = world.client("child_a").get(reverse("classroom:child_home")).text
    assert "6 of 10 minutes" in text


# --- Play and the waiting room --------------------------------------------------------------


@pytest.fixture
def fresh(world):
    """An open session in class A that nobody has played yet (classmates, then the computer)."""
    return Assignment.objects.create(
        classroom=world.class_a,
        title="Duel",
        opens_at=timezone.now() - timedelta(minutes=1),
        opponents="classmates_then_bot",
        warm_up_minutes=0,  # straight to the waiting room (the warm-up: test_warmup_views.py)
    )


@pytest.mark.django_db
def test_play_puts_the_child_in_the_waiting_room_and_pairs_the_next_one(world, fresh):
    ada, ali = child_client(world.child_a), child_client(world.child_a2)
    response = ada.post(reverse("classroom:child_play", args=[fresh.pk]))
    assert response["Location"] == reverse("classroom:waiting_room", args=[fresh.pk])
    room = ada.get(response["Location"])
    assert room.status_code == 200
    assert "Waiting for a classmate" in room.text
    assert "Apprentice Pip plays with you in" in room.text
    response = ali.post(reverse("classroom:child_play", args=[fresh.pk]))
    match = Match.objects.get(assignments=fresh)
    assert response["Location"] == reverse("games:play", args=[match.public_id])
    # Ada's waiting room sends her to the game: htmx poll and plain refresh alike.
    polled = ada.get(
        reverse("classroom:waiting_room", args=[fresh.pk]), headers={"HX-Request": "true"}
    )
    assert polled["HX-Redirect"] == match.get_absolute_url()
    assert (
        ada.get(reverse("classroom:waiting_room", args=[fresh.pk]))["Location"]
        == match.get_absolute_url()
    )
    assert ada.get(match.get_absolute_url()).status_code == 200  # her seat
    # Play again while the game is on: back to that game, no second entry.
    again = ada.post(reverse("classroom:child_play", args=[fresh.pk]))
    assert again["Location"] == match.get_absolute_url()
    assert Match.objects.filter(assignments=fresh).count() == 1


@pytest.mark.django_db
def test_while_the_class_is_paused_play_and_warm_up_start_nothing(world, fresh):
    """ "Pause all" on the wall: a child's Play and Warm up start no warm-up, no waiting and no
    game (before, Ali got a timed warm-up and then a game; found in a teacher's browser walk);
    a game under way is still shown, paused. "Resume all" lets Play work again."""
    from classroom.models import WaitingEntry
    from classroom.models import WarmUp

    Assignment.objects.filter(pk=fresh.pk).update(warm_up_minutes=1)
    teacher = world.client("teacher_a")
    teacher.post(reverse("classroom:wall_pause", args=[world.class_a.pk]))
    ali = child_client(world.child_a2)
    home = ali.get(reverse("classroom:child_home")).text
    assert "Your teacher has paused the games." in home
    assert reverse("classroom:child_play", args=[fresh.pk]) not in home
    assert reverse("classroom:warm_up_home") not in home
    for url in (
        reverse("classroom:child_play", args=[fresh.pk]),
        reverse("classroom:warm_up_home"),
    ):
        response = ali.post(url)
        assert response["Location"] == reverse("classroom:child_home")
    assert "Wait until they start again." in ali.get(reverse("classroom:child_home")).text
    assert not WarmUp.objects.filter(student=world.child_a2).exists()
    assert not WaitingEntry.objects.filter(student=world.child_a2).exists()
    # Ada's game under way is still hers to see (paused).
    ada = child_client(world.child_a)
    response = ada.post(reverse("classroom:child_play", args=[world.assignment_a.pk]))
    assert response["Location"] == world.match_a.get_absolute_url()
    teacher.post(reverse("classroom:wall_resume", args=[world.class_a.pk]))
    response = ali.post(reverse("classroom:child_play", args=[fresh.pk]))
    assert response["Location"] == WarmUp.objects.get(student=world.child_a2).get_absolute_url()


@pytest.mark.django_db
def test_the_waiting_room_lists_only_classmates_on_the_same_tables(world, fresh):
    """Children on other tables are never paired together, so they are not named as "also
    waiting" either."""
    fresh.tier_overrides = {str(world.child_a2.pk): "purple"}
    fresh.save()
    ada, ali = child_client(world.child_a), child_client(world.child_a2)
    ada.post(reverse("classroom:child_play", args=[fresh.pk]))
    ali.post(reverse("classroom:child_play", args=[fresh.pk]))
    assert not Match.objects.filter(assignments=fresh).exists()
    for client in (ada, ali):
        room = client.get(reverse("classroom:waiting_room", args=[fresh.pk]))
        assert room.status_code == 200 and "Also waiting" not in room.text


@pytest.mark.django_db
def test_the_waiting_room_gives_the_computer_after_20_seconds(world, fresh):
    ada = child_client(world.child_a)
    ada.post(reverse("classroom:child_play", args=[fresh.pk]))
    WaitingEntry.objects.filter(student=world.child_a).update(
        created_at=timezone.now() - timedelta(seconds=21)
    )
    response = ada.get(reverse("classroom:waiting_room", args=[fresh.pk]))
    match = Match.objects.get(assignments=fresh)
    assert response["Location"] == match.get_absolute_url()
    assert match.seats.filter(kind=Seat.Kind.BOT, bot_level="apprentice").exists()


@pytest.mark.django_db
def test_leave_the_waiting_room(world, fresh):
    ada = child_client(world.child_a)
    ada.post(reverse("classroom:child_play", args=[fresh.pk]))
    response = ada.post(reverse("classroom:waiting_room", args=[fresh.pk]))
    assert response["Location"] == reverse("classroom:child_home")
    assert not WaitingEntry.objects.filter(student=world.child_a).exists()


@pytest.mark.django_db
def test_a_child_may_only_enter_an_open_session_set_for_them(world, fresh):
    bea = child_client(world.child_b)
    assert bea.post(reverse("classroom:child_play", args=[fresh.pk])).status_code == 404
    fresh.students.add(world.child_a2)  # now only for Ali
    ada = child_client(world.child_a)
    assert ada.post(reverse("classroom:child_play", args=[fresh.pk])).status_code == 404
    Assignment.objects.filter(pk=world.assignment_a.pk).update(
        opens_at=timezone.now() + timedelta(hours=1)
    )
    Match.objects.all().delete()
    assert (
        ada.post(reverse("classroom:child_play", args=[world.assignment_a.pk])).status_code == 404
    )
    assert ada.get(reverse("classroom:child_play", args=[world.assignment_a.pk])).status_code == 405
    assert not WaitingEntry.objects.exists()


@pytest.mark.django_db
def test_the_waiting_room_closes_with_the_session(world, fresh):
    ada = child_client(world.child_a)
    ada.post(reverse("classroom:child_play", args=[fresh.pk]))
    Assignment.objects.filter(pk=fresh.pk).end()
    response = ada.get(reverse("classroom:waiting_room", args=[fresh.pk]))
    assert response["Location"] == reverse("classroom:child_home")
    assert not Match.objects.filter(assignments=fresh).exists()


# --- the live wall ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("role", OUTSIDERS)
def test_the_wall_is_only_for_the_class_teacher(world, role):
    client = world.client(role)
    pk = world.class_a.pk
    assert client.get(reverse("classroom:session_wall", args=[pk])).status_code == 404
    assert client.get(reverse("classroom:wall_board", args=[pk])).status_code == 404
    for name in ("classroom:wall_pause", "classroom:wall_resume", "classroom:wall_end"):
        assert client.post(reverse(name, args=[pk]), {"confirm": "yes"}).status_code == 404
    world.match_a.refresh_from_db()
    assert world.match_a.paused_at is None and world.match_a.status == Match.Status.ACTIVE


def board_version(text) -> str:
    return re.search(r'data-version="([0-9a-f]+)"', text).group(1)


@pytest.mark.django_db
def test_the_wall_shows_every_live_match_and_answers_204_when_unchanged(world):
    teacher = world.client("teacher_a")
    page = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk]))
    assert page.status_code == 200
    assert "Ada" in page.text and "Pip" in page.text
    assert "<bdi>Ada</bdi>'s turn" in page.text
    assert reverse("games:spectate", args=[world.match_a.public_id]) in page.text
    assert "Bea" not in without_tokens(page.text)  # class B's game
    # no hand is ever shown
    state = world.match_a.load_state()
    assert not [c for c in world.match_a.engine.private(state, 0) if c in page.text]
    version = board_version(page.text)
    board = reverse("classroom:wall_board", args=[world.class_a.pk])
    assert teacher.get(board, {"v": version}).status_code == 204
    hand = world.match_a.view_for(0)["hand"]
    world.match_a.play(0, {"type": "place", "card": hand[0]["id"]}, version=world.match_a.version)
    changed = teacher.get(board, {"v": version}, headers={"HX-Request": "true"})
    assert changed.status_code == 200
    assert "<html" not in changed.text and board_version(changed.text) != version
    assert "No games yet" not in changed.text
    # The session is open but every game has gone: the wall says what will appear, and when.
    Match.objects.filter(assignments=world.assignment_a).update(status=Match.Status.ABANDONED)
    empty = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text
    assert "No games yet" in empty and "Ada's turn" not in empty


@pytest.mark.django_db
def test_the_wall_names_the_computer_in_the_teachers_language(world):
    """The seat keeps the computer's name in the language of the child who started the game;
    the wall names it in the teacher's ("Ada contra Apprentice Pip" on a Spanish wall)."""
    Seat.objects.filter(match=world.match_a, kind=Seat.Kind.BOT).update(name="Apprentice Pip")
    teacher = world.client("teacher_a")
    wall = reverse("classroom:session_wall", args=[world.class_a.pk])
    page = teacher.get(wall, headers={"Accept-Language": "es"}).text
    assert "Aprendiz Pip" in page and "Apprentice Pip" not in page
    assert "Apprentice Pip" in teacher.get(wall, headers={"Accept-Language": "en"}).text


@pytest.mark.django_db
def test_the_wall_after_the_closing_time_says_the_games_carry_on(world):
    Assignment.objects.filter(pk=world.assignment_a.pk).update(
        opens_at=timezone.now() - timedelta(hours=1),
        closes_at=timezone.now() - timedelta(minutes=1),
    )
    teacher = world.client("teacher_a")
    page = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text
    assert "<bdi>Ada</bdi>'s turn" in page  # the game is still being played
    assert "No game session is open" not in page
    assert "the games below carry on until they end" in page
    Match.objects.filter(assignments=world.assignment_a).update(status=Match.Status.FINISHED)
    page = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text
    assert "No game session is open" in page and "carry on" not in page


@pytest.mark.django_db
def test_a_match_nobody_moved_for_a_minute_is_flagged_stalled(world):
    teacher = world.client("teacher_a")
    page = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk]))
    assert "is-stalled" not in page.text
    Match.objects.filter(pk=world.match_a.pk).update(
        changed_at=timezone.now() - timedelta(seconds=61)
    )
    board = teacher.get(
        reverse("classroom:wall_board", args=[world.class_a.pk]), {"v": board_version(page.text)}
    )
    assert board.status_code == 200
    assert "is-stalled" in board.text
    assert 'Stalled<span class="visually-hidden">: nobody has moved for a minute' in board.text


@pytest.mark.django_db
def test_pause_all_blocks_the_childs_move_and_resume_all_lets_it_through(world):
    teacher = world.client("teacher_a")
    response = teacher.post(reverse("classroom:wall_pause", args=[world.class_a.pk]))
    assert response.status_code == 302
    world.match_a.refresh_from_db()
    assert world.match_a.paused_at is not None
    page = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk]))
    assert "Paused" in page.text
    ada = world.client("child_a")
    hand = world.match_a.view_for(0)["hand"]
    move = reverse("games:move", args=[world.match_a.public_id])
    data = {"type": "place", "card": hand[0]["id"], "version": world.match_a.version}
    refused = ada.post(move, data)
    assert refused.status_code == 403 and "paused" in refused.text
    assert world.match_a.moves.count() == 0
    response = teacher.post(
        reverse("classroom:wall_resume", args=[world.class_a.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and 'id="wall-board"' in response.text
    world.match_a.refresh_from_db()
    assert world.match_a.paused_at is None
    assert ada.post(move, data).status_code == 200
    assert world.match_a.moves.count() == 1


@pytest.mark.django_db
def test_end_session_needs_the_tick_then_ends_everything_and_signs_children_out(world):
    teacher = world.client("teacher_a")
    ada, bea = world.client("child_a"), world.client("child_b")
    url = reverse("classroom:wall_end", args=[world.class_a.pk])
    refused = teacher.post(url, headers={"HX-Request": "true"})
    assert refused.status_code == 422 and "Yes, end it" in refused.text
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.status == Assignment.Status.LIVE
    assert ada.get(reverse("classroom:child_home")).status_code == 200
    response = teacher.post(url, {"confirm": "yes"})
    assert response.status_code == 302
    world.assignment_a.refresh_from_db()
    world.match_a.refresh_from_db()
    assert world.assignment_a.status == Assignment.Status.ENDED
    assert world.assignment_a.ended_at is not None
    assert world.match_a.status == Match.Status.ABANDONED
    # Signed out: once, to her class's names, with why (before, to the class-code page with no
    # word, in the browser's language: a keyboard walk); then to the class-code page.
    class_names = reverse("classroom:join_class", args=[world.class_a.code])
    home = ada.get(reverse("classroom:child_home"))
    assert home.status_code == 302 and home["Location"] == class_names
    page = ada.get(class_names).text
    assert "Your teacher has signed you out. Tap your name to come back in." in page
    again = ada.get(reverse("classroom:child_home"), headers={"HX-Request": "true"})
    assert again["HX-Redirect"] == reverse("classroom:join")
    assert bea.get(reverse("classroom:child_home")).status_code == 200  # another class: still in


@pytest.mark.django_db
def test_a_child_signed_out_reads_why_in_the_schools_language(world):
    """The school speaks Italian, the browser English: the message is the school's, like the
    class's names page it is on. An htmx request (an answer, a poll) is sent there too."""
    School.objects.filter(pk=world.class_a.school_id).update(language="it")
    ada = world.client("child_a")
    world.client("teacher_a").post(
        reverse("classroom:wall_end", args=[world.class_a.pk]), {"confirm": "yes"}
    )
    answer = ada.get(reverse("classroom:child_home"), headers={"HX-Request": "true"})
    class_names = reverse("classroom:join_class", args=[world.class_a.code])
    assert answer["HX-Redirect"] == class_names
    page = ada.get(class_names, headers={"Accept-Language": "en"}).text
    assert "L&#x27;insegnante ha chiuso il tuo accesso. Tocca il tuo nome per rientrare." in page


@pytest.mark.django_db
def test_a_session_that_opens_later_is_not_ended_by_end_session(world):
    later = Assignment.objects.create(
        classroom=world.class_a, title="Tomorrow", opens_at=timezone.now() + timedelta(days=1)
    )
    world.client("teacher_a").post(
        reverse("classroom:wall_end", args=[world.class_a.pk]), {"confirm": "yes"}
    )
    later.refresh_from_db()
    assert later.status == Assignment.Status.LIVE


@pytest.mark.django_db
def test_the_wall_poll_after_the_log_in_expired_goes_to_the_login_page(world):
    response = Client().get(
        reverse("classroom:wall_board", args=[world.class_a.pk]), headers={"HX-Request": "true"}
    )
    assert response["HX-Redirect"].startswith(reverse("login"))


@pytest.mark.django_db
def test_a_polling_board_learns_that_the_teacher_ended_the_session(world):
    ada = world.client("child_a")
    world.match_a.refresh_from_db()  # another test may have left the object ended
    poll = reverse("games:poll", args=[world.match_a.public_id])
    token = world.match_a.poll_token
    assert world.match_a.status == Match.Status.ACTIVE
    assert ada.get(f"{poll}?v={token}", headers={"HX-Request": "true"}).status_code == 204
    world.client("teacher_a").post(
        reverse("classroom:wall_end", args=[world.class_a.pk]), {"confirm": "yes"}
    )
    # No move was made, but the board's token changed: the next poll brings the board back,
    # which says so and offers no move and no poller.
    response = ada.get(f"{poll}?v={token}", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "Your teacher has ended the game." in response.text
    assert "Your turn" not in response.text and 'name="card"' not in response.text
    assert "Waiting" not in response.text  # no turn banner under a stopped game
    assert 'class="poller"' not in response.text
    world.match_a.refresh_from_db()
    assert world.match_a.poll_token != token


@pytest.mark.django_db
def test_a_game_ended_from_the_session_list_shows_the_child_the_way_back(world):
    """Ending one session from the list leaves the children signed in: their stopped board
    says so, shows no "Waiting" banner, and has a button back to their page."""
    ada = world.client("child_a")
    world.client("teacher_a").post(
        reverse("classroom:assignment_end", args=[world.assignment_a.pk])
    )
    world.match_a.refresh_from_db()
    assert world.match_a.status == Match.Status.ABANDONED
    response = ada.get(reverse("games:play", args=[world.match_a.public_id]))
    assert "Your teacher has ended the game." in response.text
    assert "Waiting" not in response.text and "Your turn" not in response.text
    assert f'href="{reverse("classroom:child_home")}">Back to my page</a>' in response.text
    # The class teacher watching the same game gets neither a turn banner nor a button.
    watch = reverse("games:spectate", args=[world.match_a.public_id])
    watched = world.client("teacher_a").get(watch)
    assert watched.status_code == 200
    assert "Your teacher has ended the game." in watched.text
    assert "Waiting" not in watched.text and "Back to my page" not in watched.text


@pytest.mark.django_db
def test_games_of_two_sessions_are_told_apart_on_the_wall_and_the_childs_page(world):
    other = Assignment.objects.create(
        classroom=world.class_a, title="Purple practice", opens_at=timezone.now()
    )
    other.new_match(
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": world.child_a.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Zed", "bot_level": "wizard"},
        ],
        options={"tier": "purple"},
        seed=4,
    )
    home = world.client("child_a").get(reverse("classroom:child_home")).text
    assert 'class="resume-session">Practice</span>' in home
    assert 'class="resume-session">Purple practice</span>' in home
    wall = (
        world.client("teacher_a")
        .get(reverse("classroom:session_wall", args=[world.class_a.pk]))
        .text
    )
    assert '<p class="wall-session">Practice</p>' in wall
    assert '<p class="wall-session">Purple practice</p>' in wall


@pytest.mark.django_db
def test_one_sessions_games_need_no_session_name_on_the_wall(world):
    wall = (
        world.client("teacher_a")
        .get(reverse("classroom:session_wall", args=[world.class_a.pk]))
        .text
    )
    assert "Ada" in wall and "wall-session" not in wall


@pytest.mark.django_db
def test_an_ended_session_can_be_used_again_as_a_new_one(world):
    ended = Assignment.objects.create(
        classroom=world.class_a,
        created_by=world.teacher_a,
        title="Monday warm-up",
        tier="purple",
        opponents="bot",
        bot_level="coach",
        target_kind="minutes",
        target_value=12,
        accuracy_first=True,
        opens_at=timezone.now() - timedelta(days=7),
        tier_overrides={str(world.child_a2.pk): "green"},
    )
    ended.groups.set([world.group_a])
    Assignment.objects.filter(pk=ended.pk).end()
    client = world.client("teacher_a")
    listing = client.get(reverse("classroom:assignment_list", args=[world.class_a.pk])).text
    entry = listing[listing.index("Monday warm-up") :]
    again = reverse("classroom:assignment_new", args=[world.class_a.pk]) + f"?again={ended.pk}"
    assert f'href="{again}">Use again' in entry
    assert reverse("classroom:assignment_edit", args=[ended.pk]) not in entry.split("</li>")[0]
    form = client.get(again)
    assert form.status_code == 200
    html = form.text
    assert 'value="Monday warm-up"' in html
    for name, value in (("tier", "purple"), ("opponents", "bot"), ("bot_level", "coach")):
        assert re.search(rf'name="{name}" value="{value}"[^>]* checked', html), name
    assert 'name="target_value" value="12"' in html
    assert re.search(r'name="who" value="groups"[^>]* checked', html)
    select = html.split(f'id="id_child_tier_{world.child_a2.pk}"')[1].split("</select>")[0]
    assert '<option value="green" selected>' in select
    # Another class's session, or nonsense, is not found.
    other = Assignment.objects.create(classroom=world.class_b, title="B", opens_at=timezone.now())
    url = reverse("classroom:assignment_new", args=[world.class_a.pk])
    assert client.get(f"{url}?again={other.pk}").status_code == 404
    assert client.get(f"{url}?again=x").status_code == 404
    # The old edit page says the session has ended and points to "use again".
    edit = client.get(reverse("classroom:assignment_edit", args=[ended.pk])).text
    assert "This session has ended" in edit and again.replace("&", "&amp;") in edit


@pytest.mark.django_db
def test_the_session_list_costs_the_same_queries_for_one_session_or_many(world):
    def make(n):
        for i in range(n):
            Assignment.objects.create(
                classroom=world.class_a,
                title=f"S{i}",
                opens_at=timezone.now(),
                tier_overrides={str(world.child_a2.pk): "purple"},
            )

    client = world.client("teacher_a")
    url = reverse("classroom:assignment_list", args=[world.class_a.pk])
    make(1)
    client.get(url)  # warm the session
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as one:
        client.get(url)
    make(5)
    with CaptureQueriesContext(connection) as six:
        assert "1 child on other tables" in client.get(url).text
    assert len(six) == len(one)


@pytest.mark.parametrize("name", ["assignment_list", "assignment_new", "assignment_edit"])
def test_the_game_sessions_tab_is_marked_on_every_session_page(world, name):
    pk = world.assignment_a.pk if name == "assignment_edit" else world.class_a.pk
    html = world.client("teacher_a").get(reverse(f"classroom:{name}", args=[pk])).text
    nav = re.search(r'<nav class="class-nav".*?</nav>', html, re.S).group(0)
    current = re.findall(r'<a [^>]*aria-current="page"[^>]*>([^<]+)</a>', nav)
    assert current == ["Game sessions"]


@pytest.mark.django_db
def test_the_wall_shows_only_the_pause_or_resume_that_applies(world):
    """The wall shows "Pause all" while something plays and "Resume all" while something is
    paused, never both for nothing; after the teacher's press (htmx) the buttons follow out of
    band."""
    teacher = world.client("teacher_a")
    wall = reverse("classroom:session_wall", args=[world.class_a.pk])

    def buttons(html):
        controls = re.search(r'<div id="wall-controls".*?</details>', html, re.S).group(0)
        return ("Pause all" in controls, "Resume all" in controls)

    assert buttons(teacher.get(wall).text) == (True, False)
    paused = teacher.post(
        reverse("classroom:wall_pause", args=[world.class_a.pk]), headers={"HX-Request": "true"}
    )
    assert 'id="wall-board"' in paused.text and 'hx-swap-oob="true"' in paused.text
    assert buttons(paused.text) == (False, True)
    assert buttons(teacher.get(wall).text) == (False, True)
    # The 2 s updates leave the buttons alone (an open "End all…" stays open).
    board = teacher.get(reverse("classroom:wall_board", args=[world.class_a.pk]))
    assert "wall-controls" not in board.text
    resumed = teacher.post(
        reverse("classroom:wall_resume", args=[world.class_a.pk]), headers={"HX-Request": "true"}
    )
    assert buttons(resumed.text) == (True, False)


# --- the wall: each child's progress -----------------------------------------------------------


def wall_rows(text) -> dict[str, str]:
    """{child's name: the text of their row} in the wall's children panel."""
    panel = re.search(r'<section class="wall-children".*?</section>', text, re.S)
    assert panel, "no children panel"
    rows = re.findall(r'<li class="child-progress[^"]*">(.*?)</li>', panel.group(0), re.S)
    out = {}
    for row in rows:
        name = re.search(r"<bdi>(.*?)</bdi>", row).group(1)
        out[name] = " ".join(re.sub(r"<[^>]+>", " ", row).split())
    return out


@pytest.mark.django_db
def test_the_wall_shows_what_each_child_is_doing_and_how_far_they_are(world):
    from classroom.child_session import session_end
    from classroom.models import Group
    from classroom.models import WarmUp

    Assignment.objects.filter(pk=world.assignment_a.pk).update(target_value=2)
    cleo = Student.objects.create(classroom=world.class_a, name="Cleo")
    dan = Student.objects.create(classroom=world.class_a, name="Dan")
    eve = Student.objects.create(classroom=world.class_a, name="Eve")
    fin = Student.objects.create(classroom=world.class_a, name="Fin")
    # Ada plays (match_a); Ali finished two games; Cleo waits; Dan warms up; Eve signed in.
    for _ in range(2):
        done = world.assignment_a.new_match(
            [
                {"kind": Seat.Kind.STUDENT, "name": "Ali", "owner_key": world.child_a2.seat_key},
                {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
            ],
            options={"tier": "green"},
        )
        Match.objects.filter(pk=done.pk).update(status=Match.Status.FINISHED)
    WaitingEntry.objects.create(assignment=world.assignment_a, student=cleo, tier="green")
    WarmUp.objects.create(
        student=dan, assignment=world.assignment_a, facts=[[2, 3]], started_at=timezone.now()
    )
    eve.signed_in(session_end(world.school_a))
    teacher = world.client("teacher_a")
    page = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk]))
    rows = wall_rows(page.text)
    assert list(rows) == ["Ada", "Ali", "Cleo", "Dan", "Eve", "Fin"]  # the class's order
    assert rows["Ada"] == "Ada ▶ Playing 0 of 2 games"
    assert rows["Ali"] == "Ali ✓ Target reached 2 of 2 games ✓"
    assert rows["Cleo"] == "Cleo ⌛ Waiting for a partner 0 of 2 games"
    assert rows["Dan"] == "Dan ⚗ Warming up 0 of 2 games"
    assert rows["Eve"] == "Eve ● Signed in 0 of 2 games"
    assert rows["Fin"] == "Fin ○ Not signed in yet 0 of 2 games"
    assert "5 of 6 signed in" in page.text and "1 reached the target" in page.text
    assert '<progress max="2" value="2" aria-hidden="true">' in page.text
    # A sign-in changes the wall's version: the poll answers with the new board.
    board = reverse("classroom:wall_board", args=[world.class_a.pk])
    version = board_version(page.text)
    assert teacher.get(board, {"v": version}).status_code == 204
    fin.signed_in(session_end(world.school_a))
    changed = teacher.get(board, {"v": version}, headers={"HX-Request": "true"})
    assert changed.status_code == 200 and wall_rows(changed.text)["Fin"].startswith("Fin ● Signed")
    # A child added to the class (or renamed) changes it too.
    version = board_version(changed.text)
    Student.objects.create(classroom=world.class_a, name="Gus")
    changed = teacher.get(board, {"v": version}, headers={"HX-Request": "true"})
    assert changed.status_code == 200 and "Gus" in wall_rows(changed.text)
    # The teacher ends the sessions: everybody is signed out (and no session is open).
    world.class_a.end_signins()
    assert not Student.objects.filter(signed_in_until__isnull=False).exists()
    # A session for one group lists only that group's children; minutes are counted too.
    Assignment.objects.filter(pk=world.assignment_a.pk).end()
    owls = Assignment.objects.create(
        classroom=world.class_a,
        created_by=world.teacher_a,
        title="Owls",
        opens_at=timezone.now(),
        target_kind=Assignment.Target.MINUTES,
        target_value=10,
    )
    owls.groups.add(Group.objects.get(name="Owls"))
    rows = wall_rows(teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text)
    assert rows == {"Ada": "Ada ○ Not signed in yet 0 of 10 minutes"}
    # A child who has played in the session and is not signed in now: not "yet".
    Assignment.objects.filter(pk=owls.pk).update(target_kind=Assignment.Target.GAMES)
    played = owls.new_match(
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": world.child_a.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
        ],
        options={"tier": "green"},
    )
    Match.objects.filter(pk=played.pk).update(status=Match.Status.FINISHED)
    rows = wall_rows(teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk])).text)
    assert rows == {"Ada": "Ada ○ Not signed in 1 of 10 games"}


@pytest.mark.django_db
def test_signing_in_and_out_is_what_the_wall_shows(world):
    from .test_signin_flow import post_pictures
    from .test_signin_flow import right_pictures

    client = Client()
    response = post_pictures(client, world.child_a2, right_pictures(world.child_a2))
    assert response.status_code == 302
    world.child_a2.refresh_from_db()
    assert world.child_a2.is_signed_in()
    # Another child signs in on the same Chromebook: Ali is signed out.
    post_pictures(client, world.child_a, right_pictures(world.child_a))
    world.child_a2.refresh_from_db()
    world.child_a.refresh_from_db()
    assert not world.child_a2.is_signed_in() and world.child_a.is_signed_in()
    # New pictures end Ada's session, and the wall says so.
    world.child_a.new_pictures()
    world.child_a.refresh_from_db()
    assert not world.child_a.is_signed_in()


@pytest.mark.django_db
def test_the_wall_costs_as_many_queries_for_thirty_children_as_for_two(world):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    teacher = world.client("teacher_a")
    url = reverse("classroom:wall_board", args=[world.class_a.pk])
    teacher.get(url)
    with CaptureQueriesContext(connection) as two:
        response = teacher.get(url)
    assert len(wall_rows(response.text)) == 2
    Student.objects.bulk_create(
        [Student(classroom=world.class_a, name=f"Child {i}") for i in range(30)]
    )
    with CaptureQueriesContext(connection) as thirty_two:
        response = teacher.get(url)
    assert len(wall_rows(response.text)) == 32
    assert len(thirty_two) == len(two)
