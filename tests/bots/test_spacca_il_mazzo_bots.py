"""Spacca il mazzo's ``heuristic`` bot: legal, reproducible, fast, and true to its rules."""

from __future__ import annotations

import time

import pytest

import bots
import engine

from ..engine.determinize_checks import random_states as random_match_states
from .helpers import assert_legal_over_whole_matches

GAME = engine.game("spacca_il_mazzo")


def random_states(count: int, seed: int = 0):
    """(state, view of the seat to act) in seeded random mid-match states, 2 to 4 players."""
    states = random_match_states(GAME, count, seed, lambda players, rng: {"k_below_q": rng.random() < 0.5}, max_steps=300)
    return [(state, state.view(state.current_player())) for state in states]


def test_heuristic_is_available_for_spacca_il_mazzo():
    assert "heuristic" in bots.available("spacca_il_mazzo")


def test_heuristic_returns_only_legal_actions_over_whole_matches():
    assert_legal_over_whole_matches(bots.create("heuristic", game="spacca_il_mazzo", seed=1), "spacca_il_mazzo", 30,
                                    players=lambda s: 2 + s % 3, options=lambda s: {"k_below_q": s % 2 == 0})


def test_heuristic_is_the_same_for_the_same_seed():
    a = bots.create("heuristic", game="spacca_il_mazzo", seed=5)
    b = bots.create("heuristic", game="spacca_il_mazzo", seed=5)
    for _, view in random_states(100):
        assert a.act(view) == b.act(view)


def test_heuristic_plays_its_lowest_ordinary_rank_when_it_can():
    checked = 0
    for _, view in random_states(300, seed=2):
        level_of = engine.spacca_il_mazzo.HIERARCHIES[view["k_below_q"]].level_of
        ordinary = [a for a in view["legal_actions"] if a["type"] == "play" and level_of[a["cards"][0]] < 11]
        if not ordinary or view["red_joker"]:
            continue
        action = bots.create("heuristic", game="spacca_il_mazzo").act(view)
        assert action["type"] == "play"
        assert level_of[action["cards"][0]] == min(level_of[a["cards"][0]] for a in ordinary)
        checked += 1
    assert checked >= 30


def test_heuristic_never_picks_up_while_it_may_draw_or_play():
    bot = bots.create("heuristic", game="spacca_il_mazzo")
    for _, view in random_states(300, seed=3):
        kinds = {a["type"] for a in view["legal_actions"]}
        if kinds - {"pickup"}:
            assert bot.act(view)["type"] != "pickup"


def test_heuristic_throws_its_hand_on_a_drawn_red_joker():
    bot = bots.create("heuristic", game="spacca_il_mazzo")
    for _, view in random_states(400, seed=4):
        if view["red_joker"] == "dump":
            assert bot.act(view)["type"] == "joker_dump"


def test_heuristic_decides_in_well_under_a_millisecond():
    bot = bots.create("heuristic", game="spacca_il_mazzo")
    views = [v for _, v in random_states(100, seed=6)]
    start = time.perf_counter()
    for view in views * 5:
        bot.act(view)
    assert (time.perf_counter() - start) / (len(views) * 5) < 0.001


@pytest.mark.parametrize("seed", range(3))
def test_heuristic_beats_random_heads_up_on_fixed_deals(seed):
    """A wide margin on fixed seeds (the arena figures measure it properly)."""
    from bots.runner import play_match

    total = [0, 0]
    for m in range(6):
        seats = [bots.create("heuristic", game="spacca_il_mazzo", seed=m),
                 bots.create("random", game="spacca_il_mazzo", seed=m)]
        if m % 2:
            seats.reverse()
        outcome = play_match(GAME, seats, seed=f"{seed}-{m}")
        h = m % 2
        total[0] += outcome.scores[h]
        total[1] += outcome.scores[1 - h]
    assert total[0] > total[1]


def test_ismcts_plays_spacca_in_paired_mode_legally_and_reproducibly():
    a = bots.create("ismcts", game="spacca_il_mazzo", seed=4, iterations=2)
    b = bots.create("ismcts", game="spacca_il_mazzo", seed=4, iterations=2)
    assert a.mode == "paired" and a.depth is None  # rollouts to the end of the match
    views = [v for _, v in random_states(25, seed=5)]
    choices = [a.act(v) for v in views]
    assert all(c in v["legal_actions"] for c, v in zip(choices, views))
    assert choices == [b.act(v) for v in views]
    assert bots.create("ismcts", game="spacca_il_mazzo", mode="tree").depth == 24
