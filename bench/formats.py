"""Format speed: time to pair one Swiss round, the work a worker does between two rounds.

    python bench/formats.py [--entrants 200] [--rounds 5] [--seats 2 4 6]

For each table size it plays a Swiss of ``--rounds`` rounds with random results and prints the
median and worst time of ``next_round`` (rounds 2 onward, when scores and history matter).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.formats import RoundResult, Swiss, TableResult


def pair_times(entrants: int, seats: int, rounds: int, seed: int) -> list[float]:
    fmt = Swiss(seats=seats, rounds=rounds)
    rng, results = random.Random(seed), random.Random(seed + 1)
    history: list[RoundResult] = []
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        rnd = fmt.next_round(range(entrants), history, rng)
        times.append(time.perf_counter() - t0)
        tables = []
        for t in rnd.tables:
            places = tuple(results.sample(range(1, len(t.seats) + 1), len(t.seats)))
            tables.append(TableResult(t.seats, places, tuple(10 - p for p in places)))
        history.append(RoundResult(rnd.number, tuple(tables), rnd.byes))
    return times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4, 6])
    args = parser.parse_args()
    import networkx  # noqa: F401  (import once, outside the timings)

    print(f"Swiss pairing, {args.entrants} entrants, rounds 2-{args.rounds}")
    for seats in args.seats:
        times = pair_times(args.entrants, seats, args.rounds, seed=seats)
        print(f"  tables of {seats}: median {statistics.median(times) * 1000:8.1f} ms   "
              f"worst {max(times) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
