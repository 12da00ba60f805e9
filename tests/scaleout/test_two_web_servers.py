"""Scale-out: two web servers on different ports, sharing PostgreSQL and Redis, serve one game
with the requests alternating between them, and the game finishes correctly.

The web processes are the production setup (uvicorn serving config.asgi, DJANGO_ENV=production,
bench/load/stack.py) with a Celery worker; the two children are seeded with the models and do
everything else through HTTP: the picture sign-in on one server, the session's Play button and
the waiting room across both (the pairing happens on the server the second child reaches), then
every move and every poll alternating between the servers. Nothing can work unless the sessions
(cached_db: Redis and the database), the waiting-room presence (Redis) and the game (the
database) are shared: a web process keeps no state of its own.
"""

import random
from datetime import time as day_time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from bench.load.board import Board
from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import FactStat
from classroom.models import School
from classroom.models import Student
from games.models import Match
from games.models import Move

pytestmark = [pytest.mark.services, pytest.mark.slow]


def seed_class():
    school = School.objects.create(name="Scale-out school", day_ends_at=day_time(23, 59))
    teacher = get_user_model().objects.create_user("scaleout-teacher", password=None)
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="5S")
    ada = Student.objects.create(classroom=classroom, name="Ada")
    bo = Student.objects.create(classroom=classroom, name="Bo")
    assignment = Assignment.objects.create(
        classroom=classroom,
        created_by=teacher,
        title="Scale-out",
        tier=Assignment.Tier.GREEN,
        opponents=Assignment.Opponents.CLASSMATES,
        opens_at=timezone.now() - timedelta(minutes=1),
        warm_up_minutes=0,  # straight to the waiting room
    )
    return classroom, ada, bo, assignment


def test_one_game_served_by_two_web_servers(production_servers, browser_for):
    classroom, ada, bo, assignment = seed_class()
    with production_servers(web_servers=2, workers=1) as stack:
        one, two = stack["urls"]
        assert one != two
        a, b = browser_for("Ada"), browser_for("Bo")

        # Sign in on one server; the session is used on the other.
        a.sign_in(one, classroom.code, ada)
        b.sign_in(two, classroom.code, bo)
        play = f"/me/play/{assignment.pk}/"
        waiting = f"/me/waiting/{assignment.pk}/"
        assert a.request(two, "POST", play).redirect == waiting  # alone: the waiting room
        to_match = b.request(one, "POST", play).redirect  # paired on the other server
        match_id = browser_for.match_id(to_match)
        assert browser_for.match_id(a.request(one, "GET", waiting).redirect) == match_id

        boards = {
            "a": Board(a.request(two, "GET", f"/play/{match_id}/", htmx=False).text),
            "b": Board(b.request(one, "GET", f"/play/{match_id}/", htmx=False).text),
        }
        assert boards["a"].version == boards["b"].version == 0
        assert boards["a"].my_turn != boards["b"].my_turn
        browsers = {"a": a, "b": b}
        servers = [one, two]
        moves = 0
        for i in range(400):
            if boards["a"].over and boards["b"].over:
                break
            mover = "a" if boards["a"].my_turn else "b"
            other = "b" if mover == "a" else "a"
            board = boards[mover]
            action = board.next_action(random.Random(i))
            assert action is not None, f"{mover} must act but has no move:\n{board.html}"
            # The move on one server...
            fields = [*action, ("version", str(board.version)), ("move_id", board.move_id)]
            answer = browsers[mover].request(
                servers[i % 2], "POST", f"/play/{match_id}/move/", fields
            )
            assert answer.status == 200, (answer.status, action, answer.text[:500])
            boards[mover] = Board(answer.text)
            assert boards[mover].version == board.version + 1
            moves += 1
            # ...is seen at once by the other child's poll on the other server,
            seen = browsers[other].request(
                servers[(i + 1) % 2], "GET", f"/play/{match_id}/poll/?v={boards[other].token}"
            )
            assert seen.status == 200
            boards[other] = Board(seen.text)
            assert boards[other].version == boards[mover].version
            # and the mover's own poll on the other server has nothing new (a finished
            # board polls no more).
            if not boards[mover].over:
                quiet = browsers[mover].request(
                    servers[(i + 1) % 2], "GET", f"/play/{match_id}/poll/?v={boards[mover].token}"
                )
                assert quiet.status == 204, (i, action, quiet.text[:300])
        assert boards["a"].over and boards["b"].over, "the game did not finish in 400 moves"

        match = Match.objects.get(public_id=match_id)
        assert match.status == Match.Status.FINISHED
        assert match.outcome is not None
        assert match.version == moves
        assert list(match.moves.values_list("ply", flat=True)) == list(range(1, moves + 1))
        assert Move.objects.filter(match=match).count() == moves
        # Both servers served both children.
        for browser in (a, b):
            assert browser.served_by[one] > 3 and browser.served_by[two] > 3
        # A finished page on either server for either child.
        for browser, server in ((a, one), (b, two)):
            page = browser.request(server, "GET", f"/play/{match_id}/", htmx=False)
            assert page.status == 200 and Board(page.text).over
        # The worker (same database, same Redis) turned the game into the children's stats.
        wait_for(lambda: FactStat.objects.filter(student__in=[ada, bo]).exists(), stack)


def wait_for(condition, stack, seconds: float = 60) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            worker = next(p for p in stack["procs"] if p.name == "worker")
            raise AssertionError(f"the worker did not update the stats:\n{worker.tail()}")
        time.sleep(0.2)
