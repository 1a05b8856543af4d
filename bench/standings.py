"""Standings speed: ``tournaments.standings.standings`` alone (pure, no database), on a big Swiss.

    python bench/standings.py [--players 256] [--rounds 8] [--seats 2 4] [--runs 5]

For each table size: a Swiss-sized event of ``--players`` entrants and ``--rounds`` rounds of
random results (random pairings: the standings do not care how tables were made), ranked with
the default tie-breaks and every explanation written, as the standings page and the API do on
a miss of their cache. Prints the median of ``--runs`` runs, in ms per call, for the event
after its last round, after its first, and before any (every entrant tied: one group).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.standings import TableResult, standings


def event(players: int, rounds: int, seats: int, seed: int) -> tuple[list[int], list[TableResult]]:
    rng = random.Random(seed)
    entrants = list(range(1, players + 1))
    results = []
    for _ in range(rounds):
        rng.shuffle(entrants)
        for start in range(0, players - seats + 1, seats):
            table = tuple(entrants[start:start + seats])
            places = tuple(rng.randint(1, seats) for _ in table)
            results.append(TableResult(table, places, tuple(rng.randint(0, 60) for _ in table)))
    return sorted(entrants), results


def ms_per_call(entrants: list[int], results: list[TableResult], runs: int) -> float:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        standings(entrants, results)
        times.append(time.perf_counter() - begin)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"standings of {args.players} entrants, median of {args.runs} runs (ms per call)")
    for seats in args.seats:
        entrants, results = event(args.players, args.rounds, seats, seed=seats)
        first = len(results) // args.rounds
        timed = [ms_per_call(entrants, results, args.runs), ms_per_call(entrants, results[:first], args.runs),
                 ms_per_call(entrants, [], args.runs)]
        print(f"  tables of {seats}: after {args.rounds} rounds {timed[0]:8.1f}   after 1 {timed[1]:8.1f}   "
              f"before any {timed[2]:8.1f}")


if __name__ == "__main__":
    main()
