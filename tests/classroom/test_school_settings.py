"""The school admin's settings page (classroom.views.school.school_settings): the school's
name and time zone; the new zone is the one every page of the school's teachers and children
uses from the next request (classroom.middleware.SchoolTimeZoneMiddleware)."""

from datetime import UTC
from datetime import datetime

import pytest
from django.test import override_settings
from django.urls import reverse

from classroom.models import School

URL = reverse("classroom:school_settings")
pytestmark = pytest.mark.django_db


def zone_of(school) -> str:
    return School.objects.get(pk=school.pk).timezone


def test_the_admin_sees_the_schools_name_and_zone(world):
    page = world.client("admin_a").get(URL).text
    assert "School settings" in page
    assert 'value="School A"' in page
    assert f'<option value="{world.school_a.timezone}" selected>' in page
    # Each zone by its country and city (CLDR's names, through Babel), in the page's language.
    assert '<option value="Europe/Madrid">Spain (Madrid)</option>' in page
    assert '<option value="America/Mexico_City">Mexico (Mexico City)</option>' in page
    assert "US/Eastern" not in page and "Etc/GMT" not in page  # places only
    assert "Australia/South" not in page  # no old names of zones
    spanish = world.client("admin_a").get(URL, headers={"accept-language": "es"}).text
    assert '<option value="Europe/Madrid">España (Madrid)</option>' in spanish
    assert spanish.index("Alemania (Berlín)") < spanish.index("España (Madrid)")


@pytest.mark.parametrize(
    ("zone", "hour"),
    [("Europe/Madrid", "18:00"), ("Europe/Rome", "18:00"), ("America/Mexico_City", "10:00")],
)
def test_the_admin_changes_the_zone_and_the_schools_pages_follow(world, zone, hour):
    admin = world.client("admin_a")
    response = admin.post(URL, {"name": "School A", "timezone": zone, "language": "en"})
    assert response.status_code == 302 and response["Location"] == reverse(
        "classroom:school_dashboard"
    )
    assert zone_of(world.school_a) == zone
    with override_settings(ROOT_URLCONF="tests.classroom.test_school_time_zone"):
        for role in ("teacher_a", "child_a", "admin_a"):
            assert world.client(role).get("/test/what-time/").text == f"{zone} {hour}"
        # School B is another school: its zone did not move.
        assert world.client("admin_b").get("/test/what-time/").text.split()[0] != zone
    notice = admin.get(reverse("classroom:school_dashboard")).text
    place = {"Europe/Madrid": "Spain (Madrid)", "Europe/Rome": "Italy (Rome)"}.get(zone)
    place = place or "Mexico (Mexico City)"
    assert f"time zone is {place}," in notice and "screens speak English." in notice


def test_a_school_day_in_mexico_city_is_mexico_citys(world):
    School.objects.filter(pk=world.school_a.pk).update(timezone="America/Mexico_City")
    school = School.objects.get(pk=world.school_a.pk)
    # 03:00 UTC on 2 July is still 1 July (21:00) in Mexico City, 2 July in Madrid.
    late = datetime(2025, 7, 2, 3, 0, tzinfo=UTC)
    assert str(school.local_today(late)) == "2025-07-01"
    School.objects.filter(pk=school.pk).update(timezone="Europe/Madrid")
    assert str(School.objects.get(pk=school.pk).local_today(late)) == "2025-07-02"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"name": "School A", "timezone": "Mars/Olympus_Mons", "language": "en"},
            "Select a valid choice",
        ),
        ({"name": "School A", "timezone": "US/Eastern", "language": "en"}, "Select a valid choice"),
        ({"name": "School A", "timezone": "", "language": "en"}, "This field is required"),
        ({"name": "\u200b\u2066", "timezone": "Europe/Rome", "language": "en"}, "Type a name"),
        (
            {"name": "School A", "timezone": "Europe/Rome", "language": "fr"},
            "Select a valid choice",
        ),
    ],
)
def test_bad_settings_answer_422_with_the_reason_and_change_nothing(world, data, message):
    before = zone_of(world.school_a)
    response = world.client("admin_a").post(URL, data, headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert message in response.text
    assert 'id="school-settings"' in response.text and "<html" not in response.text
    school = School.objects.get(pk=world.school_a.pk)
    assert (school.name, school.timezone) == ("School A", before)


def test_the_name_is_cleaned_and_the_page_says_so(world):
    response = world.client("admin_a").post(
        URL, {"name": "\u202eHillside\u200b Primary", "timezone": "Europe/Rome", "language": "en"}
    )
    assert response.status_code == 302
    assert School.objects.get(pk=world.school_a.pk).name == "Hillside Primary"


def test_nothing_changed_says_so(world):
    school = world.school_a
    admin = world.client("admin_a")
    response = admin.post(
        URL, {"name": school.name, "timezone": school.timezone, "language": school.language}
    )
    assert response.status_code == 302
    page = admin.get(reverse("classroom:school_dashboard")).text
    assert "Nothing changed." in page


@pytest.mark.parametrize("role", ["teacher_a", "admin_b", "superuser"])
def test_a_colleague_another_schools_admin_and_the_superuser_get_404_and_change_nothing(
    world, role
):
    before = zone_of(world.school_a)
    client = world.client(role)
    page = client.get(URL)
    # School B's admin gets School B's settings; the others, no school's.
    assert page.status_code == (200 if role == "admin_b" else 404)
    assert 'value="School A"' not in page.text
    client.post(URL, {"name": "Taken over", "timezone": "Asia/Tokyo", "language": "it"})
    school = School.objects.get(pk=world.school_a.pk)
    assert (school.name, school.timezone) == ("School A", before)


@pytest.mark.parametrize(
    ("lang", "school_language", "said"),
    [
        ("es", "it", "es España (Madrid) y las pantallas del alumnado están en italiano."),
        ("it", "es", "è Spagna (Madrid) e gli schermi di alunni e alunne sono in spagnolo."),
        ("en", "es", "is Spain (Madrid), its children&#x27;s screens speak Spanish."),
    ],
)
def test_the_notice_names_the_zone_and_the_language_as_a_sentence_writes_them(
    world, lang, school_language, said
):
    """The zone by its place, as the menu names it; the language in lower case inside a Spanish
    or Italian sentence ("en italiano"), though the switcher lists it as "Italiano"."""
    admin = world.client("admin_a")
    admin.cookies["django_language"] = lang
    data = {"name": "School A", "timezone": "Europe/Madrid", "language": school_language}
    assert admin.post(URL, data).status_code == 302
    notice = admin.get(reverse("classroom:school_dashboard")).text
    assert said in notice
