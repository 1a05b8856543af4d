"""play_bot_match through Celery: eagerly in-process by default, through Redis and a separate
worker process in scripts/test-services. engine/ and bots/ are imported inside the tests so that
the rest of the suite still collects while they are being written."""

import json
import os

import pytest

pytestmark = pytest.mark.services

GAME = "sette_e_mezzo"
BOTS = ["random"] * 4
SEED = 7


def in_process() -> dict:
    """The same match, played directly in this process, as it comes back through JSON."""
    from tournaments import matchplay

    return json.loads(json.dumps(matchplay.play_bot_match(GAME, BOTS, SEED)))


def test_the_task_returns_the_match_the_same_call_plays_in_process():
    from tournaments.tasks import play_bot_match

    result = play_bot_match.delay(GAME, BOTS, seed=SEED)
    assert result.get(timeout=60) == in_process()
    assert result.status == "SUCCESS"


def test_a_sette_e_mezzo_match_moves_chips_between_seats_without_creating_any():
    from tournaments.tasks import play_bot_match

    outcome = play_bot_match.delay(GAME, BOTS, seed=SEED).get(timeout=60)
    assert len(outcome["scores"]) == len(outcome["places"]) == len(BOTS)
    assert sum(outcome["scores"]) == 0
    assert outcome["match"]["seed"] == SEED


@pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL and a worker")
def test_with_a_broker_a_separate_worker_process_plays_the_match():
    from tournaments.celery import app
    from tournaments.tasks import play_bot_match

    assert app.conf.task_always_eager is False
    result = play_bot_match.delay(GAME, BOTS, seed=SEED)
    result.get(timeout=60)
    # result_extended stores the name of the worker that ran the task; an eager run has none.
    assert result.worker
    workers = app.control.inspect(timeout=5).stats() or {}
    assert result.worker in workers
    assert workers[result.worker]["pid"] != os.getpid()


@pytest.mark.skipif(bool(os.environ.get("CELERY_BROKER_URL")), reason="eager mode only without a broker")
def test_without_a_broker_the_task_runs_eagerly_in_this_process():
    from celery.result import EagerResult

    from tournaments.tasks import play_bot_match

    assert isinstance(play_bot_match.delay(GAME, BOTS, seed=SEED), EagerResult)
