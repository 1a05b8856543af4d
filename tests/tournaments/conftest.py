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
