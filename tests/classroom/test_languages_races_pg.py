"""A grown-up's language chosen from thirty tabs at once, on PostgreSQL: threads released
together, each with its own connection and its own session, through the real switcher view
(classroom.views.language.set_language, Preferences.choose_language)."""

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import Preferences

from .test_signin_races_pg import race

TABS = 30


def test_thirty_tabs_choosing_at_once_keep_one_preferences_row(postgres, transactional_db):
    """No request fails (the first choice makes the row, the others wait for it and update
    it), one row is left, holding one of the languages chosen, and a new log-in gets it."""
    user = get_user_model().objects.create_user("marta", "marta@example.com", "pw-123456789")
    tabs = []
    for _ in range(TABS):
        tab = Client()
        tab.force_login(user)
        tabs.append(tab)
    languages = ["es", "it", "en"] * (TABS // 3)

    def choose(tab, language):
        return lambda: tab.post(reverse("classroom:set_language"), {"language": language})

    results = race([choose(tab, lang) for tab, lang in zip(tabs, languages, strict=True)])
    statuses = [getattr(r, "status_code", r) for r in results]
    assert statuses == [302] * TABS, statuses
    rows = Preferences.objects.filter(user=user)
    assert rows.count() == 1
    chosen = rows.get().language
    assert chosen in {"es", "it", "en"}
    fresh = Client()
    fresh.force_login(user)
    assert fresh.get(reverse("classroom:teacher_home")).headers["Content-Language"] == chosen
