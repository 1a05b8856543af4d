"""Stoppa's determinize: consistent with the view, blind to everything else, playable."""

from __future__ import annotations

import random

import pytest

import engine
from engine.stoppa import CARD_VALUE, cards_in_use

from .determinize_checks import play_out, random_states, sample_summary, samples_show_each_seat_its_view, twins_sample_alike

GAME = engine.game("stoppa")


def _options(players, rng):
    options = {"hands": rng.randint(1, 2)}
    if players == 3 and rng.random() < 0.5:
        options["three_player_variant"] = "B"
    return options


STATES = random_states(GAME, 50, seed=7, options_for=_options, max_steps=220)


def test_the_states_cover_every_phase():
    assert {s.phase for s in STATES} >= {"bet", "showdown", "stoppa"}


def test_a_sample_shows_every_seat_exactly_its_own_view():
    samples_show_each_seat_its_view(GAME, STATES)


def test_a_sample_respects_the_senza_announcements():
    for k, state in enumerate(STATES):
        seat = state.current_player()
        view = state.view(seat)
        sample = GAME.determinize(view, random.Random(k))
        missing = {}
        for e in view["events"]:
            if e["type"] == "pass" and "missing" in e:
                missing.setdefault(e["seat"], set()).add(e["missing"])
        for s, values in missing.items():
            assert not values & {CARD_VALUE[c] for c in sample.hands[s]}


def test_a_sample_plays_to_the_end():
    for k, state in enumerate(STATES):
        sample = GAME.determinize(state.view(state.current_player()), random.Random(k))
        play_out(sample, random.Random(k))
        assert sample.is_over()


def test_the_same_view_and_rng_give_the_same_sample():
    state = STATES[0]
    view = state.view(state.current_player())
    assert sample_summary(GAME.determinize(view, random.Random(5))) == sample_summary(
        GAME.determinize(view, random.Random(5))
    )


def test_two_true_states_with_one_view_give_identical_samples():
    assert twins_sample_alike(GAME, cards_in_use, trials=60, max_steps=120) >= 10


def test_others_cards_are_sampled_not_copied():
    state = GAME.new_match(players=4, seed=1)
    view = state.view(state.current_player())
    deals = {tuple(GAME.determinize(view, random.Random(r)).deck[0]) for r in range(20)}
    assert len(deals) == 20


def test_a_finished_match_cannot_be_determinized():
    state = GAME.new_match(players=3, seed=1, options={"hands": 1})
    play_out(state, random.Random(0))
    with pytest.raises(ValueError):
        GAME.determinize(state.view(0), random.Random(0))
