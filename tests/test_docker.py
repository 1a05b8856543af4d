"""docker/ is read, not run, here (no Docker engine on the machine): these tests hold its files to
the code. nginx sends exactly the event streams to uvicorn and the rest to gunicorn; each service
runs the server and the settings it is meant to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tournaments.api.streams import STREAM_PATHS
from tournaments.config import database_config

DOCKER = Path(__file__).resolve().parent.parent / "docker"


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
    for name in ("web", "streams", "worker", "beat"):
        env = services[name]["environment"]
        assert env["API_NUM_PROXIES"] == "1", name  # one proxy in front: its address is not the caller's
        config = database_config(env, base_dir=Path("/app"))  # the service's settings are valid
        assert config["ENGINE"] == "tournaments.db.postgresql"
    web = database_config(services["web"]["environment"], base_dir=Path("/app"))
    assert web["CONN_MAX_AGE"] == 600 and "pool" not in web.get("OPTIONS", {})  # a connection per thread, kept
    streams = database_config(services["streams"]["environment"], base_dir=Path("/app"))
    assert streams["OPTIONS"]["pool"]["max_size"] >= 1
