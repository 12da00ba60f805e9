"""Child sign-in through real requests: class code → name → three pictures, with CSRF
checks on, the lockout, session fixation, switching child and the
teacher ending every child's session."""

import re
import uuid
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from classroom.child_session import current_student
from classroom.models import PICTURES
from classroom.models import SignInDevice
from classroom.models import Student
from classroom.models import signin as signin_rules

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):
    """The real cache backend (file or Redis), with keys of this test only."""
    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "default": default}


def csrf_client():
    return Client(enforce_csrf_checks=True)


def token_from(response) -> str:
    match = CSRF.search(response.content.decode())
    assert match, "the page has no CSRF token"
    return match.group(1)


def wrong_pictures(student) -> list[str]:
    right = set(student.picture_indexes)
    return [str(i) for i in range(len(PICTURES)) if i not in right][:3]


def right_pictures(student, order=None) -> list[str]:
    picks = [str(i) for i in student.picture_indexes]
    return list(reversed(picks)) if order == "reversed" else picks


def pictures_url(student):
    return reverse("classroom:join_pictures", args=[student.classroom.code, student.pk])


def post_pictures(client, student, pictures, **extra):
    page = client.get(pictures_url(student))
    if page.status_code != 200 or "csrfmiddlewaretoken" not in page.content.decode():
        page = client.get(reverse("classroom:join"))  # a locked child's page has no form
    data = {"csrfmiddlewaretoken": token_from(page), "pictures": pictures}
    return client.post(pictures_url(student), data, **extra)


def signed_in_as(client):
    response = client.get(reverse("classroom:child_home"))
    if response.status_code != 200:
        return None
    return response.context["student"]


# --- the whole flow -------------------------------------------------------------------


def test_code_name_pictures_signs_the_child_in(world):
    client = csrf_client()
    page = client.get(reverse("classroom:join"))
    assert page.status_code == 200
    typed = f" {world.class_a.code[:3].lower()}-{world.class_a.code[3:]} "
    response = client.post(
        reverse("classroom:join"), {"csrfmiddlewaretoken": token_from(page), "code": typed}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:join_class", args=[world.class_a.code])

    names = client.get(response["Location"])
    assert names.status_code == 200
    assert reverse("classroom:join_pictures", args=[world.class_a.code, world.child_a.pk]) in (
        names.content.decode()
    )

    response = post_pictures(client, world.child_a, right_pictures(world.child_a, "reversed"))
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:child_home")
    assert signed_in_as(client) == world.child_a


def test_a_post_without_the_csrf_token_is_refused(world):
    client = csrf_client()
    response = client.post(pictures_url(world.child_a), {"pictures": right_pictures(world.child_a)})
    assert response.status_code == 403
    assert signed_in_as(client) is None


def test_a_wrong_code_answers_422_with_a_kind_message(world):
    client = csrf_client()
    page = client.get(reverse("classroom:join"))
    for typed in ["", "ABCDEF0", "OOOOOO", "zzzzzz", world.class_a.code + "A"]:
        response = client.post(
            reverse("classroom:join"), {"csrfmiddlewaretoken": token_from(page), "code": typed}
        )
        assert response.status_code == 422, typed
        assert "We could not find that class. Check the code on the board." in (
            response.content.decode()
        )


def test_the_code_form_answers_htmx_with_a_partial_and_a_client_redirect(world):
    client = Client()
    response = client.post(
        reverse("classroom:join"), {"code": "nope"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert 'id="code-form"' in body and "<html" not in body
    response = client.post(
        reverse("classroom:join"),
        {"code": world.class_a.code.lower()},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("classroom:join_class", args=[world.class_a.code])


def test_normalize_code():
    from classroom.models import Classroom

    assert Classroom.normalize_code(" cd-k3 7m ") == "CDK37M"
    assert Classroom.normalize_code("cd.k3/7m") == "CDK37M"
    assert Classroom.normalize_code("CDK37") is None  # too short
    assert Classroom.normalize_code("CDK370") is None  # 0 is not in the alphabet
    assert Classroom.normalize_code("CDK37O") is None  # nor is O
    assert Classroom.normalize_code(None) is None


def test_the_class_page_lists_active_children_alphabetically(world):
    archived = Student.objects.create(
        classroom=world.class_a, name="Aaron", archived_at=timezone.now()
    )
    Student.objects.create(classroom=world.class_a, name="zoe")
    Student.objects.create(classroom=world.class_a, name="Ben")
    world.child_a2.locked_until = timezone.now() + timedelta(minutes=5)
    world.child_a2.save()
    response = Client().get(reverse("classroom:join_class", args=[world.class_a.code]))
    assert response.status_code == 200
    names = [s.name for s in response.context["students"]]
    assert names == ["Ada", "Ali", "Ben", "zoe"]
    body = response.content.decode()
    assert archived.name not in body
    assert "Ask your teacher" in body
    # The locked child has no link to the pictures.
    assert pictures_url(world.child_a2) not in body
    assert pictures_url(world.child_a) in body


def test_the_class_page_canonicalises_the_code_and_404s_unknown_codes(world):
    client = Client()
    response = client.get(reverse("classroom:join_class", args=[world.class_a.code.lower()]))
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:join_class", args=[world.class_a.code])
    response = client.get(reverse("classroom:join_class", args=["QQQQQQ"]))
    assert response.status_code == 404
    assert "We could not find that class" in response.content.decode()
    world.class_a.archived_at = timezone.now()
    world.class_a.save()
    assert client.get(reverse("classroom:join_class", args=[world.class_a.code])).status_code == 404


def test_another_class_or_an_archived_child_is_not_found(world):
    client = Client()
    wrong_class = reverse("classroom:join_pictures", args=[world.class_a.code, world.child_b.pk])
    assert client.get(wrong_class).status_code == 404
    assert client.post(wrong_class, {"pictures": right_pictures(world.child_b)}).status_code == 404
    world.child_a2.archived_at = timezone.now()
    world.child_a2.save()
    assert client.get(pictures_url(world.child_a2)).status_code == 404
    response = client.post(
        pictures_url(world.child_a2), {"pictures": right_pictures(world.child_a2)}
    )
    assert response.status_code == 404
    assert signed_in_as(client) is None


# --- wrong pictures and the lockout ---------------------------------------------------


def test_wrong_pictures_are_counted_and_a_right_answer_resets_the_count(world):
    client = csrf_client()
    response = post_pictures(client, world.child_a, wrong_pictures(world.child_a))
    assert response.status_code == 422
    assert "Those are not your pictures. Try again!" in response.content.decode()
    world.child_a.refresh_from_db()
    assert world.child_a.failed_signins == 1
    assert signed_in_as(client) is None

    assert post_pictures(client, world.child_a, right_pictures(world.child_a)).status_code == 302
    world.child_a.refresh_from_db()
    assert world.child_a.failed_signins == 0


def test_not_three_pictures_is_422_and_not_a_failure(world):
    client = csrf_client()
    for picks in (
        [],
        ["1"],
        ["1", "2", "3", "4"],
        ["1", "1", "2"],
        ["1", "2", "99"],
        ["a", "b", "c"],
    ):
        response = post_pictures(client, world.child_a, picks)
        assert response.status_code == 422, picks
        assert "Tap three pictures" in response.content.decode()
    world.child_a.refresh_from_db()
    assert world.child_a.failed_signins == 0


def test_five_wrong_in_a_row_lock_the_child_until_the_teacher_unlocks(world):
    # Five tablets, one wrong answer each: the device throttle never steps in, the child's
    # lockout does (a device's own limits: test_signin_limits.py).
    for attempt in range(1, 5):
        assert (
            post_pictures(csrf_client(), world.child_a, wrong_pictures(world.child_a)).status_code
            == 422
        )
        world.child_a.refresh_from_db()
        assert world.child_a.failed_signins == attempt
    client = csrf_client()
    response = post_pictures(client, world.child_a, wrong_pictures(world.child_a))
    assert response.status_code == 403
    assert "Ask your teacher to unlock you." in response.content.decode()
    world.child_a.refresh_from_db()
    assert world.child_a.is_locked
    minutes = (world.child_a.locked_until - timezone.now()).total_seconds() / 60
    assert signin_rules.LOCKOUT_MINUTES - 1 < minutes <= signin_rules.LOCKOUT_MINUTES

    # Even the right pictures are refused while locked, and the names page shows the lock.
    client = csrf_client()
    response = post_pictures(client, world.child_a, right_pictures(world.child_a))
    assert response.status_code == 403
    assert signed_in_as(client) is None
    names = client.get(reverse("classroom:join_class", args=[world.class_a.code])).content.decode()
    assert pictures_url(world.child_a) not in names

    # The teacher unlocks; the child signs in.
    teacher = Client()
    teacher.force_login(world.teacher_a)
    assert (
        teacher.post(reverse("classroom:student_unlock", args=[world.child_a.pk])).status_code
        == 302
    )
    assert post_pictures(client, world.child_a, right_pictures(world.child_a)).status_code == 302
    assert signed_in_as(client) == world.child_a


def test_after_the_cool_off_the_child_may_try_again_with_a_fresh_count(world):
    child = world.child_a
    child.failed_signins = signin_rules.LOCKOUT_AFTER
    child.locked_until = timezone.now() - timedelta(seconds=1)
    child.save()
    client = csrf_client()
    assert post_pictures(client, child, wrong_pictures(child)).status_code == 422
    child.refresh_from_db()
    assert child.failed_signins == 1
    assert not child.is_locked


def test_the_lockout_is_per_child_not_per_device(world):
    client = csrf_client()  # one shared Chromebook, with one of the five wrong answers
    post_pictures(client, world.child_a, wrong_pictures(world.child_a))
    for _ in range(signin_rules.LOCKOUT_AFTER - 1):
        post_pictures(csrf_client(), world.child_a, wrong_pictures(world.child_a))
    world.child_a.refresh_from_db()
    assert world.child_a.is_locked
    # The next child on the same device (same address, same browser) signs in fine.
    assert post_pictures(client, world.child_a2, right_pictures(world.child_a2)).status_code == 302
    assert signed_in_as(client) == world.child_a2


def test_a_429_through_htmx_is_the_slow_down_partial(world):
    client = Client()  # no device cookie: the device is its address
    SignInDevice.objects.create(
        key=SignInDevice.key_for(RequestFactory().get("/")),
        window_start=timezone.now(),
        failures=signin_rules.DEVICE_STOP_AFTER,
    )
    response = client.post(
        pictures_url(world.child_a),
        {"pictures": right_pictures(world.child_a)},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 429
    body = response.content.decode()
    assert 'id="pictures-step"' in body and "<html" not in body
    assert "too many wrong tries" in body and signed_in_as(client) is None


def test_htmx_sign_in_answers_with_a_client_redirect(world):
    client = Client()
    response = client.post(
        pictures_url(world.child_a),
        {"pictures": wrong_pictures(world.child_a)},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 422
    assert "Those are not your pictures" in response.content.decode()
    response = client.post(
        pictures_url(world.child_a),
        {"pictures": right_pictures(world.child_a)},
        headers={"HX-Request": "true"},
    )
    assert response["HX-Redirect"] == reverse("classroom:child_home")
    assert signed_in_as(client) == world.child_a


# --- sessions -------------------------------------------------------------------------------


def test_signing_in_changes_the_session_key(world):
    """A session id planted before sign-in (session fixation) is worthless afterwards."""
    client = csrf_client()
    session = client.session
    session["planted"] = "by someone else"
    session.save()
    planted = session.session_key
    client.cookies["sessionid"] = planted

    post_pictures(client, world.child_a, right_pictures(world.child_a))
    assert client.cookies["sessionid"].value != planted
    assert not Session.objects.filter(session_key=planted).exists()
    assert "planted" not in client.session
    assert signed_in_as(client) == world.child_a


def test_the_child_session_expires_at_the_end_of_the_school_day(world):
    from classroom.child_session import session_end

    client = csrf_client()
    post_pictures(client, world.child_a, right_pictures(world.child_a))
    expected = session_end(world.school_a)
    assert abs((client.session.get_expiry_date() - expected).total_seconds()) < 60

    # When that moment has passed the session is gone and the child is back at /join/.
    key = client.cookies["sessionid"].value
    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    cache.delete(f"django.contrib.sessions.cached_db{key}")
    response = client.get(reverse("classroom:child_home"))
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:join")


def test_ending_sign_ins_signs_every_child_of_the_class_out(world):
    ada, ali, bea = csrf_client(), csrf_client(), csrf_client()
    post_pictures(ada, world.child_a, right_pictures(world.child_a))
    post_pictures(ali, world.child_a2, right_pictures(world.child_a2))
    post_pictures(bea, world.child_b, right_pictures(world.child_b))
    assert signed_in_as(ada) == world.child_a

    teacher = Client(enforce_csrf_checks=True)
    teacher.force_login(world.teacher_a)
    cards = teacher.get(reverse("classroom:login_cards", args=[world.class_a.pk]))
    response = teacher.post(
        reverse("classroom:class_signins_end", args=[world.class_a.pk]),
        {"csrfmiddlewaretoken": token_from(cards)},
    )
    assert response.status_code == 302

    assert signed_in_as(ada) is None
    assert signed_in_as(ali) is None
    assert signed_in_as(bea) == world.child_b  # another class is not touched
    # They sign in again as usual.
    assert post_pictures(ada, world.child_a, right_pictures(world.child_a)).status_code == 302
    assert signed_in_as(ada) == world.child_a


def test_switch_child_signs_out_and_shows_the_same_class(world):
    client = csrf_client()
    post_pictures(client, world.child_a, right_pictures(world.child_a))
    home = client.get(
        reverse("classroom:join")
    )  # the join page offers the switch to a signed-in child
    assert "Not <bdi>Ada</bdi>? Switch" in home.content.decode()
    response = client.post(
        reverse("classroom:child_switch"), {"csrfmiddlewaretoken": token_from(home)}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:join_class", args=[world.class_a.code])
    assert signed_in_as(client) is None
    assert post_pictures(client, world.child_a2, right_pictures(world.child_a2)).status_code == 302
    assert signed_in_as(client) == world.child_a2


def test_switch_without_a_child_keeps_a_teacher_signed_in(world):
    client = Client()
    client.force_login(world.teacher_a)
    response = client.post(reverse("classroom:child_switch"))
    assert response["Location"] == reverse("classroom:join")
    assert client.get(reverse("classroom:login_cards", args=[world.class_a.pk])).status_code == 200


def test_the_switch_include_renders_for_a_child(world, rf):
    from django.template.loader import render_to_string

    request = rf.get("/")
    html = render_to_string(
        "classroom/signin/_switch.html", {"student": world.child_a}, request=request
    )
    assert reverse("classroom:child_switch") in html and "Not <bdi>Ada</bdi>? Switch" in html
    # One tap opens it, the second signs out: the form and its button sit inside the closed
    # <details>, after its <summary>.
    import re

    details = re.search(r"<details class=\"signin-switch\">(.*?)</details>", html, re.S)
    assert details is not None
    inside = details.group(1)
    summary_end = inside.index("</summary>")
    assert "Not <bdi>Ada</bdi>? Switch" in inside[:summary_end]
    assert inside.index("<form") > summary_end and "Yes, switch" in inside[summary_end:]
    assert "<bdi>Ada</bdi> will be signed out on this computer." in inside


def test_current_student_is_none_after_the_generation_moves(world, rf):
    request = rf.get("/")
    from django.contrib.sessions.backends.cached_db import SessionStore

    request.session = SessionStore()
    request.session["student_id"] = world.child_a.pk
    request.session["signin_generation"] = world.class_a.signin_generation
    request.session["signin_key"] = world.child_a.signin_key
    assert current_student(request) == world.child_a
    world.class_a.end_signins()
    del request._current_student
    assert current_student(request) is None


def test_the_nine_pictures_come_inside_the_page(world):
    """No image requests before a child can tap: the pictures are drawn in the page, each
    beside its word, hidden from screen readers (the word is read)."""
    import re

    html = Client().get(pictures_url(world.child_a)).content.decode()
    svgs = re.findall(r"<svg [^>]*>", html)
    assert len(svgs) == len(PICTURES)
    assert all('class="pic-img"' in s and 'aria-hidden="true"' in s for s in svgs)
    assert "img/pictures/" not in html and "<title>" not in html.split("</head>")[1]
    for slug in PICTURES:
        assert f"pic-{slug}" in html
