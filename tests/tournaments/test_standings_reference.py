"""tournaments.standings.standings, split into named steps without its quadratic scans, gives
what the one long function it replaced gave: that function is kept here (verbatim but for its
name, the module's names qualified and one docstring line wrapped) as the reference every
ranking is compared with."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import standings as algo
from tournaments.formats.base import Reached, TableResult


def reference_standings(
    entrants: Sequence[int],
    results: Sequence[TableResult],
    *,
    byes: Sequence[int] = (),
    points_by_place: algo.PointsByPlace = algo.default_points_by_place,
    bye_points: algo.Number | None = None,
    tiebreaks: Sequence[str] = algo.DEFAULT_TIEBREAKS,
    names: Mapping[int, str] | None = None,
    reached: Mapping[int, algo.Reached] | None = None,
    phrases: algo.Phrases = algo.ENGLISH,
) -> list[algo.StandingRow]:
    """Rank ``entrants`` on ``results`` (see the module docstring for every rule).

    ``points_by_place`` is a function of the table size, a mapping from table size to the
    points of each position, or one list (see the module docstring). ``names`` labels entrants
    in explanations (default "#id"). Rows
    come best first; entrants sharing a rank come in ascending id order. ``reached``: how far
    each entrant went in an elimination bracket (``Format.reached``), ranked by before any
    tie-break; None ranks by the tie-breaks alone. ``phrases``: the words of the explanations
    (English; the pages give the reader's language).
    """
    algo._check_tiebreaks(tiebreaks)
    order = list(entrants)
    if len(set(order)) != len(order):
        raise ValueError("an entrant is listed twice")
    tally = algo._Tally(order)
    scoring = algo.Scoring(points_by_place, bye_points)
    for result in results:
        tally.add_table(result, scoring)
    if byes:
        bye_value = scoring.bye_value(results)
        for entrant in byes:
            tally.add_bye(entrant, bye_value)

    values = {name: tally.values(name) for name in tiebreaks if name != algo.HEAD_TO_HEAD}
    head_to_head: dict[int, Fraction] = {}
    # Split the tied groups one step at a time; snapshots[t][e] is e's group after step t, so
    # the step that separated two neighbours is the first where their groups differ. The
    # bracket, when there is one, is the first step: the tie-breaks only split its groups.
    groups = [sorted(order)]
    snapshots: list[dict[int, int]] = []
    steps: list[str] = list(tiebreaks)
    if reached is not None:
        steps.insert(0, algo.BRACKET)
        groups = algo._split_by_bracket(order, reached)
        snapshots.append({e: index for index, group in enumerate(groups) for e in group})
    for name in tiebreaks:
        split: list[list[int]] = []
        for group in groups:
            if name == algo.HEAD_TO_HEAD:
                split.extend(algo._split_head_to_head(group, tally, head_to_head))
            else:
                split.extend(algo._split_by(group, values[name]))
        groups = split
        snapshots.append({e: index for index, group in enumerate(groups) for e in group})

    label = (lambda e: names.get(e, f"#{e}")) if names else (lambda e: f"#{e}")
    ranked = [e for group in groups for e in group]
    rank_of: dict[int, int] = {}
    position = 1
    for group in groups:
        for e in group:
            rank_of[e] = position
        position += len(group)

    def reason(mine: int, theirs: int) -> str:
        """'on Buchholz 14 vs 12 (level on match points 7)': the step that separated them,
        this entrant's value first; 'on the bracket: lost the final vs champion'."""
        level = []
        for step, name in enumerate(steps):
            if snapshots[step][mine] != snapshots[step][theirs]:
                if name == algo.BRACKET:
                    return phrases.on_bracket(phrases.reached(algo._reached_label(reached, mine)),
                                              phrases.reached(algo._reached_label(reached, theirs)))
                if name == algo.HEAD_TO_HEAD:
                    shown = f"{algo._fmt(head_to_head[mine])}–{algo._fmt(head_to_head[theirs])}"
                else:
                    shown = phrases.versus(algo._fmt(values[name][mine]), algo._fmt(values[name][theirs]))
                text = phrases.on(phrases.label(name), shown)
                return phrases.level(text, level) if level else text
            if name not in (algo.HEAD_TO_HEAD, algo.BRACKET):
                level.append(phrases.valued(phrases.label(name), algo._fmt(values[name][mine])))
        raise AssertionError("neighbours of different rank were never separated")

    def level_on(e: int) -> list[str]:
        return [phrases.valued(phrases.label(n), algo._fmt(values[n][e])) for n in tiebreaks if n != algo.HEAD_TO_HEAD]

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
            tiebreak_values[name] = head_to_head.get(e) if name == algo.HEAD_TO_HEAD else values[name][e]
        rows.append(
            algo.StandingRow(
                entrant=e,
                rank=rank,
                match_points=tally.points[e],
                game_score=tally.score[e],
                tiebreak_values=tiebreak_values,
                explanation=phrases.sentence(bool(tied), rank, parts),
                reached=None if reached is None else algo._reached_label(reached, e),
            )
        )
    return rows


def random_event(rng: random.Random):
    """A tournament's worth of tables (two to five seats, ties, forfeits' missing scores), byes,
    names and perhaps a bracket, from ``rng``."""
    entrants = rng.sample(range(1, 1000), rng.randint(0, 40))
    results = []
    for _ in range(rng.randint(0, 4)):  # rounds
        shuffled = entrants[:]
        rng.shuffle(shuffled)
        size = rng.randint(2, 5)
        for start in range(0, len(shuffled) - size + 1, size):
            seats = tuple(shuffled[start:start + size])
            places = tuple(rng.randint(1, rng.choice([1, 2, size])) for _ in seats)  # many ties
            scores = () if rng.random() < 0.2 else tuple(None if rng.random() < 0.1 else rng.randint(-5, 30)
                                                         for _ in seats)
            results.append(TableResult(seats, places, scores))
    byes = rng.sample(entrants, min(len(entrants), rng.randint(0, 3)))
    reached = None
    if entrants and rng.random() < 0.3:
        reached = {e: Reached((rng.randint(0, 3), rng.randint(0, 1)), f"went {e % 4}")
                   for e in rng.sample(entrants, rng.randint(0, len(entrants)))}
    names = {e: f"p{e}" for e in entrants} if rng.random() < 0.5 else None
    return entrants, results, byes, reached, names


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.permutations(algo.TIEBREAKS), st.integers(1, 7),
       st.sampled_from([None, [3, 1, 0, 0], (5, 4, 2, 1, 0)]))
def test_the_standings_are_the_reference_functions_on_any_event(rng, order, count, points):
    entrants, results, byes, reached, names = random_event(rng)
    tiebreaks = order[:count]
    kwargs = dict(byes=byes, tiebreaks=tiebreaks, names=names, reached=reached,
                  bye_points=rng.choice([None, 1, Fraction(1, 2)]))
    if points is not None:
        kwargs["points_by_place"] = list(points)

    assert outcome(algo.standings, entrants, results, kwargs) == outcome(reference_standings, entrants, results, kwargs)


def outcome(function, entrants, results, kwargs):
    """Its rows, or the error it raises (a points list too short for a table, say)."""
    try:
        return function(entrants, results, **kwargs)
    except ValueError as error:
        return ValueError, str(error)


def test_the_standings_of_a_big_swiss_are_the_reference_functions():
    rng = random.Random(256)
    entrants = list(range(1, 257))
    results = []
    for _ in range(8):
        rng.shuffle(entrants)
        for start in range(0, 256, 4):
            seats = tuple(entrants[start:start + 4])
            results.append(TableResult(seats, tuple(rng.randint(1, 4) for _ in seats),
                                       tuple(rng.randint(0, 60) for _ in seats)))

    assert algo.standings(entrants, results) == reference_standings(entrants, results)
    assert algo.standings(entrants, []) == reference_standings(entrants, [])  # all tied: one group of 256
