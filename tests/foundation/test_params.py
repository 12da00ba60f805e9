"""config.params: numbers and ``next`` addresses from a request (issue 18, items 6 and 7).

The helpers on their own, then the teacher's POSTs that honour ``next`` (badge, pictures,
unlock, end sign-ins) and the log-in page: ``next=cards`` passed Django's host check, then
``redirect()`` tried it as a URL name and answered 500 after the action was saved."""

from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from config.params import int_param
from config.params import int_params
from config.params import is_local_path
from config.params import safe_next


@pytest.mark.parametrize(
    ("value", "number"),
    [("0", 0), ("7", 7), ("0042", 42), ("9" * 18, 10**18 - 1), ("000000000000000001", 1)],
)
def test_int_param_reads_ascii_digits(value, number):
    assert int_param(value) == number


@pytest.mark.parametrize(
    "value",
    [
        "",
        "²",  # str.isdigit() is true, int() raises
        "½",
        "①",
        "٣",  # int() reads these as 3, 3, 5, 12, 9
        "۳",
        "५",
        "１２",
        "𝟗",
        "+1",
        "-1",
        " 1",
        "1 ",
        "1\n",
        "\t1",
        "1_000",
        "1.0",
        "1e3",
        "0x1",
        "9" * 19,
        "9" * 30,
        "9" * 5000,
        None,
        1,
        ["1"],
    ],
)
def test_int_param_refuses_anything_else(value):
    assert int_param(value) is None


def test_int_param_bounds():
    assert int_param("3", low=0, high=8) == 3
    assert int_param("0", low=0, high=8) == 0
    assert int_param("8", low=0, high=8) == 8
    assert int_param("9", low=0, high=8) is None
    assert int_param("0", low=1) is None


def test_int_params_all_or_nothing():
    assert int_params(["1", "2", "8"], high=8) == [1, 2, 8]
    assert int_params([]) == []
    assert int_params(["1", "²", "3"]) is None
    assert int_params(["1", "9"], high=8) is None


@pytest.mark.parametrize(
    ("value", "local"),
    [
        ("/teacher/classes/1/cards/", True),
        ("/teacher/classes/1/cards/?student=2#card-2", True),
        ("/", True),
        ("cards", False),  # a URL name to redirect(): NoReverseMatch
        ("cards/", False),
        ("./cards", False),
        ("teacher_home", False),
        ("classroom:teacher_home", False),
        ("//evil.example/", False),
        ("/\\evil.example/", False),
        ("\\\\evil.example", False),
        ("https://evil.example/", False),
        ("http://testserver/teacher/", False),  # an address, not a path
        ("javascript:alert(1)", False),
        ("/\x00", False),
        ("/a\nb", False),
        (" /teacher/", False),
        ("/" + "a" * 3000, False),
        ("", False),
    ],
)
def test_is_local_path(rf: RequestFactory, value, local):
    assert is_local_path(value, rf.get("/")) is local


def test_safe_next_reads_the_form_then_the_query(rf: RequestFactory):
    assert safe_next(rf.post("/", {"next": "/a/"}), "/d/") == "/a/"
    assert safe_next(rf.post("/?next=/b/", {}), "/d/") == "/b/"
    assert safe_next(rf.get("/", {"next": "/b/"}), "/d/") == "/b/"
    assert safe_next(rf.post("/", {"next": "cards"}), "/d/") == "/d/"
    assert safe_next(rf.post("/", {"next": "//evil.example/"}), "/d/") == "/d/"
    assert safe_next(rf.get("/"), "/d/") == "/d/"


# --- the views that honour ``next`` --------------------------------------------------------


def lock(student):
    type(student).objects.filter(pk=student.pk).update(
        failed_signins=5, locked_until=timezone.now() + timedelta(minutes=10)
    )


ACTIONS = {
    # URL name: (what to do first, what the action saved)
    "classroom:student_badge_revoke": (None, lambda old, new: old.badge_token != new.badge_token),
    "classroom:student_pictures_new": (None, lambda old, new: old.pictures != new.pictures),
    "classroom:student_unlock": (lock, lambda old, new: new.locked_until is None),
}


@pytest.mark.parametrize("name", sorted(ACTIONS))
@pytest.mark.parametrize("nxt", ["cards", "cards/", "//evil.example/", "/\\evil.example/"])
def test_teacher_action_with_a_bad_next_goes_to_the_cards(world, name, nxt):
    prepare, saved = ACTIONS[name]
    child = world.child_a
    if prepare:
        prepare(child)
    old = type(child).objects.get(pk=child.pk)
    response = world.client("teacher_a").post(reverse(name, args=[child.pk]), {"next": nxt})
    assert response.status_code == 302, response.status_code
    assert response["Location"] == reverse("classroom:login_cards", args=[world.class_a.pk])
    assert saved(old, type(child).objects.get(pk=child.pk))


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_teacher_action_with_a_local_next_goes_there(world, name):
    nxt = reverse("classroom:login_cards", args=[world.class_a.pk]) + f"?student={world.child_a.pk}"
    response = world.client("teacher_a").post(reverse(name, args=[world.child_a.pk]), {"next": nxt})
    assert response.status_code == 302
    assert response["Location"] == nxt


def test_end_sign_ins_with_a_bad_next(world):
    url = reverse("classroom:class_signins_end", args=[world.class_a.pk])
    response = world.client("teacher_a").post(url, {"next": "cards"})
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:login_cards", args=[world.class_a.pk])


def rehash_teacher_a(world):
    """(The module's world was made before the tests' fast hasher was set: hash again, on a
    fresh copy so that the other tests' clients stay logged in.)"""
    user = type(world.teacher_a).objects.get(pk=world.teacher_a.pk)
    user.set_password(world.password)
    user.save(update_fields=["password"])


@pytest.mark.parametrize("nxt", ["cards", "//evil.example/", "https://evil.example/"])
def test_login_with_a_bad_next_lands_at_home(world, nxt):
    rehash_teacher_a(world)
    response = world.client("anonymous").post(
        reverse("login") + f"?next={nxt}",
        {"username": "teacher_a", "password": world.password, "next": nxt},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:teacher_home")


def test_login_with_a_local_next_goes_there(world):
    rehash_teacher_a(world)
    nxt = reverse("classroom:login_cards", args=[world.class_a.pk])
    response = world.client("anonymous").post(
        reverse("login"),
        {"username": "teacher_a", "password": world.password, "next": nxt},
    )
    assert response.status_code == 302
    assert response["Location"] == nxt


@pytest.mark.parametrize(
    ("nxt", "lands"),
    [("cards", "classroom:home"), ("//evil.example/", "classroom:home"), ("/join/", None)],
)
def test_logout_next(world, nxt, lands):
    response = world.client("teacher_a").post(reverse("logout"), {"next": nxt})
    assert response.status_code == 302
    assert response["Location"] == (reverse(lands) if lands else nxt)
