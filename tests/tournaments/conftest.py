"""Fixtures of the tournaments tests."""

from __future__ import annotations

import pytest
from celery import current_app

from tournaments.services import dispatch


@pytest.fixture
def sent(monkeypatch) -> list[list[int]]:
    """The batches of bot matches sent to the workers (the play_matches task's messages), in
    the order sent, instead of sending them. Messages go once the transaction commits: a test
    runs the commit hooks with django_capture_on_commit_callbacks(execute=True)."""
    batches: list[list[int]] = []
    task = current_app.tasks[dispatch.PLAY_MATCHES]
    monkeypatch.setattr(task, "apply_async", lambda args, **kwargs: batches.append(list(args[0])))
    return batches


@pytest.fixture
def service_turns(monkeypatch) -> list[int]:
    """Online matches' service turns (their bots', services.online.online_bots_move) played
    here, at once, each time a change sends a match to the workers (Progress.to_move), as a
    worker plays them once the change commits: a test's transaction never commits, and a worker
    process would not see its rows. Returns the matches sent, in order."""
    moved: list[int] = []
    task = current_app.tasks[dispatch.MOVE_ONLINE]

    def move_here(match_ids):
        for match_id in sorted(set(match_ids)):
            moved.append(match_id)
            task.apply(args=(match_id,), throw=True)

    monkeypatch.setattr(dispatch, "move_online", move_here)
    return moved
