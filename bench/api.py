"""The API's reads at scale: a big ladder and a big tournament served by gunicorn (DEBUG off)
from PostgreSQL, measured endpoint by endpoint at 16 concurrent loopback connections.

    python bench/api.py [--players 10000] [--matches 100000] [--entrants 500] [--connections 16]
                        [--load wrk|python] [--clients 4] [--seconds 4] [--rounds 3]
                        [--warm-up 2] [--server gunicorn|uvicorn] [--workers 2] [--threads 4]
                        [--worker-class gthread|sync] [--only ENDPOINT ...] [--keep-db] [--reuse-db]

It drops and creates the database ``mazziere_bench_api`` (unless ``--reuse-db`` finds it
filled), migrates it and fills it in bulk: ``--players`` bots, ``--matches`` finished Sette e
mezzo matches of four in one ladder (each with a real replay record, its seats, its result and
its rating changes; the players' ratings as they end), and a finished Swiss of ``--entrants``
players (five rounds of tables of four). Then it serves the site as docker/compose.yaml serves
plain requests: gunicorn (``--workers`` processes of ``--threads`` threads, a kept database
connection per thread, tournaments/gunicorn_conf.py; ``--worker-class sync``: one request at a
time a process; ``--server uvicorn``: the ASGI server, DATABASE_POOL 16), Django's cache in
Redis db 12, every budget raised out of the way. It sends each endpoint ``--warm-up`` seconds
of requests that are not counted (a process's first requests import, connect and fill its
caches), then measures, in ``--rounds`` rounds of ``--seconds`` each per endpoint, one endpoint
after the other (interleaved, so a slow moment of the machine falls on all of them; half a
second apart, so that the requests a phase left in flight do not fall on the next), ``--only``
some of them and the floor:

* floor: ``GET /api/`` (the API root: constant JSON through the whole stack, no query);
* leaderboard: its first page; leaderboard pages: random pages (offset anywhere);
* history: a random player's rating history; standings: the big tournament's;
* replay: a random finished match's replay.

The load: ``wrk`` where installed (``--connections`` connections on two threads, each request
a path drawn from 2,000 of the endpoint's), else this script's own asyncio clients
(``--connections`` keep-alive connections shared by ``--clients`` processes). It prints each
endpoint's requests/s and p50/p99 latency, and the goal: at least a third of the floor's
requests/s and a p99 under 50 ms. Then it stops the server and drops the database (unless
``--keep-db``). Needs PostgreSQL and Redis on their local default ports.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from online import Connection, database_drop, database_recreate, free_port, percentile, start_server, stop

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
DATABASE = "mazziere_bench_api"
POSTGRES = "postgres://postgres@127.0.0.1:5432"
REDIS = "redis://127.0.0.1:6379/12"
GOAL_SHARE, GOAL_P99_MS = 1 / 3, 50.0
BATCH = 5000  # rows per bulk insert


# --- filling the database ----------------------------------------------------------------------

def fill(args) -> dict:
    """The data, in bulk; returns what the load needs: ids of the ladder, the tournament, some
    players and some matches."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    import engine
    from tournaments.models import Entry, Match, Player, Rating, RatingChange, Result, Round, Seat, Tournament
    from tournaments.services.ladders import board_line, ladder_create, ladder_system

    rng = random.Random(1)
    now = timezone.now()
    owner = get_user_model().objects.create_user("bench")
    players = Player.objects.bulk_create(
        (Player(name=f"bot-{i}", kind="bot", bot_kind="builtin", bot_config={"bot": "random"}, owner=owner)
         for i in range(args.players)), batch_size=BATCH)
    ids = [p.pk for p in players]
    ladder = ladder_create(slug="bench", name="Bench", game="sette_e_mezzo", system="elo", owner=owner)
    system = ladder_system(ladder)

    def finished_tournament(slug: str, rounds: int, tables: int, seated, rate: bool) -> Tournament:
        tournament = Tournament.objects.create(
            name=slug, slug=slug, game="sette_e_mezzo", options={"hands": 1}, format="swiss",
            format_config={"rounds": rounds}, table_size=4, points_by_place=[3, 2, 1, 0], tiebreaks=["buchholz"],
            seed=rng.getrandbits(62), ladder=ladder if rate else None, status=Tournament.Status.FINISHED,
            owner=owner, finished_at=now)
        made = Round.objects.bulk_create(Round(tournament=tournament, number=n, status=Round.Status.FINISHED,
                                               finished_at=now) for n in range(1, rounds + 1))
        current = {p: system.initial_rating() for p in ids} if rate else None
        sequence = 0
        for rnd in made:
            matches, seats, results = [], [], []
            for table in range(1, tables + 1):
                at_table = seated(rnd.number, table)
                seed = rng.getrandbits(62)
                state = engine.game("sette_e_mezzo").new_match(players=4, seed=seed, options={"hands": 1})
                while not state.is_over():
                    state.apply(rng.choice(state.legal_actions()))
                matches.append(Match(round=rnd, table=table, seed=seed, status=Match.Status.FINISHED, started_at=now,
                                     finished_at=now, record=state.to_json()))
                seats.append((at_table, list(state.scores()), list(state.places())))
            Match.objects.bulk_create(matches, batch_size=BATCH)
            for match, (_, scores, places) in zip(matches, seats):
                results.append(Result(match=match, scores=scores, places=places, source=Result.Source.ENGINE))
            Seat.objects.bulk_create(
                (Seat(match=match, position=pos, player_id=player, score=scores[pos], place=places[pos])
                 for match, (at_table, scores, places) in zip(matches, seats) for pos, player in enumerate(at_table)),
                batch_size=BATCH)
            Result.objects.bulk_create(results, batch_size=BATCH)
            if rate:
                rows = []
                for match, (at_table, _, places) in zip(matches, seats):
                    for change in system.rate([(p, current[p], places[pos]) for pos, p in enumerate(at_table)]):
                        sequence += 1
                        rows.append(RatingChange(
                            ladder=ladder, match=match, player_id=change.player, sequence=sequence,
                            before_mu=change.before.mu, before_sigma=change.before.sigma, after_mu=change.after.mu,
                            after_sigma=change.after.sigma, games=change.after.games,
                            expected_place=change.expected_place, actual_place=change.actual_place))
                        current[change.player] = change.after
                RatingChange.objects.bulk_create(rows, batch_size=BATCH)
        if rate:
            Rating.objects.bulk_create(
                (Rating(ladder=ladder, player_id=p, mu=r.mu, sigma=r.sigma, games=r.games,
                        value=board_line(system, r)[0], provisional=board_line(system, r)[1])
                 for p, r in current.items() if r.games), batch_size=BATCH)
            ladder.applied = sequence
            ladder.save(update_fields=["applied"])
        return tournament

    tables = 1000
    rounds = max(1, args.matches // tables)
    history = finished_tournament("bench-history", rounds, tables,
                                  lambda n, t: rng.sample(ids, 4), rate=True)
    entrants = ids[:args.entrants]

    def swiss_seats(n: int, t: int) -> list[int]:
        order = entrants[:]
        random.Random(n).shuffle(order)
        return order[(t - 1) * 4:t * 4]

    big = finished_tournament("bench-big", 5, args.entrants // 4, swiss_seats, rate=False)
    Entry.objects.bulk_create((Entry(tournament=big, player_id=p, seed_rank=i) for i, p in enumerate(entrants, 1)),
                              batch_size=BATCH)
    rated = list(Rating.objects.filter(ladder=ladder).values_list("player_id", flat=True)[:2000])
    replays = list(Match.objects.filter(round__tournament=history).values_list("pk", flat=True)[:2000])
    return {"ladder": ladder.pk, "big": big.pk, "rated": rated, "replays": replays,
            "board": Rating.objects.filter(ladder=ladder).count()}


# --- the load ---------------------------------------------------------------------------------

def paths(name: str, data: dict, rng: random.Random) -> str:
    """A request of endpoint ``name``."""
    ladder = data["ladder"]
    if name == "floor":
        return "/api/"
    if name == "leaderboard":
        return f"/api/ladders/{ladder}/leaderboard/"
    if name == "leaderboard pages":
        return f"/api/ladders/{ladder}/leaderboard/?limit=100&offset={rng.randrange(0, max(1, data['board']))}"
    if name == "history":
        return f"/api/ladders/{ladder}/history/{rng.choice(data['rated'])}/"
    if name == "standings":
        return f"/api/tournaments/{data['big']}/standings/"
    return f"/api/matches/{rng.choice(data['replays'])}/replay/"


ENDPOINTS = ["floor", "leaderboard", "leaderboard pages", "history", "standings", "replay"]


async def hammer(port: int, name: str, data: dict, connections: int, seconds: float, seed: int) -> tuple[list, int]:
    """``connections`` keep-alive connections asking ``name`` for ``seconds``: (latencies, errors)."""
    rng = random.Random(seed)
    latencies: list[float] = []
    errors = 0
    until = time.monotonic() + seconds

    async def one() -> None:
        nonlocal errors
        conn = Connection(port)
        try:
            while time.monotonic() < until:
                began = time.perf_counter()
                status, head = await conn.send("GET", paths(name, data, rng), {"Accept": "application/json"})
                await conn.body(head)
                if status != 200:
                    errors += 1
                latencies.append(time.perf_counter() - began)
        finally:
            conn.close()

    await asyncio.gather(*(one() for _ in range(connections)))
    return latencies, errors


def client(port: int, name: str, data: dict, connections: int, seconds: float, seed: int, out) -> None:
    out.put(asyncio.run(hammer(port, name, data, connections, seconds, seed)))


WRK_SCRIPT = """
local paths = {%(paths)s}
local n = #paths
math.randomseed(%(seed)d)
request = function()
  return wrk.format("GET", paths[math.random(n)], {["Accept"] = "application/json"})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %%d %%d %%d\\n", summary.requests, summary.duration,
                         e.status + e.connect + e.read + e.write + e.timeout))
  for i = 1, #latency do
    local value, count = latency(i)
    io.write(string.format("LATENCY %%d %%d\\n", value, count))
  end
end
"""


def measure_wrk(port: int, name: str, data: dict, args, seed: int) -> tuple[list, int, float]:
    """One phase with wrk (a load generator in C, so that the client takes little of the
    machine): ``args.connections`` connections on two threads, each request a path drawn
    from 2,000 of the endpoint's; every request's latency comes back from its histogram."""
    rng = random.Random(seed)
    sample = ", ".join(json.dumps(paths(name, data, rng)) for _ in range(2000))
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % {"paths": sample, "seed": seed})
    try:
        done = subprocess.run(["wrk", "-t2", f"-c{args.connections}", f"-d{max(1, round(args.seconds))}s", "-s", script.name,
                               f"http://{HOST}:{port}"], capture_output=True, text=True, check=True,
                              timeout=args.seconds + 60)
    finally:
        os.unlink(script.name)
    latencies, errors, took = [], 0, 0.0
    for line in done.stdout.splitlines():
        kind, *numbers = line.split()
        if kind == "RESULT":
            _, duration_us, errors = map(int, numbers)
            took = duration_us / 1e6
        elif kind == "LATENCY":
            value_us, count = map(int, numbers)
            latencies += [value_us / 1e6] * count
    return latencies, errors, took


def measure(port: int, name: str, data: dict, args, seed: int) -> tuple[list, int, float]:
    """One phase: ``args.connections`` connections over ``args.clients`` processes."""
    if args.load == "wrk":
        return measure_wrk(port, name, data, args, seed)
    out = multiprocessing.Queue()
    share = [args.connections // args.clients + (1 if i < args.connections % args.clients else 0)
             for i in range(args.clients)]
    began = time.monotonic()
    procs = [multiprocessing.Process(target=client, args=(port, name, data, n, args.seconds, seed * 100 + i, out))
             for i, n in enumerate(share) if n]
    for proc in procs:
        proc.start()
    latencies, errors = [], 0
    for _ in procs:
        got, failed = out.get(timeout=args.seconds + 120)
        latencies += got
        errors += failed
    for proc in procs:
        proc.join()
    return latencies, errors, time.monotonic() - began


def serve(args, port: int, log) -> subprocess.Popen:
    """The site on the bench's database, DEBUG off, budgets out of the way: gunicorn (the
    deployment's server of plain requests, docker/compose.yaml) or uvicorn (its event streams'
    server, which also answers plain requests)."""
    env = {**os.environ, "DATABASE_URL": f"{POSTGRES}/{DATABASE}", "DEBUG": "false",
           "SECRET_KEY": "bench-" + "x" * 50, "ALLOWED_HOSTS": HOST, "CACHE_URL": REDIS,
           "API_ANON_RATE": "100000000/minute", "API_USER_RATE": "100000000/minute"}
    env.pop("CELERY_BROKER_URL", None)
    if args.server == "uvicorn":
        args.app = "tournaments.asgi:application"
        return start_server(args, {**env, "DATABASE_POOL": "16"}, port, log)
    # As docker/compose.yaml runs it: threads that keep their database connection.
    env["DATABASE_CONN_MAX_AGE"] = "600"
    return start_server(args, env, port, log, command=[
        sys.executable, "-m", "gunicorn", "tournaments.wsgi:application", "--bind", f"{HOST}:{port}",
        "--workers", str(args.workers), "--worker-class", args.worker_class, "--threads", str(args.threads),
        "--keep-alive", "60", "--config", "python:tournaments.gunicorn_conf", "--log-level", "warning"])


def filled() -> dict | None:
    """The data of an earlier run (``--reuse-db``), if its database is there and filled."""
    import psycopg

    try:
        with psycopg.connect(f"{POSTGRES}/{DATABASE}") as conn:
            row = conn.execute("SELECT value FROM bench_api_data").fetchone()
    except psycopg.Error:
        return None
    return json.loads(row[0]) if row else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--entrants", type=int, default=500)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--load", choices=["wrk", "python"], default="wrk" if shutil.which("wrk") else "python",
                        help="the load generator: wrk (apt-get install wrk; the default where installed) or this "
                             "script's own asyncio clients")
    parser.add_argument("--clients", type=int, default=4, help="python load: client processes sharing the connections")
    parser.add_argument("--seconds", type=float, default=4.0, help="each endpoint's time in each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm-up", type=float, default=2.0, help="each endpoint's uncounted time before the rounds")
    parser.add_argument("--server", choices=["gunicorn", "uvicorn"], default="gunicorn")
    parser.add_argument("--workers", type=int, default=2, help="the server's worker processes")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn: threads per worker")
    parser.add_argument("--worker-class", choices=["gthread", "sync"], default="gthread", help="gunicorn's workers")
    parser.add_argument("--only", nargs="*", choices=ENDPOINTS, help="measure only these endpoints (and the floor)")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument("--reuse-db", action="store_true", help="use an earlier run's kept database if there")
    args = parser.parse_args()
    if not (4 <= args.players <= 200_000 and 1 <= args.matches <= 1_000_000 and 4 <= args.entrants <= args.players
            and 1 <= args.connections <= 64 and 1 <= args.clients <= args.connections):
        parser.error("out of bounds: 4-200000 players, 1-1000000 matches, 4-players entrants, 1-64 connections")

    data = filled() if args.reuse_db else None
    if data is None:
        database_recreate(DATABASE)
        os.environ["DATABASE_URL"] = f"{POSTGRES}/{DATABASE}"
        os.environ.pop("CELERY_BROKER_URL", None)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
        sys.path.insert(0, str(ROOT))
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0)
        began = time.monotonic()
        data = fill(args)
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("CREATE TABLE bench_api_data (value text)")
            cursor.execute("INSERT INTO bench_api_data VALUES (%s)", [json.dumps(data)])
            # As autovacuum would after a bulk load, which a bench does not wait for: the table's
            # visibility map lets the board's index-only scans skip the table (a deep page: 2.7 -> 1.2 ms).
            cursor.execute("VACUUM ANALYZE")
        connection.close()
        print(f"filled in {time.monotonic() - began:.0f} s: {args.players} players, {args.matches} matches "
              f"({data['board']} rated), a tournament of {args.entrants}")
    port = free_port()
    log = tempfile.NamedTemporaryFile("w+", prefix="bench-api-", suffix=".log", delete=False)
    server = serve(args, port, log)
    endpoints = [name for name in ENDPOINTS if name == "floor" or not args.only or name in args.only]
    results = {name: ([], 0, 0.0) for name in endpoints}
    try:
        # Warm-up, not counted: each process's first requests import, connect and fill its
        # caches (tens to hundreds of ms), which is not the steady state measured.
        for index, name in enumerate(endpoints):
            measure(port, name, data, argparse.Namespace(**{**vars(args), "seconds": args.warm_up}), seed=1000 + index)
        for round_ in range(args.rounds):
            for index, name in enumerate(endpoints):
                time.sleep(0.5)  # the last phase's requests in flight, which wrk left when it stopped, end
                got, errors, took = measure(port, name, data, args, seed=round_ * 10 + index)
                latencies, failed, spent = results[name]
                results[name] = (latencies + got, failed + errors, spent + took)
    finally:
        stop(server)
        if not args.keep_db:
            database_drop(DATABASE)
    floor = len(results["floor"][0]) / results["floor"][2]
    load = "wrk, 2 threads" if args.load == "wrk" else f"{args.clients} client processes"
    server_kind = f"gunicorn {args.worker_class}" if args.server == "gunicorn" else args.server
    print(f"\n{args.connections} connections ({load}), {server_kind} x{args.workers}, "
          f"{args.rounds} rounds of {args.seconds:g} s per endpoint")
    print(f"{'endpoint':<20}{'req/s':>9}{'share':>8}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}  goal")
    for name in endpoints:
        latencies, errors, spent = results[name]
        rate = len(latencies) / spent
        p50, p99 = percentile(latencies, 50) * 1000, percentile(latencies, 99) * 1000
        met = rate >= GOAL_SHARE * floor and p99 < GOAL_P99_MS and not errors
        print(f"{name:<20}{rate:>9.0f}{rate / floor:>8.2f}{p50:>9.1f}{p99:>9.1f}{errors:>8}  "
              f"{'met' if met or name == 'floor' else 'NOT met'}")
    log.seek(0)
    tail = log.read()[-3000:]
    if "Traceback" in tail:
        print(f"\n{args.server}'s log ends with:\n" + tail)


if __name__ == "__main__":
    main()
