"""Rating and standings speed: pure functions alone, no database.

    python bench/ratings.py [--seconds 2] [--runs 5] [--seats 4] [--players 200]

Prints, as the median of ``--runs`` runs:

* matches/s   ``rate_match`` on tables of ``--seats`` players drawn from ``--players``, for
              multiplayer Elo and openskill's Plackett-Luce (each match updates the ratings,
              as a ladder does)
* replay      a whole ladder of 10,000 such matches rebuilt by ``replay_ladder``, in seconds
* standings/s ``standings`` of a 9-round Swiss of ``--players`` entrants at tables of
              ``--seats``, with the default tie-breaks and explanations

Targets: none fixed by the design; one ladder step is serialised per ladder, so Elo should
stay far above the rate at which matches finish (thousands per second is plenty).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.ratings import EloSystem, PlackettLuceSystem, rate_match, replay_ladder
from tournaments.standings import TableResult, standings


def tables(seed: int, count: int, players: int, seats: int) -> list[dict[int, int]]:
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        table = rng.sample(range(1, players + 1), seats)
        places = list(range(1, seats + 1))
        rng.shuffle(places)
        result.append(dict(zip(table, places)))
    return result


def rate_speed(system, seconds: float, players: int, seats: int, seed: int) -> float:
    matches = tables(seed, 20_000, players, seats)
    ratings = {}
    done = 0
    start = time.perf_counter()
    while True:
        for places in matches[done % len(matches) : done % len(matches) + 500]:
            for change in rate_match(system, ratings, places):
                ratings[change.player] = change.after
            done += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def replay_time(system, players: int, seats: int, seed: int) -> float:
    history = [((i,), places) for i, places in enumerate(tables(seed, 10_000, players, seats))]
    random.Random(seed).shuffle(history)
    start = time.perf_counter()
    replay_ladder(system, history)
    return time.perf_counter() - start


def standings_speed(seconds: float, players: int, seats: int, seed: int) -> float:
    rng = random.Random(seed)
    entrants = list(range(1, players + 1))
    results = []
    for _ in range(9):
        rng.shuffle(entrants)
        for start in range(0, players - seats + 1, seats):
            table = entrants[start : start + seats]
            places = tuple(rng.randint(1, seats) for _ in table)
            results.append(TableResult(tuple(table), places, tuple(rng.randint(0, 60) for _ in table)))
    done = 0
    begin = time.perf_counter()
    while time.perf_counter() - begin < seconds:
        standings(entrants, results)
        done += 1
    return done / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--players", type=int, default=200)
    args = parser.parse_args()

    print(f"tables of {args.seats} seats, {args.players} players; median of {args.runs} runs")
    for system in (EloSystem(), PlackettLuceSystem()):
        speed = statistics.median(
            rate_speed(system, args.seconds, args.players, args.seats, seed) for seed in range(args.runs)
        )
        replay = statistics.median(replay_time(system, args.players, args.seats, seed) for seed in range(3))
        print(
            f"{system.name:<26} {speed:>10,.0f} matches/s  {speed * args.seats:>10,.0f} rating changes/s"
            f"  replay of 10,000 matches {replay:.2f} s"
        )
    speed = statistics.median(
        standings_speed(args.seconds, args.players, args.seats, seed) for seed in range(args.runs)
    )
    print(f"{'standings (9 rounds)':<26} {speed:>10,.1f} standings/s of {args.players} entrants")


if __name__ == "__main__":
    main()
