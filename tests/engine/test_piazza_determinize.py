"""Piazza: ``determinize`` samples a playable state from what one seat may know.

Over many seeded random mid-match states (every deck, 2 to 6 players), for every seat: the
sample shows that seat exactly its view and gives it the same legal actions; two different
true states with the same view give the same sample for the same rng (so nothing but the view
is used); the sample holds every numeral once, respects what the current step implies about
the others' hands, and plays to the end.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

import engine
from engine.piazza import RANK, VARIANTS, take_sets

from .determinize_checks import play_out

GAME = engine.game("piazza")


def mid_match(seed: int, steps: int | None = None):
    """A seeded random state somewhere in a match, with its stacked deck and actions."""
    rng = random.Random(seed)
    players = rng.choice((2, 3, 4, 5, 6))
    options = {
        "deck": ("italian", "italian", "french", "french_double")[seed % 4],
        "rivolta_scope": ("per_player", "per_table")[seed % 2],
        "table_max": (20, 3)[seed % 3 == 0],
    }
    v = VARIANTS[options["deck"]]
    figures, numerals = list(v.figures), list(v.numerals)
    rng.shuffle(figures)
    rng.shuffle(numerals)
    deck = {"figures": figures, "numerals": numerals}
    state = GAME.new_match(players, seed=seed, options=options, deck=deck)
    actions = []
    for _ in range(rng.randrange(0, 250) if steps is None else steps):
        if state.is_over():
            break
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply(action)
        actions.append(action)
    return state, deck, options, actions


@pytest.mark.parametrize("seed", range(50))
def test_the_sample_shows_the_seat_exactly_its_view_and_plays_to_the_end(seed):
    state, _, _, _ = mid_match(seed)
    for seat in range(state.players):
        view = state.view(seat)
        sample = GAME.determinize(view, random.Random(seed * 10 + seat))
        assert sample.view(seat) == view
        if state.current_player() == seat:
            assert sample.legal_actions() == state.legal_actions()
        play_out(sample, random.Random(seed))


@pytest.mark.parametrize("seed", range(40))
def test_the_sample_holds_every_numeral_once_and_the_unseen_figures(seed):
    state, _, options, _ = mid_match(seed)
    v = VARIANTS[options["deck"]]
    for seat in range(state.players):
        sample = GAME.determinize(state.view(seat), random.Random(seed))
        cards = Counter(sample.stock + sample.discards)
        for hand in sample.hands:
            cards.update(hand)
        assert cards == Counter(v.numerals)
        assert Counter(sample.figures) == Counter(v.figures)
        assert Counter(sample.figures[sample.next_figure :]) == Counter(state.figures[state.next_figure :])


def test_what_the_current_step_implies_about_the_others_holds_in_the_sample():
    """An offerer holds the rank asked for; a caller and the joiners hold a take-set."""
    checked = Counter()
    for seed in range(400):
        state, _, _, _ = mid_match(seed)
        if state.is_over():
            continue
        seat = state.current_player()
        view = state.view(seat)
        sample = GAME.determinize(view, random.Random(seed))
        if view["phase"] == "choose":
            for k in view["request"]["offers"]:
                assert any(RANK[c] == view["request"]["rank"] for c in sample.hands[k])
            checked["choose"] += 1
        if view["phase"] in ("join", "response", "reveal"):
            bet = view["betting"]
            for p in bet["participants"]:
                if p not in bet["withdrawn"]:
                    assert take_sets(sample.hands[p], view["modulus"])
            checked[view["phase"]] += 1
    assert checked["choose"] >= 3 and checked["join"] + checked["response"] >= 10


def test_a_traded_card_stays_in_the_requesters_sampled_hand():
    checked = 0
    for seed in range(600):
        state, _, _, _ = mid_match(seed)
        if state.is_over():
            continue
        seat = state.current_player()
        view = state.view(seat)
        events = view["events"]
        # A traded card the receiver still holds: he has not given it on nor thrown anything.
        gives = [
            e for i, e in enumerate(events)
            if e["type"] == "give" and e["to"] != seat
            and not any(f["type"] == "give" and f["seat"] == e["to"] for f in events[i:])
        ]
        if not gives or any(e["type"] in ("take", "reveal", "replace") for e in events):
            continue
        sample = GAME.determinize(view, random.Random(seed))
        for e in gives:
            assert e["card"] in sample.hands[e["to"]]
        checked += 1
    assert checked >= 5


def hidden_variant(deck: dict, state) -> dict:
    """The same deal with what nobody has seen reordered: the figures not yet revealed and,
    before the first reshuffle, the numerals not yet drawn."""
    other = copy.deepcopy(deck)
    rng = random.Random(repr(deck)[:50])
    nf = state.next_figure
    tail = other["figures"][nf:]
    rng.shuffle(tail)
    other["figures"][nf:] = tail
    if state.reshuffles == 0:
        drawn = len(other["numerals"]) - len(state.stock)
        tail = other["numerals"][drawn:]
        rng.shuffle(tail)
        other["numerals"][drawn:] = tail
    return other


@pytest.mark.parametrize("seed", range(50))
def test_two_true_states_with_the_same_view_give_the_same_sample(seed):
    state, deck, options, actions = mid_match(seed)
    twin = engine.replay("piazza", players=state.players, seed=seed, options=options,
                         deck=hidden_variant(deck, state), actions=actions)
    for seat in range(state.players):
        view, twin_view = state.view(seat), twin.view(seat)
        assert view == twin_view
        a = GAME.determinize(view, random.Random(seed))
        b = GAME.determinize(twin_view, random.Random(seed))
        assert (a.hands, a.stock, a.discards, a.figures, a.seed) == (b.hands, b.stock, b.discards, b.figures, b.seed)
        assert [a.view(s) for s in range(state.players)] == [b.view(s) for s in range(state.players)]


def test_the_true_states_of_the_leak_test_do_differ():
    differ = 0
    for seed in range(20):
        state, deck, options, actions = mid_match(seed)
        twin = engine.replay("piazza", players=state.players, seed=seed, options=options,
                             deck=hidden_variant(deck, state), actions=actions)
        differ += (state.stock, state.figures) != (twin.stock, twin.figures)
    assert differ >= 15


def test_the_same_view_and_rng_seed_give_the_same_sample_and_other_seeds_vary():
    state, _, _, _ = mid_match(11, steps=40)
    view = state.view(state.current_player())
    a = GAME.determinize(view, random.Random(3))
    b = GAME.determinize(copy.deepcopy(view), random.Random(3))
    assert (a.hands, a.stock, a.figures) == (b.hands, b.stock, b.figures)
    samples = {repr(GAME.determinize(view, random.Random(k)).hands) for k in range(10)}
    assert len(samples) > 1


def test_a_spectators_view_cannot_be_determinized():
    state = GAME.new_match(3, seed=1)
    with pytest.raises(ValueError):
        GAME.determinize(state.view(None), random.Random(0))
