import math
import random
from collections import Counter

import pytest

from tournaments.formats import DoubleElimination, RoundResult, SingleElimination
from tournaments.formats.base import Reached
from tournaments.formats.elimination import seeding_positions

from .helpers import best_seed_wins, furthest_first, last_table, play_out, still_in


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


# --- how far each entrant went (reached) --------------------------------------------------------


def test_single_elimination_ranks_champion_finalist_then_semi_and_quarter_finalists():
    fmt = SingleElimination()
    _, history = play_out(fmt, range(8), decide=best_seed_wins)
    reached = fmt.reached(range(8), history)
    assert reached[0] == Reached(key=(3, 2), label="champion")
    assert reached[1] == Reached(key=(3, 0), label="lost the final")
    assert reached[2] == reached[3] == Reached(key=(2, 0), label="out in the semi-final")
    assert {reached[e] for e in range(4, 8)} == {Reached(key=(1, 0), label="out in the quarter-final")}


@pytest.mark.parametrize("n", range(2, 40))
@pytest.mark.parametrize("fmt", [SingleElimination(), DoubleElimination(bracket_reset=True),
                                 DoubleElimination(bracket_reset=False)], ids=["single", "double", "double-no-reset"])
def test_everyone_is_out_in_the_last_round_they_played(n, fmt):
    # Nobody plays after going out (single: one loss; double: the second), so the last table
    # an entrant sat at is the one that put it out.
    _, history = play_out(fmt, range(n), seed=n)
    reached = fmt.reached(range(n), history)
    champion, *rest = furthest_first(reached)
    last = last_table(history)
    assert reached[champion] == Reached(key=(len(history), 2), label="champion")
    assert all(reached[e].key == (last[e], 0) for e in rest)


@pytest.mark.parametrize("n", range(2, 40))
@pytest.mark.parametrize("reset", [True, False])
def test_the_grand_final_loser_alone_ranks_second(n, reset):
    fmt = DoubleElimination(bracket_reset=reset)
    _, history = play_out(fmt, range(n), seed=n)
    reached = fmt.reached(range(n), history)
    champion, second, third, *_ = furthest_first(reached) + [None]
    final = history[-1].tables[0]
    assert {champion, second} == set(final.seats)
    assert reached[second].key > (reached[third].key if third is not None else ())
    assert reached[second].label.startswith("lost the grand final")


def grand_final_upset():
    """Results where seed 2 (id 1) loses the winners' final to seed 1 (id 0), then beats it
    every time after; the best seed wins every other table."""
    finals_seen = 0

    def decide(seats, rng):
        nonlocal finals_seen
        if set(seats) == {0, 1}:
            finals_seen += 1
            if finals_seen > 1:
                return tuple(1 if e == 1 else 2 for e in seats)
        return best_seed_wins(seats, rng)

    return decide


@pytest.mark.parametrize("reset, rounds, label", [(True, 7, "lost the grand final (bracket reset)"),
                                                  (False, 6, "lost the grand final")])
def test_the_winners_champion_beaten_in_the_grand_final_ranks_second(reset, rounds, label):
    # With a reset it loses the reset final too; without one, its single loss puts it out.
    fmt = DoubleElimination(bracket_reset=reset)
    played, history = play_out(fmt, range(8), decide=grand_final_upset())
    assert len(played) == rounds
    reached = fmt.reached(range(8), history)
    assert reached[1] == Reached(key=(rounds, 2), label="champion")
    assert reached[0] == Reached(key=(rounds, 0), label=label)
    assert furthest_first(reached)[:3] == [1, 0, 2]


def test_double_elimination_ties_everyone_out_in_the_same_losers_round():
    fmt = DoubleElimination()
    _, history = play_out(fmt, range(8), decide=best_seed_wins)
    reached = fmt.reached(range(8), history)
    assert [reached[e].label for e in furthest_first(reached)] == [
        "champion", "lost the grand final", "out in losers' round 4", "out in losers' round 3",
        "out in losers' round 2", "out in losers' round 2", "out in losers' round 1",
        "out in losers' round 1",
    ]
    assert reached[4].key == reached[5].key and reached[6].key == reached[7].key


def test_an_unfinished_single_elimination_ranks_those_still_in_above_those_out():
    fmt = SingleElimination()
    _, history = play_out(fmt, range(8), decide=best_seed_wins, stop_after=1)
    reached = fmt.reached(range(8), history)
    assert {reached[e] for e in range(4)} == {Reached(key=(2, 1), label="still in (semi-final)")}
    assert {reached[e].key for e in range(4, 8)} == {(1, 0)}


@pytest.mark.parametrize("played", range(1, 6))
def test_an_unfinished_double_elimination_ranks_those_still_in_above_those_out(played):
    fmt = DoubleElimination()
    _, history = play_out(fmt, range(8), seed=played, stop_after=played)
    reached = fmt.reached(range(8), history)
    alive = [e for e in range(8) if reached[e].label.startswith("still in")]
    out = [e for e in range(8) if e not in alive]
    assert alive and {reached[e].key for e in alive} == {(played + 1, 1)}
    assert all(reached[e].key < (played + 1, 1) for e in out)
    # Everyone out has lost twice; everyone still in at most once.
    losses = Counter(t.seats[t.places.index(2)] for r in history for t in r.tables)
    assert all(losses[e] == 2 for e in out) and all(losses[e] <= 1 for e in alive)


def test_before_round_one_is_played_everyone_is_still_in():
    for fmt in (SingleElimination(), DoubleElimination()):
        reached = fmt.reached([5, 6, 7], [])
        assert set(reached.values()) == {Reached(key=(1, 1), label="still in (round 1)")}


def test_a_withdrawn_winner_is_out_by_walkover_in_the_next_round():
    fmt = SingleElimination()
    withdraw = {2: [3]}
    _, history = play_out(fmt, range(8), decide=best_seed_wins, withdraw=withdraw)
    reached = fmt.reached(still_in(range(8), withdraw, len(history)), history)
    assert reached[3] == Reached(key=(2, 0), label="out in the semi-final (walkover)")
    assert reached[2].key == (2, 0)  # lost the other semi-final at the table
    assert reached[0].label == "champion"


def test_a_withdrawn_winner_ranks_below_those_still_in_until_the_walkover():
    fmt = SingleElimination()
    withdraw = {2: [3]}
    _, history = play_out(fmt, range(8), decide=best_seed_wins, withdraw=withdraw, stop_after=1)
    reached = fmt.reached(still_in(range(8), withdraw, 1), history)
    assert reached[3] == Reached(key=(2, 0), label="withdrew before the semi-final")
    assert reached[0].key == (2, 1) > reached[3].key > reached[4].key == (1, 0)


def test_when_the_last_opponent_withdraws_the_entrant_left_is_champion():
    fmt = SingleElimination()
    withdraw = {3: [1]}  # seed 2 won its semi-final, then left before the final
    rounds, history = play_out(fmt, range(8), decide=best_seed_wins, withdraw=withdraw)
    assert len(rounds) == 2
    reached = fmt.reached(still_in(range(8), withdraw, 2), history)
    assert reached[0] == Reached(key=(3, 2), label="champion (opponents withdrew)")
    assert reached[1] == Reached(key=(3, 0), label="withdrew before the final")
    assert furthest_first(reached)[:2] == [0, 1]


def test_a_grand_final_won_by_walkover_crowns_the_entrant_left():
    fmt = DoubleElimination()
    withdraw = {2: [1]}
    rounds, history = play_out(fmt, range(2), decide=best_seed_wins, withdraw=withdraw)
    assert len(rounds) == 1  # the walkover decides the grand final at once
    reached = fmt.reached([0], history)
    assert reached[0] == Reached(key=(2, 2), label="champion")
    assert reached[1] == Reached(key=(2, 0), label="lost the grand final (walkover)")


def test_a_pairing_whose_both_entrants_withdrew_puts_both_out():
    fmt = SingleElimination()
    withdraw = {2: [2, 3]}  # both winners of the lower half
    _, history = play_out(fmt, range(8), decide=best_seed_wins, withdraw=withdraw)
    reached = fmt.reached(still_in(range(8), withdraw, len(history)), history)
    assert reached[2].key == reached[3].key == (2, 0)
    assert reached[2].label == "out in the semi-final (walkover)"


@pytest.mark.parametrize("n", [3, 5, 8, 13, 24])
@pytest.mark.parametrize("make", [SingleElimination, DoubleElimination,
                                  lambda: DoubleElimination(bracket_reset=False)])
def test_withdrawals_at_any_round_leave_every_entrant_a_place(n, make):
    fmt = make()
    for seed in range(8):
        rng = random.Random(seed)
        withdraw = {rng.randint(2, 6): rng.sample(range(n), rng.randint(1, n // 2))}
        for played in range(1, 12):
            _, history = play_out(fmt, range(n), seed=seed, withdraw=withdraw, stop_after=played)
            reached = fmt.reached(still_in(range(n), withdraw, len(history)), history)
            assert set(reached) == set(range(n))
            top = furthest_first(reached)
            champions = [e for e in top if reached[e].label.startswith("champion")]
            assert champions in ([], [top[0]])


def test_duplicate_play_ranks_the_bracket_of_the_merged_tables():
    plain, dup = DoubleElimination(), DoubleElimination(duplicate=True)
    _, history = play_out(plain, range(6), seed=3)
    _, dup_history = play_out(dup, range(6), seed=3, decide=_as_in(history))
    assert plain.reached(range(6), history) == dup.reached(range(6), dup_history)


def _as_in(history):
    """Every rotation of a table ends as the same table of ``history`` did."""
    places = {frozenset(t.seats): dict(zip(t.seats, t.places)) for r in history for t in r.tables}

    def decide(seats, rng):
        return tuple(places[frozenset(seats)][e] for e in seats)

    return decide


def test_a_round_of_walkovers_alone_is_played_at_once():
    # 4 entrants, seeds hold: after round 2, seed 3 (id 2) waits in losers' round 2 for seed 2
    # (id 1), who dropped from the winners' final. Seed 3 withdraws: round 3 is a bye alone.
    fmt = DoubleElimination()
    withdraw = {3: [2]}
    _, history = play_out(fmt, range(4), decide=best_seed_wins, withdraw=withdraw, stop_after=2)
    field = still_in(range(4), withdraw, 2)
    walkovers = fmt.next_round(field, history, random.Random(0))
    assert (walkovers.tables, walkovers.byes) == ((), (1,))
    reached = fmt.reached(field, history)
    assert reached[2] == Reached(key=(3, 0), label="out in losers' round 2 (walkover)")
    assert reached[0] == reached[1] == Reached(key=(4, 1), label="still in (grand final, round 4)")
    assert reached[3] == Reached(key=(2, 0), label="out in losers' round 1")
    # The service records the round of byes; read back, it tells the same.
    recorded = history + [RoundResult(3, (), walkovers.byes)]
    assert fmt.reached(field, recorded) == reached
