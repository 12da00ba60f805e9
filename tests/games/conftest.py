import random

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Match
from games.models import Seat

HTMX = {"HTTP_HX_REQUEST": "true"}


def guest_client(key: str) -> Client:
    """A browser whose session owns the seats with this player key."""
    client = Client(enforce_csrf_checks=False)
    session = client.session
    session["player_key"] = key
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client


def url(name, match):
    return reverse(f"games:{name}", args=[match.public_id])


def seat_specs(keys, bots=(), bot_level="random", owner=None) -> list[dict]:
    """Seat dicts for Match.create: a guest seat per player key (named after it, owned by
    ``owner`` when given: one device), a computer player at the numbers in ``bots``."""
    specs = []
    for i, key in enumerate(keys):
        if i in bots:
            specs.append({"kind": Seat.Kind.BOT, "name": f"Bot{i}", "bot_level": bot_level})
        else:
            specs.append({"kind": Seat.Kind.GUEST, "name": key.title(), "owner_key": owner or key})
    return specs


def match_state(rules, match):
    """The match's state as it is stored now."""
    match.refresh_from_db()
    return rules.load(match.state)


def post_move(client, match, **fields):
    """A move posted as the board's htmx form posts it (the match's current version)."""
    match.refresh_from_db()
    data = {"version": match.version, "move_id": fields.pop("move_id", ""), **fields}
    return client.post(url("move", match), data, **HTMX)


def bot_step(rules, match, rng, level):
    """One move by the computer player of ``level`` for the first seat that must act."""
    state = match_state(rules, match)
    seat = rules.to_act(state)[0]
    action = rules.bot_action(rules.view(state, seat), rules.legal_actions(state, seat), level, rng)
    match.play(seat, action, version=match.version, follow_ups=False)


def drive_matches(make, rules, level, predicate, seeds, plies):
    """A match (``make(seed)``, over several seeds) played by computer choices of ``level`` until
    ``predicate(state)``; at most ``plies`` moves a seed."""
    for seed in seeds:
        match = make(seed)
        rng = random.Random(seed)
        for _ in range(plies):
            state = match_state(rules, match)
            if match.is_over:
                break
            if predicate(state):
                return match
            bot_step(rules, match, rng, level)
        Match.objects.filter(pk=match.pk).delete()
    pytest.fail("no game reached the wanted situation")


def assert_no_secrets(rules, body, state, seat, what=""):
    """No other seat's private tokens (``rules.private``: cards, choices, a role) in ``body``."""
    for other in range(state["players"]):
        if other == seat:
            continue
        leaked = [c for c in rules.private(state, other) if c in body]
        assert not leaked, f"seat {seat} saw seat {other}'s {what}{leaked}"


def family_form(**extra):
    """The family-night form for Muertoons for three: Ana here, a person on another device and
    a computer player; ``extra`` changes or adds fields."""
    return {
        "players": "3",
        "seat1_kind": "here",
        "seat1_name": "Ana",
        "seat2_kind": "remote",
        "seat3_kind": "computer",
        "seat3_level": "heuristic",
        **extra,
    }


def potion_form(**seats):
    """The family-night form for a green MultipliPotion game for two, with these seat fields."""
    return {"players": "2", "option_tier": "green", **seats}


@pytest.fixture
def make_match(db):
    def make(seats=("ana", "ben"), tier="green", seed=7, bots=()):
        specs = [
            {"kind": Seat.Kind.BOT, "name": f"Bot{i}", "bot_level": key}
            if i in bots
            else {"kind": Seat.Kind.GUEST, "name": key.title(), "owner_key": key}
            for i, key in enumerate(seats)
        ]
        return Match.create("multiplipotion", specs, options={"tier": tier}, seed=seed)

    return make


@pytest.fixture
def ana():
    return guest_client("ana")


@pytest.fixture
def ben():
    return guest_client("ben")


@pytest.fixture
def outsider():
    return guest_client("zed")
