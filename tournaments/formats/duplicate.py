"""Duplicate play: the same deal at every table of a round, seats rotated, so luck cancels.

A round in duplicate is made from an ordinary round: each table of N seats becomes N tables with
the same entrants, the seats rotated by 0, 1, ..., N-1 places, so every entrant plays every
turn position once. All tables of the round carry one deal key (the round number): the service
derives the cards from (tournament, deal key), so every table of a round with the same number of
seats plays the same cards. Results come back as N tables per group; ``merge_duplicates`` folds
them into one result per group: the entrants' scores summed, ranked by total score, then by the
sum of their places (lower is better), ties sharing a place.
"""

from __future__ import annotations

from collections import defaultdict

from .base import EntrantId, Round, RoundResult, Table, TableResult


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
