"""The database away for a request (docs/reliability.md, "When the database is away"): the
connection really fails (the default connection closed and pointed where nothing answers: a
closed port on PostgreSQL, a file in a folder that does not exist on SQLite). A page, a move of
the board (htmx) and a warm-up answer (htmx) answer 503 with Retry-After and "try again in a
moment" in the child's language, never 500; the same request sent again once the database is
back counts once. A database error raised outside the view (the session read from the
database) answers 503 too; /healthz keeps its own 503; every other database error stays 500."""

import json
import re
import socket
import threading
from contextlib import contextmanager

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.db import DatabaseError
from django.db import IntegrityError
from django.db import InterfaceError
from django.db import ProgrammingError
from django.db import connection
from django.db import connections
from django.test import Client
from django.urls import reverse

from classroom.languages import CHILD_LANGUAGE
from classroom.middleware import RETRY_AFTER_SECONDS
from classroom.models import Attempt
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from classroom.models import WarmUp
from games.models import Match
from games.models import Move
from games.models import Seat

from ..conftest import child_client
from .conftest import move_data

HX = {"HX-Request": "true"}
MESSAGE = "We lost the connection for a moment. Trying again…"
# The test's own Spanish for the message (the project's catalogue may not have it yet): a
# Spanish answer that shows it went through gettext in the child's language.
SPANISH = "Se ha ido la conexión un momento. Lo intentamos otra vez…"


@contextmanager
def database_away(tmp_path):
    """The database away for the connections made inside: they cannot be made (every thread's
    connection reads the same settings, pointed where nothing answers). A connection open
    already (the test's own, in its transaction) is not touched."""
    settings_dict = connections.settings["default"]
    kept = dict(settings_dict)
    if connection.vendor == "sqlite":
        settings_dict["NAME"] = str(tmp_path / "no-such-folder" / "db.sqlite3")
    else:
        with socket.socket() as s:  # a port nothing listens on once the socket is closed
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        settings_dict.update(HOST="127.0.0.1", PORT=str(port))
    try:
        yield
    finally:
        settings_dict.clear()
        settings_dict.update(kept)


def while_away(tmp_path, send):
    """``send()`` run as a server runs a request, on a thread of its own with a connection of
    its own, while the database is away. Returns what ``send`` returns."""
    outcome = {}

    def run():
        try:
            outcome["value"] = send()
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            connections.close_all()

    with database_away(tmp_path):
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(30)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture
def spanish(settings, tmp_path):
    """A Spanish catalogue with the message, first in LOCALE_PATHS (Django reloads them)."""
    folder = tmp_path / "locale" / "es" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalog = Catalog(locale="es")
    catalog.add(MESSAGE, SPANISH)
    with (folder / "django.mo").open("wb") as out:
        write_mo(out, catalog)
    settings.LOCALE_PATHS = [tmp_path / "locale", *settings.LOCALE_PATHS]


@pytest.fixture
def child(db):
    return make_child()


def make_child() -> Student:
    """Ada, at her board (her turn, against a friend) and in a warm-up round at home."""
    teacher = get_user_model().objects.create_user("t-away")
    school = School.objects.create(name="Away School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4A")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": ada.seat_key},
        {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "ben-away"},
    ]
    match = Match.create("multiplipotion", seats, options={"tier": "green"}, seed=5)
    if match.to_act() != (0,):  # Ben first: his move, so that it is Ada's turn
        match.play(1, first_action(match, 1), version=match.version, follow_ups=False)
        match.refresh_from_db()
    ada.match, ada.teacher = match, teacher
    ada.warm_up = WarmUp.objects.start(ada)
    return ada


def first_action(match, seat) -> dict:
    state = match.engine.load(match.state)
    return match.engine.legal_actions(state, seat)[0]


def requests_of(ada, client):
    """What a child's device sends: (what, method, url, data, headers), with a warm-up answer
    to the question on the screen and a move from the board, as the pages hold them."""
    round_url = reverse("classroom:warm_up_round", args=[ada.warm_up.pk])
    token = re.search(r'name="token" value="([^"]+)"', client.get(round_url).text).group(1)
    move = move_data(first_action(ada.match, 0), ada.match.version)
    return [
        ("page", "get", reverse("classroom:child_home"), None, {}),
        ("move", "post", f"/play/{ada.match.public_id}/move/", move, HX),
        ("answer", "post", round_url, {"token": token, "answer": "7"}, HX),
    ]


def send(client, method, url, data, headers):
    return getattr(client, method)(url, data, headers=headers)


def assert_try_again(response, what, language, text):
    assert response.status_code == 503, (what, response.status_code)
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response["Content-Language"] == language
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert text in html and "Something went wrong" not in html, what
    if what == "page":  # the whole page, which asks again by itself
        assert f'<html lang="{language}">' in html
        assert f'data-reload-after="{RETRY_AFTER_SECONDS}"' in html
    else:  # htmx: the notice alone (the board or the round stays as it is)
        assert "<html" not in html and "data-outage" in html and 'role="status"' in html


@pytest.mark.parametrize(("language", "text"), [("en", MESSAGE), ("es", SPANISH)])
def test_a_page_a_move_and_a_warm_up_answer_say_try_again(child, spanish, tmp_path, language, text):
    School.objects.filter(pk=child.classroom.school_id).update(language=language)
    client = child_client(child)
    session = client.session
    session[CHILD_LANGUAGE] = language  # the school's language, as the sign-in leaves it
    session.save()
    requests = requests_of(child, client)
    version = child.match.version
    answers = while_away(
        tmp_path, lambda: {what: send(client, *request) for what, *request in requests}
    )
    for what, response in answers.items():
        assert_try_again(response, what, language, text)
    child.match.refresh_from_db()
    assert child.match.version == version
    assert not Attempt.objects.filter(warm_up=child.warm_up).exists()


def test_the_same_answer_sent_again_counts_once(child, tmp_path):
    """What static/js/app.js does after a 503: the same request once the database is back, and
    again (as if the first answer were lost on its way back): each counts once."""
    client = child_client(child)
    _, (_, _, move_url, move, _), (_, _, round_url, answer, _) = requests_of(child, client)
    version = child.match.version
    lost = while_away(
        tmp_path,
        lambda: [
            client.post(move_url, move, headers=HX),
            client.post(round_url, answer, headers=HX),
        ],
    )
    assert [response.status_code for response in lost] == [503, 503]
    assert [client.post(move_url, move, headers=HX).status_code for _ in range(2)] == [200, 200]
    assert [client.post(round_url, answer, headers=HX).status_code for _ in range(2)] == [200, 409]
    child.match.refresh_from_db()
    assert child.match.version == version + 1
    assert Move.objects.filter(match=child.match, client_move_id=move["move_id"]).count() == 1
    assert Attempt.objects.filter(warm_up=child.warm_up).count() == 1


def test_a_json_download_gets_json_and_healthz_keeps_its_own_503(child, tmp_path):
    client = Client(raise_request_exception=False)  # the user is read outside the view
    client.force_login(child.teacher)
    download, health = while_away(
        tmp_path,
        lambda: [
            client.get(reverse("classroom:child_export_json", args=[child.pk])),
            Client().get(reverse("classroom:healthz")),
        ],
    )
    assert download.status_code == 503 and download["Retry-After"] == str(RETRY_AFTER_SECONDS)
    body = json.loads(download.content)
    assert body["error"] == "database_unavailable" and body["message"] == MESSAGE
    # /healthz catches the database's error itself: its own answer, untouched.
    assert health.status_code == 503 and health.json() == {"status": "error"}
    assert not health.has_header("Retry-After")


def test_the_database_away_outside_the_view_answers_503(child, tmp_path):
    """Read by the middleware before the view, where process_exception does not reach: a
    teacher's user (ChosenLanguageMiddleware asks whether they are logged in), a child's session
    in the database only (not in the cache). Django's handler500 answers 503 as the view would.
    (The test client raises what the server logged as unhandled: told not to, it shows the
    answer.)"""
    teacher = Client(raise_request_exception=False)
    teacher.force_login(child.teacher)
    session = SessionStore()
    session["student_id"] = child.pk
    session.create()
    ada = Client(raise_request_exception=False)
    ada.cookies["sessionid"] = session.session_key
    page, answer = while_away(
        tmp_path,
        lambda: [
            teacher.get(reverse("classroom:teacher_home")),
            ada.get(reverse("classroom:child_home"), headers=HX),
        ],
    )
    assert_try_again(page, "page", "en", MESSAGE)
    assert_try_again(answer, "answer", "en", MESSAGE)


@pytest.mark.parametrize("error", [ProgrammingError, IntegrityError, DatabaseError])
def test_other_database_errors_stay_500(child, error):
    """In the view (a child's answer) and outside it (a teacher's user)."""

    def broken(execute, sql, params, many, context):
        raise error("not an outage")

    teacher = Client(raise_request_exception=False)
    teacher.force_login(child.teacher)
    ada = child_client(child, raise_request_exception=False)
    answer_url = reverse("classroom:warm_up_round", args=[child.warm_up.pk])
    with connection.execute_wrapper(broken):
        answers = [
            teacher.get(reverse("classroom:teacher_home")),
            ada.post(answer_url, {"token": "x", "answer": "1"}, headers=HX),
        ]
    for response in answers:
        assert response.status_code == 500
        assert not response.has_header("Retry-After")


def test_a_lost_connection_as_interface_error_answers_503(child):
    """InterfaceError (the connection closed under the driver: psycopg2's "connection already
    closed"), raised where Django's cursor wrapper would raise it."""

    def closed(execute, sql, params, many, context):
        raise InterfaceError("connection already closed")

    client = child_client(child)
    with connection.execute_wrapper(closed):
        response = client.post(
            reverse("classroom:warm_up_round", args=[child.warm_up.pk]),
            {"token": "x", "answer": "1"},
            headers=HX,
        )
    assert_try_again(response, "answer", "en", MESSAGE)
