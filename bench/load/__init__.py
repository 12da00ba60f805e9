"""The load test: simulated children signed in, paired and playing MultipliPotion through the
real htmx endpoints against the production setup (gunicorn, PostgreSQL, Redis, a Celery
worker). See docs/performance.md, "Load: children playing at once"."""
