"""Joining a school by invite link: one link makes one member; a bad link is a plain 404."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Invite
from classroom.models import Membership

pytestmark = pytest.mark.django_db

FORM = {
    "first_name": "Jo",
    "last_name": "Bell",
    "email": "jo.bell@example.org",
    "password1": "tables-and-potions-42",
    "password2": "tables-and-potions-42",
}


def url(invite):
    return reverse("classroom:invite_accept", args=[invite.token])


def test_the_invite_page_names_the_school(world):
    response = Client().get(url(world.invite_a))
    assert response.status_code == 200
    assert "School A" in response.text


def test_a_visitor_signs_up_through_the_invite_and_becomes_a_member(world):
    client = Client(enforce_csrf_checks=True)
    client.get(url(world.invite_a))
    token = client.cookies["csrftoken"].value
    response = client.post(url(world.invite_a), FORM | {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:teacher_home")
    user = get_user_model().objects.get(username="jo.bell@example.org")
    membership = user.membership
    assert membership.school == world.school_a
    assert membership.role == world.invite_a.role
    world.invite_a.refresh_from_db()
    assert world.invite_a.used_by == user and world.invite_a.used_at is not None
    assert client.get(reverse("classroom:teacher_home")).status_code == 200


def test_an_admin_invite_makes_an_admin(world):
    invite = Invite.objects.create(school=world.school_a, role=Membership.Role.ADMIN)
    Client().post(url(invite), FORM)
    assert get_user_model().objects.get(username=FORM["email"]).membership.is_admin


def test_one_link_makes_one_member(world):
    Client().post(url(world.invite_a), FORM)
    again = Client().post(url(world.invite_a), FORM | {"email": "someone.else@example.org"})
    assert again.status_code == 404
    assert not get_user_model().objects.filter(username="someone.else@example.org").exists()
    assert Membership.objects.filter(school=world.school_a).count() == 4  # 3 + Jo


@pytest.mark.parametrize("state", ["used", "revoked", "expired", "unknown"])
def test_an_unusable_link_answers_a_plain_404(world, state):
    invite = Invite.objects.create(school=world.school_a)
    if state == "used":
        invite.used_at = timezone.now()
    elif state == "revoked":
        invite.revoked_at = timezone.now()
    elif state == "expired":
        invite.expires_at = timezone.now() - timedelta(minutes=1)
    invite.save()
    unknown = reverse("classroom:invite_accept", args=["nope".ljust(32, "0")])  # an invite's shape
    link = url(invite) if state != "unknown" else unknown
    for response in (Client().get(link), Client().post(link, FORM)):
        assert response.status_code == 404
        assert "School A" not in response.text
    assert not get_user_model().objects.filter(username=FORM["email"]).exists()


def test_bad_sign_up_on_the_invite_answers_422_and_keeps_the_invite(world):
    response = Client().post(
        url(world.invite_a), FORM | {"password2": "different-9"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 422
    assert "not the same" in response.text
    world.invite_a.refresh_from_db()
    assert world.invite_a.is_usable


def test_a_signed_in_grown_up_without_a_school_accepts_with_one_button(world):
    loner = get_user_model().objects.create_user("loner@example.org", "loner@example.org", "x")
    client = Client()
    client.force_login(loner)
    page = client.get(url(world.invite_a))
    assert "Join <bdi>School A</bdi>" in page.text
    response = client.post(url(world.invite_a))
    assert response.status_code == 302
    loner.refresh_from_db()
    assert loner.membership.school == world.school_a


def test_a_member_of_a_school_is_told_so_and_nothing_changes(world):
    client = world.client("admin_b")
    page = client.get(url(world.invite_a))
    assert page.status_code == 200
    assert "You already belong to <bdi>School B</bdi>" in page.text
    assert client.post(url(world.invite_a)).status_code == 409
    world.admin_b.refresh_from_db()
    assert world.admin_b.membership.school == world.school_b
    world.invite_a.refresh_from_db()
    assert world.invite_a.is_usable
