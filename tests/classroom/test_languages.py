"""Who sees which language (docs/languages.md): the browser's for visitors and families, with
a switcher on every page (Django's set_language, a cookie); a grown-up's own choice kept on
their account; a school's language on its children's screens; <html lang> always true."""

import re
from datetime import date
from datetime import timedelta

import pytest
from catalogue_kit import numbers_with_commas
from catalogue_kit import svgs
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from classroom.models import Preferences
from classroom.models import School
from classroom.templatetags.local_dates import local_date

pytestmark = pytest.mark.django_db
SWITCH = reverse("classroom:set_language")


def html_lang(page) -> str:
    return re.search(r'<html lang="([^"]+)"', page.text).group(1)


@pytest.mark.parametrize(
    ("accept", "lang", "word"),
    [("es-ES,es;q=0.9", "es", "Familia"), ("it-IT,it;q=0.8", "it", "famiglia"), ("en", "en", "")],
)
def test_a_visitor_gets_the_browsers_language_and_a_true_html_lang(accept, lang, word):
    page = Client().get(reverse("games:family"), headers={"accept-language": accept})
    assert page.status_code == 200
    assert html_lang(page) == lang and page["Content-Language"] == lang
    assert word.lower() in page.text.lower()
    assert 'name="language"' in page.text  # the switcher
    assert '<option value="es" lang="es"' in page.text and ">Español</option>" in page.text


def test_the_switcher_sets_the_cookie_and_goes_back_to_the_page():
    client = Client()
    response = client.post(SWITCH, {"language": "it", "next": reverse("games:family")})
    assert response.status_code == 302 and response["Location"] == reverse("games:family")
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "it"
    page = client.get(reverse("games:family"), headers={"accept-language": "es"})
    assert html_lang(page) == "it"  # the choice beats the browser's


@pytest.mark.parametrize("data", [{"language": "fr"}, {"language": ""}, {}])
def test_a_language_not_offered_is_422_with_a_message_and_no_cookie(data):
    client = Client()
    response = client.post(SWITCH, data | {"next": "/"})
    assert response.status_code == 422
    assert "That language is not offered here" in response.text
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies


def test_the_switcher_never_sends_anybody_to_another_site():
    response = Client().post(SWITCH, {"language": "es", "next": "https://example.com/"})
    assert response.status_code == 302 and response["Location"] == "/"


def test_a_teachers_choice_is_kept_on_their_account(world):
    teacher = world.client("teacher_a")
    teacher.post(SWITCH, {"language": "es", "next": "/"})
    assert Preferences.objects.get(user=world.teacher_a).language == "es"
    # Another device, an English browser, no cookie: the account's language.
    other = Client()
    other.force_login(world.teacher_a)  # a log-in: the account's language into the session
    page = other.get(reverse("classroom:teacher_home"), headers={"accept-language": "en"})
    assert html_lang(page) == "es"
    assert "Mis clases" in page.text or "clases" in page.text.lower()


def test_a_teacher_without_a_choice_gets_their_browsers_language(world):
    page = world.client("teacher_a").get(
        reverse("classroom:teacher_home"), headers={"accept-language": "it"}
    )
    assert html_lang(page) == "it"


def test_a_childs_screens_speak_their_schools_language_whatever_the_browser(world):
    School.objects.filter(pk=world.school_a.pk).update(language="it")
    child = world.client("child_a")
    child.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page = child.get(reverse("classroom:child_home"), headers={"accept-language": "en"})
    assert html_lang(page) == "it"
    assert 'name="language"' not in page.text  # no switcher for a signed-in child
    board = child.get(world.match_a.get_absolute_url())
    assert html_lang(board) == "it"


def test_a_classs_sign_in_pages_and_printed_cards_speak_its_schools_language(world):
    School.objects.filter(pk=world.school_a.pk).update(language="es")
    code = world.class_a.code
    page = Client().get(
        reverse("classroom:join_class", args=[code]), headers={"accept-language": "en"}
    )
    assert html_lang(page) == "es"
    url = reverse("classroom:login_cards", args=[world.class_a.pk])
    # The cards speak the school's language, the page around them the teacher's (before, the
    # teacher's buttons were in the school's language too, with no language switcher).
    cards = world.client("teacher_a").get(url, headers={"accept-language": "en"})
    assert html_lang(cards) == "en" and 'name="language"' in cards.text
    card = re.search(r'<article class="login-card".*?</article>', cards.text, re.S).group(0)
    assert 'lang="es"' in card and "Mis tres dibujos" in card and "Scan me" not in card
    assert "Print the cards" in cards.text and "Sign every child out now" in cards.text
    # One card swapped in after "New pictures" is in the school's language as well.
    swapped = world.client("teacher_a").post(
        reverse("classroom:student_pictures_new", args=[world.child_a.pk]),
        headers={"HX-Request": "true", "accept-language": "en"},
    )
    assert 'lang="es"' in swapped.text and "Mis tres dibujos" in swapped.text
    assert "New pictures" in swapped.text
    # The class code on the projector is for the children: the school's language.
    code_page = world.client("teacher_a").get(url, {"show": "code"})
    assert html_lang(code_page) == "es"
    # The teacher's own pages stay in the teacher's language.
    home = world.client("teacher_a").get(reverse("classroom:teacher_home"))
    assert html_lang(home) == "en"


def test_sign_up_starts_the_schools_language_as_the_browsers(db):
    data = {
        "first_name": "Lucía",
        "last_name": "Pérez",
        "email": "lucia@colegio.example",
        "school_name": "CEIP La Paz",
        "time_zone": "Europe/Madrid",
        "password1": "tablas-y-pociones-42",
        "password2": "tablas-y-pociones-42",
    }
    response = Client().post(reverse("classroom:signup"), data, headers={"accept-language": "es"})
    assert response.status_code == 302
    school = School.objects.get(name="CEIP La Paz")
    assert (school.language, school.timezone) == ("es", "Europe/Madrid")


def test_no_language_is_left_active_after_a_request(world):
    world.client("child_a").get(reverse("classroom:child_home"), headers={"accept-language": "es"})
    assert translation.get_language() == settings.LANGUAGE_CODE


@pytest.mark.parametrize(
    ("lang", "kind", "expected"),
    [
        ("en", "date", "3 Mar 2026"),
        ("en", "weekday", "Tuesday 3 March"),
        ("es", "date", "3 de marzo de 2026"),
        ("es", "weekday", "martes, 3 de marzo"),
        ("es", "short_weekday_year", "mar, 3 mar 2026"),
        ("it", "weekday", "martedì 3 marzo"),  # Django's Italian names are capitalised
        ("it", "day_month", "3 marzo"),
        ("it", "date", "3 marzo 2026"),  # Django's Italian DATE_FORMAT has "03"
        ("it", "short_weekday_year", "mar 3 mar 2026"),
    ],
)
def test_dates_are_written_the_way_of_each_language(lang, kind, expected):
    with translation.override(lang):
        assert local_date(date(2026, 3, 3), kind) == expected


@pytest.mark.parametrize("lang", ["es", "it"])
def test_the_charts_numbers_use_dots_in_every_language(world, lang):
    from classroom.models import DailyTrend

    today = world.school_a.local_today()
    for weeks in range(6):
        day = today - timedelta(weeks=weeks)
        for scope, pk in (("student", world.child_a.pk), ("classroom", world.class_a.pk)):
            DailyTrend.objects.create(scope=scope, scope_id=pk, day=day, attempts=7, correct=5)
    admin, teacher = world.client("admin_a"), world.client("teacher_a")
    for client in (admin, teacher):
        client.post(SWITCH, {"language": lang, "next": "/"})
    pages = [
        admin.get(reverse("classroom:school_dashboard")),
        teacher.get(reverse("classroom:class_report", args=[world.class_a.pk])),
        teacher.get(reverse("classroom:child_report", args=[world.child_a.pk])),
    ]
    charts = 0
    for page in pages:
        assert page.status_code == 200 and html_lang(page) == lang
        for svg in svgs(page.text):
            charts += 1
            assert numbers_with_commas(svg) == [], page.request["PATH_INFO"]
    assert charts >= 2


@pytest.mark.parametrize(("lang", "expected"), [("en", "12.5 · 1234"), ("es", "12,5 · 1234")])
def test_numbers_for_people_are_localized_and_never_in_markup(lang, expected):
    from django.template import Context
    from django.template import Template

    with translation.override(lang):
        page = Template(
            '{% load l10n %}{{ x }} · {{ n }}<rect width="{{ x|unlocalize }}"></rect>'
        ).render(Context({"x": 12.5, "n": 1234}))
    assert page == f'{expected}<rect width="12.5"></rect>'


def test_a_speed_people_read_has_the_languages_decimal_mark():
    from classroom.charts import seconds

    assert seconds(2400) == "2.4" and seconds(12400) == "12"
    with translation.override("es"):
        assert seconds(2400) == "2,4"
    with translation.override("it"):
        assert seconds(2400) == "2,4"
