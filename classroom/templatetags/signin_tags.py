"""The sign-in pictures drawn in the page itself.

The pictures step shows nine pictures; as nine image files, a slow Chromebook on school Wi-Fi
showed their words for a moment before the pictures arrived, and the child who cannot read yet
had nothing to tap. In the page they arrive with it (about 5 KB, 2 KB compressed). The files in
static/img/pictures/ are the source (the printed login cards still use them as images, where
thirty children's pictures would make a heavy page)."""

import re
from functools import lru_cache
from pathlib import Path

from django import template
from django.contrib.staticfiles import finders
from django.utils.safestring import mark_safe

from classroom.models.roster import PICTURES

register = template.Library()


@lru_cache(maxsize=len(PICTURES))
def _svg(slug: str) -> str:
    path = finders.find(f"img/pictures/{slug}.svg")
    text = Path(path).read_text(encoding="utf-8")
    text = re.sub(r"<title>.*?</title>", "", text, flags=re.S)  # the word beside it says it
    return text.replace("<svg ", '<svg class="pic-img" aria-hidden="true" focusable="false" ', 1)


@register.simple_tag
def inline_picture(slug: str) -> str:
    """One of the nine pictures as inline SVG (only those nine: nothing else is read)."""
    if slug not in PICTURES:
        return ""
    return mark_safe(_svg(slug))  # noqa: S308 - our own static file, a fixed set of nine
