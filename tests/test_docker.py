"""docker/ is read, not run, here (no Docker engine on the machine): these tests hold its files to
the code. nginx sends exactly the event streams to uvicorn and the rest to gunicorn; each service
runs the server and the settings it is meant to."""

from __future__ import annotations

import json
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


def compose_file() -> dict:
    """compose.yaml as docker compose reads it with no variable set: each ``${NAME:-default}``
    its default, a required ``${NAME:?why}`` a stand-in."""
    text = (DOCKER / "compose.yaml").read_text()
    text = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", text)
    text = re.sub(r"\$\{\w+:\?[^}]*\}", "set", text)
    assert "${" not in text
    return yaml.safe_load(text)


@pytest.fixture(scope="module")
def compose() -> dict:
    return compose_file()


def server_command(service: str, port: int, *, workers: int | None = None) -> list[str]:
    """The server command compose runs for ``service`` (web: gunicorn, after its migrate;
    streams: uvicorn), on 127.0.0.1:``port``, run by this Python; ``workers`` instead of
    compose's number of processes."""
    command = compose_file()["services"][service]["command"]
    words = (command[-1].split("exec ", 1)[1] if isinstance(command, list) else command).split()
    assert words[0] in ("gunicorn", "uvicorn"), words
    if words[0] == "gunicorn":
        words[words.index("--bind") + 1] = f"127.0.0.1:{port}"
    else:
        words[words.index("--host") + 1] = "127.0.0.1"
        words[words.index("--port") + 1] = str(port)
    if workers is not None:
        words[words.index("--workers") + 1] = str(workers)
    return [sys.executable, "-m", *words]


def deployed_env(**more: str) -> dict[str, str]:
    """A deployment's environment (DEBUG off, a secret key), with ``more``; this checkout's code."""
    return {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "DEBUG": "false", "SECRET_KEY": "x" * 50,
            "ALLOWED_HOSTS": "127.0.0.1", **more}


def start_server(command: list[str], env: dict[str, str], log) -> tuple[subprocess.Popen, str]:
    """The server of ``command`` started (its output to ``log``), once ``/healthz`` answers
    (up to 60 s); returns it and its URL."""
    port = command[command.index("--port") + 1] if "--port" in command else command[command.index("--bind") + 1]
    url = f"http://127.0.0.1:{port.rsplit(':', 1)[-1]}"
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        answer_status(urllib.request.Request(f"{url}/healthz"), server, log)
    except BaseException:
        stop_server(server)
        raise
    return server, url


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_gunicorn_as_compose_runs_it_serves_the_static_files_and_refuses_event_streams(tmp_path):
    """With DEBUG=false and nothing collected, gunicorn serves the pages', Swagger UI's and the
    admin's static files; an event stream's path, which would hold one of its few threads for up
    to an hour, is refused at once, 503, naming the ASGI server that serves it (STREAMS_URL)."""
    command = server_command("web", free_port(), workers=1)
    env = deployed_env(MAZZIERE_SQLITE_PATH=str(tmp_path / "db.sqlite3"), STREAMS_URL="http://127.0.0.1:8001")
    # Migrated, as a deployment is: the embedded worker's clock (no broker here) checks its tables.
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=300)
    with tempfile.TemporaryFile() as log:
        server, url = start_server(command, env, log)
        try:
            for path in ("/static/web/site.css", "/static/admin/css/base.css",
                         "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"):
                assert answer_status(urllib.request.Request(url + path), server, log) == 200, path
            for path in ("/api/matches/1/events/", "/api/matches/1/seats/0/events/", "/api/seats/events/"):
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(url + path, timeout=5)
                assert refused.value.code == 503
                error = json.loads(refused.value.read())["error"]
                assert error["code"] == "streams_elsewhere"
                assert "served by the site's ASGI server at http://127.0.0.1:8001" in error["message"]
            assert answer_status(urllib.request.Request(url + "/api/"), server, log) == 200  # the rest is served
        finally:
            stop_server(server)
        log.seek(0)
        output = log.read().decode(errors="replace")
        assert "No directory at" not in output and "Traceback" not in output, output[-3000:]


def test_the_streams_server_stops_within_seconds_of_sigterm(compose):
    """Its streams end when it is told to stop (tournaments/asgi.py); whatever is still open is
    cut well within compose's 10 s before a SIGKILL (tests/tournaments/test_deployment.py runs it)."""
    words = compose["services"]["streams"]["command"].split()
    assert 0 < float(words[words.index("--timeout-graceful-shutdown") + 1]) <= 5
    assert compose["services"]["streams"].get("stop_grace_period", "10s") == "10s"
    assert '"--timeout-graceful-shutdown", "5"' in (DOCKER / "Dockerfile").read_text()


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
