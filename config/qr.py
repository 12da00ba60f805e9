"""QR codes, made on the server as inline SVG (no third-party request): the one helper of the
login cards, the class's join page and the family rooms' invitations."""

import segno
from django.utils.safestring import mark_safe


def qr_svg(data: str, title: str) -> str:
    """``data`` as an inline SVG QR code, black on white with a quiet zone of two modules,
    that scales with CSS (a viewBox, no fixed size: the page's stylesheet sizes it); ``title``
    is what a screen reader says."""
    svg = segno.make(data, error="m").svg_inline(
        scale=1, border=2, omitsize=True, dark="#000", light="#fff", title=title
    )
    return mark_safe(svg)  # noqa: S308 - segno escapes the title; the rest is path data
