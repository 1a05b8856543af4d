"""A bot tournament on real Celery worker processes, one of which is killed with SIGKILL in
the middle: the tournament still completes, every match is recorded exactly once, and the
standings and ratings are those of an undisturbed run with the same seeds.

Needs a broker and a database the workers can reach: runs in the services leg of
`make test` (scripts/test-services), on PostgreSQL and Redis.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from tournaments.models import Match, RatingChange, Result, Seat, Tournament
from tournaments.services.matches import matches_reclaim
from tournaments.services.tournaments import tournament_start

from .helpers import bot_players, make_tournament, outcome, play_out

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL and PostgreSQL"),
]

ROOT = Path(__file__).resolve().parents[2]
LEASE = 3  # seconds: short, so the killed worker's match is played again soon


def database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def start_worker(name: str, queue: str) -> subprocess.Popen:
    env = dict(
        os.environ, DATABASE_URL=database_url(), MATCH_LEASE_SECONDS=str(LEASE), MATCH_QUEUE=queue,
        # Share every round between the workers, however short its matches, so both play.
        MATCH_SPLIT_SECONDS="0",
        DATABASE_CONN_MAX_AGE="0",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tournaments", "worker", "-Q", queue, "-n", name,
         "--concurrency=1", "--pool=prefork", "--loglevel=warning", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, start_new_session=True,  # its own process group: kill master and child at once
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def wait_for(workers: list[str], timeout: float = 60) -> None:
    from tournaments.celery import app

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answered = app.control.ping(destination=workers, timeout=1.0) or []
        if {name for reply in answered for name in reply} >= set(workers):
            return
        time.sleep(0.5)
    raise AssertionError(f"workers {workers} did not answer within {timeout}s")


def children(pid: int) -> list[int]:
    """The pool processes of a worker (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{pid}\n" in status:
                out.append(int(entry.name))
    return out


def kill_mid_match(worker: subprocess.Popen, tournament: Tournament, timeout: float = 60) -> list[int]:
    """SIGKILL the worker (master and pool) while it holds a match's lease; return the matches
    it held when it died, read after its death: a flush may commit between the look and the
    kill, and those matches are recorded, not lost."""
    host = socket.gethostname()
    owners = [f"{host}:{pid}" for pid in children(worker.pid)]
    held = Match.objects.filter(round__tournament=tournament, status=Match.Status.RUNNING, lease_owner__in=owners)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if held.exists():
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=20)
            return list(held.values_list("pk", flat=True))
    raise AssertionError("the worker was never seen playing a match")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("format", ["swiss", "round_robin"])  # a round at a time; rounds made ahead
def test_a_killed_worker_does_not_lose_or_double_a_match(settings, format):
    queue = f"resilience-{os.getpid()}"
    settings.MATCH_QUEUE = queue
    settings.MATCH_LEASE_SECONDS = LEASE
    players = bot_players(40)
    # 40 entrants at tables of 4: 10 tables a round, 20 rounds: 200 matches.
    tournament = make_tournament(players, slug="kill-test", ladder_slug="kill-ladder", seed=2024, format=format,
                                 format_config={"rounds": 20}, options={"hands": 2})
    names = [f"victim-{os.getpid()}@mazziere", f"survivor-{os.getpid()}@mazziere"]
    workers = [start_worker(name, queue) for name in names]
    try:
        wait_for(names)
        tournament_start(tournament=tournament)
        killed = None
        deadline = time.monotonic() + 300
        last_reclaim = time.monotonic()
        while time.monotonic() < deadline:
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.FINISHED:
                break
            finished = Match.objects.filter(round__tournament=tournament, status=Match.Status.FINISHED).count()
            if killed is None and finished >= 50:
                killed = kill_mid_match(workers[0], tournament)
            if time.monotonic() - last_reclaim > 2:
                matches_reclaim(stale_after=LEASE)  # what Celery beat does every RECLAIM_INTERVAL_SECONDS
                last_reclaim = time.monotonic()
            time.sleep(0.2)
        assert killed is not None, "the tournament ended before a worker could be killed"
        assert tournament.status == Tournament.Status.FINISHED, (
            f"not finished: {Match.objects.filter(round__tournament=tournament).exclude(status='finished').count()} "
            f"matches left; survivor stderr: {workers[1].stderr.read1(4000) if workers[1].poll() is not None else ''}"
        )
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)

    matches = Match.objects.filter(round__tournament=tournament)
    assert matches.count() == 200
    # What the dead worker held (its batch not yet recorded) was claimed again once its lease
    # ran out. (Nothing, only if the kill came just after the worker's last flush committed.)
    assert all(attempts >= 2 for attempts in Match.objects.filter(pk__in=killed).values_list("attempts", flat=True))
    assert Result.objects.filter(match__in=matches).count() == 200
    assert not Seat.objects.filter(match__in=matches, place__isnull=True).exists()
    # Ratings were applied one round at a time, each change exactly once, in one sequence.
    sequences = list(RatingChange.objects.filter(ladder=tournament.ladder).order_by("sequence").values_list("sequence", flat=True))
    assert sequences == list(range(1, 801))

    undisturbed = make_tournament(players, slug="calm-test", ladder_slug="calm-ladder", seed=2024, format=format,
                                  format_config={"rounds": 20}, options={"hands": 2})
    play_out(undisturbed)
    assert outcome(tournament) == outcome(undisturbed)
