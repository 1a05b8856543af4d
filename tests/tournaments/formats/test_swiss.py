import random
from collections import Counter
from fractions import Fraction

import pytest

from tournaments.formats import RoundResult, Swiss, TableResult
from tournaments.formats.base import met_counts

from .helpers import play_out, random_places, result_of, standings_input


def can_pair_without_repeat(field, met, byes_had):
    """Brute force: is there a pairing of ``field`` with no repeat, the bye (odd field) going
    to someone with the fewest byes?"""
    fewest = min(byes_had[e] for e in field)

    def solve(rest, bye_left):
        if not rest:
            return True
        a = rest[0]
        if bye_left and byes_had[a] == fewest and solve(rest[1:], False):
            return True
        return any(not met[frozenset((a, b))] and solve([x for x in rest[1:] if x != b], bye_left)
                   for b in rest[1:])

    return solve(list(field), len(field) % 2 == 1)


@pytest.mark.parametrize("n", range(3, 13))
def test_two_seats_never_repeat_a_pairing_when_one_can_be_avoided(n):
    for seed in range(6):
        fmt = Swiss(rounds=n - 1)
        rng, results = random.Random(seed), random.Random(seed + 100)
        history = []
        for _ in range(n - 1):
            met = met_counts(history)
            byes_had = Counter(e for r in history for e in r.byes)
            rnd = fmt.next_round(range(n), history, rng)
            repeats = [t for t in rnd.tables if met[frozenset(t.seats)]]
            if repeats:
                assert not can_pair_without_repeat(range(n), met, byes_had), (n, seed, rnd)
                assert all(any(note.startswith("repeat") for note in t.notes) for t in repeats)
            history.append(result_of(rnd, random_places, results))


@pytest.mark.parametrize("n", [5, 7, 9, 15, 31, 61, 199])
def test_two_seats_nobody_gets_a_second_bye_while_someone_has_none(n):
    rounds, _ = play_out(Swiss(rounds=12 if n < 100 else 5), range(n), seed=n)
    given: Counter[int] = Counter()
    for r in rounds:
        assert len(r.byes) == 1
        (e,) = r.byes
        assert given[e] == 0 or all(given[x] for x in range(n))
        given[e] += 1


def test_first_round_bye_goes_to_the_lowest_seed():
    rnd = Swiss().next_round(range(9), [], random.Random(0))
    assert rnd.byes == (8,)


def test_first_round_pairs_top_half_against_bottom_half():
    rnd = Swiss().next_round(range(8), [], random.Random(0))
    assert sorted(tuple(sorted(t.seats)) for t in rnd.tables) == [(0, 4), (1, 5), (2, 6), (3, 7)]


@pytest.mark.parametrize("n", [8, 16, 32, 64])
def test_second_round_pairs_winners_with_winners(n):
    fmt = Swiss()
    first = fmt.next_round(range(n), [], random.Random(0))
    history = [result_of(first, random_places, random.Random(1))]
    winners = {t.seats[t_places.index(1)] for t, t_places in
               ((t, t.places) for t in history[0].tables)}
    second = fmt.next_round(range(n), history, random.Random(0))
    for t in second.tables:
        assert (t.seats[0] in winners) == (t.seats[1] in winners)


def test_two_seats_even_out_who_acts_first():
    _, history = play_out(Swiss(rounds=8), range(20), seed=3)
    first = Counter(t.seats[0] for r in history for t in r.tables)
    played = Counter(e for r in history for t in r.tables for e in t.seats)
    for e in range(20):
        assert abs(2 * first[e] - played[e]) <= 2


def test_withdrawn_entrants_are_no_longer_paired():
    rounds, _ = play_out(Swiss(rounds=4), range(10), withdraw={3: [0, 5]})
    for r in rounds[2:]:
        assert not {0, 5} & {e for t in r.tables for e in t.seats}


@pytest.mark.parametrize("seats", range(2, 9))
def test_same_seed_same_rounds(seats):
    a = play_out(Swiss(seats=seats, rounds=3), range(40), seed=7)[0]
    b = play_out(Swiss(seats=seats, rounds=3), range(40), seed=7)[0]
    assert a == b


# Multi-seat Swiss
MULTI = [(n, s) for s in range(3, 9) for n in (5, 9, 14, 23, 40, 64, 101, 200) if n >= s]


@pytest.mark.parametrize("n,seats", MULTI)
def test_multi_seat_rounds_seat_everyone_once_with_fair_byes(n, seats):
    fmt = Swiss(seats=seats, rounds=3 if n > 100 else 5)
    rounds, _ = play_out(fmt, range(n), seed=n * seats)
    given: Counter[int] = Counter()
    for r in rounds:
        assert all(len(t.seats) == seats for t in r.tables)
        assert len(r.byes) == n % seats
        if r.byes:  # nobody gets a second bye while someone has none (fewest byes first)
            others = [given[x] for x in range(n) if x not in r.byes]
            assert max(given[e] for e in r.byes) <= min(others)
        given.update(r.byes)


@pytest.mark.parametrize("seats", range(3, 9))
@pytest.mark.parametrize("n_tables", [3, 8, 20])
def test_multi_seat_second_round_avoids_repeats_when_tables_allow_it(seats, n_tables):
    n = seats * n_tables
    if n > 200 or n_tables < seats:
        pytest.skip("outside 5-200 entrants, or too few tables to avoid every repeat")
    _, history = play_out(Swiss(seats=seats, rounds=2), range(n), seed=seats)
    first = met_counts(history[:1])
    assert not any(first[p] for p in met_counts(history[1:]))


def test_multi_seat_groups_tables_by_score():
    # 64 entrants at tables of 4, points 3-2-1-0: after one round, four score groups of 16.
    fmt = Swiss(seats=4, rounds=2)
    rng = random.Random(0)
    first = fmt.next_round(range(64), [], rng)
    history = [result_of(first, random_places, random.Random(1))]
    score = {e: 4 - p for t in history[0].tables for e, p in zip(t.seats, t.places)}
    second = fmt.next_round(range(64), history, rng)
    spreads = [max(score[e] for e in t.seats) - min(score[e] for e in t.seats)
               for t in second.tables]
    assert sum(spreads) <= 2  # almost every table is one score group, no repeats needed


def test_multi_seat_round_notes_report_the_costs():
    rnd = Swiss(seats=4).next_round(range(10), [], random.Random(0))
    assert any("repeat meetings" in note for note in rnd.notes)
    assert any(note.startswith("bye: 9") for note in rnd.notes)


def test_shared_places_share_the_points():
    fmt = Swiss(rounds=2)
    history = [RoundResult(1, (TableResult((0, 1), (1, 1), (5, 5)),
                               TableResult((2, 3), (1, 2), (9, 0))), ())]
    rnd = fmt.next_round(range(4), history, random.Random(0))
    # 2 has 1 point, 0 and 1 a half each, 3 none: 2 plays the better of the halves.
    assert {frozenset(t.seats) for t in rnd.tables} in ({frozenset((2, 0)), frozenset((1, 3))},
                                                        {frozenset((2, 1)), frozenset((0, 3))})


def test_swiss_has_no_bracket_to_rank_by():
    fmt = Swiss()
    _, history = play_out(fmt, range(10))
    assert fmt.reached(range(10), history) is None


# --- Swiss pairs on the points the standings publish ---------------------------------------
# The defect: Swiss scored a bye as a win (and a smaller table by its first values, and places
# by their numbers) while the standings score a bye as an average table, so a round could be
# paired on scores that differ from the standings people see. Both now use base.Scoring.


@pytest.fixture
def paired_on(monkeypatch):
    """The scores each round was paired on, as the Swiss handed them to its pairing."""
    from tournaments.formats import swiss

    seen: list[dict] = []
    two_seats, grouping = swiss.pair_two_seats, swiss.group_tables

    def pair(number, ranked, scores, history):
        seen.append(dict(scores))
        return two_seats(number, ranked, scores, history)

    def group(ranked, sizes, met, positions, rng, scores=None, **kw):
        seen.append({e: scores[e] for e in ranked})
        return grouping(ranked, sizes, met, positions, rng, scores=scores, **kw)

    monkeypatch.setattr(swiss, "pair_two_seats", pair)
    monkeypatch.setattr(swiss, "group_tables", group)
    return seen


def published(entrants, history, **scoring):
    """Match points as tournaments.standings publishes them (no bye_points: its default)."""
    from tournaments.standings import standings

    tables, byes = standings_input(history)
    return {row.entrant: row.match_points for row in standings(entrants, tables, byes=byes, **scoring)}


def played(rnd, places):
    """``rnd``'s result, each table's places given by ``places(seats)``."""
    return RoundResult(rnd.number, tuple(TableResult(t.seats, places(t.seats), (0,) * len(t.seats))
                                         for t in rnd.tables), rnd.byes)


def test_two_seats_pair_the_bye_holder_on_its_published_points(paired_on):
    fmt = Swiss(rounds=2)
    first = fmt.next_round(range(7), [], random.Random(0))
    assert first.byes == (6,)
    assert {frozenset(t.seats) for t in first.tables} == {frozenset(p) for p in ((0, 3), (1, 4), (2, 5))}
    # The lower id wins, but 1 and 4 draw: 0 and 2 have 1, 1 and 4 a half, 3 and 5 nothing,
    # and 6's bye is worth a half in the standings (an average two-seat table), not a win.
    history = [played(first, lambda seats: (1, 1) if 1 in seats else tuple(1 + (e != min(seats)) for e in seats))]
    shown = published(range(7), history)
    assert shown[6] == Fraction(1, 2)
    second = fmt.next_round(range(7), history, random.Random(0))
    assert paired_on[-1] == shown  # the score groups are the standings' match points
    # So the bye holder plays in the half-point group (4 v 6: the fold of 1, 4, 6), the other
    # half pairs down to 3, and 5, lowest ranked without a bye, sits out.
    assert {frozenset(t.seats) for t in second.tables} == {frozenset(p) for p in ((0, 2), (4, 6), (1, 3))}
    assert second.byes == (5,)
    for t in second.tables:
        x, y = t.seats
        across = [n for n in t.notes if "paired across score groups" in n]
        assert across == ([f"score {shown[x]} v {shown[y]}: paired across score groups"]
                          if shown[x] != shown[y] else [])


def test_multi_seat_pairs_on_the_published_points_of_shared_places_and_byes(paired_on):
    # Ten at tables of four, default 3/2/1/0: two tables and two byes a round. Shared places
    # share the points of the positions they span, and only their order counts (1, 2, 2, 3
    # scores as 1, 2, 2, 4); a bye is worth 1½, not first place's 3.
    fmt = Swiss(seats=4, rounds=3)
    rng = random.Random(4)
    first = fmt.next_round(range(10), [], rng)
    assert first.byes == (8, 9)
    shapes = iter([(1, 1, 3, 4), (1, 2, 2, 3)])
    history = [played(first, lambda seats: next(shapes))]
    shown = published(range(10), history)
    assert shown[8] == shown[9] == Fraction(3, 2)
    assert sorted(shown[e] for t in first.tables for e in t.seats) == [0, 0, 1, Fraction(3, 2), Fraction(3, 2),
                                                                       Fraction(5, 2), Fraction(5, 2), 3]
    second = fmt.next_round(range(10), history, rng)
    assert paired_on[-1] == {e: float(p) for e, p in shown.items() if e not in second.byes}
    # The byes go to the two lowest ranked on the standings' points among those without one.
    ranked = sorted((e for e in range(10) if e not in first.byes), key=lambda e: (-shown[e], e))
    assert set(second.byes) == set(ranked[-2:])
    for t in second.tables:
        lo, hi = min(shown[e] for e in t.seats), max(shown[e] for e in t.seats)
        spread = [n for n in t.notes if n.startswith("scores ")]
        assert spread == ([f"scores {float(lo):g} to {float(hi):g} at one table"] if lo != hi else [])


def tied_places(seats, rng):
    """A random finishing order with ties, as a competition ranking (1, 1, 3) or not (1, 1, 2)."""
    ranks = [rng.randrange(len(seats)) for _ in seats]
    if rng.random() < 0.5:
        return tuple(1 + sum(r < mine for r in ranks) for mine in ranks)
    levels = sorted(set(ranks))
    return tuple(1 + levels.index(mine) for mine in ranks)


@pytest.mark.parametrize("config, points", [
    ({}, None),
    ({"seats": 3}, None),
    ({"seats": 4, "points": (5, 3, 2, 0)}, (5, 3, 2, 0)),
    ({"seats": 4, "min_seats": 3, "points": (4, 2, 1, 0)}, (4, 2, 1, 0)),  # a table of 3 scores 2, 1, 0
    ({"seats": 2, "points": (3, 1), "bye_points": 3}, (3, 1)),
    ({"seats": 2, "duplicate": True}, None),  # every rotated table scores, as in the standings
    ({"seats": 3, "duplicate": True, "points": (2.5, 0.1, 0)}, (2.5, 0.1, 0)),
])
@pytest.mark.parametrize("n", [5, 7, 11])
def test_every_round_is_paired_on_the_standings_points(paired_on, config, points, n):
    fmt = Swiss(rounds=4, **config)
    scoring = {} if points is None else {"points_by_place": points}
    if config.get("bye_points") is not None:
        scoring["bye_points"] = config["bye_points"]
    rng, results = random.Random(n), random.Random(n + 1)
    history = []
    while (rnd := fmt.next_round(range(n), history, rng)) is not None:
        shown = published(range(n), history, **scoring)
        playing = {e for t in rnd.tables for e in t.seats}
        got = paired_on[-1]
        assert got == {e: (float(p) if fmt.seats > 2 else p) for e, p in shown.items()
                       if fmt.seats == 2 or e in playing}
        history.append(RoundResult(rnd.number, tuple(
            TableResult(t.seats, places := tied_places(t.seats, results),
                        tuple(results.randrange(50) for _ in places)) for t in rnd.tables), rnd.byes))
    assert len(history) == 4
