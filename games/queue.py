"""Sending work to the Celery worker, for the games platform and the apps on it: a leaf
module (it imports no model), so any module may use it without an import circle."""

import logging

logger = logging.getLogger(__name__)


def enqueue(task, *args, **options) -> bool:
    """Send a Celery task; a broker outage is logged, never turned into a failed request
    (the move is already stored, and the sweeper or the next move picks the work up).
    ``options`` go to apply_async (e.g. ``queue``)."""
    try:
        task.apply_async(args=args, **options)
        return True
    except Exception:
        logger.exception("could not enqueue %s%r", task.name, args)
        return False
