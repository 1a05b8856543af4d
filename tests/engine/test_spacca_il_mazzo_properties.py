"""Spacca il mazzo: properties over thousands of seeded random matches for 2, 3 and 4 players.

Every match ends; the cards are conserved at every step; no view shows a card its seat may not
know; a saved match replays equal; anything not legal raises IllegalAction and changes nothing;
a clone is independent of its original.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine.cards import FRENCH_DECK, FRENCH_DECK_WITH_JOKERS

from .cardwalk import card_codes

GAME = engine.game("spacca_il_mazzo")
ALL_CARDS = Counter(FRENCH_DECK_WITH_JOKERS) + Counter(FRENCH_DECK)
PLAYERS = (2, 3, 4)


def options_for(seed: int) -> dict:
    """A spread of variants: both hierarchies, several games, short and default turn limits."""
    return {
        "k_below_q": seed % 2 == 0,
        "games": 1 + seed % 3,
        "turn_limit": (60, 300, 1000)[seed % 3],
        "dealer": seed % 2,
    }


def choose(state, rng: random.Random) -> dict:
    """Mostly a sensible shedder (so games end by themselves), sometimes any legal action."""
    legal = state.legal_actions()
    if rng.random() < 0.3:
        return rng.choice(legal)
    shed = [a for a in legal if a["type"] in ("play", "flip", "joker_dump", "joker_throw")]
    if not shed:
        return rng.choice(legal)
    first = shed[0]
    if first["type"] != "play":
        return first
    rank = first["cards"][0][:-1]
    return [a for a in shed if a["type"] == "play" and a["cards"][0][:-1] == rank][-1]


def play_out(players: int, seed: int, step=None, options=None):
    state = GAME.new_match(players=players, seed=seed, options=options or options_for(seed))
    rng = random.Random(seed)
    opts = state.options
    cap = opts["games"] * opts["turn_limit"] * 3  # a turn is at most a choice and a joker choice
    decisions = 0
    while not state.is_over():
        if step is not None:
            step(state, rng)
        state.apply(choose(state, rng))
        decisions += 1
        assert decisions <= cap, "the match did not end"
    if step is not None:
        step(state, rng)
    return state


@pytest.mark.parametrize("players", PLAYERS)
def test_every_match_ends_with_scores_and_replays_equal(players):
    for seed in range(600):
        state = play_out(players, seed)
        scores = state.scores()
        assert state.is_over() and state.legal_actions() == []
        overs = [e for e in state.log if e["type"] == "game_over"]
        assert len(overs) == state.options["games"]
        assert scores == [sum(o["points"][s] for o in overs) for s in range(players)]
        for o in overs:
            assert sorted(o["places"]) == list(range(1, players + 1))
            assert o["points"][o["last"]] == 0
        if seed % 4 == 0:
            again = engine.load(state.to_json())
            assert again.log == state.log and again.scores() == scores
            assert again.view(0) == state.view(0)


@pytest.mark.parametrize("players", PLAYERS)
def test_pure_random_play_ends_through_the_turn_limit(players):  # EC-11
    for seed in range(40):
        state = GAME.new_match(players=players, seed=seed, options={"turn_limit": 120})
        rng = random.Random(seed)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
        over = [e for e in state.log if e["type"] == "game_over"][0]
        assert over["turns"] <= 120


def check_conservation(state, rng):
    zones = state.zones()
    held = Counter()
    for cards in zones["hands"] + zones["up"] + zones["down"]:
        held.update(c for c in cards if c is not None)
    for name in ("main", "second", "pile", "out"):
        held.update(zones[name])
    assert held == ALL_CARDS
    v = state.view(None)
    for seat, entry in enumerate(v["table"]):
        assert entry["hand"] == len(zones["hands"][seat])
        assert entry["down"] == [i for i, c in enumerate(zones["down"][seat]) if c is not None]
    assert (v["main"], v["second"], v["out"]) == (len(zones["main"]), len(zones["second"]), len(zones["out"]))


@pytest.mark.parametrize("players", PLAYERS)
def test_every_card_is_in_exactly_one_zone_at_every_step(players):
    for seed in range(80):
        options = {"games": 1 + seed % 2, "turn_limit": 300, "k_below_q": seed % 3 > 0}
        play_out(players, seed, check_conservation, options)


class LeakChecker:
    """Tracks, from the true zones, which cards became public during the current game (on the
    pile, face-up, out, turned up from face-down, played from a hand, a rejected starting card).
    Forced actions run between two calls, so a card can cross the pile unseen by the tracker:
    a card that left a hand or a face-down slot has been shown."""

    def __init__(self):
        self.game = None
        self.public: set = set()
        self.down: list = []
        self.hands: list = []

    def __call__(self, state, rng):
        zones = state.zones()
        game = state.view(None)["game_no"]
        if game != self.game:
            self.game, self.public, self.down = game, set(), []
            self.hands = [[] for _ in range(state.players)]
            start = max(i for i, e in enumerate(state.log) if e["type"] == "game")
            self.public |= {e["card"] for e in state.log[start:] if e["type"] == "start_rejected"}
        # A face-down card that has left its slot was turned up.
        now = [c for cards in zones["down"] for c in cards if c is not None]
        self.public |= set((Counter(self.down) - Counter(now)).elements())
        self.down = now
        for seat, hand in enumerate(zones["hands"]):
            self.public |= set((Counter(self.hands[seat]) - Counter(hand)).elements())
        self.hands = zones["hands"]
        for cards in zones["up"]:
            self.public.update(cards)
        self.public.update(zones["pile"], zones["out"])
        if state.is_over():  # the last players' cards are shown for the count (4.7)
            for seat in range(state.players):
                self.public.update(zones["hands"][seat] + zones["up"][seat])
                self.public.update(c for c in zones["down"][seat] if c is not None)
        for seat in (None, *range(state.players)):
            secret = set(zones["main"]) | set(zones["second"])
            secret |= {c for cards in zones["down"] for c in cards if c is not None}
            for other in range(state.players):
                if other != seat:
                    secret.update(zones["hands"][other])
            known = set(self.public)
            if seat is not None:
                known.update(zones["hands"][seat])
            leaked = card_codes(state.view(seat), frozenset(ALL_CARDS)) & (secret - known)
            assert not leaked, f"view({seat}) shows {sorted(leaked)}"


@pytest.mark.parametrize("players", PLAYERS)
def test_no_view_shows_a_card_its_seat_may_not_know(players):
    for seed in range(25):
        options = {"games": 1 + seed % 2, "turn_limit": 100, "k_below_q": seed % 3 > 0}
        play_out(players, seed, LeakChecker(), options)


def candidate_actions(state) -> list:
    codes = sorted(ALL_CARDS)
    acts = [{"type": t} for t in ("draw", "pickup", "joker_dump", "joker_decline", "pass")]
    acts += [{"type": "flip", "slot": i} for i in range(4)]
    acts += [{"type": "joker_throw", "slot": i} for i in range(3)]
    acts += [{"type": "joker_throw", "card": c} for c in codes]
    acts += [{"type": "play", "cards": [c]} for c in codes]
    acts += [{"type": "play", "cards": [a, b]} for a in codes[:20:3] for b in codes[1:20:4]]
    return acts


def check_illegal_and_clone(state, rng):
    if state.is_over() or rng.random() > 0.2:
        return
    legal = state.legal_actions()
    before = (state.to_json(), list(state.log), legal, state.view(state.current_player()))
    canonical = [dict(a, cards=sorted(a["cards"])) if "cards" in a else a for a in legal]
    for action in rng.sample(candidate_actions(state), 12):
        if (dict(action, cards=sorted(action["cards"])) if "cards" in action else action) in canonical:
            continue
        with pytest.raises(engine.IllegalAction) as info:
            state.apply(action)
        assert "(" in str(info.value)  # the message names a rule
    assert (state.to_json(), list(state.log), state.legal_actions(), state.view(state.current_player())) == before
    copy = state.clone()
    copy.apply(rng.choice(legal))
    while not copy.is_over() and rng.random() < 0.8:
        copy.apply(rng.choice(copy.legal_actions()))
    assert (state.to_json(), list(state.log), state.legal_actions(), state.view(state.current_player())) == before
    check_conservation(state, rng)


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_actions_change_nothing_and_clones_are_independent(players):
    for seed in range(25):
        play_out(players, seed, check_illegal_and_clone)
