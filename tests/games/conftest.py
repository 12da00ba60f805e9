import pytest
from django.test import Client

from games.models import Match, Seat


def guest_client(key: str) -> Client:
    """A browser whose session owns the seats with this player key."""
    client = Client(enforce_csrf_checks=False)
    session = client.session
    session["player_key"] = key
    session.save()
    client.cookies["sessionid"] = session.session_key
    return client


@pytest.fixture
def make_match(db):
    def make(seats=("ana", "ben"), tier="green", seed=7, bots=()):
        specs = []
        for i, key in enumerate(seats):
            if i in bots:
                specs.append({"kind": Seat.Kind.BOT, "name": f"Bot{i}", "bot_level": key})
            else:
                specs.append({"kind": Seat.Kind.GUEST, "name": key.title(), "owner_key": key})
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
