import random

import pytest

from tournaments.formats import MultiTableKnockout
from tournaments.formats.base import Reached
from tournaments.standings import standings

from .helpers import best_seed_wins, furthest_first, last_table, play_out, standings_input, still_in


def test_snake_seeding_spreads_seeds_over_tables():
    rnd = MultiTableKnockout(seats=4).next_round(range(12), [], __import__("random").Random(0))
    assert [t.seats for t in rnd.tables] == [(0, 5, 6, 11), (1, 4, 7, 10), (2, 3, 8, 9)]


CASES = [(n, s, k) for s in range(3, 9) for k in range(1, s) for n in (5, 9, 17, 40, 101, 200)
         if n > s]


@pytest.mark.parametrize("n,seats,advance", CASES)
def test_exactly_the_top_k_of_each_table_advance_to_one_final_table(n, seats, advance):
    fmt = MultiTableKnockout(seats=seats, advance=advance)
    rounds, history = play_out(fmt, range(n), seed=n + seats + advance)
    assert len(rounds) == fmt.planned_rounds(n)
    for result, nxt in zip(history, rounds[1:]):
        through = set(result.byes)
        for t in result.tables:
            keep = min(advance, len(t.seats) - 1)
            through |= {e for e, p in zip(t.seats, t.places) if p <= keep}
        assert {e for t in nxt.tables for e in t.seats} | set(nxt.byes) == through
    final = rounds[-1]
    assert len(final.tables) == 1 and not final.byes and len(final.tables[0].seats) <= seats
    for r in rounds:
        assert all(2 <= len(t.seats) <= seats for t in r.tables)


def test_advance_must_leave_someone_to_knock_out():
    with pytest.raises(ValueError, match="advance"):
        MultiTableKnockout(seats=4, advance=4)


# --- how far each entrant went (reached) --------------------------------------------------------


def place_in(history, number, entrant):
    for table in history[number - 1].tables:
        if entrant in table.seats:
            return table.places[table.seats.index(entrant)]
    raise AssertionError(f"{entrant} did not play round {number}")


@pytest.mark.parametrize("n,seats,advance", [(12, 4, 2), (17, 4, 1), (40, 6, 3), (101, 8, 4),
                                             (9, 3, 2)])
def test_the_final_table_places_decide_the_top(n, seats, advance):
    fmt = MultiTableKnockout(seats=seats, advance=advance)
    _, history = play_out(fmt, range(n), seed=n)
    reached = fmt.reached(range(n), history)
    final = history[-1].tables[0]
    by_place = [e for _, e in sorted(zip(final.places, final.seats))]
    assert furthest_first(reached)[: len(by_place)] == by_place
    assert reached[by_place[0]] == Reached(key=(len(history), -1), label="champion")
    assert reached[by_place[1]].label == "2nd at the final table"


@pytest.mark.parametrize("n,seats,advance", [(12, 4, 2), (17, 4, 1), (40, 6, 3), (101, 8, 4),
                                             (9, 3, 2)])
def test_those_out_earlier_rank_by_round_then_by_their_place_at_their_table(n, seats, advance):
    fmt = MultiTableKnockout(seats=seats, advance=advance)
    _, history = play_out(fmt, range(n), seed=n + 1)
    reached = fmt.reached(range(n), history)
    last = last_table(history)
    assert all(reached[e].key == (last[e], -place_in(history, last[e], e)) for e in range(n))
    out_first = [e for e in range(n) if last[e] == 1]
    assert all(reached[e].label.startswith("out at round 1, ") for e in out_first)


def test_entrants_still_in_rank_above_everyone_out():
    fmt = MultiTableKnockout(seats=4, advance=2)
    _, history = play_out(fmt, range(12), seed=3, stop_after=1)
    reached = fmt.reached(range(12), history)
    through = [e for t in history[0].tables for e, p in zip(t.seats, t.places) if p <= 2]
    assert {reached[e] for e in through} == {Reached(key=(2, 0), label="still in (round 2)")}
    assert all(reached[e].key < (2, 0) for e in set(range(12)) - set(through))


def test_a_bye_carries_an_entrant_to_the_next_round():
    fmt = MultiTableKnockout(seats=4, advance=2, min_seats=4)  # 9 at tables of 4: one bye
    rounds, history = play_out(fmt, range(9), seed=2, stop_after=1)
    assert rounds[0].byes == (0,)
    assert fmt.reached(range(9), history)[0] == Reached(key=(2, 0), label="still in (round 2)")


def test_an_entrant_who_withdraws_after_a_bye_ranks_above_that_round_s_tables():
    fmt = MultiTableKnockout(seats=4, advance=2, min_seats=4)
    withdraw = {2: [0]}
    _, history = play_out(fmt, range(9), seed=2, withdraw=withdraw)
    reached = fmt.reached(still_in(range(9), withdraw, len(history)), history)
    assert reached[0] == Reached(key=(1, 0), label="withdrew after a bye in round 1")
    out_in_round_one = [e for e in range(9) if reached[e].key[0] == 1 and e != 0]
    assert out_in_round_one and all(reached[e].key < reached[0].key for e in out_in_round_one)


def test_an_entrant_who_withdraws_after_going_through_keeps_the_place_it_went_through_with():
    fmt = MultiTableKnockout(seats=4, advance=2)
    withdraw = {2: [5]}  # 2nd at table (0, 5, 6, 11) when seeds hold
    _, history = play_out(fmt, range(12), decide=best_seed_wins, withdraw=withdraw)
    reached = fmt.reached(still_in(range(12), withdraw, len(history)), history)
    assert reached[5] == Reached(key=(1, -2), label="withdrew after round 1 (2nd at the table)")
    assert set(reached) == set(range(12))


def test_when_too_few_are_left_for_a_table_those_left_share_the_top():
    # 9 at tables of exactly 4, two through: round 2 leaves 3, who cannot fill a table.
    fmt = MultiTableKnockout(seats=4, advance=2, min_seats=4)
    _, history = play_out(fmt, range(9), seed=2)
    reached = fmt.reached(range(9), history)
    top = [e for e in range(9) if reached[e].key == (3, 0)]
    assert len(top) == 3
    assert all(reached[e].label == "still in when the stage ended (round 3)" for e in top)


def test_duplicate_play_ranks_the_knockout_of_the_merged_tables():
    plain, dup = MultiTableKnockout(seats=3, advance=1), MultiTableKnockout(seats=3, advance=1,
                                                                            duplicate=True)
    _, history = play_out(plain, range(10), decide=best_seed_wins)
    _, dup_history = play_out(dup, range(10), decide=best_seed_wins)
    assert plain.reached(range(10), history) == dup.reached(range(10), dup_history)


def test_random_withdrawals_leave_every_entrant_a_place():
    fmt = MultiTableKnockout(seats=4, advance=2)
    for seed in range(10):
        rng = random.Random(seed)
        withdraw = {rng.randint(2, 3): rng.sample(range(30), 6)}
        _, history = play_out(fmt, range(30), seed=seed, withdraw=withdraw)
        reached = fmt.reached(still_in(range(30), withdraw, len(history)), history)
        assert set(reached) == set(range(30))


def test_standings_put_the_final_table_winner_first_whatever_its_points():
    # Seeds hold until the final table, which seed 4 (id 3) wins: it has fewer match points
    # than seed 1, who came second there.
    def decide(seats, rng):
        if set(seats) == {0, 1, 2, 3}:
            return tuple({3: 1, 0: 2, 1: 3, 2: 4}[e] for e in seats)
        return best_seed_wins(seats, rng)

    fmt = MultiTableKnockout(seats=4, advance=2)
    _, history = play_out(fmt, range(12), decide=decide)
    tables, byes = standings_input(history)
    rows = standings(range(12), tables, byes=byes, reached=fmt.reached(range(12), history))
    assert [r.entrant for r in rows[:4]] == [3, 0, 1, 2]
    assert rows[0].match_points < rows[1].match_points
    assert rows[1].explanation.startswith("2nd: behind #3 on the bracket: 2nd at the final table vs champion")
    # Out in round 2 (3rd at tables of three) above out in round 1; round 1's 3rd places
    # above its 4th places.
    assert [r.reached for r in rows[4:]] == ["out at round 2, 3rd at the table"] * 2 + [
        "out at round 1, 3rd at the table"] * 3 + ["out at round 1, 4th at the table"] * 3
