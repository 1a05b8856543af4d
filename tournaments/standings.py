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
  (2, 1, 0) at three seats: the same as N − place). Seats that share a place share the points of
  the positions they occupy, evenly: two seats tied for first at a 4-seat table with the default
  (3, 2, 1, 0) get 2½ each. The default is N − place: (1, 0) at two seats, so a win is 1, a draw ½ and a loss 0; (3, 2, 1, 0)
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
from tournaments.formats.base import EntrantId, Number, PointsByPlace, Reached, Scoring, TableResult, default_points_by_place
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
    points of each position, or one list (see the module docstring). ``names`` labels entrants in
    explanations (default "#id"). Rows come best first; entrants sharing a rank come in ascending id order. ``reached``: how far
    each entrant went in an elimination bracket (``Format.reached``), ranked by before any
    tie-break; None ranks by the tie-breaks alone. ``phrases``: the words of the explanations
    (English; the pages give the reader's language).
    """
    _check_tiebreaks(tiebreaks)
    order = list(entrants)
    if len(set(order)) != len(order):
        raise ValueError("an entrant is listed twice")
    tally = _tally(order, results, byes, Scoring(points_by_place, bye_points))
    ranking = _Ranking(order, tally, tiebreaks, reached)
    explain = _Explanations(ranking, names, reached, phrases)
    rows = []
    rank = 1
    for index, group in enumerate(ranking.groups):
        # Any entrant of the group just above (or below) stands for it: they share its values.
        above = ranking.groups[index - 1][-1] if index > 0 else None
        below = ranking.groups[index + 1][0] if index + 1 < len(ranking.groups) else None
        for e in group:
            rows.append(StandingRow(
                entrant=e,
                rank=rank,
                match_points=tally.points[e],
                game_score=tally.score[e],
                tiebreak_values=ranking.tiebreak_values(e),
                explanation=explain.sentence(e, rank, [other for other in group if other != e], above, below),
                reached=None if reached is None else _reached_label(reached, e),
            ))
        rank += len(group)
    return rows


def _tally(order: list[EntrantId], results: Sequence[TableResult], byes: Sequence[EntrantId],
           scoring: Scoring) -> _Tally:
    """Every table's and every bye's points, scores and meetings, in one pass."""
    tally = _Tally(order)
    for result in results:
        tally.add_table(result, scoring)
    if byes:
        bye_value = scoring.bye_value(results)
        for entrant in byes:
            tally.add_bye(entrant, bye_value)
    return tally


class _Ranking:
    """The entrants split into tied groups, best first: by the bracket (when ``reached`` is
    given), then by each tie-break in turn, each only splitting the groups still tied.
    ``snapshots[t][e]`` is e's group after step ``steps[t]``, so the step that separated two
    entrants is the first where their groups differ."""

    def __init__(self, order: list[EntrantId], tally: _Tally, tiebreaks: Sequence[str],
                 reached: Mapping[EntrantId, Reached] | None) -> None:
        self.tiebreaks = tiebreaks
        self.values = {name: tally.values(name) for name in tiebreaks if name != HEAD_TO_HEAD}
        self.head_to_head: dict[EntrantId, Fraction] = {}
        self.steps: list[str] = list(tiebreaks)
        self.snapshots: list[dict[EntrantId, int]] = []
        groups = [sorted(order)]
        if reached is not None:
            self.steps.insert(0, BRACKET)
            groups = _split_by_bracket(order, reached)
            self.snapshots.append(_snapshot(groups))
        for name in tiebreaks:
            split: list[list[EntrantId]] = []
            for group in groups:
                if name == HEAD_TO_HEAD:
                    split.extend(_split_head_to_head(group, tally, self.head_to_head))
                else:
                    split.extend(_split_by(group, self.values[name]))
            groups = split
            self.snapshots.append(_snapshot(groups))
        self.groups = groups

    def tiebreak_values(self, e: EntrantId) -> dict[str, Fraction | int | None]:
        return {name: self.head_to_head.get(e) if name == HEAD_TO_HEAD else self.values[name][e]
                for name in self.tiebreaks}


def _snapshot(groups: list[list[EntrantId]]) -> dict[EntrantId, int]:
    return {e: index for index, group in enumerate(groups) for e in group}


class _Explanations:
    """Why each entrant ranks where it does, in ``phrases``' words."""

    def __init__(self, ranking: _Ranking, names: Mapping[EntrantId, str] | None,
                 reached: Mapping[EntrantId, Reached] | None, phrases: Phrases) -> None:
        self.ranking, self.names, self.reached, self.phrases = ranking, names, reached, phrases

    def label(self, e: EntrantId) -> str:
        return self.names.get(e, f"#{e}") if self.names else f"#{e}"

    def sentence(self, e: EntrantId, rank: int, tied: list[EntrantId], above: EntrantId | None,
                 below: EntrantId | None) -> str:
        """'=3rd: tied with ... ; behind X on ...; ahead of Y on ...'."""
        phrases = self.phrases
        parts = []
        if tied:
            parts.append(phrases.tied(phrases.join([self.label(t) for t in tied]), self.level_on(e)))
        if above is not None:
            parts.append(phrases.behind(self.label(above), self.reason(e, above)))
        if below is not None:
            parts.append(phrases.ahead(self.label(below), self.reason(e, below)))
        if not parts:
            parts.append(phrases.alone())
        return phrases.sentence(bool(tied), rank, parts)

    def reason(self, mine: EntrantId, theirs: EntrantId) -> str:
        """'on Buchholz 14 vs 12 (level on match points 7)': the step that separated them,
        this entrant's value first; 'on the bracket: lost the final vs champion'."""
        phrases, ranking, values = self.phrases, self.ranking, self.ranking.values
        level = []
        for step, name in enumerate(ranking.steps):
            if ranking.snapshots[step][mine] != ranking.snapshots[step][theirs]:
                if name == BRACKET:
                    return phrases.on_bracket(phrases.reached(_reached_label(self.reached, mine)),
                                              phrases.reached(_reached_label(self.reached, theirs)))
                if name == HEAD_TO_HEAD:
                    shown = f"{_fmt(ranking.head_to_head[mine])}–{_fmt(ranking.head_to_head[theirs])}"
                else:
                    shown = phrases.versus(_fmt(values[name][mine]), _fmt(values[name][theirs]))
                text = phrases.on(phrases.label(name), shown)
                return phrases.level(text, level) if level else text
            if name not in (HEAD_TO_HEAD, BRACKET):
                level.append(phrases.valued(phrases.label(name), _fmt(values[name][mine])))
        raise AssertionError("neighbours of different rank were never separated")

    def level_on(self, e: EntrantId) -> list[str]:
        values = self.ranking.values
        return [self.phrases.valued(self.phrases.label(n), _fmt(values[n][e]))
                for n in self.ranking.tiebreaks if n != HEAD_TO_HEAD]


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
