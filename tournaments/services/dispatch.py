"""Handing bot matches to the Celery workers once the transaction that made them commits."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator

from django.conf import settings
from django.db import transaction

_held: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("held_matches", default=None)


def dispatch_matches(match_ids: Iterable[int]) -> None:
    """Enqueue ``play_match`` for each match after the current transaction commits (never
    before: a worker must find the rows). Inside :func:`held`, collect them instead."""
    ids = list(match_ids)
    if not ids:
        return
    held = _held.get()
    if held is not None:
        held.extend(ids)
        return

    queue = getattr(settings, "MATCH_QUEUE", "celery")

    def send() -> None:
        from tournaments import tasks

        for match_id in ids:
            tasks.play_match.apply_async((match_id,), queue=queue)

    transaction.on_commit(send)


@contextlib.contextmanager
def held() -> Iterator[list[int]]:
    """Collect the matches services would dispatch, for a caller that plays them itself
    (run_tournament in eager mode, which shows a progress bar and avoids nesting tasks)."""
    bucket: list[int] = []
    token = _held.set(bucket)
    try:
        yield bucket
    finally:
        _held.reset(token)
