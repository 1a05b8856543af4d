"""The two drawings, laid out in Python and drawn as inline SVG: a player's rating history and
an elimination tournament's bracket."""

from __future__ import annotations

import pytest

from tournaments import selectors
from tournaments.models import Match
from tournaments.web import brackets, charts

from ..helpers import bot_players, make_tournament, play_out
from .playing import play_some

# --- the rating chart --------------------------------------------------------------------------

def test_no_history_draws_no_chart():
    assert charts.rating_chart([]) is None


def test_the_chart_climbs_with_the_rating_and_runs_left_to_right_with_the_games():
    chart = charts.rating_chart([(0, 1500.0), (1, 1520.0), (2, 1490.0), (3, 1540.0)])
    points = [tuple(map(float, p.split(","))) for p in chart.line.split()]
    xs, ys = [x for x, _ in points], [y for _, y in points]
    assert xs == sorted(xs) and xs[0] == chart.plot[0] and xs[-1] == chart.plot[2]
    assert ys[3] < ys[1] < ys[0] < ys[2]  # 1540 highest on the page (smallest y), 1490 lowest
    left, top, right, bottom = chart.plot
    assert all(top <= y <= bottom for y in ys)
    assert (chart.first_rating, chart.last_rating, chart.low, chart.high, chart.games) == (1500, 1540, 1490, 1540, 3)


def test_the_axes_are_labelled_with_round_numbers_spanning_the_history():
    chart = charts.rating_chart([(0, 1500.0), (10, 1563.0)])
    values = [tick.value for tick in chart.y_ticks]
    assert values[0] <= 1500 and values[-1] >= 1563
    assert all(float(v).is_integer() and v % 10 == 0 for v in values)
    assert [tick.value for tick in chart.x_ticks] == [0, 2, 4, 6, 8, 10]


def test_a_single_rated_game_or_a_flat_history_still_draws():
    for points in ([(0, 25.0), (1, 25.0)], [(3, 1500.0)]):
        chart = charts.rating_chart(points)
        assert len(chart.y_ticks) >= 2 and chart.y_ticks[0].value < chart.y_ticks[-1].value


def test_a_small_openskill_rating_gets_decimals_on_its_axis():
    chart = charts.rating_chart([(0, 0.0), (1, 1.1), (2, 1.7)])
    assert [tick.value for tick in chart.y_ticks] == [0, 0.5, 1, 1.5, 2]
    assert {tick.decimals for tick in chart.y_ticks} == {1}


def test_a_long_history_is_drawn_from_a_sample_that_keeps_its_ends():
    points = [(g, 1500.0 + (g % 7)) for g in range(2001)]
    chart = charts.rating_chart(points)
    drawn = chart.line.split()
    assert len(drawn) == charts.MAX_POINTS and chart.dots == []
    assert chart.games == 2000 and float(drawn[-1].split(",")[0]) == chart.plot[2]


@pytest.mark.parametrize("span, ticks, step", [(63, 4, 20), (100, 4, 25), (2.1, 4, 1), (1, 6, 0.2), (7, 6, 2)])
def test_a_step_is_a_round_number_giving_at_most_the_ticks_asked(span, ticks, step):
    assert charts.nice_step(span, ticks) == pytest.approx(step)


# --- the bracket -------------------------------------------------------------------------------


def _inside(bracket: brackets.Bracket) -> bool:
    return all(0 <= box.x and box.x + bracket.box_width <= bracket.width and 0 <= box.y
               and box.y + box.height <= bracket.height for box in bracket.boxes)


@pytest.mark.django_db
def test_a_single_elimination_is_drawn_as_its_tree_from_the_seeds_to_the_champion(knockout):
    bracket = brackets.tournament_bracket(knockout)
    assert [c.title for c in bracket.columns] == ["Quarter-final", "Semi-final", "Final", "Champion"]
    assert [len(c.boxes) for c in bracket.columns] == [4, 2, 1, 1]
    first = bracket.columns[0].boxes
    assert sum(box.bye for box in first) == 2  # six entrants in a bracket of eight
    assert all(len(box.lines) == 1 for box in first if box.bye)
    assert len(bracket.connectors) == 4 + 2 + 1  # every box after the first column, from its feeders
    assert _inside(bracket)
    # each pairing sits between the two it comes from
    for left, right in zip(bracket.columns, bracket.columns[1:-1]):
        for k, box in enumerate(right.boxes):
            feeders = left.boxes[2 * k: 2 * k + 2]
            assert feeders[0].middle < box.middle < feeders[1].middle


@pytest.mark.django_db
def test_a_bracket_being_played_draws_its_later_rounds_empty_and_sends_nobody_on_from_an_unfinished_table():
    tournament = make_tournament(bot_players(8, prefix="half"), slug="half", game="piazza", table_size=2,
                                 format="single_elimination", format_config={}, options={}, ladder_slug=None)
    play_some(tournament, 3)  # three of round 1's four tables
    bracket = brackets.tournament_bracket(tournament)
    unfinished = [box for box in bracket.columns[0].boxes if box.match.status != Match.Status.FINISHED]
    assert len(unfinished) == 1 and not any(line.advanced for line in unfinished[0].lines)
    assert all(line.score is None for line in unfinished[0].lines)
    semis = bracket.columns[1].boxes
    assert sum(line.player is not None for box in semis for line in box.lines) == 3
    assert all(line.player is None for box in bracket.columns[2].boxes for line in box.lines)
    assert bracket.columns[-1].boxes[0].lines[0].player is None  # no champion yet


@pytest.mark.django_db
def test_a_double_elimination_draws_the_winners_bracket_above_the_losers():
    tournament = make_tournament(bot_players(8, prefix="double"), slug="double", game="piazza", table_size=2,
                                 format="double_elimination", format_config={}, options={}, ladder_slug=None)
    play_out(tournament)
    bracket = brackets.tournament_bracket(tournament)
    (winners, top), (losers, bottom) = bracket.bands
    assert (winners, losers) == ("winners' bracket", "losers' bracket") and top < bottom
    for box in bracket.boxes:
        in_losers = any(note.startswith("losers'") for note in box.match.notes)
        assert (box.y > bottom) == in_losers
    assert _inside(bracket)
    final = max(bracket.boxes, key=lambda box: box.x)
    assert sum(line.advanced for line in final.lines) == 1


@pytest.mark.django_db
def test_a_round_robin_has_no_bracket(swiss):
    assert brackets.tournament_bracket(swiss) is None


@pytest.mark.django_db
def test_a_duplicate_bracket_reads_each_pairings_rotated_tables_together_as_the_format_does():
    tournament = make_tournament(bot_players(5, prefix="rotated"), slug="rotated", game="piazza", table_size=2,
                                 format="single_elimination", format_config={}, options={}, ladder_slug=None,
                                 duplicate=True)
    play_out(tournament)
    bracket = brackets.tournament_bracket(tournament)
    lines = selectors.tournament_standings(tournament)
    champion = bracket.columns[-1].boxes[0].lines[0].player
    assert champion == lines[0].player and lines[0].reached == "champion"
    finalists = {line.player for line in bracket.columns[-2].boxes[0].lines}
    assert finalists == {lines[0].player, lines[1].player}
