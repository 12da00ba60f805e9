"""A grown-up's own settings: the language of their pages (docs/languages.md).

The language is kept on the account (every device the grown-up logs in on) and copied into
the session at log-in, so a request finds it without a query
(``classroom.middleware.ChosenLanguageMiddleware``)."""

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db import models
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _

# The session's copy of the grown-up's language ("" or absent: the browser's).
SESSION_LANGUAGE = "grown_up_language"


class Preferences(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="preferences",
    )
    # Blank: the browser's language (its Accept-Language, or the language cookie).
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, blank=True, default=""
    )

    class Meta:
        app_label = "classroom"
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self):
        return str(self.user)

    @classmethod
    def choose_language(cls, request, language: str) -> None:
        """The signed-in grown-up's language, for this session and their next log-ins."""
        cls.objects.update_or_create(user=request.user, defaults={"language": language})
        request.session[SESSION_LANGUAGE] = language


@receiver(user_logged_in, dispatch_uid="classroom.preferences.language")
def _language_into_session(sender, request, user, **kwargs):
    if request is None or not hasattr(request, "session"):
        return
    language = Preferences.objects.filter(user=user).values_list("language", flat=True).first()
    request.session[SESSION_LANGUAGE] = language or ""
