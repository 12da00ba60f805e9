"""``play_page_kib``: what a first visit to the play screen downloads, gzip level 6.

The HTML of GET /play/<id>/ (a guest's first load, full page, not htmx) plus every
same-origin resource it references through <link href>, <script src> and <img src> (and
url(...) inside fetched CSS), each counted once, each compressed as a server would.
Static files are read through Django's staticfiles finders (what WhiteNoise serves);
anything else is fetched through the WSGI handler.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.handlers.wsgi import WSGIHandler

from bench import fixtures
from bench import wsgi
from bench.moves import gzip_size

CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)""")


class AssetParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        wanted = {"link": "href", "script": "src", "img": "src"}.get(tag)
        if wanted and attrs.get(wanted):
            self.urls.append((tag, attrs[wanted]))

    handle_startendtag = handle_starttag


def same_origin_path(base: str, url: str) -> str | None:
    if url.startswith("data:"):
        return None
    parts = urlsplit(urljoin(base, url))
    if parts.netloc not in {"", "testserver"}:
        return None
    return parts.path


def fetch(handler, path: str, headers: dict) -> bytes:
    static_url = settings.STATIC_URL
    if path.startswith(static_url):
        found = finders.find(path[len(static_url) :])
        if not found:
            raise RuntimeError(f"static file not found: {path}")
        return Path(found).read_bytes()
    response = wsgi.call(handler, "GET", path, headers=headers)
    if response.status != 200:
        raise RuntimeError(f"GET {path} answered {response.status}")
    return response.body


def bench_play_page(quick: bool = False, *, keep_connection=False):
    """Return (figures, details); ``quick`` changes nothing (one page load)."""
    match = fixtures.make_match(seed=10_000)
    headers = fixtures.browser_headers(htmx=False)
    page_path = match.get_absolute_url()
    with wsgi.keep_connection(keep_connection):
        handler = WSGIHandler()
        response = wsgi.call(handler, "GET", page_path, headers=headers)
        if response.status != 200:
            raise RuntimeError(f"GET {page_path} answered {response.status}")
        resources = [{"url": page_path, "kind": "html", "raw": len(response.body)}]
        resources[0]["gzip"] = gzip_size(response.body)
        parser = AssetParser()
        parser.feed(response.body.decode())
        queue = [(tag, page_path, url) for tag, url in parser.urls]
        seen = {page_path}
        while queue:
            tag, base, url = queue.pop(0)
            path = same_origin_path(base, url)
            if path is None or path in seen:
                continue
            seen.add(path)
            data = fetch(handler, path, headers)
            resources.append({"url": path, "kind": tag, "raw": len(data), "gzip": gzip_size(data)})
            if path.endswith(".css"):
                text = data.decode("utf-8", "replace")
                queue += [("css", path, u) for u in CSS_URL.findall(text)]
    total = sum(r["gzip"] for r in resources)
    figures = {"play_page_kib": total / 1024}
    details = {"play_page_resources": resources}
    return figures, details
