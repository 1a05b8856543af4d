"""Sette e mezzo's determinize: consistent with the view, blind to everything else, playable."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cards import ITALIAN_DECK

from .determinize_checks import play_out, random_states, sample_summary, samples_show_each_seat_its_view, twins_sample_alike

GAME = engine.game("sette_e_mezzo")


def _options(players, rng):
    options = {"hands": rng.randint(1, 3)}
    if rng.random() < 0.2:
        options["matta"] = None
    if rng.random() < 0.2:
        options["stake_min"] = options["stake_max"] = 2
    return options


STATES = random_states(GAME, 60, seed=11, options_for=_options, max_steps=40)


def test_a_sample_shows_every_seat_exactly_its_own_view():
    samples_show_each_seat_its_view(GAME, STATES)


def test_a_sample_plays_to_the_end():
    for k, state in enumerate(STATES):
        seat = state.current_player()
        sample = GAME.determinize(state.view(seat), random.Random(k))
        play_out(sample, random.Random(k))
        assert sum(sample.scores()) == 0


def test_the_same_view_and_rng_give_the_same_sample():
    state = STATES[0]
    view = state.view(state.current_player())
    assert sample_summary(GAME.determinize(view, random.Random(5))) == sample_summary(
        GAME.determinize(view, random.Random(5))
    )


def test_two_true_states_with_one_view_give_identical_samples():
    assert twins_sample_alike(GAME, lambda players: ITALIAN_DECK, trials=40, max_steps=12) >= 20


def test_hidden_cards_are_sampled_not_copied():
    # Before anyone stakes nobody has seen a card: samples must deal differently.
    state = GAME.new_match(players=4, seed=1)
    view = state.view(0)
    deals = {tuple(GAME.determinize(view, random.Random(r)).deck[0]) for r in range(20)}
    assert len(deals) == 20


def test_a_finished_match_cannot_be_determinized():
    state = GAME.new_match(players=3, seed=1, options={"hands": 1})
    play_out(state, random.Random(0))
    with pytest.raises(ValueError):
        GAME.determinize(state.view(0), random.Random(0))
