"""Standings and tie-breaks: what an organiser and a player rely on (rules in
tournaments/standings.py)."""

import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import formats
from tournaments.formats.base import Reached
from tournaments.standings import DEFAULT_TIEBREAKS, TIEBREAKS, TableResult, default_points_by_place, standings

from .formats.helpers import best_seed_wins, play_out, standings_input

NAMES = {1: "Ann", 2: "Bea", 3: "Carla", 4: "Dan", 5: "Eve", 6: "Fio"}


def table(*seats):
    """table((entrant, place, score), ...) or table((entrant, place), ...)"""
    return TableResult(
        tuple(s[0] for s in seats), tuple(s[1] for s in seats), tuple(s[2] if len(s) > 2 else 0 for s in seats)
    )


def duel(winner, loser):
    return table((winner, 1), (loser, 2))


def draw(a, b):
    return table((a, 1), (b, 1))


def rows_by_entrant(rows):
    return {row.entrant: row for row in rows}


# --- match points -------------------------------------------------------------------------


def test_two_players_score_one_for_a_win_half_for_a_draw_nothing_for_a_loss():
    rows = rows_by_entrant(standings([1, 2, 3], [duel(1, 2), draw(2, 3), duel(3, 1)]))
    assert rows[1].match_points == 1
    assert rows[2].match_points == Fraction(1, 2)
    assert rows[3].match_points == Fraction(3, 2)


def test_a_four_seat_table_scores_three_two_one_nothing_and_tied_seats_share():
    rows = rows_by_entrant(standings([1, 2, 3, 4], [table((1, 1), (2, 1), (3, 3), (4, 4))]))
    assert [rows[e].match_points for e in (1, 2, 3, 4)] == [Fraction(5, 2), Fraction(5, 2), 1, 0]
    assert default_points_by_place(4) == (3, 2, 1, 0)


def test_only_the_order_of_places_matters():
    dense = standings([1, 2, 3], [table((1, 1), (2, 1), (3, 2))])
    competition = standings([1, 2, 3], [table((1, 1), (2, 1), (3, 3))])
    assert dense == competition


def test_the_organiser_can_set_the_points_of_each_table_size():
    points = {3: (4, 2, 0), 2: (3, 0)}
    rows = rows_by_entrant(standings([1, 2, 3], [table((1, 2), (2, 1), (3, 3)), duel(3, 1)], points_by_place=points))
    assert [rows[e].match_points for e in (1, 2, 3)] == [2, 4, 3]
    with pytest.raises(ValueError, match="4 seats"):
        standings([1, 2, 3, 4], [table((1, 1), (2, 2), (3, 3), (4, 4))], points_by_place=points)
    with pytest.raises(ValueError, match="2 values"):
        standings([1, 2, 3], [table((1, 1), (2, 2), (3, 3))], points_by_place=lambda n: (1, 0))


def test_a_bye_scores_the_configured_points_and_nothing_else():
    rows = rows_by_entrant(
        standings([1, 2, 3], [duel(1, 2)], byes=[3], bye_points=1, tiebreaks=["match_points", "buchholz", "wins"])
    )
    assert rows[3].match_points == 1
    assert rows[3].tiebreak_values == {"match_points": 1, "buchholz": 0, "wins": 0}
    assert rows[3].game_score == 0


def test_by_default_a_bye_is_worth_what_an_average_player_expects_at_a_table():
    four = table((1, 1), (2, 2), (3, 3), (4, 4))
    rows = rows_by_entrant(standings([1, 2, 3, 4, 5], [four], byes=[5, 5]))
    assert rows[5].match_points == 2 * Fraction(3, 2)  # (3 + 2 + 1 + 0) / 4, twice
    assert rows_by_entrant(standings([1, 2, 3], [duel(1, 2)], byes=[3]))[3].match_points == Fraction(1, 2)


def test_one_list_of_points_serves_smaller_tables_with_its_last_values():
    results = [table((1, 1), (2, 2), (3, 3), (4, 4)), table((5, 1), (6, 2), (7, 3))]
    rows = rows_by_entrant(standings(range(1, 8), results, points_by_place=[5, 3, 1, 0]))
    assert [rows[e].match_points for e in (1, 5, 6, 7)] == [5, 3, 1, 0]
    with pytest.raises(ValueError, match="2 places"):
        standings([1, 2, 3], [table((1, 1), (2, 2), (3, 3))], points_by_place=[1, 0])


def test_a_seat_without_a_score_counts_nothing_towards_game_score():
    rows = rows_by_entrant(standings([1, 2], [TableResult((1, 2), (2, 1), (None, 31))]))
    assert (rows[1].game_score, rows[2].game_score) == (0, 31)


def test_an_entrant_without_results_is_listed_with_nothing():
    rows = rows_by_entrant(standings([1, 2, 9], [duel(1, 2)], tiebreaks=["match_points"]))
    assert (rows[9].match_points, rows[9].game_score, rows[9].rank) == (0, 0, 2)
    assert rows[9].tiebreak_values == {"match_points": 0}


# --- tie-breaks ---------------------------------------------------------------------------


def test_game_score_adds_the_points_taken_in_the_games():
    rows = rows_by_entrant(standings([1, 2], [table((1, 1, 41), (2, 2, 39)), table((1, 2, 30), (2, 1, 50))]))
    assert (rows[1].game_score, rows[2].game_score) == (71, 89)
    assert [r.entrant for r in standings([1, 2], [table((1, 1, 41), (2, 2, 39)), table((1, 2, 30), (2, 1, 50))])] == [
        2,
        1,
    ]


def test_buchholz_counts_every_opponent_met_at_a_multi_seat_table():
    results = [table((1, 1), (2, 2), (3, 3)), table((4, 1), (5, 2), (1, 3))]
    rows = rows_by_entrant(standings([1, 2, 3, 4, 5], results, tiebreaks=["buchholz"]))
    points = {1: 2, 2: 1, 3: 0, 4: 2, 5: 1}
    assert rows[1].tiebreak_values["buchholz"] == points[2] + points[3] + points[4] + points[5]
    assert rows[3].tiebreak_values["buchholz"] == points[1] + points[2]


def test_buchholz_cut1_drops_the_weakest_opponent():
    results = [table((1, 1), (2, 2), (3, 3)), table((4, 1), (5, 2), (1, 3))]
    rows = rows_by_entrant(standings([1, 2, 3, 4, 5], results, tiebreaks=["buchholz", "buchholz_cut1"]))
    assert rows[1].tiebreak_values["buchholz_cut1"] == rows[1].tiebreak_values["buchholz"] - 0


def test_sonneborn_berger_is_classic_for_two_players():
    # 1 beats 2, draws 3, loses to 4; opponents end on 2: 1 (+ its other games), etc.
    results = [duel(1, 2), draw(1, 3), duel(4, 1), duel(2, 3), duel(2, 4), draw(3, 4)]
    rows = rows_by_entrant(standings([1, 2, 3, 4], results, tiebreaks=["sonneborn_berger"]))
    mp = {e: rows[e].match_points for e in rows}
    assert rows[1].tiebreak_values["sonneborn_berger"] == mp[2] + mp[3] / 2


def test_sonneborn_berger_weighs_each_opponent_by_the_pairwise_result_at_the_table():
    results = [table((1, 2), (2, 1), (3, 2), (4, 4))]
    rows = rows_by_entrant(standings([1, 2, 3, 4], results, tiebreaks=["sonneborn_berger"]))
    mp = {e: rows[e].match_points for e in rows}
    # Behind 2 (0), level with 3 (½), ahead of 4 (1).
    assert rows[1].tiebreak_values["sonneborn_berger"] == mp[3] / 2 + mp[4]


def test_head_to_head_decides_between_exactly_two_tied_entrants():
    # 1 and 2 end level on points; 1 beat 2.
    results = [duel(1, 2), duel(2, 3), duel(3, 1), duel(2, 4), duel(1, 4), duel(4, 3)]
    rows = standings([1, 2, 3, 4], results, tiebreaks=["match_points", "head_to_head"], names=NAMES)
    assert [(r.entrant, r.rank) for r in rows[:2]] == [(1, 1), (2, 2)]
    assert rows[0].tiebreak_values["head_to_head"] == 1
    assert "ahead of Bea on head-to-head 1–0 (level on match points 2)" in rows[0].explanation


def test_head_to_head_does_not_apply_to_three_tied_entrants():
    # A cycle: each pair has a decisive game, which would split them if head-to-head applied.
    results = [duel(1, 2), duel(2, 3), duel(3, 1)]
    rows = standings([1, 2, 3], results, tiebreaks=["match_points", "head_to_head"])
    assert [r.rank for r in rows] == [1, 1, 1]
    assert all(r.tiebreak_values["head_to_head"] is None for r in rows)


def test_head_to_head_leaves_two_who_never_met_tied():
    rows = standings([1, 2, 3, 4], [duel(1, 3), duel(2, 4)], tiebreaks=["match_points", "head_to_head"])
    assert [r.rank for r in rows] == [1, 1, 3, 3]


def test_wins_count_only_outright_first_places():
    results = [table((1, 1), (2, 1), (3, 3)), table((1, 1), (2, 2), (3, 3))]
    rows = rows_by_entrant(standings([1, 2, 3], results, tiebreaks=["wins"]))
    assert [rows[e].tiebreak_values["wins"] for e in (1, 2, 3)] == [1, 0, 0]


def test_tie_breaks_apply_in_the_configured_order():
    # 1 and 2 both on 1 point: 1 has more game score, 2 beat a stronger opponent.
    results = [table((1, 1, 90), (3, 2, 0)), table((2, 1, 10), (4, 2, 0)), draw(4, 3), duel(4, 5)]
    first = [r.entrant for r in standings([1, 2, 3, 4, 5], results, tiebreaks=["match_points", "game_score", "buchholz"])]
    second = [r.entrant for r in standings([1, 2, 3, 4, 5], results, tiebreaks=["match_points", "buchholz", "game_score"])]
    assert first.index(1) < first.index(2)
    assert second.index(2) < second.index(1)


def test_entrants_still_tied_share_the_rank_and_the_next_rank_is_skipped():
    rows = standings([1, 2, 3, 4], [duel(1, 2), duel(3, 4), duel(2, 4)], tiebreaks=["match_points"], names=NAMES)
    assert [(r.entrant, r.rank) for r in rows] == [(1, 1), (2, 1), (3, 1), (4, 4)]
    assert rows[0].explanation == ("=1st: tied with Bea and Carla after every tie-break (match points 1); "
                                   "ahead of Dan on match points 1 vs 0.")
    assert rows[3].explanation == "4th: behind Carla on match points 0 vs 1."


def test_the_explanation_names_the_neighbour_and_the_deciding_tie_break():
    results = [table((1, 1), (3, 2)), table((2, 1), (4, 2)), duel(4, 3), duel(1, 2)]
    rows = standings([1, 2, 3, 4], results, tiebreaks=["match_points", "buchholz"], names=NAMES)
    by = rows_by_entrant(rows)
    assert by[2].rank == 2 and by[4].rank == 3
    assert "behind Ann on match points 1 vs 2" in by[2].explanation
    assert "ahead of Dan on Buchholz 3 vs 1 (level on match points 1)" in by[2].explanation
    assert rows[-1].explanation.startswith("4th: behind")


@pytest.mark.parametrize("tiebreaks", [["match_points", "random"], ["buchholz", "buchholz"], "match_points"])
def test_an_unknown_or_repeated_tie_break_is_a_clear_error(tiebreaks):
    with pytest.raises(ValueError):
        standings([1, 2], [duel(1, 2)], tiebreaks=tiebreaks)


@pytest.mark.parametrize(
    "results",
    [
        [duel(1, 7)],  # 7 is not an entrant
        [table((1, 1))],  # one seat: that is a bye
        [table((1, 1), (1, 2))],  # one entrant in two seats
        [table((1, 0), (2, 1))],  # places start at 1
        [table((1, 1, "40"), (2, 2))],  # a score must be a number
    ],
)
def test_a_result_that_cannot_be_scored_is_refused(results):
    with pytest.raises(ValueError):
        standings([1, 2], results)


@pytest.mark.parametrize("places, scores", [((1,), (3, 0)), ((1, 2), (3,)), ((1, 2, 3), ())])
def test_a_table_result_needs_one_place_and_one_score_if_any_per_seat(places, scores):
    # The formats' and the standings' one TableResult refuses it as it is made.
    with pytest.raises(ValueError, match="one place"):
        TableResult((1, 2), places, scores)


def test_rows_are_json_ready_and_exact():
    results = [table((1, 1), (2, 1), (3, 1)), duel(1, 2)]
    rows = standings([1, 2, 3], results, points_by_place={3: (1, 0, 0), 2: (1, 0)})
    data = json.loads(json.dumps([r.to_json() for r in rows]))
    by = {row["entrant"]: row for row in data}
    assert by[3]["match_points"] == "1/3"  # thirds are not exact as floats
    assert by[2]["match_points"] == "1/3" and by[1]["match_points"] == "4/3"


# --- properties over random tournaments ---------------------------------------------------


def random_tournament(rng: random.Random):
    entrants = rng.sample(range(1, 1000), rng.randint(2, 24))
    results, byes = [], []
    for _ in range(rng.randint(0, 8)):  # rounds
        pool = entrants[:]
        rng.shuffle(pool)
        size = rng.randint(2, 6)
        while len(pool) >= 2:
            seats, pool = pool[:size], pool[size:]
            if len(seats) == 1:
                byes.append(seats[0])
                continue
            results.append(table(*[(e, rng.randint(1, len(seats)), rng.randint(0, 60)) for e in seats]))
        byes.extend(pool)
    return entrants, results, byes


SETTINGS = settings(max_examples=100, deadline=None)


@SETTINGS
@given(st.randoms(use_true_random=False), st.permutations(TIEBREAKS))
def test_ranks_are_competition_ranks_in_row_order(rng, tiebreaks):
    entrants, results, byes = random_tournament(rng)
    rows = standings(entrants, results, byes=byes, bye_points=1, tiebreaks=tiebreaks)
    assert sorted(r.entrant for r in rows) == sorted(entrants)
    for index, row in enumerate(rows):
        assert row.rank == 1 + sum(1 for other in rows if other.rank < row.rank)
        assert row.rank <= index + 1
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)


@SETTINGS
@given(st.randoms(use_true_random=False), st.permutations([t for t in TIEBREAKS if t != "head_to_head"]))
def test_without_head_to_head_rows_are_ordered_by_the_tie_break_values_in_turn(rng, tiebreaks):
    entrants, results, byes = random_tournament(rng)
    rows = standings(entrants, results, byes=byes, bye_points=1, tiebreaks=tiebreaks)
    keys = [tuple(r.tiebreak_values[t] for t in tiebreaks) for r in rows]
    for upper, lower, a, b in zip(rows, rows[1:], keys, keys[1:]):
        assert a >= b
        assert (upper.rank == lower.rank) == (a == b)


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_the_order_of_results_and_entrants_changes_nothing(rng):
    entrants, results, byes = random_tournament(rng)
    shuffled_results, shuffled_entrants = results[:], entrants[:]
    rng.shuffle(shuffled_results)
    rng.shuffle(shuffled_entrants)
    assert standings(shuffled_entrants, shuffled_results, byes=byes[::-1], bye_points=1) == standings(
        entrants, results, byes=byes, bye_points=1
    )


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_every_point_awarded_is_accounted_for(rng):
    entrants, results, byes = random_tournament(rng)
    rows = standings(entrants, results, byes=byes, bye_points=Fraction(3, 2), tiebreaks=["match_points", "buchholz"])
    awarded = sum(Fraction(sum(default_points_by_place(len(r.seats)))) for r in results) + Fraction(3, 2) * len(byes)
    assert sum(r.match_points for r in rows) == awarded
    # Buchholz hands each entrant's points to everyone who met it, once per opponent per table.
    meetings = {e: 0 for e in entrants}
    for r in results:
        for entrant in r.seats:
            meetings[entrant] += len(r.seats) - 1
    assert sum(r.tiebreak_values["buchholz"] for r in rows) == sum(r.match_points * meetings[r.entrant] for r in rows)


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_sonneborn_berger_never_exceeds_buchholz(rng):
    entrants, results, byes = random_tournament(rng)
    rows = standings(entrants, results, byes=byes, bye_points=1, tiebreaks=["buchholz", "sonneborn_berger"])
    assert all(r.tiebreak_values["sonneborn_berger"] <= r.tiebreak_values["buchholz"] for r in rows)


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_every_explanation_names_its_ordinal_and_its_neighbours(rng):
    entrants, results, byes = random_tournament(rng)
    rows = standings(entrants, results, byes=byes, bye_points=1, tiebreaks=DEFAULT_TIEBREAKS)
    json.dumps([r.to_json() for r in rows])
    for row in rows:
        tied = sum(1 for other in rows if other.rank == row.rank) > 1
        assert row.explanation.startswith(("=" if tied else "") + str(row.rank))
        assert ("tied with" in row.explanation) == tied
        if rows[0].rank < row.rank:
            assert "behind #" in row.explanation
        if row.rank < rows[-1].rank:
            assert "ahead of #" in row.explanation


# --- elimination formats: the bracket first ------------------------------------------------


def piazza_at_two_seats(seats, number):
    """Seed 1 (id 0) scrapes through the winners' bracket on tied games (equal points: the
    better seed goes through), then loses the grand final and the bracket reset; elsewhere the
    better seed wins 61–30."""
    if 0 in seats and number <= 3:
        return formats.TableResult(seats, (1, 1), (40, 40))
    winner = 1 if 0 in seats else min(seats)
    return formats.TableResult(seats, tuple(1 if e == winner else 2 for e in seats),
                               tuple(61 if e == winner else 30 for e in seats))


def test_the_grand_final_loser_ranks_second_even_with_fewer_match_points_than_those_out_earlier():
    # Regression: standings ranked double elimination by match points alone, so the grand
    # final's loser came 3rd or lower, behind players knocked out rounds earlier.
    fmt = formats.DoubleElimination()
    history = []
    while (rnd := fmt.next_round(range(8), history, random.Random(0))) is not None:
        tables = tuple(piazza_at_two_seats(t.seats, rnd.number) for t in rnd.tables)
        history.append(formats.RoundResult(rnd.number, tables, rnd.byes))
    assert [t.seats for t in history[-1].tables] == [(0, 1)]  # the bracket reset
    tables, byes = standings_input(history)
    reached = fmt.reached(range(8), history)
    rows = rows_by_entrant(standings(range(8), tables, byes=byes, reached=reached))
    assert (rows[1].rank, rows[0].rank) == (1, 2)
    assert rows[0].match_points < rows[2].match_points  # 2 went out in losers' round 4
    assert rows[0].explanation == (
        "2nd: behind #1 on the bracket: lost the grand final (bracket reset) vs champion; "
        "ahead of #2 on the bracket: lost the grand final (bracket reset) vs out in losers' round 4."
    )
    # What the standings said before they knew the bracket:
    assert rows_by_entrant(standings(range(8), tables, byes=byes))[0].rank == 4


def test_single_elimination_semi_final_losers_are_split_by_the_tie_breaks():
    fmt = formats.SingleElimination()
    _, history = play_out(fmt, range(8), decide=best_seed_wins)
    tables, byes = standings_input(history)
    rows = standings(range(8), tables, byes=byes, reached=fmt.reached(range(8), history))
    assert [(r.entrant, r.rank) for r in rows[:4]] == [(0, 1), (1, 2), (3, 3), (2, 4)]
    # 3 lost to the champion, 2 to the runner-up: the same points, a better Buchholz.
    by = rows_by_entrant(rows)
    assert "ahead of #2 on Buchholz 3 vs 2 (level on match points 1)" in by[3].explanation
    assert "behind #1 on the bracket: out in the semi-final vs lost the final" in by[3].explanation
    assert {r.reached for r in rows[4:]} == {"out in the quarter-final"}


def test_the_bracket_ranks_before_every_tie_break():
    results = [duel(1, 2), duel(1, 3), duel(4, 1)]
    reached = {4: Reached((2, 2), "champion"), 1: Reached((2, 0), "lost the final"),
               2: Reached((1, 0), "out in the semi-final"), 3: Reached((1, 0), "out in the semi-final")}
    rows = standings([1, 2, 3, 4], results, reached=reached, names=NAMES)
    assert [(r.entrant, r.rank) for r in rows] == [(4, 1), (1, 2), (2, 3), (3, 3)]
    assert rows[1].match_points > rows[0].match_points


def test_the_explanation_says_when_the_bracket_separated_two_entrants():
    reached = {1: Reached((2, 2), "champion"), 2: Reached((2, 0), "lost the final")}
    rows = standings([1, 2], [duel(2, 1), duel(1, 2), duel(2, 1)], reached=reached, names=NAMES)
    assert rows[0].explanation == "1st: ahead of Bea on the bracket: champion vs lost the final."
    assert rows[1].explanation == "2nd: behind Ann on the bracket: lost the final vs champion."


def test_entrants_level_on_the_bracket_keep_today_s_explanations():
    results = [duel(1, 2), duel(2, 3), duel(3, 1), duel(2, 4), duel(1, 4), duel(4, 3)]
    same = {e: Reached((1, 0), "out in the semi-final") for e in (1, 2, 3, 4)}
    tiebreaks = ["match_points", "head_to_head"]
    with_bracket = standings([1, 2, 3, 4], results, tiebreaks=tiebreaks, names=NAMES, reached=same)
    without = standings([1, 2, 3, 4], results, tiebreaks=tiebreaks, names=NAMES)
    assert [(r.entrant, r.rank, r.explanation) for r in with_bracket] == [
        (r.entrant, r.rank, r.explanation) for r in without]


def test_entrants_level_on_the_bracket_that_no_tie_break_splits_share_a_rank():
    reached = {1: Reached((2, 2), "champion"), 2: Reached((1, 0), "out in the semi-final"),
               3: Reached((1, 0), "out in the semi-final")}
    rows = standings([1, 2, 3], [duel(1, 2), duel(1, 3)], reached=reached, names=NAMES)
    assert [(r.entrant, r.rank) for r in rows] == [(1, 1), (2, 2), (3, 2)]
    assert rows[1].explanation.startswith("=2nd: tied with Carla after every tie-break")
    assert "behind Ann on the bracket: out in the semi-final vs champion" in rows[1].explanation


def test_an_entrant_the_bracket_does_not_mention_ranks_below_everyone_it_does():
    # 3 withdrew before the bracket was drawn but had won a table in an earlier stage.
    reached = {1: Reached((1, 2), "champion"), 2: Reached((1, 0), "lost the final")}
    rows = standings([1, 2, 3], [duel(1, 2), duel(3, 2)], reached=reached)
    assert [r.entrant for r in rows] == [1, 2, 3]
    assert rows[2].reached == "not in the bracket"
    assert "behind #2 on the bracket: not in the bracket vs lost the final" in rows[2].explanation


def test_rows_say_how_far_each_entrant_went():
    reached = {1: Reached((2, 2), "champion"), 2: Reached((2, 0), "lost the final")}
    rows = standings([1, 2], [duel(1, 2)], reached=reached)
    assert [r.reached for r in rows] == ["champion", "lost the final"]
    assert [r.to_json()["reached"] for r in rows] == ["champion", "lost the final"]
    plain = standings([1, 2], [duel(1, 2)])
    assert [r.reached for r in plain] == [None, None]
    assert plain[0].to_json()["reached"] is None


@SETTINGS
@given(st.randoms(use_true_random=False), st.permutations([t for t in TIEBREAKS if t != "head_to_head"]))
def test_the_bracket_orders_the_rows_and_the_tie_breaks_order_each_level_as_before(rng, tiebreaks):
    entrants, results, byes = random_tournament(rng)
    reached = {e: Reached((rng.randint(0, 3), rng.randint(-2, 0)), "somewhere") for e in entrants
               if rng.random() < 0.9}
    rows = standings(entrants, results, byes=byes, bye_points=1, tiebreaks=tiebreaks, reached=reached)
    plain = {r.entrant: r for r in standings(entrants, results, byes=byes, bye_points=1, tiebreaks=tiebreaks)}
    level = [(1, reached[r.entrant].key) if r.entrant in reached else (0, ()) for r in rows]
    for upper, lower, a, b in zip(rows, rows[1:], level, level[1:]):
        assert a >= b
        if a != b:
            assert upper.rank < lower.rank and "on the bracket" in lower.explanation
        else:  # within a level, the order and ties the tie-breaks gave before
            assert plain[upper.entrant].rank <= plain[lower.entrant].rank
            assert (upper.rank == lower.rank) == (plain[upper.entrant].rank == plain[lower.entrant].rank)


# --- kept in the cache (selectors.tournament_standings) ---------------------------------------

@pytest.mark.django_db
@pytest.mark.services  # and on PostgreSQL: the key's plain SQL
def test_standings_are_computed_once_per_state_and_again_after_any_change(monkeypatch):
    from tournaments import selectors
    from tournaments.models import Entry
    from tournaments.services.players import player_update
    from tournaments.services.tournaments import entry_withdraw, tournament_start

    from .helpers import bot_players, make_tournament, play_out

    tournament = make_tournament(bot_players(5), format="swiss", format_config={"rounds": 2}, slug="kept",
                                 table_size=4)
    tournament_start(tournament=tournament)
    computed = []
    compute = selectors._standings_rows
    monkeypatch.setattr(selectors, "_standings_rows", lambda t, e, *more: computed.append(1) or compute(t, e, *more))
    first = selectors.tournament_standings(tournament)
    assert selectors.tournament_standings(tournament) == first and len(computed) == 1  # the second read: kept
    # A withdrawal is in the next read...
    gone = first[-1].player
    entry_withdraw(entry=Entry.objects.get(tournament=tournament, player=gone))
    after = {line.player.pk: line for line in selectors.tournament_standings(tournament)}
    assert after[gone.pk].withdrawn is True and len(computed) == 2
    # ...and results...
    play_out(tournament)
    assert sum(line.played for line in selectors.tournament_standings(tournament)) > 0 and len(computed) == 3
    # ...and a player's new name.
    player_update(player=first[0].player, display_name="The Champion")
    names = [str(line.player) for line in selectors.tournament_standings(tournament)]
    assert "The Champion" in names and len(computed) == 4


@pytest.mark.django_db
@pytest.mark.services  # and on PostgreSQL: the key's plain SQL
def test_entries_disqualifications_and_a_new_scoring_are_in_the_next_read():
    from tournaments import selectors
    from tournaments.models import Entry, Tournament
    from tournaments.services.tournaments import entry_add, entry_disqualify, tournament_start, tournament_update

    from .helpers import bot_players, make_tournament, play_out

    players = bot_players(6)
    tournament = make_tournament(players[:5], format="swiss", format_config={"rounds": 2}, slug="versions",
                                 table_size=4)

    def lines():
        fresh = Tournament.objects.get(pk=tournament.pk)
        return {line.player.pk: line for line in selectors.tournament_standings(fresh)}

    assert len(lines()) == 5
    entry_add(tournament=tournament, player=players[5])
    assert len(lines()) == 6
    cheat = players[0]
    entry_disqualify(entry=Entry.objects.get(tournament=tournament, player=cheat), reason="marked cards")
    assert lines()[cheat.pk].withdrawn is True
    tournament_update(tournament=tournament, points_by_place=[5, 2, 1, 0])
    tournament_start(tournament=tournament)
    play_out(tournament)
    assert max(line.match_points for line in lines().values()) >= 5  # scored 5-2-1-0, not 3-2-1-0


@pytest.mark.django_db
@pytest.mark.services  # and on PostgreSQL: the key's plain SQL
def test_what_the_admin_changes_is_in_the_next_read(monkeypatch):
    from django.contrib import admin
    from django.test import RequestFactory

    from tournaments import selectors
    from tournaments.models import Match, Player, Round

    from .helpers import bot_players, make_tournament, play_out

    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="admin-edits")
    play_out(tournament)
    computed = []
    compute = selectors._standings_rows
    monkeypatch.setattr(selectors, "_standings_rows", lambda t, e, *more: computed.append(1) or compute(t, e, *more))
    request = RequestFactory().post("/admin/")
    first = selectors.tournament_standings(tournament)
    assert selectors.tournament_standings(tournament) == first and len(computed) == 1

    player = Player.objects.get(pk=first[0].player.pk)
    player.display_name = "Renamed in the admin"
    admin.site._registry[Player].save_model(request, player, None, True)
    assert str(selectors.tournament_standings(tournament)[0].player) == "Renamed in the admin"
    match = Match.objects.filter(round__tournament=tournament).first()
    admin.site._registry[Match].save_model(request, match, None, True)
    selectors.tournament_standings(tournament)
    last = Round.objects.filter(tournament=tournament).order_by("-number")[:1]
    admin.site._registry[Round].delete_queryset(request, Round.objects.filter(pk__in=last))
    assert sum(line.played for line in selectors.tournament_standings(tournament)) < sum(line.played for line in first)
    assert len(computed) == 4  # the rename, the match's edit and the round's deletion: each read again


@pytest.mark.django_db
@pytest.mark.services  # and on PostgreSQL: the key's plain SQL
def test_saving_a_tournament_read_before_its_standings_changed_keeps_their_new_version():
    from tournaments import selectors
    from tournaments.models import Tournament
    from tournaments.services.versions import standings_changed

    from .helpers import bot_players, make_tournament

    tournament = make_tournament(bot_players(4), slug="stale-copy")
    stale = Tournament.objects.get(pk=tournament.pk)  # the admin's form holds a copy like this one
    standings_changed(tournament_ids=[tournament.pk])
    bumped = Tournament.objects.get(pk=tournament.pk).standings_version
    key = selectors.standings_key(tournament.pk)

    stale.name = "Renamed"
    stale.save()

    assert bumped == stale.standings_version + 1
    assert Tournament.objects.get(pk=tournament.pk).standings_version == bumped
    assert selectors.standings_key(tournament.pk) == key  # the name is not in the standings


def test_an_explanation_is_made_of_the_words_its_phrases_give():
    from tournaments import standings as algo

    class Shouted(algo.Phrases):
        language = "shouted"

        def behind(self, name, reason):
            return f"BEHIND {name} {reason}"

        def on(self, label, shown):
            return f"ON {label.upper()} {shown}"

    results = [TableResult(seats=(1, 2), places=(1, 2), scores=(3, 0))]
    plain = {row.entrant: row.explanation for row in algo.standings([1, 2], results)}
    shouted = {row.entrant: row.explanation for row in algo.standings([1, 2], results, phrases=Shouted())}
    assert plain[2] == "2nd: behind #1 on match points 0 vs 1."
    assert shouted[2] == "2nd: BEHIND #1 ON MATCH POINTS 0 vs 1."


@pytest.mark.parametrize("tiebreaks", [DEFAULT_TIEBREAKS, ("match_points", "head_to_head"), ()])
def test_a_tournament_with_no_entrants_has_empty_standings(tiebreaks):
    assert standings([], [], tiebreaks=tiebreaks) == []
