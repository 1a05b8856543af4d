import pytest

from tournaments.formats import MultiTableKnockout

from .helpers import play_out


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
