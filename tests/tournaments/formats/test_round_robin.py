import itertools
from collections import Counter

import pytest

from tournaments.formats import RoundRobin
from tournaments.formats.base import met_counts, position_counts

from .helpers import play_out


@pytest.mark.parametrize("n", range(2, 42))
def test_two_seats_every_pair_meets_exactly_once(n):
    fmt = RoundRobin()
    rounds, history = play_out(fmt, range(n))
    assert len(rounds) == fmt.planned_rounds(n) == (n if n % 2 else n - 1)
    met = met_counts(history)
    assert all(met[frozenset(p)] == 1 for p in itertools.combinations(range(n), 2))


@pytest.mark.parametrize("n", range(3, 42, 2))
def test_two_seats_odd_field_gives_each_entrant_one_bye(n):
    rounds, _ = play_out(RoundRobin(), range(n))
    byes = Counter(e for r in rounds for e in r.byes)
    assert byes == Counter(range(n))


@pytest.mark.parametrize("n", range(2, 42))
def test_two_seats_each_entrant_moves_first_about_half_the_time(n):
    _, history = play_out(RoundRobin(), range(n))
    for e, seats in position_counts(history).items():
        assert abs(seats[0] - seats[1]) <= 1, (e, seats)


def test_double_round_robin_meets_twice_with_seats_swapped():
    _, history = play_out(RoundRobin(cycles=2), range(6))
    seatings = Counter(t.seats for r in history for t in r.tables)
    for a, b in itertools.combinations(range(6), 2):
        assert seatings[(a, b)] == 1 and seatings[(b, a)] == 1


def test_withdrawal_turns_remaining_games_into_byes_without_reshuffling():
    _, full = play_out(RoundRobin(), range(8))
    _, cut = play_out(RoundRobin(), range(8), withdraw={4: [3]})
    for before, after in zip(full[3:], cut[3:]):
        kept = {t.seats for t in before.tables if 3 not in t.seats}
        assert {t.seats for t in after.tables} == kept
        partner = next(e for t in before.tables if 3 in t.seats for e in t.seats if e != 3)
        assert after.byes == (partner,)


# Multi-seat: the guarantees stated in docs/formats.md.
MULTI_SIZES = [(n, s) for s in range(3, 9) for n in (5, 7, 9, 12, 13, 16, 20, 25, 33, 48)
               if n >= s]


@pytest.mark.parametrize("n,seats", MULTI_SIZES)
def test_multi_seat_meetings_positions_and_byes_stay_balanced(n, seats):
    fmt = RoundRobin(seats=seats)
    rounds, history = play_out(fmt, range(n), seed=n * 10 + seats)
    assert len(rounds) == fmt.planned_rounds(n)
    met = met_counts(history)
    assert max(met[frozenset(p)] for p in itertools.combinations(range(n), 2)) <= 3
    for e, seen in position_counts(history).items():
        counts = [seen[p] for p in range(seats)]
        assert max(counts) - min(counts) <= 2, (e, counts)
    given: Counter[int] = Counter()
    for r in rounds:  # byes go round before anyone gets a second
        for e in r.byes:
            assert given[e] == min(given[x] for x in range(n)), "second bye while others had none"
            given[e] += 1


@pytest.mark.parametrize("seats", range(3, 9))
@pytest.mark.parametrize("n_tables", [1, 2, 3, 8, 25])
def test_multi_seat_second_round_has_no_repeat_when_tables_allow_it(seats, n_tables):
    n = seats * n_tables
    if n < 5 or n > 200:
        pytest.skip("outside 5-200 entrants")
    fmt = RoundRobin(seats=seats, rounds=2)
    _, history = play_out(fmt, range(n), seed=seats)
    first, second = met_counts(history[:1]), met_counts(history[1:])
    repeats = sum(1 for pair in second if first[pair])
    if n_tables >= seats:  # one entrant from each first-round table fits at every table
        assert repeats == 0


def test_multi_seat_uses_smaller_tables_instead_of_byes_when_allowed():
    rounds, _ = play_out(RoundRobin(seats=4, min_seats=3), range(10))
    for r in rounds:
        assert r.byes == ()
        assert sorted(len(t.seats) for t in r.tables) == [3, 3, 4]


def test_same_seed_same_schedule():
    a = play_out(RoundRobin(seats=4), range(30), seed=5)[0]
    b = play_out(RoundRobin(seats=4), range(30), seed=5)[0]
    assert a == b


def test_repeats_are_noted_on_the_table():
    rounds, _ = play_out(RoundRobin(seats=4, rounds=3), range(8), seed=2)
    met: Counter = Counter()
    for r in rounds:
        for t in r.tables:
            for a, b in itertools.combinations(t.seats, 2):
                if met[frozenset((a, b))]:
                    assert any(f"{a} met {b}" in note for note in t.notes)
                met[frozenset((a, b))] += 1


def test_a_round_robin_has_no_bracket_to_rank_by():
    fmt = RoundRobin(seats=3)
    _, history = play_out(fmt, range(9))
    assert fmt.reached(range(9), history) is None
    assert RoundRobin(duplicate=True).reached(range(4), []) is None
