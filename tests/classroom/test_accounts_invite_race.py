"""Two grown-ups open the same invite link at the same moment: one member, not two."""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from classroom.models import Invite
from classroom.models import Membership
from classroom.models import School


@pytest.mark.django_db(transaction=True)
def test_one_link_makes_one_member_under_concurrent_posts():
    school = School.objects.create(name="Race School")
    invite = Invite.objects.create(school=school)
    url = reverse("classroom:invite_accept", args=[invite.token])
    barrier = threading.Barrier(4)
    statuses = []

    def accept(n):
        try:
            barrier.wait()
            response = Client().post(
                url,
                {
                    "first_name": f"T{n}",
                    "last_name": "Racer",
                    "email": f"racer{n}@example.org",
                    "password1": "tables-and-potions-42",
                    "password2": "tables-and-potions-42",
                },
            )
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=accept, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [302, 404, 404, 404]
    assert Membership.objects.filter(school=school).count() == 1
