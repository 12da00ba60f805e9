"""A MultipliPotion card as HTML, built in Python: the board shows dozens of cards and an
{% include %} per card was most of its render time."""

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext

register = template.Library()

SHAPES = {"green": "●", "purple": "◆"}


@register.simple_tag
def mp_card(card, face="potion"):
    """face: "potion" (the owner's side first), "monster" (the opponent's side) or "both"."""
    potion_label, monster_label = gettext("potion"), gettext("monster")
    potion, monster = card["potion"], card["monster"]
    if face == "monster":
        body = format_html(
            '<span class="mp-monster"><span class="mp-label">{}</span><b>{}</b></span>'
            '<span class="mp-potion small"><span class="mp-label">{}</span>{}</span>',
            monster_label, monster, potion_label, potion,
        )  # fmt: skip
    else:
        body = format_html(
            '<span class="mp-potion"><span class="mp-label">{}</span><b>{}</b></span>'
            '<span class="mp-monster small"><span class="mp-label">{}</span>{}</span>',
            potion_label, potion, monster_label, monster,
        )  # fmt: skip
    return format_html(
        '<span class="mp-card mp-{} face-{}">'
        '<span class="mp-tier" aria-hidden="true">{}</span>{}</span>',
        card["colour"], face, SHAPES.get(card["colour"], ""), body,
    )  # fmt: skip
