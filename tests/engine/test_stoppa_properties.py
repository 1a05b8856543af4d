"""Stoppa: options, decks, match length, information and properties over seeded random matches
for every player count and variant (shared/rules/stoppa.md)."""

from __future__ import annotations

import random

import pytest

import engine
from engine import IllegalAction, InvalidOptions

from .cardwalk import card_codes

STOPPA = engine.game("stoppa")
FULL_DECK = [r + s for s in "DCSB" for r in "A234567JNK"]
CARD_SET = frozenset(FULL_DECK)

CONFIGS = [
    pytest.param(3, {}, id="3A"),
    pytest.param(3, {"three_player_variant": "B"}, id="3B"),
    pytest.param(3, {"three_player_variant": "A", "removed_suit": "D"}, id="3A-no-denari"),
    pytest.param(3, {"three_player_variant": "B", "removed_king": "KD"}, id="3B-no-KD"),
    pytest.param(4, {}, id="4"),
    pytest.param(5, {}, id="5"),
    pytest.param(6, {}, id="6"),
    pytest.param(4, {"ante": 2, "side_ante": 2, "cip": 2, "max_bet": 7, "card_fee": 3}, id="4-money"),
]


def known_cards(state):
    """The cards each seat may know in the current hand, from the true log: every card shown at
    a showdown, shown for a special hand or laid in the stoppa (``public``), and, per seat,
    the cards dealt to it."""
    log = state.log
    start = len(log) - 1
    while log[start]["type"] != "hand":
        start -= 1
    public = set()
    own = [set() for _ in range(state.players)]
    for e in log[start:]:
        kind = e["type"]
        if kind == "deal":
            own[e["seat"]].update(e["cards"])
        elif kind in ("show", "lay"):
            public.update(e["cards"])
        elif kind == "special":
            for s in e["shown"]:
                public.update(s["cards"])
    return public, own


def random_match(players, options, seed, check=None, max_steps=20_000):
    state = STOPPA.new_match(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        if check:
            check(state, rng)
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
        assert steps < max_steps, "the match does not end"
    return state


def hand_spans(state):
    starts = [i for i, e in enumerate(state.log) if e["type"] == "hand"] + [len(state.log)]
    return [state.log[a:b] for a, b in zip(starts, starts[1:])]


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("players,options", CONFIGS)
def test_random_matches_end_conserve_chips_and_replay(players, options):
    resolved = STOPPA.resolve_options(players, options)
    stake = resolved["ante"] + resolved["side_ante"]
    for seed in range(250):
        state = random_match(players, options, seed)
        scores = state.scores()
        assert sum(scores) == 0
        hands = hand_spans(state)
        assert len(hands) == players  # one rotation
        for h, log in enumerate(hands):
            assert log[0]["dealer"] == (players - 1 + h) % players
            prizes = [e for e in log if e["type"] == "prize"]
            # antes = prizes paid + what is left in the pot (nothing, at the end of a hand)
            assert sum(e["prize"] for e in prizes) == players * stake
            assert prizes[-1]["final"] and prizes[-1]["pot"] == 0
            assert sum(sum(e["nets"]) - e["prize"] for e in prizes) == 0
            ends = [e for e in log if e["type"] in ("special", "close")]
            assert len(ends) <= 1
            if ends:
                assert sum(ends[0]["payments"]) == 0
        assert state.view(None)["pot"] == 0
        if seed % 5:
            continue
        again = engine.load(state.to_json())
        assert again.log == state.log and again.scores() == scores
        assert again.to_json() == state.to_json()


def _check_step(state, rng):
    view = state.view(None)
    pot = view["pot"] + sum(view.get("betting", {}).get("commitments", ()))
    assert sum(view["scores"]) + pot == 0  # every chip is a seat's, the pot's or committed
    public, own = known_cards(state)
    start = max(i for i, e in enumerate(state.log) if e["type"] == "hand")
    for seat in range(state.players):
        seen = state.view(seat)
        leaked = card_codes(seen, CARD_SET) - public - own[seat]
        assert not leaked, f"seat {seat} sees {leaked}"
        # the view's fast event filter agrees with the core's visibility records
        assert seen["events"] == state._events_for(seat, start)
    leaked = card_codes(view, CARD_SET) - public
    assert not leaked, f"a spectator sees {leaked}"


@pytest.mark.parametrize("players,options", CONFIGS[:2] + CONFIGS[4:7])
def test_no_view_shows_a_card_its_seat_may_not_know(players, options):
    for seed in range(8):
        random_match(players, options, 1000 + seed, check=_check_step)


ILLEGAL = [
    {"type": "pass"}, {"type": "see"}, {"type": "open", "amount": 1}, {"type": "open", "amount": 0},
    {"type": "open", "amount": 99}, {"type": "raise", "amount": 1}, {"type": "raise", "amount": 99},
    {"type": "concede"}, {"type": "show", "cards": ["7D"]}, {"type": "show", "cards": []},
    {"type": "show", "cards": ["AD", "2D", "3D", "4D"]}, {"type": "lay", "cards": ["KB"]},
    {"type": "lay", "cards": ["AD", "AC"]}, {"type": "lay", "cards": ["XX"]},
    {"type": "lay", "cards": "AD"}, {"type": "shuffle"}, {"nothing": 1}, "pass", None,
]


def _check_illegal(state, rng):
    if rng.random() > 0.2:
        return
    before = (state.to_json(), list(state.log), state.legal_actions(), state.current_player())
    legal = state.legal_actions()
    cards = state.view(state.current_player())["cards"]
    candidates = ILLEGAL + [{"type": "lay", "cards": [c]} for c in cards] + [
        {"type": "show", "cards": [c]} for c in cards
    ]
    for action in candidates:
        if action in legal:
            continue
        with pytest.raises(IllegalAction) as err:
            state.apply(action)
        assert str(err.value)
        after = (state.to_json(), list(state.log), state.legal_actions(), state.current_player())
        assert after == before


@pytest.mark.parametrize("players,options", [CONFIGS[0], CONFIGS[1], CONFIGS[4], CONFIGS[6]])
def test_anything_not_legal_raises_and_leaves_the_state_unchanged(players, options):
    for seed in range(4):
        random_match(players, options, 2000 + seed, check=_check_illegal)


def test_rule_messages_name_the_rule():
    state = STOPPA.new_match(players=4, seed=3)
    with pytest.raises(IllegalAction, match=r"\(ST-A5\)"):
        state.apply({"type": "see"})
    state.apply({"type": "open", "amount": 20})
    with pytest.raises(IllegalAction, match=r"\(ST-A7\)"):
        state.apply({"type": "raise", "amount": 21})


def test_a_clone_is_independent_of_its_original():
    rng = random.Random(5)
    state = STOPPA.new_match(players=5, seed=5)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    before = (state.to_json(), list(state.log), state.view(0), state.scores())
    copy = state.clone()
    while not copy.is_over():
        copy.apply(rng.choice(copy.legal_actions()))
    assert (state.to_json(), list(state.log), state.view(0), state.scores()) == before
    replayed = engine.load(state.to_json())
    while not state.is_over():
        action = rng.choice(state.legal_actions())
        state.apply(action)
        replayed.apply(action)
    assert replayed.log == state.log


def test_same_seed_deals_the_same_cards_whatever_is_played():  # EC-1
    a = random_match(4, {}, 77)
    b = STOPPA.new_match(players=4, seed=77)
    while not b.is_over():
        b.apply(b.legal_actions()[0])
    deals = lambda s: [e["cards"] for e in s.log if e["type"] == "deal"]  # noqa: E731
    assert deals(a)[:16] == deals(b)[:16]
    hands_a = [d for d in deals(a)]
    hands_b = [d for d in deals(b)]
    assert hands_a == hands_b


# --------------------------------------------------------------------------- options and decks


def test_defaults_follow_the_rules():
    opts = STOPPA.default_options(4)
    assert opts["hands"] == 4 and opts["dealer"] == 3
    assert opts["three_player_variant"] == "A" and opts["removed_suit"] == "B"
    assert opts["removed_king"] == "KB"
    assert (opts["ante"], opts["side_ante"], opts["cip"], opts["card_fee"]) == (5, 1, 1, 1)
    assert STOPPA.resolve_options(4, {})["max_bet"] == 20  # N·a
    assert STOPPA.resolve_options(5, {"ante": 3})["max_bet"] == 15
    assert (STOPPA.name, STOPPA.title, STOPPA.min_players, STOPPA.max_players) == (
        "stoppa", "Stoppa (Cinquantacinque)", 3, 6
    )


@pytest.mark.parametrize(
    "players,options,message",
    [
        (2, {}, "3 to 6 players"),
        (7, {}, "3 to 6 players"),
        ("4", {}, "players must be an integer"),
        (4, {"colour": 1}, "unknown option"),
        (3, {"three_player_variant": "C"}, "three_player_variant"),
        (3, {"removed_suit": "X"}, "removed_suit"),
        (3, {"removed_king": "KX"}, "removed_king"),
        (4, {"hands": 0}, "hands"),
        (4, {"dealer": 4}, "dealer"),
        (4, {"max_bet": 0}, "max_bet"),
        (4, {"cip": 0}, "cip"),
        (4, {"cip": 5, "max_bet": 4}, "max_bet"),
        (4, {"ante": 0, "side_ante": 0, "max_bet": 5}, "side prizes"),
        (4, {"ante": -1}, "ante"),
        (4, {"card_fee": "1"}, "card_fee"),
    ],
)
def test_bad_players_or_options_are_refused(players, options, message):
    with pytest.raises(InvalidOptions, match=message):
        STOPPA.new_match(players=players, seed=1, options=options)


@pytest.mark.parametrize(
    "players,options,deck,message",
    [
        (6, {}, FULL_DECK[:36], "not in this deck"),  # 6 players: no Kings
        (4, {}, FULL_DECK[:39], "must hold 40 cards"),
        (4, {}, FULL_DECK[:39] + ["AD"], "duplicate"),
        (4, {}, FULL_DECK[:39] + ["ZZ"], "not in this deck"),
        (3, {"three_player_variant": "B"}, FULL_DECK, "not in this deck"),
        (3, {}, [c for c in FULL_DECK if c[1] != "D"], "not in this deck"),  # bastoni is out
        (4, {"hands": 1}, [FULL_DECK, FULL_DECK], "2 stacked decks"),
        (4, {}, "AD 2D", "list of card codes"),
    ],
)
def test_bad_decks_are_refused(players, options, deck, message):
    with pytest.raises(InvalidOptions, match=message):
        STOPPA.new_match(players=players, seed=1, options=options, deck=deck)


def test_a_list_of_decks_stacks_the_first_hands_in_turn():  # EC-1
    first = FULL_DECK[::-1]
    second = FULL_DECK
    state = STOPPA.new_match(players=4, seed=9, deck=[first, second])
    while sum(e["type"] == "hand" for e in state.log) < 3 and not state.is_over():
        state.apply(state.legal_actions()[0])
    deals = [e for e in state.log if e["type"] == "deal"]
    assert deals[0]["seat"] == 0 and set(deals[0]["cards"]) == set(first[:3])
    second_hand = [e for e in deals if e["round"] == 1][4]
    assert second_hand["seat"] == 1 and set(second_hand["cards"]) == {"AD", "2D", "3D"}


def test_the_match_lasts_the_hands_asked_for_and_the_dealer_rotates():  # ST-A27, ST-T34
    state = random_match(5, {"hands": 7, "dealer": 2}, 4)
    dealers = [e["dealer"] for e in state.log if e["type"] == "hand"]
    assert dealers == [2, 3, 4, 0, 1, 2, 3]
    assert state.log[-1]["type"] == "match_over"


def test_the_first_seat_after_the_dealer_acts_first():  # 1.3, EC-0
    state = STOPPA.new_match(players=4, seed=1, options={"dealer": 1})
    assert state.current_player() == 2
    assert state.view(None)["order"] == [2, 3, 0, 1]


def test_scores_count_the_ante_from_the_start_of_the_hand():  # EC-2
    state = STOPPA.new_match(players=4, seed=1)
    assert state.scores() == [-6, -6, -6, -6]
    assert state.view(None)["pot"] == 24


# --------------------------------------------------------------------------- views


def test_a_view_shows_own_cards_counts_and_legal_actions_only_to_the_seat_to_act():
    state = STOPPA.new_match(players=4, seed=11)
    mine = state.view(0)
    assert len(mine["cards"]) == 3 and mine["counts"] == [3, 3, 3, 3]
    assert mine["legal_actions"] == state.legal_actions()
    other = state.view(1)
    assert "legal_actions" not in other
    assert not set(mine["cards"]) & card_codes(other, CARD_SET)
    spectator = state.view(None)
    assert "cards" not in spectator and not card_codes(spectator, CARD_SET)
    with pytest.raises(ValueError):
        state.view(4)


def test_a_view_holds_only_the_current_hand_events():
    state = STOPPA.new_match(players=4, seed=12)
    while sum(e["type"] == "hand" for e in state.log) < 2:
        state.apply(state.legal_actions()[0])
    events = state.view(0)["events"]
    assert events[0]["type"] == "hand" and events[0]["hand"] == 2
