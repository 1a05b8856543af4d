"""The arena: pit bots against each other locally, without a database.

    python -m bots.arena GAME BOT BOT ... --matches N --seed S [--duplicate] [--jobs J]
                         [--players N] [--option k=v ...] [--limit k=v ...]

BOT is a registered name (``random``, ...), ``subprocess:COMMAND`` or ``http:URL``. The table
is exactly the listed bots, one seat each (list a name twice for two seats; ``--players``
larger than the list repeats the list to fill the table). Seats listed with the same BOT are
one bot in the report; add ``#LABEL`` to tell copies apart (``random#a random#b``). Every
match goes through :func:`bots.runner.play_match`, so the arena judges bots exactly as
tournaments do.

Fairness: match ``m`` deals from seed ``"S-m"`` and rotates the seats by ``m``, so each bot
sits in each seat equally often. With ``--duplicate`` every deal is played once per rotation
of the seats (``N`` deals make ``N × players`` matches): each bot holds every seat's cards
of every deal, and the luck of the deal cancels, as in duplicate bridge. The deals depend on
the seed alone (EC-1), which is what makes a replayed deal the same deal. A bot's own seed
follows the deal and the seat (common random numbers), so in duplicate two copies of one bot
tie exactly: what separates two bots is their play, not their dice.

Statistics per bot (a name holding several seats is one bot): mean score per seat and match;
its 95% confidence interval from Student's t over independent units (a match, or with
``--duplicate`` a deal: the rotations of one deal are not independent, so they are averaged
first); first-place share (a place shared by k seats gives each 1/k, so shares sum to 1);
mean decision time of the bot's own decisions; forfeits by reason.

Paired differences, for every two bots A and B (A ranked above B): the mean over units of
(A's score in the unit − B's score in the unit), each bot's score in a unit being its mean
over its seats and, in duplicate, over the rotations of the deal; and the 95% confidence
interval of that mean (Student's t over the units' differences). This is the test of "A
beats B": in a game that is not zero-sum (Spacca il mazzo, Piazza) two per-bot intervals
may overlap while the per-deal differences, which cancel the deal's luck, clearly do not.

BOT may carry options for a built-in bot: ``NAME@N`` is ``NAME`` with ``iterations=N``
(as in bench/bots_strength.py), ``NAME:K=V,K=V`` passes those options (values read as
JSON where they parse: ``ismcts:time_ms=200,guard=0``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import engine

from .registry import create
from .runner import ForfeitPolicy, play_match


@dataclass(frozen=True)
class BotStats:
    """One bot's results in an arena run. Times in seconds."""

    name: str
    seats: int  # seats it holds at every table
    mean: float
    ci_low: float
    ci_high: float
    first_share: float
    decisions: int
    mean_decision_time: float
    forfeits: Mapping[str, int] = field(default_factory=dict)  # reason -> count


@dataclass(frozen=True)
class PairStats:
    """``a`` against ``b``: the mean over units (deals in duplicate, else matches) of a's
    score in the unit minus b's, and its 95% confidence interval."""

    a: str
    b: str
    units: int
    mean: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class ArenaReport:
    """What :func:`run` measured; ``format()`` renders the table the command prints."""

    game: str
    seats: tuple[str, ...]  # the bot at each seat before rotation
    seed: int | str
    duplicate: bool
    deals: int
    matches: int
    bots: tuple[BotStats, ...]
    elapsed: float
    pairs: tuple[PairStats, ...] = ()  # every two bots, the higher-ranked one first

    def bot(self, name: str) -> BotStats:
        return next(b for b in self.bots if b.name == name)

    def pair(self, a: str, b: str) -> PairStats:
        """``a − b`` (the sign follows the order asked for)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return PairStats(a, b, p.units, -p.mean, -p.ci_high, -p.ci_low)
        raise KeyError((a, b))

    def format(self) -> str:
        kind = f"{self.deals} deals × {len(self.seats)} rotations" if self.duplicate else ""
        head = (
            f"{self.game}: {self.matches} matches{' (' + kind + ')' if kind else ''}, "
            f"seed {self.seed}, {self.elapsed:.1f} s"
        )
        rows = [("bot", "seats", "mean", "95% CI", "1st", "ms/decision", "forfeits")]
        for b in self.bots:
            forfeits = ", ".join(f"{r} {n}" for r, n in sorted(b.forfeits.items())) or "-"
            rows.append((
                b.name, str(b.seats), f"{b.mean:+.3f}", f"[{b.ci_low:+.3f}, {b.ci_high:+.3f}]",
                f"{b.first_share:.1%}", f"{b.mean_decision_time * 1000:.2f}", forfeits,
            ))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = [head]
        for row in rows:
            lines.append("  ".join(c.ljust(w) if i in (0, 6) else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        if self.pairs:
            unit = "deal" if self.duplicate else "match"
            pair_rows = [(f"paired (per {unit})", "mean", "95% CI")]
            for p in self.pairs:
                pair_rows.append((f"{p.a} − {p.b}", f"{p.mean:+.3f}",
                                  f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]"))
            widths = [max(len(r[i]) for r in pair_rows) for i in range(3)]
            lines.append("")
            for pair_row in pair_rows:
                lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                       for i, (c, w) in enumerate(zip(pair_row, widths))))
        return "\n".join(lines)


# --------------------------------------------------------------------------- playing


_LABEL = re.compile(r"#[\w.-]+$")


def make_bot(spec: str, game: str, seed: str, limits: Mapping[str, Any] | None = None):
    """A bot from a command-line spec: a name, ``subprocess:COMMAND`` or ``http:URL``,
    optionally followed by ``#LABEL`` (which only tells entries apart in the report)."""
    spec = _LABEL.sub("", spec)
    kind, _, rest = spec.partition(":")
    if kind == "subprocess" and rest:
        return create("subprocess", game=game, seed=seed, command=shlex.split(rest),
                      limits=limits)
    if kind == "http" and rest:
        return create("http", game=game, seed=seed, url=rest, limits=limits)
    name, options = bot_options(spec)
    return create(name, game=game, seed=seed, **options)


def bot_options(spec: str) -> tuple[str, dict[str, Any]]:
    """``NAME@N`` -> (NAME, {"iterations": N}); ``NAME:K=V,K=V`` -> (NAME, {K: V, ...})
    with JSON values where they parse; a plain name has no options."""
    name, at, budget = spec.partition("@")
    if at:
        if not budget.isdigit():
            raise ValueError(f"{spec!r}: NAME@N takes a whole number of iterations")
        return name, {"iterations": int(budget)}
    name, colon, rest = spec.partition(":")
    if not colon:
        return spec, {}
    options = {}
    for item in re.split(r",(?=[A-Za-z_]\w*=)", rest):
        key, eq, value = item.partition("=")
        if not eq or not key.isidentifier():
            raise ValueError(f"{spec!r}: options are NAME:KEY=VALUE,KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    return name, options


@dataclass(frozen=True)
class _Task:
    game: str
    specs: tuple[str, ...]  # spec at each seat, already rotated
    entries: tuple[int, ...]  # the index in the listed table of the bot at each seat
    seed: str
    deal: int
    options: Mapping[str, Any] | None
    limits: Mapping[str, Any] | None
    policy: ForfeitPolicy


@dataclass(frozen=True)
class _Result:
    deal: int
    entries: tuple[int, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    decisions: tuple[int, ...]
    decision_time: tuple[float, ...]
    forfeits: tuple[tuple[int, str], ...]  # (seat, reason)


def _play(task: _Task) -> _Result:
    players = [
        make_bot(spec, task.game, f"{task.seed}-seat{seat}", task.limits)
        for seat, spec in enumerate(task.specs)
    ]
    outcome = play_match(task.game, players, seed=task.seed, options=task.options,
                         policy=task.policy)
    return _Result(
        deal=task.deal,
        entries=task.entries,
        scores=outcome.scores,
        places=outcome.places,
        decisions=outcome.decisions,
        decision_time=outcome.decision_time,
        forfeits=tuple((s, f.reason) for s, f in outcome.forfeits.items()),
    )


def _tasks(game, table, matches, seed, duplicate, options, limits, policy) -> list[_Task]:
    n = len(table)
    tasks = []
    for deal in range(matches):
        rotations = range(n) if duplicate else (deal % n,)
        for r in rotations:
            # seat s holds entry (s + r) % n: rotation r moves every bot r seats back
            entries = tuple((s + r) % n for s in range(n))
            tasks.append(_Task(
                game=game, specs=tuple(table[e] for e in entries), entries=entries,
                seed=f"{seed}-{deal}", deal=deal,
                options=options, limits=limits, policy=policy,
            ))
    return tasks


def run(
    game: str,
    bots: Sequence[str],
    *,
    matches: int,
    seed: int | str = 0,
    duplicate: bool = False,
    jobs: int = 1,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    limits: Mapping[str, Any] | None = None,
    policy: ForfeitPolicy = ForfeitPolicy(),
    progress: Callable[[int, int], None] | None = None,
) -> ArenaReport:
    """Play ``matches`` matches (deals, with ``duplicate``) and measure every bot.

    ``progress(done, total)`` is called after each match.
    """
    g = engine.game(game)
    if not bots:
        raise ValueError("the arena needs at least one bot")
    if matches < 1:
        raise ValueError("matches must be at least 1")
    size = players or len(bots)
    if size < len(bots):
        raise ValueError(f"{len(bots)} bots do not fit at a table of {size}")
    table = tuple(bots[i % len(bots)] for i in range(size))
    g.check_players(size)
    g.resolve_options(size, options)  # bad options fail here, not in a worker
    for spec in set(table):  # and so do unknown bots (making one starts nothing)
        make_bot(spec, game, "check", limits)
    tasks = _tasks(game, table, matches, seed, duplicate, options, limits, policy)

    began = time.perf_counter()
    results: list[_Result] = []
    if jobs <= 1:
        for task in tasks:
            results.append(_play(task))
            if progress:
                progress(len(results), len(tasks))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for result in pool.map(_play, tasks, chunksize=max(1, len(tasks) // (jobs * 8))):
                results.append(result)
                if progress:
                    progress(len(results), len(tasks))
    elapsed = time.perf_counter() - began
    return _report(game, table, seed, duplicate, matches, results, elapsed)


def _report(game, table, seed, duplicate, deals, results, elapsed) -> ArenaReport:
    names = list(dict.fromkeys(table))
    seats_of = Counter(table)
    # Per bot: the mean over its seats in each match, grouped by unit (match or deal).
    units: dict[str, dict[int, list[float]]] = {name: {} for name in names}
    firsts = dict.fromkeys(names, 0.0)  # a shared first place counts a fraction
    decisions: Counter[str] = Counter()
    spent: Counter[str] = Counter()
    forfeits: dict[str, Counter] = {name: Counter() for name in names}
    for i, res in enumerate(results):
        unit = res.deal if duplicate else i
        per_bot: dict[str, list[int]] = {}
        winners = [s for s, p in enumerate(res.places) if p == 1]
        for seat, entry in enumerate(res.entries):
            name = table[entry]
            per_bot.setdefault(name, []).append(res.scores[seat])
            decisions[name] += res.decisions[seat]
            spent[name] += res.decision_time[seat]
            if seat in winners:
                firsts[name] += 1 / len(winners)
        for seat, reason in res.forfeits:
            forfeits[table[res.entries[seat]]][reason] += 1
        for name, scores in per_bot.items():
            units[name].setdefault(unit, []).append(sum(scores) / len(scores))

    stats = []
    for name in names:
        values = [sum(v) / len(v) for v in units[name].values()]
        mean, low, high = mean_ci(values)
        stats.append(BotStats(
            name=name, seats=seats_of[name], mean=mean, ci_low=low, ci_high=high,
            first_share=firsts[name] / len(results), decisions=decisions[name],
            mean_decision_time=spent[name] / decisions[name] if decisions[name] else 0.0,
            forfeits=dict(forfeits[name]),
        ))
    stats.sort(key=lambda b: -b.mean)
    per_unit = {name: {u: sum(v) / len(v) for u, v in units[name].items()} for name in names}
    ranked = [b.name for b in stats]
    pairs = tuple(
        paired(a, b, per_unit[a], per_unit[b])
        for i, a in enumerate(ranked) for b in ranked[i + 1:]
    )
    return ArenaReport(
        game=game, seats=table, seed=seed, duplicate=duplicate, deals=deals,
        matches=len(results), bots=tuple(stats), elapsed=elapsed, pairs=pairs,
    )


def paired(a: str, b: str, scores_a: Mapping[Any, float],
           scores_b: Mapping[Any, float]) -> PairStats:
    """``a − b`` over the units both played (unit -> score in that unit)."""
    diffs = [scores_a[u] - scores_b[u] for u in scores_a if u in scores_b]
    if not diffs:
        return PairStats(a, b, 0, math.nan, -math.inf, math.inf)
    mean, low, high = mean_ci(diffs)
    return PairStats(a, b, len(diffs), mean, low, high)


# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (Student's t); one value gives an infinite one."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, -math.inf, math.inf
    df = n - 1
    t = _T95[df - 1] if df <= len(_T95) else 1.96 + 2.4 / df  # close to t beyond 30 df
    half = t * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


# --------------------------------------------------------------------------- command line


def _pairs(items: Sequence[str], what: str) -> dict[str, Any]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--{what} expects key=value, got {item!r}")
        try:
            out[key] = json.loads(value)  # numbers, true/false, quoted strings
        except ValueError:
            out[key] = value
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bots.arena",
        description="Play bots against each other and compare them.",
        epilog="BOT: a registered name, NAME@N (iterations=N), NAME:K=V,K=V (bot options), "
               "subprocess:COMMAND or http:URL, optionally with #LABEL. Besides a row per bot, "
               "prints for every two bots A and B the paired difference: the mean over units "
               "(deals with --duplicate, else matches) of A's score minus B's in the unit, "
               "with its 95% CI; it excludes 0 when A beats B beyond noise.",
    )
    parser.add_argument("game", help=f"one of {', '.join(engine.games())}")
    parser.add_argument("bots", nargs="+", metavar="BOT")
    parser.add_argument("--matches", type=int, default=100,
                        help="matches to play; deals with --duplicate (default 100)")
    parser.add_argument("--seed", default="0", help="seed of the deals (default 0)")
    parser.add_argument("--duplicate", action="store_true",
                        help="play every deal once per rotation of the seats")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--players", type=int, help="table size (default: one seat per BOT)")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="a game option, e.g. hands=5 (repeatable)")
    parser.add_argument("--limit", action="append", default=[], metavar="K=V",
                        help="an external-bot limit, e.g. decision=0.5 (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    kwargs = dict(
        matches=args.matches, seed=seed, duplicate=args.duplicate, jobs=args.jobs,
        players=args.players, options=_pairs(args.option, "option") or None,
        limits=_pairs(args.limit, "limit") or None,
    )
    try:
        if args.no_progress:
            report = run(args.game, args.bots, **kwargs)
        else:
            report = _run_with_bar(args.game, args.bots, kwargs)
    except (ValueError, TypeError) as exc:  # unknown game, bot, option or limit: say it
        print(f"arena: {exc}", file=sys.stderr)
        return 2
    print(report.format())
    return 0


def _run_with_bar(game: str, bots: Sequence[str], kwargs: dict) -> ArenaReport:
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    except ImportError:  # rich is a dependency of the service, not of a bare engine install
        return run(game, bots, **kwargs)
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), transient=True,
                  console=Console(stderr=True)) as bar:
        task = bar.add_task(game, total=None)

        def tick(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return run(game, bots, progress=tick, **kwargs)


if __name__ == "__main__":
    sys.exit(main())
