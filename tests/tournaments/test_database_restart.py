"""``manage.py run_tournament`` survives its database restarting (issue 29): PostgreSQL restarted
under it, playing here (eager) and following the workers (a broker), the command finishes the
tournament by itself, every match recorded once.

The test's own PostgreSQL cluster (initdb in a temporary folder, on a free port), so that
restarting it disturbs no other test: the machine's binaries, run as the ``postgres`` user.
Services leg (scripts/test-services): it needs those binaries and, to follow workers, Redis.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A PostgreSQL cluster of the test's own, run as the ``postgres`` user."""

    def __init__(self) -> None:
        self.bin = BINARIES[-1]
        self.home = tempfile.mkdtemp(prefix="mazziere-pg-")
        self.data = os.path.join(self.home, "data")
        self.port = free_port()
        shutil.chown(self.home, "postgres", "postgres")
        self._as_postgres(f"{self.bin}/initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")

    def _as_postgres(self, *command: str) -> None:
        prefix = [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._as_postgres(f"{self.bin}/pg_ctl", "-D", self.data, "-w", "-l", os.path.join(self.home, "log"),
                          "-o", f"-p {self.port} -k {self.home} -c fsync=off -c full_page_writes=off", "start")

    def restart(self, mode: str) -> None:
        """Stop (``fast``: sessions ended; ``immediate``: the server killed, recovery at start)
        and start again."""
        self._as_postgres(f"{self.bin}/pg_ctl", "-D", self.data, "-w", "-m", mode, "stop")
        time.sleep(1.0)  # gone for a moment, as a restart is
        self.start()

    def stop(self) -> None:
        self._as_postgres(f"{self.bin}/pg_ctl", "-D", self.data, "-w", "-m", "immediate", "stop")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def query(self, sql: str):
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             connect_timeout=3) as conn:
            return conn.execute(sql).fetchall()


@pytest.fixture
def cluster():
    if not BINARIES or not shutil.which("runuser") and os.geteuid() == 0:
        pytest.skip("PostgreSQL's binaries (initdb, pg_ctl) are not on this machine")
    made = Cluster()
    made.start()
    try:
        yield made
    finally:
        try:
            made.stop()
        finally:
            shutil.rmtree(made.home, ignore_errors=True)


def environment(cluster: Cluster, **extra: str) -> dict:
    env = {key: value for key, value in os.environ.items()
           if key not in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL", "DATABASE_CONN_MAX_AGE")}
    # Matches recorded a few at a time (not the whole event in one flush on an idle machine, when
    # it plays in about a second), so that the restart falls in the middle of it.
    return {**env, "DATABASE_URL": cluster.url, "PYTHONPATH": str(ROOT), "MATCH_FLUSH_SECONDS": "0.1", **extra}


def manage(env: dict, *args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "manage.py", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kwargs)


def recorded(cluster: Cluster, slug: str) -> tuple[int, int, str]:
    """(matches finished, matches, the tournament's status), or (-1, -1, "") while the server is
    down or the tournament not made yet."""
    try:
        rows = cluster.query(
            "SELECT count(*) FILTER (WHERE m.status = 'finished'), count(*), t.status FROM tournaments_match m "
            "JOIN tournaments_round r ON r.id = m.round_id JOIN tournaments_tournament t ON t.id = r.tournament_id "
            f"WHERE t.slug = '{slug}' GROUP BY t.status")
    except psycopg.Error:
        return -1, -1, ""
    return rows[0] if rows else (-1, -1, "")


def run_through_a_restart(cluster: Cluster, env: dict, slug: str, mode: str, workers=()) -> str:
    """Run an 18-player Stoppa round robin with run_tournament; restart the database once a few
    of its matches are recorded; return the command's output once it has finished by itself."""
    assert manage(env, "migrate", "--noinput").wait(timeout=300) == 0
    command = manage(env, "run_tournament", "stoppa", "--bots", "random:9", "heuristic:9", "--format",
                     "round_robin", "--table-size", "3", "--option", "hands=30", "--slug", slug, "--timeout", "240")
    try:
        deadline = time.monotonic() + 120
        while (done := recorded(cluster, slug))[0] < 3:
            assert command.poll() is None, command.stdout.read()
            assert time.monotonic() < deadline, "no match recorded in 2 minutes"
            time.sleep(0.05)
        assert done[0] < done[1], "it finished before the restart: make it longer"
        cluster.restart(mode)
        output, _ = command.communicate(timeout=300)
    finally:
        if command.poll() is None:
            command.kill()
    assert command.returncode == 0, output
    finished, total, status = recorded(cluster, slug)
    assert status == "finished" and finished == total
    # Every match recorded once: one result a match, each seat scored.
    assert cluster.query("SELECT count(*) FROM tournaments_result")[0][0] == total
    assert "the database went away" in output
    return output


def test_playing_here_the_command_finishes_through_a_database_restart(cluster):
    output = run_through_a_restart(cluster, environment(cluster), "restart-here", "immediate")
    assert "Standings" in output or "standings" in output.lower()


def test_following_the_workers_the_command_finishes_through_a_database_restart(cluster, broker_configured):
    if not broker_configured:
        pytest.skip("a broker: scripts/test-services")
    queue = f"restart-{os.getpid()}"
    env = environment(cluster, CELERY_BROKER_URL=os.environ["CELERY_BROKER_URL"], MATCH_QUEUE=queue,
                      MATCH_LEASE_SECONDS="4", DATABASE_CONN_MAX_AGE="0")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tournaments", "worker", "-Q", queue, "-n", f"{queue}@%h",
         "--concurrency=1", "--pool=prefork", "--loglevel=warning", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run_through_a_restart(cluster, env, "restart-follow", "fast")
    finally:
        os.killpg(worker.pid, 9)
        worker.wait(timeout=30)
