"""A NUL or a control character in a form field or a query parameter that reaches the database
as text (security issue, item 6; the paths: test_path_fuzz.py). PostgreSQL refuses NUL in
text: a log-in name with a NUL answered 500 on /accounts/login/ and the admin's log-in, before
any password was checked (``classroom.forms.resolve_login`` looked the name up). Each case
here answers below 500 and changes no row: a NUL gets 422 from ``NulRefusedMiddleware``
(classroom/middleware.py) before any view, another control character its page's own refusal.
``test_bad_input.py`` fuzzes every field and parameter at random; these are the fixed cases."""

import pytest
from django.db import transaction
from django.urls import reverse

from .test_bad_input import fingerprint

BAD = ["\x00", "a\x00b", "teacher_a\x00", "\x01", "teacher_a@example.com\x7f"]


# A log-in attempt counts towards its network's limit whatever it sends (RateLimit, by design).
MAY_CHANGE = {("classroom", "ratelimit")}


def answered(world, role, method, url, data=None) -> int:
    client = world.client(role)  # a first log-in writes the user's last_login
    with transaction.atomic():
        before = fingerprint()
        response = getattr(client, method)(url, data or {})
        changed = {k for k, v in fingerprint().items() if before[k] != v} - MAY_CHANGE
        transaction.set_rollback(True)
    assert not changed, (url, data, changed)
    return response.status_code


def nul(value: str) -> bool:
    return "\x00" in value


@pytest.mark.parametrize("name", BAD)
def test_a_log_in_name_with_a_nul_is_refused_not_a_500(world, name):
    data = {"username": name, "password": world.password}
    assert answered(world, "anonymous", "post", reverse("login"), data) == 422
    admin = answered(world, "anonymous", "post", "/admin/login/", data)
    assert admin == (422 if nul(name) else 200)  # else its form again


@pytest.mark.parametrize("value", BAD)
def test_codes_and_addresses_with_a_nul_are_refused(world, value):
    assert answered(world, "anonymous", "post", reverse("classroom:join"), {"code": value}) == 422
    assert answered(world, "anonymous", "post", reverse("games:join_room"), {"code": value}) < 500
    reset = reverse("password_reset")
    assert answered(world, "anonymous", "post", reset, {"email": value}) < 500


@pytest.mark.parametrize("value", BAD)
def test_ids_in_the_query_string_with_a_nul_are_not_found(world, value):
    expected = 422 if nul(value) else 404
    again = reverse("classroom:assignment_new", args=[world.class_a.pk])
    assert answered(world, "teacher_a", "get", again, {"again": value}) == expected
    cards = reverse("classroom:login_cards", args=[world.class_a.pk])
    assert answered(world, "teacher_a", "get", cards, {"student": value}) == expected


@pytest.mark.parametrize("value", ["\x00", "a\x00b"])
def test_the_admins_filters_and_forms_refuse_a_nul(world, value):
    """The admin's own query parameters reached PostgreSQL with a NUL (500, staff only)."""
    for url, data in [
        ("/admin/classroom/student/", {"name": value}),
        ("/admin/auth/user/", {"username": value}),
        ("/admin/autocomplete/", {"term": value}),
        ("/admin/classroom/student/add/", {"classroom": value}),
    ]:
        assert answered(world, "superuser", "get", url, data) == 422, url
    add = "/admin/classroom/student/add/"
    assert answered(world, "superuser", "post", add, {"name": "Zoe", "classroom": value}) == 422
    assert answered(world, "superuser", "post", add, {value: "x"}) == 422  # a name too
