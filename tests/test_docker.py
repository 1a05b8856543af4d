"""docker/ is read, not run, here (no Docker engine on the machine): these tests hold its files to
the code. nginx sends exactly the event streams to uvicorn and the rest to gunicorn; each service
runs the server and the settings it is meant to."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from tournaments.api.streams import STREAM_PATHS
from tournaments.config import database_config

ROOT = Path(__file__).resolve().parent.parent
DOCKER = ROOT / "docker"


@pytest.fixture(scope="module")
def compose() -> dict:
    """compose.yaml as docker compose reads it with no variable set: each ``${NAME:-default}``
    its default, a required ``${NAME:?why}`` a stand-in."""
    text = (DOCKER / "compose.yaml").read_text()
    text = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", text)
    text = re.sub(r"\$\{\w+:\?[^}]*\}", "set", text)
    assert "${" not in text
    return yaml.safe_load(text)


def test_nginx_sends_the_stream_paths_to_the_streams_server_and_the_rest_to_the_web_server():
    conf = (DOCKER / "nginx.conf").read_text()
    locations = dict(re.findall(r"location (~ \S+|/) \{(.*?)\}", conf, re.S))
    assert set(locations) == {f"~ {STREAM_PATHS}", "/"}
    assert "proxy_pass http://streams;" in locations[f"~ {STREAM_PATHS}"]
    assert "proxy_buffering off;" in locations[f"~ {STREAM_PATHS}"]
    assert "proxy_pass http://web;" in locations["/"]


@pytest.mark.parametrize("path, stream", [
    ("/api/matches/12/events/", True), ("/api/matches/12/seats/3/events/", True), ("/api/seats/events/", True),
    ("/api/matches/12/events.json", True),
    ("/api/matches/12/", False), ("/api/matches/12/seats/3/", False), ("/api/matches/12/seats/3/actions/", False),
    ("/api/seats/", False), ("/api/matches/12/replay/", False), ("/api/tournaments/4/events/x", False),
    ("/events/", False), ("/api/matches/12/events/extra/", False),
])
def test_the_stream_paths_are_the_streams_and_nothing_else(path, stream):
    from django.urls import resolve

    assert bool(re.match(STREAM_PATHS, path)) is stream
    if stream:  # and the site has such a stream there
        assert resolve(path).url_name.endswith("events")


def test_every_route_of_a_stream_is_a_stream_path():
    from django.urls import get_resolver

    def routes(resolver, prefix="^/"):
        for entry in resolver.url_patterns:
            pattern = prefix + str(entry.pattern).lstrip("^")
            if hasattr(entry, "url_patterns"):
                yield from routes(entry, pattern.rstrip("$"))
            else:
                yield pattern, entry

    streams = [pattern for pattern, entry in routes(get_resolver())
               if getattr(entry.callback, "actions", {}).get("get", "").endswith("events")]
    assert len(streams) == 6  # three streams, each also with a .format suffix
    for pattern in streams:
        sample = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: {"format": "json"}.get(m.group(1), "7"), pattern)
        sample = sample.replace("^", "").replace("$", "").replace("\\", "").replace("/?", "/")
        assert re.match(STREAM_PATHS, sample), sample


def test_each_service_runs_its_server_behind_the_proxy(compose):
    services = compose["services"]
    assert "gunicorn tournaments.wsgi:application" in " ".join(services["web"]["command"])
    assert services["streams"]["command"].startswith("uvicorn tournaments.asgi:application --host 0.0.0.0 --port 8001")
    assert services["proxy"]["ports"] == ["8000:80"] and "web" in services["proxy"]["depends_on"]
    conf = (DOCKER / "nginx.conf").read_text()
    assert "server web:8000;" in conf and "server streams:8001;" in conf
    for name in ("web", "streams", "worker", "clocks", "webhooks", "beat"):
        env = services[name]["environment"]
        assert env["API_NUM_PROXIES"] == "1", name  # one proxy in front: its address is not the caller's
        config = database_config(env, base_dir=Path("/app"))  # the service's settings are valid
        assert config["ENGINE"] == "tournaments.db.postgresql"
    web = database_config(services["web"]["environment"], base_dir=Path("/app"))
    assert web["CONN_MAX_AGE"] == 600 and "pool" not in web.get("OPTIONS", {})  # a connection per thread, kept
    streams = database_config(services["streams"]["environment"], base_dir=Path("/app"))
    assert streams["OPTIONS"]["pool"]["max_size"] >= 1


def test_each_class_of_work_has_a_worker_of_its_own(compose):
    """Matches, clocks and webhooks each have a worker consuming their queue and nothing else:
    a receiver that never answers holds only the webhooks worker (docker/compose.yaml says why)."""
    from django.conf import settings

    consumed = {}
    for name, service in compose["services"].items():
        words = service.get("command", "").split() if isinstance(service.get("command"), str) else []
        if words[:4] == ["celery", "-A", "tournaments", "worker"]:
            consumed[name] = words[words.index("-Q") + 1].split(",")
    assert consumed == {"worker": [settings.MATCH_QUEUE], "clocks": [settings.CLOCK_QUEUE],
                        "webhooks": [settings.WEBHOOK_QUEUE]}
    assert len({settings.MATCH_QUEUE, settings.CLOCK_QUEUE, settings.WEBHOOK_QUEUE}) == 3


def test_uvicorn_never_takes_the_callers_address_from_a_header(compose):
    """The app counts addresses itself (API_NUM_PROXIES): uvicorn's proxy-headers middleware,
    on by default for connections from 127.0.0.1, would put a forged X-Forwarded-For's address
    in its place, giving a caller a new anonymous budget and stream cap at every request."""
    assert "--no-proxy-headers" in compose["services"]["streams"]["command"].split()
    assert "--no-proxy-headers" in (DOCKER / "Dockerfile").read_text()  # the image alone serves with uvicorn too


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_forged_x_forwarded_for_does_not_change_the_address_uvicorn_serving_as_compose_does_counts(
        compose, tmp_path):
    """compose's streams command, on a free local port in one worker (without CACHE_URL each
    process counts in its own memory), with nothing in front (API_NUM_PROXIES 0): three requests
    from 127.0.0.1, each naming another address in X-Forwarded-For, share one budget of two."""
    words = compose["services"]["streams"]["command"].split()
    assert words[0] == "uvicorn"
    command = [sys.executable, "-m", *words]
    port = free_port()
    command[command.index("--host") + 1] = "127.0.0.1"
    command[command.index("--port") + 1] = str(port)
    command[command.index("--workers") + 1] = "1"
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "DEBUG": "false", "SECRET_KEY": "x" * 50,
           "ALLOWED_HOSTS": "127.0.0.1", "MAZZIERE_SQLITE_PATH": str(tmp_path / "db.sqlite3"),
           "API_NUM_PROXIES": "0", "API_ANON_RATE": "2/hour"}
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            statuses = []
            for forged in ("198.51.100.1", "198.51.100.2", "198.51.100.3"):
                request = urllib.request.Request(f"http://127.0.0.1:{port}/api/", headers={"X-Forwarded-For": forged})
                statuses.append(answer_status(request, server, log))
            assert statuses == [200, 200, 429]  # one caller, 127.0.0.1, whatever the header says
        finally:
            server.terminate()
            server.wait(timeout=30)


def answer_status(request, server, log) -> int:
    """The status of ``request``, waiting up to 60 s for the server to listen."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status
        except urllib.error.HTTPError as refused:
            return refused.code
        except (ConnectionError, urllib.error.URLError):
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise AssertionError(f"uvicorn did not answer: {log.read().decode()[-2000:]}") from None
            time.sleep(0.2)
