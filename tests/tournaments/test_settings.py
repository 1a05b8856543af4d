from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from tournaments.config import (
    DEV_SECRET_KEY,
    cache_config,
    celery_config,
    database_config,
    env_bool,
    env_list,
    events_redis_url,
    secret_key,
)

BASE = Path("/srv/mazziere")


def test_without_database_url_the_database_is_a_sqlite_file_at_the_repository_root():
    config = database_config({}, base_dir=BASE)
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == str(BASE / "db.sqlite3")


def test_mazziere_sqlite_path_moves_the_sqlite_file():
    config = database_config({"MAZZIERE_SQLITE_PATH": "/tmp/other.sqlite3"}, base_dir=BASE)
    assert config["NAME"] == "/tmp/other.sqlite3"


def test_a_postgres_database_url_is_parsed_into_its_parts():
    config = database_config({"DATABASE_URL": "postgres://mazz:secret@db.example:6543/mazziere"}, base_dir=BASE)
    assert config["ENGINE"] == "tournaments.db.postgresql"  # Django's, the health check of a busy connection spared
    assert (config["USER"], config["PASSWORD"]) == ("mazz", "secret")
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 6543, "mazziere")
    assert config["CONN_MAX_AGE"] == 0


def test_database_conn_max_age_enables_persistent_connections_with_health_checks():
    env = {"DATABASE_URL": "postgres://postgres@127.0.0.1/mazziere", "DATABASE_CONN_MAX_AGE": "60"}
    config = database_config(env, base_dir=BASE)
    assert config["CONN_MAX_AGE"] == 60
    assert config["CONN_HEALTH_CHECKS"] is True


def test_database_pool_keeps_a_pool_of_postgresql_connections_and_excludes_conn_max_age():
    url = "postgres://postgres@127.0.0.1/mazziere"
    config = database_config({"DATABASE_URL": url, "DATABASE_POOL": "16"}, base_dir=BASE)
    assert config["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 16, "timeout": 10}
    assert config["CONN_MAX_AGE"] == 0
    assert "pool" not in database_config({"DATABASE_URL": url}, base_dir=BASE).get("OPTIONS", {})
    # SQLite has no pool: the setting is for the PostgreSQL deployment only.
    assert "OPTIONS" not in database_config({"DATABASE_POOL": "16"}, base_dir=BASE)
    with pytest.raises(ValueError, match="DATABASE_POOL and DATABASE_CONN_MAX_AGE"):
        database_config({"DATABASE_URL": url, "DATABASE_POOL": "4", "DATABASE_CONN_MAX_AGE": "60"}, base_dir=BASE)


def test_event_notifications_go_through_a_redis_broker_unless_told_otherwise():
    assert events_redis_url({}) == ""  # the embedded default: in-process
    assert events_redis_url({"CELERY_BROKER_URL": "redis://r:6379/0"}) == "redis://r:6379/0"
    assert events_redis_url({"CELERY_BROKER_URL": "amqp://guest@rabbit//"}) == ""  # not a Redis broker
    assert events_redis_url({"CELERY_BROKER_URL": "redis://r:6379/0", "EVENTS_REDIS_URL": ""}) == ""
    assert events_redis_url({"EVENTS_REDIS_URL": "redis://other:6379/3"}) == "redis://other:6379/3"


def test_without_a_broker_tasks_run_eagerly_and_raise_their_errors():
    config = celery_config({})
    assert config["CELERY_TASK_ALWAYS_EAGER"] is True
    assert config["CELERY_TASK_EAGER_PROPAGATES"] is True
    assert config["CELERY_BROKER_URL"] is None


def test_with_a_broker_tasks_are_queued_and_results_default_to_the_broker():
    config = celery_config({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"})
    assert config["CELERY_TASK_ALWAYS_EAGER"] is False
    assert config["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/0"
    assert config["CELERY_RESULT_BACKEND"] == "redis://127.0.0.1:6379/0"


def test_celery_result_backend_overrides_the_default():
    env = {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CELERY_RESULT_BACKEND": "redis://127.0.0.1:6379/1"}
    assert celery_config(env)["CELERY_RESULT_BACKEND"] == "redis://127.0.0.1:6379/1"


@pytest.mark.parametrize("env", [{}, {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}])
def test_tasks_are_acknowledged_late_one_at_a_time_and_serialised_as_json(env):
    config = celery_config(env)
    assert config["CELERY_TASK_ACKS_LATE"] is True
    assert config["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True
    assert config["CELERY_WORKER_PREFETCH_MULTIPLIER"] == 1
    assert config["CELERY_TASK_SERIALIZER"] == config["CELERY_RESULT_SERIALIZER"] == "json"
    assert config["CELERY_ACCEPT_CONTENT"] == ["json"]


def test_the_running_settings_use_the_embedded_defaults_or_the_environment(settings, broker_configured):
    assert settings.CELERY_TASK_ALWAYS_EAGER is not broker_configured


def test_the_development_secret_key_is_used_only_with_debug_on():
    assert secret_key({}, debug=True) == DEV_SECRET_KEY
    assert secret_key({"SECRET_KEY": "s3cret"}, debug=False) == "s3cret"
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        secret_key({}, debug=False)


@pytest.mark.parametrize(("raw", "expected"), [("true", True), ("1", True), ("False", False), ("0", False)])
def test_booleans_accept_the_usual_spellings(raw, expected):
    assert env_bool({"DEBUG": raw}, "DEBUG", default=not expected) is expected


def test_an_unset_boolean_takes_its_default_and_a_misspelt_one_is_an_error():
    assert env_bool({}, "DEBUG", default=True) is True
    with pytest.raises(ImproperlyConfigured, match="DEBUG"):
        env_bool({"DEBUG": "ture"}, "DEBUG", default=True)


def test_allowed_hosts_is_a_comma_separated_list():
    assert env_list({"ALLOWED_HOSTS": "mazziere.example, localhost,"}, "ALLOWED_HOSTS") == [
        "mazziere.example",
        "localhost",
    ]
    assert env_list({}, "ALLOWED_HOSTS") == []


def test_the_cache_is_redis_at_cache_url_else_each_process_memory():
    assert cache_config({})["default"]["BACKEND"].endswith("LocMemCache")
    # Not the broker's by default: clearing the cache must never flush queued tasks.
    assert cache_config({"CELERY_BROKER_URL": "redis://r:6379/0"})["default"]["BACKEND"].endswith("LocMemCache")
    shared = cache_config({"CACHE_URL": "redis://r:6379/1"})["default"]
    assert shared["BACKEND"].endswith("RedisCache") and shared["LOCATION"] == "redis://r:6379/1"
    with pytest.raises(ValueError, match="CACHE_URL"):
        cache_config({"CACHE_URL": "memcached://m:11211"})


def test_the_local_cache_holds_as_many_answers_as_set_and_a_bad_number_is_refused():
    assert cache_config({})["local"]["OPTIONS"]["MAX_ENTRIES"] == 10_000
    assert cache_config({"LOCAL_CACHE_ENTRIES": "500"})["local"]["OPTIONS"]["MAX_ENTRIES"] == 500
    for bad in ("0", "99", "ten", "-5", "1e4", "2000000"):
        with pytest.raises(ImproperlyConfigured, match="LOCAL_CACHE_ENTRIES"):
            cache_config({"LOCAL_CACHE_ENTRIES": bad})


def test_a_kept_postgres_connection_used_a_moment_ago_is_not_checked_again(monkeypatch):
    """tournaments/db/postgresql/base.py: the health check's SELECT 1 is spared for a connection
    that did work less than a second ago; an idler one, or one never used, is checked."""
    from tournaments.db.postgresql import base

    env = {"DATABASE_URL": "postgres://postgres@127.0.0.1/mazziere", "DATABASE_CONN_MAX_AGE": "60"}
    settings = {**database_config(env, base_dir=BASE), "TIME_ZONE": None, "AUTOCOMMIT": True, "OPTIONS": {}}
    wrapper = base.DatabaseWrapper(settings)
    checks = []
    monkeypatch.setattr(wrapper, "is_usable", lambda: checks.append(1) or True)
    clock = [100.0]
    monkeypatch.setattr(base.time, "monotonic", lambda: clock[0])
    wrapper.connection = object()  # a kept connection, as a past request left it
    wrapper.health_check_enabled = settings["CONN_HEALTH_CHECKS"]  # as connect() sets it
    assert wrapper.health_check_enabled is True

    def request() -> int:
        """A request's first query asks for the check; how many checks were made so far."""
        wrapper.health_check_done = False  # what close_if_unusable_or_obsolete does at a request's start
        wrapper.close_if_health_check_failed()
        return len(checks)

    assert request() == 1  # never used through a cursor: checked
    wrapper.used_at = clock[0]  # a cursor made now
    clock[0] += 0.5
    assert request() == 1  # used half a second ago: spared
    clock[0] += 5.0
    assert request() == 2  # idle five seconds: checked


def test_prepared_statements_are_on_unless_turned_off_for_a_pooler():
    from tournaments.db.postgresql import base

    url = "postgres://postgres@127.0.0.1/mazziere"
    assert "prepare_threshold" not in database_config({"DATABASE_URL": url}, base_dir=BASE).get("OPTIONS", {})
    off = database_config({"DATABASE_URL": url, "DATABASE_PREPARED_STATEMENTS": "false"}, base_dir=BASE)
    assert off["OPTIONS"]["prepare_threshold"] is None
    with pytest.raises(ImproperlyConfigured, match="DATABASE_PREPARED_STATEMENTS"):
        database_config({"DATABASE_URL": url, "DATABASE_PREPARED_STATEMENTS": "sometimes"}, base_dir=BASE)

    def params(options: dict) -> dict:
        settings = {**database_config({"DATABASE_URL": url}, base_dir=BASE), "TIME_ZONE": None, "AUTOCOMMIT": True,
                    "OPTIONS": options}
        return base.DatabaseWrapper(settings).get_connection_params()

    assert params({})["prepare_threshold"] == base.PREPARED_THRESHOLD  # what psycopg is told
    assert params({"prepare_threshold": None})["prepare_threshold"] is None  # psycopg: never prepare


def test_celerys_lines_for_the_periodic_tasks_runs_are_written_only_when_a_run_did_something(caplog):
    """beat's one-second expire_deadlines wrote three INFO lines a second (beat sending it, a
    worker receiving it, its success): some 250,000 a day. Those of the periodic tasks are
    dropped unless the run did something; other tasks' lines, warnings and errors pass."""
    import logging

    from celery.app import trace

    def worker_line(logger: str, text: str, **data) -> None:
        logging.getLogger(logger).info(text, data, extra={"data": data})

    def run(task: str, result: str) -> None:
        logging.getLogger("celery.beat").info("Scheduler: Sending due task %s (%s)", task.split(".")[-1], task)
        worker_line("celery.worker.strategy", trace.LOG_RECEIVED, id="1", name=task, args="()", kwargs="{}", eta=None)
        worker_line("celery.app.trace", trace.LOG_SUCCESS, id="1", name=task, return_value=result, runtime=0.01,
                    args="()", kwargs="{}")

    with caplog.at_level(logging.INFO):
        run("tournaments.tasks.expire_deadlines", "None")
        run("tournaments.tasks.reclaim_matches", "[]")
        run("tournaments.tasks.tick", "{'started': 0, 'rounds': 0, 'seasons': 0}")
        assert caplog.records == []
        run("tournaments.tasks.reclaim_matches", "[12, 13]")
        run("tournaments.tasks.tick", "{'started': 1, 'rounds': 0, 'seasons': 0}")
        run("tournaments.tasks.play_matches", "None")  # not periodic: every line
        logging.getLogger("celery.app.trace").warning("Task tournaments.tasks.expire_deadlines[1] retry: lost")
    said = [record.getMessage() for record in caplog.records]
    assert [line for line in said if "succeeded" in line] == [
        "Task tournaments.tasks.reclaim_matches[1] succeeded in 0.01s: [12, 13]",
        "Task tournaments.tasks.tick[1] succeeded in 0.01s: {'started': 1, 'rounds': 0, 'seasons': 0}",
        "Task tournaments.tasks.play_matches[1] succeeded in 0.01s: None"]
    assert len([line for line in said if "play_matches" in line]) == 3
    assert said[-1] == "Task tournaments.tasks.expire_deadlines[1] retry: lost"
