"""Handing bot matches to the Celery workers once the transaction that made them commits.

Matches go out in batches, one task each (``play_matches``): a task's claim and its results
cost a few queries whatever its size, so short bot matches are cheap to run in bulk, and a
worker that knows its matches are short sends larger batches (``batch_size``). A round
is still spread over at least MATCH_BATCH_SPREAD tasks (when it has that many matches), so
that as many worker processes share it, unless the worker that made it has seen matches so
short that it would play the whole round in under MATCH_SPLIT_SECONDS: then it keeps it all.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterable, Iterator

from celery import current_app
from django.conf import settings
from django.db import transaction

PLAY_MATCHES = "tournaments.tasks.play_matches"  # the task that plays a batch of bot matches

_held: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("held_matches", default=None)
_kept: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("kept_matches", default=None)
_pace: contextvars.ContextVar[float | None] = contextvars.ContextVar("match_seconds", default=None)


def batches(ids: list[int], *, size: int, spread: int) -> list[list[int]]:
    """Split ``ids`` into consecutive batches of at most ``size``, and into at least
    ``spread`` batches when there are that many ids; sizes differ by one at most."""
    if not ids:
        return []
    count = max(math.ceil(len(ids) / max(1, size)), min(len(ids), max(1, spread)))
    base, extra = divmod(len(ids), count)
    out, start = [], 0
    for i in range(count):
        end = start + base + (1 if i < extra else 0)
        out.append(ids[start:end])
        start = end
    return out


def batch_size() -> int:
    """Matches per task: MATCH_BATCH_SIZE; or, sent by a worker that knows how long its matches
    take (it is closing rounds it played), as many as it plays in MATCH_BATCH_SECONDS, up to
    MATCH_BATCH_MAX. A batch's claim, flushes and round closes cost about the same whatever
    its size, so short matches go in large batches; long ones keep the small default, which
    shares them among the workers."""
    size = settings.MATCH_BATCH_SIZE
    pace = _pace.get()
    if pace:
        by_time = int(settings.MATCH_BATCH_SECONDS / pace)
        size = max(size, min(settings.MATCH_BATCH_MAX, by_time))
    return size


def dispatch_matches(match_ids: Iterable[int]) -> None:
    """Enqueue ``play_matches`` for the matches, in batches, after the current transaction
    commits (never before: a worker must find the rows). Inside :func:`held`, collect them
    instead; inside :func:`keep_one_batch`, collect the first batch."""
    ids = list(match_ids)
    if not ids:
        return
    held = _held.get()
    if held is not None:
        held.extend(ids)
        return

    queue = settings.MATCH_QUEUE
    kept = _kept.get()
    spread = settings.MATCH_BATCH_SPREAD
    pace = _pace.get()
    if kept is not None and pace is not None and pace * len(ids) < settings.MATCH_SPLIT_SECONDS:
        # The worker keeping a batch would play the whole round before another worker could
        # take a share and record it: splitting would only add claims, flushes and waits.
        spread = 1
    chunks = batches(ids, size=batch_size(), spread=spread)
    if kept is not None:
        kept.extend(chunks.pop(0))

    def send() -> None:
        # By name: services never import the tasks that call them (tournaments/tasks.py).
        play_matches = current_app.tasks[PLAY_MATCHES]
        for chunk in chunks:
            play_matches.apply_async((chunk,), queue=queue)

    transaction.on_commit(send)


@contextlib.contextmanager
def _collecting(var: contextvars.ContextVar[list[int] | None]) -> Iterator[list[int]]:
    bucket: list[int] = []
    token = var.set(bucket)
    try:
        yield bucket
    finally:
        var.reset(token)


@contextlib.contextmanager
def keep_one_batch(match_seconds: float | None = None) -> Iterator[list[int]]:
    """Inside this, the first batch of the matches services dispatch is collected instead of
    sent (the others go to the broker as usual): a worker that closes a round plays on with
    the next round's first batch, with no broker round trip and no idle gap.

    ``match_seconds``, the time a match has been taking this worker, lets it keep the whole
    next round when that would take less than MATCH_SPLIT_SECONDS."""
    token = _pace.set(match_seconds)
    try:
        with _collecting(_kept) as bucket:
            yield bucket
    finally:
        _pace.reset(token)


def held() -> contextlib.AbstractContextManager[list[int]]:
    """Collect the matches services would dispatch, for a caller that plays them itself
    (run_tournament in eager mode, which shows a progress bar and avoids nesting tasks)."""
    return _collecting(_held)
