"""Round robin: everyone meets everyone.

Two seats: the circle method (Berger tables). One entrant stays put while the others turn round
a circle; with an odd field a bye takes the empty place, so each entrant gets exactly one bye per
cycle. Every pair meets exactly once per cycle, and each entrant's count of seat 0 and seat 1
differ by at most one at every round. The schedule is fixed by the field of the first round
ordered by id (seeds do not matter in a round robin), so a withdrawal never reshuffles it: the
withdrawn entrant's opponents get a bye instead.

Three to eight seats: an exact schedule where every pair meets equally often exists only for
few field sizes, so each round is built from history by local search (``grouping``): tables
that make the fewest repeat meetings (the sum of squares of pair meetings is minimised), each
table seated to even out turn positions. The default number of rounds is the least in which
an entrant could meet every other once:
ceil((n - 1) / (seats - 1)). Guarantees (tested for 5-48 entrants at 3-8 seats, see
docs/formats.md): no pair meets more than three times, an entrant's counts of the turn positions
differ by at most two, nobody gets a second bye while someone has none, and round 2 has no repeat
meeting whenever round 1 had at least ``seats`` tables (so one entrant of each fits every table).
Where an exact schedule is known it is used instead (``designs``: an affine space AG(d, q) for
q^d entrants at tables of q — 9, 27, 81 at three, 16, 64 at four, 25, 125 at five, 49 at seven,
64 at eight — and Kirkman's 15 at tables of three): every pair meets exactly once per cycle,
in (n - 1)/(seats - 1) rounds. A withdrawal hands the rest of the schedule to the search.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import (
    MAX_SEATS,
    MIN_SEATS,
    EntrantId,
    Format,
    Round,
    RoundResult,
    Table,
    best_seating,
    bye_counts,
    check_int,
    met_counts,
    position_counts,
    position_notes,
    table_sizes,
)
from .designs import resolvable_design
from .grouping import group_tables


def circle_round(field: list[EntrantId | None], r: int) -> list[tuple[EntrantId | None, ...]]:
    """Pairs of round ``r`` (0-based) of the circle method for an even-sized ``field``
    (``None`` is the bye). Seats alternate so each entrant's seat counts stay within one."""
    m = len(field)
    turning = m - 1
    fixed = field[-1]
    pairs = []
    first = (field[r % turning], fixed)
    pairs.append(first if r % 2 == 0 else first[::-1])
    for k in range(1, m // 2):
        a = field[(r + k) % turning]
        b = field[(r - k) % turning]
        pairs.append((a, b) if k % 2 == 1 else (b, a))
    return pairs


@dataclass(frozen=True)
class RoundRobin(Format):
    """Everyone meets everyone; ``cycles`` repeats the whole schedule (seats swapped in even
    cycles for two seats); ``rounds`` overrides the number of rounds for multi-seat tables;
    ``min_seats`` allows smaller tables instead of byes when the field does not divide."""

    name = "round_robin"
    uses_results = False  # tables follow from earlier tables only: rounds can be made ahead
    seats: int = 2
    cycles: int = 1
    rounds: int | None = None
    min_seats: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("seats", self.seats, MIN_SEATS, MAX_SEATS)
        check_int("cycles", self.cycles, 1, 100)
        if self.rounds is not None:
            check_int("rounds", self.rounds, 1, 1000)
        if self.min_seats is not None:
            check_int("min_seats", self.min_seats, MIN_SEATS, self.seats)

    def planned_rounds(self, n_entrants: int) -> int | None:
        if n_entrants < 2:
            return 0
        if self.seats == 2:
            return (n_entrants - 1 + n_entrants % 2) * self.cycles
        if self.rounds is not None:
            return self.rounds
        return -(-(n_entrants - 1) // (self.seats - 1)) * self.cycles

    def _next_round(self, entrants, history, rng):
        if self.seats == 2:
            return self._two_seats(entrants, history)
        return self._multi_seat(entrants, history, rng)

    def _two_seats(self, entrants: tuple[EntrantId, ...], history: list[RoundResult]
                   ) -> Round | None:
        if history:
            first = history[0]
            field_ids = {e for t in first.tables for e in t.seats} | set(first.byes)
        else:
            field_ids = set(entrants)
        total = self.planned_rounds(len(field_ids))
        r = len(history)
        if r >= total:
            return None
        field: list[EntrantId | None] = sorted(field_ids)
        if len(field) % 2:
            field.append(None)
        per_cycle = len(field) - 1
        cycle, r_in = divmod(r, per_cycle)
        present = set(entrants)
        tables, byes, notes = [], [], []
        for pair in circle_round(field, r_in):
            if cycle % 2:
                pair = pair[::-1]
            a, b = (e if e in present else None for e in pair)
            if a is not None and b is not None:
                tables.append(Table(seats=(a, b)))
            elif a is not None or b is not None:
                e = a if a is not None else b
                other = pair[1] if e == pair[0] else pair[0]
                byes.append(e)
                why = "odd field" if other is None else f"opponent {other} withdrew"
                notes.append(f"bye: {e} ({why})")
        notes.append(f"circle method: round {r_in + 1} of {per_cycle}, cycle {cycle + 1}")
        return Round(number=r + 1, tables=tuple(tables), byes=tuple(byes), notes=tuple(notes))

    def _multi_seat(self, entrants, history, rng) -> Round | None:
        n = len(entrants)
        total = self.planned_rounds(n) if not history else self.planned_rounds(
            len({e for t in history[0].tables for e in t.seats} | set(history[0].byes)))
        if len(history) >= total or n < (self.min_seats or self.seats):
            return None
        designed = self._from_design(entrants, history)
        if designed is not None:
            return designed
        sizes, n_byes = table_sizes(n, self.seats, self.min_seats or self.seats)
        byes_had = bye_counts(history)
        # Byes to those with the fewest so far, latest seed first among equals.
        order = sorted(range(n), key=lambda i: (byes_had[entrants[i]], -i))
        bye_set = {entrants[i] for i in order[:n_byes]}
        playing = [e for e in entrants if e not in bye_set]
        # A random start order: in a round robin, rank carries no meaning.
        playing = rng.sample(playing, len(playing))
        met = met_counts(history)
        tables, figures = group_tables(playing, sizes, met, position_counts(history), rng)
        notes = [f"repeat meetings {int(figures['repeats'])}, seat cost {int(figures['seat_cost'])}"
                 " (minimised by local search)"]
        byes = tuple(e for e in entrants if e in bye_set)
        for e in byes:
            notes.append(f"bye: {e} ({n} entrants do not fill tables of {self.seats}; "
                         f"{byes_had[e]} byes before)")
        return Round(number=len(history) + 1, tables=tuple(tables), byes=byes, notes=tuple(notes))

    def _from_design(self, entrants, history) -> Round | None:
        """The round a resolvable design gives (``designs``: 9, 27, 81 entrants at tables of
        3, 15 too, 16 and 64 at 4, 25 and 125 at 5, 49 at 7, 64 at 8) while nobody has
        withdrawn and every earlier round followed it: every pair then meets exactly once per
        cycle. None otherwise (the search builds the round)."""
        field = sorted(entrants)
        found = resolvable_design(len(field), self.seats)
        if found is None:
            return None
        name, classes = found
        if history and sorted({e for t in history[0].tables for e in t.seats} | set(history[0].byes)) != field:
            return None

        def tables_of(r: int) -> set[frozenset[EntrantId]]:
            return {frozenset(field[p] for p in block) for block in classes[r % len(classes)]}

        if any(rnd.byes or {frozenset(t.seats) for t in rnd.tables} != tables_of(r) for r, rnd in enumerate(history)):
            return None
        r = len(history)
        positions = position_counts(history)
        tables = []
        for block in classes[r % len(classes)]:
            seats, _ = best_seating([field[p] for p in block], positions)
            tables.append(Table(seats=seats, notes=tuple(position_notes(seats, positions))))
        note = (f"{name}: parallel class {r % len(classes) + 1} of {len(classes)}, "
                f"so every pair meets exactly once in {len(classes)} rounds")
        return Round(number=r + 1, tables=tuple(tables), notes=(note,))
