"""Multi-seat tables by local search: put entrants at tables so that few pairs meet again and,
in Swiss, tables hold entrants of equal score; then seat each table to even out turn positions.

The cost of a table is the sum over its pairs of a repeat cost that grows steeply with the
times the pair already met (0, 1, 4, 13, ... thousand: a third meeting costs more than two
second ones, so repeats spread evenly) plus the squared score difference. The search
starts from the entrants in rank order cut into tables, then tries random swaps of two entrants
at different tables, keeping a swap when the cost does not rise, until a long run of swaps
brings no gain. Everything random comes from the caller's seeded rng.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from .base import EntrantId, Table, best_seating, position_notes, repeat_notes

REPEAT = 1000  # one repeat meeting outweighs a score gap of up to about 31 points
# Meeting a third time costs far more than two pairs meeting a second time: spreads repeats.
REPEAT_STEP = (0, 1, 4, 13, 40, 121, 364)


def group_tables(ranked: Sequence[EntrantId], sizes: Sequence[int],
                 met: Counter[frozenset[EntrantId]], positions: dict[EntrantId, Counter[int]],
                 rng: random.Random, scores: dict[EntrantId, float] | None = None,
                 effort: int = 40) -> tuple[list[Table], dict[str, float]]:
    """Tables of the given ``sizes`` for ``ranked`` (best first). Returns the tables, each seated
    and annotated, and the figures of the search: repeats, score spread, seat imbalance."""
    n = len(ranked)
    assert sum(sizes) == n
    score = [float(scores[e]) if scores else 0.0 for e in ranked]
    cost = [[0.0] * n for _ in range(n)]
    for i in range(n):
        a = ranked[i]
        row = cost[i]
        for j in range(i + 1, n):
            c = REPEAT * REPEAT_STEP[min(met[frozenset((a, ranked[j]))], 6)] + (score[i] - score[j]) ** 2
            row[j] = c
            cost[j][i] = c

    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(list(range(start, start + size)))
        start += size
    where = [0] * n
    for t, members in enumerate(tables):
        for i in members:
            where[i] = t

    if len(tables) > 1:
        # Patience grows with the field so that large rounds get a comparable search per entrant.
        patience = effort * n
        idle = 0
        randrange = rng.randrange
        while idle < patience:
            i = randrange(n)
            j = randrange(n)
            ti, tj = where[i], where[j]
            if ti == tj:
                continue
            ci, cj = cost[i], cost[j]
            delta = 0.0
            for x in tables[ti]:
                if x != i:
                    delta += cj[x] - ci[x]
            for y in tables[tj]:
                if y != j:
                    delta += ci[y] - cj[y]
            if delta <= 0:
                a, b = tables[ti], tables[tj]
                a[a.index(i)] = j
                b[b.index(j)] = i
                where[i], where[j] = tj, ti
                idle = 0 if delta < 0 else idle + 1
            else:
                idle += 1

    out = []
    figures = {"repeats": 0.0, "score_spread": 0.0, "seat_cost": 0.0}
    for members in tables:
        members.sort()  # rank order, so the seating tie-break is stable and seed-friendly
        entrants = [ranked[i] for i in members]
        seats, seat_cost = best_seating(entrants, positions)
        notes = repeat_notes(seats, met) + position_notes(seats, positions)
        if scores:
            hi = max(score[i] for i in members)
            lo = min(score[i] for i in members)
            figures["score_spread"] += hi - lo
            if hi != lo:
                notes.append(f"scores {lo:g} to {hi:g} at one table")
        figures["repeats"] += sum(1 for note in notes if note.startswith("repeat"))
        figures["seat_cost"] += seat_cost
        out.append(Table(seats=seats, notes=tuple(notes)))
    return out, figures
