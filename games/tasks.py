from celery import shared_task

from games.models import Match


@shared_task(ignore_result=True, acks_late=True)
def play_bots(match_id: int, version: int | None = None):
    """Let the computer players of a match take their turns (idempotent)."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        return 0
    return match.play_bot_turns()
