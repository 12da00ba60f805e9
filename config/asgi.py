import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

# Django's ASGI handler with the request threads kept (config/asgi_threads.py).
from config.asgi_threads import KeptThreadsASGIHandler  # noqa: E402

application = KeptThreadsASGIHandler()
