"""Shared checks for every game's ``determinize`` (shared/design/engine.md)."""

from __future__ import annotations

import random

import engine


def random_states(game: engine.Game, count: int, seed: int, options_for, max_steps: int):
    """(state, rng) pairs: random matches stopped after a random number of random actions."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        players = rng.randint(game.min_players, min(game.max_players, 6))
        state = game.new_match(players=players, seed=rng.randrange(10**9),
                               options=options_for(players, rng))
        for _ in range(rng.randint(0, max_steps)):
            if state.is_over():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if not state.is_over():
            out.append(state)
    return out


def sample_summary(sample: engine.State) -> tuple:
    """Everything a sample is made of: its stacked deal, its seed and every seat's view."""
    return (sample.deck, sample.seed, [sample.view(s) for s in range(sample.players)])


def play_out(state: engine.State, rng: random.Random) -> None:
    """Random legal actions until the match is over (a state with none to offer fails)."""
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, "a match not over offers no action"
        state.apply(legal[rng.randrange(len(legal))])


def samples_show_each_seat_its_view(game: engine.Game, states) -> None:
    """Every seat's sample (rng seeded by the state's index) shows that seat exactly its view."""
    for k, state in enumerate(states):
        for seat in range(state.players):
            view = state.view(seat)
            assert game.determinize(view, random.Random(k)).view(seat) == view


def swapped_twin(state: engine.State, seat: int, deck: list[str], rng: random.Random):
    """A different true state with the same ``view(seat)``: the same actions replayed on the
    stacked ``deck`` (the first hand's deal of ``state``) with two cards swapped, the first
    one the seat has not seen. None if no tried swap keeps the actions legal and the view."""
    view = state.view(seat)
    game = state.game
    for _ in range(80):
        i, j = rng.sample(range(len(deck)), 2)
        twin_deck = list(deck)
        twin_deck[i], twin_deck[j] = twin_deck[j], twin_deck[i]
        try:
            twin = game.new_match(players=state.players, seed=state.seed,
                                  options=state.options, deck=twin_deck)
            for action in state.actions:
                twin.apply(action)
        except engine.IllegalAction:
            continue
        if twin.view(seat) == view:
            return twin
    return None


def twins_sample_alike(game: engine.Game, deck_for, trials: int, max_steps: int) -> int:
    """Play random stacked matches (``deck_for(players)`` gives the cards), and for each
    mid-match state with a swapped twin (same view, different true cards) assert that
    determinize gives identical samples of both for the same rng. Returns how many states
    were checked, for the caller to require enough of them."""
    rng = random.Random(3)
    checked = 0
    for trial in range(trials):
        players = rng.randint(3, 6)
        deck = list(deck_for(players))
        rng.shuffle(deck)
        state = game.new_match(players=players, seed=trial, options={"hands": 1}, deck=deck)
        for _ in range(rng.randint(0, max_steps)):
            if state.is_over():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if state.is_over():
            continue
        seat = state.current_player()
        twin = swapped_twin(state, seat, deck, rng)
        if twin is None:
            continue
        assert twin.deck != state.deck
        view = state.view(seat)
        for r in range(3):
            assert sample_summary(game.determinize(view, random.Random(r))) == sample_summary(
                game.determinize(twin.view(seat), random.Random(r))
            )
        checked += 1
    return checked
