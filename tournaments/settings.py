"""Django settings for Mazziere. Every deployment choice comes from the environment:
see tournaments/config.py and the README's "Configuration" table."""

import os
import warnings
from pathlib import Path

from csp import constants as csp

from tournaments.config import (
    CELERY_RUN_LOGGERS,
    cache_config,
    celery_config,
    database_config,
    env_bool,
    env_list,
    events_redis_url,
    positive_seconds,
    secret_key,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool(os.environ, "DEBUG", default=True)
SECRET_KEY = secret_key(os.environ, debug=DEBUG)
ALLOWED_HOSTS = env_list(os.environ, "ALLOWED_HOSTS")

# HTTPS=true when clients reach the site over TLS (terminated here or at a proxy that sets
# X-Forwarded-Proto): plain HTTP is redirected and cookies are sent over TLS only.
# /healthz stays reachable over plain HTTP for in-cluster health checks.
if env_bool(os.environ, "HTTPS", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc as static files: /api/docs/ works offline
    "django_celery_beat",
    "tournaments.apps.TournamentsConfig",
    # The public pages (docs/web.md): server-rendered templates over the same selectors as the API.
    "tournaments.web.apps.WebConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every answer (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    # ETag on every GET answered 200 (a hash of the body), 304 to If-None-Match that matches
    # (docs/api.md, "Caching"); never on event streams.
    "django.middleware.http.ConditionalGetMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # /api/ only: JSON 413 for a body over API_MAX_BODY_BYTES, JSON 500 for a view's exception.
    "tournaments.api.middleware.ApiErrorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's LocaleMiddleware for the pages (the language from the django_language cookie
    # set_language sets, else Accept-Language); the API keeps answering in English.
    "tournaments.web.middleware.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A sign-in beyond its budget outside the API (the admin's login): a 429 page.
    "tournaments.web.middleware.SignInRefusedMiddleware",
]

# What a page may load and run (django-csp): its own scripts, styles and images only, never an
# inline script, style or handler (the pages' JS and CSS are static files), no plugins, no
# <base>, forms posted here only, framed by nobody. Swagger UI and ReDoc (/api/docs/,
# /api/redoc/) add what their bundles need (tournaments/urls.py). SecurityMiddleware's defaults
# add X-Content-Type-Options: nosniff, Referrer-Policy: same-origin and
# Cross-Origin-Opener-Policy: same-origin; XFrameOptionsMiddleware X-Frame-Options: DENY.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.SELF],
        "script-src": [csp.SELF],
        "style-src": [csp.SELF],
        "img-src": [csp.SELF],
        "object-src": [csp.NONE],
        "base-uri": [csp.NONE],
        "form-action": [csp.SELF],
        "frame-ancestors": [csp.NONE],
    },
}

ROOT_URLCONF = "tournaments.urls"
WSGI_APPLICATION = "tournaments.wsgi.application"
# The web server of a deployment: uvicorn serving tournaments.asgi, for the event streams'
# long-lived connections (docker/compose.yaml).
ASGI_APPLICATION = "tournaments.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": database_config(os.environ, base_dir=BASE_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Every username-and-password attempt (HTTP Basic on the API, POST /api/session/, the admin's
# login, the pages' sign-in form) is counted first against the sign-in budgets per address and
# per account (tournaments/signin.py: a backend that authenticates nobody), then checked by
# Django's ModelBackend, which sessions keep naming.
AUTHENTICATION_BACKENDS = ["tournaments.signin.SignInBudget", "django.contrib.auth.backends.ModelBackend"]

# Signing in on the pages (tournaments/web/organise.py): the organisers' screens send anybody
# else there, and back; signing out goes home.
LOGIN_URL = "web:sign-in"
LOGIN_REDIRECT_URL = "web:organise"
LOGOUT_REDIRECT_URL = "web:home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# The pages' languages (docs/web.md, "Languages"); the API answers in English whatever is asked.
LANGUAGES = [("en", "English"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "tournaments" / "web" / "locale"]

# Served by WhiteNoise straight from the apps' static folders (Django's finders, listed once
# when a process starts), in every deployment and with no build step: `collectstatic` has
# nothing to add (the files are neither compressed nor renamed by hash) and, run at start, would
# write into the code's folder, which the image's user may not. STATIC_ROOT is where
# `collectstatic` puts them for whoever serves them elsewhere (a CDN); WhiteNoise serves it too
# when it is there, and its warning that it is not is only noise.
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True
warnings.filterwarnings("ignore", message="No directory at: ")  # WhiteNoise, of a missing STATIC_ROOT
# Development serves the files as they change; fixed here rather than left to follow
# settings.DEBUG, which the test runner turns off.
WHITENOISE_AUTOREFRESH = DEBUG

REST_FRAMEWORK = {
    # Proxies in front of the site that append the address they saw to X-Forwarded-For
    # (compose: nginx, 1). 0: the connection's address is the caller's, and the header, which
    # anybody may send, is ignored. The anonymous budgets and stream caps count per address.
    "NUM_PROXIES": int(os.environ.get("API_NUM_PROXIES", "0")),
    # Request bodies are JSON, and only JSON (tournaments/api/parsers.py; other types: 415).
    "DEFAULT_PARSER_CLASSES": ["tournaments.api.parsers.JsonParser"],
    # The test client's bodies too (its default is multipart, which the API refuses).
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # drf-spectacular's, plus the error statuses each operation can answer (tournaments/api/schema.py).
    "DEFAULT_SCHEMA_CLASS": "tournaments.api.schema.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "tournaments.api.errors.exception_handler",
    # ?limit= (at most 500) and ?offset=; lists in a fixed order page by cursor (api/pagination.py).
    "DEFAULT_PAGINATION_CLASS": "tournaments.api.pagination.Pages",
    "PAGE_SIZE": 100,
    # Programs send a personal token (Authorization: Bearer ...); the browser its session.
    # The token class comes first so that an unauthenticated request is answered 401 with a
    # WWW-Authenticate header naming the scheme (docs/api.md).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tournaments.api.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # How often a caller may call (tournaments/api/throttles.py, docs/api.md "Limits"); counted
    # in the cache: set CACHE_URL where several processes serve the API.
    "DEFAULT_THROTTLE_CLASSES": [
        "tournaments.api.throttles.AnonymousThrottle",
        "tournaments.api.throttles.AccountThrottle",
        "tournaments.api.throttles.TokenThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_ANON_RATE", "600/minute"),
        "user": os.environ.get("API_USER_RATE", "3600/minute"),
        "token": os.environ.get("API_TOKEN_RATE", "1200/minute"),
        "bot_token": os.environ.get("API_BOT_TOKEN_RATE", "3600/minute"),
        "tokens": os.environ.get("API_TOKENS_RATE", "30/minute"),
        "accounts": os.environ.get("API_ACCOUNTS_RATE", "20/hour"),
        # Sign-in attempts with a password (tournaments/signin.py): per address, per account tried.
        "sign_in": os.environ.get("API_SIGN_IN_RATE", "10/minute"),
        "sign_in_account": os.environ.get("API_SIGN_IN_ACCOUNT_RATE", "20/hour"),
    },
}

CACHES = cache_config(os.environ)

SPECTACULAR_SETTINGS = {
    "TITLE": "Mazziere API",
    "DESCRIPTION": "Tournaments for Italian card games.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # A request body's component apart from its answer's (PlayerRequest beside Player): what a
    # client sends lists no read-only field, so a generated client needs none to make a request.
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI (/api/docs/) and ReDoc (/api/redoc/) from drf-spectacular-sidecar's static files.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validity badge: Swagger UI would send the schema to validator.swagger.io for it.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

# The largest request body the API reads (bytes); a larger one is answered 413
# (tournaments/api/middleware.py). Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) still bounds the
# rest of the site.
API_MAX_BODY_BYTES = int(os.environ.get("API_MAX_BODY_BYTES", str(64 * 1024)))

CELERY_TIMEZONE = TIME_ZONE
globals().update(celery_config(os.environ))


# A worker owns a match it plays under a lease of MATCH_LEASE_SECONDS, renewed every
# MATCH_HEARTBEAT_SECONDS (a third of it unless set) by a thread of the worker while it plays;
# a dead worker's matches are handed back once their lease runs out (Celery beat's
# reclaim_matches, every RECLAIM_INTERVAL_SECONDS) and played again: a death costs at most
# some 15 s before its matches are taken up again.
# A worker that starts or records no match for MATCH_STUCK_SECONDS (longer than any match's
# clocks allow) stops renewing, as if dead (tournaments.services.leases). A bot match pending
# that long in a tournament where nothing has started for as long is sent again (its message
# lost: MATCH_STALE_SECONDS).
MATCH_LEASE_SECONDS = positive_seconds(os.environ, "MATCH_LEASE_SECONDS", 10.0)
MATCH_HEARTBEAT_SECONDS = positive_seconds(os.environ, "MATCH_HEARTBEAT_SECONDS", MATCH_LEASE_SECONDS / 3)
MATCH_STUCK_SECONDS = positive_seconds(os.environ, "MATCH_STUCK_SECONDS", 900.0)
MATCH_STALE_SECONDS = positive_seconds(os.environ, "MATCH_STALE_SECONDS", 300.0)
# Each class of work has its own Celery queue, so that one class's slow work delays only its
# own: matches, bot and online (MATCH_QUEUE); the clocks and housekeeping Celery beat sends
# (CLOCK_QUEUE: online deadlines every DEADLINE_CHECK_SECONDS, dead workers' matches, the
# schedule's tick), which must find a worker free at once; webhook deliveries (WEBHOOK_QUEUE),
# which wait on their receivers. Tasks are routed by name (tournaments.services.dispatch.route,
# reading these settings when a task is sent). A worker consumes the queues named by its -Q,
# all three without one; docker/compose.yaml runs a worker for each.
MATCH_QUEUE = os.environ.get("MATCH_QUEUE", "celery")
CLOCK_QUEUE = os.environ.get("CLOCK_QUEUE", "clocks")
WEBHOOK_QUEUE = os.environ.get("WEBHOOK_QUEUE", "webhooks")
CELERY_TASK_ROUTES = ("tournaments.services.dispatch.route",)
CELERY_TASK_QUEUES = {queue: {} for queue in (MATCH_QUEUE, CLOCK_QUEUE, WEBHOOK_QUEUE)}
# Bot matches go to the workers in batches of at most MATCH_BATCH_SIZE, a round spread over at
# least MATCH_BATCH_SPREAD tasks (set it to the number of worker processes); a worker records
# what it has played every MATCH_FLUSH_SECONDS (tournaments.services.dispatch and .play).
MATCH_BATCH_SIZE = int(os.environ.get("MATCH_BATCH_SIZE", "20"))
MATCH_BATCH_SPREAD = int(os.environ.get("MATCH_BATCH_SPREAD", "4"))
MATCH_FLUSH_SECONDS = float(os.environ.get("MATCH_FLUSH_SECONDS", "1.0"))
# A worker sending matches it knows the pace of (those of rounds it made) sends batches of
# MATCH_BATCH_SECONDS of play, at least MATCH_BATCH_SIZE and at most MATCH_BATCH_MAX matches.
MATCH_BATCH_SECONDS = float(os.environ.get("MATCH_BATCH_SECONDS", "1.0"))
MATCH_BATCH_MAX = int(os.environ.get("MATCH_BATCH_MAX", "200"))
# A worker that closes a round keeps the whole next round when, at the pace of its matches so
# far, it would play it in less than this: sharing so short a round costs more than it saves.
MATCH_SPLIT_SECONDS = float(os.environ.get("MATCH_SPLIT_SECONDS", "0.5"))
# A bot round robin (rounds that do not depend on results) keeps this many matches made ahead
# of those played, so workers never wait for a round to close; unset: at the start two batches
# (MATCH_BATCH_SIZE) for each of MATCH_BATCH_SPREAD workers, then two of the largest
# (MATCH_BATCH_MAX) for each; 0: one round at a time (tournaments.services.rounds).
ROUNDS_AHEAD_MATCHES = int(os.environ["ROUNDS_AHEAD_MATCHES"]) if os.environ.get("ROUNDS_AHEAD_MATCHES") else None
# The bots the service plays in its own processes (built-in bots whatever their options, the
# fallback and timeout bots) think at most BOT_DECISION_SECONDS a decision and an even share of
# BOT_MATCH_SECONDS a match at each table (so a match holds its worker at most that long beyond
# the engine's time: keep it well under MATCH_LEASE_SECONDS); one answering BOT_OVERRUN_SECONDS
# after its time forfeits its seat (tournaments.services.clocks, docs/bots.md).
BOT_DECISION_SECONDS = positive_seconds(os.environ, "BOT_DECISION_SECONDS", 1.0)
BOT_MATCH_SECONDS = positive_seconds(os.environ, "BOT_MATCH_SECONDS", 60.0)
BOT_OVERRUN_SECONDS = positive_seconds(os.environ, "BOT_OVERRUN_SECONDS", 1.0)
# A match claimed this many times without a result (its worker died or it raised each time)
# is left for an organiser to retry (POST /api/matches/{id}/retry/).
MATCH_MAX_ATTEMPTS = int(os.environ.get("MATCH_MAX_ATTEMPTS", "3"))
# HTTP bots are called only at public internet addresses, so that a registered bot URL cannot
# make the service POST into its own network; HTTP_BOTS_ALLOWED_HOSTS names the exceptions
# (e.g. a club's bot server on the LAN).
HTTP_BOTS_PUBLIC_ONLY = os.environ.get("HTTP_BOTS_PUBLIC_ONLY", "true").lower() not in ("0", "false", "no")
HTTP_BOTS_ALLOWED_HOSTS = [h for h in os.environ.get("HTTP_BOTS_ALLOWED_HOSTS", "").split(",") if h.strip()]
RECLAIM_INTERVAL_SECONDS = float(os.environ.get("RECLAIM_INTERVAL_SECONDS", "5"))
TICK_INTERVAL_SECONDS = float(os.environ.get("TICK_INTERVAL_SECONDS", "60"))
# How often online seats' clocks are checked: a move's time runs out at most this late.
DEADLINE_CHECK_SECONDS = float(os.environ.get("DEADLINE_CHECK_SECONDS", "1"))
# Event streams of online matches (tournaments/events.py, docs/online.md): notifications go
# through Redis at EVENTS_REDIS_URL (default: a Redis CELERY_BROKER_URL; "" = in-process only).
# A stream also reads its match again every EVENTS_POLL_SECONDS whatever it hears, sends a
# keep-alive comment after EVENTS_KEEPALIVE_SECONDS of silence, and is closed after
# STREAM_MAX_SECONDS (its client reconnects with Last-Event-ID).
EVENTS_REDIS_URL = events_redis_url(os.environ)
EVENTS_POLL_SECONDS = float(os.environ.get("EVENTS_POLL_SECONDS", "5"))
EVENTS_KEEPALIVE_SECONDS = float(os.environ.get("EVENTS_KEEPALIVE_SECONDS", "15"))
STREAM_MAX_SECONDS = float(os.environ.get("STREAM_MAX_SECONDS", "3600"))
# At most this many event streams open at once per account (or anonymous address), per process.
STREAMS_PER_CALLER = int(os.environ.get("STREAMS_PER_CALLER", "50"))
# Whether the WSGI entry point (tournaments/wsgi.py) serves event streams: true for runserver and
# the tests' live server (a thread per connection); false under gunicorn (its config sets it),
# whose few threads a handful of streams would hold: there a stream's path is refused, 503,
# naming the ASGI server, at STREAMS_URL when set (where clients reach it, for a deployment
# without a proxy in front that routes the streams to it).
WSGI_STREAMS = env_bool(os.environ, "WSGI_STREAMS", default=True)
STREAMS_URL = os.environ.get("STREAMS_URL", "")
# Without a broker, web processes run the tasks their requests send in a background thread
# (tournaments/embedded.py); true or false forces it anywhere (the tests turn it off).
EMBEDDED_WORKER = env_bool(os.environ, "EMBEDDED_WORKER", True) if "EMBEDDED_WORKER" in os.environ else None
# Webhook deliveries (tournaments.services.webhooks; docs/api.md, "Webhooks"): a receiver has
# WEBHOOK_TIMEOUT_SECONDS for the whole of each POST (connecting, the request, every byte of
# its answer); a task POSTs up to WEBHOOK_SENDERS deliveries at once, and a receiver is sent
# at most WEBHOOK_RECEIVER_CONNECTIONS at once by all the workers together. Celery beat sends
# the deliveries due (retries, those of failing receivers, any whose worker died) every
# WEBHOOK_RETRY_SECONDS.
WEBHOOK_TIMEOUT_SECONDS = positive_seconds(os.environ, "WEBHOOK_TIMEOUT_SECONDS", 10.0)
WEBHOOK_SENDERS = max(1, int(os.environ.get("WEBHOOK_SENDERS", "8")))
WEBHOOK_RECEIVER_CONNECTIONS = max(1, int(os.environ.get("WEBHOOK_RECEIVER_CONNECTIONS", "4")))
WEBHOOK_RETRY_SECONDS = float(os.environ.get("WEBHOOK_RETRY_SECONDS", "10"))
CELERY_BEAT_SCHEDULE = {
    "reclaim-matches": {"task": "tournaments.tasks.reclaim_matches", "schedule": RECLAIM_INTERVAL_SECONDS},
    "tick": {"task": "tournaments.tasks.tick", "schedule": TICK_INTERVAL_SECONDS},
    "expire-deadlines": {"task": "tournaments.tasks.expire_deadlines", "schedule": DEADLINE_CHECK_SECONDS},
    "retry-webhooks": {"task": "tournaments.tasks.retry_webhooks", "schedule": WEBHOOK_RETRY_SECONDS},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Celery's line for every run of the periodic tasks (a few a second at INFO) only when the
    # run did something, or went wrong (tournaments.config.QuietPeriodicTasks).
    "filters": {"quiet_periodic": {"()": "tournaments.config.QuietPeriodicTasks",
                                   "tasks": [entry["task"] for entry in CELERY_BEAT_SCHEDULE.values()]}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {name: {"filters": ["quiet_periodic"]} for name in CELERY_RUN_LOGGERS},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
