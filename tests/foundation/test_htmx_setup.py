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
    assert swapped["(403|404|409|422)"]["swap"] is True
    assert swapped["204"]["swap"] is False
    assert config["allowEval"] is False
    # Settling never copies a style attribute: the CSP (style-src 'self') would refuse it and
    # log an error on every swap.
    assert config["includeIndicatorStyles"] is False
    assert "style" not in config["attributesToSettle"]
