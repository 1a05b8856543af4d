#!/usr/bin/env python3
"""A remote bot: plays its seats in Mazziere's online tournaments through the API, from any
machine. Standard library only. The protocol is docs/online.md.

    python examples/remote_bot.py --url https://mazziere.example --token mzt_...   # forever
    MAZZIERE_TOKEN=mzt_... python examples/remote_bot.py --idle-exit 30            # stop when idle

It asks for the seats awaiting its action (GET /api/seats/?your_turn=true), reads each seat's
view (its own cards, the public table, its legal actions) and posts one of the legal actions,
chosen at random (a seeded random.Random: --seed). Each action carries an Idempotency-Key made
of the match, the seat and the number of actions applied so far, so a request retried after a
lost answer can never move twice. Replace ``choose`` with your own strategy.
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


class Api:
    """JSON over HTTP with a Bearer token; answers (status, body)."""

    def __init__(self, url: str, token: str, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def call(self, method: str, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Accept": "application/json",
            **({"Content-Type": "application/json"} if data is not None else {}), **(headers or {}),
        })
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


def choose(view: dict, rng: random.Random) -> dict:
    """The strategy: any legal action."""
    return rng.choice(view["legal_actions"])


def play_turn(api: Api, seat: dict, rng: random.Random, log) -> bool:
    """Play one awaited seat; True when an action was applied."""
    match, position = seat["match"], seat["position"]
    status, answer = api.call("GET", f"/api/matches/{match}/seats/{position}/")
    if status != 200:
        log(f"match {match} seat {position}: view answered {status} {answer}")
        return False
    if answer["waiting_for"] != position or not answer["view"].get("legal_actions"):
        return False  # moved on meanwhile (a timeout, another client)
    action = choose(answer["view"], rng)
    key = f"{match}-{position}-{answer['actions']}"
    for attempt in range(3):
        try:
            status, acted = api.call("POST", f"/api/matches/{match}/seats/{position}/actions/", {"action": action},
                                     {"Idempotency-Key": key})
            break
        except (urllib.error.URLError, TimeoutError) as exc:  # the same key again: never a second move
            log(f"match {match}: {exc}; retrying ({attempt + 1})")
            time.sleep(0.5)
    else:
        return False
    if status == 200:
        return True
    log(f"match {match} seat {position}: {action} answered {status} {acted}")
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("MAZZIERE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("MAZZIERE_TOKEN"), help="or MAZZIERE_TOKEN")
    parser.add_argument("--seed", type=int, default=0, help="the strategy's random seed")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between polls when nothing awaits")
    parser.add_argument("--idle-exit", type=float, default=None,
                        help="stop after this many seconds with no seat at all (default: run forever)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is needed: --token or MAZZIERE_TOKEN")
    api = Api(args.url, args.token)
    rng = random.Random(args.seed)

    def log(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    played, idle_since = 0, time.monotonic()
    while True:
        status, page = api.call("GET", "/api/seats/?your_turn=true")
        if status != 200:
            log(f"seats answered {status} {page}")
            return 1
        moved = sum(play_turn(api, seat, rng, log) for seat in page["results"])
        played += moved
        if moved:
            idle_since = time.monotonic()
            continue
        if args.idle_exit is not None and time.monotonic() - idle_since > args.idle_exit:
            status, all_seats = api.call("GET", "/api/seats/")
            if status == 200 and not all_seats["count"]:
                log(f"no seat left to play: {played} action(s) played")
                print(played)
                return 0
            idle_since = time.monotonic()
        time.sleep(args.poll)


if __name__ == "__main__":
    sys.exit(main())
