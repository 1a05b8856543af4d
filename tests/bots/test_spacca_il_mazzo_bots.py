"""Spacca il mazzo's ``heuristic`` bot: legal, reproducible, fast, and true to its rules."""

from __future__ import annotations

import random
import time

import pytest

import bots
import engine

GAME = engine.game("spacca_il_mazzo")


def random_states(count: int, seed: int = 0):
    """Views of the seat to act in seeded random mid-match states, 2 to 4 players."""
    rng = random.Random(seed)
    for i in range(count):
        players = rng.choice((2, 3, 4))
        state = GAME.new_match(players, seed=seed * 1000 + i, options={"k_below_q": i % 2 == 0})
        for _ in range(rng.randrange(0, 300)):
            if state.is_over():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if not state.is_over():
            yield state, state.view(state.current_player())


def test_heuristic_is_available_for_spacca_il_mazzo():
    assert "heuristic" in bots.available("spacca_il_mazzo")


def test_heuristic_returns_only_legal_actions_over_whole_matches():
    bot = bots.create("heuristic", game="spacca_il_mazzo", seed=1)
    for seed in range(30):
        state = GAME.new_match(2 + seed % 3, seed=seed, options={"k_below_q": seed % 2 == 0})
        while not state.is_over():
            action = bot.act(state.view(state.current_player()))
            assert action in state.legal_actions()
            state.apply(action)


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
