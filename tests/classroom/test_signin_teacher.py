"""The teacher's side of child sign-in: login cards, badges (and revoking them), new pictures,
unlock and "end sign-ins", each for the class's teacher only."""

import re
import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import PICTURES
from classroom.models import Student

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):
    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "default": default}


def as_user(world, who):
    client = Client()
    if who != "anonymous":
        client.force_login(getattr(world, who))
    return client


def signed_in_as(client):
    response = client.get(reverse("classroom:child_home"))
    return response.context["student"] if response.status_code == 200 else None


# --- who may see and do what -------------------------------------------------------------

TEACHER_POSTS = [
    "classroom:student_badge_revoke",
    "classroom:student_pictures_new",
    "classroom:student_unlock",
]


@pytest.mark.parametrize(
    "who, status",
    [
        ("teacher_a", 200),
        ("teacher_b", 404),
        ("admin_a", 404),
        ("admin_b", 404),
        ("anonymous", 302),
    ],
)
def test_login_cards_are_for_the_class_teacher_only(world, who, status):
    response = as_user(world, who).get(reverse("classroom:login_cards", args=[world.class_a.pk]))
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", TEACHER_POSTS)
@pytest.mark.parametrize("who", ["teacher_b", "admin_a", "admin_b"])
def test_a_colleague_or_outsider_changes_nothing(world, name, who):
    world.child_a.failed_signins = 3
    world.child_a.save()
    before = Student.objects.values().get(pk=world.child_a.pk)
    response = as_user(world, who).post(reverse(name, args=[world.child_a.pk]))
    assert response.status_code == 404
    assert Student.objects.values().get(pk=world.child_a.pk) == before


@pytest.mark.parametrize("name", TEACHER_POSTS)
def test_anonymous_is_sent_to_log_in(world, name):
    response = Client().post(reverse(name, args=[world.child_a.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_ending_sign_ins_of_another_class_is_not_found(world):
    generation = world.class_b.signin_generation
    response = as_user(world, "teacher_a").post(
        reverse("classroom:class_signins_end", args=[world.class_b.pk])
    )
    assert response.status_code == 404
    world.class_b.refresh_from_db()
    assert world.class_b.signin_generation == generation


def test_teacher_actions_are_post_only(world):
    client = as_user(world, "teacher_a")
    for name in TEACHER_POSTS:
        assert client.get(reverse(name, args=[world.child_a.pk])).status_code == 405
    assert (
        client.get(reverse("classroom:class_signins_end", args=[world.class_a.pk])).status_code
        == 405
    )


# --- the login cards -----------------------------------------------------------------------


def test_the_cards_show_name_pictures_code_and_a_personal_badge(world):
    Student.objects.create(classroom=world.class_a, name="Gone", archived_at=timezone.now())
    response = as_user(world, "teacher_a").get(
        reverse("classroom:login_cards", args=[world.class_a.pk])
    )
    body = response.content.decode()
    assert [c["card"].name for c in response.context["cards"]] == ["Ada", "Ali"]
    assert "Gone" not in body
    assert world.class_a.code in body
    for slug in world.child_a.picture_slugs:
        assert f"img/pictures/{slug}.svg" in body
    assert body.count('class="segno"') == 2  # one QR badge a child
    assert f"Personal sign-in badge of {world.child_a.name}" in body
    assert "css/signin.css" in body


def test_one_card_only_and_the_projector_page(world):
    client = as_user(world, "teacher_a")
    url = reverse("classroom:login_cards", args=[world.class_a.pk])
    response = client.get(url, {"student": world.child_a2.pk})
    assert [c["card"] for c in response.context["cards"]] == [world.child_a2]
    assert client.get(url, {"student": world.child_b.pk}).status_code == 404
    assert client.get(url, {"student": "x"}).status_code == 404

    response = client.get(url, {"show": "code"})
    body = response.content.decode()
    assert response.status_code == 200
    assert world.class_a.code in body and 'class="segno"' in body
    assert world.child_a.name not in body  # no child's pictures on the projector


def test_the_badge_qr_encodes_the_absolute_badge_url(world):
    """Decode-free check: segno renders the same SVG for the same URL."""
    from config.qr import qr_svg

    response = as_user(world, "teacher_a").get(
        reverse("classroom:login_cards", args=[world.class_a.pk]), {"student": world.child_a.pk}
    )
    url = "http://testserver" + reverse("classroom:join_badge", args=[world.child_a.badge_token])
    expected = qr_svg(url, f"Personal sign-in badge of {world.child_a.name}")
    assert expected in response.content.decode()


# --- badges -------------------------------------------------------------------------------


def test_the_badge_page_asks_before_signing_in(world):
    client = Client(enforce_csrf_checks=True)
    url = reverse("classroom:join_badge", args=[world.child_a.badge_token])
    page = client.get(url)
    assert page.status_code == 200
    assert "I’m <bdi>Ada</bdi>: start" in page.content.decode()
    assert signed_in_as(client) is None  # a link preview fetching the URL signs nobody in
    token = CSRF.search(page.content.decode()).group(1)
    response = client.post(url, {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:child_home")
    assert signed_in_as(client) == world.child_a


def test_a_revoked_badge_stops_working_and_the_new_one_works(world):
    old = world.child_a.badge_token
    teacher = as_user(world, "teacher_a")
    response = teacher.post(reverse("classroom:student_badge_revoke", args=[world.child_a.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:login_cards", args=[world.class_a.pk])
    world.child_a.refresh_from_db()
    assert world.child_a.badge_token != old
    child = Client()
    assert child.get(reverse("classroom:join_badge", args=[old])).status_code == 404
    assert child.post(reverse("classroom:join_badge", args=[old])).status_code == 404
    assert signed_in_as(child) is None
    assert (
        child.post(reverse("classroom:join_badge", args=[world.child_a.badge_token])).status_code
        == 302
    )
    assert signed_in_as(child) == world.child_a


def test_a_badge_of_an_archived_child_or_class_is_not_found(world):
    world.child_a2.archived_at = timezone.now()
    world.child_a2.save()
    assert (
        Client()
        .post(reverse("classroom:join_badge", args=[world.child_a2.badge_token]))
        .status_code
        == 404
    )
    world.class_b.archived_at = timezone.now()
    world.class_b.save()
    assert (
        Client().get(reverse("classroom:join_badge", args=[world.child_b.badge_token])).status_code
        == 404
    )
    unknown = "nope".ljust(24, "0")  # a badge's shape (config/converters.py), nobody's badge
    assert Client().get(reverse("classroom:join_badge", args=[unknown])).status_code == 404


def stopped_on_new_devices(child, until=None):
    """The child as after six wrong answers from devices the class has not used."""
    child.failed_signins = 6
    child.failed_since = timezone.now()
    child.locked_until = until or timezone.now() + timedelta(hours=24)
    child.save()


def test_a_badge_signs_in_a_child_stopped_on_new_devices(world):
    stopped_on_new_devices(world.child_a)
    client = Client()
    assert (
        client.post(reverse("classroom:join_badge", args=[world.child_a.badge_token])).status_code
        == 302
    )
    assert signed_in_as(client) == world.child_a
    world.child_a.refresh_from_db()
    # The wrong answers from elsewhere stay for the teacher to see (and to unlock).
    assert world.child_a.failed_signins == 6 and world.child_a.is_locked


# --- pictures and unlock -------------------------------------------------------------------


def test_new_pictures_are_three_different_ones_and_the_old_ones_stop_working(world):
    old = world.child_a.pictures
    response = as_user(world, "teacher_a").post(
        reverse("classroom:student_pictures_new", args=[world.child_a.pk])
    )
    assert response.status_code == 302
    world.child_a.refresh_from_db()
    new = world.child_a.pictures
    assert new != old
    picks = [int(i) for i in new.split(",")]
    assert len(set(picks)) == 3 and picks == sorted(picks) and max(picks) < len(PICTURES)
    url = reverse("classroom:join_pictures", args=[world.class_a.code, world.child_a.pk])
    assert Client().post(url, {"pictures": old.split(",")}).status_code == 422
    assert Client().post(url, {"pictures": new.split(",")}).status_code == 302


def test_unlock_resets_the_lock(world):
    world.child_a.failed_signins = 5
    world.child_a.locked_until = timezone.now() + timedelta(minutes=5)
    world.child_a.save()
    response = as_user(world, "teacher_a").post(
        reverse("classroom:student_unlock", args=[world.child_a.pk])
    )
    assert response.status_code == 302
    world.child_a.refresh_from_db()
    assert not world.child_a.is_locked and world.child_a.failed_signins == 0


def test_the_cards_show_a_locked_child_with_an_unlock_button(world):
    stopped_on_new_devices(world.child_a)
    body = (
        as_user(world, "teacher_a")
        .get(reverse("classroom:login_cards", args=[world.class_a.pk]))
        .content.decode()
    )
    assert "such devices are stopped for this child until" in body
    assert reverse("classroom:student_unlock", args=[world.child_a.pk]) in body


def test_htmx_teacher_actions_answer_with_the_new_card(world):
    old = world.child_a.badge_token
    response = as_user(world, "teacher_a").post(
        reverse("classroom:student_badge_revoke", args=[world.child_a.pk]),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    body = response.content.decode()
    world.child_a.refresh_from_db()
    assert f'id="card-{world.child_a.pk}"' in body and "<html" not in body
    assert 'class="segno"' in body and old != world.child_a.badge_token


def test_next_goes_back_to_a_page_of_this_site_only(world):
    client = as_user(world, "teacher_a")
    url = reverse("classroom:student_unlock", args=[world.child_a.pk])
    assert client.post(url, {"next": "/teacher/"})["Location"] == "/teacher/"
    response = client.post(url, {"next": "https://evil.example/"})
    assert response["Location"] == reverse("classroom:login_cards", args=[world.class_a.pk])


@pytest.mark.parametrize("page", ["classroom:class_detail", "classroom:login_cards"])
def test_locked_until_is_in_the_schools_time(world, page):
    """A school in another time zone than the server's reads its own clock."""
    from zoneinfo import ZoneInfo

    type(world.school_a).objects.filter(pk=world.school_a.pk).update(timezone="Asia/Tokyo")
    until = timezone.now() + timedelta(hours=5)
    stopped_on_new_devices(world.child_a, until)
    body = as_user(world, "teacher_a").get(reverse(page, args=[world.class_a.pk])).text
    tokyo = until.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M")
    london = until.astimezone(ZoneInfo("Europe/London")).strftime("%H:%M")
    assert f"until {tokyo}" in body and f"until {london}" not in body
