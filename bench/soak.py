"""The self-healing soak (issue 29): the same tournaments played twice through real processes,
once undisturbed and once under a seeded fault every 30-60 s, and the two compared bit for bit.

    python bench/soak.py [--scale 1.0] [--hands 8] [--seed 29] [--interval 30,60] [--parallel 2]
                         [--timeout 7200] [--keep] [--lease-seconds S] [--reclaim-seconds S]

Everything runs here and is thrown away at the end: its own PostgreSQL cluster (initdb into a
temporary folder, a free port, run as the ``postgres`` user, as tests/tournaments/
test_database_restart.py does) and its own ``redis-server`` (a free port, ``--save ''
--appendonly no``: nothing survives a kill), so that both may be killed and restarted freely;
the machine's shared servers are never touched. On them, as docker/compose.yaml runs the
service: two Celery workers (``-Q celery,clocks,webhooks --concurrency 2``, each in its own
process group), Celery beat (compose's DatabaseScheduler; ``--scheduler default`` for beat's
own file) and, for each tournament, ``manage.py run_tournament --resume SLUG`` following the
workers (``--parallel`` tournaments at a time). The database is migrated with ``manage.py
migrate``; the tournaments are made here, not started (run_tournament starts them).

The set: eight tournaments of built-in bots (20 random and 20 heuristic), a Swiss and a round
robin of each game, 800 matches each at ``--scale 1`` (6,400), ``--hands`` setting their length
(Stoppa's hands, 5 x as many Sette e mezzo hands, Spacca il mazzo's games; Piazza's is fixed).
The clean run plays them as ``clean-*``, then the faulted run the same tournaments (same seeds,
players, options) as ``fault-*`` in the same database, each on a ladder of its own.

During the faulted run, ``--interval`` seconds apart (a random.Random(--seed) chooses both
when and which: every kind once in a shuffled cycle, then again), one of these faults, each
followed by what a supervisor does (as compose's ``restart: unless-stopped``, no person):

* worker_child_kill    SIGKILL of a worker's pool process (one holding a lease when there is
                       one); Celery's main process forks another
* worker_kill          SIGKILL of a whole worker (its process group); started again 3 s later
* worker_kill_thrice   a worker killed three times in a row as soon as it holds a lease
                       (right after a claim), started again 2 s after each death
* worker_stop          SIGSTOP of a worker's process group for the lease's time and a reclaim
                       interval past it (MATCH_LEASE_SECONDS + RECLAIM_INTERVAL_SECONDS + 3 s,
                       read from the settings these processes get), then SIGCONT
* worker_term          SIGTERM to a worker's process group (a warm stop); killed if it has not
                       exited within compose's 60 s grace, started again once gone
* beat_kill            SIGKILL of beat; started again 3 s later
* postgres_fast        ``pg_ctl stop -m fast`` then start (1 s between)
* postgres_immediate   ``pg_ctl stop -m immediate`` (a crash: recovery at start) then start
* redis_kill           SIGKILL of redis-server (every queued message lost); started again,
                       empty, 2 s later
* runner_kill          SIGKILL of a run_tournament; started again with --resume 2 s later

A process that exits by itself is started again 3 s later too (run_tournament with
``--resume``), and counted as an unplanned exit. Nothing else is done: no match is retried by
hand, no message sent by the script.

At the end it compares each tournament's two runs: the schedule, every match (seed, deal,
notes, status, replay record, result, each seat's score, place, forfeit and decisions), the
standings with their tie-breaks, the ratings and the ledger in the order applied. It prints
the matches and wall time of each run, the faults by kind, the longest stall after a fault
(from the fault until the next result was recorded), the longest gap between two results in
each run, matches interrupted and given up, tasks that raised and deadlocks (from the logs),
unplanned exits, and whether the runs are identical. Exit status 1 if they are not, or if either run did not finish within
``--timeout`` seconds. The work folder (every process's log) is removed unless the soak
failed or ``--keep`` is given.

``--lease-seconds``/``--reclaim-seconds`` set MATCH_LEASE_SECONDS/RECLAIM_INTERVAL_SECONDS for
every process; unset, the settings' defaults stand. Needs PostgreSQL's binaries (initdb,
pg_ctl; run as ``postgres`` through runuser when root) and redis-server. ``--scale 0.05
--interval 10,20`` is a short run (320 matches a run, a few faults).
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = socket.gethostname()
FAULTS = ["worker_child_kill", "worker_kill", "worker_kill_thrice", "worker_stop", "worker_term", "beat_kill",
          "postgres_fast", "postgres_immediate", "redis_kill", "runner_kill"]
RESTART_AFTER = 3.0  # seconds before a supervisor starts again a process that exited by itself
TERM_GRACE = 60.0  # compose's stop_grace_period for the worker

# (game, format, seats, options(hands)); 40 entrants: 10 tables of 4 (80 rounds) or 20 of 2
# (40 rounds) make 800 matches at --scale 1.
SET = [
    ("stoppa", "swiss", 4, lambda h: {"hands": h}),
    ("stoppa", "round_robin", 4, lambda h: {"hands": h}),
    ("sette_e_mezzo", "swiss", 4, lambda h: {"hands": 5 * h}),
    ("sette_e_mezzo", "round_robin", 4, lambda h: {"hands": 5 * h}),
    ("spacca_il_mazzo", "swiss", 2, lambda h: {"games": h}),
    ("spacca_il_mazzo", "round_robin", 4, lambda h: {"games": h}),
    ("piazza", "swiss", 4, lambda h: {}),
    ("piazza", "round_robin", 4, lambda h: {}),
]
ENTRANTS = [("random", 20), ("heuristic", 20)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log(started: float, text: str) -> None:
    print(f"[{time.monotonic() - started:7.1f}s] {text}", flush=True)


# --- the servers -----------------------------------------------------------------------------------

class Cluster:
    """A PostgreSQL cluster of the soak's own, run as the ``postgres`` user."""

    def __init__(self, home: Path) -> None:
        binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not binaries:
            raise SystemExit("PostgreSQL's binaries (initdb, pg_ctl) are not on this machine")
        self.bin = binaries[-1]
        self.home = home / "pg"
        self.home.mkdir()
        self.data = self.home / "data"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.home, "postgres", "postgres")
        self._pg(f"{self.bin}/initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")

    def _pg(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=180)

    def start(self) -> None:
        self._pg(f"{self.bin}/pg_ctl", "-D", str(self.data), "-w", "-l", str(self.home / "log"),
                 "-o", f"-p {self.port} -k {self.home} -c fsync=off -c full_page_writes=off -c max_connections=200",
                 "start")

    def stop(self, mode: str) -> None:
        self._pg(f"{self.bin}/pg_ctl", "-D", str(self.data), "-w", "-m", mode, "stop")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/soak"

    def query(self, sql: str, args: tuple = ()) -> list | None:
        """Rows, or None while the server does not answer."""
        try:
            with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="soak",
                                 connect_timeout=3) as conn:
                return conn.execute(sql, args).fetchall()
        except psycopg.Error:
            return None


class Proc:
    """A supervised process in its own process group (session), its output in a log file."""

    def __init__(self, name: str, argv: list[str], env: dict, logs: Path) -> None:
        self.name, self.argv, self.env, self.logs = name, argv, env, logs
        self.popen: subprocess.Popen | None = None
        self.held = False  # a fault is handling it: the supervisor leaves it alone
        self.restart_at: float | None = None
        self.starts = 0

    def start(self, argv: list[str] | None = None) -> None:
        if argv is not None:
            self.argv = argv
        self.starts += 1
        out = open(self.logs / f"{self.name}.log", "ab")
        out.write(f"\n=== start {self.starts}: {' '.join(self.argv)}\n".encode())
        out.flush()
        self.popen = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()
        self.restart_at = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float) -> bool:
        try:
            self.popen.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def end(self) -> None:
        if self.popen is None:
            return
        if self.alive():
            self.signal_group(signal.SIGCONT)
            self.signal_group(signal.SIGTERM)
            if not self.wait(20):
                self.signal_group(signal.SIGKILL)
                self.wait(20)
        else:
            self.signal_group(signal.SIGKILL)  # anything its group left behind


def children(pid: int) -> list[int]:
    """A process's children (Linux /proc): a Celery worker's pool processes."""
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


# --- the soak -----------------------------------------------------------------------------------

class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.started = time.monotonic()
        self.home = Path(tempfile.mkdtemp(prefix="mazziere-soak-"))
        os.chmod(self.home, 0o755)
        self.logs = self.home / "logs"
        self.logs.mkdir()
        self.cluster = Cluster(self.home)
        self.redis_port = free_port()
        self.rng = random.Random(args.seed)
        self.faults: list[tuple[float, str, str]] = []  # (time.time() at the fault, kind, what)
        self.unplanned: Counter = Counter()
        self.fault_thread: threading.Thread | None = None
        self.procs: dict[str, Proc] = {}
        self.runners: dict[str, Proc] = {}
        self.term_seconds: list[float] = []
        self.ended = False

    def say(self, text: str) -> None:
        log(self.started, text)

    # --- environment and processes ---

    def environment(self) -> dict:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("CELERY_", "DATABASE_", "CACHE_", "EVENTS_", "MATCH_", "RECLAIM_"))}
        env.update({
            "DJANGO_SETTINGS_MODULE": "tournaments.settings", "PYTHONPATH": str(ROOT),
            "DATABASE_URL": self.cluster.url, "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "DEBUG": "false", "SECRET_KEY": "soak-only-not-secret", "EMBEDDED_WORKER": "false",
            # As docker/compose.yaml: a pool of connections per process; the rounds spread over
            # the 2 x 2 worker processes.
            "DATABASE_POOL": str(self.args.database_pool), "MATCH_BATCH_SPREAD": "4", "LOG_LEVEL": "INFO",
        })
        if self.args.database_pool == 0:
            del env["DATABASE_POOL"]
        if self.args.lease_seconds is not None:
            env["MATCH_LEASE_SECONDS"] = str(self.args.lease_seconds)
        if self.args.reclaim_seconds is not None:
            env["RECLAIM_INTERVAL_SECONDS"] = str(self.args.reclaim_seconds)
        return env

    def start_servers(self) -> None:
        self.cluster.start()
        with psycopg.connect(host="127.0.0.1", port=self.cluster.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute("CREATE DATABASE soak")
        redis = Proc("redis", ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(self.home)], os.environ.copy(), self.logs)
        self.procs["redis"] = redis
        redis.start()
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1):
                    break
            except OSError:
                time.sleep(0.1)

    def start_service(self) -> None:
        env = self.environment()
        celery = [sys.executable, "-m", "celery", "-A", "tournaments"]
        for n in (1, 2):
            name = f"worker{n}"
            self.procs[name] = Proc(name, [*celery, "worker", "-Q", "celery,clocks,webhooks", "--concurrency", "2",
                                           "-n", f"soak{n}@%h", "--loglevel=info"], env, self.logs)
        beat = [*celery, "beat", "--loglevel=info"]
        if self.args.scheduler == "database":
            beat += ["--scheduler", "django_celery_beat.schedulers:DatabaseScheduler"]
        else:
            beat += ["--scheduler", "celery.beat:PersistentScheduler", "-s", str(self.home / "celerybeat-schedule")]
        self.procs["beat"] = Proc("beat", beat, env, self.logs)
        for name in ("worker1", "worker2", "beat"):
            self.procs[name].start()

    def runner_argv(self, slug: str) -> list[str]:
        return [sys.executable, "manage.py", "run_tournament", "--resume", slug, "--timeout", str(self.args.timeout)]

    def supervise(self) -> None:
        """As compose's restart policy: a process that exited by itself is started again."""
        now = time.monotonic()
        for proc in [*self.procs.values(), *self.runners.values()]:
            if proc.held or proc.alive() or proc.popen is None:
                continue
            if proc.restart_at is None:
                if proc.name.startswith("run-") and proc.popen.returncode == 0:
                    continue  # finished: the run loop takes it off
                self.unplanned[proc.name.split("-")[0] if proc.name.startswith("run-") else proc.name] += 1
                self.say(f"{proc.name} exited by itself (status {proc.popen.returncode}): starting it again "
                         f"in {RESTART_AFTER:g} s")
                proc.restart_at = now + RESTART_AFTER
            elif now >= proc.restart_at:
                proc.start()

    # --- setup: the database and the tournaments ---

    def migrate_and_make(self) -> list[tuple[str, str]]:
        """Migrate, make both runs' tournaments (not started); return their (clean, fault) slugs."""
        env = self.environment()
        done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"migrate failed:\n{done.stdout}\n{done.stderr}")
        os.environ.update(env)
        # This process reads and writes between the faults, with a connection it closes: a pool
        # would keep connections a restart of the server has ended.
        os.environ.pop("DATABASE_POOL", None)
        import django

        django.setup()
        from django.conf import settings
        from django.db import connections

        from tournaments.services.ladders import ladder_create
        from tournaments.services.players import builtin_bot_get_or_create
        from tournaments.services.tournaments import entry_add, tournament_create

        self.lease = settings.MATCH_LEASE_SECONDS
        self.reclaim = settings.RECLAIM_INTERVAL_SECONDS
        players = [builtin_bot_get_or_create(bot=bot, name=f"soak-{bot}-{i}")
                   for bot, count in ENTRANTS for i in range(1, count + 1)]
        pairs = []
        self.expected = 0
        for number, (game, fmt, seats, options) in enumerate(SET, 1):
            entrants = len(players)
            rounds = max(1, round((80 if seats == 4 else 40) * self.args.scale))
            self.expected += rounds * entrants // seats
            slugs = []
            for run in ("clean", "fault"):
                slug = f"{run}-{number}-{game.replace('_', '-')}-{fmt.replace('_', '-')}"
                tournament = tournament_create(
                    name=slug, slug=slug, game=game, table_size=seats, format=fmt,
                    format_config={"rounds": rounds}, options=options(self.args.hands),
                    seed=self.args.seed * 1000 + number, ladder=ladder_create(slug=slug, name=slug, game=game))
                for player in players:
                    entry_add(tournament=tournament, player=player)
                slugs.append(slug)
            pairs.append(tuple(slugs))
        connections.close_all()
        return pairs

    # --- playing ---

    def status(self, slug: str) -> str | None:
        rows = self.cluster.query("SELECT status FROM tournaments_tournament WHERE slug = %s", (slug,))
        return rows[0][0] if rows else None

    def play(self, run: str, slugs: list[str], faults: bool) -> tuple[float, bool]:
        """Play the tournaments to the end, ``--parallel`` at a time; (seconds, finished)."""
        began = time.monotonic()
        deadline = began + self.args.timeout
        waiting = list(slugs)
        low, high = self.args.interval
        next_fault = began + self.rng.uniform(low, high) if faults else float("inf")
        cycle: list[str] = []
        while waiting or self.runners:
            while waiting and len(self.runners) < self.args.parallel:
                slug = waiting.pop(0)
                proc = Proc(f"run-{slug}", self.runner_argv(slug), self.environment(), self.logs)
                self.runners[slug] = proc
                proc.start()
            self.supervise()
            for slug, proc in list(self.runners.items()):
                if not proc.held and not proc.alive() and proc.popen.returncode == 0:
                    if self.status(slug) == "finished":
                        del self.runners[slug]
                        self.say(f"{slug} finished")
                    elif proc.restart_at is None:
                        self.unplanned["run"] += 1
                        self.say(f"{proc.name} exited 0 with {slug} unfinished: starting it again")
                        proc.restart_at = time.monotonic() + RESTART_AFTER
            now = time.monotonic()
            if now >= next_fault and (self.fault_thread is None or not self.fault_thread.is_alive()):
                if not cycle:
                    cycle = FAULTS[:]
                    self.rng.shuffle(cycle)
                kind = cycle.pop()
                self.fault_thread = threading.Thread(target=self.fault, args=(kind,), daemon=True)
                self.fault_thread.start()
                next_fault = now + self.rng.uniform(low, high)
            if now > deadline:
                self.say(f"{run}: not finished within {self.args.timeout:g} s")
                return now - began, False
            time.sleep(0.2)
        if self.fault_thread is not None:
            self.fault_thread.join()
        self.supervise()
        return time.monotonic() - began, True

    # --- the faults ---

    def note(self, kind: str, what: str) -> None:
        self.faults.append((time.time(), kind, what))
        self.say(f"fault {len(self.faults)}: {kind}: {what}")

    def leased_children(self, worker: Proc) -> list[int]:
        """The worker's pool processes holding a match's lease."""
        kids = children(worker.pid) if worker.alive() else []
        if not kids:
            return []
        owners = [f"{HOST}:{pid}" for pid in kids]
        rows = self.cluster.query("SELECT DISTINCT lease_owner FROM tournaments_match WHERE status = 'running' "
                                  "AND lease_owner = ANY(%s)", (owners,)) or []
        return [int(owner.rsplit(":", 1)[1]) for (owner,) in rows]

    def fault(self, kind: str) -> None:
        try:
            getattr(self, f"fault_{kind}")(kind)
        except Exception as exc:  # noqa: BLE001 - a fault that cannot be made is reported, never the soak's end
            self.say(f"fault {kind} failed: {exc!r}")

    def _worker(self) -> Proc:
        return self.procs[self.rng.choice(["worker1", "worker2"])]

    def _restart(self, proc: Proc, after: float, argv: list[str] | None = None) -> None:
        time.sleep(after)
        proc.start(argv)
        proc.held = False

    def fault_worker_child_kill(self, kind: str) -> None:
        worker = self._worker()
        leased = self.leased_children(worker)
        kids = leased or (children(worker.pid) if worker.alive() else [])
        if not kids:
            self.note(kind, f"{worker.name} has no pool process: skipped")
            return
        pid = self.rng.choice(sorted(kids))
        os.kill(pid, signal.SIGKILL)
        self.note(kind, f"{worker.name}'s pool process {pid} ({'holding a lease' if leased else 'idle'})")

    def _kill(self, kind: str, proc: Proc, what: str, restart_after: float) -> None:
        """SIGKILL ``proc``'s process group, then start it again ``restart_after`` s later."""
        proc.held = True
        proc.signal_group(signal.SIGKILL)
        self.note(kind, what)
        proc.wait(20)
        self._restart(proc, restart_after)

    def fault_worker_kill(self, kind: str) -> None:
        worker = self._worker()
        # Counted before the kill: the leases are the dead pool processes'.
        what = f"{worker.name} (process group {worker.pid}), {len(self.leased_children(worker))} leased"
        self._kill(kind, worker, what, 3.0)

    def fault_worker_kill_thrice(self, kind: str) -> None:
        worker = self._worker()
        worker.held = True
        try:
            for time_ in range(3):
                until = time.monotonic() + 60
                while not self.leased_children(worker):
                    if time.monotonic() > until:
                        self.note(kind, f"{worker.name} held no lease within 60 s: {time_} kill(s)")
                        return
                    time.sleep(0.02)
                worker.signal_group(signal.SIGKILL)
                worker.wait(20)
                if time_ == 0:
                    self.note(kind, f"{worker.name} killed right after a claim")
                else:
                    self.say(f"  {worker.name} killed right after a claim ({time_ + 1} of 3)")
                time.sleep(2.0)
                worker.start()
        finally:
            if not worker.alive():
                worker.start()
            worker.held = False

    def fault_worker_stop(self, kind: str) -> None:
        worker = self._worker()
        worker.held = True
        held = len(self.leased_children(worker))
        worker.signal_group(signal.SIGSTOP)
        stopped = self.lease + self.reclaim + 3
        self.note(kind, f"{worker.name} stopped for {stopped:g} s ({held} pool process(es) holding a lease)")
        time.sleep(stopped)
        worker.signal_group(signal.SIGCONT)
        worker.held = False

    def fault_worker_term(self, kind: str) -> None:
        worker = self._worker()
        worker.held = True
        told = time.monotonic()
        worker.signal_group(signal.SIGTERM)
        self.note(kind, f"{worker.name} (process group {worker.pid})")
        if not worker.wait(TERM_GRACE):
            self.say(f"  {worker.name} still running {TERM_GRACE:g} s after SIGTERM: killed")
            worker.signal_group(signal.SIGKILL)
            worker.wait(20)
        took = time.monotonic() - told
        self.term_seconds.append(took)
        self.say(f"  {worker.name} exited {took:.1f} s after SIGTERM")
        worker.signal_group(signal.SIGKILL)  # anything its group left behind
        self._restart(worker, 1.0)

    def fault_beat_kill(self, kind: str) -> None:
        self._kill(kind, self.procs["beat"], "beat", 3.0)

    def _postgres(self, kind: str, mode: str) -> None:
        self.note(kind, f"pg_ctl stop -m {mode}, start")
        self.cluster.stop(mode)
        time.sleep(1.0)
        self.cluster.start()

    def fault_postgres_fast(self, kind: str) -> None:
        self._postgres(kind, "fast")

    def fault_postgres_immediate(self, kind: str) -> None:
        self._postgres(kind, "immediate")

    def fault_redis_kill(self, kind: str) -> None:
        self._kill(kind, self.procs["redis"], "redis-server (no persistence: every message lost)", 2.0)

    def fault_runner_kill(self, kind: str) -> None:
        running = sorted(slug for slug, proc in self.runners.items() if proc.alive() and not proc.held)
        if not running:
            self.note(kind, "no run_tournament running: skipped")
            return
        slug = self.rng.choice(running)
        proc = self.runners[slug]
        proc.held = True
        proc.signal_group(signal.SIGKILL)
        self.note(kind, f"run_tournament of {slug}")
        proc.wait(20)
        self._restart(proc, 2.0)

    def end(self) -> None:
        if self.ended:
            return
        self.ended = True
        for proc in [*self.runners.values(), *self.procs.values()]:
            proc.held = True
            proc.end()
        try:
            self.cluster.stop("fast")
        except subprocess.SubprocessError as exc:
            self.say(f"pg_ctl stop: {exc!r}")


# --- comparing ----------------------------------------------------------------------------------

def outcome(slug: str) -> dict:
    """All a tournament came to, as in tests/tournaments/helpers.outcome and more: its
    schedule and every match (seed, deal, notes, status, replay record, result, each seat's
    score, place, forfeit and decisions), the standings with their tie-breaks, the ratings and
    the ledger in the order applied. Nothing that names the run (ids of matches, slugs) or
    its timing."""
    from tournaments import selectors
    from tournaments.models import Match, Rating, RatingChange, Result, Seat, Tournament

    tournament = Tournament.objects.get(slug=slug)
    matches = list(Match.objects.filter(round__tournament=tournament).order_by("round__number", "table")
                   .values_list("pk", "round__number", "table", "seed", "deal", "notes", "status", "record"))
    seats: dict[int, list] = {}
    for row in (Seat.objects.filter(match__round__tournament=tournament).order_by("match_id", "position")
                .values_list("match_id", "position", "player_id", "score", "place", "forfeit_reason",
                             "forfeit_detail", "decisions")):
        seats.setdefault(row[0], []).append(row[1:])
    results = {row[0]: row[1:] for row in Result.objects.filter(match__round__tournament=tournament)
               .values_list("match_id", "scores", "places", "source")}
    return {
        "status": tournament.status,
        "matches": [(*row[1:], tuple(seats.get(row[0], ())), results.get(row[0])) for row in matches],
        "standings": [(line.player.pk, line.rank, line.match_points, line.game_score, line.tiebreaks)
                      for line in selectors.tournament_standings(tournament)],
        "ratings": sorted(Rating.objects.filter(ladder=tournament.ladder)
                          .values_list("player_id", "mu", "sigma", "games", "value", "provisional")),
        "ledger": list(RatingChange.objects.filter(ladder=tournament.ladder).order_by("sequence")
                       .values_list("sequence", "match__round__number", "match__table", "player_id", "before_mu",
                                    "before_sigma", "after_mu", "after_sigma", "games", "expected_place",
                                    "actual_place")),
    }


def differences(clean: dict, fault: dict) -> list[str]:
    out = []
    for key in clean:
        if clean[key] != fault[key]:
            a, b = clean[key], fault[key]
            if isinstance(a, list):
                first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                out.append(f"{key}: {len(a)} vs {len(b)} entries, first different at {first}: "
                           f"{str(a[first] if first < len(a) else None)[:300]} vs "
                           f"{str(b[first] if first < len(b) else None)[:300]}")
            else:
                out.append(f"{key}: {a!r} vs {b!r}")
    return out


def recordings(cluster: Cluster, slugs: list[str]) -> list[float]:
    """When each result of these tournaments was recorded (epoch seconds), in order."""
    rows = cluster.query(
        "SELECT extract(epoch FROM r.recorded_at) FROM tournaments_result r JOIN tournaments_match m ON m.id = r.match_id "
        "JOIN tournaments_round d ON d.id = m.round_id JOIN tournaments_tournament t ON t.id = d.tournament_id "
        "WHERE t.slug = ANY(%s) ORDER BY 1", (slugs,)) or []
    return [float(at) for (at,) in rows]


def longest_gap(times: list[float]) -> float:
    return max((b - a for a, b in zip(times, times[1:])), default=0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="rounds x this (1: 6,400 matches a run)")
    parser.add_argument("--hands", type=int, default=8, help="a match's length: Stoppa's hands (default 8)")
    parser.add_argument("--seed", type=int, default=29, help="seeds the faults and the tournaments")
    parser.add_argument("--interval", default="30,60", help="seconds between faults: LOW,HIGH (default 30,60)")
    parser.add_argument("--parallel", type=int, default=2, help="tournaments played at once")
    parser.add_argument("--timeout", type=float, default=7200, help="seconds each run may take")
    parser.add_argument("--scheduler", choices=["database", "default"], default="database",
                        help="beat's scheduler: compose's django_celery_beat (database) or beat's own file")
    parser.add_argument("--database-pool", type=int, default=16, help="DATABASE_POOL, as compose (0: none)")
    parser.add_argument("--lease-seconds", type=float, help="MATCH_LEASE_SECONDS for every process")
    parser.add_argument("--reclaim-seconds", type=float, help="RECLAIM_INTERVAL_SECONDS for every process")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs) even when it passes")
    args = parser.parse_args()
    low, high = (float(x) for x in args.interval.split(","))
    args.interval = (low, high)

    soak = Soak(args)
    ok = False
    try:
        soak.say(f"work folder {soak.home}")
        soak.start_servers()
        pairs = soak.migrate_and_make()
        soak.say(f"{len(pairs)} tournaments a run, {soak.expected} matches; lease {soak.lease:g} s, reclaim every "
                 f"{soak.reclaim:g} s; PostgreSQL on {soak.cluster.port}, Redis on {soak.redis_port}")
        soak.start_service()
        clean_slugs, fault_slugs = [c for c, _ in pairs], [f for _, f in pairs]
        soak.say("clean run")
        clean_seconds, clean_done = soak.play("clean", clean_slugs, faults=False)
        soak.say(f"clean run: {clean_seconds:.0f} s")
        soak.say("faulted run")
        fault_seconds, fault_done = soak.play("fault", fault_slugs, faults=True)
        soak.say(f"faulted run: {fault_seconds:.0f} s")
        soak.end()
        soak.cluster.start()  # quiet now: read what both runs came to

        from django.db import connections

        connections.close_all()
        identical = True
        for clean, fault in pairs:
            diffs = differences(outcome(clean), outcome(fault))
            if diffs:
                identical = False
                print(f"{fault} differs from {clean}:")
                for line in diffs:
                    print(f"  {line}")
        counted = soak.cluster.query(
            "SELECT count(*), count(*) FILTER (WHERE m.status = 'finished'), coalesce(sum(m.interrupted), 0), "
            "count(*) FILTER (WHERE m.interrupted > 0), coalesce(max(m.attempts), 0), "
            "left(t.slug, 5) FROM tournaments_match m JOIN tournaments_round d ON d.id = m.round_id "
            "JOIN tournaments_tournament t ON t.id = d.tournament_id GROUP BY left(t.slug, 5) ORDER BY 6")
        failed = soak.cluster.query("SELECT count(*) FROM tournaments_auditevent WHERE action = 'match_failed'")[0][0]
        clean_times, fault_times = recordings(soak.cluster, clean_slugs), recordings(soak.cluster, fault_slugs)
        stalls = []
        for at, kind, what in soak.faults:
            after = next((t for t in fault_times if t > at), None)
            if after is not None:
                stalls.append((after - at, kind, what))

        print()
        print(f"Soak (seed {args.seed}, scale {args.scale:g}, hands {args.hands}, {len(pairs)} tournaments a run, "
              f"lease {soak.lease:g} s, reclaim every {soak.reclaim:g} s, faults every {low:g}-{high:g} s):")
        for total, finished, interrupted, hit, attempts, run in counted:
            seconds = clean_seconds if run == "clean" else fault_seconds
            print(f"  {run} run: {finished} of {total} matches in {seconds:.0f} s ({finished / seconds:.1f}/s); "
                  f"{hit} matches interrupted ({interrupted} interruptions), most attempts {attempts}")
        print(f"  faults: {len(soak.faults)}: " + ", ".join(f"{kind} {n}" for kind, n in
                                                           sorted(Counter(k for _, k, _ in soak.faults).items())))
        if stalls:
            worst = max(stalls)
            print(f"  longest stall after a fault: {worst[0]:.1f} s ({worst[1]}: {worst[2]}); median "
                  f"{sorted(s for s, _, _ in stalls)[len(stalls) // 2]:.1f} s")
            by_kind: dict[str, float] = {}
            for seconds, kind, _ in stalls:
                by_kind[kind] = max(by_kind.get(kind, 0.0), seconds)
            print("  longest stall by kind: " + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(by_kind.items())))
        print(f"  longest gap between two results: clean {longest_gap(clean_times):.1f} s, "
              f"faulted {longest_gap(fault_times):.1f} s")
        if soak.term_seconds:
            print(f"  warm stops took {', '.join(f'{s:.1f}' for s in soak.term_seconds)} s")
        raised = sum(path.read_text(errors="replace").count("raised unexpected")
                     for path in soak.logs.glob("worker*.log"))
        deadlocks = (soak.cluster.home / "log").read_text(errors="replace").count("deadlock detected")
        print(f"  tasks that raised (workers' logs): {raised}; deadlocks (PostgreSQL's log): {deadlocks}")
        print(f"  matches given up (match_failed): {failed}; unplanned exits: "
              f"{dict(soak.unplanned) or 'none'}")
        print(f"  finished: clean {'yes' if clean_done else 'NO'}, faulted {'yes' if fault_done else 'NO'}; "
              f"identical: {'yes' if identical else 'NO'}")
        ok = clean_done and fault_done and identical
        return 0 if ok else 1
    finally:
        soak.end()
        try:
            soak.cluster.stop("fast")
        except subprocess.SubprocessError:
            pass  # stopped already
        if ok and not args.keep:
            shutil.rmtree(soak.home, ignore_errors=True)
        else:
            print(f"  logs kept in {soak.home}/logs", flush=True)


if __name__ == "__main__":
    sys.exit(main())
