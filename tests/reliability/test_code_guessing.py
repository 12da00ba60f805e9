"""Guessing codes (config/throttle.py): after ``LIMITS[kind]`` wrong codes from one network in a
window, every lookup of that kind from that network answers 429 with a message (a right code
too: that is what stops a guesser) and other networks carry on. For class codes only
well-formed wrong codes count (a school shares one address: a child mashing keys must not stop
the others); an IPv6 client counts by its /64."""

import pytest
from django.test import Client
from django.urls import reverse

from classroom.models import CODE_ALPHABET
from classroom.models import Classroom
from config import throttle

from ..classroom.test_signin_flow import class_device
from ..classroom.test_signin_flow import token_from
from ..games.test_rooms_views import host_room

HTMX = {"HTTP_HX_REQUEST": "true"}
LIMIT = 3
OTHER = "10.20.30.40"


@pytest.fixture(autouse=True)
def _small_limit(monkeypatch):
    monkeypatch.setattr(throttle, "LIMITS", {"room": LIMIT, "class": LIMIT})
    yield
    throttle.forget(OTHER)
    throttle.forget(IPV6)


IPV6 = "2001:db8:5:6::1"


def well_formed_wrong_codes(world, n):
    """``n`` codes of the class-code shape that are no class's."""
    codes, taken = [], {world.class_a.code, world.class_b.code}
    for i in range(n * 2):
        code = "".join(CODE_ALPHABET[(i * 7 + k) % len(CODE_ALPHABET)] for k in range(7))
        if code not in taken:
            codes.append(code)
    return codes[:n]


def test_a_child_mashing_keys_does_not_stop_the_school(world):
    """Codes that cannot be class codes (wrong length, characters outside the alphabet) are
    not counted: what a child mashes is rarely well formed; a guesser's always is."""
    client = Client()
    for n in range(150):
        assert client.post(reverse("classroom:join"), {"code": f"A{n:05d}"}).status_code == 422
    assert client.post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 302
    assert client.get(reverse("classroom:join_class", args=[world.class_a.code])).status_code == 200


def test_well_formed_wrong_class_codes_stop_the_network(world):
    guesser = Client()
    for code in well_formed_wrong_codes(world, LIMIT):
        assert guesser.post(reverse("classroom:join"), {"code": code}).status_code == 422
    # Now even the right code is refused from this network, typed or linked.
    response = guesser.post(reverse("classroom:join"), {"code": world.class_a.code})
    assert response.status_code == 429
    assert "Too many wrong class codes were typed here" in response.content.decode()
    link = guesser.get(reverse("classroom:join_class", args=[world.class_a.code]))
    assert link.status_code == 429 and world.child_a.name not in link.content.decode()
    htmx = guesser.post(reverse("classroom:join"), {"code": world.class_a.code}, **HTMX)
    assert htmx.status_code == 429 and "<html" not in htmx.content.decode()
    # Another network signs in.
    school = Client(REMOTE_ADDR=OTHER)
    assert school.post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 302


def typed(device, code) -> int:
    """A class's device (its client checks CSRF, as a browser's form does) types ``code``."""
    token = token_from(device.get(reverse("classroom:join")))
    data = {"code": code, "csrfmiddlewaretoken": token}
    return device.post(reverse("classroom:join"), data).status_code


def test_wrong_codes_on_new_devices_never_stop_the_class_chromebooks(world):
    """Someone at the school types well-formed wrong codes on purpose on a new device: new
    devices on the school's network are stopped; a device a class has signed in on (any
    class) still finds its class, typed and by the QR link, on the same network."""
    chromebook = class_device(world)
    guesser = Client()
    for code in well_formed_wrong_codes(world, LIMIT):
        assert guesser.post(reverse("classroom:join"), {"code": code}).status_code == 422
    assert guesser.post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 429
    assert Client().get(reverse("classroom:join_class", args=[world.class_a.code])).status_code == (
        429
    )
    assert typed(chromebook, world.class_a.code) == (302)
    link = chromebook.get(reverse("classroom:join_class", args=[world.class_b.code]))
    assert link.status_code == 200 and world.child_b.name in link.content.decode()


def test_a_known_device_is_counted_on_its_own_and_known_devices_share_a_cap(world, monkeypatch):
    """A class's device that types wrong codes stops itself (the same limit as a network),
    not the new devices nor the other known devices; all the known devices of one network
    share ``KNOWN_DEVICES_TIMES`` times the limit, so making devices known buys a guesser
    only that many more tries."""
    monkeypatch.setattr(throttle, "KNOWN_DEVICES_TIMES", 2)
    codes = well_formed_wrong_codes(world, LIMIT * 2 + 1)
    first, second, third = (class_device(world) for _ in range(3))
    for code in codes[:LIMIT]:
        assert typed(first, code) == 422
    assert typed(first, world.class_a.code) == 429
    assert Client().post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 302
    assert typed(second, world.class_a.code) == 302
    for code in codes[LIMIT : LIMIT * 2]:
        assert typed(second, code) == 422
    # Two known devices used the network's known-device tries (2 × the limit): a third is
    # stopped too, new devices are not.
    assert typed(third, world.class_a.code) == 429
    assert Client().post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 302


def test_wrong_codes_in_the_link_count_too(world):
    guesser = Client()
    for code in well_formed_wrong_codes(world, LIMIT):
        assert guesser.get(reverse("classroom:join_class", args=[code])).status_code == 404
    assert (
        guesser.get(reverse("classroom:join_class", args=[world.class_a.code])).status_code == 429
    )


def test_an_ipv6_client_counts_by_its_slash_64(world):
    """Taking a new address inside one's /64 (as every IPv6 home can) changes nothing."""
    for i, code in enumerate(well_formed_wrong_codes(world, LIMIT)):
        client = Client(REMOTE_ADDR=f"2001:db8:5:6::{i + 10:x}")
        assert client.post(reverse("classroom:join"), {"code": code}).status_code == 422
    hopper = Client(REMOTE_ADDR="2001:db8:5:6:ffff::1")
    assert hopper.post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 429
    neighbour = Client(REMOTE_ADDR="2001:db8:5:7::1")  # another /64
    assert (
        neighbour.post(reverse("classroom:join"), {"code": world.class_a.code}).status_code == 302
    )


def test_network_of():
    assert throttle.network_of("198.51.100.7") == "198.51.100.7"
    assert throttle.network_of("2001:db8:5:6:1:2:3:4") == "2001:db8:5:6::"
    assert throttle.network_of("::ffff:198.51.100.7") == "198.51.100.7"
    assert throttle.network_of("not an address") == "not an address"


def test_old_six_character_codes_still_work(world):
    classroom = Classroom.objects.get(pk=world.class_a.pk)  # world's own object stays as it is
    classroom.code = "ACDEFG"
    classroom.save(update_fields=["code"])
    client = Client()
    assert client.post(reverse("classroom:join"), {"code": "acd-efg"}).status_code == 302
    assert client.get(reverse("classroom:join_class", args=["ACDEFG"])).status_code == 200
    classroom.regenerate_code()
    assert len(classroom.code) == 7


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
