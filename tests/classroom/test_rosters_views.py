"""The teacher's class pages: classes, the roster paste and CSV upload, groups, children."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from classroom.models import Classroom
from classroom.models import Group
from classroom.models import Student
from config.names import isolate

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


def names(classroom):
    return sorted(classroom.students.values_list("name", flat=True))


# --- who may reach what ---------------------------------------------------------------------
ROSTER_URLS = [
    ("get", "classroom:class_detail", "class_a"),
    ("get", "classroom:class_edit", "class_a"),
    ("post", "classroom:class_edit", "class_a"),
    ("post", "classroom:class_archive", "class_a"),
    ("post", "classroom:class_restore", "class_a"),
    ("post", "classroom:class_code_new", "class_a"),
    ("post", "classroom:roster_add", "class_a"),
    ("post", "classroom:group_new", "class_a"),
    ("get", "classroom:group_edit", "group_a"),
    ("post", "classroom:group_edit", "group_a"),
    ("post", "classroom:group_delete", "group_a"),
    ("get", "classroom:student_edit", "child_a"),
    ("post", "classroom:student_edit", "child_a"),
    ("get", "classroom:student_move", "child_a"),
    ("post", "classroom:student_move", "child_a"),
    ("post", "classroom:student_archive", "child_a"),
    ("post", "classroom:student_restore", "child_a"),
    ("get", "classroom:student_delete", "child_a"),
    ("post", "classroom:student_delete", "child_a"),
]
EVIL = {"name": "Hacked", "names": "Mallory", "classroom": "", "group": ""}


@pytest.mark.parametrize(("method", "name", "attr"), ROSTER_URLS)
@pytest.mark.parametrize("role", ["teacher_b", "admin_a", "admin_b"])
def test_a_colleague_or_an_outsider_gets_404_and_changes_nothing(world, method, name, attr, role):
    code = world.class_a.code
    url = reverse(name, args=[getattr(world, attr).pk])
    response = getattr(world.client(role), method)(url, EVIL | {"classroom": world.class_b.pk})
    assert response.status_code == 404
    world.class_a.refresh_from_db()
    assert (world.class_a.name, world.class_a.code, world.class_a.archived_at) == ("3A", code, None)
    assert names(world.class_a) == ["Ada", "Ali"]
    assert Group.objects.filter(pk=world.group_a.pk, name="Owls").exists()
    assert Student.objects.get(pk=world.child_a.pk).archived_at is None


@pytest.mark.parametrize(("method", "name", "attr"), ROSTER_URLS)
def test_the_owner_reaches_every_page(world, method, name, attr):
    """The owner's page shows the class, group or child asked for; an empty form posted is
    refused with the form (422) or done (a redirect)."""
    target = getattr(world, attr)
    url = reverse(name, args=[target.pk])
    response = getattr(world.client("teacher_a"), method)(url)
    if method == "get":
        assert response.status_code == 200
        assert target.name in response.content.decode()
    else:
        assert response.status_code in (302, 422)


# --- classes --------------------------------------------------------------------------------
def test_new_class_belongs_to_my_school_and_me(world):
    client = world.client("teacher_b")
    response = client.post(reverse("classroom:class_new"), {"name": "  5C  "})
    classroom = Classroom.objects.get(name="5C")
    assert response["Location"] == reverse("classroom:class_detail", args=[classroom.pk])
    assert classroom.teacher == world.teacher_b
    assert classroom.school == world.school_a


def test_new_class_bad_names_answer_422_partials(world):
    client = world.client("teacher_a")
    for data, message in (({"name": ""}, "required"), ({"name": "3a"}, "already have a class")):
        response = client.post(reverse("classroom:class_new"), data, headers=HX)
        assert response.status_code == 422
        assert message in response.text
        assert "<html" not in response.text
    assert Classroom.objects.filter(teacher=world.teacher_a).count() == 1


def test_superuser_without_a_school_cannot_make_a_class(world):
    response = world.client("superuser").post(reverse("classroom:class_new"), {"name": "X"})
    assert response.status_code == 403
    assert not Classroom.objects.filter(name="X").exists()


def test_rename_archive_and_restore_a_class(world):
    client = world.client("teacher_a")
    client.post(reverse("classroom:class_edit", args=[world.class_a.pk]), {"name": "3A Robins"})
    world.class_a.refresh_from_db()
    assert world.class_a.name == "3A Robins"
    response = client.post(reverse("classroom:class_archive", args=[world.class_a.pk]), headers=HX)
    assert response["HX-Redirect"] == reverse("classroom:teacher_home")
    world.class_a.refresh_from_db()
    assert world.class_a.is_archived
    home = client.get(reverse("classroom:teacher_home")).text
    assert "Archived classes" in home
    client.post(reverse("classroom:class_restore", args=[world.class_a.pk]))
    world.class_a.refresh_from_db()
    assert not world.class_a.is_archived


def test_class_page_shows_the_roster_the_code_spaced_and_the_forms(world):
    response = world.client("teacher_a").get(
        reverse("classroom:class_detail", args=[world.class_a.pk])
    )
    text = response.text
    assert "Ada" in text and "Ali" in text and "Owls" in text
    code = world.class_a.code
    assert "".join(f'<span aria-hidden="true">{c}</span>' for c in code) in text
    assert 'id="roster-add"' in text and 'id="group-new"' in text
    assert 'class="class-nav"' in text


def test_regenerating_the_code_from_the_page(world):
    old = world.class_a.code
    client = world.client("teacher_a")
    response = client.post(reverse("classroom:class_code_new", args=[world.class_a.pk]))
    assert response.status_code == 302
    world.class_a.refresh_from_db()
    assert world.class_a.code != old
    page = client.get(response["Location"]).text
    assert f"New class code: {world.class_a.code}" in page
    assert "".join(f'<span aria-hidden="true">{c}</span>' for c in world.class_a.code) in page


def test_get_on_a_post_only_action_changes_nothing(world):
    response = world.client("teacher_a").get(
        reverse("classroom:class_archive", args=[world.class_a.pk])
    )
    assert response.status_code == 405
    world.class_a.refresh_from_db()
    assert not world.class_a.is_archived


# --- the roster paste and the CSV upload ----------------------------------------------------
def roster_url(world):
    return reverse("classroom:roster_add", args=[world.class_a.pk])


def test_pasting_names_with_a_csrf_enforcing_client(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.teacher_a)
    client.get(reverse("classroom:class_detail", args=[world.class_a.pk]))
    token = client.cookies["csrftoken"].value
    refused = client.post(roster_url(world), {"names": "Zed"})
    assert refused.status_code == 403
    response = client.post(
        roster_url(world), {"names": "Zed\nYan\n\nXia\n", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    assert names(world.class_a) == ["Ada", "Ali", "Xia", "Yan", "Zed"]
    page = client.get(response["Location"])
    assert "3 children added." in page.text


def test_the_good_lines_are_added_and_the_bad_ones_come_back_to_fix(world):
    """15 lines with bad ones among them used to add nobody: the good ones are added (the
    notice says how many), the bad ones come back in the box, numbered as the box shows them,
    each with its text and its reason; a name pasted twice (now in the class) suggests an
    initial."""
    pasted = "Zed\nyan@example.com\n\nXia\n42\nZed\nAli\n"
    teacher = world.client("teacher_a")
    response = teacher.post(roster_url(world), {"names": pasted}, headers=HX)
    assert response.status_code == 200
    page_url = reverse("classroom:class_detail", args=[world.class_a.pk])
    assert response["HX-Redirect"] == page_url
    assert names(world.class_a) == ["Ada", "Ali", "Xia", "Zed"]
    page = teacher.get(page_url).text
    text = " ".join(re.sub(r"</?bdi>|[\u2066-\u2069]", "", page).split())
    assert "2 children added. 4 lines were not added: they are in the box below, to fix." in text
    assert "These lines were not added. Fix them in the box and add them again." in text
    assert "Nothing was added" not in text
    box = re.search(r"<textarea[^>]*>(.*?)</textarea>", text, re.S).group(1).strip()
    assert box.split(" ") == ["yan@example.com", "42", "Zed", "Ali"]
    errors = re.search(r'<ol class="line-errors".*?</ol>', text, re.S).group(0)
    assert 'Line 1:</span> <q class="line-text">yan@example.com</q>' in errors
    assert "first name or nickname only" in errors
    assert 'Line 3:</span> <q class="line-text">Zed</q> — Zed is already in this class' in errors
    assert "(e.g. “Zed B.”)" in errors
    assert "Line 5" not in errors
    # Shown once: the next visit has an empty box.
    assert "line-errors" not in teacher.get(page_url).text


def test_nothing_good_adds_nobody_and_numbers_the_lines_without_the_empty_ones(world):
    pasted = "\n\n123\n\nan@example.com\n"
    response = world.client("teacher_a").post(roster_url(world), {"names": pasted}, headers=HX)
    assert response.status_code == 422
    text = response.text
    assert "<html" not in text and 'id="roster-add"' in text
    assert "Nothing was added" in text
    assert "Line 1:" in text and "Line 2:" in text and "Line 3:" not in text
    assert re.search(r"<textarea[^>]*>\s*123\nan@example.com</textarea>", text)
    assert names(world.class_a) == ["Ada", "Ali"]


def test_plain_post_with_errors_shows_the_whole_page_with_422(world):
    response = world.client("teacher_a").post(roster_url(world), {"names": "123"})
    assert response.status_code == 422
    assert "<html" in response.text and "Line 1:" in response.text


def test_nothing_pasted_and_no_file(world):
    response = world.client("teacher_a").post(roster_url(world), {"names": "  "}, headers=HX)
    assert response.status_code == 422
    assert "Paste some names" in response.text


def csv_file(content: bytes, name="class.csv"):
    return SimpleUploadedFile(name, content, content_type="text/csv")


def test_csv_upload_with_bom_header_and_groups(world):
    content = "\ufeffname,group\r\nZed,Owls\r\nYan,Foxes\r\nXia\r\n".encode()
    response = world.client("teacher_a").post(
        roster_url(world), {"csv_file": csv_file(content)}, headers=HX
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("classroom:class_detail", args=[world.class_a.pk])
    assert Student.objects.get(name="Zed").group == world.group_a
    assert Student.objects.get(name="Yan").group.name == "Foxes"
    assert Student.objects.get(name="Xia").group is None


def test_csv_upload_adds_the_good_rows_and_gives_back_the_bad_ones(world):
    content = b"name,group\nZed,Owls\nZed,Foxes\nal@x.org,Owls\nWil,Owls,Smith\n"
    teacher = world.client("teacher_a")
    response = teacher.post(roster_url(world), {"csv_file": csv_file(content)}, headers=HX)
    assert response.status_code == 200
    assert names(world.class_a) == ["Ada", "Ali", "Zed"]
    assert Student.objects.get(name="Zed").group == world.group_a
    assert not Group.objects.filter(name="Foxes").exists()
    page = teacher.get(response["HX-Redirect"]).text
    box = re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.S).group(1).strip()
    assert box.splitlines() == ["Zed,Foxes", "al@x.org,Owls", "Wil,Owls,Smith"]
    for line in ("Line 1:", "Line 2:", "Line 3:"):
        assert line in page


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("Zoë,Owls\n".encode("latin-1"), "UTF-8"),
        (b"PK\x03\x04rest-of-a-spreadsheet", "spreadsheet"),
        (b"Ada\x00\x00", "not a text file"),
        (b"A" * (100 * 1024 + 1), "too big"),
    ],
)
def test_unreadable_files_are_refused_with_a_reason(world, content, message):
    response = world.client("teacher_a").post(
        roster_url(world), {"csv_file": csv_file(content)}, headers=HX
    )
    assert response.status_code == 422
    assert message in response.text
    assert names(world.class_a) == ["Ada", "Ali"]


def test_paste_and_file_together_is_refused(world):
    response = world.client("teacher_a").post(
        roster_url(world), {"names": "Zed", "csv_file": csv_file(b"Yan\n")}, headers=HX
    )
    assert response.status_code == 422
    assert "not both" in response.text


# --- groups ---------------------------------------------------------------------------------
def test_groups_add_rename_and_delete_keeps_the_children(world):
    client = world.client("teacher_a")
    client.post(reverse("classroom:group_new", args=[world.class_a.pk]), {"name": "Foxes"})
    assert world.class_a.groups.filter(name="Foxes").exists()
    dup = client.post(
        reverse("classroom:group_new", args=[world.class_a.pk]), {"name": "owls"}, headers=HX
    )
    assert dup.status_code == 422 and "already has a group" in dup.text
    client.post(reverse("classroom:group_edit", args=[world.group_a.pk]), {"name": "Barn owls"})
    world.group_a.refresh_from_db()
    assert world.group_a.name == "Barn owls"
    client.post(reverse("classroom:group_delete", args=[world.group_a.pk]))
    assert not Group.objects.filter(pk=world.group_a.pk).exists()
    child = Student.objects.get(pk=world.child_a.pk)
    assert child.group is None and child.classroom == world.class_a


# --- children -------------------------------------------------------------------------------
def test_edit_a_child(world):
    client = world.client("teacher_a")
    url = reverse("classroom:student_edit", args=[world.child_a.pk])
    response = client.post(url, {"name": " Ada L. ", "group": ""})
    assert response.status_code == 302
    child = Student.objects.get(pk=world.child_a.pk)
    assert (child.name, child.group) == ("Ada L.", None)
    for bad, message in (("ada@x.org", "e-mail"), ("ali", "Another child"), ("", "required")):
        response = client.post(url, {"name": bad}, headers=HX)
        assert response.status_code == 422, bad
        assert message in response.text
    assert Student.objects.get(pk=world.child_a.pk).name == "Ada L."


def test_a_child_cannot_be_put_in_another_class_group(world):
    other_group = Group.objects.create(classroom=world.class_b, name="Bees")
    response = world.client("teacher_a").post(
        reverse("classroom:student_edit", args=[world.child_a.pk]),
        {"name": "Ada", "group": other_group.pk},
        headers=HX,
    )
    assert response.status_code == 422
    assert Student.objects.get(pk=world.child_a.pk).group == world.group_a


def test_move_offers_only_my_other_active_classes(world):
    mine = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="4A")
    old = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="2A")
    old.archive()
    client = world.client("teacher_a")
    url = reverse("classroom:student_move", args=[world.child_a.pk])
    page = client.get(url).text
    offered = re.findall(r'value="(\d+)"[^>]*> ([^<]+)</label>', page)
    assert offered == [(str(mine.pk), "4A")]
    for target in (world.class_b, old, world.class_a):
        response = client.post(url, {"classroom": target.pk}, headers=HX)
        assert response.status_code == 422
    assert Student.objects.get(pk=world.child_a.pk).classroom == world.class_a
    response = client.post(url, {"classroom": mine.pk})
    assert response["Location"] == reverse("classroom:class_detail", args=[world.class_a.pk])
    child = Student.objects.get(pk=world.child_a.pk)
    assert child.classroom == mine and child.group is None


def test_move_refuses_a_name_already_in_the_target_class(world):
    mine = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="4A")
    Student.objects.create(classroom=mine, name="ADA")
    response = world.client("teacher_a").post(
        reverse("classroom:student_move", args=[world.child_a.pk]),
        {"classroom": mine.pk},
        headers=HX,
    )
    assert response.status_code == 422
    assert f"already has a child called {isolate('Ada')}" in response.text  # FSI Ada PDI


def test_archive_and_restore_a_child(world):
    client = world.client("teacher_a")
    client.post(reverse("classroom:student_archive", args=[world.child_a.pk]))
    child = Student.objects.get(pk=world.child_a.pk)
    assert child.is_archived
    page = client.get(reverse("classroom:class_detail", args=[world.class_a.pk])).text
    assert "1 archived child" in page and "Archived" in page
    client.post(reverse("classroom:student_restore", args=[world.child_a.pk]))
    assert not Student.objects.get(pk=world.child_a.pk).is_archived


def test_restoring_a_class_whose_name_is_taken_again_asks_for_a_rename(world):
    client = world.client("teacher_a")
    world.class_a.archive()
    Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="3a")
    response = client.post(reverse("classroom:class_restore", args=[world.class_a.pk]), follow=True)
    assert "rename one first" in response.text
    world.class_a.refresh_from_db()
    assert world.class_a.is_archived


def test_restoring_an_active_class_is_harmless(world):
    response = world.client("teacher_a").post(
        reverse("classroom:class_restore", args=[world.class_a.pk]), follow=True
    )
    assert "is back" in response.text


@pytest.mark.django_db
def test_children_are_listed_alphabetically_whatever_their_accents_and_case(world):
    """ "Émilie" sorts with the Es and "bob" with the Bs: on the class page, in the name picker
    the children sign in from, and wherever children are listed."""
    room = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="4E")
    room.add_roster(room.read_roster("Zoe\nbob\nÉmilie\nBen\nemma"))
    Student.objects.create(classroom=room, name="Ölaf")
    expected = ["Ben", "bob", "Émilie", "emma", "Ölaf", "Zoe"]
    assert [s.name for s in room.students.all()] == expected
    assert [s.name for s in room.students_for_signin()] == expected
    page = world.client("teacher_a").get(reverse("classroom:class_detail", args=[room.pk])).text
    assert [page.index(f">{n}<") for n in expected] == sorted(
        page.index(f">{n}<") for n in expected
    )
    picker = Client().get(reverse("classroom:join_class", args=[room.code])).text
    assert [picker.index(n) for n in expected] == sorted(picker.index(n) for n in expected)
    # A rename keeps the order right.
    emilie = Student.objects.get(classroom=room, name="Émilie")
    emilie.name = "Amélie"
    emilie.save(update_fields=["name"])
    assert [s.name for s in room.students.all()][:2] == ["Amélie", "Ben"]


def test_a_group_added_with_htmx_on_the_class_page_reloads_it(world):
    """htmx on the class page: "Group Foxes added." used to answer HX-Redirect to the same page
    with "#groups", which the browser only scrolls to; the page looked unchanged and app.js held
    back every later request (found in a keyboard walk). The same page is reloaded instead; a
    page elsewhere (the group's own edit page) is still sent on to the class page."""
    client = world.client("teacher_a")
    class_page = reverse("classroom:class_detail", args=[world.class_a.pk])
    on_the_class_page = {**HX, "HX-Current-URL": f"http://testserver{class_page}"}
    added = client.post(
        reverse("classroom:group_new", args=[world.class_a.pk]),
        {"name": "Foxes"},
        headers=on_the_class_page,
    )
    assert added.status_code == 200 and added["HX-Refresh"] == "true"
    assert "HX-Redirect" not in added
    page = client.get(class_page).text
    assert re.search(r"Group \W{0,12}Foxes\W{0,12} added\.", page)  # the message, on reload
    assert "Foxes" in page.split('id="groups"')[1]
    group = world.class_a.groups.get(name="Foxes")
    edit_page = reverse("classroom:group_edit", args=[group.pk])
    renamed = client.post(
        edit_page,
        {"name": "Red foxes"},
        headers={**HX, "HX-Current-URL": f"http://testserver{edit_page}"},
    )
    assert renamed["HX-Redirect"] == class_page + "#groups"
