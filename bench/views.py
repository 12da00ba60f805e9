"""The baseline of ``move_vs_baseline``: a bare view doing a move's database writes only.

It locks the match row, stores a state JSON of the same size as the real move stores (the
engine result, computed during setup and not timed), bumps the version and inserts the Move
row, then answers two bytes. No engine, no presenter, no template, no session.
"""

from django.db import transaction
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
