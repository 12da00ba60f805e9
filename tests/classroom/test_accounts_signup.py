"""Teacher sign-up and log-in (by e-mail, or by the demo users' plain usernames)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import Membership
from classroom.models import School

pytestmark = pytest.mark.django_db

GOOD = {
    "first_name": "Maya",
    "last_name": "Okafor",
    "email": "Maya.Okafor@School.example",
    "school_name": "Hillside Primary",
    "time_zone": "Europe/Madrid",
    "password1": "tables-and-potions-42",
    "password2": "tables-and-potions-42",
}


def csrf_client(url):
    client = Client(enforce_csrf_checks=True)
    client.get(url)
    return client, client.cookies["csrftoken"].value


def test_sign_up_makes_a_user_a_school_and_an_admin_membership_and_logs_in():
    url = reverse("classroom:signup")
    client, token = csrf_client(url)
    before = client.session.session_key
    response = client.post(url, GOOD | {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:teacher_home")
    user = get_user_model().objects.get()
    assert user.username == user.email == "maya.okafor@school.example"
    assert (user.first_name, user.last_name) == ("Maya", "Okafor")
    membership = Membership.objects.get(user=user)
    assert membership.school.name == "Hillside Primary"
    assert membership.school.timezone == "Europe/Madrid"
    assert membership.role == Membership.Role.ADMIN
    assert client.session["_auth_user_id"] == str(user.pk)
    assert client.session.session_key != before
    page = client.get(reverse("classroom:teacher_home"))
    assert "Hillside Primary" in page.text


def test_sign_up_without_the_csrf_token_is_refused():
    client = Client(enforce_csrf_checks=True)
    response = client.post(reverse("classroom:signup"), GOOD)
    assert response.status_code == 403
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"password2": "something-else-42"}, "password2", "not the same"),
        ({"password1": "12345678", "password2": "12345678"}, "password1", "entirely numeric"),
        ({"password1": "short", "password2": "short"}, "password1", "too short"),
        ({"email": "not-an-email"}, "email", "valid email"),
        ({"school_name": ""}, "school_name", "required"),
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone", "Select a valid choice"),
        ({"time_zone": "US/Eastern"}, "time_zone", "Select a valid choice"),
        ({"time_zone": ""}, "time_zone", "required"),
        ({"first_name": ""}, "first_name", "required"),
    ],
)
def test_bad_sign_up_answers_422_with_the_reason_and_creates_nothing(change, field, message):
    client = Client()
    response = client.post(
        reverse("classroom:signup"), GOOD | change, headers={"HX-Request": "true"}
    )
    assert response.status_code == 422
    assert message in response.text
    assert 'id="signup-form"' in response.text
    assert "<html" not in response.text  # the htmx partial, not the page
    assert not get_user_model().objects.exists()
    assert not School.objects.exists()


def test_the_same_email_cannot_sign_up_twice_whatever_the_case():
    Client().post(reverse("classroom:signup"), GOOD)
    response = Client().post(
        reverse("classroom:signup"), GOOD | {"email": "MAYA.okafor@school.example"}
    )
    assert response.status_code == 422
    assert "already an account" in response.text
    assert get_user_model().objects.count() == 1


def test_htmx_sign_up_navigates_with_a_client_redirect():
    response = Client().post(reverse("classroom:signup"), GOOD, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("classroom:teacher_home")


def test_signed_in_grown_up_visiting_signup_goes_to_their_classes(world):
    response = world.client("teacher_a").get(reverse("classroom:signup"))
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:teacher_home")


def test_a_child_signed_in_on_the_browser_is_signed_out_by_a_grown_up_sign_up(world):
    client = world.client("child_a")
    client.post(reverse("classroom:signup"), GOOD)
    assert "student_id" not in client.session


@pytest.fixture
def known_password(world):
    """The world is built once per module (perhaps with another hasher): set a password."""
    for user in (world.teacher_a,):
        user.set_password("known-potion-31")
        user.save()
    return "known-potion-31"


def login(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_log_in_with_the_email_in_any_case_lands_on_teacher_home():
    Client().post(reverse("classroom:signup"), GOOD)
    response = login(Client(), "  MAYA.OKAFOR@school.example ", GOOD["password1"])
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:teacher_home")


def test_demo_style_users_log_in_with_their_username_or_their_email(known_password):
    assert login(Client(), "teacher_a", known_password).status_code == 302
    assert login(Client(), "teacher_a@example.com", known_password).status_code == 302


def test_a_wrong_password_answers_422_with_a_message(world):
    response = login(Client(), "teacher_a@example.com", "nope-nope-nope")
    assert response.status_code == 422
    assert "correct username and password" in response.text


def test_an_email_shared_by_two_accounts_does_not_pick_one(known_password):
    get_user_model().objects.create_user("other", "teacher_a@example.com", known_password)
    assert login(Client(), "teacher_a@example.com", known_password).status_code == 422
    assert login(Client(), "teacher_a", known_password).status_code == 302
