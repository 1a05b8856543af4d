"""Orchestration overhead: a bot round robin through the real broker and workers, against the
engine alone playing the same matches in one process.

    python bench/tournament.py [--game stoppa] [--entrants 16] [--table-size 4] [--cycles 10]
                               [--bot heuristic] [--workers 1] [--option hands=2] [--repeat 5]

The default is the flagship bot tournament: Stoppa at tables of four between the rule-based
bots (~5 ms a match), 16 entrants, ten cycles: 200 matches. ``--game piazza --bot random
--table-size 2`` is the hardest case for the orchestration (~1.5 ms matches); ``--bot
ismcts@20`` a search bot's tournament; ``--command 'python3 examples/bots/random_bot.py'`` an
external bot competition.

Needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL; defaults: the local servers,
database ``mazziere_bench``, Redis db 14). It migrates that database, starts ``--workers``
Celery worker processes (concurrency 1 each) on a queue of its own, and then, after one
warm-up run (a worker pays its imports and caches once in its life), ``--repeat`` times: runs
a fresh tournament (same seeds) to the end — from the start request to the moment the last
recording transaction stamped it finished — and replays every one of its matches in this
process with ``bots.runner.play_match`` (the same seeds, bots and options). It prints each
run, then the median run:

* matches/s through the workers, per worker process;
* matches/s of the engine and bots alone, in one process;
* the orchestration overhead per match (claim, record, ratings, next rounds, broker round
  trips) and as a share of the work, against the goal of 20%.

Where the overhead goes, in process and per phase: bench/match_phases.py.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    base = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(base, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="stoppa")
    parser.add_argument("--entrants", type=int, default=16)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--cycles", type=int, default=10, help="round robin cycles")
    parser.add_argument("--bot", default="heuristic",
                        help="built-in bot for every entrant: NAME, NAME@N or NAME:K=V,... as in bots.arena")
    parser.add_argument("--command", default=None,
                        help="a subprocess bot for every entrant instead of --bot, e.g. "
                             "'python3 examples/bots/random_bot.py' (an external bot competition)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (concurrency 1 each)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the median is reported")
    args = parser.parse_args()

    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mazziere_bench")
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
    # As deployed: with DEBUG on, Django also times and keeps every query it runs.
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    queue = f"bench-{os.getpid()}"
    os.environ["MATCH_QUEUE"] = queue
    # Spread each round over as many tasks as there are worker processes, and no more: the
    # batches are then as large as the round allows (tournaments/services/dispatch.py). Set
    # before Django reads its settings: this process makes the first rounds and sends them.
    os.environ["MATCH_BATCH_SPREAD"] = str(args.workers)
    ensure_database(os.environ["DATABASE_URL"])

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from django.utils import timezone

    import bots.runner
    from bots import arena
    from tournaments.management.commands.run_tournament import parse_pairs
    from tournaments.models import Match, Player, Tournament
    from tournaments.services import dispatch
    from tournaments.services.ladders import ladder_create
    from tournaments.services.players import builtin_bot_get_or_create, player_bot, player_create
    from tournaments.services.seeds import bot_seed
    from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

    workers = []
    env = dict(os.environ, DATABASE_CONN_MAX_AGE="60")
    for i in range(args.workers):
        workers.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "tournaments", "worker", "-Q", queue, "-n", f"bench{i}-{os.getpid()}@%h",
             "--concurrency=1", "--pool=prefork", "--loglevel=warning", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))
    try:
        from tournaments.celery import app

        names = {f"bench{i}-{os.getpid()}" for i in range(args.workers)}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            replies = app.control.ping(timeout=1.0) or []
            if names <= {n.split("@")[0] for r in replies for n in r}:
                break
        bot, bot_options = arena.bot_options(args.bot)
        entrants = []
        for i in range(args.entrants):
            if args.command:
                entrants.append(player_create(
                    name=f"bench-{os.getpid()}-{i}", kind=Player.Kind.BOT, bot_kind=Player.BotKind.SUBPROCESS,
                    bot_config={"command": shlex.split(args.command)},
                ))
            else:
                entrants.append(builtin_bot_get_or_create(bot=bot, options=bot_options, name=f"bench-{args.bot}-{i}"))

        def through_workers(run: int) -> tuple[Tournament, float]:
            slug = f"bench-{os.getpid()}-{int(time.time())}-{run}"
            tournament = tournament_create(
                name=slug, slug=slug, game=args.game, table_size=args.table_size, format="round_robin",
                format_config={"cycles": args.cycles}, options=parse_pairs(args.option, "--option"), seed=7,
                ladder=ladder_create(slug=slug, name=slug, game=args.game),
            )
            for player in entrants:
                entry_add(tournament=tournament, player=player)
            started = timezone.now()
            _, progress = tournament_start(tournament=tournament)
            dispatch.send(progress.to_play)  # as the API's start does
            # The end is when the worker's last transaction stamped the tournament finished
            # (same host, same clock), so the polling, kept slow so as not to take CPU from the
            # worker and the database, does not count.
            while Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.FINISHED:
                time.sleep(0.1)
            tournament.refresh_from_db()
            return tournament, (tournament.finished_at - started).total_seconds()

        def engine_alone(tournament: Tournament) -> tuple[int, float]:
            matches = list(Match.objects.filter(round__tournament=tournament).order_by("round__number", "table")
                           .prefetch_related("seats__player"))
            t0 = time.perf_counter()
            for match in matches:
                seats = sorted(match.seats.all(), key=lambda s: s.position)
                players = [player_bot(s.player, game=args.game, seed=bot_seed(match.seed, s.position))
                           for s in seats]
                bots.runner.play_match(args.game, players, seed=match.seed, options=tournament.options)
            return len(matches), time.perf_counter() - t0

        # The host's speed drifts between runs: each run measures both sides, back to back, on
        # the same matches, and the figure reported is the median run.
        # A worker's first matches pay its imports and caches (a worker lives for many
        # tournaments): one warm-up run, not counted.
        engine_alone(through_workers(-1)[0])
        runs = []
        for run in range(args.repeat):
            tournament, workers_seconds = through_workers(run)
            n, alone = engine_alone(tournament)
            per_worker = n / workers_seconds / args.workers
            share = 1 - per_worker / (n / alone)
            runs.append((share, n, workers_seconds, alone))
            print(f"  run {run + 1}: through workers {n / workers_seconds:7.1f} matches/s, engine alone "
                  f"{n / alone:7.1f} matches/s, overhead {share:.0%}", flush=True)
    finally:
        for worker in workers:
            os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:
            worker.wait(timeout=30)

    share, n, workers_seconds, alone = sorted(runs)[len(runs) // 2]
    per_worker = n / workers_seconds / args.workers
    engine_rate = n / alone
    overhead_ms = (workers_seconds * args.workers - alone) / n * 1000
    print(f"{args.game}, {args.entrants} {args.command or args.bot} bots, tables of {args.table_size}, {n} matches, "
          f"{args.workers} worker process(es); median of {len(runs)} run(s):")
    print(f"  through broker and workers: {n / workers_seconds:8.1f} matches/s ({per_worker:.1f} per worker process)")
    print(f"  engine and bots alone:      {engine_rate:8.1f} matches/s in one process")
    print(f"  orchestration overhead:     {overhead_ms:8.1f} ms per match, {share:.0%} of the time "
          f"(goal: under 20%: {'met' if share < 0.20 else 'NOT met'})")


if __name__ == "__main__":
    main()
