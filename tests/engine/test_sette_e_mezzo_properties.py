"""Sette e mezzo over thousands of seeded random matches: chips are conserved, replays are
exact, views never show a card their seat may not know, and illegal actions change nothing."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import IllegalAction
from engine.cards import ITALIAN_DECK

from .cardwalk import card_codes

GAME = engine.game("sette_e_mezzo")
DECK = frozenset(ITALIAN_DECK)


def random_options(rng: random.Random, players: int) -> dict:
    low = rng.randint(1, 5)
    return {
        "hands": rng.randint(1, 4),
        "stake_min": low,
        "stake_max": low + rng.randint(0, 10),
        "dealer": rng.randrange(players),
        "matta": rng.choice(["KD", "KD", None, "7C"]),
        "special_vs_plain": rng.choice(["multiplier", "single"]),
    }


def random_match(seed: int) -> engine.State:
    rng = random.Random(seed)
    players = rng.randint(3, 10)
    state = GAME.new_match(players=players, seed=seed, options=random_options(rng, players))
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("block", range(4))
def test_chips_sum_to_zero_and_replays_are_exact(block):
    for seed in range(block * 750, (block + 1) * 750):
        state = random_match(seed)
        assert sum(state.scores()) == 0
        assert state.current_player() is None and state.legal_actions() == []
        settles = [e for e in state.log if e["type"] == "settle"]
        assert len(settles) == state.options["hands"]
        # The log accounts for every chip: settlements plus stakes paid on busting.
        from_log = [0] * state.players
        banker = state.options["dealer"]
        for e in state.log:
            if e["type"] == "hand":
                banker = e["banker"]
            elif e["type"] == "bust" and "paid" in e:
                from_log[e["seat"]] -= e["paid"]
                from_log[banker] += e["paid"]
            elif e["type"] == "settle":
                from_log = [a + b for a, b in zip(from_log, e["payments"])]
        assert from_log == state.scores()
        if seed % 5 == 0:
            data = json.loads(json.dumps(state.to_json()))
            again = engine.load(data)
            assert again.log == state.log
            assert again.scores() == state.scores()


def hidden_from(state, viewer):
    """The cards ``viewer`` may not know, by the rules: the tallone, every other seat's
    face-down card, and his own first card until he has staked (SEED-1)."""
    hidden = set(state.stock)
    for seat in range(state.players):
        down = state.down[seat]
        if down is None:
            continue
        if seat != viewer or not state.looked[seat]:
            hidden.add(down)
    return hidden


def test_views_never_show_a_card_their_seat_may_not_know():
    for seed in range(150):
        rng = random.Random(seed)
        players = rng.randint(3, 7)
        state = GAME.new_match(players=players, seed=seed, options={"hands": 2})
        while True:
            for viewer in [None, *range(players)]:
                view = state.view(viewer)
                leaked = card_codes(view, DECK, frozenset({"matta"})) & hidden_from(state, viewer)
                assert not leaked, f"seat {viewer} sees {leaked} (seed {seed})"
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))


def test_views_are_json_and_carry_legal_actions_only_for_the_seat_to_act():
    state = GAME.new_match(players=5, seed=8)
    rng = random.Random(8)
    while not state.is_over():
        seat = state.current_player()
        for viewer in range(5):
            view = state.view(viewer)
            json.dumps(view)
            assert ("legal_actions" in view) == (viewer == seat)
        assert state.view(seat)["legal_actions"] == state.legal_actions()
        state.apply(rng.choice(state.legal_actions()))


ILLEGAL = [
    {"type": "stake", "amount": 0},
    {"type": "stake", "amount": 99},
    {"type": "hit", "mode": "sideways"},
    {"type": "hit"},
    {"type": "hit", "mode": "keep"},
    {"type": "stand"},
    {"type": "double"},
    {"amount": 3},
    "stand",
    None,
]


def test_an_illegal_action_raises_and_changes_nothing():
    for seed in range(200):
        rng = random.Random(seed)
        state = GAME.new_match(players=rng.randint(3, 6), seed=seed, options={"hands": 2})
        while not state.is_over():
            legal = state.legal_actions()
            for action in ILLEGAL:
                if action in legal:
                    continue
                before = (json.dumps(state.to_json()), len(state.log), legal, json.dumps(state.view(None)))
                with pytest.raises(IllegalAction):
                    state.apply(action)
                after = (json.dumps(state.to_json()), len(state.log), state.legal_actions(), json.dumps(state.view(None)))
                assert after == before
            state.apply(rng.choice(legal))
        with pytest.raises(IllegalAction, match="over"):
            state.apply({"type": "stand"})
