"""Standings: match points per table, then an ordered list of tie-breaks, with the reason for
every rank; in an elimination format, how far each entrant went in the bracket before all that.

Rules:

* **The bracket first** (single and double elimination, the multi-table knockout: the caller
  passes ``reached``, from ``Format.reached``). Entrants rank by how far they went: the champion
  first, the loser of the final (or grand final) second, and so on, whatever their points; an
  entrant who went further never ranks below one who went less far. Only entrants who went
  equally far (``Reached.key`` equal: both semi-final losers, two knocked out in the same round
  from the same place at their tables) are split by the tie-breaks below, as any tied group is
  (the values are the same, counted over the whole tournament; ``head_to_head`` applies when
  exactly two of them are level). An entrant ``reached`` does not mention (withdrawn before the
  bracket was drawn) ranks below everyone it does. The explanation says "on the bracket" when
  that is what separated two entrants. Without ``reached`` (round robin, Swiss) the standings
  are the tie-breaks alone.
* **Match points.** A table of N seats awards ``points_by_place(N)[k]`` to the seat in position
  k (0 = first); ``points_by_place`` is a function of N, a mapping from N, or one list for the
  tournament's table size, of which a smaller table uses the last N values ((3, 2, 1, 0) gives
  (2, 1, 0) at three seats: the same as N − place). Seats that share a place share the points of the positions they occupy, evenly:
  two seats tied for first at a 4-seat table with the default (3, 2, 1, 0) get 2½ each. The
  default is N − place: (1, 0) at two seats, so a win is 1, a draw ½ and a loss 0; (3, 2, 1, 0)
  at four. Only the order of places matters (1, 1, 3 and 1, 1, 2 score alike).
* **Byes** (``byes``: one entrant id per bye awarded) score ``bye_points``, no game score, no
  opponent and no win. By default a bye is worth the average points of a table of the largest
  size played (½ at two seats, 1½ at four): what an average player expects, so sitting out
  neither helps nor hurts; an organiser who wants a bye to count as a win says so.
* These two rules are ``tournaments.formats.base.Scoring``, the one rule of match points: the
  Swiss format pairs on it too, so given the same ``points_by_place`` and ``bye_points`` its
  score groups are the match points shown here (the service gives it the tournament's
  ``points_by_place`` and the default bye value, as the published standings use).
* **Tie-breaks**, applied in the configured order, each only among entrants still tied:

  - ``match_points``: the points above.
  - ``game_score``: the sum of the entrant's scores in the games themselves.
  - ``buchholz``: the sum of the final match points of every opponent met, counted once per
    table shared (at a multi-seat table every other seat is an opponent).
  - ``buchholz_cut1``: Buchholz without its single lowest opponent.
  - ``sonneborn_berger``: the sum over every opponent met of (pairwise result × the opponent's
    match points), the pairwise result being 1 if the entrant finished ahead of that opponent,
    ½ if level, 0 if behind. At two seats this is classic Sonneborn-Berger (a win counts the
    opponent's points in full, a draw half).
  - ``head_to_head``: only when exactly two entrants are tied: the one with the better pairwise
    score over the tables they shared ranks ahead (never met, or level: still tied).
  - ``wins``: tables won outright (sole first place).

  Higher is better for every one. Entrants still tied after the last tie-break share the rank
  (competition ranking: 1, 2, 2, 4). Numbers are exact (``Fraction``); ``StandingRow.to_json``
  writes an integer, a float when exact in binary (halves, quarters) or else the string "p/q".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

# One result type and one scoring rule for the formats and the standings: re-exported here.
from tournaments.formats.base import (
    EntrantId, Number, PointsByPlace, Reached, Scoring, TableResult, default_points_by_place,
)
from tournaments.formats.base import exact as _exact

MATCH_POINTS = "match_points"
GAME_SCORE = "game_score"
BUCHHOLZ = "buchholz"
BUCHHOLZ_CUT1 = "buchholz_cut1"
SONNEBORN_BERGER = "sonneborn_berger"
HEAD_TO_HEAD = "head_to_head"
WINS = "wins"
BRACKET = "bracket"  # not a tie-break: the step before them when ``reached`` is given

TIEBREAKS = (MATCH_POINTS, GAME_SCORE, BUCHHOLZ, BUCHHOLZ_CUT1, SONNEBORN_BERGER, HEAD_TO_HEAD, WINS)
DEFAULT_TIEBREAKS = (MATCH_POINTS, BUCHHOLZ, SONNEBORN_BERGER, HEAD_TO_HEAD, GAME_SCORE, WINS)

LABELS = {
    MATCH_POINTS: "match points",
    GAME_SCORE: "game score",
    BUCHHOLZ: "Buchholz",
    BUCHHOLZ_CUT1: "Buchholz cut 1",
    SONNEBORN_BERGER: "Sonneborn-Berger",
    HEAD_TO_HEAD: "head-to-head",
    WINS: "wins",
}


class Phrases:
    """The words a standings explanation is made of, in English (the API's). Another language
    is a subclass (the pages': tournaments/web/terms.py); ``language`` names it, for caches."""

    language = "en"

    def label(self, tiebreak: str) -> str:
        return LABELS[tiebreak]

    def ordinal(self, n: int) -> str:
        return _ordinal(n)

    def reached(self, label: str) -> str:
        """How far an entrant went in a bracket: the formats' English label."""
        return label

    def join(self, names: list[str]) -> str:
        return _join(names)

    def valued(self, label: str, value: str) -> str:
        return f"{label} {value}"

    def versus(self, mine: str, theirs: str) -> str:
        return f"{mine} vs {theirs}"

    def on(self, label: str, shown: str) -> str:
        return f"on {label} {shown}"

    def level(self, text: str, levels: list[str]) -> str:
        return f"{text} (level on {', '.join(levels)})"

    def on_bracket(self, mine: str, theirs: str) -> str:
        return f"on the bracket: {mine} vs {theirs}"

    def tied(self, names: str, values: list[str]) -> str:
        return f"tied with {names} after every tie-break" + (f" ({', '.join(values)})" if values else "")

    def behind(self, name: str, reason: str) -> str:
        return f"behind {name} {reason}"

    def ahead(self, name: str, reason: str) -> str:
        return f"ahead of {name} {reason}"

    def alone(self) -> str:
        return "the only entrant"

    def sentence(self, tied: bool, rank: int, parts: list[str]) -> str:
        return f"{'=' if tied else ''}{self.ordinal(rank)}: {'; '.join(parts)}."


ENGLISH = Phrases()


@dataclass(frozen=True)
class StandingRow:
    """One entrant's line: rank (shared when tied), its points, the value of every configured
    tie-break (``head_to_head`` is None unless it was applied to this entrant), and why it ranks
    where it does; ``reached`` is how far it went in the bracket (None without one)."""

    entrant: EntrantId
    rank: int
    match_points: Fraction
    game_score: Fraction
    tiebreak_values: dict[str, Fraction | int | None] = field(hash=False)
    explanation: str
    reached: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "entrant": self.entrant,
            "rank": self.rank,
            "match_points": json_number(self.match_points),
            "game_score": json_number(self.game_score),
            "tiebreak_values": {k: None if v is None else json_number(v) for k, v in self.tiebreak_values.items()},
            "explanation": self.explanation,
            "reached": self.reached,
        }


def standings(
    entrants: Sequence[EntrantId],
    results: Sequence[TableResult],
    *,
    byes: Sequence[EntrantId] = (),
    points_by_place: PointsByPlace = default_points_by_place,
    bye_points: Number | None = None,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    names: Mapping[EntrantId, str] | None = None,
    reached: Mapping[EntrantId, Reached] | None = None,
    phrases: Phrases = ENGLISH,
) -> list[StandingRow]:
    """Rank ``entrants`` on ``results`` (see the module docstring for every rule).

    ``points_by_place`` is a function of the table size, a mapping from table size to the
    points of each position, or one list (see the module docstring). ``names`` labels entrants in explanations (default "#id"). Rows
    come best first; entrants sharing a rank come in ascending id order. ``reached``: how far
    each entrant went in an elimination bracket (``Format.reached``), ranked by before any
    tie-break; None ranks by the tie-breaks alone. ``phrases``: the words of the explanations
    (English; the pages give the reader's language).
    """
    _check_tiebreaks(tiebreaks)
    order = list(entrants)
    if len(set(order)) != len(order):
        raise ValueError("an entrant is listed twice")
    tally = _Tally(order)
    scoring = Scoring(points_by_place, bye_points)
    for result in results:
        tally.add_table(result, scoring)
    if byes:
        bye_value = scoring.bye_value(results)
        for entrant in byes:
            tally.add_bye(entrant, bye_value)

    values = {name: tally.values(name) for name in tiebreaks if name != HEAD_TO_HEAD}
    head_to_head: dict[EntrantId, Fraction] = {}
    # Split the tied groups one step at a time; snapshots[t][e] is e's group after step t, so
    # the step that separated two neighbours is the first where their groups differ. The
    # bracket, when there is one, is the first step: the tie-breaks only split its groups.
    groups = [sorted(order)]
    snapshots: list[dict[EntrantId, int]] = []
    steps: list[str] = list(tiebreaks)
    if reached is not None:
        steps.insert(0, BRACKET)
        groups = _split_by_bracket(order, reached)
        snapshots.append({e: index for index, group in enumerate(groups) for e in group})
    for name in tiebreaks:
        split: list[list[EntrantId]] = []
        for group in groups:
            if name == HEAD_TO_HEAD:
                split.extend(_split_head_to_head(group, tally, head_to_head))
            else:
                split.extend(_split_by(group, values[name]))
        groups = split
        snapshots.append({e: index for index, group in enumerate(groups) for e in group})

    label = (lambda e: names.get(e, f"#{e}")) if names else (lambda e: f"#{e}")
    ranked = [e for group in groups for e in group]
    rank_of: dict[EntrantId, int] = {}
    position = 1
    for group in groups:
        for e in group:
            rank_of[e] = position
        position += len(group)

    def reason(mine: EntrantId, theirs: EntrantId) -> str:
        """'on Buchholz 14 vs 12 (level on match points 7)': the step that separated them,
        this entrant's value first; 'on the bracket: lost the final vs champion'."""
        level = []
        for step, name in enumerate(steps):
            if snapshots[step][mine] != snapshots[step][theirs]:
                if name == BRACKET:
                    return phrases.on_bracket(phrases.reached(_reached_label(reached, mine)),
                                              phrases.reached(_reached_label(reached, theirs)))
                if name == HEAD_TO_HEAD:
                    shown = f"{_fmt(head_to_head[mine])}–{_fmt(head_to_head[theirs])}"
                else:
                    shown = phrases.versus(_fmt(values[name][mine]), _fmt(values[name][theirs]))
                text = phrases.on(phrases.label(name), shown)
                return phrases.level(text, level) if level else text
            if name not in (HEAD_TO_HEAD, BRACKET):
                level.append(phrases.valued(phrases.label(name), _fmt(values[name][mine])))
        raise AssertionError("neighbours of different rank were never separated")

    def level_on(e: EntrantId) -> list[str]:
        return [phrases.valued(phrases.label(n), _fmt(values[n][e])) for n in tiebreaks if n != HEAD_TO_HEAD]

    rows = []
    for index, e in enumerate(ranked):
        rank = rank_of[e]
        tied = [other for other in ranked if rank_of[other] == rank and other != e]
        parts = []
        if tied:
            parts.append(phrases.tied(phrases.join([label(t) for t in tied]), level_on(e)))
        above = next((o for o in reversed(ranked[:index]) if rank_of[o] < rank), None)
        below = next((o for o in ranked[index + 1 :] if rank_of[o] > rank), None)
        if above is not None:
            # Any entrant of the group just above: they all share its values.
            parts.append(phrases.behind(label(above), reason(e, above)))
        if below is not None:
            parts.append(phrases.ahead(label(below), reason(e, below)))
        if not parts:
            parts.append(phrases.alone())
        tiebreak_values: dict[str, Fraction | int | None] = {}
        for name in tiebreaks:
            tiebreak_values[name] = head_to_head.get(e) if name == HEAD_TO_HEAD else values[name][e]
        rows.append(
            StandingRow(
                entrant=e,
                rank=rank,
                match_points=tally.points[e],
                game_score=tally.score[e],
                tiebreak_values=tiebreak_values,
                explanation=phrases.sentence(bool(tied), rank, parts),
                reached=None if reached is None else _reached_label(reached, e),
            )
        )
    return rows


@dataclass(frozen=True)
class _Seat:
    entrant: EntrantId
    place: int
    score: Number


class _Tally:
    """Everything the tie-breaks need, gathered in one pass over the results."""

    def __init__(self, entrants: Sequence[EntrantId]) -> None:
        self.points = {e: Fraction(0) for e in entrants}
        self.score = {e: Fraction(0) for e in entrants}
        self.wins = dict.fromkeys(entrants, 0)
        # (opponent, pairwise result 1 / ½ / 0) for every opponent at every table played.
        self.met: dict[EntrantId, list[tuple[EntrantId, Fraction]]] = {e: [] for e in entrants}

    def _known(self, entrant: EntrantId) -> None:
        if entrant not in self.points:
            raise ValueError(f"entrant {entrant} has a result but is not among the entrants")

    def add_bye(self, entrant: EntrantId, points: Fraction) -> None:
        self._known(entrant)
        self.points[entrant] += points

    def add_table(self, table: TableResult, scoring: Scoring) -> None:
        players = list(table.seats)
        if len(players) < 2:
            raise ValueError(f"a table needs two or more seats, got {len(players)}: record a single seat as a bye")
        if len(table.places) != len(players) or len(table.scores) not in (0, len(players)):
            raise ValueError(f"table {players}: one place (and one score, if any) per seat")
        # A seat with no recorded score (a forfeit) counts nothing towards game score.
        seats = [_Seat(e, pl, sc) for e, pl, sc in zip(players, table.places, table.game_scores)]
        if len(set(players)) != len(players):
            raise ValueError(f"an entrant sits twice at one table: {players}")
        for seat in seats:
            self._known(seat.entrant)
            if isinstance(seat.place, bool) or not isinstance(seat.place, int) or seat.place < 1:
                raise ValueError(f"entrant {seat.entrant}: place must be a whole number ≥ 1, not {seat.place!r}")
        for seat, points in zip(seats, scoring.table_points(table)):
            self.points[seat.entrant] += points
        best = min(seat.place for seat in seats)
        winners = [seat for seat in seats if seat.place == best]
        if len(winners) == 1:  # sole first place
            self.wins[winners[0].entrant] += 1
        for seat in seats:
            self.score[seat.entrant] += _exact(seat.score, f"entrant {seat.entrant}'s score")
            for other in seats:
                if other is not seat:
                    result = 1 if seat.place < other.place else Fraction(1, 2) if seat.place == other.place else 0
                    self.met[seat.entrant].append((other.entrant, Fraction(result)))

    def values(self, name: str) -> dict[EntrantId, Fraction | int]:
        if name == MATCH_POINTS:
            return dict(self.points)
        if name == GAME_SCORE:
            return dict(self.score)
        if name == WINS:
            return dict(self.wins)
        if name == BUCHHOLZ:
            return {e: sum((self.points[o] for o, _ in met), Fraction(0)) for e, met in self.met.items()}
        if name == BUCHHOLZ_CUT1:
            return {
                e: sum((self.points[o] for o, _ in met), Fraction(0)) - min((self.points[o] for o, _ in met), default=0)
                for e, met in self.met.items()
            }
        if name == SONNEBORN_BERGER:
            return {e: sum((r * self.points[o] for o, r in met), Fraction(0)) for e, met in self.met.items()}
        raise AssertionError(name)

    def pairwise(self, a: EntrantId, b: EntrantId) -> tuple[Fraction, Fraction, int]:
        """(a's pairwise score against b, b's against a, tables shared)."""
        mine = [r for o, r in self.met[a] if o == b]
        return sum(mine, Fraction(0)), sum((1 - r for r in mine), Fraction(0)), len(mine)


def _split_by(group: list[EntrantId], value: Mapping[EntrantId, Any]) -> list[list[EntrantId]]:
    """Split a tied group by one tie-break, best first; equal values stay together (id order).
    (The one group of a tournament with no entrants is empty: nothing to split.)"""
    if len(group) <= 1:
        return [group]
    ordered = sorted(group, key=lambda e: (-value[e], e))
    split = [[ordered[0]]]
    for e in ordered[1:]:
        if value[e] == value[split[-1][-1]]:
            split[-1].append(e)
        else:
            split.append([e])
    return split


def _split_by_bracket(order: list[EntrantId], reached: Mapping[EntrantId, Reached]) -> list[list[EntrantId]]:
    """Group entrants by how far they went, furthest first (id order within a group); those
    ``reached`` does not mention form the last group."""

    def key(e: EntrantId) -> tuple[int, tuple[int, ...]]:
        return (1, tuple(reached[e].key)) if e in reached else (0, ())

    groups: dict[tuple[int, tuple[int, ...]], list[EntrantId]] = {}
    for e in sorted(order):
        groups.setdefault(key(e), []).append(e)
    return [groups[k] for k in sorted(groups, reverse=True)]


def _reached_label(reached: Mapping[EntrantId, Reached] | None, e: EntrantId) -> str:
    return reached[e].label if reached is not None and e in reached else "not in the bracket"


def _split_head_to_head(
    group: list[EntrantId], tally: _Tally, recorded: dict[EntrantId, Fraction]
) -> list[list[EntrantId]]:
    if len(group) != 2:
        return [group]
    a, b = group
    score_a, score_b, shared = tally.pairwise(a, b)
    if not shared:
        return [group]
    recorded[a], recorded[b] = score_a, score_b
    if score_a == score_b:
        return [group]
    return [[a], [b]] if score_a > score_b else [[b], [a]]


def _check_tiebreaks(tiebreaks: Sequence[str]) -> None:
    if isinstance(tiebreaks, str):
        raise ValueError("tiebreaks is a list of names, not one string")
    for name in tiebreaks:
        if name not in TIEBREAKS:
            raise ValueError(f"unknown tie-break {name!r}; known: {', '.join(TIEBREAKS)}")
    if len(set(tiebreaks)) != len(tiebreaks):
        raise ValueError(f"a tie-break is listed twice: {list(tiebreaks)}")


def json_number(value: Fraction | int) -> int | float | str:
    """An integer, a float when exact in binary (½, ¼, ...), otherwise the exact "p/q"."""
    value = Fraction(value)
    if value.denominator == 1:
        return value.numerator
    if value.denominator & (value.denominator - 1) == 0:
        return float(value)
    return f"{value.numerator}/{value.denominator}"


def _fmt(value: Fraction | int) -> str:
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator & (value.denominator - 1) == 0 or value.denominator in (5, 10, 20, 25, 50, 100):
        return f"{float(value):g}"
    return f"{value.numerator}/{value.denominator}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _join(labels: Any) -> str:
    labels = list(labels)
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"
