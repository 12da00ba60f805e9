"""Helpers of the reliability tests (issue 6). Every test loops over the registry
(games/registry.py), so a game that joins the platform joins these tests. Counts come from the
environment: the suite runs short versions, `make soak` the long ones."""

import os
import re
import uuid

from django.test import Client

from games import registry


def count(name: str, default: int) -> int:
    """A trial count: ``name`` from the environment (``make soak`` sets them), else ``default``."""
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


def game_params():
    """Every game of the platform, for ``pytest.mark.parametrize``."""
    return sorted(registry.rules())


def worker_game_params():
    """The games a Celery worker process started by a test knows: those of the project's own
    settings (config/settings.py). The suite installs its test-only game in this process
    only (tests/conftest.py), so a worker would refuse that game's matches."""
    from config import settings as project

    return sorted(
        slug
        for slug, game in registry.games().items()
        if game.rules.__name__.rpartition(".")[0] in project.INSTALLED_APPS
    )


def seat_client(key: str, **kwargs) -> Client:
    """A browser whose session owns the seats with this player key (how games.views
    identifies a guest's seat)."""
    client = Client(**kwargs)
    session = client.session
    session["player_key"] = key
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client


def guest_seats(n: int, prefix: str = "p") -> list[dict]:
    from games.models import Seat

    return [
        {"kind": Seat.Kind.GUEST, "name": f"Player {i + 1}", "owner_key": f"{prefix}-{i}"}
        for i in range(n)
    ]


def move_data(action: dict, version: int, move_id: str | None = None) -> dict:
    """The form a play screen posts for ``action`` (what games.forms.action_from_post reads)."""
    data = {"version": str(version), "move_id": move_id or uuid.uuid4().hex}
    for key, value in action.items():
        if isinstance(value, list | tuple):
            data[key] = [str(v) for v in value]
        else:
            data[key] = str(value)
    return data


def token_pattern(tokens) -> re.Pattern | None:
    """One regex that finds any of ``tokens`` as a whole word: ``mp-g1`` is not found inside
    ``mp-g19``."""
    tokens = sorted({t for t in tokens if t}, key=len, reverse=True)
    if not tokens:
        return None
    alternatives = "|".join(re.escape(t) for t in tokens)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def body(response) -> str:
    return response.content.decode("utf-8", errors="replace")


def visible_text(html: str) -> str:
    """The text of an HTML answer without tags (for 'a clear message')."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", text).strip()
