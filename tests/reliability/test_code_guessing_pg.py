"""Guessing class codes with parallel requests, on PostgreSQL with the Redis cache: threads
released together by a barrier, through the real views. A limit checked before it counts
lets every request of a burst through; ``config.throttle.reserve_code_try`` counts first, so
a network never gets more wrong codes than its limit however many it sends at once: class
codes from new devices, from a class's known devices (each counted apart, all of them under
their network's cap) and family room codes."""

import hashlib
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from classroom.models import CODE_ALPHABET
from classroom.models import Classroom
from classroom.models import KnownDevice
from classroom.models import School
from classroom.models import signin
from config import throttle
from games.models import ROOM_CODE_ALPHABET

from ..classroom.test_signin_races_pg import race
from ..games.test_rooms_views import host_room

LIMIT = 10


@pytest.mark.slow
@pytest.mark.services
def test_thirty_parallel_wrong_class_codes_get_at_most_the_limit_looked_up(
    postgres, redis_url, transactional_db, monkeypatch
):
    monkeypatch.setattr(throttle, "LIMITS", {**throttle.LIMITS, "class": LIMIT})
    teacher = get_user_model().objects.create_user("tess", "tess@example.com", "pw-long-enough-1")
    school = School.objects.create(name="Hill School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    wrong = [
        "".join(CODE_ALPHABET[(i * 3 + k) % len(CODE_ALPHABET)] for k in range(7))
        for i in range(30)
    ]
    assert classroom.code not in wrong
    looked_up = Counter()
    real = Classroom.find_for_signin.__func__

    def spy(cls, raw):
        looked_up[raw] += 1
        return real(cls, raw)

    monkeypatch.setattr(Classroom, "find_for_signin", classmethod(spy))
    try:
        statuses = race(
            [
                lambda code=code: (
                    Client().post(reverse("classroom:join"), {"code": code}).status_code
                )
                for code in wrong
            ]
        )
        assert not [s for s in statuses if isinstance(s, Exception)], statuses
        print(f"\n30 parallel wrong class codes: {Counter(statuses)}")
        assert Counter(statuses) == {422: LIMIT, 429: 30 - LIMIT}
        assert sum(looked_up.values()) == LIMIT
        # The right code from the same network is refused too; another network signs in.
        right = Client().post(reverse("classroom:join"), {"code": classroom.code})
        assert right.status_code == 429
        school_client = Client(REMOTE_ADDR="198.51.100.30")
        answer = school_client.post(reverse("classroom:join"), {"code": classroom.code})
        assert answer.status_code == 302
    finally:
        throttle.forget("127.0.0.1")
        throttle.forget("198.51.100.30")


def known_device_client(classroom, token: str) -> Client:
    """A browser carrying a device cookie that a child of ``classroom`` signed in on."""
    client = Client()
    response = HttpResponse()  # signed as the sign-in's response signs it
    response.set_signed_cookie(signin.DEVICE_COOKIE, token, salt=signin.DEVICE_COOKIE_SALT)
    client.cookies[signin.DEVICE_COOKIE] = response.cookies[signin.DEVICE_COOKIE].value
    device = hashlib.sha256(f"cookie:{token}".encode()).hexdigest()
    KnownDevice.objects.create(device=device, classroom=classroom, last_signin_at=timezone.now())
    return client


@pytest.mark.slow
@pytest.mark.services
def test_thirty_known_devices_at_once_share_their_network_cap(
    postgres, redis_url, transactional_db, monkeypatch
):
    """Thirty of the class's devices type a wrong code at the same moment: each is under its
    own limit, and together they get no more than the known devices' cap of the network; the
    network's new devices, counted apart, still find the class."""
    monkeypatch.setattr(throttle, "LIMITS", {**throttle.LIMITS, "class": LIMIT})
    monkeypatch.setattr(throttle, "KNOWN_DEVICES_TIMES", 1)
    teacher = get_user_model().objects.create_user("tess", "tess@example.com", "pw-long-enough-1")
    school = School.objects.create(name="Hill School")
    classroom = Classroom.objects.create(school=school, teacher=teacher, name="4B")
    devices = [known_device_client(classroom, f"chromebook-{i}") for i in range(30)]
    wrong = [
        "".join(CODE_ALPHABET[(i * 5 + k) % len(CODE_ALPHABET)] for k in range(7))
        for i in range(30)
    ]
    assert classroom.code not in wrong
    try:
        statuses = race(
            [
                lambda device=device, code=code: (
                    device.post(reverse("classroom:join"), {"code": code}).status_code
                )
                for device, code in zip(devices, wrong, strict=True)
            ]
        )
        assert not [s for s in statuses if isinstance(s, Exception)], statuses
        print(f"\n30 known devices, a wrong class code each at once: {Counter(statuses)}")
        assert Counter(statuses) == {422: LIMIT, 429: 30 - LIMIT}
        fresh = Client().post(reverse("classroom:join"), {"code": classroom.code})
        assert fresh.status_code == 302
    finally:
        throttle.forget("127.0.0.1")
        for i in range(30):
            throttle.forget(device=hashlib.sha256(f"cookie:chromebook-{i}".encode()).hexdigest())


@pytest.mark.slow
@pytest.mark.services
def test_thirty_parallel_wrong_room_codes_get_at_most_the_limit(
    postgres, redis_url, transactional_db, monkeypatch
):
    """The family room code's limit holds under a burst the same way: the tries are counted
    before the lookup, so 30 at once get at most the limit."""
    monkeypatch.setattr(throttle, "LIMITS", {**throttle.LIMITS, "room": LIMIT})
    _host, match = host_room()
    wrong = [
        "".join(ROOM_CODE_ALPHABET[(i * 3 + k) % len(ROOM_CODE_ALPHABET)] for k in range(6))
        for i in range(30)
    ]
    wrong = [code for code in wrong if code != match.room_code][:30]
    try:
        statuses = race(
            [
                lambda code=code: (
                    Client().post(reverse("games:join_room"), {"code": code}).status_code
                )
                for code in wrong
            ]
        )
        assert not [s for s in statuses if isinstance(s, Exception)], statuses
        print(f"\n30 parallel wrong room codes: {Counter(statuses)}")
        assert Counter(statuses) == {422: LIMIT, 429: len(wrong) - LIMIT}
        right = Client().post(reverse("games:join_room"), {"code": match.room_code})
        assert right.status_code == 429
        elsewhere = Client(REMOTE_ADDR="198.51.100.31")
        assert (
            elsewhere.post(reverse("games:join_room"), {"code": match.room_code}).status_code == 302
        )
    finally:
        throttle.forget("127.0.0.1")
        throttle.forget("198.51.100.31")
