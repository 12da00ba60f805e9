"""The Django admin: every registered model's list and one change page load for the superuser
(also with a search and a filter); nobody else gets in; history and secrets stay read-only
or hidden."""

import pytest
from axes.models import AccessAttempt
from axes.models import AccessFailureLog
from axes.models import AccessLog
from django.contrib import admin
from django.contrib.auth.models import Group as AuthGroup
from django.urls import reverse
from django.utils import timezone

from classroom.models import Student
from classroom.models import WaitingEntry
from classroom.models import WorkerHeartbeat
from games.admin import action_summary
from games.models import Match
from games.models import Move
from games.models import Seat

MODELS = sorted(admin.site._registry, key=lambda m: m._meta.label)


def admin_url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def filled(world):
    """One row of every model the world does not have already."""
    AuthGroup.objects.create(name="Support")
    WorkerHeartbeat.beat("worker@test", "12:00:00")
    WaitingEntry.objects.create(assignment=world.assignment_a, student=world.child_a2, tier="green")
    # django-axes's log-in lockout records (a wrong password, as the log-in view stores it).
    seen = {"ip_address": "127.0.0.1", "user_agent": "test", "path_info": "/accounts/login/"}
    now = timezone.now()
    AccessAttempt.objects.create(
        username="teacher_a", failures_since_start=1, attempt_time=now, **seen
    )
    AccessFailureLog.objects.create(username="teacher_a", attempt_time=now, **seen)
    AccessLog.objects.create(username="teacher_a", attempt_time=now, **seen)
    return world


@pytest.mark.parametrize("model", MODELS, ids=[m._meta.label for m in MODELS])
def test_superuser_sees_every_list_and_a_change_page(filled, model):
    client = filled.client("superuser")
    changelist = admin_url(model, "changelist")
    assert client.get(changelist).status_code == 200
    assert client.get(changelist, {"q": "a"}).status_code == 200
    obj = model._default_manager.first()
    assert obj is not None, f"no {model._meta.label} row to open"
    response = client.get(admin_url(model, "change", obj.pk))
    assert response.status_code == 200


@pytest.mark.parametrize("model", MODELS, ids=[m._meta.label for m in MODELS])
@pytest.mark.parametrize("role", ["anonymous", "child_a", "teacher_a", "admin_a"])
def test_everyone_else_is_sent_to_the_admin_log_in(world, model, role):
    response = world.client(role).get(admin_url(model, "changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_list_filters_work(filled):
    client = filled.client("superuser")
    for model, params in [
        (Student, {"archived": "no", "locked": "yes"}),
        (Student, {"classroom__school__id__exact": filled.school_a.pk}),
        (Match, {"status__exact": "finished"}),
        (Match, {"assignments__classroom__school__id__exact": filled.school_a.pk}),
        (filled.invite_a.__class__, {"state": "open"}),
        (filled.invite_a.__class__, {"state": "expired"}),
    ]:
        response = client.get(admin_url(model, "changelist"), params)
        assert response.status_code == 200, (model, params)


def test_student_list_shows_name_class_group_locked_archived_only(world):
    world.child_a.locked_until = timezone.now() + timezone.timedelta(minutes=5)
    world.child_a.save()
    client = world.client("superuser")
    response = client.get(admin_url(Student, "changelist"))
    cl = response.context["cl"]
    assert list(cl.list_display)[1:] == ["name", "classroom", "group", "locked", "archived"]
    html = response.content.decode()
    assert "Owls" in html and "Ada" in html
    change = client.get(admin_url(Student, "change", world.child_a.pk)).content.decode()
    # The picture password and the badge token are sign-in secrets: never shown.
    assert world.child_a.badge_token not in change
    assert 'name="pictures"' not in change and 'name="badge_token"' not in change


def test_student_group_must_be_of_its_class(world):
    client = world.client("superuser")
    response = client.post(
        admin_url(Student, "change", world.child_b.pk),
        {"name": "Bea", "classroom": world.class_b.pk, "group": world.group_a.pk},
    )
    assert response.status_code == 200  # the form again, with the error
    assert "Pick a group of the child" in response.content.decode()
    world.child_b.refresh_from_db()
    assert world.child_b.group is None


def test_moves_and_matches_cannot_be_added_changed_or_deleted(world):
    client = world.client("superuser")
    move = Move.objects.filter(match=world.match_b).first()
    assert client.get(admin_url(Move, "add")).status_code == 403
    assert client.get(admin_url(Move, "delete", move.pk)).status_code == 403
    assert client.get(admin_url(Match, "add")).status_code == 403
    version = world.match_b.version
    client.post(admin_url(Match, "change", world.match_b.pk), {"version": 0, "status": "active"})
    world.match_b.refresh_from_db()
    assert (world.match_b.version, world.match_b.status) == (version, Match.Status.FINISHED)
    page = client.get(admin_url(Match, "change", world.match_b.pk)).content.decode()
    assert 'name="version"' not in page and 'name="state"' not in page


def test_match_list_shows_seat_names(world):
    html = world.client("superuser").get(admin_url(Match, "changelist")).content.decode()
    assert "Ada · Pip" in html


def test_seat_list_and_pages_name_the_child_of_a_childs_seat(world):
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": "Captain", "owner_key": world.child_a2.seat_key},
            {"kind": Seat.Kind.BOT, "name": "Pip", "bot_level": "apprentice"},
        ],
    )
    seat = match.seats.get(number=0)
    client = world.client("superuser")
    found = client.get(admin_url(Seat, "changelist"), {"q": "Ali"}).content.decode()
    assert "Captain" in found and "Pip" not in found
    page = client.get(admin_url(Seat, "change", seat.pk)).content.decode()
    assert "Ali" in page and seat.owner_key not in page  # the owner key is never shown
    page = client.get(admin_url(Match, "change", match.pk)).content.decode()
    assert "Ali" in page


def test_action_summary():
    assert action_summary({"type": "place", "card": 12}) == "place card=12"
    assert action_summary({"type": "end_turn"}) == "end_turn"
    assert len(action_summary({"type": "x", "potions": list(range(50))})) == 60
