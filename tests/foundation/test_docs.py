"""The docs speak of what is in this repository: a rulebook is cited by its title and section,
never by a path of a file the repository does not hold."""

import re
from pathlib import Path

BASE = Path(__file__).resolve().parents[2]
RULES = BASE / "docs" / "rules"


def test_every_game_has_its_rules_page_citing_its_rulebook_by_title():
    pages = sorted(RULES.glob("*.md"))
    assert len(pages) >= 5
    for page in pages:
        text = page.read_text()
        assert re.search(r"[Rr]ulebook", text.split("\n\n", 2)[1]), f"{page.name}: no source"


def test_no_doc_cites_a_file_outside_the_repository():
    """A path to a rulebook's text (``shared/rules/…``, ``….txt``) is not in the repository."""
    docs = [*BASE.glob("docs/**/*.md"), BASE / "README.md", *BASE.glob("tests/**/*.py")]
    found = {
        str(path.relative_to(BASE)): hits
        for path in docs
        if path != Path(__file__).resolve()
        and (hits := re.findall(r"\S*shared/rules\S*|\S+/rules/[\w-]+\.txt", path.read_text()))
    }
    assert not found, found


def test_make_run_takes_its_port_and_address_as_the_readme_says():
    """README: APP_PORT sets the pages' port and APP_STREAM_PORT the streams' (the next one
    unless set), APP_HOST the address of both (127.0.0.1 unless set), which the Makefile passes
    to the Procfile's two servers; the pages name the streams' port (LIVE_STREAM_ORIGIN)."""
    procfile = (BASE / "Procfile").read_text()
    lines = dict(line.split(": ", 1) for line in procfile.splitlines() if ": " in line)
    assert "gunicorn" in lines["web"] and "config.wsgi" in lines["web"]
    assert "--bind ${APP_HOST:-127.0.0.1}:${APP_PORT:-8000}" in lines["web"]
    assert "uvicorn config.asgi:application --reset-contextvars" in lines["streams"]
    assert "--host ${APP_HOST:-127.0.0.1}" in lines["streams"]
    assert "--port ${APP_STREAM_PORT:-8001}" in lines["streams"]
    makefile = (BASE / "Makefile").read_text()
    assert "APP_HOST ?= 127.0.0.1" in makefile and "APP_HOST=$(APP_HOST)" in makefile
    assert "APP_STREAM_PORT=$(APP_STREAM_PORT)" in makefile
    assert "LIVE_STREAM_ORIGIN=$${LIVE_STREAM_ORIGIN-:$(APP_STREAM_PORT)}" in makefile
    readme = (BASE / "README.md").read_text()
    assert "APP_PORT=8080 make run" in readme and "APP_STREAM_PORT" in readme
    assert "APP_HOST=0.0.0.0 ALLOWED_HOSTS=" in readme
