#!/usr/bin/env python3
"""A complete Mazziere bot: plays a uniformly random legal action.

Subprocess protocol: one JSON message per line on stdin; answer each "act" with one line
{"action": ...} on stdout. Debug output goes to stderr. Run in the arena with
    python -m bots.arena sette_e_mezzo random "subprocess:python3 examples/bots/random_bot.py" random
The same bot over HTTP (every message is POSTed; "act" is answered in the body):
    python3 examples/bots/random_bot.py --http 8765
"""

import json
import random
import sys

rng = random.Random()


def handle(message):
    """Answer one message: an action for "act", nothing for "start" and "finish"."""
    if message["type"] == "start":
        rng.seed(message.get("seed"))
        print(f"seat {message['seat']} at {message['game']}", file=sys.stderr)
    elif message["type"] == "act":
        return {"action": rng.choice(message["view"]["legal_actions"])}
    return None


def serve_stdio():
    for line in sys.stdin:
        message = json.loads(line)
        answer = handle(message)
        if answer is not None:
            print(json.dumps(answer), flush=True)
        if message["type"] == "finish":
            break


def serve_http(port):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            answer = handle(json.loads(body)) or {}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        serve_http(int(sys.argv[2]))
    else:
        serve_stdio()
