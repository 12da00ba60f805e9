"""Guest-owned matches and a browser session, made the way the play screen's users get them."""

from __future__ import annotations

from importlib import import_module
from urllib.parse import urlencode

from django.conf import settings
from django.utils.crypto import get_random_string

from games.models import Match
from games.models import Seat

PLAYER_KEY = "bench-player-0"
OTHER_KEY = "bench-player-1"
TIER = "full"  # the engine's default and the biggest deck: the largest state JSON


def make_match(seed: int) -> Match:
    """Two guest seats on two devices (no bot: nothing is ever enqueued to Celery)."""
    seats = [
        {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": PLAYER_KEY},
        {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": OTHER_KEY},
    ]
    return Match.create("multiplipotion", seats, options={"tier": TIER}, seed=seed)


def browser_headers(*, htmx: bool) -> dict[str, str]:
    """Cookies (session with the player key, CSRF) and headers of seat 0's browser."""
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["player_key"] = PLAYER_KEY
    store.save()
    csrf = get_random_string(32)
    headers = {
        "Cookie": f"{settings.SESSION_COOKIE_NAME}={store.session_key}; "
        f"{settings.CSRF_COOKIE_NAME}={csrf}",
        "X-CSRFToken": csrf,
        "Accept": "text/html",
        "User-Agent": "multiplipotion-bench",
    }
    if htmx:
        headers["HX-Request"] = "true"
        headers["HX-Target"] = "board"
    return headers


def first_place(match: Match) -> dict:
    """The first legal place action of seat 0 on a new match."""
    module = match.engine
    actions = module.legal_actions(module.load(match.state), 0)
    return next(a for a in actions if a["type"] == "place")


def move_body(match: Match, action: dict, move_id: str) -> bytes:
    fields = {**action, "version": match.version, "move_id": move_id}
    return urlencode(fields, doseq=True).encode()
