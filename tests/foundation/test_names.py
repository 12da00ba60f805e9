"""Names that look the same are the same (config/names.py): every typed name is NFC without
control or format characters, names that must differ are compared without case or accents,
and every name is shown isolated so it cannot reorder the sentence around it."""

import re
import unicodedata

import pytest
from django.contrib.auth import get_user_model
from django.template import Context
from django.template import Template
from django.test import Client
from django.urls import reverse
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import Student
from classroom.models.roster import name_sort_key
from config.names import FSI
from config.names import PDI
from config.names import clean_name
from config.names import isolate
from config.names import name_key
from games.models import Match

from ..games.conftest import family_form

ZWSP, RLO = "\u200b", "\u202e"
HTMX = {"HTTP_HX_REQUEST": "true"}


# --- clean_name and name_key ----------------------------------------------------------------
@pytest.mark.parametrize(
    "raw, clean",
    [
        (f"A{ZWSP}na", "Ana"),
        (f"{RLO}Ana", "Ana"),
        ("\u2066Ana\u2069", "Ana"),  # an isolate typed in is dropped too
        ("  Ana \t  B.\n", "Ana B."),
        ("Zoe\u0308", "Zoë"),  # NFC
        ("Ze\u200b\u0301", "Zé"),  # NFC after the format character between is gone
        ("An\u00ada", "Ana"),  # soft hyphen
        ("\ufeffAna\x00", "Ana"),
        (f"{ZWSP}{RLO}\u200d", ""),
        (None, ""),
    ],
)
def test_clean_name_examples(raw, clean):
    assert clean_name(raw) == clean


def test_name_key_ignores_case_accents_invisibles_and_wide_forms():
    keys = {name_key(n) for n in ["Ana", "ANA", "aná", f"A{ZWSP}na", f"{RLO}Ana", "Ａｎａ"]}
    assert keys == {"ana"}
    assert name_key("Ana") != name_key("Ana B.")
    assert name_key("İsa") == name_key("isa")


# Text rich in the characters that matter: controls, format characters, combining marks,
# spaces of every kind, letters of several scripts.
NAMEISH = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(
            list("Aaé\u0301\u0308 \t\n\u00a0\u2003\u200b\u200c\u200d\u202e\u2066\u2069\ufeff")
            + list("\u05d0\u0627\u0928\u093f\u1100\u1161")
        ),
    ),
    max_size=40,
)


@settings(max_examples=500, deadline=None)
@given(NAMEISH)
def test_clean_name_is_nfc_without_cc_or_cf_and_idempotent(raw):
    clean = clean_name(raw)
    assert not {unicodedata.category(ch) for ch in clean} & {"Cc", "Cf"}
    assert unicodedata.is_normalized("NFC", clean)
    assert clean_name(clean) == clean
    assert clean == clean.strip() and "  " not in clean
    assert name_key(clean) == name_key(raw)


@settings(max_examples=300, deadline=None)
@given(NAMEISH)
def test_name_key_is_stable_under_case_and_invisibles(raw):
    assert name_key(raw.casefold()) == name_key(raw)
    assert name_key(ZWSP + raw + RLO) == name_key(raw)


# --- the template filters ---------------------------------------------------------------------
def render(source, **context):
    return Template("{% load names %}" + source).render(Context(context))


def test_isolate_filters_escape_and_isolate():
    name = '<b onclick="x">Ana</b>'
    html = render("<p>Hello {{ name|isolate }}!</p>", name=name)
    assert html == "<p>Hello <bdi>&lt;b onclick=&quot;x&quot;&gt;Ana&lt;/b&gt;</bdi>!</p>"
    attr = render('<a title="{{ name|isolate_attr }}">', name=name)
    assert attr == f'<a title="{FSI}&lt;b onclick=&quot;x&quot;&gt;Ana&lt;/b&gt;{PDI}">'
    joined = render('{{ names|isolate_join:", " }}', names=["Ana", "<i>", ""])
    assert joined == "<bdi>Ana</bdi>, <bdi>&lt;i&gt;</bdi>"
    assert render("{{ name|isolate }}", name="") == ""


# --- a family room ----------------------------------------------------------------------------
def family_room(client, **extra):
    return client.post(reverse("games:new_family", args=["muertoons"]), family_form(**extra))


@pytest.mark.django_db
@pytest.mark.parametrize("lookalike", [f"A{ZWSP}na", f"{RLO}Ana", "ANA", "Aná"])
def test_a_lookalike_of_a_player_cannot_join_the_family_room(lookalike):
    host = Client()
    assert family_room(host).status_code == 302
    match = Match.objects.get()
    guest = Client()
    guest.post(reverse("games:join_room"), {"code": match.room_code})
    url = reverse("games:join", args=[match.public_id])
    response = guest.post(url, {"name": lookalike}, **HTMX)
    assert response.status_code == 422
    assert "Somebody at this table already has this name" in response.content.decode()
    assert match.seats.filter(kind="open").count() == 1  # nothing changed


@pytest.mark.django_db
def test_two_lookalike_players_on_one_device_are_refused():
    response = family_room(Client(), seat2_kind="here", seat2_name=f"{RLO}Ana")
    assert response.status_code == 422
    assert "Two players have this name" in response.content.decode()
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_name_of_invisible_characters_only_is_refused_with_a_message():
    response = Client().post(
        reverse("games:new"),
        {"name": f"{ZWSP}{RLO}", "tier": "green", "opponent": "wizard", "first": "me"},
        **HTMX,
    )
    assert response.status_code == 422
    assert "spaces and invisible characters do not count" in response.content.decode()
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_the_room_card_isolates_every_name():
    host = Client()
    family_room(host, seat1_name=f"{RLO}Ana")
    match = Match.objects.get()
    assert match.seats.get(number=0).name == "Ana"
    body = host.get(match.get_absolute_url()).content.decode()
    assert RLO not in body
    assert "At the table: <bdi>Ana</bdi>." in body


# --- rosters, classes, schools, teachers --------------------------------------------------------
def test_a_pasted_roster_is_normalised_and_lookalikes_are_refused(world):
    client = world.client("teacher_a")
    url = reverse("classroom:roster_add", args=[world.class_a.pk])
    pasted = f"Zo{ZWSP}e\nMi{RLO}a\tOwls\nLe\u0301o"
    response = client.post(url, {"names": pasted})
    assert response.status_code == 302
    names = set(world.class_a.students.values_list("name", flat=True))
    assert {"Zoe", "Mia", "Léo"} <= names
    assert Student.objects.get(classroom=world.class_a, name="Mia").group == world.group_a
    # Ada is in the class: her lookalikes are the same name.
    for lookalike in (f"A{ZWSP}da", f"{RLO}Ada", "ÁDA"):
        response = client.post(url, {"names": lookalike}, **HTMX)
        assert response.status_code == 422, lookalike
        assert "is already in this class" in response.content.decode()
    assert world.class_a.students.count() == len(names)


def test_renaming_a_child_to_a_lookalike_is_refused(world):
    client = world.client("teacher_a")
    url = reverse("classroom:student_edit", args=[world.child_a2.pk])
    response = client.post(url, {"name": f"A{ZWSP}DA"}, **HTMX)
    assert response.status_code == 422
    assert "Another child in this class is called" in response.content.decode()
    world.child_a2.refresh_from_db()
    assert world.child_a2.name == "Ali"


def test_a_class_name_is_stored_without_the_override(world):
    client = world.client("teacher_a")
    response = client.post(reverse("classroom:class_new"), {"name": f"{RLO}4C{ZWSP}"})
    assert response.status_code == 302
    assert Classroom.objects.filter(teacher=world.teacher_a, name="4C").exists()
    response = client.post(reverse("classroom:class_new"), {"name": f"3{ZWSP}a"}, **HTMX)
    assert response.status_code == 422  # "3A" is already one of this teacher's classes


def test_the_models_clean_names_on_every_way_in(world):
    child = Student.objects.create(classroom=world.class_b, name=f"{RLO}Noa{ZWSP}")
    # The sort key of the cleaned name: the same as the plain lower-case name's.
    assert child.name == "Noa" and child.sort_name == name_sort_key("noa", "en")
    world.school_b.name = f"Hill{ZWSP}side {RLO}"
    world.school_b.save()
    world.school_b.refresh_from_db()
    assert world.school_b.name == "Hillside"
    world.admin_b.first_name = f"{RLO}Sam"
    world.admin_b.save()
    world.admin_b.refresh_from_db()
    assert world.admin_b.first_name == "Sam"


@pytest.mark.django_db
def test_sign_up_stores_school_and_teacher_names_without_overrides():
    response = Client().post(
        reverse("classroom:signup"),
        {
            "first_name": f"{RLO}Maya",
            "last_name": f"Oka{ZWSP}for",
            "email": "maya@school.example",
            "school_name": f"{RLO}Hillside Primary\u2066",
            "time_zone": "Europe/Rome",
            "password1": "pink-elephant-42-staples",
            "password2": "pink-elephant-42-staples",
        },
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(email="maya@school.example")
    assert (user.first_name, user.last_name) == ("Maya", "Okafor")
    assert Membership.objects.get(user=user).school.name == "Hillside Primary"


# --- pages show names isolated -------------------------------------------------------------------
def test_the_class_page_and_the_wall_isolate_names(world):
    teacher = world.client("teacher_a")
    body = teacher.get(reverse("classroom:class_detail", args=[world.class_a.pk])).content.decode()
    assert '<td class="name"><bdi>Ada</bdi></td>' in body
    assert "Class <bdi>3A</bdi>" in body
    wall = teacher.get(reverse("classroom:session_wall", args=[world.class_a.pk])).content.decode()
    assert "<bdi>Ada</bdi>'s turn" in wall
    assert re.search(r'<span class="player-name ?"><bdi>Ada</bdi></span>', wall)


def test_messages_and_game_lines_isolate_names(world):
    teacher = world.client("teacher_a")
    response = teacher.post(
        reverse("classroom:student_archive", args=[world.child_a2.pk]), follow=True
    ).content.decode()
    assert f"{isolate('Ali')} is archived" in response
    board = world.client("child_a").get(world.match_a.get_absolute_url()).content.decode()
    assert f"{FSI}Pip{PDI}" in board  # the opponent's name in the board's sentences


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("Ada", ""),
        ("Wolfgang", ""),
        ("Maximilianus", "name-long"),  # a word of 12 letters
        ("Anna Sofia Bea Lu", "name-long"),  # 17 characters, short words
        ("Bartholomewsson", "name-longer"),  # a word of 15
        ("Anna Sofia Bea Lu Mia Ro Jo", "name-longer"),  # 27 characters
        ("", ""),
        (None, ""),
    ],
)
def test_name_size_shrinks_long_names_by_their_longest_word_and_their_length(name, size):
    from games.templatetags.names import name_size

    assert name_size(name) == size
