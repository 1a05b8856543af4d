"""examples/remote_bot.py, run as a separate process, plays a remote bot's seats in an online
tournament against built-in bots to the end, over HTTP and its event stream alone: against the
test's live server (WSGI, the in-process events hub), and — with PostgreSQL, Redis and a real
Celery worker (scripts/test-services) — against uvicorn serving tournaments.asgi as a
deployment does, its events fanned out through Redis."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tournaments.models import Match, MatchAction, Tournament
from tournaments.services import dispatch, players, tokens
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

ROOT = Path(__file__).resolve().parents[2]


def online_tournament(slug: str):
    """A remote bot and five built-in bots in an online Sette e mezzo round robin of threes, four
    cycles: 24 matches, 12 of them the remote bot's. Returns (tournament, remote, its token)."""
    author = get_user_model().objects.create_user("author")
    remote = players.player_create(name="far-away", kind="bot", bot_kind="remote", owner=author)
    _, secret = tokens.token_create(user=author, name="remote", scopes=["read", "play"], bot=remote)
    field = [remote] + [builtin_bot_get_or_create(bot=bot, name=f"{bot}-{i}")
                        for i, bot in enumerate(["random", "heuristic", "expectimax", "random", "heuristic"])]
    tournament = tournament_create(name="Remote night", slug=slug, game="sette_e_mezzo", table_size=3,
                                   format="round_robin", format_config={"cycles": 4}, options={"hands": 2},
                                   online=True, move_seconds=60, seed=5)
    for player in field:
        entry_add(tournament=tournament, player=player)
    return tournament, remote, secret


def start_and_play(tournament, secret: str, url: str, *, idle_exit: float):
    _, progress = tournament_start(tournament=tournament)
    dispatch.send_progress(progress)  # as the API's start does: eager, or to the worker
    done = subprocess.run(
        [sys.executable, "examples/remote_bot.py", "--url", url, "--token", secret, "--idle-exit", str(idle_exit),
         "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stdout.strip())


def check_played_to_the_end(tournament, remote, played: int) -> None:
    tournament.refresh_from_db()
    matches = Match.objects.filter(round__tournament=tournament)
    assert tournament.status == Tournament.Status.FINISHED
    assert matches.count() == 24 and not matches.exclude(status=Match.Status.FINISHED).exists()
    # The remote bot played every one of its seats itself: no timeout, no forfeit.
    mine = matches.filter(seats__player=remote)
    assert mine.count() == 12
    assert not mine.filter(seats__player=remote, seats__forfeit_reason__gt="").exists()
    by_seat = MatchAction.objects.filter(match__in=mine, by="seat").count()
    assert by_seat > 0 and played == by_seat


@pytest.mark.django_db(transaction=True)
def test_the_example_remote_bot_plays_an_online_tournament_to_the_end(live_server, settings):
    settings.ALLOWED_HOSTS = ["*"]
    tournament, remote, secret = online_tournament("remote-night")
    played = start_and_play(tournament, secret, live_server.url, idle_exit=2)
    check_played_to_the_end(tournament, remote, played)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def uvicorn_server(settings):
    """uvicorn serving tournaments.asgi on this test's PostgreSQL database, with the events hub
    on the test's Redis and tasks sent to its worker: the deployment's web process."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL:
        pytest.skip("needs PostgreSQL, Redis and a worker: scripts/test-services")
    db = connection.settings_dict
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
           "DATABASE_POOL": "4", "ALLOWED_HOSTS": "127.0.0.1", "DEBUG": "false", "SECRET_KEY": "test-uvicorn-" * 4,
           "EVENTS_REDIS_URL": settings.EVENTS_REDIS_URL}
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen([sys.executable, "-m", "uvicorn", "tournaments.asgi:application", "--host",
                                   "127.0.0.1", "--port", str(port), "--workers", "2", "--no-proxy-headers"],
                                  cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{url}/healthz", timeout=1).close()
                    break
                except OSError:
                    assert server.poll() is None, "uvicorn exited"
                    time.sleep(0.1)
            yield url
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.seek(0)
            errors = [line for line in log.read().decode(errors="replace").splitlines() if "Traceback" in line]
            assert not errors, "uvicorn logged exceptions"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_the_example_remote_bot_plays_an_online_tournament_through_uvicorn(uvicorn_server, settings):
    assert settings.EVENTS_REDIS_URL.startswith("redis://")
    tournament, remote, secret = online_tournament("remote-night-asgi")
    played = start_and_play(tournament, secret, uvicorn_server, idle_exit=3)
    check_played_to_the_end(tournament, remote, played)
