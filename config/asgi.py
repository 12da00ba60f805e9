"""The stream server's application (docs/deploy.md, "Two servers"): Django's own ASGI handler.

Only the live pages' streams (every path ending in /stream/, async views) are sent here; the
pages run on the WSGI server (config/wsgi.py). Run it with uvicorn's ``--reset-contextvars``:
uvicorn may start a keep-alive connection's next request in the context of the request before
it (CPython issue 140947), with that request's asgiref ``ThreadSensitiveContext``, exited, and
Django's handler would then fail ("ThreadSensitiveContext has exited")."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
