"""The Celery wiring: tasks run eagerly in this process with nothing configured, and through
Redis in a separate worker process in scripts/test-services (where tests/tournaments/
test_workers.py plays whole tournaments on real workers)."""

import os

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_the_periodic_tick_runs_as_a_task_and_reports_what_it_did():
    from tournaments.tasks import tick

    result = tick.delay()
    assert result.get(timeout=60) == {"started": 0, "rounds": 0, "seasons": 0}  # nothing is due
    assert result.status == "SUCCESS"


@pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL and a worker")
def test_with_a_broker_a_separate_worker_process_runs_the_task():
    from tournaments.celery import app
    from tournaments.tasks import tick

    assert app.conf.task_always_eager is False
    result = tick.delay()
    result.get(timeout=60)
    # result_extended stores the name of the worker that ran the task; an eager run has none.
    assert result.worker
    workers = app.control.inspect(timeout=5).stats() or {}
    assert result.worker in workers
    assert workers[result.worker]["pid"] != os.getpid()


@pytest.mark.skipif(bool(os.environ.get("CELERY_BROKER_URL")), reason="eager mode only without a broker")
def test_without_a_broker_the_task_runs_eagerly_in_this_process():
    from celery.result import EagerResult

    from tournaments.tasks import tick

    assert isinstance(tick.delay(), EagerResult)
