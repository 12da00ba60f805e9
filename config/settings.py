"""Settings for MultipliPotion Classroom.

One module, read from the environment. With nothing set it runs on SQLite and a
filesystem Celery broker under ``var/`` (no servers needed). ``DATABASE_URL`` and
``REDIS_URL`` switch to PostgreSQL and Redis. ``DJANGO_ENV=production`` turns on the
safe production defaults and requires a real ``SECRET_KEY``.
"""

import os
import re
import warnings
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DJANGO_ENV = os.environ.get("DJANGO_ENV", "development")
if DJANGO_ENV not in {"development", "production", "test"}:
    raise ImproperlyConfigured("DJANGO_ENV must be development, production or test")
PRODUCTION = DJANGO_ENV == "production"

DEBUG = env_bool("DEBUG", default=not PRODUCTION)

_DEV_SECRET = "dev-only-insecure-key-do-not-use-in-production-8c1f5e0a"  # noqa: S105
SECRET_KEY = os.environ.get("SECRET_KEY", "" if PRODUCTION else _DEV_SECRET)
if PRODUCTION and (not SECRET_KEY or SECRET_KEY == _DEV_SECRET or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured("Set SECRET_KEY to a random string of 50 or more characters.")

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "games",
    # The games: one line each. An app with a game.py is a game (games/registry.py); being an
    # app, Django finds its templates, static files and template tags (docs/platform.md).
    "games.multiplipotion",
    "games.muertoons",
    "games.trono",
    "games.mortadelo",
    "games.munchkin",
    "classroom",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL in a query or form field: 422 before anything reads it (classroom/middleware.py).
    "classroom.middleware.NulRefusedMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # request.child: the child signed in on this device (the games app reads it from here).
    "classroom.middleware.SignedInChildMiddleware",
    # Times in the requester's school's zone: the child's, or the grown-up's (lazily).
    "classroom.middleware.SchoolTimeZoneMiddleware",
    # The language: a signed-in child's school's, a grown-up's own choice, else LocaleMiddleware's
    # (the language cookie, then the browser's Accept-Language).
    "classroom.middleware.ChosenLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Turns a locked-out log-in into the lockout page (classroom/views/accounts.py).
    "axes.middleware.AxesMiddleware",
    # The database away (the connection cannot be made or is lost) in a view: 503 with
    # Retry-After, "try again in a moment", never a 500 (docs/reliability.md). Innermost, so
    # its process_exception is the first to see the view's error; a database error outside
    # the view reaches handler500 (config/urls.py), which answers the same.
    "classroom.middleware.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "classroom.context_processors.navigation",
                "classroom.context_processors.live",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------
# SQLite is tuned for a classroom of children tapping at once: WAL lets readers and
# a writer work together, IMMEDIATE transactions take the write lock up front (no
# deadlock-prone lock upgrades), and writers wait up to 20 s instead of failing.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": (
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous=NORMAL;"
        "PRAGMA busy_timeout=20000;"
        "PRAGMA foreign_keys=ON;"
    ),
}
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
# CONN_MAX_AGE: seconds a PostgreSQL connection is kept between requests (docs/deploy.md).
# A connection is its thread's: each of the pages' server's threads (gunicorn gthread) keeps
# its own; the stream server lets a stream's go once it is authorized (games/stream.py).
_db = dj_database_url.parse(
    DATABASE_URL,
    conn_max_age=0
    if DATABASE_URL.startswith("sqlite")
    else int(os.environ.get("CONN_MAX_AGE", "60")),
)
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db["OPTIONS"] = {**SQLITE_OPTIONS, **_db.get("OPTIONS", {})}
    # A file (not :memory:) so that a Celery worker process in the tests sees it too.
    _db["TEST"] = {"NAME": str(VAR_DIR / f"test-{Path(_db['NAME']).stem}.sqlite3")}
else:
    _db["CONN_HEALTH_CHECKS"] = True
    # Behind PgBouncer in transaction pooling mode (docs/deploy.md): a server-side cursor
    # (QuerySet.iterator()) cannot outlive its transaction's server connection.
    _db["DISABLE_SERVER_SIDE_CURSORS"] = env_bool("DISABLE_SERVER_SIDE_CURSORS", False)
    # A database host that drops packets instead of refusing would hold a request for
    # minutes: after a few seconds the request answers 503 "try again" instead
    # (classroom.middleware.DatabaseOutageMiddleware, docs/reliability.md).
    _db["OPTIONS"] = {
        "connect_timeout": int(os.environ.get("DATABASE_CONNECT_TIMEOUT", "3")),
        **_db.get("OPTIONS", {}),
    }
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USING_POSTGRES = _db["ENGINE"].endswith("postgresql")

# --- Cache and Celery broker --------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            # django-redis: while Redis is down every call answers as a miss (or does nothing)
            # instead of raising, and is logged (IGNORE_EXCEPTIONS): the cache holds nothing
            # that cannot be lost (docs/reliability.md, "Faults").
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "mpc"),
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 2,
                "SOCKET_TIMEOUT": 2,
            },
        }
    }
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
    }
else:
    # No servers: a cache shared by every process on this machine, and kombu's
    # filesystem transport for Celery, with atomic writes (config/broker.py: kombu's own
    # lets a worker read a half-written message and crash).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }
    _broker_dir = VAR_DIR / "celery-broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "atomicfs://"  # config/broker.py
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
        # A worker looks for a message this often while it has none or all its processes
        # are busy (kombu's default 1 s let computer players' turns queue up for 30 s
        # with ten family games at once; a look is one directory listing).
        "polling_interval": 0.1,
    }

# The queue a task goes to when nothing routes it: the tests' worker sets its own, so tasks the
# worker itself sends (a computer's move ending a game sends the statistics task) reach it.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Seconds after which /healthz calls the worker dead.
WORKER_HEARTBEAT_MAX_AGE = int(os.environ.get("WORKER_HEARTBEAT_MAX_AGE", "90"))
# /healthz names each check and its error only to staff and to `Authorization: Bearer <this>`
# (monitoring); the public gets the status. Empty (default): staff only.
HEALTHZ_TOKEN = os.environ.get("HEALTHZ_TOKEN", "")
# Family night: a room nobody touched for this long expires (its guests' names go with it);
# a person the game has waited for this many minutes, unseen, may be replaced by a computer
# player by the host; the host is told for a few minutes when that person takes the seat back.
FAMILY_ROOM_TTL_HOURS = int(os.environ.get("FAMILY_ROOM_TTL_HOURS", "12"))
FAMILY_QUIET_MINUTES = int(os.environ.get("FAMILY_QUIET_MINUTES", "2"))
FAMILY_BACK_NOTICE_MINUTES = int(os.environ.get("FAMILY_BACK_NOTICE_MINUTES", "3"))
# Under ASGI, WhiteNoise hands Django a static file as a synchronous iterator, which Django
# serves as it should but warns about on every file: not a fault of ours, so not logged.
warnings.filterwarnings(
    "ignore",
    message="StreamingHttpResponse must consume synchronous iterators",
    module="django.core.handlers.asgi",
)
# Live boards (docs/platform.md, "Live updates"): with Redis, every board listens on a
# server-sent-events stream (LIVE_PUSH; off without Redis, where boards poll as before). The
# stream sends a heartbeat every LIVE_HEARTBEAT_SECONDS (and checks the seat again); a board
# that hears nothing for LIVE_STALE_SECONDS polls instead and tries the stream again after
# LIVE_RETRY_SECONDS; while pushed to, it still polls every LIVE_SAFETY_POLL_SECONDS.
LIVE_PUSH = bool(REDIS_URL) and env_bool("LIVE_PUSH", True)
# Where the streams are served (docs/deploy.md, "Two servers"): pages run on a WSGI server,
# which cannot hold a stream open, and the streams on an ASGI server of their own.
#   "self"   the page's own origin: the proxy in front sends every */stream/ path to the stream
#            server (production, where this is the default);
#   ":8001"  the page's host on that port: the stream server on a port of its own, no proxy
#            (make run); it answers pages of its own host (any port) with CORS;
#   an origin (https://live.example.org): the stream server elsewhere; the same CORS rule;
#   ""       none named: a page pushes only when the ASGI server that serves it serves its
#            stream too (the tests' in-process servers); a WSGI page polls.
LIVE_STREAM_ORIGIN = os.environ.get("LIVE_STREAM_ORIGIN", "self" if PRODUCTION else "").rstrip("/")
if LIVE_STREAM_ORIGIN not in ("", "self") and not re.fullmatch(
    r":\d{1,5}|https?://[^/?#\s]+", LIVE_STREAM_ORIGIN
):
    raise ImproperlyConfigured(
        'LIVE_STREAM_ORIGIN must be "self", "", ":<port>" or an origin (https://host:port)'
    )
LIVE_HEARTBEAT_SECONDS = float(os.environ.get("LIVE_HEARTBEAT_SECONDS", "15"))
LIVE_STALE_SECONDS = float(os.environ.get("LIVE_STALE_SECONDS", "20"))
LIVE_RETRY_SECONDS = float(os.environ.get("LIVE_RETRY_SECONDS", "60"))
LIVE_SAFETY_POLL_SECONDS = float(os.environ.get("LIVE_SAFETY_POLL_SECONDS", "30"))
# A board that polls (no push, or its stream quiet) asks every LIVE_POLL_SECONDS while anybody
# else could change it and every three times that while only its own device can act; the live
# wall and the waiting room every twice that. (The browser tests poll four times as often.)
LIVE_POLL_SECONDS = float(os.environ.get("LIVE_POLL_SECONDS", "1"))
# The teacher's live wall hears of every move of the class: at most one "changed" this often.
LIVE_WALL_GAP_SECONDS = float(os.environ.get("LIVE_WALL_GAP_SECONDS", "1"))
# How many proxies of our own stand in front of the web nodes (a load balancer: 1). The
# log-in lockout and the room-code throttle then read the device's address from
# X-Forwarded-For (config/throttle.py); 0 (default): REMOTE_ADDR.
FORWARDED_HOPS = max(0, int(os.environ.get("FORWARDED_HOPS", "0")))
# A full statistics recompute on PostgreSQL rebuilds on this many database connections at
# once (docs/analytics.md, "How the numbers are rebuilt"); 1 turns it off. SQLite: always 1.
RECOMPUTE_CONNECTIONS = max(1, int(os.environ.get("RECOMPUTE_CONNECTIONS", "2")))

# --- Auth ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# A grown-up's session ends when the browser closes (set_expiry(0) at log-in) and the server
# forgets every session after a working day: shared Chromebooks (docs/classroom/
# accounts-and-rosters.md). A child's session ends with the school day (child_session.py).
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_HOURS", "10")) * 3600
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out account first
    "django.contrib.auth.backends.ModelBackend",
    # games.view_match on a match: its seated children's teachers may watch (no log-in here).
    "classroom.permissions.TeacherWatchesBackend",
]
# django-axes, database handler (so the lockout holds while the cache is down): the lockout
# is per account AND client network (a stranger elsewhere cannot lock a teacher out), and one
# account's guesses from one network are checked one at a time (accounts.guarded_log_in).
# docs/classroom/accounts-and-rosters.md, "The log-in limits".
AXES_FAILURE_LIMIT = 10  # classroom.forms.LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=15)  # LOGIN_LOCKOUT_SECONDS
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "classroom.views.accounts.axes_username"
# The address as the log-in limits count it: IPv4, or an IPv6 address's /64.
AXES_CLIENT_IP_CALLABLE = "classroom.views.accounts.network_address"
AXES_LOCKOUT_CALLABLE = "classroom.views.accounts.login_locked_out"
# A browser the account logged in from before is not locked out by others' guesses.
AXES_WHITELIST_CALLABLE = "classroom.views.accounts.axes_whitelisted"
AXES_RESET_ON_SUCCESS = True
# Guesses during a lockout do not extend it (else anyone could keep a teacher locked out).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_DISABLE_ACCESS_LOG = True  # no log of every successful log-in: data kept to a minimum
AXES_VERBOSE = False
# Log-in attempts per client network, right or wrong, at /accounts/login/ and /admin/login/
# together, counted in the database before any password is hashed; past it, 429 until the
# window ends (an account's known browsers excepted). A school of 60 teachers behind one
# address, each logging in once with 3 typos at 8:30, makes 60 × 4 = 240 attempts: under 300
# (docs/classroom/accounts-and-rosters.md, "The log-in limits").
LOGIN_ATTEMPTS_PER_ADDRESS = int(os.environ.get("LOGIN_ATTEMPTS_PER_ADDRESS", "300"))
LOGIN_ATTEMPTS_WINDOW = timedelta(minutes=15)
# New accounts (sign-up hashes the new password and makes a school) per client network.
SIGNUPS_PER_ADDRESS = int(os.environ.get("SIGNUPS_PER_ADDRESS", "60"))
SIGNUPS_WINDOW = timedelta(hours=1)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "classroom:teacher_home"
LOGOUT_REDIRECT_URL = "classroom:home"

# --- i18n ---------------------------------------------------------------------------
LANGUAGE_CODE = "en"
# docs/languages.md: who sees which language, and how to add one.
LANGUAGES = [("en", _("English")), ("es", _("Spanish")), ("it", _("Italian"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates in each language's own way (classroom/templatetags/local_dates.py); English's here.
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/London")
USE_TZ = True

# --- Static files -------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}


# --- Security -----------------------------------------------------------------------
def connect_sources(stream_origin: str) -> list[str]:
    """Where a page may connect: itself, and the stream server when it has an origin of its
    own (``LIVE_STREAM_ORIGIN``; ":<port>", make run's, is that port of any host over http:
    the page's host is whatever the browser named this server by)."""
    if "://" in stream_origin:
        return [CSP.SELF, stream_origin]
    if stream_origin.startswith(":"):
        return [CSP.SELF, f"http://*{stream_origin}", f"https://*{stream_origin}"]
    return [CSP.SELF]


# No inline script, no eval, no other origin: every script and style is our own file.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": connect_sources(LIVE_STREAM_ORIGIN),
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz(/web)?$"]

# --- E-mail -------------------------------------------------------------------------
# Console in development (password-reset links appear in the terminal), SMTP in production.
if PRODUCTION or os.environ.get("EMAIL_HOST"):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": os.environ.get("EMAIL_HOST", "localhost"),
                "port": int(os.environ.get("EMAIL_PORT", "587")),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "MultipliPotion <noreply@localhost>")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}, "axes": {"level": "WARNING"}},
}
