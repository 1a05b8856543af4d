import random
from collections import Counter

import pytest

from tournaments.formats import RoundResult, Swiss, TableResult
from tournaments.formats.base import met_counts

from .helpers import play_out, random_places, result_of


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
