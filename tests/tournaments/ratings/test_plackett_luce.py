"""openskill's Plackett-Luce through rate_match: the package's numbers, called reproducibly."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from tournaments.ratings import PlackettLuceSystem, Rating, rate_match

from .strategies import tables

PL = PlackettLuceSystem()


def by_player(changes):
    return {change.player: change for change in changes}


@given(tables(openskill=True))
def test_the_update_is_openskills_own(table):
    ratings, places = table
    changes = by_player(rate_match(PL, ratings, places))
    players = sorted(places, key=lambda p: (places[p], p))
    model = PlackettLuce()
    result = model.rate(
        [[model.rating(mu=ratings[p].mu, sigma=ratings[p].sigma)] for p in players],
        ranks=[float(places[p]) for p in players],
    )
    for player, [updated] in zip(players, result):
        assert changes[player].after.mu == round(updated.mu, 9)
        assert changes[player].after.sigma == round(updated.sigma, 9)


def test_a_new_player_starts_at_openskills_defaults():
    changes = by_player(rate_match(PL, {}, {1: 1, 2: 2}))
    assert changes[1].before == Rating(25.0, 25.0 / 3.0, 0)
    assert changes[1].after.mu > 25.0 > changes[2].after.mu
    assert PL.leaderboard_value(changes[1].before) == pytest.approx(0.0)


@given(tables(openskill=True))
def test_the_sole_winner_never_loses_mu_and_the_sole_last_never_gains(table):
    ratings, places = table
    best, worst = min(places.values()), max(places.values())
    for change in rate_match(PL, ratings, places):
        alone = list(places.values()).count(change.actual_place) == 1
        if alone and change.actual_place == best:
            assert change.after.mu >= change.before.mu
        if alone and change.actual_place == worst:
            assert change.after.mu <= change.before.mu


@given(st.integers(2, 8), st.data())
def test_equal_players_sharing_a_place_move_alike(n, data):
    places = {p: data.draw(st.integers(1, n)) for p in range(1, n + 1)}
    by_place = {}
    for change in rate_match(PL, {}, places):
        by_place.setdefault(change.actual_place, set()).add((change.after.mu, change.after.sigma))
    assert all(len(values) == 1 for values in by_place.values())


@given(st.permutations(range(1, 9)), st.integers(2, 8))
def test_among_equal_players_without_ties_a_better_place_earns_more(order, n):
    # Only without ties: openskill 6.2's Plackett-Luce can give a player tied for first less
    # than the sole runner-up (openskill.py issue 155), see docs/ratings.md.
    places = {player: place for place, player in enumerate(order[:n], start=1)}
    changes = sorted(rate_match(PL, {}, places), key=lambda c: c.actual_place)
    mus = [c.after.mu for c in changes]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == n


@given(tables(openskill=True))
def test_expected_places_add_up_to_the_places_available(table):
    ratings, places = table
    n = len(places)
    changes = rate_match(PL, ratings, places)
    assert sum(c.expected_place for c in changes) == pytest.approx(n * (n + 1) / 2, abs=1e-6)


def test_uncertainty_shrinks_as_a_player_plays():
    ratings, sigmas = {}, []
    for round_ in range(20):
        for change in rate_match(PL, ratings, {1: 1 + round_ % 2, 2: 2 - round_ % 2, 3: 3}):
            ratings[change.player] = change.after
        sigmas.append(ratings[1].sigma)
    assert sigmas == sorted(sigmas, reverse=True)
    assert sigmas[-1] < 0.75 * PL.sigma
    assert ratings[1].games == 20


def test_an_elo_rating_is_refused_by_openskill():
    with pytest.raises(ValueError, match="sigma"):
        rate_match(PL, {1: Rating(1500.0, None, 3)}, {1: 1, 2: 2})
