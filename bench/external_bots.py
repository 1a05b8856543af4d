"""Overhead of the external-bot protocol: start-up and per-decision round trip.

    python bench/external_bots.py [MATCHES]

Plays Sette e mezzo matches (4 seats, 10 hands) with one example bot against three random
bots, per transport and sandbox, and prints the mean start-up + first decision, the mean
later decision and the whole match time.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path, and bench/engine.py would hide engine/.
ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

import bots  # noqa: E402
from bots.external import bwrap_works  # noqa: E402
from bots.runner import play_match  # noqa: E402

GAME = "sette_e_mezzo"


class Timed:
    """Wraps a bot to time each of its decisions."""

    def __init__(self, bot):
        self.bot, self.times = bot, []

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def act(self, view):
        began = time.perf_counter()
        action = self.bot.act(view)
        self.times.append(time.perf_counter() - began)
        return action


def measure(command, sandbox, matches):
    firsts, laters, totals = [], [], []
    for m in range(matches):
        bot = Timed(bots.create("subprocess", game=GAME, seed=m, command=command,
                                cwd=str(ROOT), sandbox=sandbox))
        table = [bot] + [bots.create("random", game=GAME, seed=m * 4 + s) for s in range(3)]
        began = time.perf_counter()
        outcome = play_match(GAME, table, seed=m)
        totals.append(time.perf_counter() - began)
        assert not outcome.forfeits, outcome.forfeits
        firsts.append(bot.times[0])
        laters.extend(bot.times[1:])
    return statistics.fmean(firsts), statistics.fmean(laters), statistics.fmean(totals)


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    commands = {"python": [sys.executable, "examples/bots/random_bot.py"]}
    if shutil.which("node"):
        commands["node"] = ["node", "examples/bots/random_bot.js"]
    sandboxes = ["none"] + (["bwrap"] if bwrap_works() else [])
    print(f"{matches} matches each; times in ms")
    print(f"{'bot':8} {'sandbox':8} {'first decision':>15} {'later decision':>15} {'match':>8}")
    for name, command in commands.items():
        for sandbox in sandboxes:
            first, later, total = measure(command, sandbox, matches)
            print(f"{name:8} {sandbox:8} {first * 1e3:15.1f} {later * 1e3:15.2f} "
                  f"{total * 1e3:8.0f}")


if __name__ == "__main__":
    main()
