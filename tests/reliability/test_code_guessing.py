"""Guessing family room codes (config/throttle.py): after WRONG_CODE_LIMIT wrong codes from one
address in a window, every room-code lookup from that address answers 429 with a message (a
right code too: that is what stops a guesser) and other addresses carry on. Class codes are
not throttled by address (a school shares one)."""

import pytest
from django.test import Client
from django.urls import reverse

from config import throttle

from ..games.test_rooms_views import host_room

HTMX = {"HTTP_HX_REQUEST": "true"}
LIMIT = 3
OTHER = "10.20.30.40"


@pytest.fixture(autouse=True)
def _small_limit(monkeypatch):
    monkeypatch.setattr(throttle, "WRONG_CODE_LIMIT", LIMIT)
    yield
    throttle.forget(OTHER)


def test_class_codes_are_not_throttled_by_address(world, monkeypatch):
    """A school shares one address: a child mashing keys must not stop the others."""
    monkeypatch.setattr(throttle, "WRONG_CODE_LIMIT", 100)
    client = Client()
    for n in range(150):
        assert client.post(reverse("classroom:join"), {"code": f"A{n:05d}"}).status_code == 422
    assert client.post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 302
    assert client.get(reverse("classroom:join_class", args=[world.class_a.code])).status_code == 200


@pytest.mark.django_db
def test_wrong_room_codes_lock_out_the_address():
    _host, match = host_room()
    code = match.room_code
    wrong = "AAAAAA" if code != "AAAAAA" else "CCCCCC"
    guesser = Client()
    for _ in range(LIMIT):
        response = guesser.post(reverse("games:join_room"), {"code": wrong})
        assert response.status_code == 422
        assert "No family game has this code" in response.content.decode()
    response = guesser.post(reverse("games:join_room"), {"code": code})
    assert response.status_code == 429
    assert "Too many wrong room codes were typed here" in response.content.decode()
    response = guesser.post(reverse("games:join_room"), {"code": code}, **HTMX)
    assert response.status_code == 429 and "<html" not in response.content.decode()
    assert 'id="join-room"' in response.content.decode()  # the form partial, with the message
    assert not match.seats.filter(kind="guest", name="").exists()
    match.refresh_from_db()
    assert match.open_seats()  # nobody got in

    elsewhere = Client(REMOTE_ADDR=OTHER)
    response = elsewhere.post(reverse("games:join_room"), {"code": code})
    assert response.status_code == 302
    assert response["Location"] == reverse("games:join", args=[match.public_id])


def test_behind_our_load_balancer_the_address_comes_from_x_forwarded_for(db, settings):
    """FORWARDED_HOPS=1: two devices behind one load balancer are counted apart, and a client
    cannot pick its own address by sending X-Forwarded-For (the balancer appends the real one)."""
    settings.FORWARDED_HOPS = 1
    guesser = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.7")
    for _ in range(LIMIT):
        assert guesser.post(reverse("games:join_room"), {"code": "AAAAAA"}).status_code == 422
    assert guesser.post(reverse("games:join_room"), {"code": "AAAAAA"}).status_code == 429
    # The same device claiming another address to the left: still 198.51.100.7.
    spoofer = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="5.6.7.8, 198.51.100.7")
    assert spoofer.post(reverse("games:join_room"), {"code": "AAAAAA"}).status_code == 429
    neighbour = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert neighbour.post(reverse("games:join_room"), {"code": "AAAAAA"}).status_code == 422
    throttle.forget("198.51.100.7")
    throttle.forget("203.0.113.9")
    settings.FORWARDED_HOPS = 0
    # Without hops the balancer's own address is all there is: everyone shares it.
    assert throttle.client_address(guesser.get("/").wsgi_request) == "10.0.0.1"
