"""Exact multi-seat round robins: where a resolvable design is known, everyone meets everyone
exactly once."""

import itertools
from collections import Counter

import pytest

from tournaments.formats import RoundRobin
from tournaments.formats.base import met_counts, position_counts
from tournaments.formats.designs import resolvable_design

from .helpers import play_out

# (entrants, seats) with a design: AG(d, q) for q^d <= 200, and Kirkman's fifteen.
DESIGNED = [(9, 3), (27, 3), (81, 3), (15, 3), (16, 4), (64, 4), (25, 5), (125, 5), (49, 7), (64, 8)]


@pytest.mark.parametrize("n, k", DESIGNED)
def test_a_design_cuts_every_round_into_tables_and_puts_every_pair_together_once(n, k):
    _, classes = resolvable_design(n, k)
    assert len(classes) == (n - 1) // (k - 1)
    for parallel in classes:
        assert sorted(p for block in parallel for p in block) == list(range(n))
        assert {len(block) for block in parallel} == {k}
    met = Counter(pair for parallel in classes for block in parallel for pair in itertools.combinations(block, 2))
    assert set(met.values()) == {1} and len(met) == n * (n - 1) // 2


@pytest.mark.parametrize("n, k", [(6, 3), (12, 3), (21, 3), (20, 4), (36, 6), (100, 5), (128, 4), (243, 3)])
def test_no_design_is_claimed_where_none_is_known(n, k):
    assert resolvable_design(n, k) is None


@pytest.mark.parametrize("n, q", [(9, 3), (15, 3), (16, 4), (25, 5), (49, 7), (64, 8)])
@pytest.mark.parametrize("cycles", [1, 2])
def test_a_designed_field_meets_everyone_exactly_once_a_cycle(n, q, cycles):
    entrants = [100 + 7 * i for i in range(n)]  # ids need not be 0..n-1
    rounds, history = play_out(RoundRobin(seats=q, cycles=cycles), entrants, seed=q)
    assert len(rounds) == (n - 1) // (q - 1) * cycles
    met = met_counts(history)
    assert {met[frozenset(p)] for p in itertools.combinations(entrants, 2)} == {cycles}
    assert all(not r.byes and "meets exactly once" in r.notes[0] for r in rounds)
    # Turn positions within two, as for every multi-seat round robin.
    for e, seen in position_counts(history).items():
        counts = [seen[p] for p in range(q)]
        assert max(counts) - min(counts) <= 2, (e, counts)


def test_a_withdrawal_hands_the_rest_of_the_schedule_to_the_search():
    rounds, _ = play_out(RoundRobin(seats=4), range(16), seed=1, withdraw={3: [5]})
    assert "AG(2, 4)" in rounds[1].notes[0]
    assert all("exactly once" not in note for r in rounds[2:] for note in r.notes)
    assert all(5 not in t.seats for r in rounds[2:] for t in r.tables)
    assert len(rounds) == 5


@pytest.mark.parametrize("n, seats", [(15, 4), (16, 5), (36, 6), (17, 4)])
def test_other_fields_are_left_to_the_search(n, seats):
    rounds, _ = play_out(RoundRobin(seats=seats, min_seats=seats - 1), range(n), seed=2)
    assert all("exactly once" not in note for r in rounds for note in r.notes)
