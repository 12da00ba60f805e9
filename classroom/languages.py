"""Which language a page speaks (docs/languages.md): a signed-in child's school's, a grown-up's
own choice, a class's school's on its sign-in pages and printed cards; else Django's
LocaleMiddleware's (the language cookie the switcher sets, then the browser's
Accept-Language). ``classroom.middleware.ChosenLanguageMiddleware`` applies it."""

from django.conf import settings
from django.utils import translation
from django.utils.translation import pgettext_lazy

from classroom.models.preferences import SESSION_LANGUAGE

# Each language's name inside a sentence ("its screens speak Spanish": "español" in Spanish,
# lower case there, where a list of languages writes "Español").
IN_A_SENTENCE = {
    "en": pgettext_lazy("a language's name inside a sentence", "English"),
    "es": pgettext_lazy("a language's name inside a sentence", "Spanish"),
    "it": pgettext_lazy("a language's name inside a sentence", "Italian"),
}

# The session's copy of a signed-in child's school's language (made at sign-in).
CHILD_LANGUAGE = "child_language"


def chosen_language(request) -> str:
    """The language the requester has been given, "" for LocaleMiddleware's choice (the
    language cookie, else the browser's Accept-Language): a signed-in child's school's (the
    school decides its children's screens: the session's copy, made at sign-in, so a page that
    never looks the child up costs no query; ``child_loaded`` puts the school's current
    language in force once the child is read), a grown-up's own (their account's, copied into
    the session at log-in)."""
    session = getattr(request, "session", None)
    if session is None:
        return ""
    if session.get("student_id"):
        return session.get(CHILD_LANGUAGE) or ""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return session.get(SESSION_LANGUAGE) or ""
    return ""


def child_loaded(request, child) -> None:
    """The signed-in child was just read (``child_session.current_student``, which
    ``request.child`` calls): their school's language, now,
    for the rest of the request and the next ones (the admin may have changed it)."""
    language = child.classroom.school.language
    use_language(request, language)
    if request.session.get(CHILD_LANGUAGE) != language:
        request.session[CHILD_LANGUAGE] = language


def use_language(request, language: str, *, for_page: bool = True) -> None:
    """Write this request's page in ``language`` (one of LANGUAGES; "" changes nothing): a
    sign-in page of a class, or a class's printed cards, speaks its school's language.
    ``for_page``: the language is the page's, not the requester's (no switcher on it)."""
    if language and language in dict(settings.LANGUAGES):
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        # The page's language is not the requester's to choose: no switcher on it.
        request.language_chosen_for_page = for_page
