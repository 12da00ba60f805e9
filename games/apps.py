from django.apps import AppConfig
from django.utils.translation import pgettext_lazy


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = pgettext_lazy("app name", "Games")
