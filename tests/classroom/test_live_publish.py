"""Every code path that changes a board's token publishes the new token once committed
(docs/platform.md, "Live updates"): each one driven here, and a guard that reads the source of
games/ and classroom/ for a write of a token's field (version, paused_at, seating, status of a
match) anywhere else. Publishing is captured at ``games.live.send`` (the Redis call itself is
tested in tests/games/test_live_stream.py), so this runs on SQLite without Redis too."""

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import School
from classroom.models import Student
from games import live
from games import registry
from games import tasks
from games.models import Match
from games.models import Seat

REPO = Path(__file__).resolve().parents[2]
HTMX = {"HTTP_HX_REQUEST": "true"}

# Every function that writes a field of a board's token, and how it publishes. The guard below
# fails on a write anywhere else; each entry is driven by a test of this file.
TOKEN_WRITERS = {
    # the one path of a move: web, computer players (worker), time-outs
    "games/models/moves.py:_play_locked": "save_board",
    # an open seat taken (join), the host's computers in the empty seats
    "games/models/rooms.py:seat_filled": "save_board",
    # a computer takes over a gone person's seat; the person takes it back
    "games/models/rooms.py:hand_to_computer": "save_board",
    "games/models/rooms.py:hand_back": "save_board",
    # a family room's expiry (scrubbed: abandoned; deleted: GONE)
    "games/models/match.py:expire_rooms": "update_boards",
    # the teacher's wall: pause, resume, end of session
    "classroom/views/sessions.py:wall_pause": "update_boards",
    "classroom/views/sessions.py:wall_resume": "save_board",
    "classroom/views/sessions.py:wall_end": "update_boards",
    # a session ended from the session list (Assignment.objects.end())
    "classroom/models/assignment.py:end": "update_boards",
}
# New matches: no board shows them yet (nothing to publish).
CREATORS = {
    "games/models/match.py:create",
    "classroom/models/assignment.py:new_match",
    "classroom/models/assignment.py:make",  # the waiting room's pairing: new_match(paused_at=…)
}
TOKEN_FIELDS = {"version", "paused_at", "seating", "status"}
# A field of the same name on another model: a warm-up round's clock stopped by "Pause all"
# (WarmUp.paused_at; the wall hears of the pause from wall_pause itself).
NOT_BOARDS = {
    "classroom/models/warmup.py:start",
    "classroom/models/warmup.py:pause",
    "classroom/models/warmup.py:resume",
    "classroom/models/warmup.py:finish",
}


@pytest.fixture
def published(settings, monkeypatch):
    settings.LIVE_PUSH = True
    sent = []
    monkeypatch.setattr(live, "send", lambda public_id, token: sent.append((public_id, token)))
    return sent


GAME = "multiplipotion"  # two players


def guests(n, key="k", open_seats=(), bots=(), game=GAME):
    seats = []
    for i in range(n):
        if i in open_seats:
            seats.append({"kind": Seat.Kind.OPEN, "name": f"Open{i}"})
        elif i in bots:
            level = registry.rules()[game].LEVELS[0]
            seats.append({"kind": Seat.Kind.BOT, "name": f"Bot{i}", "bot_level": level})
        else:
            seats.append({"kind": Seat.Kind.GUEST, "name": f"P{i}", "owner_key": key})
    return seats


def guest_client(key):
    client = Client()
    session = client.session
    session["player_key"] = key
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client


def token_of(match):
    match.refresh_from_db()
    return match.poll_token


def first_action(match, seat):
    return match.engine.legal_actions(match.engine.load(match.state), seat)[0]


def last_publish(published, match):
    assert published, "nothing was published"
    assert published[-1] == (match.public_id, token_of(match))


@pytest.mark.django_db
def test_a_move_on_the_web_publishes_after_commit(published, django_capture_on_commit_callbacks):
    match = Match.create(GAME, [*guests(1, key="a"), *guests(1, key="b")])
    seat = match.to_act()[0]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = guest_client("ab"[seat]).post(
            reverse("games:move", args=[match.public_id]),
            {"version": match.version, **first_action(match, seat)},
            **HTMX,
        )
        assert response.status_code == 200
    assert published == []  # not before the commit
    for callback in callbacks:
        callback()
    last_publish(published, match)
    assert token_of(match) == "1"


@pytest.mark.django_db
def test_a_refused_move_publishes_nothing(published, django_capture_on_commit_callbacks):
    match = Match.create(GAME, guests(2, key="a"))
    with django_capture_on_commit_callbacks(execute=True):
        response = guest_client("a").post(
            reverse("games:move", args=[match.public_id]), {"version": 7, "take": "x"}, **HTMX
        )
    assert response.status_code in (409, 422)
    assert published == []


@pytest.mark.django_db
def test_computer_turns_in_the_worker_publish_each_move(
    published, django_capture_on_commit_callbacks
):
    match = Match.create(GAME, guests(2, bots=(0, 1)))
    with django_capture_on_commit_callbacks(execute=True):
        played = tasks.play_bots(match.pk)  # the worker's task, run here
    assert played >= 1
    assert len(published) == played
    assert [token for _id, token in published] == [str(n) for n in range(1, played + 1)]


@pytest.mark.django_db
def test_a_time_out_publishes(published, monkeypatch, django_capture_on_commit_callbacks):
    match = Match.create(GAME, guests(2, key="a"))
    rules = match.engine
    monkeypatch.setattr(
        rules, "timeout_action", lambda state, n: rules.legal_actions(state, n)[0], raising=False
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert match.time_out() == 1
    last_publish(published, match)


@pytest.mark.django_db
def test_a_join_and_the_hosts_computers_publish(published, django_capture_on_commit_callbacks):
    match = Match.create(
        "muertoons", guests(3, key="host", open_seats=(1, 2)), family=True, host_key="host"
    )
    assert match.status == Match.Status.WAITING
    with django_capture_on_commit_callbacks(execute=True):
        response = Client().post(reverse("games:join", args=[match.public_id]), {"name": "Ben"})
    assert response.status_code == 302
    last_publish(published, match)
    assert token_of(match) == "0s1"
    with django_capture_on_commit_callbacks(execute=True):
        response = guest_client("host").post(
            reverse("games:start_room", args=[match.public_id]), {}, **HTMX
        )
    assert response.status_code == 200
    assert (match.public_id, "0s2") in published


@pytest.mark.django_db
def test_a_seat_takeover_publishes(published, django_capture_on_commit_callbacks):
    match = Match.create(
        GAME,
        [guests(1, key="host")[0], {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "ben"}],
        family=True,
        host_key="host",
    )
    for _ in range(20):  # the game waits for Ben
        match.refresh_from_db()
        if 1 in match.to_act():
            break
        legal = match.engine.legal_actions(match.load_state(), 0)
        ends = [a for a in legal if a.get("type") == "end_turn"]
        match.play(0, (ends or legal)[0], version=match.version)
    long_ago = timezone.now() - timedelta(minutes=10)
    Seat.objects.filter(match=match, number=1).update(last_seen_at=long_ago)
    Match.objects.filter(pk=match.pk).update(changed_at=long_ago)
    match.refresh_from_db()
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert match.hand_to_computer(1, registry.rules()[GAME].LEVELS[0]) is not None
    token = match.board_token(match.version, match.paused_at, match.seating, match.status)
    assert (match.public_id, token) in published
    # Ben takes the seat back: published too.
    with django_capture_on_commit_callbacks(execute=True):
        assert match.hand_back(["ben"]) is not None
    token = match.board_token(match.version, match.paused_at, match.seating, match.status)
    assert (match.public_id, token) in published


@pytest.mark.django_db
def test_a_rooms_expiry_publishes_scrubbed_and_deleted(
    published, django_capture_on_commit_callbacks
):
    _classroom, _assignment, _match, _teacher = class_with_match()
    ada = Student.objects.get(name="Ada")
    scrubbed = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": "Ada", "owner_key": ada.seat_key},
            {"kind": Seat.Kind.GUEST, "name": "Rosa", "owner_key": "rosa"},
        ],
        family=True,
        host_key="rosa",
    )
    deleted = Match.create(GAME, guests(2, key="g"), family=True, host_key="g")
    Match.objects.filter(pk__in=[scrubbed.pk, deleted.pk]).update(
        changed_at=timezone.now() - timedelta(hours=13)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert Match.objects.expire_rooms() == (1, 1)
    assert (scrubbed.public_id, token_of(scrubbed)) in published
    assert token_of(scrubbed).endswith("x")
    assert (deleted.public_id, live.GONE) in published


def class_with_match():
    school = School.objects.create(name="Live school")
    teacher = get_user_model().objects.create_user("live-teacher", password="x-long-pass-1")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4L")
    ada, ben = (Student.objects.create(classroom=classroom, name=n) for n in ("Ada", "Ben"))
    assignment = Assignment.objects.create(
        classroom=classroom,
        created_by=teacher,
        title="Tables",
        opens_at=timezone.now() - timedelta(minutes=1),
    )
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": s.name, "owner_key": s.seat_key} for s in (ada, ben)
    ]
    match = assignment.new_match(seats, options={"tier": "green"})
    client = Client()
    client.force_login(teacher)
    return classroom, assignment, match, client


@pytest.mark.django_db
def test_the_walls_pause_resume_and_end_publish(published, django_capture_on_commit_callbacks):
    classroom, _assignment, match, teacher = class_with_match()
    for name, ending in (("wall_pause", "p"), ("wall_resume", "")):
        with django_capture_on_commit_callbacks(execute=True):
            response = teacher.post(reverse(f"classroom:{name}", args=[classroom.pk]), **HTMX)
        assert response.status_code == 200
        last_publish(published, match)
        assert token_of(match) == "0" + ending
    with django_capture_on_commit_callbacks(execute=True):
        teacher.post(reverse("classroom:wall_end", args=[classroom.pk]), {"confirm": "yes"})
    last_publish(published, match)
    assert token_of(match) == "0x"
    assert len(published) == 3


@pytest.mark.django_db
def test_ending_a_session_from_the_list_publishes(published, django_capture_on_commit_callbacks):
    _classroom, assignment, match, _teacher = class_with_match()
    with django_capture_on_commit_callbacks(execute=True):
        assert Assignment.objects.filter(pk=assignment.pk).end() == 1
    last_publish(published, match)
    assert token_of(match) == "0x"


@pytest.mark.django_db
def test_without_push_nothing_is_published(
    settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.LIVE_PUSH = False
    monkeypatch.setattr(live, "send", lambda *a: pytest.fail("published without push"))
    match = Match.create(GAME, guests(2, bots=(0, 1)))
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.play_bots(match.pk) >= 1


# --- the guard: no other write of a token's field -------------------------------------------


def token_writes(tree, in_match=False):
    """(function name, line) of every write of a token's field in a module: an assignment to
    ``x.version`` (``x.seating += 1``, ``x.status = …Status…``), a ``save(update_fields=…)``
    naming one, an ``update(…)``/``create(…)`` with one as a keyword (``status`` only when its
    value is a match's status: ``Match.Status``, or ``self.Status`` in games/models/)."""
    found = []

    def match_status(node):
        text = ast.unparse(node)
        return "Match.Status" in text or (
            in_match and ("cls.Status" in text or "self.Status" in text)
        )

    class Visitor(ast.NodeVisitor):
        def __init__(self):
            self.stack = []

        def visit_FunctionDef(self, node):
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def note(self, node):
            found.append((self.stack[-1] if self.stack else "<module>", node.lineno))

        def visit_Assign(self, node):
            for target in node.targets:
                for leaf in ast.walk(target):
                    if (
                        isinstance(leaf, ast.Attribute)
                        and leaf.attr in TOKEN_FIELDS
                        and (leaf.attr != "status" or match_status(node.value))
                    ):
                        self.note(node)
            self.generic_visit(node)

        def visit_AugAssign(self, node):
            if isinstance(node.target, ast.Attribute) and node.target.attr in TOKEN_FIELDS:
                self.note(node)
            self.generic_visit(node)

        def visit_Call(self, node):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            for kw in node.keywords:
                if name == "save" and kw.arg == "update_fields":
                    names = {getattr(e, "value", None) for e in ast.walk(kw.value)}
                    if names & (TOKEN_FIELDS if in_match else TOKEN_FIELDS - {"status"}):
                        self.note(node)
                elif name in {"update", "create", "update_boards", "new_match"} and (
                    kw.arg in TOKEN_FIELDS - {"status"}
                    or (kw.arg == "status" and match_status(kw.value))
                ):
                    self.note(node)
            self.generic_visit(node)

    Visitor().visit(tree)
    return found


def test_every_write_of_a_boards_token_is_a_listed_path_that_publishes():
    sites = {}
    for app in ("games", "classroom"):
        for path in sorted((REPO / app).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if "/migrations/" in rel or "/tests/" in rel or "/management/" in rel:
                continue
            tree = ast.parse(path.read_text())
            for function, line in token_writes(tree, rel.startswith("games/models/")):
                sites.setdefault(f"{rel}:{function}", []).append(line)
    unlisted = set(sites) - set(TOKEN_WRITERS) - CREATORS - NOT_BOARDS
    assert not unlisted, f"writes of a board's token outside the publishing paths: {unlisted}"
    # Each listed path (not the publishers themselves) goes through a publisher.
    for site, publisher in TOKEN_WRITERS.items():
        rel, function = site.split(":")
        tree = ast.parse((REPO / rel).read_text())
        body = next(
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == function
        )
        assert publisher in ast.unparse(body), f"{site} writes a token without {publisher}"
    assert set(TOKEN_WRITERS) <= set(sites)  # no stale entry: each still writes a token


def test_the_guard_sees_a_write_outside_the_paths():
    source = (
        "def sneaky(m):\n    m.paused_at = None\n    m.save(update_fields=['paused_at'])\n"
        "def quiet(qs):\n    qs.update(status=Match.Status.ABANDONED)\n"
        "def fine(job):\n    job.status = 'done'\n    job.save(update_fields=['finished_at'])\n"
        "def other(job):\n    job.status = job.Status.DONE\n"
    )
    assert [name for name, _line in token_writes(ast.parse(source), in_match=True)] == [
        "sneaky",
        "sneaky",
        "quiet",
    ]
