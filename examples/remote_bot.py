#!/usr/bin/env python3
"""A remote bot: plays its seats in Mazziere's online tournaments through the API, from any
machine. Standard library only. The protocol is docs/online.md.

    python examples/remote_bot.py --url https://mazziere.example --token mzt_...   # forever
    MAZZIERE_TOKEN=mzt_... python examples/remote_bot.py --idle-exit 30            # stop when idle

It listens to its turns as server-sent events (``GET /api/seats/events/``): each ``turn`` event
carries an awaited seat's view (its own cards, the public table, its legal actions), and the
bot posts one of the legal actions, chosen at random (a seeded random.Random: --seed). Each
action carries an Idempotency-Key made of the match, the seat and the number of actions applied
so far, so a request retried after a lost answer can never move twice, and names the decision it
answers (``actions``, as the view showed it), so a move that arrives after the match has moved on
(the seat's time ran out, its turn came again) is refused, not applied to a decision the bot
never saw. When the stream drops it
reconnects with the last event's id (``Last-Event-ID``); ``--poll`` asks for the awaited seats
every so often instead (``GET /api/seats/?your_turn=true``), for networks that cut long-lived
connections. Replace ``choose`` with your own strategy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator


class Api:
    """JSON over HTTP with a Bearer token; answers (status, body)."""

    def __init__(self, url: str, token: str, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _request(self, method: str, path: str, data: bytes | None, headers: dict) -> urllib.request.Request:
        return urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", **headers,
        })

    def call(self, method: str, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = self._request(method, path, data, {
            "Accept": "application/json", **({"Content-Type": "application/json"} if data is not None else {}),
            **(headers or {}),
        })
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def events(self, path: str, last_event_id: str | None, read_timeout: float) -> Iterator[tuple[str, str, dict | None]]:
        """A text/event-stream, as (id, event, data) triples; a keep-alive comment comes as
        ("", "", None), so that the reader wakes at least that often. Raises on HTTP errors and
        on ``read_timeout`` seconds of silence."""
        headers = {"Accept": "text/event-stream", **({"Last-Event-ID": last_event_id} if last_event_id else {})}
        with urllib.request.urlopen(self._request("GET", path, None, headers), timeout=read_timeout) as stream:
            event_id, name, data = "", "message", []
            for raw in stream:
                line = raw.decode("utf-8").rstrip("\r\n")
                if not line:  # a blank line ends an event
                    if data:
                        yield event_id, name, json.loads("\n".join(data))
                    name, data = "message", []
                elif line.startswith(":"):
                    yield "", "", None
                else:
                    key, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if key == "id":
                        event_id = value
                    elif key == "event":
                        name = value
                    elif key == "data":
                        data.append(value)


def choose(view: dict, rng: random.Random) -> dict:
    """The strategy: any legal action."""
    return rng.choice(view["legal_actions"])


def play_turn(api: Api, seat: dict, rng: random.Random, log) -> bool:
    """Play the seat a ``turn`` event (or a seat's view) shows awaited; True when an action was
    applied."""
    match, position = seat["match"], seat["position"]
    if seat["waiting_for"] != position or not seat["view"].get("legal_actions"):
        return False  # moved on meanwhile (a timeout, another client)
    action = choose(seat["view"], rng)
    key = f"{match}-{position}-{seat['actions']}"
    for attempt in range(3):
        try:
            status, acted = api.call("POST", f"/api/matches/{match}/seats/{position}/actions/",
                                     {"action": action, "actions": seat["actions"]}, {"Idempotency-Key": key})
            break
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:  # same key: never a second move
            log(f"match {match}: {exc}; retrying ({attempt + 1})")
            time.sleep(0.5)
    else:
        return False
    if status == 200:
        return True
    log(f"match {match} seat {position}: {action} answered {status} {acted}")
    return False


def has_seats(api: Api) -> bool:
    """Whether any of the bot's seats is in a match still being played."""
    status, page = api.call("GET", "/api/seats/")
    if status != 200:
        raise SystemExit(f"seats answered {status} {page}")
    return bool(page["count"])


def run_stream(api: Api, rng: random.Random, args, log) -> int:
    played, last_id, idle_since = 0, None, time.monotonic()
    # Woken at least every keep-alive (15 s by default), or every idle-exit seconds.
    read_timeout = max(1.0, min(60.0, args.idle_exit or 60.0))
    while True:
        try:
            for event_id, name, data in api.events("/api/seats/events/", last_id, read_timeout):
                if name == "turn":
                    # Resumed after this turn only once it is played: one that failed comes again.
                    if play_turn(api, data, rng, log):
                        last_id = event_id
                        played += 1
                        idle_since = time.monotonic()
                elif name == "error":
                    raise SystemExit(f"stream refused: {data}")
                if args.idle_exit is not None and time.monotonic() - idle_since > args.idle_exit:
                    break
        except urllib.error.HTTPError as error:
            raise SystemExit(f"stream answered {error.code} {error.read()[:500]!r}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            if args.idle_exit is None or time.monotonic() - idle_since <= args.idle_exit:
                log(f"stream dropped ({exc}); reconnecting")
                time.sleep(0.5)
        if args.idle_exit is not None and time.monotonic() - idle_since > args.idle_exit:
            if not has_seats(api):
                log(f"no seat left to play: {played} action(s) played")
                return played
            idle_since = time.monotonic()


def run_polling(api: Api, rng: random.Random, args, log) -> int:
    played, idle_since = 0, time.monotonic()
    while True:
        status, page = api.call("GET", "/api/seats/?your_turn=true")
        if status != 200:
            raise SystemExit(f"seats answered {status} {page}")
        moved = 0
        for seat in page["results"]:
            status, view = api.call("GET", f"/api/matches/{seat['match']}/seats/{seat['position']}/")
            moved += status == 200 and play_turn(api, view, rng, log)
        played += moved
        if moved:
            idle_since = time.monotonic()
            continue
        if args.idle_exit is not None and time.monotonic() - idle_since > args.idle_exit:
            if not has_seats(api):
                log(f"no seat left to play: {played} action(s) played")
                return played
            idle_since = time.monotonic()
        time.sleep(args.poll)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("MAZZIERE_URL", "http://127.0.0.1:8000"),
                        help="the site (or MAZZIERE_URL): its front, which sends the event stream to its ASGI server; "
                             "a WSGI server alone (gunicorn) refuses the stream, 503 naming where it is served: "
                             "use that address, or --poll")
    parser.add_argument("--token", default=os.environ.get("MAZZIERE_TOKEN"), help="or MAZZIERE_TOKEN")
    parser.add_argument("--seed", type=int, default=0, help="the strategy's random seed")
    parser.add_argument("--poll", type=float, default=None, metavar="SECONDS",
                        help="poll every SECONDS instead of listening to the event stream")
    parser.add_argument("--idle-exit", type=float, default=None, metavar="SECONDS",
                        help="stop after SECONDS without a turn once no seat is left (default: run forever)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is needed: --token or MAZZIERE_TOKEN")
    api = Api(args.url, args.token)
    rng = random.Random(args.seed)

    def log(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    played = run_polling(api, rng, args, log) if args.poll is not None else run_stream(api, rng, args, log)
    print(played)
    return 0


if __name__ == "__main__":
    sys.exit(main())
