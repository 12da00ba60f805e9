"""htmx comes from our static files, configured by the htmx-config meta tag (the CSP forbids
inline scripts), with no debug handler that would replace a page with a refusal."""

import json
import re

import pytest


@pytest.mark.parametrize("debug", [False, True])
def test_pages_load_our_htmx_and_no_debug_error_handler(client, settings, debug):
    settings.DEBUG = debug
    page = client.get("/").content.decode()
    assert re.search(r'<script src="/static/django_htmx/htmx-2\.min[^"]*\.js" defer>', page)
    # django-htmx's {% htmx_script %} adds this in DEBUG: it swaps a whole 403/404 answer
    # (a board's "paused" or a child's "locked" partial) in place of the page.
    assert "django-htmx.js" not in page


def test_htmx_swaps_the_refusals_our_partials_explain(client):
    page = client.get("/").content.decode()
    config = json.loads(re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", page)[1])
    swapped = {rule["code"]: rule for rule in config["responseHandling"]}
    # 429 too: a "wait a little" partial (too many codes, a slowed device) replaces the form.
    assert swapped["(403|404|409|422|429)"]["swap"] is True
    assert swapped["(403|404|409|422|429)"]["error"] is False
    assert swapped["204"]["swap"] is False
    assert config["allowEval"] is False
    # Settling never copies a style attribute: the CSP (style-src 'self') would refuse it and
    # log an error on every swap.
    assert config["includeIndicatorStyles"] is False
    assert "style" not in config["attributesToSettle"]


def template_tags():
    """(template, tag) for every element of every template of the project and its games."""
    from pathlib import Path

    root = Path(__file__).absolute().parent.parent.parent
    files = [*root.glob("templates/**/*.html"), *root.glob("games/*/templates/**/*.html")]
    for path in files:
        for tag in re.findall(r"<[a-z]+\s[^<>]*>", path.read_text(), flags=re.S):
            yield path.relative_to(root), tag


def test_what_swaps_a_polled_element_waits_for_its_poller():
    """A poller drops its ask while another request for the same element is under way
    (``hx-sync="…#id:drop"``); whatever else swaps that element (a move, the family room's
    "take over" and "start now", the wall's "pause all") replaces the poller's ask
    (``#id:replace``). Without it a poll answered after the form's answer puts back a board
    without the form's notice ("A computer player now plays for Ben.")."""
    tags = list(template_tags())
    polled = {
        m[1] for _path, tag in tags for m in re.finditer(r'hx-sync="[^"]*#([\w-]+):drop"', tag)
    }
    assert {"board", "wall-board", "waiting-status"} <= polled
    unsynced = []
    for path, tag in tags:
        target = re.search(r'hx-target="#([\w-]+)"', tag)
        if not target or target[1] not in polled or ":drop" in tag:
            continue
        if not re.search(rf'hx-sync="(closest )?#{target[1]}:replace"', tag):
            unsynced.append(f"{path}: {' '.join(tag.split())[:120]}")
    assert unsynced == []


def test_no_template_needs_an_emoji_font():
    """Every sign on a page is in the plain fonts (DejaVu, a Chromebook's Noto) or an SVG: an
    emoji outside Unicode's first plane shows as an empty box where no emoji font is
    installed (Il Trono's 🎭 did, found in a family's browser walk)."""
    from pathlib import Path

    root = Path(__file__).absolute().parent.parent.parent
    found = []
    for path in [*root.glob("templates/**/*.html"), *root.glob("games/*/templates/**/*.html")]:
        found += [f"{path.relative_to(root)}: {c}" for c in path.read_text() if ord(c) > 0xFFFF]
    assert found == []


def test_every_sign_of_the_templates_is_in_a_plain_font():
    """A sign of the first plane can be missing too: the pause sign ⏸ (U+23F8) showed as an
    empty box on the child's paused pages, for no font but an emoji font has it. Each sign
    past U+2000 a template writes is in a font fontconfig finds (Debian's chromium brings
    fontconfig and the DejaVu fonts), not counting emoji fonts."""
    import shutil
    import subprocess
    from pathlib import Path

    assert shutil.which("fc-list"), "fontconfig (a dependency of chromium) is needed"
    root = Path(__file__).absolute().parent.parent.parent
    signs = set()
    for path in [*root.glob("templates/**/*.html"), *root.glob("games/*/templates/**/*.html")]:
        signs |= {c for c in path.read_text() if ord(c) > 0x2000}
    missing = []
    for sign in sorted(signs):
        query = ["fc-list", f":charset={ord(sign):x}", "family"]
        fonts = subprocess.run(query, capture_output=True, text=True).stdout.splitlines()
        if not [font for font in fonts if font.strip() and "emoji" not in font.lower()]:
            missing.append(f"{sign} U+{ord(sign):04X}")
    assert len(signs) > 10 and missing == []
