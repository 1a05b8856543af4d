"""Multi-table knockout for 3-8 seats: the top ``advance`` of each table go through, until one
final table.

Each round the field is cut into the fewest tables of at most ``seats`` (as even as possible,
never smaller than ``min_seats``; if the field cannot be cut so, the top seeds get byes and go
through), dealt snake-style by seed: 1, 2, 3 | 3, 2, 1 across three tables, so every table gets a
fair share of strong and weak entrants. From each table the best ``advance`` places go through
(a shared place is split by score, then seed), but never a whole table: at least one is knocked
out, so the stage always ends. Round 1 seeds by entry order; later rounds by the place reached,
then score, then the original seed. When the field fits at one table it plays the final.

How far each entrant went (``reached``, which the standings rank by before any tie-break): the
key is (last round played, −place at that table). At the final table the places decide first to
last; those knocked out in the same round rank by the place they took at their table (2nd at one
table level with 2nd at another: the tie-breaks split them), below everyone who went further.
Entrants still in share the key (next round, 0), above all; a bye carries an entrant to the
next round, so one who withdrew after a bye in round r has (r, 0). An entrant who withdrew
after going through keeps the key of the place it went through with.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import MAX_SEATS, EntrantId, Format, Reached, Round, RoundResult, Table, _ordinal, check_int, table_sizes


def snake(ranked: list[EntrantId], sizes: list[int]) -> list[list[EntrantId]]:
    """Deal ``ranked`` across tables of ``sizes`` in a snake: forward, back, forward..."""
    tables: list[list[EntrantId]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    it = iter(ranked)
    left = min(len(ranked), sum(sizes))
    while left:
        for t in order:
            if left and len(tables[t]) < sizes[t]:
                tables[t].append(next(it))
                left -= 1
        order.reverse()
    return tables


@dataclass(frozen=True)
class MultiTableKnockout(Format):
    name = "knockout"
    seats: int = 4
    advance: int = 2
    min_seats: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("seats", self.seats, 3, MAX_SEATS)
        check_int("advance", self.advance, 1, self.seats - 1)
        check_int("min_seats", self.min_seats, 2, self.seats)

    def _survivors(self, n: int) -> tuple[list[int], int, int]:
        sizes, byes = table_sizes(n, self.seats, self.min_seats)
        through = byes + sum(min(self.advance, s - 1) for s in sizes)
        return sizes, byes, through

    def planned_rounds(self, n_entrants: int) -> int | None:
        rounds, n = 0, n_entrants
        while n > self.seats:
            n = self._survivors(n)[2]
            rounds += 1
        return rounds + (1 if n >= self.min_seats else 0)

    def _next_round(self, entrants, history, rng):
        present = set(entrants)
        seed = {e: i for i, e in enumerate(entrants)}
        if not history:
            field = list(entrants)
        else:
            last = history[-1]
            if self._was_final(last):
                return None
            field = [e for e in self._through(last, seed) if e in present]
        n = len(field)
        if n < self.min_seats:
            return None
        number = len(history) + 1
        if n <= self.seats:
            return Round(number=number, tables=(Table(seats=tuple(field), notes=("final table",)),),
                         notes=(f"final table of {n}",))
        sizes, n_byes, _ = self._survivors(n)
        byes = tuple(field[:n_byes])
        tables = []
        for members in snake(field[n_byes:], sizes):
            keep = min(self.advance, len(members) - 1)
            tables.append(Table(seats=tuple(members),
                                notes=(f"snake seeding; top {keep} of {len(members)} advance",)))
        notes = [f"{n} entrants at {len(tables)} tables"]
        notes += [f"bye: {e} (top seed; {n} entrants do not fill tables of "
                  f"{self.min_seats}-{self.seats})" for e in byes]
        return Round(number=number, tables=tuple(tables), byes=byes, notes=tuple(notes))

    def _through(self, rnd: RoundResult, seed: dict[EntrantId, int]) -> list[EntrantId]:
        """Who goes through from ``rnd`` (withdrawn or not), in the next round's seed order:
        the top ``advance`` of each table (never all of it), ranked by place, score and seed,
        then its byes."""
        ranked = []
        for t in rnd.tables:
            order = sorted(zip(t.seats, t.places, t.scores),
                           key=lambda r: (r[1], -r[2], seed.get(r[0], len(seed))))
            keep = min(self.advance, len(t.seats) - 1)
            ranked += [(place, -score, seed.get(e, len(seed)), e)
                       for e, place, score in order[:keep]]
        ranked += [(0, 0, seed.get(e, len(seed)), e) for e in rnd.byes]
        return [r[3] for r in sorted(ranked)]

    def _was_final(self, last: RoundResult) -> bool:
        # The final is the round that seated everyone left at one table of at most ``seats``.
        return len(last.tables) == 1 and not last.byes and len(last.tables[0].seats) <= self.seats

    def _reached(self, entrants, history):
        """See the module docstring: (last round played, −place there); still in: (next
        round, 0); never seated: (0, 0)."""
        present = set(entrants)
        if not history:
            return {e: Reached(key=(1, 0), label="still in (round 1)") for e in entrants}
        seed = {e: i for i, e in enumerate(entrants)}
        # Each entrant's last appearance: (round, place at its table, or None for a bye).
        last_seen: dict[EntrantId, tuple[int, int | None]] = {}
        went_through: dict[int, set[EntrantId]] = {}
        for t, rnd in enumerate(history, start=1):
            for table in rnd.tables:
                for e, place in zip(table.seats, table.places):
                    last_seen[e] = (t, place)
            for e in rnd.byes:
                last_seen[e] = (t, None)
            went_through[t] = set(self._through(rnd, seed))
        played = len(history)
        last = history[-1]
        final = self._was_final(last)
        # Exactly the field ``_next_round`` would seat next.
        field = [] if final else [e for e in self._through(last, seed) if e in present]
        over = final or len(field) < self.min_seats
        reached: dict[EntrantId, Reached] = {}
        for e in field:
            if over:  # too few left to fill a table: the stage ends with them still in
                label = "champion (no opponent left)" if len(field) == 1 else \
                    f"still in when the stage ended (round {played + 1})"
            else:
                label = f"still in (round {played + 1})"
            reached[e] = Reached(key=(played + 1, 0), label=label)
        winners = sum(1 for p in last.tables[0].places if p == 1) if final else 0
        for e, (t, place) in last_seen.items():
            if e in reached:
                continue
            if place is None:
                reached[e] = Reached(key=(t, 0), label=f"withdrew after a bye in round {t}")
            elif final and t == played:
                label = "champion" if place == 1 and winners == 1 else \
                    f"{_ordinal(place)} at the final table"
                reached[e] = Reached(key=(t, -place), label=label)
            elif e in went_through[t]:
                reached[e] = Reached(key=(t, -place), label=f"withdrew after round {t} "
                                                            f"({_ordinal(place)} at the table)")
            else:
                reached[e] = Reached(key=(t, -place),
                                     label=f"out at round {t}, {_ordinal(place)} at the table")
        for e in entrants:
            reached.setdefault(e, Reached(key=(0, 0), label="did not play"))
        return reached
