"""Children's names in the order of their school's language (config/collation.py): Spanish
puts ñ after n; accents and case never split a letter; the lists follow a change of the
school's language."""

import pytest
from django.urls import reverse

from classroom.models import School
from classroom.models import Student
from config.collation import sort_key

pytestmark = pytest.mark.django_db
NAMES = ["Nora", "Ñoño", "nacho", "Óscar", "Oliver", "Álvaro", "ana", "Zoe", "Ñandú", "Nuria"]


def ordered(language):
    return sorted(NAMES, key=lambda name: sort_key(name, language))


def test_spanish_puts_enye_after_n():
    assert ordered("es") == [
        *("Álvaro", "ana", "nacho", "Nora", "Nuria", "Ñandú", "Ñoño", "Oliver", "Óscar", "Zoe")
    ]


@pytest.mark.parametrize("language", ["en", "it"])
def test_english_and_italian_read_enye_as_n_and_ignore_accents_and_case(language):
    assert ordered(language) == [
        *("Álvaro", "ana", "nacho", "Ñandú", "Ñoño", "Nora", "Nuria", "Oliver", "Óscar", "Zoe")
    ]


def test_one_name_whatever_its_case_and_accents():
    assert sort_key("Aná", "es") == sort_key("ANA", "es") == sort_key("ana", "es")
    assert sort_key("Nono", "es") != sort_key("Ñoño", "es")  # two letters in Spanish


def test_the_sign_in_list_follows_the_schools_language(world):
    for name in ("Oliver", "Ñoño", "Nora"):
        Student.objects.create(classroom=world.class_a, name=name)
    School.objects.filter(pk=world.school_a.pk).update(language="en")
    names = list(world.class_a.students_for_signin().values_list("name", flat=True))
    assert names.index("Ñoño") < names.index("Nora")
    # The admin makes the children's screens Spanish: the lists are in Spanish order.
    admin = world.client("admin_a")
    school = world.school_a
    response = admin.post(
        reverse("classroom:school_settings"),
        {"name": school.name, "timezone": school.timezone, "language": "es"},
    )
    assert response.status_code == 302
    names = list(world.class_a.students_for_signin().values_list("name", flat=True))
    assert names.index("Nora") < names.index("Ñoño") < names.index("Oliver")
    page = world.client("anonymous").get(reverse("classroom:join_class", args=[world.class_a.code]))
    assert page.text.index("Nora") < page.text.index("Ñoño") < page.text.index("Oliver")
    # A new child of the Spanish school sorts in Spanish at once.
    world.class_a.school.refresh_from_db()
    Student.objects.create(classroom=world.class_a, name="Ñu")
    names = list(world.class_a.students_for_signin().values_list("name", flat=True))
    assert names.index("Ñoño") < names.index("Ñu") < names.index("Oliver")
