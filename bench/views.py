"""Bare views: what a request costs with its queries and writes only (the benchmarks' baselines).

``bare_move``, the baseline of ``move_vs_baseline``: it locks the match row, stores a state
JSON of the same size as the real move stores (the engine result, computed during setup and
not timed), bumps the version and inserts the Move row, then answers two bytes. No engine, no
presenter, no template, no session.

``bare_board`` and ``bare_poll``, the baselines of ``board_vs_bare`` and ``poll_vs_bare``
(bench/renders.py): through the same middleware as the real views, they make the same queries
a child's board GET and full poll make (the signed-in child with class and school, the match
with its seats, and for the poll the lookup of the board's token) and the same check that the
seat is this browser's, then answer the version in a few bytes: no engine view, no presenter,
no template.
"""

from django.db import transaction
from django.http import Http404
from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_POST

from games.models import Match
from games.models import Move

# public_id -> (new state dict, action dict, events list); filled by bench.moves.
PAYLOADS: dict[str, tuple[dict, dict, list]] = {}


@require_POST
def bare_move(request, public_id):
    state, action, events = PAYLOADS.pop(public_id)
    with transaction.atomic():
        match = Match.objects.select_for_update().get(public_id=public_id)
        now = timezone.now()
        think_ms = max(0, int((now - match.changed_at).total_seconds() * 1000))
        match.state = state
        match.version += 1
        match.changed_at = now
        match.save(update_fields=list(Match.SYNCED_FIELDS))
        Move.objects.create(
            match=match,
            ply=match.version,
            seat=0,
            action=action,
            events=events,
            client_move_id=request.POST.get("move_id") or None,
            think_ms=think_ms,
            created_at=now,
        )
    return HttpResponse(b"ok", content_type="text/plain")


def bare_board(request, public_id):
    from games.views import load_match

    match, mine = load_match(request, public_id)  # the child's check and the match's seats
    if not mine:
        raise Http404
    return HttpResponse(str(match.version).encode(), content_type="text/plain")


def bare_poll(request, public_id):
    from games.models import Seat
    from games.views import player_keys

    row = Seat.objects.poll_row(public_id, player_keys(request, claimed=True), request.user)
    if row is None:
        raise Http404
    if request.GET.get("v") == Match.board_token(*row[:4]):
        return HttpResponse(status=204)
    return bare_board(request, public_id)
