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
from classroom.models import KnownDevice
from classroom.models import PictureTries
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


def test_wrong_pictures_are_counted_on_the_device_and_for_new_devices(world):
    client = csrf_client()
    response = post_pictures(client, world.child_a, wrong_pictures(world.child_a))
    assert response.status_code == 422
    assert "Those are not your pictures. Try again!" in response.content.decode()
    world.child_a.refresh_from_db()
    assert world.child_a.failed_signins == 1  # a device the class has not used yet
    assert PictureTries.objects.get(student=world.child_a).failures == 1
    assert signed_in_as(client) is None

    assert post_pictures(client, world.child_a, right_pictures(world.child_a)).status_code == 302
    world.child_a.refresh_from_db()
    assert not PictureTries.objects.filter(student=world.child_a).exists()
    # New devices' wrong answers are not forgiven by a right one (the teacher sees them)...
    assert world.child_a.failed_signins == 1
    # ...and this device is now one of the class's: its wrong answers no longer count there.
    assert KnownDevice.objects.filter(classroom=world.class_a).count() == 1
    post_pictures(client, world.child_a2, wrong_pictures(world.child_a2))
    world.child_a2.refresh_from_db()
    assert world.child_a2.failed_signins == 0
    assert PictureTries.objects.get(student=world.child_a2).failures == 1


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


def wait_between_answers():
    """The device throttle's wait after each wrong answer, gone by (test_signin_limits.py
    tests the wait itself)."""
    SignInDevice.objects.update(
        last_failure_at=timezone.now() - timedelta(seconds=signin_rules.DEVICE_WAIT_SECONDS + 1)
    )


def class_device(world):
    """A Chromebook of class A: a child of the class signed in on it once."""
    client = csrf_client()
    assert post_pictures(client, world.child_a2, right_pictures(world.child_a2)).status_code == 302
    return client


def test_five_wrong_in_a_row_lock_the_child_on_that_device_until_the_teacher_unlocks(world):
    device = class_device(world)
    for _ in range(signin_rules.LOCKOUT_AFTER - 1):
        assert (
            post_pictures(device, world.child_a, wrong_pictures(world.child_a)).status_code == 422
        )
        wait_between_answers()
    response = post_pictures(device, world.child_a, wrong_pictures(world.child_a))
    assert response.status_code == 403
    assert "Ask your teacher to unlock you." in response.content.decode()
    assert "Or wait 10 minutes and try again." in response.content.decode()
    tries = PictureTries.objects.get(student=world.child_a)
    minutes = (tries.locked_until - timezone.now()).total_seconds() / 60
    assert signin_rules.LOCKOUT_MINUTES - 1 < minutes <= signin_rules.LOCKOUT_MINUTES
    world.child_a.refresh_from_db()
    assert world.child_a.failed_signins == 0 and not world.child_a.is_locked  # a class device

    # Even the right pictures are refused on that device, and its names page shows the lock.
    wait_between_answers()
    response = post_pictures(device, world.child_a, right_pictures(world.child_a))
    assert response.status_code == 403
    names = device.get(reverse("classroom:join_class", args=[world.class_a.code])).content.decode()
    assert pictures_url(world.child_a) not in names
    assert pictures_url(world.child_a2) in names
    # Another device is not locked: the lock is this device's.
    other = csrf_client()
    assert post_pictures(other, world.child_a, right_pictures(world.child_a)).status_code == 302

    # The teacher sees it on the cards and unlocks; the child signs in on that device too.
    teacher = Client()
    teacher.force_login(world.teacher_a)
    cards = teacher.get(reverse("classroom:login_cards", args=[world.class_a.pk])).content.decode()
    assert "Locked on one computer until" in cards
    assert (
        teacher.post(reverse("classroom:student_unlock", args=[world.child_a.pk])).status_code
        == 302
    )
    assert post_pictures(device, world.child_a, right_pictures(world.child_a)).status_code == 302
    assert signed_in_as(device) == world.child_a


def test_a_stranger_with_a_new_cookie_each_time_cannot_lock_children_out_of_class_devices(world):
    """The attack of issue 39: six wrong answers for each of five children, each from a fresh
    session. New devices are stopped for those children; the class's own devices are not."""
    device = class_device(world)
    children = [world.child_a, world.child_a2]
    for child in children:
        statuses = [
            post_pictures(csrf_client(), child, wrong_pictures(child)).status_code
            for _ in range(signin_rules.UNKNOWN_DEVICE_LIMIT + 2)
        ]
        limit = signin_rules.UNKNOWN_DEVICE_LIMIT
        assert statuses == [422] * (limit - 1) + [403] * 3, statuses
        child.refresh_from_db()
        assert child.failed_signins == limit and child.is_locked
        assert child.locked_until - timezone.now() > timedelta(
            hours=signin_rules.UNKNOWN_WINDOW_HOURS - 1
        )
    # A new device: even the right pictures are refused, with what to do instead.
    stranger = csrf_client()
    response = post_pictures(stranger, world.child_a, right_pictures(world.child_a))
    assert response.status_code == 403 and signed_in_as(stranger) is None
    assert "Or sign in on a computer from your class, or with your badge." in (
        response.content.decode()
    )
    names = stranger.get(reverse("classroom:join_class", args=[world.class_a.code]))
    assert pictures_url(world.child_a) not in names.content.decode()
    # The class's Chromebook: both children sign in at the first try.
    for child in children:
        assert post_pictures(device, child, right_pictures(child)).status_code == 302
        assert signed_in_as(device) == child
    # The badge works anywhere.
    badge = Client()
    url = reverse("classroom:join_badge", args=[world.child_a.badge_token])
    assert badge.post(url).status_code == 302 and signed_in_as(badge) == world.child_a

    # The teacher is told someone may be guessing, for whom, and how to end it.
    teacher = Client()
    teacher.force_login(world.teacher_a)
    for page in (
        reverse("classroom:login_cards", args=[world.class_a.pk]),
        reverse("classroom:class_detail", args=[world.class_a.pk]),
    ):
        body = teacher.get(page).content.decode()
        assert "Someone may be guessing pictures" in body
        assert f"wrong pictures were tried {2 * limit} times" in body
        assert world.child_a.name in body and world.child_a2.name in body
        assert reverse("classroom:class_code_new", args=[world.class_a.pk]) in body
    teacher.post(reverse("classroom:class_signins_unlock", args=[world.class_a.pk]))
    world.child_a.refresh_from_db()
    assert world.child_a.failed_signins == 0 and not world.child_a.is_locked
    body = teacher.get(reverse("classroom:class_detail", args=[world.class_a.pk])).content
    assert b"Someone may be guessing pictures" not in body


def test_after_a_day_the_count_from_new_devices_starts_afresh(world):
    child = world.child_a
    child.failed_signins = signin_rules.UNKNOWN_DEVICE_LIMIT
    child.failed_since = timezone.now() - timedelta(
        hours=signin_rules.UNKNOWN_WINDOW_HOURS, seconds=1
    )
    child.locked_until = timezone.now() - timedelta(seconds=1)
    child.save()
    client = csrf_client()
    assert post_pictures(client, child, wrong_pictures(child)).status_code == 422
    child.refresh_from_db()
    assert child.failed_signins == 1
    assert not child.is_locked


def test_after_the_cool_off_the_device_may_try_again_with_a_fresh_count(world):
    device = class_device(world)
    PictureTries.objects.create(
        student=world.child_a,
        device=SignInDevice.key_for(device.get("/").wsgi_request),
        failures=signin_rules.LOCKOUT_AFTER,
        locked_until=timezone.now() - timedelta(seconds=1),
        updated_at=timezone.now(),
    )
    assert post_pictures(device, world.child_a, wrong_pictures(world.child_a)).status_code == 422
    assert PictureTries.objects.get(student=world.child_a).failures == 1


def test_too_many_answers_from_new_devices_of_one_network_are_stopped(world, monkeypatch):
    """One client spraying guesses over many children from one network: after
    NETWORK_UNKNOWN_LIMIT wrong answers from new devices, new devices there must wait; the
    class's own devices on the same network carry on."""
    monkeypatch.setattr(signin_rules, "NETWORK_UNKNOWN_LIMIT", 4)
    device = class_device(world)  # its first sign-in, while it was new, was right: not counted
    statuses = [
        post_pictures(csrf_client(), world.child_a, wrong_pictures(world.child_a)).status_code
        for _ in range(5)
    ]
    assert statuses == [422, 422, 422, 422, 429]
    response = post_pictures(csrf_client(), world.child_a, right_pictures(world.child_a))
    assert response.status_code == 429
    assert "Lots of wrong tries came from here." in response.content.decode()
    assert post_pictures(device, world.child_a, right_pictures(world.child_a)).status_code == 302
    # Another network is not affected.
    elsewhere = Client(enforce_csrf_checks=True, REMOTE_ADDR="198.51.100.20")
    assert post_pictures(elsewhere, world.child_a, right_pictures(world.child_a)).status_code == 302


def test_a_whole_school_on_new_devices_signs_in_whatever_the_network_limit(world, monkeypatch):
    """Right answers are no guesses: a school whose every Chromebook is new (its first
    lesson, several classes at once, one network address) signs every child in, however many
    more than NETWORK_UNKNOWN_LIMIT they are; a wrong answer among them still counts."""
    monkeypatch.setattr(signin_rules, "NETWORK_UNKNOWN_LIMIT", 4)
    children = [world.child_a, world.child_b] * 6  # twelve new devices, three times the limit
    statuses = [
        post_pictures(csrf_client(), child, right_pictures(child)).status_code for child in children
    ]
    assert statuses == [302] * 12
    wrong = [
        post_pictures(csrf_client(), world.child_a, wrong_pictures(world.child_a)).status_code
        for _ in range(5)
    ]
    assert wrong == [422, 422, 422, 422, 429]


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
