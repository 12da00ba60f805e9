"""A refused form tells a screen reader which message belongs to which input: every
``aria-describedby`` of an error page names an element of that page, and no id is used twice
(Django's own ``aria-describedby`` points at ``<auto_id>_error``)."""

import re
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse


def described_ids_are_on_the_page(html: str) -> None:
    ids = Counter(re.findall(r'\sid="([^"]+)"', html))
    doubled = [i for i, n in ids.items() if n > 1]
    assert not doubled, f"ids used twice: {doubled}"
    refs = [r for attr in re.findall(r'aria-describedby="([^"]*)"', html) for r in attr.split()]
    assert refs, "no input points at its message"
    missing = [r for r in refs if r not in ids]
    assert not missing, f"aria-describedby names nothing on the page: {missing}"


def error_page(client, url, data):
    response = client.post(url, data)
    assert response.status_code == 422
    return response.text


@pytest.mark.django_db
def test_practice_game_form():
    html = error_page(Client(), reverse("games:new"), {"name": "x" * 300, "tier": "nope"})
    described_ids_are_on_the_page(html)


@pytest.mark.django_db
def test_family_game_form():
    data = {
        "players": "3",
        "seat1_kind": "here",
        "seat1_name": "x" * 300,
        "seat2_kind": "computer",
        "seat2_level": "nope",
        "seat3_kind": "here",
    }
    html = error_page(Client(), reverse("games:new_family", args=["muertoons"]), data)
    assert 'aria-describedby="id_seat2_level_error"' in html
    described_ids_are_on_the_page(html)


@pytest.mark.django_db
def test_game_session_form(world):
    client = Client()
    client.force_login(world.teacher_a)
    data = {"title": "", "tier": "green", "opponents": "bot", "bot_level": "apprentice"}
    data |= {"target_kind": "games", "target_value": "0", "opens_at": "", "who": "groups"}
    html = error_page(client, reverse("classroom:assignment_new", args=[world.class_a.pk]), data)
    described_ids_are_on_the_page(html)


@pytest.mark.django_db
def test_invite_form(world):
    client = Client()
    client.force_login(world.admin_a)
    html = error_page(client, reverse("classroom:invite_new"), {"role": "nope", "note": "x" * 300})
    described_ids_are_on_the_page(html)


@pytest.mark.django_db
def test_sign_up_form():
    html = error_page(Client(), reverse("classroom:signup"), {"email": "not an address"})
    described_ids_are_on_the_page(html)


@pytest.mark.django_db
def test_room_code_forms():
    html = error_page(Client(), reverse("games:join_room"), {"code": "??"})
    described_ids_are_on_the_page(html)
    family = Client().get(reverse("games:family")).text  # the code box and its help
    assert 'aria-describedby="id_code_helptext"' in family
    described_ids_are_on_the_page(family)
