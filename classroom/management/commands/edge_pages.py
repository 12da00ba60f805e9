"""The pages nginx answers with by itself, in every language of the site.

    python manage.py edge_pages /srv/multiplipotion/edge

writes ``<folder>/<language>/<status>.html`` for each status nginx makes itself
(``deploy/nginx.conf``: 503 while the app server is away, 429 for too many connections from
one address, 413 for a body over the limit), from ``templates/edge/page.html`` and the site's
translations. nginx picks the language from the browser's ``Accept-Language`` (its
``$edge_language`` map) and reads the files from ``NGINX_PAGES``; run this on every deploy,
before nginx is reloaded (docs/deploy.md, "nginx in front of the app servers").
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

STATUSES = (503, 429, 413)


def page(status: int) -> dict:
    """What the page of ``status`` says, in the active language."""
    if status == 503:
        return {
            "title": _("Just a moment"),
            "text": _("We lost the connection for a moment. Trying again…"),
            "outage": True,  # static/js/app.js says it and sends the request again
            "refresh": 5,  # the Retry-After nginx sends with it
            "again": True,
        }
    if status == 429:
        return {
            "title": _("Too many at once"),
            "text": _(
                "Too many pages are open from your network at the same time. Wait a few "
                "seconds, then try again."
            ),
            "refresh": 10,
            "again": True,
        }
    if status == 413:
        return {
            "title": _("That is too big"),
            "text": _(
                "What you sent is too big: the most we take is 1 MB. Choose a smaller file, "
                "or paste the list instead."
            ),
        }
    raise ValueError(f"nginx makes no page for {status}")


def write_pages(folder: Path) -> list[Path]:
    """Every language's page of every status, under ``folder``; the paths written."""
    written = []
    for language, _name in settings.LANGUAGES:
        (folder / language).mkdir(parents=True, exist_ok=True)
        for status in STATUSES:
            with translation.override(language):
                html = render_to_string("edge/page.html", {"language": language, **page(status)})
            path = folder / language / f"{status}.html"
            path.write_text(html, encoding="utf-8")
            written.append(path)
    return written


class Command(BaseCommand):
    help = "Write the pages nginx answers with by itself (503, 429, 413), in every language."

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="the folder nginx reads (NGINX_PAGES)")

    def handle(self, *args, folder: Path, **options):
        written = write_pages(folder)
        self.stdout.write(f"wrote {len(written)} pages in {folder}")
