"""Nothing committed waits on a message that can be lost (issue 29), with real processes: a web
process serving moves (runserver, on the test's PostgreSQL database), the services leg's Celery
worker, and the clock check run here as beat runs it.

(a) The web process is killed (SIGKILL) right after the commit of the move that closes a round,
    before the message that opens the next round's online match leaves it.
(b) The broker is down for the web process while such a move is made.

In both, the next round's online match is opened by its watchdog and, nobody acting (the
people's clocks run out, the timeout policy forfeits their seats, the fallback bots play on),
the tournament finishes; in (b) the move was answered 200. Before, the round stayed pending for
ever (and in (b) the move answered 500 after committing).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tournaments import online_reads
from tournaments.models import Match, Tournament
from tournaments.services import dispatch, online
from tournaments.services.players import player_create
from tournaments.services.tokens import token_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]

# The web process, the message that opens online matches made to fail as the case says: "kill"
# dies as a SIGKILL would, right after the commit (dispatch sends on commit), in the middle of
# the request; "refuse" finds the broker down (Redis stopped) for that message.
WEB_PROCESS = textwrap.dedent("""
    import os, signal, sys
    import django
    django.setup()
    from celery import current_app
    from kombu.exceptions import OperationalError
    from tournaments.services import dispatch
    if sys.argv[2] == "kill":
        sending = dispatch._send
        def send(name, args):
            if name == dispatch.OPEN_ONLINE:
                os.kill(os.getpid(), signal.SIGKILL)
            sending(name, args)
        dispatch._send = send
    else:
        def down(*args, **kwargs):
            raise OperationalError("Error 111 connecting to the broker. Connection refused.")
        current_app.tasks[dispatch.OPEN_ONLINE].apply_async = down
    from django.core.management import call_command
    call_command("runserver", "--noreload", "--nothreading", sys.argv[1])
""")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def web(settings):
    """Start a web process on the test's database, its opening messages failing as ``fault``
    says ("kill" or "refuse"): ``web(fault)`` -> its URL and the process."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL:
        pytest.skip("needs PostgreSQL, Redis and a worker: scripts/test-services")
    started = []

    def start(fault: str):
        db = connection.settings_dict
        port = free_port()
        env = {**os.environ, "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
               "ALLOWED_HOSTS": "127.0.0.1", "DJANGO_SETTINGS_MODULE": "tournaments.settings",
               "PYTHONPATH": str(ROOT)}
        server = subprocess.Popen([sys.executable, "-c", WEB_PROCESS, f"127.0.0.1:{port}", fault], cwd=ROOT,
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(server)
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{url}/healthz", timeout=1).close()
                return url, server
            except OSError:
                assert server.poll() is None, "the web process exited"
                time.sleep(0.1)
        raise AssertionError("the web process never answered")

    yield start
    for server in started:
        if server.poll() is None:
            server.kill()
        server.wait(timeout=30)


def post(url: str, token: str, body: dict) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def two_rounds(slug: str, seed: int):
    """An online Swiss of two rounds between two people, ada and bea (Spacca il mazzo, a short
    game, 5 s a move, a seat forfeited when its time runs out), so that a person's move closes
    round 1; round 1 opened by the worker. Returns the tournament, each seat's player's token
    by player id, and round 1's match."""
    tokens, people = {}, []
    for name in ("ada", "bea"):
        user = get_user_model().objects.create_user(f"{name}-{slug}")
        person = player_create(name=f"{name}-{slug}", kind="person", owner=user)
        _, tokens[person.pk] = token_create(user=user, name="play", scopes=["read", "play"])
        people.append(person)
    tournament = tournament_create(name=slug, slug=slug, game="spacca_il_mazzo", table_size=2, format="swiss",
                                   format_config={"rounds": 2}, options={"turn_limit": 12}, online=True,
                                   move_seconds=5, seed=seed,
                                   owner=get_user_model().objects.create_user(f"olga-{slug}"))
    for person in people:
        entry_add(tournament=tournament, player=person)
    _, progress = tournament_start(tournament=tournament)
    dispatch.send_progress(progress)  # to the worker
    return tournament, tokens, Match.objects.get(pk=progress.to_open[0])


def until(check, seconds: float, what: str, beat: bool = False):
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if beat:
            dispatch.send_progress(online.deadlines_expire())  # what beat runs every second
        if (found := check()) is not None:
            return found
        time.sleep(0.25)
    raise AssertionError(f"{what}: not within {seconds} s")


def awaited(match: Match):
    match = Match.objects.select_related("round__tournament").get(pk=match.pk)
    return online_reads.table_load(match).waits_for() if match.status == Match.Status.RUNNING else None


def close_round_one(url: str, tokens: dict, match: Match) -> int | None:
    """Play both people's seats through the web process until round 1 is over; the status of
    the move that closed it (None: the web process died answering it)."""
    players = dict(match.seats.values_list("position", "player_id"))
    while True:
        seat = until(lambda: awaited(match), 60, "a person's turn")
        view = online_reads.seat_view(match=match, position=seat)
        after = online_reads.table_load(match).state.clone()
        action = view["view"]["legal_actions"][0]
        after.apply(action)
        try:
            status = post(f"{url}/api/matches/{match.pk}/seats/{seat}/actions/", tokens[players[seat]],
                          {"action": action, "actions": view["actions"]})
        except (urllib.error.URLError, ConnectionError):
            status = None  # the web process died before answering
        if after.is_over():
            return status
        assert status == 200


def finishes_by_itself(tournament: Tournament) -> None:
    second = until(lambda: Match.objects.filter(round__tournament=tournament, round__number=2).first(), 30,
                   "round 2 made")
    assert second.status == Match.Status.PENDING  # its opening message is lost
    until(lambda: True if Tournament.objects.get(pk=tournament.pk).status == "finished" else None, 120,
          "the tournament finished, nobody acting", beat=True)
    second.refresh_from_db()
    assert second.status == Match.Status.FINISHED
    assert set(second.seats.values_list("forfeit_reason", flat=True)) == {"timeout"}  # nobody acted


def test_a_web_process_killed_right_after_a_round_closing_commit_loses_nothing(web):
    url, server = web("kill")
    tournament, tokens, first = two_rounds("killed", seed=31)
    assert close_round_one(url, tokens, first) is None  # killed before it answered...
    assert server.wait(timeout=30) == -9
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED  # ...after its commit
    finishes_by_itself(tournament)


def test_a_round_closing_move_made_while_the_broker_is_down_is_answered_200_and_loses_nothing(web):
    url, _ = web("refuse")
    tournament, tokens, first = two_rounds("no-broker", seed=32)
    assert close_round_one(url, tokens, first) == 200
    finishes_by_itself(tournament)
