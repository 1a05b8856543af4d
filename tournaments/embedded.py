"""The embedded worker: on the embedded defaults (no broker: CELERY_BROKER_URL unset), the
tasks a web request sends run in one background thread of the web process once the request's
transaction commits, so that the request answers at once (``POST .../start/`` answers 202
while the tournament plays), as it does with real workers. One thread: tasks run one after
another, in the order sent, as a single worker would run them.

It is on in web processes (tournaments/wsgi.py and asgi.py say so) unless the EMBEDDED_WORKER
setting says otherwise; elsewhere (commands, the tests, a Celery worker) tasks run as Celery's
eager mode runs them: at once, in the caller.

Where it is on, the process also keeps the periodic work Celery beat sends in a deployment
(CELERY_BEAT_SCHEDULE: the online clocks' check every DEADLINE_CHECK_SECONDS, the reclaim of
lost matches, the schedule's tick, the webhooks' retries): a clock thread sends each task to the
same background thread at its interval, so a periodic task never runs beside another task, and
an online seat's time runs out on the embedded defaults as it does with beat.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)

web_process = False  # set by the WSGI and ASGI entry points
_lock = threading.Condition()
_executor: ThreadPoolExecutor | None = None
_pending = 0  # tasks sent and not yet run
_clock: threading.Thread | None = None
_clock_stop = threading.Event()


def active() -> bool:
    """Whether tasks sent now go to the background thread."""
    if settings.CELERY_BROKER_URL:
        return False
    chosen = getattr(settings, "EMBEDDED_WORKER", None)
    return web_process if chosen is None else bool(chosen)


def serve() -> None:
    """Say that this process serves web requests (tournaments/wsgi.py and asgi.py): the tasks its
    requests send run in the background thread, and, where that is on, the periodic work with
    them (:func:`start_clock`)."""
    global web_process
    web_process = True
    if active():
        start_clock()


def submit(task, args: tuple, quiet: bool = False) -> Future:
    """Run ``task`` with ``args`` in the background thread (after those sent before); ``quiet``:
    log only its failure (a periodic task: a line a second otherwise)."""
    global _executor, _pending
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mazziere-embedded-worker")
        future = _executor.submit(_run, task, args, quiet)
        _pending += 1
        return future


def _run(task, args: tuple, quiet: bool) -> None:
    global _pending
    try:
        if quiet:
            task(*args)
        else:
            task.apply(args=args, throw=True)
    except Exception:  # a task's failure is logged, as a worker logs it; the thread goes on
        log.exception("embedded worker: task %s%r failed", task.name, args)
    finally:
        connections.close_all()  # this thread's connections, as a worker closes them after a task
        with _lock:
            _pending -= 1
            _lock.notify_all()


def drain(timeout: float = 60.0) -> bool:
    """Wait until every task sent so far, and those they sent, has run (tests, shutdown);
    False if some were still running after ``timeout`` seconds."""
    with _lock:
        return _lock.wait_for(lambda: _pending == 0, timeout=timeout)


def beat_schedule() -> dict[str, tuple[object, float]]:
    """The periodic work beat runs in a deployment (CELERY_BEAT_SCHEDULE): each entry's task and
    its interval in seconds."""
    from celery import current_app

    return {name: (current_app.tasks[entry["task"]], float(entry["schedule"]))
            for name, entry in settings.CELERY_BEAT_SCHEDULE.items()}


def start_clock(schedule: dict[str, tuple[object, float]] | None = None) -> bool:
    """Start sending the periodic work (``schedule``: name -> (task, seconds); the beat schedule
    by default) to the background thread, once per process: False if the clock already runs.
    Each task is sent at once, then every interval after it was sent; one not yet run when its
    time comes again is not sent twice (a long task ahead of it delays it, as a busy worker
    would)."""
    global _clock
    with _lock:
        if _clock is not None and _clock.is_alive():
            return False
        _clock_stop.clear()
        _clock = threading.Thread(target=_keep_time, args=(schedule or beat_schedule(),),
                                  name="mazziere-embedded-clock", daemon=True)
        _clock.start()
        return True


def stop_clock(timeout: float = 10.0) -> None:
    """Stop sending periodic work (the tasks already sent still run); at the process's exit, and
    at the ASGI server's shutdown."""
    global _clock
    _clock_stop.set()
    clock, _clock = _clock, None
    if clock is not None and clock is not threading.current_thread():
        clock.join(timeout)


atexit.register(stop_clock)


def _keep_time(schedule: dict[str, tuple[object, float]]) -> None:
    due = dict.fromkeys(schedule, time.monotonic())
    sent: dict[str, Future] = {}
    while not _clock_stop.is_set():
        now = time.monotonic()
        for name, (task, seconds) in schedule.items():
            if now < due[name]:
                continue
            due[name] = now + seconds
            if name in sent and not sent[name].done():
                continue  # still waiting its turn: once is enough
            try:
                sent[name] = submit(task, (), quiet=True)
            except RuntimeError:  # the interpreter is shutting down: the worker takes no more
                return
        _clock_stop.wait(max(0.0, min(due.values()) - time.monotonic()))
