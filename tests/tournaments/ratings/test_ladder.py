"""A ladder's configuration and its replay: immutable, versioned, bit-identical."""

import json
import random
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.ratings import EloSystem, PlackettLuceSystem, Rating, rate_match, replay_ladder, system_from_json

SYSTEMS = [EloSystem(), PlackettLuceSystem()]


def history(rng: random.Random, matches: int, players: int = 30):
    """Random multi-seat tables with (finished_at, match_id) keys, several finishing together."""
    start = datetime(2025, 3, 1, 15, 0)
    result = []
    for match_id in range(1, matches + 1):
        seats = rng.sample(range(1, players + 1), rng.randint(2, 6))
        finished_at = start + timedelta(seconds=rng.randint(0, matches // 3))  # many collide
        result.append(((finished_at, match_id), {p: rng.randint(1, len(seats)) for p in seats}))
    return result


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_replay_is_bit_identical_whatever_order_the_workers_finished_in(system):
    rng = random.Random(20250301)
    matches = history(rng, 300)
    final, ledger = replay_ladder(system, matches)
    for _ in range(5):
        shuffled = matches[:]
        rng.shuffle(shuffled)
        again_final, again_ledger = replay_ladder(system, shuffled)
        assert again_final == final
        assert again_ledger == ledger
        # Equal floats, compared through their exact text as a database or JSON stores them.
        assert json.dumps([c.to_json() for m in again_ledger for c in m.changes]) == json.dumps(
            [c.to_json() for m in ledger for c in m.changes]
        )


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_replay_equals_applying_each_match_as_it_finishes_in_key_order(system):
    matches = history(random.Random(5), 60)
    ratings = {}
    for _, places in sorted(matches, key=lambda m: m[0]):
        for change in rate_match(system, ratings, places):
            ratings[change.player] = change.after
    final, ledger = replay_ladder(system, matches)
    assert final == ratings
    assert [m.order_key for m in ledger] == sorted(m[0] for m in matches)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_stored_values_survive_a_round_trip_through_json(system):
    final, ledger = replay_ladder(system, history(random.Random(9), 80))
    reloaded = {p: Rating.from_json(json.loads(json.dumps(r.to_json()))) for p, r in final.items()}
    assert reloaded == final
    # Continuing from reloaded ratings is continuing from the same numbers.
    more = history(random.Random(10), 20)
    more = [((datetime(2030, 1, 1), key[1]), places) for key, places in more]
    assert replay_ladder(system, more, reloaded) == replay_ladder(system, more, final)


def test_two_matches_with_one_order_key_are_refused():
    with pytest.raises(ValueError, match="order key"):
        replay_ladder(EloSystem(), [((1, 7), {1: 1, 2: 2}), ((1, 7), {3: 1, 4: 2})])


def test_the_ledger_records_before_after_and_places_for_history_charts():
    final, ledger = replay_ladder(EloSystem(), [((2, 2), {1: 2, 2: 1}), ((1, 1), {1: 1, 2: 2, 3: 3})])
    assert [m.order_key for m in ledger] == [(1, 1), (2, 2)]
    first = {c.player: c for c in ledger[0].changes}
    second = {c.player: c for c in ledger[1].changes}
    assert second[1].before == first[1].after
    assert (second[1].actual_place, second[1].expected_place < 1.5) == (2, True)
    assert final[3] == first[3].after


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.name)
def test_a_configuration_round_trips_through_json_with_the_same_fingerprint(system):
    data = json.loads(json.dumps(system.to_json()))
    again = system_from_json(data)
    assert again == system
    assert again.fingerprint() == system.fingerprint()


def test_one_configuration_has_one_fingerprint_and_any_change_makes_another():
    assert EloSystem(k=24).fingerprint() == EloSystem(k=24.0).fingerprint()
    assert EloSystem(k=32).fingerprint() != EloSystem().fingerprint()
    assert EloSystem(version=2).fingerprint() != EloSystem().fingerprint()
    assert EloSystem().fingerprint() != PlackettLuceSystem().fingerprint()


def test_a_configuration_is_immutable():
    system = EloSystem()
    with pytest.raises(AttributeError):
        system.k = 32


@pytest.mark.parametrize(
    "data",
    [
        {"system": "glicko"},
        {"system": "elo", "k_factor": 32},
        {"system": "elo", "k": "24"},
        {"system": "elo", "k": -1},
        {"system": "openskill", "sigma": 0},
    ],
)
def test_an_unknown_or_invalid_configuration_is_a_clear_error(data):
    with pytest.raises((ValueError, TypeError)):
        system_from_json(data)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 40))
def test_replay_of_any_shuffle_matches_the_sorted_replay(seed, matches):
    rng = random.Random(seed)
    items = history(rng, matches, players=8)
    shuffled = items[:]
    rng.shuffle(shuffled)
    assert replay_ladder(EloSystem(), shuffled) == replay_ladder(EloSystem(), items)
