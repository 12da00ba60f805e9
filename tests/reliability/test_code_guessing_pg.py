"""Guessing class codes with parallel requests, on PostgreSQL with the Redis cache: threads
released together by a barrier, through the real views. A limit checked before it counts
lets every request of a burst through; ``config.throttle.reserve_code_try`` counts first, so
a network never gets more wrong codes than its limit however many it sends at once."""

from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from classroom.models import CODE_ALPHABET
from classroom.models import Classroom
from classroom.models import School
from config import throttle

from ..classroom.test_signin_races_pg import race

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
