"""The shapes every format shares: tables and rounds out, results in, and what history tells.

A format is a pure object: configured once by plain values, it answers ``next_round(entrants,
history, rng)`` with the next round's tables, or ``None`` when its stage is finished. It keeps no
state between calls; everything it needs is in ``history`` (the results of the rounds it issued,
oldest first, each listing its tables and byes in the order the format issued them).

A bracket format also answers ``reached(entrants, history)``: how far each entrant went, which
the standings rank by before any tie-break (formats that rank by points answer None).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

EntrantId = int  # opaque ids

MIN_SEATS = 2
MAX_SEATS = 8


@dataclass(frozen=True)
class Table:
    """One match: ``seats`` in turn order (seat 0 acts first)."""

    seats: tuple[EntrantId, ...]
    notes: tuple[str, ...] = ()  # why it looks like this: "repeat: 12 met 31 (2nd time)"
    deal: int | None = None  # duplicate play: tables with the same deal key play the same cards


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[Table, ...]
    byes: tuple[EntrantId, ...] = ()
    notes: tuple[str, ...] = ()  # round-level notes: costs minimised, byes given and why


@dataclass(frozen=True)
class TableResult:
    """What the service passes back for one table: per seat, the place (1 = first, ties share)
    and the game score."""

    seats: tuple[EntrantId, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]

    def __post_init__(self) -> None:
        if not (len(self.seats) == len(self.places) == len(self.scores)):
            raise ValueError("seats, places and scores must have one entry per seat")


@dataclass(frozen=True)
class RoundResult:
    number: int
    tables: tuple[TableResult, ...]
    byes: tuple[EntrantId, ...] = ()


@dataclass(frozen=True)
class Reached:
    """How far an entrant went in a bracket. ``key`` compares higher = further; entrants with
    equal keys went equally far (the standings' tie-breaks then split them). Keys of one format
    share one shape, so any two compare. ``label`` says it in words: "lost the final"."""

    key: tuple[int, ...]
    label: str


# --- configuration checks ------------------------------------------------------------------


def check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """Validate one integer setting; the error names the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def check_points(name: str, value: object, seats: int) -> tuple[Fraction, ...]:
    """Points per place, best place first: one number per seat, never increasing."""
    if not isinstance(value, (tuple, list)) or len(value) != seats:
        raise ValueError(f"{name} must list {seats} numbers, one per place, got {value!r}")
    try:
        points = tuple(Fraction(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {value!r}") from None
    if any(a < b for a, b in zip(points, points[1:])):
        raise ValueError(f"{name} must not increase from first place to last, got {value!r}")
    return points


def check_entrants(entrants: Sequence[EntrantId]) -> tuple[EntrantId, ...]:
    entrants = tuple(entrants)
    if len(set(entrants)) != len(entrants):
        raise ValueError("entrants must not repeat an id")
    return entrants


# --- what history tells ----------------------------------------------------------------------


def place_points(result: TableResult, points: Sequence[Fraction]) -> dict[EntrantId, Fraction]:
    """Points each seat earns; tied seats share the points of the places they span equally
    (two tied for first at a two-seat table each get half of first plus second)."""
    n = len(result.seats)
    tied = Counter(result.places)
    out: dict[EntrantId, Fraction] = {}
    for seat, place in zip(result.seats, result.places):
        span = [points[min(p, n) - 1] for p in range(place, place + tied[place])]
        out[seat] = sum(span, Fraction(0)) / len(span)
    return out


def met_counts(history: Sequence[RoundResult]) -> Counter[frozenset[EntrantId]]:
    """How often each pair has sat at the same table."""
    met: Counter[frozenset[EntrantId]] = Counter()
    for rnd in history:
        for table in rnd.tables:
            seats = table.seats
            for i, a in enumerate(seats):
                for b in seats[i + 1 :]:
                    met[frozenset((a, b))] += 1
    return met


def position_counts(history: Sequence[RoundResult]) -> dict[EntrantId, Counter[int]]:
    """How often each entrant has sat in each turn position (0 = acts first)."""
    counts: dict[EntrantId, Counter[int]] = {}
    for rnd in history:
        for table in rnd.tables:
            for pos, e in enumerate(table.seats):
                counts.setdefault(e, Counter())[pos] += 1
    return counts


def bye_counts(history: Sequence[RoundResult]) -> Counter[EntrantId]:
    return Counter(e for rnd in history for e in rnd.byes)


def table_sizes(n: int, seats: int, min_seats: int) -> tuple[list[int], int]:
    """Split ``n`` entrants into tables of ``min_seats``..``seats``: fewest byes first, then
    fewest tables, sizes as even as possible (larger tables first). Returns (sizes, byes)."""
    for byes in range(n + 1):
        m = n - byes
        if m < min_seats:
            continue
        k = -(-m // seats)
        if k * min_seats <= m:
            base, extra = divmod(m, k)
            return [base + 1] * extra + [base] * (k - extra), byes
    return [], n


def best_seating(members: Sequence[EntrantId], positions: dict[EntrantId, Counter[int]]
                 ) -> tuple[tuple[EntrantId, ...], int]:
    """Order one table's members to even out turn positions: minimise the sum over members of
    how often each has already sat where it is put (exact, by dynamic programming over the
    positions filled). Ties keep the given order. Returns (seats, cost)."""
    size = len(members)
    empty: Counter[int] = Counter()
    cost = [[positions.get(e, empty)[p] for p in range(size)] for e in members]
    # best[mask] = (cost, order) placing members[0:popcount(mask)] into the positions in mask
    best: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for i in range(size):
        nxt: dict[int, tuple[int, tuple[int, ...]]] = {}
        row = cost[i]
        for mask, (c, order) in best.items():
            for p in range(size):
                bit = 1 << p
                if mask & bit:
                    continue
                cand = (c + row[p], order + (p,))
                old = nxt.get(mask | bit)
                if old is None or cand < old:
                    nxt[mask | bit] = cand
        best = nxt
    total, order = best[(1 << size) - 1]
    seats: list[EntrantId] = [0] * size
    for member, p in zip(members, order):
        seats[p] = member
    return tuple(seats), total


def position_notes(seats: Sequence[EntrantId], positions: dict[EntrantId, Counter[int]]
                   ) -> list[str]:
    """Notes for entrants put in a turn position they have had more often than another."""
    notes = []
    empty: Counter[int] = Counter()
    size = len(seats)
    for pos, e in enumerate(seats):
        had = positions.get(e, empty)
        least = min(had[p] for p in range(size))
        if had[pos] > least:
            notes.append(f"seat {pos} again for {e} ({had[pos] + 1} times, another seat {least})")
    return notes


def repeat_notes(seats: Sequence[EntrantId], met: Counter[frozenset[EntrantId]]) -> list[str]:
    notes = []
    for i, a in enumerate(seats):
        for b in seats[i + 1 :]:
            times = met[frozenset((a, b))]
            if times:
                notes.append(f"repeat: {a} met {b} ({_ordinal(times + 1)} time)")
    return notes


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- the common shape of a format -------------------------------------------------------------


@dataclass(frozen=True)
class Format:
    """Base of every format. Subclasses implement ``_next_round`` on plain (merged) history;
    this class applies the ``duplicate`` option on the way in and out."""

    name = "format"
    # Whether a round's tables depend on earlier results. A format that reads only who sat
    # where (a round robin) says False, and the service may then make its rounds before the
    # earlier ones are played, passing those with every seat tied (places 1, scores 0).
    uses_results = True
    duplicate: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        check_bool("duplicate", self.duplicate)

    def next_round(self, entrants: Sequence[EntrantId], history: Sequence[RoundResult],
                   rng: random.Random) -> Round | None:
        """The next round for these entrants (seed order, best first), or None: finished."""
        from .duplicate import duplicate_round, merge_duplicates

        entrants = check_entrants(entrants)
        if self.duplicate:
            history = [merge_duplicates(r) for r in history]
        rnd = self._next_round(entrants, list(history), rng)
        if rnd is not None and self.duplicate:
            rnd = duplicate_round(rnd)
        return rnd

    def reached(self, entrants: Sequence[EntrantId], history: Sequence[RoundResult]
                ) -> dict[EntrantId, Reached] | None:
        """How far each entrant went, for standings that rank by the bracket first; None for a
        format ranked by points alone.

        Pass what ``next_round`` is passed: ``entrants`` the entrants still competing, in seed
        order (an entrant knocked out stays one: the bracket, not this list, says who is out),
        and ``history`` the rounds played. An entrant in ``history`` but not in ``entrants`` has
        withdrawn. Every entrant of either gets a value."""
        from .duplicate import merge_duplicates

        entrants = check_entrants(entrants)
        if self.duplicate:
            history = [merge_duplicates(r) for r in history]
        return self._reached(entrants, list(history))

    def _reached(self, entrants: tuple[EntrantId, ...], history: list[RoundResult]
                 ) -> dict[EntrantId, Reached] | None:
        return None

    def planned_rounds(self, n_entrants: int) -> int | None:
        """How many rounds the stage will have for this many entrants (None: not known ahead)."""
        raise NotImplementedError

    def _next_round(self, entrants: tuple[EntrantId, ...], history: list[RoundResult],
                    rng: random.Random) -> Round | None:
        raise NotImplementedError
