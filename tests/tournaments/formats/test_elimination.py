import math
from collections import Counter

import pytest

from tournaments.formats import DoubleElimination, SingleElimination
from tournaments.formats.elimination import seeding_positions

from .helpers import best_seed_wins, play_out


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128, 256])
def test_seeding_keeps_top_seeds_apart_until_the_late_rounds(size):
    order = seeding_positions(size)
    assert sorted(order) == list(range(1, size + 1))
    # In every block of 2^k slots (one path to round k+1) the top 2^... seeds are split.
    block = size
    while block >= 2:
        for start in range(0, size, block):
            seeds = sorted(order[start:start + block])
            assert seeds[0] <= size // block  # each block holds exactly one of the top seeds
        block //= 2
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))


def losses_and_tables(history):
    losses: Counter[int] = Counter()
    for r in history:
        for t in r.tables:
            loser = t.seats[t.places.index(2)]
            losses[loser] += 1
    return losses


@pytest.mark.parametrize("n", range(2, 70))
def test_single_elimination_crowns_one_unbeaten_entrant(n):
    fmt = SingleElimination()
    rounds, history = play_out(fmt, range(n), seed=n)
    assert len(rounds) == fmt.planned_rounds(n) == math.ceil(math.log2(n))
    losses = losses_and_tables(history)
    assert sorted(losses.values()) == [1] * (n - 1)  # everyone but the champion lost once
    size = 1 << math.ceil(math.log2(n))
    assert set(rounds[0].byes) == set(range(size - n))  # byes to the top seeds
    assert all(not r.byes for r in rounds[1:])
    for r in rounds[:-1]:  # seeds 1 and 2 can only meet in the final
        assert all({0, 1} != set(t.seats) for t in r.tables)


@pytest.mark.parametrize("n", [4, 5, 8, 13, 16, 31, 64])
def test_when_seeds_hold_the_final_is_seed_one_against_seed_two(n):
    rounds, _ = play_out(SingleElimination(), range(n), decide=best_seed_wins)
    assert [set(t.seats) for t in rounds[-1].tables] == [{0, 1}]
    assert {frozenset(t.seats) for t in rounds[-2].tables} == {frozenset((0, 3)),
                                                               frozenset((1, 2))}


def test_a_withdrawn_winner_gives_the_next_opponent_a_walkover():
    rounds, _ = play_out(SingleElimination(), range(8), decide=best_seed_wins,
                         withdraw={2: [3]})
    assert rounds[1].byes == (0,)  # seed 1 would have met seed 4, who left
    assert [set(t.seats) for t in rounds[1].tables] == [{1, 2}]


@pytest.mark.parametrize("n", range(2, 40))
@pytest.mark.parametrize("reset", [True, False])
def test_double_elimination_knocks_out_on_the_second_loss(n, reset):
    fmt = DoubleElimination(bracket_reset=reset)
    rounds, history = play_out(fmt, range(n), seed=n)
    losses = losses_and_tables(history)
    played_after_out = set()
    seen: Counter[int] = Counter()
    for r in history:
        for t in r.tables:
            for e in t.seats:
                if seen[e] >= 2:
                    played_after_out.add(e)
            seen[t.seats[t.places.index(2)]] += 1
    assert not played_after_out
    unbeaten_or_once = [e for e in range(n) if losses[e] < 2]
    if reset:
        assert len(unbeaten_or_once) == 1  # only the champion; nobody out on a single loss
    else:
        assert 1 <= len(unbeaten_or_once) <= 2
    extra = 1 if reset and len(rounds) > fmt.planned_rounds(n) else 0
    assert len(rounds) == fmt.planned_rounds(n) + extra


@pytest.mark.parametrize("n", [4, 8, 16, 32])
def test_double_elimination_with_no_upsets_ends_after_one_grand_final(n):
    rounds, history = play_out(DoubleElimination(), range(n), decide=best_seed_wins)
    assert len(rounds) == 2 * int(math.log2(n))
    assert [set(t.seats) for t in rounds[-1].tables] == [{0, 1}]
