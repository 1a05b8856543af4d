from collections import Counter
from datetime import datetime, timedelta

import pytest

from tournaments.formats import (
    FORMATS,
    RoundResult,
    TableResult,
    league_divisions,
    make_format,
    merge_duplicates,
    promote_relegate,
    season_schedule,
)

from .helpers import play_out


def test_divisions_are_as_even_as_possible_best_on_top():
    divisions = league_divisions(range(23), 8)
    assert [len(d) for d in divisions] == [8, 8, 7]
    assert divisions[0] == tuple(range(8))


def test_promotion_and_relegation_swap_across_each_boundary():
    standings = [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12)]
    new = promote_relegate(standings, up=1, down=1)
    assert new == ((1, 2, 3, 5), (4, 6, 7, 9), (8, 10, 11, 12))
    assert sorted(e for d in new for e in d) == list(range(1, 13))


def test_moving_more_than_a_division_holds_is_refused():
    with pytest.raises(ValueError, match="division 2"):
        promote_relegate([(1, 2, 3), (4, 5), (6, 7, 8)], up=2, down=1)


def test_season_rounds_are_evenly_spaced():
    start = datetime(2025, 1, 4, 15)
    assert season_schedule(start, timedelta(weeks=1), 3)[-1] == datetime(2025, 1, 18, 15)


@pytest.mark.parametrize("name,config", [
    ("round_robin", {"seats": 4}), ("swiss", {"seats": 4, "rounds": 3}), ("swiss", {}),
    ("single_elimination", {}), ("double_elimination", {}), ("knockout", {"seats": 4})])
def test_duplicate_play_gives_every_entrant_every_seat_on_one_deal(name, config):
    fmt = make_format(name, duplicate=True, **config)
    rounds, _ = play_out(fmt, range(16), seed=3)
    for r in rounds:
        assert {t.deal for t in r.tables} == {r.number}
        seats_of: dict = {}
        for t in r.tables:
            for pos, e in enumerate(t.seats):
                seats_of.setdefault(e, Counter())[pos] += 1
        for t in r.tables:
            assert all(seats_of[e] == Counter(range(len(t.seats))) for e in t.seats)


def test_merged_duplicate_result_ranks_by_total_score():
    result = RoundResult(1, (TableResult((1, 2), (1, 2), (30, 0)),
                             TableResult((2, 1), (1, 2), (50, 10))), ())
    (merged,) = merge_duplicates(result).tables
    assert merged.seats == (1, 2) and merged.places == (2, 1) and merged.scores == (40, 50)


def test_unknown_settings_and_bad_values_name_the_field():
    with pytest.raises(ValueError, match="format must be one of"):
        make_format("ladder")
    with pytest.raises(ValueError, match="'table'"):
        make_format("swiss", table=4)
    with pytest.raises(ValueError, match="seats"):
        make_format("round_robin", seats=9)
    with pytest.raises(ValueError, match="points"):
        make_format("swiss", seats=3, points=(0, 1, 2))
    with pytest.raises(ValueError, match="duplicate"):
        make_format("swiss", duplicate="yes")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_is_deterministic_for_a_seed(name):
    config = {"seats": 4} if name in ("round_robin", "knockout") else {}
    assert play_out(make_format(name, **config), range(13), seed=9) == \
        play_out(make_format(name, **config), range(13), seed=9)
