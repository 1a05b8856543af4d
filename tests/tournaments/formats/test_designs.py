"""Exact multi-seat round robins: q² entrants at tables of q meet everyone exactly once."""

import itertools
from collections import Counter

import pytest

from tournaments.formats import RoundRobin
from tournaments.formats.base import met_counts, position_counts
from tournaments.formats.designs import AFFINE_ORDERS, affine_plane

from .helpers import play_out


@pytest.mark.parametrize("q", AFFINE_ORDERS)
def test_the_affine_plane_puts_every_pair_of_points_on_exactly_one_line(q):
    met = Counter(pair for parallel in affine_plane(q) for line in parallel for pair in itertools.combinations(line, 2))
    assert len(affine_plane(q)) == q + 1
    for parallel in affine_plane(q):  # each class cuts all q² points into q lines of q
        assert sorted(p for line in parallel for p in line) == list(range(q * q))
        assert {len(line) for line in parallel} == {q}
    assert set(met.values()) == {1} and len(met) == q * q * (q * q - 1) // 2


@pytest.mark.parametrize("q", AFFINE_ORDERS)
@pytest.mark.parametrize("cycles", [1, 2])
def test_q_squared_entrants_at_tables_of_q_meet_everyone_exactly_once_a_cycle(q, cycles):
    entrants = [100 + 7 * i for i in range(q * q)]  # ids need not be 0..n-1
    rounds, history = play_out(RoundRobin(seats=q, cycles=cycles), entrants, seed=q)
    assert len(rounds) == (q + 1) * cycles
    met = met_counts(history)
    assert {met[frozenset(p)] for p in itertools.combinations(entrants, 2)} == {cycles}
    assert all(not r.byes and "affine plane" in r.notes[0] for r in rounds)
    # Turn positions as even as the numbers allow (q + 1 turns a cycle over q positions).
    for e, seen in position_counts(history).items():
        counts = [seen[p] for p in range(q)]
        assert max(counts) - min(counts) <= 1, (e, counts)


def test_a_withdrawal_hands_the_rest_of_the_schedule_to_the_search():
    rounds, history = play_out(RoundRobin(seats=4), range(16), seed=1, withdraw={3: [5]})
    assert "affine plane" in rounds[1].notes[0]
    assert all("affine plane" not in note for r in rounds[2:] for note in r.notes)
    assert all(5 not in t.seats for r in rounds[2:] for t in r.tables)
    assert len(rounds) == 5


@pytest.mark.parametrize("n, seats", [(15, 4), (16, 5), (36, 6), (17, 4)])
def test_other_fields_are_left_to_the_search(n, seats):
    rounds, _ = play_out(RoundRobin(seats=seats, min_seats=seats - 1), range(n), seed=2)
    assert all("affine plane" not in note for r in rounds for note in r.notes)
