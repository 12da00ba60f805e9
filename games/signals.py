"""What the games platform tells, and asks, the apps built on it (docs/platform.md, "Signals
and hooks"). The platform imports none of those apps: they connect their receivers here in
their ``AppConfig.ready()``, so the arrows point one way, engine ← games ← classroom.

Told (the receivers' return values are ignored):

- ``move_applied(match, move)``: sent by ``Match.play`` inside the move's transaction, right
  after the ``Move`` row is stored. A receiver's writes commit or roll back with the move (the
  classroom stores a child's attempts here: no move without its attempts, no attempt without
  its move). A receiver that fails fails the move.
- ``seats_taken(match, seats)``: sent when seats get their players, inside that transaction:
  by ``Match.create`` (every seat, with its pk) and by the join of an open seat. A receiver
  links them to its own records in the same transaction (the classroom: a child's seat, kind
  ``student`` and owned by the child's seat key, gets its ``ChildSeat``).
- ``match_changed(match)``: sent once a move, a seat change or a time-out has changed a
  match, inside that transaction. Work for later goes through ``transaction.on_commit``
  (the classroom's statistics of a finished game with a child's seat).
- ``boards_published(public_ids)``: sent with push on (``games.live``), once a change of these
  matches' boards has committed and their tokens were published (a move, a pause, an end…).
  A receiver's failure is logged and changes nothing (the classroom publishes on the live
  walls of the classes the matches belong to).

Asked (the first receiver's answer that is not None is taken):

- ``bot_focus(seat, seats)``: the facts a Coach-level computer player should put in front
  of the people of ``seats`` (a queryset: the ``student`` seats opposite ``seat``); None when
  nothing is known. The platform has no idea who plays a child's seat, nor what a fact is
  worth to a child; the classroom knows both.

Given on the request (set by an app's middleware; ``games.views.player_keys``):

- ``request.seat_keys``: extra player keys this request plays with, checked by the app (the
  classroom: the signed-in child's seat key, which owns that child's seats on any device);
- ``request.claimed_seat_keys``: the same as the session claims them, without a query and
  unchecked, read only by the poll's look-up of a board's version.

A browser's own keys never hold a colon; an app's keys do (``child:<id>``), so neither can pose
as the other.

Watching a match (``Match.can_spectate``) is a permission, ``games.view_match`` on the match,
answered by the authentication backends: the classroom's lets a teacher watch a game of a
child in their class (``classroom.permissions``).
"""

from django.dispatch import Signal

move_applied = Signal()
seats_taken = Signal()
match_changed = Signal()
bot_focus = Signal()
boards_published = Signal()


def first_answer(signal: Signal, **kwargs):
    """The first receiver's answer that is not None (None when none answers)."""
    for _receiver, answer in signal.send(sender=None, **kwargs):
        if answer is not None:
            return answer
    return None
