"""Names people typed, shown isolated (config/names.py): ``{{ name|isolate }}`` in HTML
text gives ``<bdi>name</bdi>`` (escaped); ``{{ name|isolate_attr }}`` inside an attribute
(aria-label, title) gives the name between the Unicode isolates FSI and PDI, as markup has
no place there; ``{{ names|isolate_join:", " }}`` isolates every name of a list."""

from django import template
from django.utils.html import format_html
from django.utils.html import format_html_join

from config.names import isolate as isolate_text

register = template.Library()


@register.filter(is_safe=True)
def isolate(value):
    if value is None or value == "":
        return ""
    return format_html("<bdi>{}</bdi>", value)


@register.filter
def isolate_attr(value):
    if value is None or value == "":
        return ""
    return isolate_text(value)


@register.filter(is_safe=True)
def isolate_join(values, separator=", "):
    return format_html_join(separator, "<bdi>{}</bdi>", ((v,) for v in values if v))


# How long a name may be before its box writes it smaller (``{{ name|name_size }}``): by its
# longest word (a word is never broken) and by its whole length (a name of many words wraps).
LONG_WORD, LONGER_WORD = 9, 13
LONG_NAME, LONGER_NAME = 16, 26


@register.filter
def name_size(value) -> str:
    """ "name-long" or "name-longer" for a name its box must write smaller, else "": the
    class the name's box takes, so long names shrink to fit instead of breaking inside a
    word (docs/classroom: names)."""
    text = str(value or "")
    word = max((len(w) for w in text.split()), default=0)
    if word > LONGER_WORD or len(text) > LONGER_NAME:
        return "name-longer"
    if word > LONG_WORD or len(text) > LONG_NAME:
        return "name-long"
    return ""
