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
