"""Multiplayer Elo: what a player and an organiser rely on (rules in tournaments/ratings/elo.py)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.ratings import EloSystem, Rating, rate_match

from .strategies import tables

ELO = EloSystem()
SETTLED = 50  # games: past the provisional period


def by_player(changes):
    return {change.player: change for change in changes}


def classic_elo(r_a, r_b, score_a, k):
    """Textbook two-player Elo, written independently of the module."""
    expected_a = 1 / (1 + 10 ** ((r_b - r_a) / 400))
    expected_b = 1 / (1 + 10 ** ((r_a - r_b) / 400))
    return r_a + k * (score_a - expected_a), r_b + k * ((1 - score_a) - expected_b)


def test_equal_players_move_twelve_points_for_a_decisive_game():
    changes = by_player(rate_match(ELO, {1: Rating(1500, None, SETTLED), 2: Rating(1500, None, SETTLED)}, {1: 1, 2: 2}))
    assert changes[1].after.mu == 1512.0
    assert changes[2].after.mu == 1488.0


def test_a_newcomer_moves_with_the_provisional_k_for_its_first_ten_games():
    ratings = {1: Rating(1500, None, 9), 2: Rating(1500, None, 10)}
    changes = by_player(rate_match(ELO, ratings, {1: 1, 2: 2}))
    assert changes[1].after.mu == 1520.0  # 40 / 2
    assert changes[2].after.mu == 1488.0  # 24 / 2


def test_a_player_missing_from_the_ratings_starts_at_the_initial_rating():
    changes = by_player(rate_match(ELO, {}, {5: 1, 6: 2}))
    assert changes[5].before == Rating(1500.0, None, 0)
    assert changes[5].after.games == 1


@given(
    st.floats(600, 2600), st.floats(600, 2600), st.sampled_from([1.0, 0.5, 0.0]),
    st.integers(0, 30), st.integers(0, 30),
)
def test_two_players_reduce_to_classic_elo(r_a, r_b, score_a, games_a, games_b):
    places = {1: 1, 2: 2} if score_a == 1.0 else {1: 2, 2: 1} if score_a == 0.0 else {1: 1, 2: 1}
    changes = by_player(rate_match(ELO, {1: Rating(r_a, None, games_a), 2: Rating(r_b, None, games_b)}, places))
    k_a = 40 if games_a < 10 else 24
    k_b = 40 if games_b < 10 else 24
    want_a, _ = classic_elo(r_a, r_b, score_a, k_a)
    _, want_b = classic_elo(r_a, r_b, score_a, k_b)
    # Stored values are rounded to 1e-9; the textbook value is not.
    assert changes[1].after.mu == pytest.approx(want_a, abs=1e-9)
    assert changes[2].after.mu == pytest.approx(want_b, abs=1e-9)
    assert changes[1].expected_place == pytest.approx(2 - 1 / (1 + 10 ** ((r_b - r_a) / 400)), abs=1e-9)


@given(tables())
def test_rating_is_conserved_when_nobody_is_provisional(table):
    ratings, places = table
    settled = {p: Rating(r.mu, None, SETTLED) for p, r in ratings.items()}
    changes = rate_match(ELO, settled, places)
    assert abs(math.fsum(c.after.mu - c.before.mu for c in changes)) < 1e-6


@given(tables())
def test_with_provisional_players_the_k_weighted_changes_still_cancel(table):
    ratings, places = table
    n = len(places)
    changes = rate_match(ELO, ratings, places)
    weighted = math.fsum((c.after.mu - c.before.mu) / (40 if c.before.games < 10 else 24) for c in changes)
    assert abs(weighted) < 1e-6 * n


@given(tables())
def test_the_sole_winner_gains_and_the_sole_last_loses(table):
    ratings, places = table
    changes = rate_match(ELO, ratings, places)
    best, worst = min(places.values()), max(places.values())
    for change in changes:
        alone = list(places.values()).count(change.actual_place) == 1
        if alone and change.actual_place == best:
            assert change.after.mu >= change.before.mu
        if alone and change.actual_place == worst:
            assert change.after.mu <= change.before.mu


@given(tables())
def test_equal_players_sharing_a_place_gain_the_same(table):
    ratings, places = table
    same = Rating(1500.0, None, SETTLED)
    changes = rate_match(ELO, {p: same for p in ratings}, places)
    by_place = {}
    for change in changes:
        by_place.setdefault(change.actual_place, set()).add(change.after.mu)
    assert all(len(values) == 1 for values in by_place.values())
    # ...and a better place never earns less.
    gains = [by_place[place].pop() for place in sorted(by_place)]
    assert gains == sorted(gains, reverse=True)


@given(tables(), st.randoms(use_true_random=False))
def test_the_result_does_not_depend_on_player_ids_or_mapping_order(table, rng):
    ratings, places = table
    players = list(places)
    relabelled = dict(zip(players, rng.sample(range(20_000, 40_000), len(players))))
    shuffled = players[:]
    rng.shuffle(shuffled)
    first = by_player(rate_match(ELO, ratings, places))
    second = by_player(
        rate_match(ELO, {relabelled[p]: ratings[p] for p in shuffled}, {relabelled[p]: places[p] for p in shuffled})
    )
    for p in players:
        # Canonical order ties players on (place, id), so a relabelling may reorder tied seats
        # and change the last bit before rounding: equal to the stored precision.
        assert second[relabelled[p]].after.mu == pytest.approx(first[p].after.mu, abs=2e-9)
    assert rate_match(ELO, dict(reversed(list(ratings.items()))), dict(reversed(list(places.items())))) == rate_match(
        ELO, ratings, places
    )


@given(tables())
def test_expected_places_add_up_to_the_places_available(table):
    ratings, places = table
    n = len(places)
    changes = rate_match(ELO, ratings, places)
    assert math.fsum(c.expected_place for c in changes) == pytest.approx(n * (n + 1) / 2, abs=1e-6)
    assert all(1 <= c.expected_place <= n for c in changes)


@given(tables())
def test_the_higher_rated_player_is_expected_to_finish_ahead(table):
    ratings, places = table
    changes = sorted(rate_match(ELO, ratings, places), key=lambda c: c.before.mu)
    expected = [c.expected_place for c in changes]
    assert expected == sorted(expected, reverse=True)


def test_the_k_factor_is_split_over_the_opponents():
    same = Rating(1500.0, None, SETTLED)
    four = by_player(rate_match(ELO, dict.fromkeys(range(1, 5), same), {1: 1, 2: 2, 3: 3, 4: 4}))
    # The winner beat three equal opponents: 24 / 3 per pair × 3 × ½ = 12, like one 1v1 win.
    assert four[1].after.mu == 1512.0
    assert four[2].after.mu == 1504.0
    unsplit = by_player(rate_match(EloSystem(split_k=False), dict.fromkeys(range(1, 5), same), {1: 1, 2: 2, 3: 3, 4: 4}))
    assert unsplit[1].after.mu == 1536.0


def test_every_player_counts_one_more_game():
    changes = rate_match(ELO, {1: Rating(1500, None, 3)}, {1: 2, 2: 1, 3: 3})
    assert {c.player: c.after.games for c in changes} == {1: 4, 2: 1, 3: 1}


@pytest.mark.parametrize("places", [{1: 1}, {1: 0, 2: 1}, {1: 1, 2: 1.5}, {1: True, 2: 2}])
def test_a_table_that_cannot_be_rated_is_refused(places):
    with pytest.raises(ValueError):
        rate_match(ELO, {}, places)
