"""Turn the process environment into settings, as plain functions that tests can call.

Twelve-factor (design/architecture.md, "Configuration"): everything that differs between a laptop
and a cluster comes from the environment, and every variable has an embedded default that works
with nothing installed but Python (a SQLite file, Celery tasks run eagerly in-process).
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

DEV_SECRET_KEY = "django-insecure-mazziere-local-development-only"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    """Read a boolean variable; an unrecognised value is an error rather than a silent default."""
    raw = env.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true or false)")


def env_list(env: Mapping[str, str], name: str) -> list[str]:
    """A comma-separated list, blanks dropped: "a, b," -> ["a", "b"]."""
    return [item.strip() for item in env.get(name, "").split(",") if item.strip()]


def positive_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A duration in seconds, a finite number above 0; anything else is an error naming it."""
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf")):
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number of seconds above 0")
    return value


def secret_key(env: Mapping[str, str], *, debug: bool) -> str:
    """SECRET_KEY from the environment; a fixed development key is allowed only with DEBUG on."""
    key = env.get("SECRET_KEY", "")
    if key:
        return key
    if debug:
        return DEV_SECRET_KEY
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false")


POSTGRES_ENGINE = "tournaments.db.postgresql"


def database_config(env: Mapping[str, str], *, base_dir: Path) -> dict[str, Any]:
    """The default database: DATABASE_URL if set, else a SQLite file.

    The SQLite file is MAZZIERE_SQLITE_PATH, or db.sqlite3 at the repository root.
    DATABASE_CONN_MAX_AGE (seconds, default 0: one connection per request or task) enables
    persistent connections. DATABASE_POOL (PostgreSQL only) keeps a pool of up to that many
    connections per process instead (psycopg_pool): what the ASGI web server wants, whose
    requests and event streams run in many short-lived threads (docker/compose.yaml sets it).
    DATABASE_PREPARED_STATEMENTS (PostgreSQL, default true): the hot plain statements are
    prepared once per connection (tournaments/db/postgresql/base.py); false for a pooler in
    front of PostgreSQL that does not keep prepared statements (PgBouncer in transaction mode
    before 1.21).
    """
    conn_max_age = int(env.get("DATABASE_CONN_MAX_AGE", "0"))
    url = env.get("DATABASE_URL", "")
    if url:
        config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=conn_max_age > 0)
        if config["ENGINE"] == "django.db.backends.postgresql":
            # Django's, but a kept connection used a moment ago is not checked again
            # (tournaments/db/postgresql/base.py).
            config["ENGINE"] = POSTGRES_ENGINE
        pool = int(env.get("DATABASE_POOL", "0"))
        if pool and config["ENGINE"] == POSTGRES_ENGINE:
            if conn_max_age:
                raise ValueError("DATABASE_POOL and DATABASE_CONN_MAX_AGE exclude each other: a pool keeps the "
                                 "connections itself")
            config.setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": pool, "timeout": 10}
        if not env_bool(env, "DATABASE_PREPARED_STATEMENTS", default=True):
            config.setdefault("OPTIONS", {})["prepare_threshold"] = None  # psycopg: never prepare
        return config
    path = env.get("MAZZIERE_SQLITE_PATH") or str(base_dir / "db.sqlite3")
    return {"ENGINE": "django.db.backends.sqlite3", "NAME": path, "CONN_MAX_AGE": conn_max_age}


def celery_config(env: Mapping[str, str]) -> dict[str, Any]:
    """Celery settings, named as Django settings (CELERY_ prefix; tournaments/celery.py strips it).

    With CELERY_BROKER_URL unset, tasks run eagerly in the calling process and their exceptions
    propagate, so the embedded default needs no broker and no worker. With it set, tasks go to the
    broker and results to CELERY_RESULT_BACKEND (default: the broker URL).
    """
    broker = env.get("CELERY_BROKER_URL", "")
    config: dict[str, Any] = {
        "CELERY_TASK_SERIALIZER": "json",
        "CELERY_RESULT_SERIALIZER": "json",
        "CELERY_ACCEPT_CONTENT": ["json"],
        # A task is acknowledged only once it has finished, and put back on the queue if its
        # worker process dies; with a prefetch of 1 a worker holds no more than it is running.
        # Tasks must therefore be idempotent (design/architecture.md, step 3).
        "CELERY_TASK_ACKS_LATE": True,
        "CELERY_TASK_REJECT_ON_WORKER_LOST": True,
        "CELERY_WORKER_PREFETCH_MULTIPLIER": 1,
        # Results carry the worker's name, the task's name and its arguments.
        "CELERY_RESULT_EXTENDED": True,
        "CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP": True,
        "CELERY_BEAT_SCHEDULER": "django_celery_beat.schedulers:DatabaseScheduler",
    }
    if broker:
        config.update(
            CELERY_BROKER_URL=broker,
            CELERY_RESULT_BACKEND=env.get("CELERY_RESULT_BACKEND") or broker,
            CELERY_TASK_ALWAYS_EAGER=False,
        )
    else:
        config.update(
            CELERY_BROKER_URL=None,
            CELERY_RESULT_BACKEND=None,
            CELERY_TASK_ALWAYS_EAGER=True,
            CELERY_TASK_EAGER_PROPAGATES=True,
        )
    return config


# Where Celery writes a line for every run of a task: beat as it sends one, a worker as it
# receives one and as one succeeds.
CELERY_RUN_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")


class QuietPeriodicTasks(logging.Filter):
    """Drops Celery's INFO lines about the runs of ``tasks`` (the periodic ones, set on
    CELERY_RUN_LOGGERS by settings.LOGGING): beat sending one, a worker receiving one, and one
    succeeding with nothing to show (None, nothing, zeros). expire_deadlines alone, every second,
    wrote some 250,000 such lines a day. A success that did something (the matches it reclaimed,
    the rounds it opened), every warning and error, and what a task logs itself of its work
    (services.online: each timeout applied) still pass."""

    def __init__(self, tasks=()) -> None:
        super().__init__()
        self.tasks = frozenset(tasks)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        data = getattr(record, "data", None)  # a worker's lines carry the task's name and result there
        if isinstance(data, dict) and data.get("name") in self.tasks:
            return "return_value" in data and _did_something(data["return_value"])
        # beat: "Scheduler: Sending due task %s (%s)", the entry's name and its task's
        return not (record.name == "celery.beat" and isinstance(record.args, tuple) and len(record.args) == 2
                    and record.args[1] in self.tasks)


def _did_something(result: str) -> bool:
    """Whether a task's result, as Celery logs it (its repr), says it did something."""
    try:
        value = ast.literal_eval(result)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return True  # not a plain value: let it be read
    if isinstance(value, dict):
        return any(value.values())
    return bool(value)


def events_redis_url(env: Mapping[str, str]) -> str:
    """Where online matches' event notifications are fanned out (tournaments/events.py):
    EVENTS_REDIS_URL if set ("" forces the in-process hub), else a redis:// or rediss://
    CELERY_BROKER_URL, else "" (in-process: the embedded default)."""
    if "EVENTS_REDIS_URL" in env:
        return env["EVENTS_REDIS_URL"]
    broker = env.get("CELERY_BROKER_URL", "")
    return broker if broker.startswith(("redis://", "rediss://")) else ""


def cache_config(env: Mapping[str, str]) -> dict[str, Any]:
    """Django's CACHES: Redis at CACHE_URL (a redis:// or rediss:// URL), which every process
    shares, so that the API's throttles count all of a caller's requests together; without it,
    each process's own memory (the embedded default: one process). Not the broker's database by
    default: clearing the cache (FLUSHDB) must never drop queued tasks."""
    url = env.get("CACHE_URL", "")
    # "local": this process's memory, for reads kept under a key that names one exact state (a
    # leaderboard page under its ladder's ``applied``): never stale, so no need to share them.
    # LOCAL_CACHE_ENTRIES answers at most (a page or a history is 2-35 KB: 10,000 is ~100 MB at
    # most a process); the least recently used third goes when it is full.
    entries = env.get("LOCAL_CACHE_ENTRIES", "10000")
    if not (entries.isascii() and entries.isdigit() and 100 <= int(entries) <= 1_000_000):
        raise ImproperlyConfigured(f"LOCAL_CACHE_ENTRIES={entries!r} is not a whole number from 100 to 1000000")
    local = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "mazziere-local",
             "OPTIONS": {"MAX_ENTRIES": int(entries)}}
    if url:
        if not url.startswith(("redis://", "rediss://")):
            raise ValueError(f"CACHE_URL must be a redis:// or rediss:// URL, not {url!r}")
        return {"default": {"BACKEND": "tournaments.cache.RedisCache", "LOCATION": url,
                            "KEY_PREFIX": "mazziere"}, "local": local}
    return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "mazziere"},
            "local": local}
