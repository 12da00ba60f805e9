"""Password change, and password reset by e-mail (the link in the e-mail works)."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_password_reset_sends_an_email_whose_link_sets_a_new_password(world):
    client = Client()
    response = client.post(reverse("password_reset"), {"email": "TEACHER_A@example.com"})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["teacher_a@example.com"]
    assert "MultipliPotion" in message.subject
    link = re.search(r"https?://[^/\s]+(/\S+)", message.body).group(1)
    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.text
    set_url = form_page.redirect_chain[-1][0]
    bad = client.post(set_url, {"new_password1": "abc", "new_password2": "abc"})
    assert bad.status_code == 422
    done = client.post(
        set_url, {"new_password1": "brand-new-potion-7", "new_password2": "brand-new-potion-7"}
    )
    assert done["Location"] == reverse("password_reset_complete")
    assert (
        Client()
        .post(reverse("login"), {"username": "teacher_a", "password": "brand-new-potion-7"})
        .status_code
        == 302
    )
    # The link works once.
    assert "no longer works" in Client().get(link, follow=True).text


def test_password_reset_for_an_unknown_address_sends_nothing_and_says_the_same(world):
    response = Client().post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert response["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


def test_password_change(world):
    world.teacher_a.set_password("the-old-potion-5")
    world.teacher_a.save()
    client = world.client("teacher_a")
    bad = client.post(
        reverse("password_change"),
        {"old_password": "wrong", "new_password1": "x", "new_password2": "x"},
    )
    assert bad.status_code == 422
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "the-old-potion-5",
            "new_password1": "another-potion-88",
            "new_password2": "another-potion-88",
        },
    )
    assert response["Location"] == reverse("password_change_done")
    user = get_user_model().objects.get(pk=world.teacher_a.pk)
    assert user.check_password("another-potion-88")
    assert client.get(reverse("classroom:teacher_home")).status_code == 200  # still logged in
