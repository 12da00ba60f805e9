"""The live wall and the waiting rooms by push (docs/platform.md, "Live updates").

Two channels a class (``games.live.named``): the wall's, which hears every change of what the
teacher's live wall shows, and the waiting rooms', which hears every change of what a child
waiting in one of the class's sessions sees. A message is a fresh token ("changed": the page
fetches itself with its own GET), never a name.

``class_changed`` publishes once the transaction commits, from each code path that changes
what those pages show (tests/classroom/test_live_wall.py lists them and reads the source
for any other). The boards' changes (a move, a game that ends, a pause) reach the wall
through ``games.signals.boards_published`` (``tell_the_walls``): the games platform knows
nothing of classes."""

import secrets

from django.conf import settings
from django.db import transaction

from games import live


def wall_channel(classroom_id) -> str:
    return live.named("wall", classroom_id)


def waiting_channel(classroom_id) -> str:
    return live.named("waiting", classroom_id)


def send(classroom_id, *, waiting: bool) -> None:
    token = secrets.token_hex(4)
    live.publish(wall_channel(classroom_id), token)
    if waiting:
        live.publish(waiting_channel(classroom_id), token)


def class_changed(classroom_id, *, waiting: bool = False) -> None:
    """The class's wall (and, with ``waiting``, its waiting rooms) hear of a change once the
    transaction commits. Nothing without push."""
    if not settings.LIVE_PUSH or classroom_id is None:
        return
    transaction.on_commit(lambda: send(classroom_id, waiting=waiting))


# A match's class never changes: the class of each published board, remembered a process.
_class_of: dict[str, int | None] = {}
REMEMBERED = 20_000


def classes_of(public_ids) -> set[int]:
    """The classes whose sessions these matches were played in (one query for the matches
    not seen before, none for the others)."""
    from classroom.models import SessionMatch

    missing = [p for p in public_ids if p not in _class_of]
    if missing:
        rows = dict(
            SessionMatch.objects.filter(match__public_id__in=missing).values_list(
                "match__public_id", "assignment__classroom_id"
            )
        )
        if len(_class_of) > REMEMBERED:
            _class_of.clear()
        for public_id in missing:
            _class_of[public_id] = rows.get(public_id)
    return {c for p in public_ids if (c := _class_of.get(p)) is not None}


def tell_the_walls(sender, public_ids, **kwargs) -> None:
    """``games.signals.boards_published``: the boards' changes are committed; the walls of
    their classes hear of them."""
    for classroom_id in classes_of(public_ids):
        send(classroom_id, waiting=False)
