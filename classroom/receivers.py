"""How the classroom reacts to the games platform (``games.signals``), connected in
``ClassroomConfig.ready``. The platform knows nothing of classes, children's evidence or
statistics; these receivers add them."""

from django.db import transaction

from games import queue


def store_attempts(sender, match, move, **kwargs):
    """A move applied: the ``fact`` events of a child's seat become Attempts, inside the
    move's transaction (no move without its attempts, no attempt without its move)."""
    from classroom.models import Attempt

    Attempt.objects.record_move(match, move)


def update_stats_when_finished(sender, match, **kwargs):
    """A finished match with a child's seat: the child's statistics, once it commits."""
    if match.status != match.Status.FINISHED:
        return
    if not any(seat.kind == seat.Kind.STUDENT for seat in match.seat_list()):
        return
    from classroom.tasks import update_match_stats

    match_id = match.pk
    transaction.on_commit(lambda: queue.enqueue(update_match_stats, match_id))


def link_child_seats(sender, match, seats, **kwargs):
    """Seats given to people: each child's seat (owned by the child's seat key) gets its
    ChildSeat, in the same transaction (none, and no query, for any other seat)."""
    from classroom.models import ChildSeat

    ChildSeat.objects.link(seats)


def delete_seats_of_child(sender, instance, **kwargs):
    """A child deleted: their seats go with them (the link alone would cascade)."""
    from games.models import Seat

    Seat.objects.filter(child_link__student=instance).delete()


def focus_facts_of(sender, seat, seats, **kwargs):
    """The Coach's facts: the focus facts of the children of ``seats`` (``diagnosis``)."""
    from classroom.models import ChildSeat
    from classroom.models import FactStat

    children = ChildSeat.objects.filter(seat__in=seats).values("student_id")
    return FactStat.objects.filter(student__in=children).focus_facts() or None
