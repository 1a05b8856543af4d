"""Spacca il mazzo: ``determinize`` samples a playable state from what one seat may know.

Over many seeded random mid-match states, for every seat: the sample shows that seat exactly
its view; two different true states with the same view give the same sample for the same rng
(so nothing but the view is used); the sample holds the two decks exactly once, keeps the
cards the view shows where they are, and plays to the end.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

import engine
from engine.cards import FRENCH_DECK, FRENCH_DECK_WITH_JOKERS, JOKERS

from .determinize_checks import play_out

GAME = engine.game("spacca_il_mazzo")
ALL_CARDS = Counter(FRENCH_DECK_WITH_JOKERS) + Counter(FRENCH_DECK)


def stacked_deck(rng: random.Random, players: int) -> dict:
    """A legal stacked deck: no joker among the first 8N cards of MAIN (SP-A4)."""
    main = list(FRENCH_DECK)
    rng.shuffle(main)
    rest = main[8 * players :] + list(JOKERS)
    rng.shuffle(rest)
    second = list(FRENCH_DECK)
    rng.shuffle(second)
    return {"main": main[: 8 * players] + rest, "second": second}


def play_random(state, rng: random.Random, steps: int) -> list[dict]:
    """Up to ``steps`` actions, mostly shedding so that games move on; returns them."""
    done = []
    for _ in range(steps):
        if state.is_over():
            break
        legal = state.legal_actions()
        shed = [a for a in legal if a["type"] in ("play", "flip", "joker_dump", "joker_throw")]
        action = rng.choice(shed if shed and rng.random() < 0.7 else legal)
        state.apply(action)
        done.append(action)
    return done


def mid_match(seed: int):
    """A seeded random state somewhere in a match, with its stacked deck and actions."""
    rng = random.Random(seed)
    players = rng.choice((2, 3, 4))
    options = {"k_below_q": seed % 2 == 0, "games": 1 + seed % 2, "turn_limit": 150}
    deck = stacked_deck(rng, players)
    state = GAME.new_match(players, seed=seed, options=options, deck=deck)
    actions = play_random(state, rng, rng.randrange(0, 160))
    return state, deck, options, actions


@pytest.mark.parametrize("seed", range(40))
def test_the_sample_shows_the_seat_exactly_its_view_and_plays_to_the_end(seed):
    state, _, _, _ = mid_match(seed)
    for seat in range(state.players):
        view = state.view(seat)
        sample = GAME.determinize(view, random.Random(seed * 10 + seat))
        assert sample.view(seat) == view
        assert sample.legal_actions() == state.legal_actions() or state.current_player() != seat
        play_out(sample, random.Random(seed))
        assert sample.is_over()


@pytest.mark.parametrize("seed", range(40))
def test_the_sample_holds_both_decks_once_and_jokers_only_where_deck_one_lies(seed):
    state, _, _, _ = mid_match(seed)
    for seat in range(state.players):
        sample = GAME.determinize(state.view(seat), random.Random(seed))
        zones = sample.zones()
        cards = Counter(zones["main"] + zones["second"] + zones["pile"] + zones["out"])
        for s in range(state.players):
            cards.update(zones["hands"][s] + zones["up"][s] + [c for c in zones["down"][s] if c])
        assert cards == ALL_CARDS
        assert Counter(zones["out"]) == Counter(state.zones()["out"])  # OUT is public
        assert not any(c in JOKERS for h in zones["hands"] for c in h)
        assert not any(c in JOKERS for c in zones["second"])


def test_an_opponents_picked_up_pile_stays_in_his_sampled_hand():
    checked = 0
    for seed in range(300):
        state, _, _, _ = mid_match(seed)
        if state.is_over():
            continue
        seat = state.current_player()
        view = state.view(seat)
        last = view["events"][-1]
        if last["type"] != "pickup" or last["seat"] == seat:
            continue
        sample = GAME.determinize(view, random.Random(seed))
        hand = Counter(sample.zones()["hands"][last["seat"]])
        assert not Counter(last["cards"]) - hand
        checked += 1
    assert checked >= 5


def hidden_variant(deck: dict, state, players: int, rng: random.Random) -> dict:
    """The same deal with cards nobody has seen moved around: the undrawn part of the second
    deck reshuffled and, where two face-down cards of game 1 are still unflipped, swapped."""
    other = copy.deepcopy(deck)
    if state.game_no != 0 or state.is_over():
        return other  # the end of game 1 showed every card left: nothing unseen to move
    drawn = 52 - state.view(0)["second"]
    tail = other["second"][drawn:]
    rng.shuffle(tail)
    other["second"][drawn:] = tail
    first = (state.options["dealer"] + 1) % players
    order = [(first + i) % players for i in range(players)]
    unflipped = [
        8 * players + 3 * k + slot
        for k, s in enumerate(order)
        for slot in range(3)
        if state.zones()["down"][s][slot] is not None
    ]
    if len(unflipped) >= 2:
        i, j = rng.sample(unflipped, 2)
        other["main"][i], other["main"][j] = other["main"][j], other["main"][i]
    return other


@pytest.mark.parametrize("seed", range(40))
def test_two_true_states_with_the_same_view_give_the_same_sample(seed):
    state, deck, options, actions = mid_match(seed)
    rng = random.Random(-seed)
    twin = engine.replay(
        "spacca_il_mazzo",
        players=state.players,
        seed=seed,
        options=options,
        deck=hidden_variant(deck, state, state.players, rng),
        actions=actions,
    )
    for seat in range(state.players):
        view, twin_view = state.view(seat), twin.view(seat)
        assert view == twin_view
        a = GAME.determinize(view, random.Random(seed))
        b = GAME.determinize(twin_view, random.Random(seed))
        assert a.zones() == b.zones()
        assert a.seed == b.seed and a.options == b.options
        assert [a.view(s) for s in range(state.players)] == [b.view(s) for s in range(state.players)]
        assert a.legal_actions() == b.legal_actions()


def test_the_true_states_of_the_leak_test_do_differ():
    differ = 0
    for seed in range(20):
        state, deck, options, actions = mid_match(seed)
        twin = engine.replay("spacca_il_mazzo", players=state.players, seed=seed, options=options,
                             deck=hidden_variant(deck, state, state.players, random.Random(-seed)),
                             actions=actions)
        differ += state.zones() != twin.zones()
    assert differ >= 15


def test_the_same_view_and_rng_seed_give_the_same_sample_and_other_seeds_vary():
    state, _, _, _ = mid_match(7)
    view = state.view(state.current_player() if not state.is_over() else 0)
    first = GAME.determinize(view, random.Random(3)).zones()
    assert GAME.determinize(copy.deepcopy(view), random.Random(3)).zones() == first
    assert GAME.determinize(view, random.Random(3)).zones() == first
    others = {repr(GAME.determinize(view, random.Random(k)).zones()) for k in range(10)}
    assert len(others) > 1


def test_a_spectators_view_cannot_be_determinized():
    state = GAME.new_match(3, seed=1)
    with pytest.raises(ValueError):
        GAME.determinize(state.view(None), random.Random(0))
