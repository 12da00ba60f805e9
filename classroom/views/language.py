"""The language switcher's POST (docs/languages.md): Django's ``set_language`` (the language
cookie, then back to the page, a path of this site), and for a logged-in grown-up their
account's language too (every device they log in on)."""

from django.conf import settings
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from classroom.models import Preferences


@require_POST
def set_language(request):
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        context = {
            "heading": gettext("That language is not offered here"),
            "lines": [gettext("Choose English, Spanish or Italian from the list.")],
            "link_url": "/",
            "link_text": gettext("Back to the start"),
        }
        return render(request, "registration/notice.html", context, status=422)
    response = django_set_language(request)
    if request.user.is_authenticated:
        Preferences.choose_language(request, language)
    return response
