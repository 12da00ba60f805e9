"""Sign-up, invite links, the teacher's home and Django's password views."""

from django.urls import reverse
from expected import ALL
from expected import NO_USER

GROWN_UPS = ("teacher_a", "teacher_b", "admin_a", "admin_b", "superuser")
MEMBERS = ("teacher_a", "teacher_b", "admin_a", "admin_b")


def roles(no_user, grown_ups):
    return {role: (no_user if role in NO_USER else grown_ups) for role in ALL}


def invite_url(w):
    return reverse("classroom:invite_accept", args=[w.invite_a.token])


ENTRIES = [
    # Sign-up: a grown-up who is logged in already goes to their classes.
    {
        "name": "classroom:signup",
        "url": lambda w: reverse("classroom:signup"),
        "expect": roles(200, 302),
    },
    {
        "name": "classroom:signup",
        "method": "post",
        "url": lambda w: reverse("classroom:signup"),
        "expect": roles(422, 302),
    },
    # An invite shows the school to everyone; a member is told they have a school already.
    {"name": "classroom:invite_accept", "url": invite_url, "expect": roles(200, 200)},
    {
        "name": "classroom:invite_accept",
        "method": "post",
        "url": invite_url,
        # Visitors: the empty sign-up form is refused. Members: 409. The superuser has no
        # school, so the one-button accept makes them a member (rolled back after the test).
        "expect": roles(422, 409) | {"superuser": 302},
    },
    {
        "name": "classroom:invite_accept",
        # A token of an invite's shape (config/converters.py) that no invite has.
        "url": lambda w: reverse("classroom:invite_accept", args=["no-such-token".ljust(32, "0")]),
        "expect": roles(404, 404),
    },
    # The teacher's home; the superuser (no school) gets a friendly page, not a 500.
    {
        "name": "classroom:teacher_home",
        "url": lambda w: reverse("classroom:teacher_home"),
        "expect": roles(302, 200),
    },
    {
        "name": "password_change",
        "url": lambda w: reverse("password_change"),
        "expect": roles(302, 200),
    },
    {
        "name": "password_change",
        "method": "post",
        "url": lambda w: reverse("password_change"),
        "expect": roles(302, 422),
    },
    {
        "name": "password_change_done",
        "url": lambda w: reverse("password_change_done"),
        "expect": roles(302, 200),
    },
    {
        "name": "password_reset",
        "url": lambda w: reverse("password_reset"),
        "expect": roles(200, 200),
    },
    {
        "name": "password_reset",
        "method": "post",
        "url": lambda w: reverse("password_reset"),
        "expect": roles(422, 422),
    },
    {
        "name": "password_reset_done",
        "url": lambda w: reverse("password_reset_done"),
        "expect": roles(200, 200),
    },
    {
        # A made-up link: the "this link no longer works" page.
        "name": "password_reset_confirm",
        "url": lambda w: reverse("password_reset_confirm", args=["MQ", "set-password"]),
        "expect": roles(200, 200),
    },
    {
        "name": "password_reset_complete",
        "url": lambda w: reverse("password_reset_complete"),
        "expect": roles(200, 200),
    },
]
