"""The built-in bots of issue 6: heuristic, expectimax and ismcts see only the view, answer
with a legal action, and are reproducible from their seed."""

from __future__ import annotations

import random
import time

import pytest

import bots
import engine
from bots.ismcts import searchable_games


def _decisions(game: str, count: int, seed: int):
    """Views of seats to act, from random matches at random tables."""
    g = engine.game(game)
    rng = random.Random(seed)
    views = []
    while len(views) < count:
        players = rng.randint(g.min_players, min(g.max_players, 6))
        state = g.new_match(players=players, seed=rng.randrange(10**9), options={"hands": 2})
        while not state.is_over() and len(views) < count:
            views.append(state.view(state.current_player()))
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return views


CASES = [
    ("sette_e_mezzo", "heuristic", {}, 400),
    ("sette_e_mezzo", "expectimax", {}, 150),
    ("stoppa", "heuristic", {}, 400),
    ("sette_e_mezzo", "ismcts", {"iterations": 4}, 15),
    ("stoppa", "ismcts", {"iterations": 4}, 15),
]


@pytest.mark.parametrize("game,name,options,count", CASES)
def test_a_bot_answers_only_legal_actions(game, name, options, count):
    bot = bots.create(name, game=game, seed=1, **options)
    for view in _decisions(game, count, seed=2):
        assert bot.act(view) in view["legal_actions"]


@pytest.mark.parametrize("game,name,options,count", CASES)
def test_the_same_seed_gives_the_same_choices(game, name, options, count):
    views = _decisions(game, min(count, 40), seed=3)
    first = bots.create(name, game=game, seed=9, **options)
    second = bots.create(name, game=game, seed=9, **options)
    assert [first.act(v) for v in views] == [second.act(v) for v in views]


def test_every_game_offers_a_heuristic_bot_where_one_is_written():
    assert "heuristic" in bots.available("sette_e_mezzo")
    assert "heuristic" in bots.available("stoppa")
    assert bots.available("sette_e_mezzo").count("expectimax") == 1
    assert "expectimax" not in bots.available("stoppa")


def test_expectimax_hits_a_lone_seven_for_the_bank_only_while_hands_remain():
    # 7 + figure (or 7, or the matta) is a two-card 7½, which takes the bank: worth the risk
    # early in the match, not in its last hand.
    for hands, expected in ((10, "hit"), (1, "stand")):
        bot = bots.create("expectimax", game="sette_e_mezzo", seed=0)
        state = engine.game("sette_e_mezzo").new_match(
            players=3, seed=0, deck=["7C", "JC", "2S", "5B", "6D"], options={"stake_min": 1, "hands": hands}
        )
        state.apply({"type": "stake", "amount": 1})
        state.apply({"type": "stake", "amount": 1})
        assert bot.act(state.view(0))["type"] == expected  # seat 0 holds 7C


def test_ismcts_is_offered_for_exactly_the_games_that_determinize():
    games = searchable_games()
    assert {"sette_e_mezzo", "stoppa"} <= set(games)
    for name in engine.games():
        assert ("ismcts" in bots.available(name)) == (name in games)


def test_a_sette_e_mezzo_player_never_hits_on_seven_and_stands_on_one():
    # Rules shared by heuristic and expectimax (when the bank is not at stake): 7 is too close
    # to 7½ to hit, ½ too far to stand.
    for name, options in (("heuristic", {}), ("expectimax", {"bank_edge": 0})):
        bot = bots.create(name, game="sette_e_mezzo", seed=0, **options)
        state = engine.game("sette_e_mezzo").new_match(
            players=3, seed=0, deck=["7C", "JC", "2S", "5B", "6D"], options={"stake_min": 1}
        )
        state.apply({"type": "stake", "amount": 1})
        state.apply({"type": "stake", "amount": 1})
        assert bot.act(state.view(0))["type"] == "stand"  # seat 0 holds 7C
        state.apply({"type": "stand"})
        assert bot.act(state.view(1))["type"] == "hit"  # seat 1 holds JC: ½


# --- the time a decision is allowed (bots.base.Bot.deadline) -------------------------------------

# Each game's longest matches at its largest table, with the search's most expensive options:
# every decision searched, every sample played to the end of the match. Unbounded by time,
# such a search takes from seconds to a minute a decision.
LONGEST = {
    "stoppa": (6, {"hands": 50}),
    "sette_e_mezzo": (10, {"hands": 200}),
    "spacca_il_mazzo": (4, {"games": 20, "turn_limit": 5000}),
    "piazza": (8, {"deck": "french_double"}),
}


def _an_early_decision(game: str) -> dict:
    players, options = LONGEST[game]
    state = engine.game(game).new_match(players=players, seed=11, options=options)
    rng = random.Random(11)
    for _ in range(3):  # a little way in, where the menu is real
        state.apply(rng.choice(state.legal_actions()))
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    return state.view(state.current_player())


@pytest.mark.parametrize("game", sorted(searchable_games()))
def test_a_search_answers_by_its_deadline_whatever_its_options(game):
    view = _an_early_decision(game)
    bot = bots.create("ismcts", game=game, seed=1, iterations=100_000, horizon="match", delegate=[], resample=20)
    bot.deadline = time.monotonic() + 0.3
    began = time.monotonic()
    action = bot.act(view)
    took = time.monotonic() - began
    assert action in view["legal_actions"]
    # Samples look at the clock every 16 moves: alone, a few ms past it; the slack is for a
    # loaded machine's pauses. Unbounded by time, 100,000 samples take hours.
    assert took < 0.3 + 1.0


@pytest.mark.parametrize("game", sorted(searchable_games()))
def test_a_search_given_no_time_answers_at_once_with_its_rollout_policys_move(game):
    view = _an_early_decision(game)
    bot = bots.create("ismcts", game=game, seed=1, iterations=300, delegate=[])
    bot.deadline = time.monotonic()
    began = time.monotonic()
    action = bot.act(view)
    assert time.monotonic() - began < 0.5  # 300 samples would take seconds
    policy = bots.create("heuristic", game=game, seed=f"1/rollout/{view['seat']}")
    assert action == policy.act(view)


@pytest.mark.parametrize("game", ["stoppa", "sette_e_mezzo"])
def test_a_deadline_it_keeps_does_not_change_an_iterations_search(game):
    views = _decisions(game, 20, seed=5)
    free = bots.create("ismcts", game=game, seed=3, iterations=4)
    timed = bots.create("ismcts", game=game, seed=3, iterations=4)
    chosen = []
    for view in views:
        timed.deadline = time.monotonic() + 60
        chosen.append(timed.act(view))
    assert chosen == [free.act(v) for v in views]
