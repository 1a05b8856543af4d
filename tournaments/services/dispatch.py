"""Handing bot matches to the Celery workers: how to cut them into batches, and sending the
batches once the caller's transaction commits.

No service decides here what is sent: services that make matches return them (rounds.
Progress.to_play) and the caller at the top — a task, the worker's play loop, a request, a
command — sends them (:func:`send`), keeps a batch to play itself (:func:`split`), or plays
them all in its own process (play.tournament_play_out).

Matches go out in batches, one task each (``play_matches``): a task's claim and its results
cost a few queries whatever its size, so short bot matches are cheap to run in bulk. A
caller that knows how long its matches take (``pace``: a worker closing rounds it played)
sends larger batches (:func:`batch_size`). A round is still spread over at least
MATCH_BATCH_SPREAD tasks (when it has that many matches), so that as many worker processes
share it, unless the worker keeping a batch would play the whole round in under
MATCH_SPLIT_SECONDS: then it keeps it all.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass

from celery import current_app
from django.conf import settings
from django.db import transaction

from tournaments import embedded

log = logging.getLogger(__name__)

PLAY_MATCHES = "tournaments.tasks.play_matches"  # the task that plays a batch of bot matches
OPEN_ONLINE = "tournaments.tasks.open_online_matches"  # the task that opens online matches
MOVE_ONLINE = "tournaments.tasks.move_online_bots"  # the task that plays an online match's service turns
SEND_WEBHOOKS = "tournaments.tasks.send_webhooks"  # the task that POSTs webhook deliveries

# Each task's class of work, named by the setting that names its queue (settings.py): a batch
# of long matches, or a receiver that answers slowly, holds only the workers of its own queue;
# the clocks Celery beat sends every second never wait behind either.
QUEUE_SETTING = {
    PLAY_MATCHES: "MATCH_QUEUE",
    "tournaments.tasks.play_match": "MATCH_QUEUE",
    OPEN_ONLINE: "MATCH_QUEUE",
    MOVE_ONLINE: "MATCH_QUEUE",
    "tournaments.tasks.expire_deadlines": "CLOCK_QUEUE",
    "tournaments.tasks.reclaim_matches": "CLOCK_QUEUE",
    "tournaments.tasks.tick": "CLOCK_QUEUE",
    SEND_WEBHOOKS: "WEBHOOK_QUEUE",
    "tournaments.tasks.retry_webhooks": "WEBHOOK_QUEUE",
}


def queue(name: str) -> str:
    """The queue the task ``name`` goes to: its class of work's (QUEUE_SETTING), read from the
    settings when it is sent (a test or a command may change them)."""
    return getattr(settings, QUEUE_SETTING[name])


def route(name, args, kwargs, options, task=None, **kw) -> dict | None:
    """Celery's router (settings.CELERY_TASK_ROUTES): every task of ours, sent by a service, a
    task or Celery beat, goes to its class of work's queue (:func:`queue`); Celery's own go to
    its default queue. A queue named where a task is sent wins."""
    return {"queue": queue(name)} if name in QUEUE_SETTING else None


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


def batch_size(pace: float | None = None) -> int:
    """Matches per task: MATCH_BATCH_SIZE; or, when the caller knows ``pace`` (the seconds a
    match has been taking it), as many as it plays in MATCH_BATCH_SECONDS, up to
    MATCH_BATCH_MAX. A batch's claim, flushes and round closes cost about the same whatever its
    size, so short matches go in large batches; long ones keep the small default, which
    shares them among the workers."""
    size = settings.MATCH_BATCH_SIZE
    if pace:
        by_time = int(settings.MATCH_BATCH_SECONDS / pace)
        size = max(size, min(settings.MATCH_BATCH_MAX, by_time))
    return size


@dataclass(frozen=True)
class Split:
    """New matches cut into batches: one ``kept`` by the worker that made them, to play next,
    and the ``rest`` for the broker."""

    kept: list[int]
    rest: list[list[int]]


def split(match_ids: Iterable[int], *, pace: float | None = None, keep: bool = False) -> Split:
    """Cut matches into batches (:func:`batches`, sized by :func:`batch_size`). With ``keep``
    (a worker whose recording made them), the first batch is kept for the caller; a worker
    that would play them all in under MATCH_SPLIT_SECONDS at its ``pace`` keeps them all:
    splitting would only add claims, flushes and waits, as it would play the whole round
    before another worker could take a share and record it."""
    ids = list(match_ids)
    spread = settings.MATCH_BATCH_SPREAD
    if keep and pace is not None and pace * len(ids) < settings.MATCH_SPLIT_SECONDS:
        spread = 1
    chunks = batches(ids, size=batch_size(pace), spread=spread)
    if keep and chunks:
        return Split(kept=chunks[0], rest=chunks[1:])
    return Split(kept=[], rest=chunks)


def queued() -> bool:
    """Whether the tasks sent now wait in a queue for a worker (a broker's, or the embedded
    worker's thread), rather than run at once in the caller (eager): a long task then gives
    its worker back now and then, by sending itself again."""
    return bool(settings.CELERY_BROKER_URL) or embedded.active()


def send(match_ids: Iterable[int]) -> None:
    """Send bot matches to the workers, in default-size batches, once the current transaction
    commits (at once outside one): a worker must find the rows."""
    send_batches(split(match_ids).rest)


def send_progress(progress) -> None:
    """Send what a change made (a rounds.Progress): its bot matches to the workers to play, its
    online matches to be opened, and those whose bots are to move; once the current
    transaction commits."""
    send(progress.to_play)
    open_online(progress.to_open)
    move_online(progress.to_move)


def open_online(match_ids: Iterable[int]) -> None:
    """Have the workers open online matches (services.online.online_matches_open), once the
    current transaction commits."""
    ids = sorted(set(match_ids))
    if ids:
        transaction.on_commit(lambda: _send(OPEN_ONLINE, (ids,)))


def move_online(match_ids: Iterable[int]) -> None:
    """Have the workers play the service's turns of online matches (its bots': services.online.
    online_bots_move), one task per match, once the current transaction commits."""
    ids = sorted(set(match_ids))
    if ids:
        transaction.on_commit(lambda: _send_each(MOVE_ONLINE, [(match_id,) for match_id in ids]))


def send_webhooks(delivery_ids: list[int]) -> None:
    """Have the workers POST these webhook deliveries (services.webhooks.deliveries_send), once
    the current transaction commits (the beat retries whatever this misses)."""
    ids = sorted(delivery_ids)
    if ids:
        transaction.on_commit(lambda: _send(SEND_WEBHOOKS, (ids,)))


def send_batches(chunks: list[list[int]]) -> None:
    """Send batches as they are, one ``play_matches`` task each, once the current transaction
    commits (at once outside one)."""
    chunks = [list(chunk) for chunk in chunks if chunk]
    if not chunks:
        return
    transaction.on_commit(lambda: _send_each(PLAY_MATCHES, [(chunk,) for chunk in chunks]))


def _send_each(name: str, calls: list[tuple]) -> None:
    for args in calls:
        _send(name, args)


def _send(name: str, args: tuple) -> None:
    """Send the task ``name`` (by name: services never import the tasks that call them,
    tournaments/tasks.py) to the broker, or, on the embedded defaults in a web process, to the
    embedded worker's thread (tournaments.embedded).

    What is sent was decided by a transaction that has committed: a broker that does not take
    the message (Redis down) must not turn that into a failure of the request or task that
    committed it. The message is logged as lost, and periodic work finds what it carried again
    from the rows: matches not played (leases.matches_reclaim), online matches not opened and
    service turns not played (their watchdog deadlines: online.deadlines_expire), webhook
    deliveries due (webhooks.deliveries_send). Without a broker (eager) a task's error is the
    caller's, as ever."""
    task = current_app.tasks[name]
    if embedded.active():
        embedded.submit(task, args)
    elif not settings.CELERY_BROKER_URL:
        task.apply_async(args, queue=queue(name))  # eager: runs here, its errors are ours
    else:
        try:
            task.apply_async(args, queue=queue(name))
        except Exception:
            log.warning("the broker did not take %s%r: the periodic checks will find it again", name, args,
                        exc_info=True)
