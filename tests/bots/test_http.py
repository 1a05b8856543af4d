"""HTTP bots: a URL that is POSTed every message and answers "act" with an action."""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import bots

from .helpers import GAME, play, table_with

FAST = {"startup": 2.0, "decision": 0.3, "bank": 0.2}


def serve(behaviour):
    """A local bot server on 127.0.0.1; ``behaviour(message, count)`` returns (status, body)."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(message)
            status, body = behaviour(message, sum(m["type"] == "act" for m in seen))
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the runner gave up on us

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/bot", seen


@pytest.fixture
def bot_server():
    servers = []

    def start(behaviour):
        server, url, seen = serve(behaviour)
        servers.append(server)
        return url, seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def random_player(after=None, misbehave=None):
    rng = random.Random(0)

    def behaviour(message, acts):
        if message["type"] != "act":
            return 200, {}
        if after is not None and acts > after:
            return misbehave()
        return 200, {"action": rng.choice(message["view"]["legal_actions"])}

    return behaviour


def test_an_http_bot_plays_a_whole_match_and_hears_start_and_finish(bot_server):
    url, seen = bot_server(random_player())
    outcome = play(table_with(bots.create("http", game=GAME, seed=5, url=url, limits=FAST)))
    assert outcome.forfeits == {}
    assert seen[0]["type"] == "start" and seen[0]["seat"] == 0 and seen[0]["seed"] == 5
    assert seen[-1]["type"] == "finish" and seen[-1]["scores"] == list(outcome.scores)
    assert sum(m["type"] == "act" for m in seen) == outcome.decisions[0]
    assert len({m["match"] for m in seen}) == 1  # one id lets a server tell matches apart


def slow():
    time.sleep(2)
    return 200, {"action": {"type": "stand"}}


@pytest.mark.parametrize(
    "misbehave, reason, detail",
    [
        (slow, "timeout", "no answer within"),
        (lambda: (500, b"internal error"), "crash", "HTTP 500"),
        (lambda: (200, b"<html>hello</html>"), "malformed", "<html>"),
        (lambda: (200, {"action": {"type": "cheat"}}), "illegal", "cheat"),
        (lambda: (200, b'{"action": "' + b"A" * 200_000 + b'"}'), "output_limit", "longer"),
    ],
)
def test_each_http_failure_is_a_forfeit(bot_server, misbehave, reason, detail):
    url, _ = bot_server(random_player(after=1, misbehave=misbehave))
    outcome = play(table_with(bots.create("http", game=GAME, url=url, limits=FAST), seat=2))
    assert outcome.state.is_over()
    assert outcome.forfeits[2].reason == reason
    assert detail in outcome.forfeits[2].detail
    assert outcome.forfeits[2].at_decision == 1
    assert outcome.places[2] == 3


def test_an_http_bot_nobody_answers_for_is_a_crash_at_start():
    server, url, _ = serve(random_player())
    server.server_close()  # the port is free again: nobody listens there
    server.shutdown()
    outcome = play(table_with(bots.create("http", game=GAME, url=url, limits=FAST)))
    assert outcome.forfeits[0].reason == "crash"
    assert outcome.forfeits[0].at_decision == 0


def test_an_http_bot_that_trickles_its_answer_is_cut_off_when_its_time_is_up():
    # The defect: each read of the answer had the decision's whole allowance, not the answer:
    # a bot sending its action a byte every 0.3 s (each byte well within the allowance) held
    # the table for the whole answer, 12 s, before forfeiting for its time.
    rng = random.Random(0)
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            acts = message["type"] == "act"
            body = json.dumps({"action": rng.choice(message["view"]["legal_actions"])} if acts else {}).encode()
            body = body.ljust(40)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for byte in body if acts else [body]:
                    self.wfile.write(bytes([byte]) if acts else byte)
                    if stop.wait(0.3 if acts else 0):
                        return
            except OSError:
                pass  # cut off

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/bot"
    try:
        began = time.monotonic()
        outcome = play(table_with(bots.create("http", game=GAME, url=url, limits=FAST), seat=2))
        took = time.monotonic() - began
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
    assert outcome.forfeits[2].reason == "timeout" and outcome.forfeits[2].at_decision == 0
    # Its first decision's allowance: start-up, the decision and the bank (2.5 s), then cut.
    assert took < 2.5 + 1.5, took
