"""Online play under load: remote bots play their seats through uvicorn, PostgreSQL and Redis,
against the engine alone making the same moves.

    python bench/online.py [--seats 200] [--clients 8] [--workers 2] [--pool 16] [--game stoppa]
                           [--table-size 4] [--option hands=1] [--think MS] [--timeout 300] [--keep-db]
                           [--split [--web-workers 2] [--web-threads 4] [--web-worker-class gthread|sync]]

It drops and creates the database ``mazziere_bench_online`` on the local PostgreSQL (user
postgres), migrates it, and makes ``--seats`` remote bots (a user, a player and a token tied to
it each) entered in an online Swiss of one round, so that every seat of the round plays at
once: ``--seats / --table-size`` matches, every seat a remote bot. It starts the tournament and
opens its matches in this process (services.online.online_matches_open: no Celery worker; with
CELERY_BROKER_URL unset, what a match's end sets off runs eagerly in the request), then starts
uvicorn (``--workers`` processes, DATABASE_POOL ``--pool``, notifications through Redis db 14)
on a free loopback port; its log goes to a temporary file, whose end is printed if anything
failed. With ``--split``, as docker/compose.yaml serves the site, the moves go to gunicorn
(``--web-workers`` processes of ``--web-threads`` threads, tournaments/gunicorn_conf.py) and
only the event streams to uvicorn.

``--clients`` processes share the seats (a match's seats go to different processes). Each
holds, per seat, the seat's event stream (``GET /api/matches/{id}/seats/{pos}/events/``) and
a keep-alive connection for its moves; once every stream is open they all start at once, and
on each ``view`` event that awaits the seat they POST a random legal action, at once or after
``--think`` ms on average. Times are CLOCK_MONOTONIC, shared by the processes. It prints:

* moves/s: the moves applied over the wall time, from the start to the last match's end;
* POST -> next seat's event: from the start of a move's POST to the arrival of the event that
  awaits the next seat (same match, one more action), p50/p90/p99/max, against the goal of a
  p99 under 50 ms at 200 seats;
* the POST round trip, p50/p99;
* the floor: the same moves with the engine alone, in this process (``apply``, the next seat's
  ``view``, its JSON), p50/p99 per move;
* the CPU time per move of uvicorn, the clients, PostgreSQL, Redis and any other process on the
  machine meanwhile, and how busy the machine was.

Without think time every match always has a move in flight, so the server is saturated and a
move waits for the moves of the other matches: its latency is about matches / (moves/s).

Then it stops uvicorn and drops the database (unless ``--keep-db``). Everything stays on
127.0.0.1, every call has a timeout, and after ``--timeout`` seconds in all it stops the clients
and reports what they had. Needs PostgreSQL and Redis on their local default ports.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import queue
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
DATABASE = "mazziere_bench_online"
POSTGRES = "postgres://postgres@127.0.0.1:5432"
REDIS = "redis://127.0.0.1:6379/14"
MAX_SEATS, MAX_CLIENTS = 1000, 32
GOAL_P99_MS, GOAL_SEATS = 50.0, 200
# Small matches of every game, as tests/tournaments/test_online.py plays them.
GAME_OPTIONS = {
    "stoppa": {"hands": 1},
    "sette_e_mezzo": {"hands": 2},
    "piazza": {"table_max": 2},
    "spacca_il_mazzo": {"turn_limit": 30},
}

CONNECT_TIMEOUT = 10.0  # seconds to open a connection
POST_TIMEOUT = 30.0  # seconds for a move's answer
STREAM_IDLE_TIMEOUT = 60.0  # seconds of silence on a stream (the server sends a keep-alive every 15)
STREAM_RECONNECTS = 5  # a stream that ends before its match is reopened this often (Last-Event-ID)
ERRORS_KEPT = 20  # error messages a client reports (all are counted)


# --- the clients: a few processes, an event loop each, plain HTTP/1.1 over asyncio streams -------

class Closed(Exception):
    """The server closed the connection (a keep-alive connection it timed out, a stream's end)."""


class Connection:
    """One HTTP/1.1 keep-alive connection to the server."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port), CONNECT_TIMEOUT)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def send(self, method: str, path: str, headers: dict, body: bytes = b"") -> tuple[int, dict]:
        """Send a request and read the answer's head: (status, headers in lower case)."""
        if self.writer is None:
            await self.open()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}", *(f"{k}: {v}" for k, v in headers.items())]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        if not status_line:
            raise Closed("connection closed before the answer")
        status = int(status_line.split(None, 2)[1])
        head = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            head[name.strip().lower()] = value.strip()
        return status, head

    async def chunks(self, head: dict):
        """The answer's body, piece by piece as it arrives (chunked or Content-Length)."""
        if head.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size_line = await self.reader.readline()
                if not size_line:
                    raise Closed("connection closed inside a chunked body")
                size = int(size_line.split(b";")[0], 16)
                data = await self.reader.readexactly(size + 2)  # the chunk and its CRLF
                if size == 0:
                    return
                yield data[:-2]
        else:
            yield await self.reader.readexactly(int(head.get("content-length", "0")))

    async def body(self, head: dict) -> bytes:
        parts = [part async for part in self.chunks(head)]
        if head.get("connection", "").lower() == "close":
            self.close()
        return b"".join(parts)


class Records:
    """What one client process saw, in plain lists (sent to the parent as they are)."""

    def __init__(self) -> None:
        self.posts: list[tuple] = []  # (match, position, seq, t_start, t_end, repeated)
        self.turns: list[tuple] = []  # (match, position, actions, t_received): an event awaiting the seat
        self.overs: list[tuple] = []  # (match, position, t_received)
        self.errors: dict[str, int] = {}  # what failed ("stream 500", "move 409", ...): how often
        self.messages: list[str] = []

    def error(self, kind: str, text: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.messages) < ERRORS_KEPT:
            self.messages.append(text)


def sse_events(buffer: bytearray):
    """Take the complete events off ``buffer``: (id, name, data) each; comments and the retry
    line are dropped."""
    while (end := buffer.find(b"\n\n")) >= 0:
        block = bytes(buffer[:end])
        del buffer[:end + 2]
        event_id, name, data = None, "message", b""
        for line in block.split(b"\n"):
            field, _, value = line.partition(b": ")
            if field == b"id":
                event_id = value.decode()
            elif field == b"event":
                name = value.decode()
            elif field == b"data":
                data = value
        if data:
            yield event_id, name, data


async def read_stream(seat: dict, port: int, turns: asyncio.Queue, ready: asyncio.Event, rec: Records) -> None:
    """Follow one seat's event stream until its match is over: every event that awaits the
    seat goes to ``turns``, timed on arrival; None at the end. ``ready`` is set at the first
    event (the match as it stands)."""
    match, position = seat["match"], seat["position"]
    path = f"/api/matches/{match}/seats/{position}/events/"
    # The data of a view event is compact JSON in a fixed key order: this seat's turn is seen
    # without parsing the three quarters of the events that await another seat.
    mine = f'"waiting_for":{position},'.encode()
    last_id = None
    try:
        for attempt in range(STREAM_RECONNECTS + 1):
            conn = Connection(port)
            headers = {"Authorization": f"Bearer {seat['token']}", "Accept": "text/event-stream"}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            try:
                status, head = await asyncio.wait_for(conn.send("GET", path, headers), CONNECT_TIMEOUT + POST_TIMEOUT)
                if status != 200:
                    body = await asyncio.wait_for(conn.body(head), POST_TIMEOUT)
                    rec.error(f"stream {status}", f"stream {match}/{position}: {status} {body[:300]!r}")
                    return
                buffer = bytearray()
                pieces = aiter(conn.chunks(head))
                while True:
                    try:
                        piece = await asyncio.wait_for(anext(pieces), STREAM_IDLE_TIMEOUT)
                    except StopAsyncIteration:
                        break
                    received = time.monotonic()
                    buffer += piece
                    for event_id, name, data in sse_events(buffer):
                        last_id = event_id or last_id
                        ready.set()
                        if name == "over":
                            rec.overs.append((match, position, received))
                            return
                        if name == "view" and mine in data:
                            view = json.loads(data)
                            if view["status"] == "running" and view["view"].get("legal_actions"):
                                rec.turns.append((match, position, view["actions"], received))
                                turns.put_nowait(view)
            except (OSError, Closed, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
                rec.error(f"stream {type(exc).__name__}", f"stream {match}/{position}: {type(exc).__name__}: {exc}")
            finally:
                conn.close()
            await asyncio.sleep(0.2 * (attempt + 1))
        rec.error("stream given up", f"stream {match}/{position}: gave up after {STREAM_RECONNECTS} reconnections")
    finally:
        ready.set()
        turns.put_nowait(None)


async def post_action(conn: Connection, seat: dict, action: dict, key: str) -> tuple[int, bytes]:
    """POST one action on a keep-alive connection; once more, with the same Idempotency-Key,
    on a fresh connection if the server had closed the idle one (the move applies once)."""
    path = f"/api/matches/{seat['match']}/seats/{seat['position']}/actions/"
    headers = {"Authorization": f"Bearer {seat['token']}", "Accept": "application/json",
               "Content-Type": "application/json", "Idempotency-Key": key}
    body = json.dumps({"action": action}).encode()
    for attempt in (1, 2):
        try:
            status, head = await asyncio.wait_for(conn.send("POST", path, headers, body), POST_TIMEOUT)
            return status, await asyncio.wait_for(conn.body(head), POST_TIMEOUT)
        except (Closed, ConnectionError, asyncio.IncompleteReadError):
            conn.close()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def play_seat(seat: dict, ports: tuple[int, int], go: asyncio.Event, ready: asyncio.Event, rec: Records,
                    rng: random.Random, think: float) -> None:
    """Play one seat: a random legal action on each of its turns, once ``go`` is set, after
    ``think`` seconds on average (uniform from 0 to twice that). ``ports``: the server of the
    event streams, the server of the moves (the same one unless ``--split``)."""
    turns: asyncio.Queue = asyncio.Queue()
    reader = asyncio.create_task(read_stream(seat, ports[0], turns, ready, rec))
    conn = Connection(ports[1])
    match, position = seat["match"], seat["position"]
    played = -1  # the number of actions the seat's last move was made at
    try:
        while (view := await turns.get()) is not None:
            if view["actions"] <= played:
                continue  # the same turn sent again (its clock read before the action that awaits it)
            played = view["actions"]
            await go.wait()
            if think:
                await asyncio.sleep(rng.uniform(0, 2 * think))
            action = rng.choice(view["view"]["legal_actions"])
            started = time.monotonic()
            try:
                status, body = await post_action(conn, seat, action, f"{match}-{position}-{view['actions']}")
            except (OSError, Closed, asyncio.IncompleteReadError, TimeoutError) as exc:
                rec.error(f"move {type(exc).__name__}", f"move {match}/{position}: {type(exc).__name__}: {exc}")
                conn.close()
                continue
            ended = time.monotonic()
            if status != 200:
                rec.error(f"move {status}", f"move {match}/{position} at {view['actions']}: {status} {body[:300]!r}")
                continue
            acted = json.loads(body)
            rec.posts.append((match, position, acted["seq"], started, ended, acted["repeated"]))
    finally:
        conn.close()
        reader.cancel()


async def client_run(index: int, ports: tuple[int, int], seats: list[dict], deadline: float, seed: int, think: float,
                     barrier) -> Records:
    rec = Records()
    go = asyncio.Event()
    ready = [asyncio.Event() for _ in seats]
    rngs = [random.Random(f"{seed}-{seat['match']}-{seat['position']}") for seat in seats]
    tasks = [asyncio.create_task(play_seat(seat, ports, go, r, rec, rng, think))
             for seat, r, rng in zip(seats, ready, rngs)]
    loop = asyncio.get_running_loop()
    try:
        # Every stream open and its first event in, then all the clients start at once.
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in ready)), max(1.0, deadline - time.monotonic()))
        await loop.run_in_executor(None, barrier.wait, max(1.0, deadline - time.monotonic()))
    except (TimeoutError, threading.BrokenBarrierError) as exc:
        rec.error("client not started", f"client {index}: not started: {type(exc).__name__}")
        barrier.abort()
    else:
        go.set()
        await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return rec


def client_process(index: int, ports: tuple[int, int], seats: list[dict], deadline: float, seed: int, think: float, barrier,
                   out) -> None:
    """A client process: plays ``seats`` until their matches are over or ``deadline`` (monotonic),
    then sends its records to the parent through ``out``."""
    try:
        rec = asyncio.run(client_run(index, ports, seats, deadline, seed, think, barrier))
    except BaseException as exc:  # noqa: BLE001 - the parent reports it
        rec = Records()
        rec.error("client failed", f"client {index} failed: {type(exc).__name__}: {exc}")
    out.put({"index": index, **vars(rec)})


# --- the parent: database, data, server, figures ---------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0-100) of ``values`` (not empty)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def database_recreate(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def database_drop(name: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def setup_tournament(args, options: dict) -> list[dict]:
    """The remote bots, their tokens and the online tournament, started and its matches opened;
    returns the seats to play: match, position, token."""
    from django.contrib.auth import get_user_model

    from tournaments.models import Seat
    from tournaments.services import online
    from tournaments.services.players import player_create
    from tournaments.services.tokens import token_create
    from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

    User = get_user_model()
    organiser = User.objects.create_user("organiser")
    tokens = {}
    bots = []
    for i in range(args.seats):
        user = User.objects.create_user(f"owner-{i}")
        bot = player_create(name=f"remote-{i}", kind="bot", bot_kind="remote", owner=user)
        _, tokens[bot.pk] = token_create(user=user, name="bench", scopes=["read", "play"], bot=bot)
        bots.append(bot)
    # One Swiss round seats every entrant at once (a round robin makes as many rounds as it
    # needs for everyone to meet, and opens the next as soon as the first closes).
    tournament = tournament_create(
        name="Bench online", slug="bench-online", game=args.game, table_size=args.table_size, format="swiss",
        format_config={"rounds": 1}, options=options, online=True, move_seconds=3600, seed=7, owner=organiser,
    )
    for bot in bots:
        entry_add(tournament=tournament, player=bot)
    _, progress = tournament_start(tournament=tournament)
    online.online_matches_open(match_ids=list(progress.to_open))
    seats = (Seat.objects.filter(match_id__in=progress.to_open).select_related("player")
             .order_by("match_id", "position"))
    return [{"match": s.match_id, "position": s.position, "token": tokens[s.player_id]} for s in seats]


def start_server(args, env: dict, port: int, log, command: list[str] | None = None) -> subprocess.Popen:
    """The web server (uvicorn serving ``args.app`` unless ``command`` says otherwise), once it
    answers /healthz."""
    server = subprocess.Popen(
        command or [sys.executable, "-m", "uvicorn", args.app, "--host", HOST, "--port", str(port),
                    "--workers", str(args.workers), "--no-access-log", "--log-level", "warning",
                    "--no-proxy-headers",  # as compose runs it: the caller's address is the connection's
                    # Longer than the gaps between a seat's moves: each seat keeps its connection.
                    "--timeout-keep-alive", "60"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not answer /healthz within 60 s")


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process group (uvicorn and its workers), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


def cpu_snapshot() -> tuple[dict[int, tuple[str, int, float]], list[int]]:
    """The CPU seconds of every process ({pid: (name, process group, seconds)}) and the
    machine's CPU counters (/proc/stat), to see where the time went during the play."""
    tick = os.sysconf("SC_CLK_TCK")
    processes = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    head, _, rest = f.read().rpartition(")")
            except OSError:  # gone meanwhile
                continue
            fields = rest.split()  # state, ppid, pgrp, ... utime and stime are the 12th and 13th
            seconds = (int(fields[11]) + int(fields[12])) / tick
            processes[int(entry.name)] = (head.partition("(")[2], int(fields[2]), seconds)
    with open("/proc/stat") as f:
        machine = [int(x) for x in f.readline().split()[1:]]
    return processes, machine


def cpu_use(before, after, servers: dict[str, int], clients: set[int]) -> tuple[dict[str, float], float]:
    """CPU seconds between two snapshots by group (each server: its process group, by name;
    clients; postgres; redis; everything else) and the machine's busy share."""
    groups = {**dict.fromkeys(servers, 0.0), "clients": 0.0, "postgres": 0.0, "redis": 0.0, "other": 0.0}
    by_group = {group: name for name, group in servers.items()}
    for pid, (name, group, seconds) in after[0].items():
        spent = seconds - (before[0][pid][2] if pid in before[0] and before[0][pid][0] == name else 0.0)
        key = (by_group[group] if group in by_group else "clients" if pid in clients
               else "postgres" if name == "postgres" else "redis" if name.startswith("redis") else "other")
        groups[key] += spent
    delta = [b - a for a, b in zip(before[1], after[1])]
    idle = delta[3] + delta[4]  # idle, iowait
    return groups, 1 - idle / sum(delta) if sum(delta) else 0.0


def run_clients(args, ports: tuple[int, int], seats: list[dict], deadline: float,
                servers: dict[str, int]) -> tuple[list[dict], float, tuple]:
    """Start the client processes, release them together, collect their records; returns them,
    the start time (monotonic) and the CPU each group of processes used meanwhile."""
    ctx = multiprocessing.get_context("spawn")  # no Django, no database connection inherited
    shares = [seats[i::args.clients] for i in range(args.clients)]  # a match's seats in different processes
    shares = [share for share in shares if share]
    barrier = ctx.Barrier(len(shares) + 1)
    out = ctx.Queue()
    procs = [ctx.Process(target=client_process, args=(i, ports, share, deadline, args.seed, args.think / 1000,
                                                       barrier, out), daemon=True)
             for i, share in enumerate(shares)]
    for proc in procs:
        proc.start()
    started = time.monotonic()
    before = cpu_snapshot()
    try:
        barrier.wait(timeout=max(1.0, deadline - time.monotonic()))
        started = time.monotonic()
        before = cpu_snapshot()
    except threading.BrokenBarrierError:
        print("  the clients could not all open their streams in time", flush=True)
    results = []
    grace = deadline + 20  # the clients stop at the deadline and report; past this they are killed
    while len(results) < len(procs) and time.monotonic() < grace:
        try:
            results.append(out.get(timeout=max(0.1, min(1.0, grace - time.monotonic()))))
        except queue.Empty:
            if not any(p.is_alive() for p in procs) and out.empty():
                break
    cpu = cpu_use(before, cpu_snapshot(), servers, {p.pid for p in procs})
    for proc in procs:
        proc.join(timeout=1)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=5)
    if len(results) < len(procs):
        print(f"  {len(procs) - len(results)} client process(es) reported nothing", flush=True)
    return results, started, cpu


def engine_floor() -> list[float]:
    """Seconds per move of the engine alone replaying every match's stored actions: ``apply``,
    then the next seat's ``view`` and its JSON, as a stream renders it (moves that end a match
    have no next seat, and no latency figure either)."""
    from django.core.serializers.json import DjangoJSONEncoder

    import engine
    from tournaments.models import Match

    times = []
    clock = time.perf_counter
    for match in Match.objects.select_related("round__tournament").prefetch_related("actions", "seats"):
        tournament = match.round.tournament
        actions = [a.action for a in sorted(match.actions.all(), key=lambda a: a.seq)]
        state = engine.game(tournament.game).new_match(players=len(match.seats.all()), seed=match.seed,
                                                       options=tournament.options, deck=match.deck)
        for action in actions:
            t0 = clock()
            state.apply(action)
            turn = state.current_player()
            if turn is not None:
                json.dumps(state.view(turn), cls=DjangoJSONEncoder, separators=(",", ":"))
                times.append(clock() - t0)
    return times


def report(args, options: dict, seats: list[dict], results: list[dict], started: float, cpu: tuple,
           floor: list[float]) -> bool:
    """Print the figures; True when nothing went wrong."""
    posts = [p for r in results for p in r["posts"]]
    turns: dict[tuple[int, int], float] = {}  # (match, actions): when the event awaiting a seat first came
    for r in results:
        for m, _, n, t in r["turns"]:
            turns[m, n] = min(t, turns.get((m, n), t))
    overs = {m: t for r in results for (m, _, t) in r["overs"]}
    matches = {s["match"] for s in seats}
    errors: dict[str, int] = {}
    for r in results:
        for kind, n in r["errors"].items():
            errors[kind] = errors.get(kind, 0) + n
    applied = [p for p in posts if not p[5]]
    # A move's latency: from its POST's start to the event awaiting the next seat (the match
    # with one more action); a match's last move has none.
    latencies = [turns[(m, seq + 1)] - t0 for (m, _, seq, t0, _, _) in applied if (m, seq + 1) in turns]
    trips = [t1 - t0 for (_, _, _, t0, t1, _) in posts]
    ends = [p[4] for p in posts] + list(overs.values())
    wall = (max(ends) - started) if ends else 0.0

    print(f"{args.game} {options}, tables of {args.table_size}: {len(seats)} remote seats in {len(matches)} matches, "
          f"{len(results)} client processes, {args.workers} uvicorn worker(s), DATABASE_POOL {args.pool}, "
          f"{f'moves through gunicorn x{args.web_workers}, ' if args.split else ''}"
          f"think time {args.think:g} ms")
    print(f"  moves:                      {len(applied):,} in {wall:.2f} s: {len(applied) / wall if wall else 0:,.1f} "
          f"moves/s ({len(overs)}/{len(matches)} matches over)")
    if latencies:
        ms = [x * 1000 for x in latencies]
        print(f"  POST -> next seat's event:  p50 {percentile(ms, 50):6.1f} ms  p90 {percentile(ms, 90):6.1f} ms  "
              f"p99 {percentile(ms, 99):6.1f} ms  max {max(ms):6.1f} ms  ({len(ms):,} moves)")
    if trips:
        ms = [x * 1000 for x in trips]
        print(f"  POST round trip:            p50 {percentile(ms, 50):6.1f} ms  p99 {percentile(ms, 99):6.1f} ms  "
              f"mean {statistics.fmean(ms):.1f} ms")
    if floor:
        us = [x * 1e6 for x in floor]
        print(f"  engine alone (apply + view + JSON): p50 {percentile(us, 50):6.0f} µs  "
              f"p99 {percentile(us, 99):6.0f} µs per move ({len(us):,} moves)")
    groups, busy = cpu
    if applied:
        print("  CPU per move:               " + "  ".join(f"{name} {seconds / len(applied) * 1000:.1f} ms"
                                                            for name, seconds in groups.items())
              + f"  (machine {busy:.0%} busy, {os.cpu_count()} cores)")
        # Another process's work (a test suite, a build) slows the server and the clients
        # alike: the figures of such a run are not the server's.
        share = groups["other"] / (wall * (os.cpu_count() or 1)) if wall else 0.0
        if share > 0.1:
            print(f"  note: other processes took {share:.0%} of the machine meanwhile: these figures are disturbed")
    if errors:
        print(f"  errors: {', '.join(f'{kind} x{n}' for kind, n in sorted(errors.items()))}; the first ones:")
        for message in [m for r in results for m in r["messages"]][:ERRORS_KEPT]:
            print(f"    {message}")
    if latencies:
        p99 = percentile([x * 1000 for x in latencies], 99)
        scale = "" if len(seats) == GOAL_SEATS else f" (measured at {len(seats)} seats, the goal is at {GOAL_SEATS})"
        print(f"  goal: p99 under {GOAL_P99_MS:.0f} ms at {GOAL_SEATS} concurrent seats: "
              f"{'met' if p99 < GOAL_P99_MS else 'NOT met'}{scale}")
    return not errors and len(overs) == len(matches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=200, help=f"concurrent remote seats (at most {MAX_SEATS})")
    parser.add_argument("--clients", type=int, default=8, help=f"client processes (at most {MAX_CLIENTS})")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--pool", type=int, default=16, help="DATABASE_POOL: connections per uvicorn worker")
    parser.add_argument("--split", action="store_true",
                        help="as docker/compose.yaml serves them: the streams by uvicorn, the moves by gunicorn")
    parser.add_argument("--web-workers", type=int, default=2, help="--split: gunicorn processes")
    parser.add_argument("--web-threads", type=int, default=4, help="--split: threads per gunicorn process")
    parser.add_argument("--web-worker-class", choices=["gthread", "sync"], default="gthread",
                        help="--split: gunicorn's workers (sync: one request at a time, no keep-alive)")
    parser.add_argument("--app", default="tournaments.asgi:application",
                        help="the ASGI application uvicorn serves (a variant under trial: put it on PYTHONPATH)")
    parser.add_argument("--game", default="stoppa", choices=sorted(GAME_OPTIONS))
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option (default: a short match of the game)")
    parser.add_argument("--seed", type=int, default=1, help="the clients' random choices")
    parser.add_argument("--think", type=float, default=0, metavar="MS",
                        help="a seat's mean time to choose, in ms (default 0: it moves as soon as it is awaited)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds for the whole run")
    parser.add_argument("--keep-db", action="store_true", help=f"keep the database {DATABASE} afterwards")
    args = parser.parse_args()
    if not 0 < args.seats <= MAX_SEATS or args.seats % args.table_size:
        parser.error(f"--seats must be a multiple of --table-size, at most {MAX_SEATS}")
    if not 0 < args.clients <= MAX_CLIENTS or not 0 < args.workers <= 8 or not 0 < args.pool <= 40:
        parser.error(f"--clients is 1 to {MAX_CLIENTS}, --workers 1 to 8, --pool 1 to 40")
    deadline = time.monotonic() + args.timeout

    url = f"{POSTGRES}/{DATABASE}"
    env = dict(os.environ, DATABASE_URL=url, EVENTS_REDIS_URL=REDIS, DEBUG="false", ALLOWED_HOSTS=HOST,
               SECRET_KEY="bench-only-not-secret", DJANGO_SETTINGS_MODULE="tournaments.settings", LOG_LEVEL="WARNING")
    for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DATABASE_CONN_MAX_AGE", "DATABASE_POOL"):
        env.pop(name, None)  # eager tasks; this process's own connection; the server's pool below
        os.environ.pop(name, None)
    os.environ.update(env)

    options = dict(GAME_OPTIONS[args.game])
    for pair in args.option:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            parser.error(f"--option must look like KEY=VALUE, got {pair!r}")
        try:  # JSON where it parses (numbers, true, lists), else the plain string, as run_tournament
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    database_recreate(DATABASE)
    server = web = None
    log = tempfile.NamedTemporaryFile("w+", prefix="bench-online-uvicorn-", suffix=".log", delete=False)
    ok = False
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                       check=True, timeout=max(1.0, deadline - time.monotonic()))
        import django

        django.setup()
        from django.db import connection

        t0 = time.monotonic()
        seats = setup_tournament(args, options)
        connection.close()
        print(f"  set up {len(seats)} seats in {time.monotonic() - t0:.1f} s; starting uvicorn", flush=True)
        port = free_port()
        server = start_server(args, dict(env, DATABASE_POOL=str(args.pool)), port, log)
        ports, servers = (port, port), {"uvicorn": server.pid}
        if args.split:
            web_port = free_port()
            web = start_server(args, dict(env, DATABASE_CONN_MAX_AGE="600"), web_port, log, command=[
                sys.executable, "-m", "gunicorn", "tournaments.wsgi:application", "--bind", f"{HOST}:{web_port}",
                "--workers", str(args.web_workers), "--worker-class", args.web_worker_class,
                "--threads", str(args.web_threads), "--config", "python:tournaments.gunicorn_conf",
                "--keep-alive", "60", "--log-level", "warning"])
            ports, servers = (port, web_port), {**servers, "gunicorn": web.pid}
        results, started, cpu = run_clients(args, ports, seats, deadline, servers)
        stop(server)
        if args.split:
            stop(web)
        floor = engine_floor()
        connection.close()
        ok = report(args, options, seats, results, started, cpu, floor)
    finally:
        for process in (server, web):
            if process is not None:
                stop(process)
        log.flush()
        if not ok:  # kept for a look
            log.seek(0)
            tail = log.read()[-4000:]
            print(f"uvicorn's log ({log.name}), its end:\n{tail}" if tail.strip() else "uvicorn's log is empty")
        log.close()
        if ok:
            os.unlink(log.name)
        if not args.keep_db:
            try:
                from django.db import connections

                connections.close_all()
            except Exception:  # noqa: BLE001 - Django never set up: nothing to close
                pass
            database_drop(DATABASE)


if __name__ == "__main__":
    main()
