"""Invite links made, listed and revoked by a school admin; never another school's."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import Invite
from classroom.models import Membership


def csrf_client(world, role):
    client = Client(enforce_csrf_checks=True)
    client.force_login(getattr(world, role))
    html = client.get(reverse("classroom:invite_list")).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    return client, token


def test_admin_makes_an_invite_and_sees_its_link(world):
    client, token = csrf_client(world, "admin_a")
    before = Invite.objects.count()
    response = client.post(
        reverse("classroom:invite_new"),
        {"csrfmiddlewaretoken": token, "role": "teacher", "note": "  Ms   Patel "},
    )
    assert response.status_code == 302
    invite = Invite.objects.latest("created_at")
    assert Invite.objects.count() == before + 1
    assert (invite.school, invite.created_by, invite.role, invite.note) == (
        world.school_a,
        world.admin_a,
        Membership.Role.TEACHER,
        "Ms Patel",
    )
    assert invite.is_usable
    assert response["Location"] == f"{reverse('classroom:invite_list')}?new={invite.pk}"
    html = client.get(response["Location"]).content.decode()
    assert "Your new link is ready" in html
    link = f"http://testserver{invite.get_absolute_url()}"
    assert f'value="{link}"' in html
    assert invite.token in invite.get_absolute_url()


def test_invite_link_uses_the_accept_url_when_it_exists(world):
    path = world.invite_a.get_absolute_url()
    try:
        expected = reverse("classroom:invite_accept", args=[world.invite_a.token])
    except Exception:
        expected = f"/invite/{world.invite_a.token}/"
    assert path == expected


def test_htmx_invite_returns_the_partial_with_the_new_link(world):
    client = world.client("admin_a")
    response = client.post(
        reverse("classroom:invite_new"),
        {"role": "admin", "note": "Deputy head"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="invites"')
    invite = Invite.objects.get(note="Deputy head")
    assert invite.role == Membership.Role.ADMIN
    assert f"http://testserver{invite.get_absolute_url()}" in html
    assert "<html" not in html


@pytest.mark.parametrize(
    "data, field",
    [
        ({"role": "headteacher"}, "role"),
        ({}, "role"),
        ({"role": "teacher", "note": "x" * 121}, "note"),
    ],
)
def test_bad_invite_answers_422_and_makes_nothing(world, data, field):
    client = world.client("admin_a")
    before = Invite.objects.count()
    response = client.post(reverse("classroom:invite_new"), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert Invite.objects.count() == before
    html = response.content.decode()
    assert "No link was made" in html
    assert 'class="field-error"' in html
    assert response.context["form"].errors[field]


def test_list_shows_open_links_and_below_the_used_and_revoked_ones(world):
    now = timezone.now()
    Invite.objects.create(
        school=world.school_a, note="Used one", used_at=now, used_by=world.teacher_b
    )
    Invite.objects.create(school=world.school_a, note="Revoked one", revoked_at=now)
    Invite.objects.create(school=world.school_a, note="Old one", expires_at=now - timedelta(days=1))
    Invite.objects.create(school=world.school_b, note="School B's")
    html = world.client("admin_a").get(reverse("classroom:invite_list")).content.decode()
    open_part, closed_part = html.split("Used, revoked and expired links")
    assert world.invite_a.get_absolute_url() in open_part
    assert "Admin_A" in open_part  # who made it
    for note in ["Used one", "Revoked one", "Old one"]:
        assert note in closed_part and note not in open_part
    assert "Used by <bdi>Teacher_B</bdi>" in closed_part
    assert "School B&#x27;s" not in html and "School B's" not in html


def test_revoke(world):
    client, token = csrf_client(world, "admin_a")
    url = reverse("classroom:invite_revoke", args=[world.invite_a.pk])
    response = client.post(url, {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is not None
    assert not world.invite_a.is_usable
    # Again: nothing to change (htmx: 409 with the message).
    again = client.post(url, {"csrfmiddlewaretoken": token}, HTTP_HX_REQUEST="true")
    assert again.status_code == 409
    assert "already used or revoked" in again.content.decode()


def test_revoke_does_not_undo_a_used_link(world):
    world.invite_a.accept(world.superuser)
    response = world.client("admin_a").post(
        reverse("classroom:invite_revoke", args=[world.invite_a.pk])
    )
    assert response.status_code == 302
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is None and world.invite_a.used_at is not None


def test_another_schools_invite_is_404_and_unchanged(world):
    response = world.client("admin_b").post(
        reverse("classroom:invite_revoke", args=[world.invite_a.pk])
    )
    assert response.status_code == 404
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is None


@pytest.mark.parametrize("role", ["teacher_a", "teacher_b", "superuser"])
def test_non_admins_get_404_everywhere(world, role):
    client = world.client(role)
    before = Invite.objects.count()
    assert client.get(reverse("classroom:invite_list")).status_code == 404
    assert client.post(reverse("classroom:invite_new"), {"role": "teacher"}).status_code == 404
    assert (
        client.post(reverse("classroom:invite_revoke", args=[world.invite_a.pk])).status_code == 404
    )
    assert Invite.objects.count() == before
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is None


def test_csrf_is_required(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.admin_a)
    assert client.post(reverse("classroom:invite_new"), {"role": "teacher"}).status_code == 403
