"""Dates and times in the page's language (docs/languages.md): ``{{ day|local_date:"weekday" }}``.

Two kinds come from the language's own formats (Django's, and config/formats/en for English);
the others have no Django format name, so each is a translated date-format string: its
translation is the format that language writes ("l j F" is "l, j \\d\\e F" in Spanish)."""

from django import template
from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import pgettext_lazy

register = template.Library()

# Languages that write the months' and the days' names in lower case inside a date ("martes,
# 3 de marzo", "martedì 3 marzo"): Django's Italian names are capitalised ("Marzo"), and its
# short months are capitalised in every language ("Mar"). A date holds only names and numbers.
LOWER_CASE_NAMES = {"es", "it"}

FORMATS = {
    # 3 Mar 2026 · 3 de marzo de 2026 · 3 marzo 2026
    "date": "DATE_FORMAT",
    # 3 Mar · 3 de marzo · 3 marzo
    "day_month": "MONTH_DAY_FORMAT",
    # Tuesday 3 March · martes, 3 de marzo
    "weekday": pgettext_lazy("a date format (date filter letters): weekday, day, month", "l j F"),
    # Tuesday 3 March 2026
    "weekday_year": pgettext_lazy(
        "a date format (date filter letters): weekday, day, month, year", "l j F Y"
    ),
    # Tue 3 Mar 2026
    "short_weekday_year": pgettext_lazy(
        "a date format (date filter letters): short weekday, day, month, year", "D j M Y"
    ),
    # 3 March 2026
    "long_date": pgettext_lazy(
        "a date format (date filter letters): day, month in full, year", "j F Y"
    ),
    # 3 Mar, 14:05
    "day_month_time": pgettext_lazy(
        "a date format (date filter letters): day, month, time", "j M, H:i"
    ),
    # Tue 3 Mar, 14:05
    "weekday_time": pgettext_lazy(
        "a date format (date filter letters): short weekday, day, month, time", "D j M, H:i"
    ),
}


@register.filter(expects_localtime=True, is_safe=False)
def local_date(value, kind):
    """``value`` (a date or an aware datetime, in the active time zone) written the way of the
    page's language; "" for no value. ``kind``: one of FORMATS."""
    if value in (None, ""):
        return ""
    written = date_format(value, str(FORMATS[kind]))
    return written.lower() if translation.get_language() in LOWER_CASE_NAMES else written
