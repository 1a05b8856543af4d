"""Engine speed: random legal play in one process, for every registered game.

    python bench/engine.py [--game NAME ...] [--seconds 2] [--runs 5] [--players N]

For each game it prints, as the median of ``--runs`` runs:

* hands/s      complete hands (deals, games) played by random legal play
* decisions/s  ``legal_actions()`` + ``apply()`` pairs, the hot loop of every tournament
* clone/s      ``clone()`` of mid-match states
* view/s       ``view(seat)`` of the seat to act, on mid-match states

Targets (shared/design/engine.md): Sette e mezzo ≥ 20,000 hands/s at 4 players + banker;
the other games ≥ 150,000 decisions/s; clone ≥ 200,000/s; view ≥ 100,000/s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from tournaments import games  # (each game's table, hands option and target: tournaments/games/)

CLOCK = time.perf_counter


def play(game: engine.Game, players: int, seconds: float, seed: int) -> tuple[float, float]:
    """Random legal play for about ``seconds``; returns (hands/s, decisions/s)."""
    rng = random.Random(seed)
    rand = rng.random
    hands = decisions = 0
    elapsed = 0.0
    match = 0
    while elapsed < seconds:
        state = game.new_match(players=players, seed=seed * 1_000_003 + match)
        match += 1
        t0 = CLOCK()
        while state._turn is not None:
            legal = state.legal_actions()
            state.apply(legal[int(rand() * len(legal))])
            decisions += 1
        elapsed += CLOCK() - t0
        option = games.get(game.name).counted_by
        hands += state.options[option] if option else 1
    return hands / elapsed, decisions / elapsed


def mid_match_states(game: engine.Game, players: int, count: int, seed: int) -> list[engine.State]:
    """States taken at random points of random matches."""
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.new_match(players=players, seed=rng.randrange(2**32))
        length = 0
        probe = state.clone()
        while not probe.is_over():
            probe.apply(rng.choice(probe.legal_actions()))
            length += 1
        stop = rng.randrange(max(1, length))
        for _ in range(stop):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_over():
            states.append(state)
    return states


def rate(fn, items: list, seconds: float) -> float:
    n = 0
    t0 = CLOCK()
    while True:
        for item in items:
            fn(item)
        n += len(items)
        elapsed = CLOCK() - t0
        if elapsed >= seconds:
            return n / elapsed


def reference_loop() -> float:
    """Seconds for a fixed pure-Python loop: a yardstick for comparing figures taken on
    machines (or moments) of different speed."""
    t0 = time.perf_counter()
    x = 0
    for i in range(5_000_000):
        x += i
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="game name (repeatable); default all")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is printed")
    parser.add_argument("--players", type=int, help="players at the table (default per game)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time (default), or this process's CPU time: steadier on a busy machine")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    names = args.game or list(engine.games())
    print(f"Python {sys.version.split()[0]}, median of {args.runs} runs of {args.seconds:g}s ({args.clock} clock); "
          f"reference: a 5M-step Python loop takes {min(reference_loop() for _ in range(3)):.2f}s here")
    header = f"{'game':<16} {'players':>7} {'hands/s':>10} {'decisions/s':>12} {'clone/s':>10} {'view/s':>10}  target"
    print(header)
    print("-" * len(header))
    for name in names:
        game = engine.game(name)
        figure = games.get(name).engine_figure
        players = args.players or figure.players
        states = mid_match_states(game, players, 200, seed=1)
        hands, decisions, clones, views = [], [], [], []
        for run in range(args.runs):
            h, d = play(game, players, args.seconds, seed=run + 1)
            hands.append(h)
            decisions.append(d)
            clones.append(rate(lambda s: s.clone(), states, args.seconds / 2))
            views.append(rate(lambda s: s.view(s._turn), states, args.seconds / 2))
        figures = {
            "hands/s": statistics.median(hands),
            "decisions/s": statistics.median(decisions),
            "clone/s": statistics.median(clones),
            "view/s": statistics.median(views),
        }
        what, goal = figure.measure, figure.target
        verdict = "met" if figures[what] >= goal else "BELOW"
        print(
            f"{name:<16} {players:>7} {figures['hands/s']:>10,.0f} {figures['decisions/s']:>12,.0f} "
            f"{figures['clone/s']:>10,.0f} {figures['view/s']:>10,.0f}  "
            f"{what} >= {goal:,}: {verdict}"
        )


if __name__ == "__main__":
    main()
