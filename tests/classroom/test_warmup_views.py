"""The potion warm-up's pages: Play goes through a round first, answers by plain form and by
htmx, the status codes of refused answers, the child's home round, the wall's "Warming up"
and the teacher's skip, the session form's length and the reports of warm-up answers."""

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import WaitingEntry
from classroom.models import WarmUp
from games.models import Match

from ..conftest import child_client

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


@pytest.fixture
def people(django_user_model):
    class People:
        pass

    p = People()
    p.teacher = django_user_model.objects.create_user("t-warm", password="x-long-pass-1")
    p.other_teacher = django_user_model.objects.create_user("t-other", password="x-long-pass-1")
    p.school = School.objects.create(name="Kauri School")
    p.classroom = Classroom.objects.create(school=p.school, teacher=p.teacher, name="4K")
    p.ada = Student.objects.create(classroom=p.classroom, name="Ada")
    p.ben = Student.objects.create(classroom=p.classroom, name="Ben")
    p.session = Assignment.objects.create(
        classroom=p.classroom,
        title="Potions",
        tier="green",
        opens_at=timezone.now() - timedelta(minutes=5),
        opponents="classmates_then_bot",
    )
    p.teacher_client = Client()
    p.teacher_client.force_login(p.teacher)
    return p


def token_of(response) -> str:
    return re.search(r'name="token" value="([^"]+)"', response.text).group(1)


def sum_of(response) -> tuple[int, int]:
    m = re.search(r"(\d) × (\d) =</label>", response.text)
    return int(m.group(1)), int(m.group(2))


def start_from_play(people, student):
    client = child_client(student)
    response = client.post(reverse("classroom:child_play", args=[people.session.pk]))
    warm_up = WarmUp.objects.get(student=student)
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:warm_up_round", args=[warm_up.pk])
    return client, warm_up


def test_play_starts_a_warm_up_and_each_answer_is_an_attempt(people):
    client, warm_up = start_from_play(people, people.ada)
    assert not WaitingEntry.objects.exists()  # not in the waiting room yet
    page = client.get(warm_up.get_absolute_url())
    assert page.status_code == 200
    assert 'inputmode="numeric"' in page.text and 'for="warmup-answer"' in page.text
    assert "js/warmup.js" in page.text and 'data-pad-key="7"' in page.text
    assert "Time left" in page.text
    a, b = sum_of(page)
    assert [a, b] == warm_up.facts[0]
    # htmx: the feedback and the next question, swapped in.
    right = client.post(
        warm_up.get_absolute_url(), {"token": token_of(page), "answer": str(a * b)}, headers=HX
    )
    assert right.status_code == 200
    assert "<html" not in right.text and 'id="warmup-round"' in right.text
    assert "is-right" in right.text and f"{a} × {b} = {a * b}" in right.text
    a2, b2 = sum_of(right)
    assert [a2, b2] == warm_up.facts[1]
    # A plain form: the whole page, the right answer shown after a wrong one.
    wrong = client.post(
        warm_up.get_absolute_url(), {"token": token_of(right), "answer": str(a2 * b2 + 1)}
    )
    assert wrong.status_code == 200 and "<html" in wrong.text
    assert "Good try!" in wrong.text and f"{a2} × {b2} = {a2 * b2}" in wrong.text
    rows = list(Attempt.objects.order_by("question").values_list("question", "correct", "context"))
    assert rows == [(0, True, "warm-up"), (1, False, "warm-up")]


def test_refused_answers_say_why_and_store_nothing(people):
    client, warm_up = start_from_play(people, people.ada)
    page = client.get(warm_up.get_absolute_url())
    token = token_of(page)
    url = warm_up.get_absolute_url()
    garbage = client.post(url, {"token": token, "answer": "12a"}, headers=HX)
    assert garbage.status_code == 422
    assert "Type a number" in garbage.text and token_of(garbage) == token  # same question
    empty = client.post(url, {"token": token, "answer": ""})
    assert empty.status_code == 422 and "Type your answer" in empty.text
    forged = client.post(url, {"token": token[:-2] + "xx", "answer": "4"}, headers=HX)
    assert forged.status_code == 422 and "could not be checked" in forged.text
    assert not Attempt.objects.exists()
    assert client.post(url, {"token": token, "answer": "4"}).status_code == 200
    replay = client.post(url, {"token": token, "answer": "5"}, headers=HX)
    assert replay.status_code == 409 and "answered that question already" in replay.text
    assert Attempt.objects.count() == 1 and Attempt.objects.get().answer == 4


def test_only_the_child_who_owns_the_round_sees_it(people):
    client, warm_up = start_from_play(people, people.ada)
    token = token_of(client.get(warm_up.get_absolute_url()))
    ben = child_client(people.ben)
    assert ben.get(warm_up.get_absolute_url()).status_code == 404
    assert ben.post(warm_up.get_absolute_url(), {"token": token, "answer": "4"}).status_code == 404
    # Ben's own round, Ada's token: refused as not his.
    bens = WarmUp.objects.start(people.ben, people.session)
    response = ben.post(bens.get_absolute_url(), {"token": token, "answer": "4"})
    assert response.status_code == 404 and "somebody else" in response.text
    teacher = people.teacher_client.get(warm_up.get_absolute_url())
    assert teacher.status_code == 302 and teacher["Location"] == reverse("classroom:join")
    assert Client().get(warm_up.get_absolute_url())["Location"] == reverse("classroom:join")
    assert not Attempt.objects.exists()


def test_when_the_time_is_up_the_round_ends_and_the_child_goes_on_to_the_game(people):
    client, warm_up = start_from_play(people, people.ada)
    page = client.get(warm_up.get_absolute_url())
    a, b = sum_of(page)
    client.post(warm_up.get_absolute_url(), {"token": token_of(page), "answer": str(a * b)})
    WarmUp.objects.filter(pk=warm_up.pk).update(started_at=timezone.now() - timedelta(seconds=61))
    end = client.get(warm_up.get_absolute_url(), headers=HX)
    assert end.status_code == 200
    assert "You got 1 fact right!" in end.text and "Go to the game" in end.text
    assert 'name="token"' not in end.text
    warm_up.refresh_from_db()
    assert warm_up.finished_at is not None
    # Too late for an answer (past the grace): refused, the end shown again.
    late = client.post(warm_up.get_absolute_url(), {"token": token_of(page), "answer": "1"})
    assert late.status_code == 409 and "You got 1 fact right!" in late.text
    assert Attempt.objects.count() == 1
    # On to the game: the waiting room, no second warm-up.
    go = client.post(reverse("classroom:child_play", args=[people.session.pk]))
    assert go["Location"] == reverse("classroom:waiting_room", args=[people.session.pk])
    assert WaitingEntry.objects.filter(student=people.ada).exists()
    assert WarmUp.objects.count() == 1


def test_an_accuracy_first_round_has_no_clock(people):
    Assignment.objects.filter(pk=people.session.pk).update(accuracy_first=True)
    client, warm_up = start_from_play(people, people.ada)
    page = client.get(warm_up.get_absolute_url())
    assert "Time left" not in page.text and "Question 1 of 10" in page.text


def test_a_child_can_warm_up_at_home(people):
    client = child_client(people.ada)
    home = client.get(reverse("classroom:child_home"))
    assert "Warm up" in home.text and reverse("classroom:warm_up_home") in home.text
    response = client.post(reverse("classroom:warm_up_home"))
    warm_up = WarmUp.objects.get(student=people.ada)
    assert response["Location"] == warm_up.get_absolute_url()
    # a second tap while it runs carries the same round on
    assert client.post(reverse("classroom:warm_up_home"))["Location"] == warm_up.get_absolute_url()
    assert WarmUp.objects.filter(student=people.ada).count() == 1
    assert warm_up.home and warm_up.assignment is None
    page = client.get(warm_up.get_absolute_url())
    a, b = sum_of(page)
    assert a <= 5 and b <= 5  # the tables of the child's session
    client.post(warm_up.get_absolute_url(), {"token": token_of(page), "answer": str(a * b)})
    assert Attempt.objects.get().home is True
    WarmUp.objects.filter(pk=warm_up.pk).update(started_at=timezone.now() - timedelta(seconds=61))
    end = client.get(warm_up.get_absolute_url())
    assert "Back home" in end.text and "Warm up again" in end.text
    assert "Go to the game" not in end.text
    assert client.get(reverse("classroom:warm_up_home")).status_code == 405
    # once it is over, "Warm up again" starts a new round
    assert client.post(reverse("classroom:warm_up_home"))["Location"] != warm_up.get_absolute_url()
    assert WarmUp.objects.filter(student=people.ada).count() == 2


def test_the_wall_shows_who_is_warming_up_and_the_teacher_can_skip_it(people):
    client, warm_up = start_from_play(people, people.ada)
    page = client.get(warm_up.get_absolute_url())
    wall_url = reverse("classroom:session_wall", args=[people.classroom.pk])
    wall = people.teacher_client.get(wall_url)
    assert "Warming up (1):" in wall.text and "<bdi>Ada</bdi>" in wall.text.split("Warming up")[1]
    assert "Skip the warm-up" in wall.text
    board = reverse("classroom:wall_board", args=[people.classroom.pk])
    version = re.search(r'data-version="(\w+)"', wall.text).group(1)
    assert people.teacher_client.get(f"{board}?v={version}", headers=HX).status_code == 204
    # Another teacher cannot skip this class's warm-up.
    other = Client()
    other.force_login(people.other_teacher)
    skip = reverse("classroom:wall_warm_up_skip", args=[people.classroom.pk])
    assert other.post(skip).status_code == 404
    assert not Assignment.objects.get(pk=people.session.pk).warm_up_skipped
    response = people.teacher_client.post(skip, headers=HX)
    assert response.status_code == 200 and "Turn the warm-up back on" in response.text
    assert "Warming up" not in response.text
    assert Assignment.objects.get(pk=people.session.pk).warm_up_skipped
    warm_up.refresh_from_db()
    assert warm_up.skipped and warm_up.finished_at is not None
    assert people.teacher_client.get(f"{board}?v={version}", headers=HX).status_code == 200
    # The child's next request goes to the game: an answer (htmx) and a reload alike.
    answer = client.post(
        warm_up.get_absolute_url(), {"token": token_of(page), "answer": "4"}, headers=HX
    )
    assert answer["HX-Redirect"] == reverse("classroom:waiting_room", args=[people.session.pk])
    assert not Attempt.objects.exists()
    ben = child_client(people.ben)
    to_game = ben.post(reverse("classroom:child_play", args=[people.session.pk]))["Location"]
    match = Match.objects.get(assignments=people.session)  # Ben paired with Ada at once
    assert to_game == match.get_absolute_url()
    assert not WarmUp.objects.filter(student=people.ben).exists()
    # Back on: the next child to press Play warms up first.
    on = people.teacher_client.post(
        reverse("classroom:wall_warm_up_on", args=[people.classroom.pk])
    )
    assert on.status_code == 302
    assert not Assignment.objects.get(pk=people.session.pk).warm_up_skipped
    cat = Student.objects.create(classroom=people.classroom, name="Cat")
    start_from_play(people, cat)


def test_pause_all_stops_a_warm_up_and_resume_all_goes_on_where_it_stopped(people):
    """The wall's "Pause all": the answer on the screen is taken, then the child reads that
    the teacher has paused the games, with the time left standing still and no question;
    the page's poll answers 204 until "Resume all", which brings the next question back with
    the time the round had. Another teacher's pause changes nothing."""
    client, warm_up = start_from_play(people, people.ada)
    page = client.get(warm_up.get_absolute_url())
    a, b = sum_of(page)
    other = Client()
    other.force_login(people.other_teacher)
    pause = reverse("classroom:wall_pause", args=[people.classroom.pk])
    assert other.post(pause).status_code == 404
    assert WarmUp.objects.get(pk=warm_up.pk).paused_at is None
    people.teacher_client.post(pause)
    warm_up.refresh_from_db()
    assert warm_up.paused_at is not None
    left = warm_up.seconds_left()
    answer = client.post(
        warm_up.get_absolute_url(), {"token": token_of(page), "answer": str(a * b)}, headers=HX
    )
    assert answer.status_code == 200 and "is-right" in answer.text
    assert "Your teacher has paused the games." in answer.text
    assert 'name="token"' not in answer.text and "data-seconds-left" not in answer.text
    assert f"Time left <b>{left // 60}:{left % 60:02d}</b>" in answer.text
    assert f'href="{warm_up.get_absolute_url()}"' in answer.text  # Check again
    assert Attempt.objects.count() == 1
    # Time passes while paused: the clock does not move, the poll has nothing new.
    WarmUp.objects.filter(pk=warm_up.pk).update(
        paused_at=warm_up.paused_at - timedelta(minutes=3),
        started_at=warm_up.started_at - timedelta(minutes=3),
    )
    poll = client.get(warm_up.get_absolute_url() + "?paused=1", headers=HX)
    assert poll.status_code == 204
    reload = client.get(warm_up.get_absolute_url())
    assert "Your teacher has paused the games." in reload.text and 'name="token"' not in reload.text
    people.teacher_client.post(reverse("classroom:wall_resume", args=[people.classroom.pk]))
    back = client.get(warm_up.get_absolute_url() + "?paused=1", headers=HX)
    assert back.status_code == 200 and 'name="token"' in back.text
    assert sum_of(back) == tuple(warm_up.facts[1])
    clock = int(re.search(r'data-seconds-left="(\d+)"', back.text).group(1))
    assert left - 2 <= clock <= left
    warm_up.refresh_from_db()
    assert warm_up.paused_at is None and warm_up.finished_at is None


def test_ending_the_session_ends_a_paused_warm_up(people, django_capture_on_commit_callbacks):
    _client, warm_up = start_from_play(people, people.ada)
    people.teacher_client.post(reverse("classroom:wall_pause", args=[people.classroom.pk]))
    with django_capture_on_commit_callbacks() as callbacks:
        people.teacher_client.post(
            reverse("classroom:wall_end", args=[people.classroom.pk]), {"confirm": "yes"}
        )
    warm_up.refresh_from_db()
    assert warm_up.finished_at is not None and warm_up.paused_at is None
    assert any("enqueue_stats" in c.__qualname__ for c in callbacks)  # its answers counted
    assert not WarmUp.objects.running().exists()


def test_no_warm_up_when_the_session_has_none(people):
    Assignment.objects.filter(pk=people.session.pk).update(warm_up_minutes=0)
    client = child_client(people.ada)
    response = client.post(reverse("classroom:child_play", args=[people.session.pk]))
    assert response["Location"] == reverse("classroom:waiting_room", args=[people.session.pk])
    assert not WarmUp.objects.exists()


def test_the_session_form_sets_the_warm_up_length(people):
    url = reverse("classroom:assignment_new", args=[people.classroom.pk])
    page = people.teacher_client.get(url)
    assert 'name="warm_up_minutes"' in page.text and "2 minutes" in page.text
    data = {
        "title": "Long warm-up",
        "tier": "green",
        "opponents": "bot",
        "bot_level": "apprentice",
        "target_kind": "games",
        "target_value": "2",
        "opens_at": timezone.localtime().strftime("%Y-%m-%dT%H:%M"),
        "who": "class",
        "warm_up_minutes": "2",
    }
    assert people.teacher_client.post(url, data).status_code == 302
    assert Assignment.objects.get(title="Long warm-up").warm_up_minutes == 2
    bad = people.teacher_client.post(url, data | {"title": "Bad", "warm_up_minutes": "5"})
    assert bad.status_code == 422 and not Assignment.objects.filter(title="Bad").exists()
    del data["warm_up_minutes"]
    assert people.teacher_client.post(url, data | {"title": "Default"}).status_code == 302
    assert Assignment.objects.get(title="Default").warm_up_minutes == 1


def test_reports_show_warm_up_answers(people):
    client, warm_up = start_from_play(people, people.ada)
    page = client.get(warm_up.get_absolute_url())
    a, b = sum_of(page)
    client.post(warm_up.get_absolute_url(), {"token": token_of(page), "answer": str(a * b + 1)})
    fact = people.teacher_client.get(reverse("classroom:child_fact", args=[people.ada.pk, a, b]))
    assert fact.status_code == 200 and "warm-up" in fact.text
    export = people.teacher_client.get(reverse("classroom:child_export_json", args=[people.ada.pk]))
    assert export.status_code == 200
    (row,) = json.loads(export.content.decode("utf-8-sig"))["attempts"]
    assert (row["match"], row["context"], row["answer"]) == ("warm-up", "warm-up", a * b + 1)
    csv = people.teacher_client.get(reverse("classroom:child_export_csv", args=[people.ada.pk]))
    assert csv.status_code == 200 and "warm-up" in csv.content.decode("utf-8-sig")
