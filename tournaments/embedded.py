"""The embedded worker: on the embedded defaults (no broker: CELERY_BROKER_URL unset), the
tasks a web request sends run in one background thread of the web process once the request's
transaction commits, so that the request answers at once (``POST .../start/`` answers 202
while the tournament plays), as it does with real workers. One thread: tasks run one after
another, in the order sent, as a single worker would run them.

It is on in web processes (tournaments/wsgi.py and asgi.py say so) unless the EMBEDDED_WORKER
setting says otherwise; elsewhere (commands, the tests, a Celery worker) tasks run as Celery's
eager mode runs them: at once, in the caller.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)

web_process = False  # set by the WSGI and ASGI entry points
_lock = threading.Condition()
_executor: ThreadPoolExecutor | None = None
_pending = 0  # tasks sent and not yet run


def active() -> bool:
    """Whether tasks sent now go to the background thread."""
    if settings.CELERY_BROKER_URL:
        return False
    chosen = getattr(settings, "EMBEDDED_WORKER", None)
    return web_process if chosen is None else bool(chosen)


def submit(task, args: tuple) -> Future:
    """Run ``task`` with ``args`` in the background thread (after those sent before)."""
    global _executor, _pending
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mazziere-embedded-worker")
        _pending += 1
        return _executor.submit(_run, task, args)


def _run(task, args: tuple) -> None:
    global _pending
    try:
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
