"""gunicorn settings of the pages' server (docs/deploy.md, "Two servers"):
``gunicorn -c config/gunicorn.conf.py config.wsgi``.

Several single-core processes with few threads each: a gthread worker runs Python on one core at
a time (one GIL), and with many threads a request that comes back from PostgreSQL or Redis waits
for the GIL behind the others (the switch interval is 5 ms). Measured on 2 cores with the load
test (docs/performance.md, "Load"): 300 children, 60 s steps, same CPU per request — 2 workers ×
8 threads p95 201 ms, 4 × 2 p95 84 ms, 6 × 1 p95 86 ms.

Environment: WEB_CONCURRENCY (workers; default twice the cores this process may use),
WEB_THREADS (default 2), PORT (default 8000, on the loopback: nginx in front; ``--bind``
overrides it, as make run does).
"""

import os

# The cores this process may run on (its affinity, not the host's count; under a container's
# CPU quota, set WEB_CONCURRENCY).
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * len(os.sched_getaffinity(0)))
threads = int(os.environ.get("WEB_THREADS") or 2)
worker_class = "gthread"
bind = f"127.0.0.1:{os.environ.get('PORT', '8000')}"
keepalive = 10  # Chromebooks poll every 1-3 s on one connection
backlog = 4096
worker_connections = 4000
graceful_timeout = 10
# gunicorn's control socket (~/.gunicorn/gunicorn.ctl, one path for every instance of a user)
# is not used: several instances on one machine would take it from one another.
control_socket_disable = True
