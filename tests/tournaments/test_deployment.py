"""The deployment's two web servers, run as docker/compose.yaml runs them, on this test's
PostgreSQL database, Redis and Celery worker (scripts/test-services): gunicorn, whose few threads
event streams sent to it by mistake must not hold, and uvicorn, which must stop within seconds
of SIGTERM however many streams it holds."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import tempfile
import time
import urllib.request

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from tests.test_docker import deployed_env, free_port, server_command, start_server, stop_server
from tournaments.models import Match
from tournaments.services import dispatch
from tournaments.services.players import player_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

STREAMS = 8  # compose's gunicorn: 2 workers x 4 threads


@pytest.fixture
def services_env() -> dict[str, str]:
    """A deployment's environment on this test's database, Redis and broker."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL:
        pytest.skip("needs PostgreSQL, Redis and a worker: scripts/test-services")
    db = connection.settings_dict
    return deployed_env(DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
                        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
                        CELERY_RESULT_BACKEND=settings.CELERY_RESULT_BACKEND,
                        EVENTS_REDIS_URL=settings.EVENTS_REDIS_URL, CACHE_URL=os.environ.get("CACHE_URL", ""))


def a_match_in_play() -> Match:
    """An online Sette e mezzo match of three people, opened by the worker and waiting for its
    first move: a spectator's stream of it stays open."""
    people = [player_create(name=f"person-{i}", kind="person",
                            owner=get_user_model().objects.create_user(f"person-{i}")) for i in range(3)]
    tournament = tournament_create(name="Night", slug="night", game="sette_e_mezzo", table_size=3,
                                   format="round_robin", format_config={}, options={"hands": 1}, online=True,
                                   move_seconds=600)
    for person in people:
        entry_add(tournament=tournament, player=person)
    _, progress = tournament_start(tournament=tournament)
    dispatch.send_progress(progress)
    ends = time.monotonic() + 60
    while time.monotonic() < ends:
        match = Match.objects.get(round__tournament=tournament)
        if match.status == Match.Status.RUNNING and match.deadline_at is not None:
            return match
        time.sleep(0.1)
    raise AssertionError("the worker did not open the match")


def open_stream(url: str, path: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=20)
    conn.request("GET", path, headers={"Accept": "text/event-stream"})
    return conn, conn.getresponse()


def test_event_streams_sent_to_gunicorn_leave_the_site_answering(services_env):
    """Eight spectators' streams sent to gunicorn (compose's 2 x 4 threads) by mistake: each is
    refused at once, 503 naming the ASGI server, and /healthz and the API answer while their
    connections stay open. Served, they held every thread, and the site answered nothing."""
    match = a_match_in_play()
    with tempfile.TemporaryFile() as log:
        server, url = start_server(server_command("web", free_port()), {**services_env, "DATABASE_CONN_MAX_AGE": "600"},
                                   log)
        opened = []
        try:
            for _ in range(STREAMS):
                opened.append(open_stream(url, f"/api/matches/{match.pk}/events/"))
            started = time.monotonic()
            with urllib.request.urlopen(f"{url}/healthz", timeout=3) as health:
                assert health.status == 200
            with urllib.request.urlopen(f"{url}/api/matches/{match.pk}/", timeout=3) as read:
                assert json.loads(read.read())["status"] == "running"
            assert time.monotonic() - started < 3
            for _, answer in opened:
                assert answer.status == 503
                error = json.loads(answer.read())["error"]
                assert error["code"] == "streams_elsewhere" and "ASGI server" in error["message"]
        finally:
            for conn, _ in opened:
                conn.close()
            stop_server(server)


def test_sigterm_ends_the_streams_server_within_seconds_with_streams_open(services_env):
    """uvicorn as compose runs it (two processes), with spectators' streams open on both: SIGTERM
    ends each stream cleanly (its clients resume with Last-Event-ID) and the server within 10 s,
    its port free for the next. It used to wait for the streams, up to STREAM_MAX_SECONDS."""
    match = a_match_in_play()
    port = free_port()
    with tempfile.TemporaryFile() as log:
        server, url = start_server(server_command("streams", port), {**services_env, "DATABASE_POOL": "4"}, log)
        opened = []
        try:
            for _ in range(6):  # spread over both processes
                conn, answer = open_stream(url, f"/api/matches/{match.pk}/events/")
                assert answer.status == 200
                assert answer.readline() == b"retry: 2000\n"  # the stream is under way
                opened.append((conn, answer))
            started = time.monotonic()
            server.send_signal(signal.SIGTERM)  # as compose stops it: to the server, which stops its processes
            server.wait(timeout=10)
            took = time.monotonic() - started
            for conn, answer in opened:
                rest = answer.read()  # the whole stream, to its end: a clean close, not a cut
                assert b"event: view" in rest or rest.strip() == b"", rest[:200]
                conn.close()
        finally:
            stop_server(server)
        log.seek(0)
        output = log.read().decode(errors="replace")
    assert took < 10, output[-3000:]
    assert "Traceback" not in output and "Cancel" not in output, output[-3000:]  # no stream left to be cut
    with socket.socket() as again:  # nothing listens on the port: a restart binds it, as uvicorn does
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))
        again.listen()
