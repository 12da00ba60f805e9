"""config.prepared.PreparedQuery gives the ORM's own instances, row for row, on SQLite and on
PostgreSQL, with their related objects and no query more: what the ORM would give, field by
field, so a Django upgrade that changed the public calls it makes fails here."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from classroom.child_session import SIGNED_IN_STUDENT
from classroom.models import Student
from config.prepared import PreparedQuery
from games.models import SEATS_WITH_MATCH
from games.models import Match
from games.models import Seat


def fields_of(obj):
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


@pytest.mark.django_db
def test_the_seats_with_their_match_are_those_of_the_queryset(world):
    public_id = world.match_a.public_id
    expected = list(
        Seat.objects.filter(match__public_id=public_id).select_related("match").order_by("number")
    )
    with CaptureQueriesContext(connection) as queries:
        seats = SEATS_WITH_MATCH.all(public_id)
        states = [seat.match.state for seat in seats]  # no query: the match came with them
    assert len(queries) == 1
    assert [fields_of(s) for s in seats] == [fields_of(s) for s in expected]
    assert [fields_of(s.match) for s in seats] == [fields_of(s.match) for s in expected]
    assert states[0] == world.match_a.state and isinstance(states[0], dict)  # JSON decoded
    assert seats[0].match.created_at.tzinfo is not None  # aware, as the ORM gives it
    # The same object twice with other values: nothing of the first run stays.
    other = SEATS_WITH_MATCH.all(world.match_b.public_id)
    assert {s.match_id for s in other} == {world.match_b.pk}
    assert SEATS_WITH_MATCH.all("no-such-id") == []


@pytest.mark.django_db
def test_get_with_seats_still_raises_for_an_unknown_match(world):
    match = Match.objects.get_with_seats(world.match_a.public_id)
    assert [s.number for s in match.seats.all()] == [0, 1]
    with pytest.raises(Match.DoesNotExist):
        Match.objects.get_with_seats("nope")


@pytest.mark.django_db
def test_the_signed_in_child_comes_with_class_and_school_unless_archived(world):
    from django.utils import timezone

    with CaptureQueriesContext(connection) as queries:
        ada = SIGNED_IN_STUDENT.first(world.child_a.pk)
        names = (ada.classroom.name, ada.classroom.school.name)
    assert len(queries) == 1
    assert names == ("3A", "School A")
    assert fields_of(ada) == fields_of(Student.objects.get(pk=world.child_a.pk))
    assert SIGNED_IN_STUDENT.first(10**9) is None
    Student.objects.filter(pk=world.child_a2.pk).update(archived_at=timezone.now())
    assert SIGNED_IN_STUDENT.first(world.child_a2.pk) is None
    # An instance like the ORM's: it saves.
    ada.name = "Adaline"
    ada.save(update_fields=["name"])
    assert Student.objects.get(pk=ada.pk).name == "Adaline"


def test_a_marker_the_query_does_not_carry_is_refused(db):
    query = PreparedQuery(lambda pk: Student.objects.filter(pk=3), marker=-5)
    with pytest.raises(ValueError, match="marker"):
        query.all(1)
