"""Celery tasks: short wrappers around services, safe to run twice."""

from __future__ import annotations

import os
import signal
import socket
import tempfile
import threading
from pathlib import Path

from celery import shared_task
from celery.signals import task_postrun, task_prerun, worker_init, worker_process_init, worker_shutdown, worker_shutting_down
from django.conf import settings

from tournaments.services import dispatch
from tournaments.services.clocks import TASK_SECONDS
from tournaments.services.leases import ClaimStatus, matches_reclaim
from tournaments.services.online import deadlines_expire, online_bots_move, online_matches_open
from tournaments.services.play import match_play, match_play_batch
from tournaments.services.schedule import schedule_tick
from tournaments.services.webhooks import deliveries_send


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# A warm shutdown (SIGTERM to the worker's main process, as a container's stop sends it)
# reaches the main process only; its pool processes, each in the middle of a batch, learn of it
# from a flag file the main process leaves, and stop after the match in hand (match_play_batch's
# should_stop): recorded, the rest handed back, the process gone within seconds instead of
# playing on through its batch. SIGTERM to the whole process group (systemd's default,
# supervisord's stopasgroup) also reaches the pool processes, which Celery leaves to die of it
# at once, their batches left leased: each takes it as the same warm stop instead
# (_stop_warmly), and dies of a second one, or of one that finds it between tasks.

def _stop_flag(pid: int) -> Path:
    return Path(tempfile.gettempdir()) / f"mazziere-worker-{pid}.stopping"


@worker_init.connect
def _forget_stale_stop_flag(**_) -> None:
    _stop_flag(os.getpid()).unlink(missing_ok=True)  # a process that had this pid before


@worker_shutting_down.connect
def _leave_stop_flag(**_) -> None:
    _stop_flag(os.getpid()).touch()


@worker_shutdown.connect
def _remove_stop_flag(**_) -> None:
    _stop_flag(os.getpid()).unlink(missing_ok=True)


_told_to_stop = False  # this pool process had a SIGTERM during its task
_on_sigterm_between_tasks = None  # the pool's own handler (billiard's: exit), outside tasks


def _stop_warmly(signum, frame) -> None:
    """A SIGTERM during a task: stop after the match in hand; a second one: the pool's way."""
    global _told_to_stop
    if _told_to_stop:
        _pool_sigterm(signum, frame)
    _told_to_stop = True


def _pool_sigterm(signum, frame) -> None:
    handler = _on_sigterm_between_tasks
    signal.signal(signal.SIGTERM, handler if handler is not None else signal.SIG_DFL)
    if callable(handler):
        handler(signum, frame)
    else:
        os.kill(os.getpid(), signal.SIGTERM)


_pool_process = False  # a prefork pool process (not the main process, eager mode or a test)


@worker_process_init.connect
def _in_pool_process(**_) -> None:
    global _pool_process
    _pool_process = True


@task_prerun.connect
def _task_starts(**_) -> None:
    # Set for each task: the pool sets its own handler after a process starts, and keeps it
    # between tasks (a SIGTERM then ends the process at once, with nothing in hand).
    global _told_to_stop, _on_sigterm_between_tasks
    if not _pool_process or threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGTERM)
    if current is not _stop_warmly:
        _on_sigterm_between_tasks = current
        signal.signal(signal.SIGTERM, _stop_warmly)
    _told_to_stop = False  # a SIGTERM to this process alone stopped its last task; it goes on


@task_postrun.connect
def _task_ends(**_) -> None:
    if _pool_process and threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGTERM) is _stop_warmly:
        signal.signal(signal.SIGTERM, _on_sigterm_between_tasks or signal.SIG_DFL)


def worker_stopping() -> bool:
    """Whether the worker this task runs in was told to shut down (its main process is this
    one, with the solo or threads pool, or the parent, with the prefork pool), or this pool
    process was (SIGTERM to the worker's process group)."""
    return _told_to_stop or _stop_flag(os.getppid()).exists() or _stop_flag(os.getpid()).exists()


@shared_task(acks_late=True, ignore_result=True)
def play_matches(match_ids: list[int]) -> None:
    """Play a batch of a tournament's bot matches and record them (services.play.
    match_play_batch). Matches another live worker holds are handed to ``play_match``, which
    waits for that lease to run out; finished ones are skipped, so running this twice is safe."""
    claims = match_play_batch(match_ids=match_ids, owner=_worker_name(), should_stop=worker_stopping)
    for match_id, claim in claims.items():
        if claim.status == ClaimStatus.BUSY:
            play_match.apply_async(
                (match_id,), countdown=max(1.0, claim.retry_in + 0.5), queue=settings.MATCH_QUEUE
            )


# The results of the match tasks live in the database; nobody reads them from the backend.
@shared_task(bind=True, acks_late=True, max_retries=None, ignore_result=True)
def play_match(self, match_id: int) -> str:
    """Play a tournament's bot match and record it. Another worker holding the lease makes
    this task wait for the lease to run out, then try again (its worker may have died)."""
    claim = match_play(match_id=match_id, owner=_worker_name())
    if claim.status == ClaimStatus.BUSY:
        raise self.retry(countdown=max(1.0, claim.retry_in + 0.5))
    return claim.status


@shared_task(acks_late=True, ignore_result=True)
def open_online_matches(match_ids: list[int]) -> None:
    """Open online matches whose round has come (services.online): the seats the service plays
    move up to the first online turn. Safe to run twice: an open match is left as it is."""
    dispatch.send_progress(online_matches_open(match_ids=match_ids))


@shared_task(acks_late=True, ignore_result=True)
def move_online_bots(match_id: int) -> None:
    """Play an online match's service turns (its built-in and external bots, the fallback bots
    of forfeited seats) while it is theirs, or tell its HTTP bots it is over (services.online.
    online_bots_move); a worker gives itself back after TASK_SECONDS, the match sent again.
    Safe to run twice: what a bot chose is applied only where the match still stands as it was
    when the bot was asked."""
    seconds = TASK_SECONDS if dispatch.queued() else None
    dispatch.send_progress(online_bots_move(match_id=match_id, seconds=seconds))


@shared_task(acks_late=True, ignore_result=True)
def send_webhooks(delivery_ids: list[int]) -> None:
    """POST webhook deliveries just written (services.webhooks), on the webhooks queue
    (WEBHOOK_QUEUE), several at once. Safe to run twice: each delivery is claimed just before
    its POST, and one sent is not due again."""
    deliveries_send(delivery_ids=delivery_ids)


@shared_task(acks_late=True, ignore_result=True)
def retry_webhooks() -> None:
    """Periodic (Celery beat, every WEBHOOK_RETRY_SECONDS; the webhooks queue): send the webhook
    deliveries due: the retries, failing receivers' new ones, any whose worker died."""
    deliveries_send()


@shared_task(acks_late=True, ignore_result=True)
def expire_deadlines() -> None:
    """Periodic (Celery beat, every DEADLINE_CHECK_SECONDS): apply the timeout policy to online
    seats whose time ran out (services.online.deadlines_expire); applied once per deadline."""
    dispatch.send_progress(deadlines_expire())


@shared_task(acks_late=True)
def reclaim_matches() -> list[int]:
    """Periodic (Celery beat): hand back matches whose worker died, resend lost ones."""
    ids = matches_reclaim()
    dispatch.send(ids)
    return ids


@shared_task(acks_late=True)
def tick() -> dict:
    """Periodic (Celery beat): start tournaments at their hour, open rounds of periodic
    tournaments (league divisions) when due, end finished seasons; their bot matches go to
    the workers."""
    ticked = schedule_tick()
    dispatch.send_progress(ticked.progress)
    return ticked.counts()
