"""The year-end archive: a confirmation page, then every active class of the school (and
only of that school) archived at once."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from games.models import Match


@pytest.fixture
def more_classes(world):
    old = timezone.now() - timedelta(days=400)
    archived = Classroom.objects.create(
        school=world.school_a, teacher=world.teacher_a, name="Last year", archived_at=old
    )
    other = Classroom.objects.create(
        school=world.school_b, teacher=world.admin_b, name="Other school"
    )
    return archived, other


def ids(world):
    return ",".join(str(pk) for pk in sorted([world.class_a.pk, world.class_b.pk]))


def test_confirmation_page_lists_the_active_classes(world, more_classes):
    response = world.client("admin_a").get(reverse("classroom:school_year_end"))
    assert response.status_code == 200
    html = response.content.decode()
    # Names are looked for as the table shows them (isolated): a bare two-letter name can turn
    # up by chance inside the page's random CSRF token.
    assert "<bdi>3A</bdi>" in html and "<bdi>3B</bdi>" in html
    assert "Last year" not in html and "Other school" not in html
    assert "Archive 2 classes" in html
    assert f'name="classes" value="{ids(world)}"' in html


def test_posting_without_the_box_changes_nothing(world):
    response = world.client("admin_a").post(
        reverse("classroom:school_year_end"), {"classes": ids(world)}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422
    assert "Tick the box" in response.content.decode()
    assert Classroom.objects.filter(school=world.school_a).active().count() == 2


def test_archives_every_active_class_of_this_school_only(world, more_classes):
    archived, other = more_classes
    before = archived.archived_at
    client = world.client("admin_a")
    response = client.post(
        reverse("classroom:school_year_end"), {"classes": ids(world), "confirm": "yes"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("classroom:school_dashboard")
    world.class_a.refresh_from_db()
    world.class_b.refresh_from_db()
    assert world.class_a.archived_at is not None and world.class_b.archived_at is not None
    archived.refresh_from_db()
    assert archived.archived_at == before  # an old archive keeps its date
    other.refresh_from_db()
    assert other.archived_at is None  # another school's class
    page = client.get(response["Location"]).content.decode()
    assert "2 classes archived" in page
    # Nothing is left to archive.
    again = client.get(reverse("classroom:school_year_end")).content.decode()
    assert "Nothing to archive" in again


def test_htmx_archive_navigates_to_the_overview(world):
    response = world.client("admin_a").post(
        reverse("classroom:school_year_end"),
        {"classes": ids(world), "confirm": "yes"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("classroom:school_dashboard")


def test_a_class_added_meanwhile_is_not_archived_unseen(world):
    shown = ids(world)
    Classroom.objects.create(school=world.school_a, teacher=world.teacher_b, name="New 3C")
    response = world.client("admin_a").post(
        reverse("classroom:school_year_end"),
        {"classes": shown, "confirm": "yes"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "New 3C" in html and "changed" in html
    assert Classroom.objects.filter(school=world.school_a).active().count() == 3


def test_archive_then_restore_one_class(world):
    world.school_a.archive_active_classes()
    world.class_a.refresh_from_db()
    assert world.class_a.archived_at is not None
    Classroom.objects.filter(pk=world.class_a.pk).update(archived_at=None)  # a restore
    assert world.school_a.archive_active_classes() == 1


@pytest.mark.parametrize("role", ["teacher_a", "admin_b", "superuser"])
def test_others_cannot_archive_school_a(world, role):
    client = world.client(role)
    response = client.post(
        reverse("classroom:school_year_end"), {"classes": ids(world), "confirm": "yes"}
    )
    assert response.status_code in (302, 404)
    assert Classroom.objects.filter(school=world.school_a).active().count() == 2


def test_archiving_signs_children_out_and_ends_open_sessions(world):
    for obj in (world.class_a, world.child_a.classroom, world.assignment_a, world.match_a):
        obj.refresh_from_db()  # the world is shared by the module's tests
    child = world.client("child_a")
    assert child.get(reverse("classroom:child_home")).status_code == 200
    generation = world.class_a.signin_generation
    assert world.school_a.archive_active_classes() == 2
    world.class_a.refresh_from_db()
    assert world.class_a.signin_generation == generation + 1
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.status == Assignment.Status.ENDED
    world.match_a.refresh_from_db()
    assert world.match_a.status == Match.Status.ABANDONED
    # The child's session no longer finds a child (archived class, new generation).
    assert child.get(reverse("classroom:child_home")).status_code == 302
