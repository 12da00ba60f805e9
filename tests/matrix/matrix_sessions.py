"""Game sessions: the child's home, Play, the waiting room, the teacher's sessions and the
live wall.

Teacher pages: a visitor or a signed-in child is sent to log in (302); another teacher, a
school admin or a superuser who does not teach the class finds nothing (404).
Child pages: anybody who is not a signed-in child is sent to the class-code page (302).
"""

from django.urls import reverse
from expected import everyone
from expected import teacher_a_only


def class_url(name):
    return lambda w: reverse(name, args=[w.class_a.pk])


def assignment_url(name):
    return lambda w: reverse(name, args=[w.assignment_a.pk])


ENTRIES = [
    {
        "name": "classroom:child_home",
        "url": lambda w: reverse("classroom:child_home"),
        "expect": everyone(302) | {"child_a": 200, "child_b": 200},
    },
    {
        "name": "classroom:child_play",
        "method": "post",
        "url": assignment_url("classroom:child_play"),
        # child_a has a game in progress there: straight back to it. child_b is in class B.
        "expect": everyone(302) | {"child_b": 404},
    },
    {
        "name": "classroom:waiting_room",
        "url": assignment_url("classroom:waiting_room"),
        # child_a is not waiting (already playing): sent to the game.
        "expect": everyone(302) | {"child_b": 404},
    },
    {
        "name": "classroom:waiting_stream",
        "url": lambda w: assignment_url("classroom:waiting_stream")(w) + "?v=w",
        # A child the session is set for may listen, as the waiting room's GET; the test client
        # is a WSGI server, where there is no stream (204: the room polls;
        # tests/classroom/test_live_wall.py streams). Anybody else 404, with or without push.
        "expect": everyone(404) | {"child_a": 204},
    },
    {
        "name": "classroom:assignment_list",
        "url": class_url("classroom:assignment_list"),
        "expect": teacher_a_only(200),
    },
    {
        "name": "classroom:assignment_new",
        "url": class_url("classroom:assignment_new"),
        "expect": teacher_a_only(200),
    },
    {
        "name": "classroom:assignment_edit",
        "url": assignment_url("classroom:assignment_edit"),
        "expect": teacher_a_only(200),
    },
    {
        "name": "classroom:assignment_end",
        "method": "post",
        "url": assignment_url("classroom:assignment_end"),
        "expect": teacher_a_only(302),
    },
    {
        "name": "classroom:session_wall",
        "url": class_url("classroom:session_wall"),
        "expect": teacher_a_only(200),
    },
    {
        "name": "classroom:wall_board",
        "url": lambda w: class_url("classroom:wall_board")(w) + "?v=stale",
        "expect": teacher_a_only(200),
    },
    {
        "name": "classroom:wall_stream",
        "url": lambda w: class_url("classroom:wall_stream")(w) + "?v=stale",
        # The class's teacher may listen (204 on the test client's WSGI server: the wall
        # polls); anybody else 404, a visitor too (a stream is not a page to log in to).
        "expect": everyone(404) | {"teacher_a": 204},
    },
    {
        "name": "classroom:wall_pause",
        "method": "post",
        "url": class_url("classroom:wall_pause"),
        "expect": teacher_a_only(302),
    },
    {
        "name": "classroom:wall_resume",
        "method": "post",
        "url": class_url("classroom:wall_resume"),
        "expect": teacher_a_only(302),
    },
    {
        "name": "classroom:wall_end",
        "method": "post",
        "url": class_url("classroom:wall_end"),
        # Without the "Yes, end it" tick: 422 and nothing ends.
        "expect": teacher_a_only(422),
    },
]
