"""The shapes every format shares: tables and rounds out, results in, and what history tells.

A format is a pure object: configured once by plain values, it answers ``next_round(entrants,
history, rng)`` with the next round's tables, or ``None`` when its stage is finished. It keeps no
state between calls; everything it needs is in ``history`` (the results of the rounds it issued,
oldest first, each listing its tables and byes in the order the format issued them).

A bracket format also answers ``reached(entrants, history)``: how far each entrant went, which
the standings rank by before any tie-break (formats that rank by points answer None).

Match points have one rule, :class:`Scoring`, which ``tournaments.standings`` publishes and the
Swiss pairs on (see that module's docstring for the rule in words).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

EntrantId = int  # opaque ids
Number = int | Fraction
# Points of each position at a table: a function of the table size, a mapping from it, or one
# list for the largest table, of which a smaller table uses the last N values.
PointsByPlace = Callable[[int], Sequence[Number]] | Mapping[int, Sequence[Number]] | Sequence[Number]

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
    """A finished table of two or more seats, in seat order: who sat there, their places (1
    first; equal places tie) and their scores in the game itself. The formats and the standings
    share this one type. ``scores`` may be empty (none recorded) and a seat's score None (a
    forfeit): ``game_scores`` reads either as 0."""

    seats: tuple[EntrantId, ...]
    places: tuple[int, ...]
    scores: tuple[Number | None, ...] = ()

    def __post_init__(self) -> None:
        if len(self.places) != len(self.seats) or len(self.scores) not in (0, len(self.seats)):
            raise ValueError(f"table {tuple(self.seats)}: one place (and one score, if any) per seat")

    @classmethod
    def unplayed(cls, seats: Sequence[EntrantId]) -> TableResult:
        """A table made but not played yet, as a format that does not read results sees it
        (it only asks who sat with whom): every seat tied first, no score."""
        return cls(seats=tuple(seats), places=(1,) * len(seats), scores=(0,) * len(seats))

    @property
    def game_scores(self) -> tuple[Number, ...]:
        """One score per seat, 0 where none was recorded."""
        if not self.scores:
            return (0,) * len(self.seats)
        return tuple(0 if score is None else score for score in self.scores)


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
        points = tuple(_fraction(v) for v in value)
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


def default_points_by_place(seats: int) -> tuple[int, ...]:
    """N − place: (1, 0) for two seats, (3, 2, 1, 0) for four."""
    return tuple(range(seats - 1, -1, -1))


def exact(value: Any, what: str) -> Fraction:
    """A number as an exact fraction; anything else is a ValueError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, Decimal)):
        raise ValueError(f"{what} must be a number, not {value!r}")
    return _fraction(value)


def _fraction(value: Any) -> Fraction:
    # A float is read as the decimal it prints as (0.1 is 1/10), not its binary expansion.
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


class Scoring:
    """The one rule for match points, which the standings publish and the Swiss pairs on.

    A table of N seats awards ``points_for(N)[k]`` to the seat in position k (0 = first); seats
    that share a place share the points of the positions they occupy, evenly (only the order of
    places matters). A bye is worth ``bye_points``; by default the average points of a table of
    the largest size played (``bye_value``). ``points_by_place``: see :data:`PointsByPlace`.
    Every value is an exact ``Fraction``; a bad setting is a ValueError when first used."""

    def __init__(self, points_by_place: PointsByPlace = default_points_by_place,
                 bye_points: Number | None = None) -> None:
        self.points_by_place = points_by_place
        self.bye_points = bye_points
        self._rows: dict[int, tuple[Fraction, ...]] = {}

    def points_for(self, seats: int) -> tuple[Fraction, ...]:
        """The points of each position, best first, at a table of ``seats``."""
        if seats not in self._rows:
            rule = self.points_by_place
            if isinstance(rule, Mapping):
                if seats not in rule:
                    raise ValueError(f"points_by_place has no points for a table of {seats} seats")
                row = rule[seats]
            elif callable(rule):
                row = rule(seats)
            else:
                if seats > len(rule):
                    raise ValueError(f"points_by_place lists {len(rule)} places, a table has {seats} seats")
                row = list(rule)[len(rule) - seats :]
            if len(row) != seats:
                raise ValueError(f"points_by_place gives {len(row)} values for a table of {seats} seats")
            self._rows[seats] = tuple(exact(p, "points_by_place") for p in row)
        return self._rows[seats]

    def table_points(self, table: TableResult) -> tuple[Fraction, ...]:
        """Each seat's match points, in seat order: tied seats share the points of the positions
        they span (two tied for first at four seats with (3, 2, 1, 0): 2½ each)."""
        places = table.places
        n = len(places)
        row = self.points_for(n)
        order = sorted(range(n), key=lambda i: places[i])
        out = [Fraction(0)] * n
        start = 0
        while start < n:
            end = start
            while end < n and places[order[end]] == places[order[start]]:
                end += 1
            share = sum(row[start:end], Fraction(0)) / (end - start)
            for i in order[start:end]:
                out[i] = share
            start = end
        return tuple(out)

    def bye_value(self, tables: Iterable[TableResult]) -> Fraction:
        """What a bye is worth, given every table played so far: ``bye_points``, or by default
        the average points of a table of the largest size among ``tables`` (2 if none)."""
        if self.bye_points is not None:
            return exact(self.bye_points, "bye_points")
        largest = max((len(table.seats) for table in tables), default=2)
        return sum(self.points_for(largest), Fraction(0)) / largest

    def match_points(self, entrants: Iterable[EntrantId], history: Sequence[RoundResult]
                     ) -> dict[EntrantId, Fraction]:
        """Each entrant's match points over ``history`` (tables as played: in duplicate play
        every rotation counts, as in the standings), byes included."""
        points = {e: Fraction(0) for e in entrants}
        tables = [table for rnd in history for table in rnd.tables]
        for table in tables:
            for e, p in zip(table.seats, self.table_points(table)):
                if e in points:
                    points[e] += p
        byes = [e for rnd in history for e in rnd.byes if e in points]
        if byes:
            bye = self.bye_value(tables)
            for e in byes:
                points[e] += bye
        return points


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


# --- duplicate play -----------------------------------------------------------------------------
#
# Duplicate play: the same deal at every table of a round, seats rotated, so luck cancels.
#
# A round in duplicate is made from an ordinary round: each table of N seats becomes N tables with
# the same entrants, the seats rotated by 0, 1, ..., N-1 places, so every entrant plays every
# turn position once. All tables of the round carry one deal key (the round number): the service
# derives the cards from (tournament, deal key), so every table of a round with the same number of
# seats plays the same cards. Results come back as N tables per group; ``merge_duplicates`` folds
# them into one result per group: the entrants' scores summed, ranked by total score, then by the
# sum of their places (lower is better), ties sharing a place.


def duplicate_round(rnd: Round) -> Round:
    """Rotate each table of ``rnd`` through every seat; one deal key for the whole round."""
    tables = []
    for table in rnd.tables:
        size = len(table.seats)
        for k in range(size):
            seats = table.seats[k:] + table.seats[:k]
            note = f"duplicate: rotation {k + 1} of {size}, deal {rnd.number}"
            tables.append(Table(seats=seats, notes=table.notes + (note,), deal=rnd.number))
    notes = rnd.notes + (f"duplicate: every table plays deal {rnd.number} once per seat rotation",)
    return Round(number=rnd.number, tables=tuple(tables), byes=rnd.byes, notes=notes)


def merge_duplicates(result: RoundResult) -> RoundResult:
    """One result per group of rotated tables (same entrants), in order of first appearance."""
    groups: dict[frozenset[EntrantId], list[TableResult]] = defaultdict(list)
    for table in result.tables:
        groups[frozenset(table.seats)].append(table)
    merged = []
    for tables in groups.values():
        seats = tables[0].seats
        total = {e: 0 for e in seats}
        place_sum = {e: 0 for e in seats}
        for t in tables:
            for e, place, score in zip(t.seats, t.places, t.game_scores):
                total[e] += score
                place_sum[e] += place
        key = {e: (-total[e], place_sum[e]) for e in seats}
        places = tuple(1 + sum(key[o] < key[e] for o in seats) for e in seats)
        merged.append(TableResult(seats=seats, places=places,
                                  scores=tuple(total[e] for e in seats)))
    return RoundResult(number=result.number, tables=tuple(merged), byes=result.byes)


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
        entrants = check_entrants(entrants)
        played = list(history)
        merged = [merge_duplicates(r) for r in played] if self.duplicate else played
        rnd = self._next_round_of(entrants, merged, played, rng)
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

    def _next_round_of(self, entrants: tuple[EntrantId, ...], history: list[RoundResult],
                       played: list[RoundResult], rng: random.Random) -> Round | None:
        """``history`` as the format reads it (duplicate tables merged into one), ``played`` as
        the tables were played (what the standings score). Most formats read ``history`` only."""
        return self._next_round(entrants, history, rng)

    def _next_round(self, entrants: tuple[EntrantId, ...], history: list[RoundResult],
                    rng: random.Random) -> Round | None:
        raise NotImplementedError
