"""The project's settings (config.settings, read from the environment as in production) with
every Celery task sent to the queue named by ``LOAD_TASK_QUEUE``.

The load and scale-out tests start web servers and a worker that share a Redis with other
runs (a developer's ``make run``, the test suite); a queue of their own keeps their tasks
apart. A real deployment uses config.settings itself and its own Redis.
"""

import os

from config.settings import *  # noqa: F403

CELERY_TASK_DEFAULT_QUEUE = os.environ["LOAD_TASK_QUEUE"]
