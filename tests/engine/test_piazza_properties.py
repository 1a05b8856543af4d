"""Piazza over thousands of seeded random matches, for 2 to 8 players and every deck: every
match ends, every figure is accounted for, chips sum to zero, replays are exact, views never
show a card their seat may not know, and illegal actions change nothing."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine import IllegalAction
from engine.piazza import VARIANTS

from .cardwalk import card_codes

GAME = engine.game("piazza")
DECKS = ("italian", "french", "french_double")
FIGURE_POINTS = {"J": 2, "N": 3, "Q": 3, "K": 4}


def figure_points(figure: str, deck: str) -> int:
    if deck != "italian" and figure in ("JR", "JB"):
        return 5
    return FIGURE_POINTS[figure[:-1]]


def random_options(rng: random.Random, players: int, deck: str) -> dict:
    return {
        "deck": deck,
        "rivolta_scope": rng.choice(["per_player", "per_table"]),
        "table_max": rng.choice([1, 2, 5, 20]),
        "replacement_limit": rng.choice([1, 3, 10]),
        "dealer": rng.randrange(players),
    }


def new_random(seed: int, players: int, deck: str) -> tuple[engine.State, random.Random]:
    rng = random.Random(f"{seed}/{players}/{deck}")
    state = GAME.new_match(players=players, seed=seed, options=random_options(rng, players, deck))
    return state, rng


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("players", range(2, 9))
def test_random_matches_end_with_every_figure_and_chip_accounted_for(players, deck):
    total = sum(figure_points(f, deck) for f in VARIANTS[deck].figures)
    matches = 40 if deck != "french_double" else 20
    for seed in range(matches):
        state, rng = new_random(seed, players, deck)
        steps = 0
        while not state.is_over():
            legal = state.legal_actions()
            assert len(legal) >= 2  # a single choice is never asked
            state.apply(rng.choice(legal))
            steps += 1
            assert steps < 20_000
        assert state.legal_actions() == [] and state.current_player() is None
        wins = [e for e in state.log if e["type"] == "win"]
        aside = [e["figure"] for e in state.log if e["type"] == "set_aside"]
        figures = [e["card"] for e in state.log if e["type"] == "figure"]
        assert len(figures) == len(VARIANTS[deck].figures)
        assert Counter(figures) == Counter(VARIANTS[deck].figures)
        assert sorted([e["figure"] for e in wins] + aside) == sorted(figures)
        assert sum(e["points"] for e in wins) + sum(figure_points(f, deck) for f in aside) == total
        # scores: figure points minus 3 per suit shown (PZ-A14); chips apart (PZ-A21)
        points = [0] * players
        for e in wins:
            points[e["seat"]] += e["points"]
        shows = Counter(e["seat"] for e in state.log if e["type"] == "offer" and "show" in e)
        assert state.scores() == [points[s] - 3 * shows[s] for s in range(players)]
        chips = state.view(None)["chips"]
        assert sum(chips) == 0
        # numerals are conserved across hands, stock and discard pile
        held = [c for s in range(players) for c in state.view(s)["hand"]]
        assert len(held) + state.view(None)["stock"] + state.view(None)["discards"] == len(VARIANTS[deck].numerals)
        if seed % 4 == 0:
            again = engine.load(state.to_json())
            assert again.log == state.log and again.scores() == state.scores()
            assert again.view(0) == state.view(0)


def public_cards(log: list, start: int) -> Counter:
    """Numerals the rules make public during the turn: shown offers, gifts, takes, reveals."""
    shown: Counter = Counter()
    for e in log[start:]:
        kind = e["type"]
        if kind == "offer" and "show" in e:
            shown[e["show"]] += 1
        elif kind == "give":
            shown[e["card"]] += 1
        elif kind == "take":
            shown.update(e["cards"])
        elif kind == "reveal":
            for t in e["take_sets"]:
                shown.update(t["cards"])
    return shown


def turn_start(log: list) -> int:
    for i in range(len(log) - 1, -1, -1):
        if log[i]["type"] == "turn" and log[i]["turn"] > 1:
            return i
    return 0


@pytest.mark.parametrize("deck", DECKS)
def test_views_never_show_a_card_their_seat_may_not_know(deck):
    v = VARIANTS[deck]
    numerals = frozenset(v.numerals)
    all_codes = frozenset(v.numerals) | frozenset(v.figures)
    for players in range(2, 9):
        for seed in range(3 if deck != "french_double" else 2):
            state, rng = new_random(1000 + seed, players, deck)
            seen = [set(state.hands[s]) for s in range(players)]
            turn = state.turn_no
            while not state.is_over():
                for s in range(players):
                    seen[s].update(state.hands[s])
                state.apply(rng.choice(state.legal_actions()))
                if state.turn_no != turn:
                    turn = state.turn_no
                    seen = [set() for _ in range(players)]
                for s in range(players):
                    seen[s].update(state.hands[s])
                check_views(state, seen, numerals, all_codes)


def check_views(state, seen, numerals, all_codes):
    players = state.players
    start = turn_start(state.log)
    public = set(public_cards(state.log, start))
    hidden_zones = [c for s in range(players) for c in state.hands[s]] + state.stock + state.discards
    unrevealed = set(state.figures[state.next_figure :]) - set(state.figures[: state.next_figure])
    secret = state.phase == 11  # choosing take-sets in a conflict
    for seat in [None, *range(players)]:
        view = state.view(seat)
        shown = card_codes(view, all_codes)
        assert not shown & unrevealed, f"seat {seat} sees a figure still in the deck"
        own = set(state.hands[seat]) if seat is not None else set()
        known = own | public | (seen[seat] if seat is not None else set())
        forbidden = {c for c in hidden_zones if c in numerals} - known
        assert not shown & forbidden, f"seat {seat} sees {sorted(shown & forbidden)}"
        if seat is not None:
            assert sorted(view["hand"]) == sorted(state.hands[seat])
            assert ("legal_actions" in view) == (seat == state.current_player())
        if secret:
            for e in view["events"]:
                if e["type"] == "secret" and e["seat"] != seat:
                    assert "cards" not in e, f"seat {seat} sees seat {e['seat']}'s secret take-set"


def illegal_candidates(state, rng):
    hand = list(state.hands[state.current_player()])
    other = [c for c in state.variant.numerals if c not in hand][:3]
    amounts = [0, 1, state.table_max, state.table_max + 1, state.level, state.level + 1]
    out = [
        {"type": "pass"},
        {"type": "prendo"},
        {"type": "rivolta"},
        {"type": "offer"},
        {"type": "decline"},
        {"type": "join"},
        {"type": "stay_out"},
        {"type": "call"},
        {"type": "hold"},
        {"type": "withdraw"},
        {"type": "request", "rank": rng.choice(["A", "7", "8", "10", "K", 5])},
        {"type": "offer", "show": rng.choice(hand + other)},
        {"type": "choose", "seat": rng.randrange(-1, state.players + 1)},
        {"type": "give", "card": rng.choice(hand + other)},
        {"type": "discard", "cards": rng.sample(hand, min(len(hand), rng.randint(0, 3)))},
        {"type": "discard", "cards": [rng.choice(other)]},
        {"type": "reveal", "cards": rng.sample(hand, min(len(hand), rng.randint(1, 3)))},
        {"type": "reveal", "cards": hand + hand[:1]},
        {"type": "stake", "amount": rng.choice(amounts)},
        {"type": "raise", "amount": rng.choice(amounts)},
        {"type": "join_raise", "amount": rng.choice(amounts)},
        {"type": "stake"},
        {"type": "bluff"},
    ]
    return out


@pytest.mark.parametrize("deck", DECKS)
def test_illegal_actions_raise_and_leave_the_state_unchanged(deck):
    for seed in range(30):
        state, rng = new_random(2000 + seed, 2 + seed % 7, deck)
        while not state.is_over():
            legal = state.legal_actions()
            if rng.random() < 0.2:
                saved, log_len, view = state.to_json(), len(state.log), state.view(state.current_player())
                for action in illegal_candidates(state, rng):
                    if action in legal or (
                        isinstance(action.get("cards"), list)
                        and any(sorted(action["cards"]) == sorted(a.get("cards", [None]))
                                for a in legal if a["type"] == action["type"])
                    ):
                        continue
                    with pytest.raises(IllegalAction, match=r"\(|dict|not allowed"):
                        state.apply(action)
                    assert state.legal_actions() == legal
                assert state.to_json() == saved and len(state.log) == log_len
                assert state.view(state.current_player()) == view
            state.apply(rng.choice(legal))


@pytest.mark.parametrize("deck", DECKS)
def test_clones_are_independent(deck):
    for seed in range(20):
        state, rng = new_random(3000 + seed, 2 + seed % 7, deck)
        for _ in range(rng.randrange(200)):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        saved, log, views = state.to_json(), list(state.log), [state.view(s) for s in range(state.players)]
        copy = state.clone()
        while not copy.is_over():
            copy.apply(rng.choice(copy.legal_actions()))
        assert state.to_json() == saved and state.log == log
        assert [state.view(s) for s in range(state.players)] == views
        assert engine.load(copy.to_json()).log == copy.log
