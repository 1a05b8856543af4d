"""Piazza's ``heuristic`` bot: legal, reproducible, fast, and true to its rules."""

from __future__ import annotations

import time

import bots
import engine
from engine.piazza import VARIANTS, conflict_key

from ..engine.determinize_checks import random_states as random_match_states
from .helpers import assert_legal_over_whole_matches

GAME = engine.game("piazza")
DECKS = ("italian", "french", "french_double")


def random_states(count: int, seed: int = 0):
    """(state, view of the seat to act) in seeded random mid-match states, every deck, 2 to 6 players."""
    states = random_match_states(GAME, count, seed, lambda players, rng: {"deck": rng.choice(DECKS)}, max_steps=250)
    return [(state, state.view(state.current_player())) for state in states]


def test_heuristic_is_available_for_piazza():
    assert "heuristic" in bots.available("piazza")


def test_heuristic_returns_only_legal_actions_over_whole_matches():
    assert_legal_over_whole_matches(bots.create("heuristic", game="piazza", seed=1), "piazza", 30,
                                    players=lambda s: 2 + s % 5, options=lambda s: {"deck": DECKS[s % 3]})


def test_heuristic_is_the_same_for_the_same_seed():
    a = bots.create("heuristic", game="piazza", seed=5)
    b = bots.create("heuristic", game="piazza", seed=5)
    for _, view in random_states(150):
        assert a.act(view) == b.act(view)


def test_heuristic_never_shows_a_card_and_never_withdraws():
    bot = bots.create("heuristic", game="piazza")
    for _, view in random_states(400, seed=2):
        action = bot.act(view)
        assert "show" not in action
        assert action["type"] not in ("withdraw", "rivolta", "stay_out")


def test_heuristic_claims_whenever_it_is_asked():
    bot = bots.create("heuristic", game="piazza")
    asked = 0
    for _, view in random_states(400, seed=3):
        if view["phase"] == "claim":
            assert bot.act(view) == {"type": "prendo"}
            asked += 1
    assert asked >= 10


def test_heuristic_reveals_its_best_take_set_in_a_conflict():
    bot = bots.create("heuristic", game="piazza")
    for _, view in random_states(600, seed=4):
        if view["phase"] != "reveal":
            continue
        v = VARIANTS[view["deck"]]
        figure_suit = v.figure_suit[view["figure"]]
        assert conflict_key(tuple(bot.act(view)["cards"]), figure_suit, v.hierarchy) == max(
            conflict_key(tuple(a["cards"]), figure_suit, v.hierarchy) for a in view["legal_actions"])


def test_heuristic_decides_in_well_under_a_millisecond():
    bot = bots.create("heuristic", game="piazza")
    views = [v for _, v in random_states(100, seed=6)]
    start = time.perf_counter()
    for view in views * 5:
        bot.act(view)
    assert (time.perf_counter() - start) / (len(views) * 5) < 0.001


# ---------------------------------------------------------------- ismcts (paired mode)




def _showing_factory(game, seed=None):
    """The heuristic, except that it offers with its suit shown (a sure 3-point penalty)."""
    from bots.piazza_bots import HeuristicBot

    class Showing(HeuristicBot):
        def _offer(self, view, legal):
            return next((a for a in legal if "show" in a), None) or super()._offer(view, legal)

    return Showing(game, seed)


def offer_views(count):
    views = []
    for _, view in random_states(2000, seed=7):
        if view["phase"] == "offer" and any("show" in a for a in view["legal_actions"]):
            views.append(view)
            if len(views) == count:
                break
    assert len(views) == count
    return views


def test_ismcts_searches_piazza_in_paired_mode_and_answers_legally_and_reproducibly():
    a = bots.create("ismcts", game="piazza", seed=3, iterations=2)
    b = bots.create("ismcts", game="piazza", seed=3, iterations=2)
    assert a.mode == "paired" and a.horizon == "match"
    views = [v for _, v in random_states(25, seed=8)]
    choices = [a.act(v) for v in views]
    assert all(c in v["legal_actions"] for c, v in zip(choices, views))
    assert choices == [b.act(v) for v in views]


def test_paired_search_drops_the_policys_move_when_it_surely_costs_points(monkeypatch):
    # With a rollout policy that shows its card when it offers, the search at an offer sees,
    # on the same samples, the shown offer cost 3 points against the others: it plays another.
    monkeypatch.setitem(bots._BOTS, "showing", (_showing_factory, frozenset({"piazza"})))
    views = offer_views(4)
    for view in views:
        policy = bots.create("showing", game="piazza").act(view)
        assert "show" in policy
        searched = bots.create("ismcts", game="piazza", seed=1, iterations=12,
                               rollout="showing").act(view)
        assert "show" not in searched and searched in view["legal_actions"]
        # with a single sample there is no evidence: the policy's move stands
        kept = bots.create("ismcts", game="piazza", seed=1, iterations=1,
                           rollout="showing").act(view)
        assert kept == policy
