"""Swiss: a fixed number of rounds; each round pairs entrants of equal score who have not met.

Scores are match points by the standings' own rule (``base.Scoring``, the one
``tournaments.standings`` publishes): the points of places (``points``: the points of each place
at a full table, best first, default seats−1, ..., 0; a smaller table uses the last N values;
tied places share the points of the positions they span) plus a bye worth ``bye_points`` (default
the standings' default: the average points of a table of the largest size played). So the
score groups a round is paired in are the match points the standings show, as long as the format
is given the tournament's points (the service passes its ``points_by_place``). In duplicate play
every rotated table scores, as in the standings. Entrants are ranked by score, then by seed.

Two seats: one maximum-weight perfect matching (networkx, Edmonds' blossom algorithm) over all
pairs, with weights in strict priority order, so the pairing is optimal, not merely greedy:

1. as few repeat pairings as possible (none whenever a pairing without one exists);
2. with an odd field, the bye goes only to an entrant with the fewest byes so far (nobody gets a
   second bye while someone has none), and among those to the lowest ranked;
3. the smallest sum of squared score differences between partners (pairs within score groups);
4. within a score group, the top half meets the bottom half (1 v 5, 2 v 6, ... of eight).

Seats are colour-free: seat 0 goes to whichever partner has sat in seat 0 less often.

Three to eight seats: tables cut from the ranking, then improved by local search that minimises
repeat meetings first and score spread second (``grouping``), each table seated to even out
turn positions; the round's notes give the costs reached.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .base import (
    MAX_SEATS,
    MIN_SEATS,
    EntrantId,
    Format,
    Round,
    RoundResult,
    Scoring,
    Table,
    bye_counts,
    check_int,
    check_points,
    default_points_by_place,
    met_counts,
    position_counts,
    repeat_notes,
    table_sizes,
)
from .grouping import group_tables

WINDOW = 12  # ranks either side a partner is first looked for; see pair_two_seats


@dataclass(frozen=True)
class Swiss(Format):
    """``rounds`` rounds of tables of ``seats``; default rounds ceil(log2 n) for two seats,
    ceil(log_seats n) + 1 otherwise. ``points`` per place (default seats-1, ..., 0) and
    ``bye_points`` (default the average points of a table of the largest size played) score as
    the standings do (``base.Scoring``); ``min_seats`` allows smaller tables over byes."""

    name = "swiss"
    seats: int = 2
    rounds: int | None = None
    points: tuple | None = None
    bye_points: object = None
    min_seats: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("seats", self.seats, MIN_SEATS, MAX_SEATS)
        if self.rounds is not None:
            check_int("rounds", self.rounds, 1, 1000)
        if self.min_seats is not None:
            check_int("min_seats", self.min_seats, MIN_SEATS, self.seats)
        pts = check_points("points", self.points if self.points is not None
                           else default_points_by_place(self.seats), self.seats)
        bye = None
        if self.bye_points is not None:
            try:
                bye = Fraction(repr(self.bye_points)) if isinstance(self.bye_points, float) \
                    else Fraction(self.bye_points)
            except (TypeError, ValueError):
                raise ValueError(f"bye_points must be a number, got {self.bye_points!r}") from None
        object.__setattr__(self, "_scoring", Scoring(pts, bye))

    def scores(self, entrants, history) -> dict[EntrantId, Fraction]:
        """The match points this Swiss pairs on, for ``entrants`` after ``history`` (tables as
        played): the standings' match points under the same ``points`` and ``bye_points``."""
        return self._scoring.match_points(entrants, history)

    def planned_rounds(self, n_entrants: int) -> int | None:
        if self.rounds is not None:
            return self.rounds
        if n_entrants < 2:
            return 0
        if self.seats == 2:
            return max(1, math.ceil(math.log2(n_entrants)))
        return max(1, math.ceil(math.log(n_entrants, self.seats))) + 1

    def _next_round(self, entrants, history, rng):
        return self._next_round_of(entrants, history, history, rng)

    def _next_round_of(self, entrants, history, played, rng):
        n = len(entrants)
        start = {e for t in history[0].tables for e in t.seats} | set(history[0].byes) \
            if history else set(entrants)
        if len(history) >= self.planned_rounds(len(start)) or n < (self.min_seats or self.seats):
            return None
        # Scored on the tables as played, as the standings score them; paired on ``history``.
        scores = self.scores(entrants, played)
        seed = {e: i for i, e in enumerate(entrants)}
        ranked = sorted(entrants, key=lambda e: (-scores[e], seed[e]))
        number = len(history) + 1
        if self.seats == 2:
            return pair_two_seats(number, ranked, scores, history)
        return self._multi_seat(number, ranked, scores, history, rng)

    def _multi_seat(self, number, ranked, scores, history, rng) -> Round:
        n = len(ranked)
        sizes, n_byes = table_sizes(n, self.seats, self.min_seats or self.seats)
        byes_had = bye_counts(history)
        # Byes to the fewest-byes entrants, lowest ranked first among them.
        order = sorted(range(n), key=lambda i: (byes_had[ranked[i]], -i))
        bye_set = {ranked[i] for i in order[:n_byes]}
        playing = [e for e in ranked if e not in bye_set]
        tables, figures = group_tables(playing, sizes, met_counts(history),
                                       position_counts(history), rng,
                                       scores={e: float(scores[e]) for e in playing})
        notes = [f"repeat meetings {int(figures['repeats'])}, score spread "
                 f"{figures['score_spread']:g}, seat cost {int(figures['seat_cost'])} "
                 "(minimised by local search, repeats first)"]
        byes = tuple(e for e in ranked if e in bye_set)
        for e in byes:
            notes.append(f"bye: {e} (lowest ranked with {byes_had[e]} byes; {n} entrants do "
                         f"not fill tables of {self.seats})")
        return Round(number=number, tables=tuple(tables), byes=byes, notes=tuple(notes))


def pair_two_seats(number: int, ranked: list[EntrantId], scores: dict[EntrantId, Fraction],
                   history: list[RoundResult]) -> Round:
    """The two-seat Swiss pairing described in the module docstring."""
    import networkx as nx

    n = len(ranked)
    met = met_counts(history)
    byes_had = bye_counts(history)
    seat0 = position_counts(history)
    scale = math.lcm(*(s.denominator for s in scores.values())) if scores else 1
    pts = [int(scores[e] * scale) for e in ranked]
    # Position inside the score group, for the top-half-v-bottom-half preference.
    group_size: dict[int, int] = {}
    pos_in_group = []
    for p in pts:
        pos_in_group.append(group_size.get(p, 0))
        group_size[p] = group_size.get(p, 0) + 1
    max_d2 = (max(pts) - min(pts)) ** 2 if pts else 0
    # Weights in strict priority: each level outweighs everything the lower levels can sum to.
    fold_unit = 1
    score_unit = fold_unit * (n * n + 1)
    bye_unit = score_unit * (n * max_d2 + 1) + score_unit
    repeat_unit = bye_unit * (n + 1) + bye_unit
    base = repeat_unit * (n * n + 1)

    def weight(i: int, j: int) -> int:
        w = base - repeat_unit * met[frozenset((ranked[i], ranked[j]))]
        w -= score_unit * (pts[i] - pts[j]) ** 2
        if pts[i] == pts[j]:
            w -= fold_unit * abs(pos_in_group[j] - pos_in_group[i] - group_size[pts[i]] // 2)
        return w

    bye_node = n if n % 2 else None
    fewest = min(byes_had[e] for e in ranked)

    def match(full: bool) -> set:
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for i in range(n):
            for j in range(i + 1, n):
                if full or j - i <= WINDOW or (pts[i] == pts[j] and abs(
                        pos_in_group[j] - pos_in_group[i] - group_size[pts[i]] // 2) <= WINDOW):
                    g.add_edge(i, j, weight=weight(i, j))
        if bye_node is not None:
            for i in range(n):
                if byes_had[ranked[i]] == fewest:
                    g.add_edge(i, bye_node, weight=base - bye_unit * (n - 1 - i))
        return nx.max_weight_matching(g, maxcardinality=True)

    # The sparse graph (partners near in rank, or near the fold partner in a score group) is
    # enough almost always and many times faster; the full graph settles the rest, so the
    # guarantees of the module docstring hold either way.
    matching = match(full=False)
    if len(matching) * 2 < n or any(
            bye_node not in p and met[frozenset((ranked[min(p)], ranked[max(p)]))]
            for p in matching):
        matching = match(full=True)

    tables, byes, notes = [], [], []
    for a, b in sorted(tuple(sorted(p)) for p in matching):
        if b == bye_node:
            e = ranked[a]
            byes.append(e)
            notes.append(f"bye: {e} (odd field; lowest ranked with {byes_had[e]} byes so far)")
            continue
        x, y = ranked[a], ranked[b]
        # Colour-free, but even out who acts first.
        if seat0.get(y, {}).get(0, 0) < seat0.get(x, {}).get(0, 0):
            x, y = y, x
        table_notes = repeat_notes((x, y), met)
        if scores[x] != scores[y]:
            table_notes.append(f"score {scores[x]} v {scores[y]}: paired across score groups")
        tables.append(Table(seats=(x, y), notes=tuple(table_notes)))
    repeats = sum(1 for t in tables for note in t.notes if note.startswith("repeat"))
    notes.insert(0, f"maximum-weight matching: {repeats} repeat pairings"
                 + (" (none avoidable)" if repeats else ""))
    return Round(number=number, tables=tuple(tables), byes=tuple(byes), notes=tuple(notes))
