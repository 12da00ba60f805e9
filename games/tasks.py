from celery import shared_task

from games.models import Match


@shared_task(ignore_result=True, acks_late=True)
def play_bots(match_id: int):
    """Let the computer players of a match take their turns (idempotent: with no computer
    player to act, nothing happens)."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return 0
    return match.play_bot_turns()


@shared_task(ignore_result=True)
def sweep_stalled_bots():
    """Beat, every 20 s: replay lost bot turns (idempotent)."""
    played = 0
    for match in Match.objects.stalled_on_bots()[:200]:
        if match.bot_to_act():
            played += match.play_bot_turns()
    return played


@shared_task(ignore_result=True)
def time_out_windows():
    """Beat, every 20 s: pass for a person whose Munchkin "anyone?" window has been open for
    TIMEOUT_GRACE_SECONDS with their page closed (idempotent: the move is version-checked)."""
    return Match.objects.time_out_overdue()


@shared_task(ignore_result=True)
def expire_family_rooms():
    """Beat, every 10 minutes: expire family rooms inactive for FAMILY_ROOM_TTL_HOURS
    (idempotent; see MatchQuerySet.expire_rooms)."""
    deleted, scrubbed = Match.objects.expire_rooms()
    return {"deleted": deleted, "scrubbed": scrubbed}
