"""Class codes, archiving, moving a child and reading a roster (model behaviour)."""

import pytest

from classroom.models import CODE_ALPHABET
from classroom.models import CODE_LENGTH
from classroom.models import Classroom
from classroom.models import Group
from classroom.models import Student
from classroom.models import WaitingEntry
from classroom.models.roster import read_roster

pytestmark = pytest.mark.django_db


def test_class_codes_use_only_unambiguous_characters(world):
    for char in "0O1IL2Z5S8B":
        assert char not in CODE_ALPHABET
    codes = {
        Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name=f"C{i}").code
        for i in range(30)
    }
    assert len(codes) == 30
    for code in codes:
        assert len(code) == CODE_LENGTH
        assert set(code) <= set(CODE_ALPHABET)


def test_regenerating_the_code_changes_it_and_frees_the_old_one(world):
    old = world.class_a.code
    new = world.class_a.regenerate_code()
    world.class_a.refresh_from_db()
    assert world.class_a.code == new != old
    assert set(new) <= set(CODE_ALPHABET)
    assert not Classroom.objects.filter(code=old).exists()


def test_archiving_a_class_signs_its_children_out_and_restoring_keeps_everything(world):
    generation = world.class_a.signin_generation
    world.class_a.archive()
    world.class_a.refresh_from_db()
    assert world.class_a.is_archived
    assert world.class_a.signin_generation == generation + 1
    assert Classroom.objects.for_teacher(world.teacher_a).archived().get() == world.class_a
    world.class_a.restore()
    world.class_a.refresh_from_db()
    assert not world.class_a.is_archived
    assert world.class_a.students.count() == 2


def test_moving_a_child_clears_the_group_and_the_old_class_assignments(world):
    other = Classroom.objects.create(school=world.school_a, teacher=world.teacher_a, name="4A")
    world.assignment_a.students.add(world.child_a)
    world.assignment_a.tier_overrides = {str(world.child_a.pk): "purple"}
    world.assignment_a.save()
    WaitingEntry.objects.create(assignment=world.assignment_a, student=world.child_a, tier="green")
    world.child_a.move_to(other)
    child = Student.objects.get(pk=world.child_a.pk)
    assert child.classroom == other
    assert child.group is None
    assert not world.assignment_a.students.filter(pk=child.pk).exists()
    world.assignment_a.refresh_from_db()
    assert world.assignment_a.tier_overrides == {}
    assert not WaitingEntry.objects.filter(student=child).exists()
    assert child.child_seats.exists()  # the finished history stays


def test_archived_and_locked_children_say_so(world):
    from datetime import timedelta

    from django.utils import timezone

    assert world.child_a.roster_status == "active"
    world.child_a.locked_until = timezone.now() + timedelta(minutes=5)
    assert world.child_a.roster_status == "locked"
    world.child_a.archive()
    assert world.child_a.roster_status == "archived"
    world.child_a.restore()
    world.child_a.locked_until = None
    assert world.child_a.roster_status == "active"


# --- reading a roster ---------------------------------------------------------------------
def reasons(reading):
    return {line: str(reason) for line, reason in reading.errors}


def test_names_one_per_line_are_trimmed_and_empty_lines_skipped():
    reading = read_roster("  Ada  \n\n   \nBen   Lee\r\nZoë\n")
    assert [(r.line, r.name, r.group) for r in reading.rows] == [
        (1, "Ada", ""),
        (2, "Ben Lee", ""),  # numbered as the box shows the text: without its empty lines
        (3, "Zoë", ""),
    ]
    assert reading.errors == []


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("ada@example.com", "e-mail"),
        ("12345", "digits only"),
        ("1 2 3", "digits only"),
        ("---", "at least one letter"),
        ("A" * 41, "too long"),
        ("Ada <b>", "letters, digits, spaces"),
    ],
)
def test_bad_names_are_reported_with_their_line_and_reason(line, reason):
    reading = read_roster(f"Ada\n{line}\nBen")
    assert reason in reasons(reading)[2]
    assert [r.name for r in reading.rows] == ["Ada", "Ben"]


def shown(text: str) -> str:
    """A reason as read: without the marks that isolate a name."""
    return "".join(c for c in text if c not in "\u2066\u2067\u2068\u2069")


def test_data_minimisation_message_names_first_name_or_nickname():
    reading = read_roster("ada@example.com")
    assert "first name or nickname only" in reasons(reading)[1]


def test_a_name_of_40_characters_is_fine():
    assert read_roster("A" * 40).errors == []


def test_duplicates_within_the_paste_are_reported_whatever_the_case():
    reading = read_roster("Ada\nBen\n\nada\n")  # the empty line is not counted
    assert "ada is on line 1 too: add an initial" in shown(reasons(reading)[3])
    assert "(e.g. “ada B.”)" in shown(reasons(reading)[3])
    assert reading.bad_lines == ["ada"] and reading.problems[0][:2] == (3, "ada")


def test_duplicates_against_the_class_are_reported(world):
    reading = world.class_a.read_roster("Zed\nADA\n")
    assert "already in this class" in reasons(reading)[2]


def test_csv_with_header_bom_groups_and_semicolons(world):
    text = "\ufeffname;group\nZed;Owls\nYan;Foxes\nXia;\n"
    reading = world.class_a.read_roster(text)
    assert reading.errors == []
    assert [(r.line, r.name, r.group) for r in reading.rows] == [
        (2, "Zed", "Owls"),
        (3, "Yan", "Foxes"),
        (4, "Xia", ""),
    ]


def test_a_known_group_is_matched_whatever_the_case(world):
    reading = world.class_a.read_roster("Zed,owls")
    assert reading.rows[0].group == "Owls"


@pytest.mark.parametrize(
    "header",
    ["name,group", "Forename,Group", "Nome;Gruppo", "NOMBRE;Grupo", "Nombre del niño,Mesa",
     "Alunno", "First name:,Group name:", "Nome dell’alunno;Squadra"],
)  # fmt: skip
def test_a_header_line_in_english_spanish_or_italian_is_no_child(header):
    """A school's spreadsheet heads its columns in its own language; before, "Nome;Gruppo"
    added a child called Nome in a new group Gruppo (found in a teacher's browser walk)."""
    sep = ";" if ";" in header else ","
    reading = read_roster(f"{header}\nGiulia{sep}Gufi\nAda{sep}Owls\n")
    assert not reading.errors
    assert [row.name for row in reading.rows] == ["Giulia", "Ada"]


def test_a_child_called_like_a_header_word_is_kept_after_the_first_line():
    reading = read_roster("Ada,Owls\nNome,Gruppo\n")
    assert [row.name for row in reading.rows] == ["Ada", "Nome"]


def test_more_than_two_columns_is_refused():
    reading = read_roster("name,group\nAda,Owls,Lovelace\n")
    assert "too many columns" in reasons(reading)[2]


def test_more_than_60_children_at_once_is_refused():
    reading = read_roster(
        "\n".join(f"Child{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(61))
    )
    assert None in reasons(reading)
    assert "too many" in reasons(reading)[None]


def test_nothing_to_add_is_an_error():
    assert read_roster("\n \nname,group\n").errors


def test_add_roster_adds_the_good_lines_and_creates_groups(world):
    reading = world.class_a.read_roster("Zed,Owls\nYan,Foxes\n")
    students, new_groups = world.class_a.add_roster(reading)
    assert [s.name for s in students] == ["Zed", "Yan"]
    assert [g.name for g in new_groups] == ["Foxes"]
    assert Student.objects.get(name="Zed").group == world.group_a
    assert Group.objects.filter(classroom=world.class_a).count() == 2
    mixed = world.class_a.read_roster("Wil\n123,Bats\n")
    students, new_groups = world.class_a.add_roster(mixed)
    assert [s.name for s in students] == ["Wil"] and new_groups == []
    assert mixed.bad_lines == ["123,Bats"] and not Group.objects.filter(name="Bats").exists()
    for refused in ("123\n", "\n".join(f"K{i}" for i in range(201))):  # no good line; too many
        with pytest.raises(ValueError):
            world.class_a.add_roster(world.class_a.read_roster(refused))
    assert not Student.objects.filter(name="K1").exists()
