"""Bot strength figures with the arena in duplicate mode (issue 6), for a given budget.

    python bench/bots_strength.py stoppa ismcts@50 heuristic heuristic --matches 40 --seed 1 --jobs 2

``NAME@N`` is the registered bot ``NAME`` with an ``iterations=N`` budget and
``NAME:K=V,...`` passes options, as on the arena's command line (``bots.arena.bot_options``).
Prints the arena's table, with the paired differences.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import arena


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("game")
    parser.add_argument("bots", nargs="+")
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args()
    options = arena._pairs(args.option, "option") or None
    report = arena.run(args.game, args.bots, matches=args.matches, seed=args.seed,
                       duplicate=True, jobs=args.jobs, options=options)
    print(report.format())


if __name__ == "__main__":
    main()
