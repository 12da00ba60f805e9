"""Child sign-in: the /join/ pages, the badge, switching child, and the teacher's login cards,
badges, pictures, unlock and "end sign-ins".

The /join/ pages come before anyone is signed in, so every role gets the same answer there
(a child of class B on a shared Chromebook must be able to reach class A's names to let the
next child sign in). What they refuse: a child who is not in the class named by the URL
(404) and an unknown class code or badge (404).
Teacher pages: anybody not logged in as a grown-up (children included) is sent to log in
(302); another teacher, a school admin or a superuser who does not teach the class: 404.
"""

from django.urls import reverse
from expected import NO_USER
from expected import everyone
from expected import teacher_a_only
from expected import teacher_a_post


def pictures_url(child="child_a", classroom="class_a"):
    return lambda w: reverse(
        "classroom:join_pictures", args=[getattr(w, classroom).code, getattr(w, child).pk]
    )


ENTRIES = [
    {"name": "classroom:join", "url": lambda w: reverse("classroom:join"), "expect": everyone(200)},
    {
        "name": "classroom:join",
        "method": "post",
        "url": lambda w: reverse("classroom:join"),
        "data": lambda w: {"code": "nope"},
        "expect": everyone(422),
    },
    {
        "name": "classroom:join",
        "method": "post",
        "url": lambda w: reverse("classroom:join"),
        "data": lambda w: {"code": w.class_a.code.lower()},
        "expect": everyone(302),
    },
    {
        "name": "classroom:join_class",
        "url": lambda w: reverse("classroom:join_class", args=[w.class_a.code]),
        "expect": everyone(200),
    },
    {
        "name": "classroom:join_class",
        "url": lambda w: reverse("classroom:join_class", args=["QQQQQQ"]),
        "expect": everyone(404),
    },
    {"name": "classroom:join_pictures", "url": pictures_url(), "expect": everyone(200)},
    {
        # A child of class B under class A's code: not found, for everybody.
        "name": "classroom:join_pictures",
        "url": pictures_url("child_b", "class_a"),
        "expect": everyone(404),
    },
    {
        "name": "classroom:join_pictures",
        "method": "post",
        "url": pictures_url(),
        "data": lambda w: {"pictures": ["0"]},  # not three pictures
        "expect": everyone(422),
    },
    {
        "name": "classroom:join_pictures",
        "method": "post",
        "url": pictures_url("child_b", "class_a"),
        "data": lambda w: {"pictures": w.child_b.pictures.split(",")},
        "expect": everyone(404),
    },
    {
        "name": "classroom:join_badge",
        "url": lambda w: reverse("classroom:join_badge", args=[w.child_a.badge_token]),
        "expect": everyone(200),
    },
    {
        "name": "classroom:join_badge",
        "method": "post",
        # A token of a badge's shape (config/converters.py) that no child has.
        "url": lambda w: reverse("classroom:join_badge", args=["not-a-badge".ljust(24, "0")]),
        "expect": everyone(404),
    },
    {
        # Signs the child out (children) or does nothing (everybody else); then the names.
        "name": "classroom:child_switch",
        "method": "post",
        "url": lambda w: reverse("classroom:child_switch"),
        "expect": everyone(302),
    },
    {
        "name": "classroom:child_switch",
        "url": lambda w: reverse("classroom:child_switch"),
        "expect": everyone(405),
    },
    {
        "name": "classroom:login_cards",
        "url": lambda w: reverse("classroom:login_cards", args=[w.class_a.pk]),
        "expect": teacher_a_only(200),
    },
    teacher_a_post("classroom:student_badge_revoke", "child_a", 302),
    teacher_a_post("classroom:student_pictures_new", "child_a", 302),
    teacher_a_post("classroom:student_unlock", "child_a", 302),
    teacher_a_post("classroom:class_signins_end", "class_a", 302),
    teacher_a_post("classroom:class_signins_unlock", "class_a", 302),
    {
        # Another teacher's child: not found even for a teacher of the same school.
        "name": "classroom:student_unlock",
        "method": "post",
        "url": lambda w: reverse("classroom:student_unlock", args=[w.child_b.pk]),
        "expect": everyone(404) | dict.fromkeys(NO_USER, 302) | {"teacher_b": 302},
    },
]
