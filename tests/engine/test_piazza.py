"""Piazza through the public contract: the conformance scenarios PZ-T1 … PZ-T30 of
shared/rules/piazza.md, options, stacked decks and illegal actions.

Unless a test says otherwise: 3 players A, B, C (seats 0, 1, 2), dealer C, so A leads turn 1
(priority order A, B, C) and B leads turn 2. Stacked numerals are dealt one to each seat in
that order, then drawn top first; cards are written as in shared/rules (``5D``, ``NS``).
"""

from __future__ import annotations

import random

import pytest

import engine
from engine import IllegalAction, InvalidOptions

GAME = engine.game("piazza")
A, B, C = 0, 1, 2

PASS = {"type": "pass"}
PRENDO = {"type": "prendo"}
RIVOLTA = {"type": "rivolta"}
OFFER = {"type": "offer"}
DECLINE = {"type": "decline"}
JOIN = {"type": "join"}
STAY_OUT = {"type": "stay_out"}
CALL = {"type": "call"}
HOLD = {"type": "hold"}
WITHDRAW = {"type": "withdraw"}


def stake(amount):
    return {"type": "stake", "amount": amount}


def raise_to(amount):
    return {"type": "raise", "amount": amount}


def join_raise(amount):
    return {"type": "join_raise", "amount": amount}


def request(rank):
    return {"type": "request", "rank": rank}


def choose(seat):
    return {"type": "choose", "seat": seat}


def reveal(*cards):
    return {"type": "reveal", "cards": list(cards)}


def discard(*cards):
    return {"type": "discard", "cards": list(cards)}


# --------------------------------------------------------------------------- helpers


def new(figures, numerals, players=3, dealer=None, seed=11, **options):
    options["dealer"] = players - 1 if dealer is None else dealer
    deck = {"figures": figures, "numerals": numerals}
    return GAME.new_match(players=players, seed=seed, options=options, deck=deck)


def rounds(*hands):
    """Numerals for hands reached by dealing one card each, then no-take rounds, each seat in
    priority order (the seats of ``hands`` in that order)."""
    out = []
    for i in range(max(len(h) for h in hands)):
        out.extend(h[i] for h in hands if i < len(h))
    return out


def phase(state):
    return state.view(None)["phase"]


def hand(state, seat):
    return sorted(state.view(seat)["hand"])


def act(state, seat, action):
    assert state.current_player() == seat, (
        f"expected seat {seat} to act, got {state.current_player()} in {phase(state)}"
    )
    state.apply(action)


def through_windows(state):
    """Pass in every rivolta and commercio window until the claim poll (or later)."""
    while phase(state) in ("rivolta", "commercio"):
        state.apply(PASS)


def deal_to(state, *hands):
    """Pass everywhere (no takes: extra cards are dealt) until the seats hold ``hands``."""
    for _ in range(60):
        if all(hand(state, s) == sorted(h) for s, h in enumerate(hands)):
            through_windows(state)
            return
        assert phase(state) in ("rivolta", "commercio", "claim"), phase(state)
        state.apply(PASS)
    raise AssertionError(f"hands never reached: {[hand(state, s) for s in range(state.players)]}")


def events(state, kind, start=0):
    return [e for e in state.log[start:] if e["type"] == kind]


def last(state, kind):
    return events(state, kind)[-1]


def sets(take_sets):
    return sorted(sorted(ts) for ts in take_sets)


def conflict(figure, a, b, c, a_set=None, b_set=None, figure_deck=None, **options):
    """A and B in a conflict at the stake 1 (C stays out if asked); returns the state after
    the reveal. ``a_set``/``b_set`` are revealed when the seat has a choice."""
    state = new([figure] + (figure_deck or []), rounds(a, b, c), **options)
    deal_to(state, a, b, c)
    act(state, A, PRENDO)
    act(state, A, stake(1))
    act(state, B, JOIN)
    if state.current_player() == C and phase(state) == "join":
        act(state, C, STAY_OUT)
    act(state, A, HOLD)
    act(state, B, HOLD)
    for seat, chosen in ((A, a_set), (B, b_set)):
        if state.current_player() == seat and phase(state) == "reveal":
            act(state, seat, reveal(*chosen))
    return state


# --------------------------------------------------------------------------- take-sets


def test_a_sum_of_cards_makes_a_player_eligible_and_the_ineligible_are_skipped():  # PZ-T1
    state = new(["NS"], ["2B", "5D", "4C", "AS", "AD", "7B"])
    for seat in (A, B, C):
        act(state, seat, PASS)  # rivolta window
    act(state, A, request("4"))  # A gets 4C from C, so A {2B, 4C}; B keeps {5D}
    act(state, C, OFFER)  # the only offer: the choice and the gift are forced
    act(state, B, PASS)  # commercio; C now holds 3 cards and is not asked
    assert hand(state, A) == ["2B", "4C"] and hand(state, B) == ["5D"]
    assert phase(state) == "claim"
    assert state.view(A)["take_sets"] == [["4C", "2B"]]  # 6; neither card alone
    assert state.legal_actions() == [PRENDO, PASS]
    start = len(state.log)
    act(state, A, PASS)
    assert state.current_player() == C  # B, holding only 5D, is skipped
    assert events(state, "pass", start) == [{"type": "pass", "seat": A}]


def test_when_nobody_can_take_everyone_draws_in_priority_order():  # PZ-T2
    state = new(["KC"], ["5S", "7D", "6B", "2D", "2S", "3C"])
    for seat in (A, B, C, A, B, C):
        act(state, seat, PASS)  # the rivolta window, then the commercio window
    figure = next(i for i, e in enumerate(state.log) if e["type"] == "figure")
    after = state.log[figure + 1 :]
    kinds = [e["type"] for e in after]
    assert "prendo" not in kinds
    no_take = kinds.index("no_take")
    assert after[no_take]["draw"] == [A, B, C]
    assert [(e["seat"], e["card"]) for e in after[no_take + 1 : no_take + 4]] == [(A, "2D"), (B, "2S"), (C, "3C")]
    assert state.view(None)["hand_sizes"] == [2, 2, 2]
    assert phase(state) == "commercio" and state.current_player() == A  # then a new claim poll


def test_three_cards_each_and_no_take_starts_a_replacement_round():  # PZ-T3
    a, b, c = ["AS", "AC", "AB"], ["3D", "3S", "7C"], ["5D", "5S", "5C"]
    state = new(["KC"], rounds(a, b, c) + ["6D"])
    deal_to(state, a, b, c)
    assert phase(state) == "replacement" and state.current_player() == A
    assert last(state, "replacement")["round"] == 1
    assert state.legal_actions() == [discard("AC"), discard("AS"), discard("AB"), PASS]
    act(state, A, discard("AS"))
    assert hand(state, A) == ["6D", "AB", "AC"]
    assert state.current_player() == B and state.legal_actions()[-1] == PASS


# --------------------------------------------------------------------------- conflicts (3.5)


def test_the_figure_suit_decides_first():  # PZ-T4
    state = conflict("KC", ["AC", "3C"], ["6C", "2B"], ["5S", "5D"])
    shown = last(state, "reveal")
    assert [t["cards"] for t in shown["take_sets"]] == [["AC", "3C"], ["6C", "2B"]]
    assert shown["winner"] == B
    assert state.scores() == [0, 4, 0]


def test_the_higher_multiple_decides_when_the_suit_ties():  # PZ-T5
    state = conflict("KC", ["6S", "2D"], ["4D", "5S"], ["7S", "3S"])
    shown = last(state, "reveal")
    assert [t["cards"] for t in shown["take_sets"]] == [["2D", "6S"], ["4D"]]
    assert shown["winner"] == A


def test_the_figure_suit_beats_a_higher_multiple():  # PZ-T6
    state = conflict("KC", ["6S", "2D"], ["4C", "5S"], ["7S", "3S"])
    assert last(state, "reveal")["take_sets"][1]["cards"] == ["4C"]
    assert last(state, "reveal")["winner"] == B


def test_denari_decide_when_suit_and_multiple_tie():  # PZ-T7
    state = conflict("KC", ["AD", "7B"], ["AB", "7D"], ["5S", "2S"])
    assert last(state, "reveal")["winner"] == B


def test_level_three_goes_on_to_spade():  # PZ-T8
    state = conflict("JB", ["5S", "3C"], ["5C", "3S"], ["7D", "AD"])
    shown = last(state, "reveal")
    assert [t["cards"] for t in shown["take_sets"]] == [["3C", "5S"], ["5C", "3S"]]
    assert shown["winner"] == A


def test_a_full_tie_goes_to_the_earlier_in_claim_order():  # PZ-T9
    state = conflict("KB", ["4D", "5C"], ["AD", "3D"], ["5S", "6S"])
    shown = last(state, "reveal")
    assert [t["cards"] for t in shown["take_sets"]] == [["4D"], ["AD", "3D"]]
    assert shown["take_sets"][0]["key"] == shown["take_sets"][1]["key"]
    assert shown["winner"] == A  # the caller


# --------------------------------------------------------------------------- eligibility


def hand_under(figure, a_cards):
    """A holds ``a_cards`` under ``figure``; B and C hold as many filler cards."""
    k = len(a_cards)
    b, c = ["2C", "4S", "6B"][:k], ["4D", "6D", "2S"][:k]
    state = new([figure], rounds(a_cards, b, c))
    deal_to(state, a_cards, b, c)
    return state


def test_take_sets_under_a_fante_are_the_even_sums():  # PZ-T10
    state = hand_under("JD", ["AS", "3B", "5D"])
    assert sets(state.view(A)["take_sets"]) == sets([["AS", "3B"], ["AS", "5D"], ["3B", "5D"]])


def test_take_sets_of_the_same_hand_under_a_re():  # PZ-T11
    state = hand_under("KD", ["AS", "3B", "5D"])
    assert sets(state.view(A)["take_sets"]) == sets([["AS", "3B"], ["3B", "5D"]])


def test_take_sets_under_a_cavallo():  # PZ-T12
    state = hand_under("NS", ["AS", "5D", "7C"])
    assert sets(state.view(A)["take_sets"]) == sets([["AS", "5D"], ["5D", "7C"]])


@pytest.mark.parametrize("figure, eligible", [("KD", False), ("JD", True), ("ND", True)])
def test_eligibility_depends_on_the_figure(figure, eligible):  # PZ-T13
    state = hand_under(figure, ["AS", "5D"])
    assert state.view(A)["take_sets"] == ([["5D", "AS"]] if eligible else [])


@pytest.mark.parametrize(
    "chosen, winner",
    [(["4D"], B), (["3D", "AS"], B), (["3D", "4D", "AS"], A)],
)
def test_the_best_take_set_is_the_players_choice(chosen, winner):  # PZ-T14
    state = conflict("KD", ["4D", "3D", "AS"], ["7D", "AB", "5B"], ["AC", "5C", "5S"], chosen, ["7D", "AB"])
    shown = last(state, "reveal")
    assert sorted(shown["take_sets"][0]["cards"]) == sorted(chosen)
    assert shown["winner"] == winner


def test_a_take_set_is_needed_to_claim_or_join():  # PZ-T29
    state = new(["KC"], ["4D", "5D", "4S"])
    through_windows(state)
    act(state, A, PASS)
    assert state.current_player() == C  # B {5D} is not asked to claim
    act(state, C, PRENDO)
    act(state, C, stake(1))
    assert state.current_player() == A and phase(state) == "join"  # B is not asked to join
    act(state, A, STAY_OUT)
    assert last(state, "no_bets")["seat"] == C


# --------------------------------------------------------------------------- hand sizes, rivolta


def three_way_turn(b_joins):
    """KS: A {AS, 2S, 5S} can only take with all 3; B {3C, 5C, 6B} with 2; C picks {4D} of
    {4D, 5D, 7B}. A wins with 8 of spade."""
    a, b, c = ["AS", "2S", "5S"], ["3C", "5C", "6B"], ["4D", "5D", "7B"]
    state = new(["KS", "JD", "KB"], rounds(a, b, c) + ["6D", "7D", "2D", "3D"])
    deal_to(state, a, b, c)
    act(state, A, PRENDO)
    act(state, A, stake(1))
    act(state, B, JOIN if b_joins else STAY_OUT)
    act(state, C, JOIN)
    for seat in (A, B, C) if b_joins else (A, C):
        act(state, seat, HOLD)
    act(state, C, reveal("4D"))  # A's and B's only take-sets are revealed for them
    assert last(state, "reveal")["winner"] == A
    return state


def test_hand_sizes_in_the_next_turn_follow_the_cards_used():  # PZ-T15
    state = three_way_turn(b_joins=True)
    assert state.view(None)["turn"] == 2
    assert state.view(None)["hand_sizes"] == [1, 1, 2]
    assert hand(state, A) == ["6D"]  # used 3: drew one at T0
    assert hand(state, B) == ["6B"]  # used 2: drew none
    assert hand(state, C) == ["5D", "7B"]  # used 1
    turn = state.log.index({"type": "turn", "turn": 2, "lead": B})
    assert [e for e in state.log[turn:] if e["type"] == "draw"] == [{"type": "draw", "seat": A, "card": "6D"}]


def test_a_rivolta_redeals_the_same_counts_once_per_player():  # PZ-T20
    state = three_way_turn(b_joins=False)
    assert state.view(None)["hand_sizes"] == [1, 3, 2]
    before = sorted(c for s in (A, B, C) for c in hand(state, s))
    act(state, B, PASS)  # turn 2: priority order B, C, A
    act(state, C, PASS)
    act(state, A, RIVOLTA)
    assert state.view(None)["hand_sizes"] == [1, 3, 2]
    assert sorted(c for s in (A, B, C) for c in hand(state, s)) == before
    assert phase(state) == "commercio"  # the figure is revealed: the window is closed
    with pytest.raises(IllegalAction, match=r"PZ-A9"):
        state.apply(RIVOLTA)
    assert state.view(None)["rivolta_available"] == [False, True, True]
    turn = state.view(None)["turn"]
    while state.view(None)["turn"] == turn:  # finish turn 2
        legal = state.legal_actions()
        state.apply(PRENDO if PRENDO in legal else PASS if PASS in legal else legal[0])
    assert phase(state) == "rivolta" and state.current_player() == C  # turn 3: C, A, B
    act(state, C, PASS)
    assert state.current_player() == B  # A is never asked again
    assert state.legal_actions() == [RIVOLTA, PASS]


def test_a_rivolta_may_be_called_before_turn_one():  # PZ-A10
    state = new(["KS"], ["AS", "2S", "5S"])
    act(state, A, RIVOLTA)
    assert state.view(None)["hand_sizes"] == [1, 1, 1]
    assert sorted(c for s in (A, B, C) for c in hand(state, s)) == ["2S", "5S", "AS"]
    assert [e["type"] for e in state.log if e["type"] in ("rivolta", "figure")] == ["rivolta", "figure"]


def test_per_table_scope_allows_one_rivolta_for_the_whole_match():  # PZ-A9 option
    state = new(["KS", "KC"], ["4S", "4D", "4C"], rivolta_scope="per_table")
    act(state, A, RIVOLTA)
    assert state.view(None)["rivolta_available"] == [False, False, False]


# --------------------------------------------------------------------------- commercio


def commercio_turn(b_offer):
    """Turn 1 (dealer B: priority C, A, B) leaves A {5D}, B {2S, 6C}, C {2C}; in turn 2 (lead
    A, figure JS) A asks for a 2, B answers ``b_offer``, C offers and A picks C."""
    state = new(["KB", "JS", "KD"], ["2C", "5D", "2S", "4S", "4D", "6C", "AD", "3D", "7D"], dealer=B)
    deal_to(state, ["5D", "4D"], ["2S", "6C"], ["2C", "4S"])
    act(state, C, PRENDO)
    act(state, C, stake(1))
    act(state, A, JOIN)
    act(state, B, STAY_OUT)
    act(state, C, HOLD)
    act(state, A, HOLD)  # C reveals {4S}, A {4D}: denari decide
    assert last(state, "win") == {"type": "win", "seat": A, "figure": "KB", "points": 4, "pot": 2}
    assert (hand(state, A), hand(state, B), hand(state, C)) == (["5D"], ["2S", "6C"], ["2C"])
    for seat in (A, B, C):
        act(state, seat, PASS)  # rivolta window of turn 2
    assert state.view(None)["figure"] == "JS"
    act(state, A, request("2"))
    act(state, B, b_offer)
    act(state, C, OFFER)
    assert state.legal_actions() == [choose(B), choose(C)]
    act(state, A, choose(C))  # C holds one 2: the gift is forced
    return state


def test_commercio_the_giver_shows_the_card_and_draws_up_to_three():  # PZ-T16
    state = commercio_turn(OFFER)
    assert last(state, "give") == {"type": "give", "seat": C, "to": A, "card": "2C"}
    assert last(state, "give") in state.view(B)["events"]  # shown to everyone
    assert hand(state, A) == ["2C", "5D"]
    assert hand(state, B) == ["2S", "6C"]
    assert hand(state, C) == ["3D", "7D", "AD"]  # gave his only card: drew 3
    assert state.current_player() == B and phase(state) == "commercio"
    act(state, B, PASS)
    assert state.current_player() == A and phase(state) == "claim"
    assert state.view(A)["take_sets"] == [["2C"]]  # {5D, 2C} = 7 is not one
    assert state.view(None)["penalties"] == [0, 0, 0]


def test_showing_the_suit_costs_three_points_even_if_not_chosen():  # PZ-T17
    state = commercio_turn({"type": "offer", "show": "2S"})
    assert {"type": "offer", "seat": B, "show": "2S", "penalty": 3} in state.view(C)["events"]
    assert state.view(None)["penalties"] == [0, 1, 0]
    assert state.scores() == [4, -3, 0]
    assert hand(state, A) == ["2C", "5D"]


def test_a_seat_with_three_cards_may_not_request():  # PZ-T18
    state = commercio_turn(OFFER)  # C now holds 3 cards: the window skips him
    act(state, B, PASS)
    assert not any(e["type"] == "pass" and e["seat"] == C for e in state.log[-2:])
    act(state, A, PASS)  # claim poll: A passes; B (2S/6C) is asked
    assert state.current_player() == B
    state2 = state.clone()
    act(state2, B, PASS)
    assert state2.current_player() == C and len(state2.view(C)["hand"]) == 3
    with pytest.raises(IllegalAction, match=r"PZ-A11"):
        state2.apply(request("5"))


def test_a_second_request_in_the_same_turn_is_refused():  # PZ-T18
    state = new(["KC", "KD"], ["5D", "6S", "2S", "3C", "AD", "AB"])
    for seat in (A, B, C):
        act(state, seat, PASS)  # rivolta window
    act(state, A, request("7"))  # nobody holds a 7: the request is spent all the same
    assert last(state, "no_offer") == {"type": "no_offer", "seat": A, "rank": "7"}
    act(state, B, PASS)
    act(state, C, PASS)
    # nobody is eligible under KC: a no-take round, then the window opens again without A
    assert last(state, "no_take")["draw"] == [A, B, C]
    assert phase(state) == "commercio" and state.current_player() == B
    act(state, B, PASS)
    act(state, C, PASS)
    assert phase(state) == "claim" and state.current_player() == A  # {5D, 3C} = 8
    assert len(state.view(A)["hand"]) == 2
    assert_refused(state, request("5"), r"already made his one request this turn \(PZ-A12\)")


# --------------------------------------------------------------------------- betting


def test_a_raise_called_then_a_conflict_moves_the_pot():  # PZ-T21
    a, b, c = ["AC", "3C"], ["6C", "2B"], ["5S", "5D"]
    state = new(["KC", "KD"], rounds(a, b, c))
    deal_to(state, a, b, c)
    act(state, A, PRENDO)
    act(state, A, stake(2))
    act(state, B, join_raise(4))  # C is ineligible: not asked
    assert state.current_player() == A and state.legal_actions()[0] == CALL
    assert WITHDRAW in state.legal_actions()
    act(state, A, CALL)  # B has raised already: his hold is forced
    assert events(state, "hold")[-1] == {"type": "hold", "seat": B}
    assert last(state, "win") == {"type": "win", "seat": B, "figure": "KC", "points": 4, "pot": 8}
    assert state.view(None)["chips"] == [-4, 4, 0]


def test_the_caller_alone_takes_without_chips():  # PZ-T22
    state = new(["KD", "KC"], ["4D", "4S", "4C", "7D"])
    through_windows(state)
    act(state, A, PRENDO)
    act(state, A, stake(5))
    act(state, B, STAY_OUT)
    act(state, C, STAY_OUT)
    assert last(state, "take") == {"type": "take", "seat": A, "cards": ["4D"]}  # forced: one take-set
    assert last(state, "win")["pot"] == 0
    assert state.view(None)["chips"] == [0, 0, 0]
    assert state.scores() == [4, 0, 0]
    assert (hand(state, A), hand(state, B), hand(state, C)) == (["7D"], ["4S"], ["4C"])


def test_no_other_eligible_player_means_no_bets():  # 3.3 T4
    state = new(["KD", "KC"], ["4D", "5S", "5C", "7D"])
    through_windows(state)
    act(state, A, PRENDO)  # B and C are ineligible: no stake is asked
    assert last(state, "uncontested")["seat"] == A
    assert last(state, "win") == {"type": "win", "seat": A, "figure": "KD", "points": 4, "pot": 0}


def test_a_raise_then_a_withdrawal_leaves_the_pot_to_the_last_in():  # PZ-T23
    state = new(["KD", "KC"], ["4D", "4S", "5C", "7D"])
    through_windows(state)
    act(state, A, PRENDO)
    act(state, A, stake(3))
    act(state, B, JOIN)
    act(state, A, raise_to(5))
    act(state, B, WITHDRAW)
    assert last(state, "withdraw") == {"type": "withdraw", "seat": B, "forfeit": 3}
    assert last(state, "take") == {"type": "take", "seat": A, "cards": ["4D"]}
    assert last(state, "win")["pot"] == 8
    assert state.view(None)["chips"] == [3, -3, 0]
    assert hand(state, B) == ["4S"]


def test_each_player_raises_at_most_once_per_turn():  # PZ-T24
    state = new(["KD", "KC"], ["4D", "4S", "5C", "7D"])
    through_windows(state)
    act(state, A, PRENDO)
    act(state, A, stake(1))
    act(state, B, JOIN)
    act(state, A, raise_to(3))
    act(state, B, raise_to(5))
    assert state.legal_actions() == [CALL, WITHDRAW]
    with pytest.raises(IllegalAction, match=r"one raise per player per turn \(PZ-A3"):
        state.apply(raise_to(7))


def test_a_join_commits_the_raised_level():  # EC-9
    state = new(["KD", "KC"], ["4D", "4S", "4C", "7D"])
    through_windows(state)
    act(state, A, PRENDO)
    act(state, A, stake(2))
    act(state, B, join_raise(6))
    act(state, C, JOIN)
    assert last(state, "join") == {"type": "join", "seat": C, "amount": 6}
    assert state.view(None)["betting"]["commitments"] == [2, 6, 6]
    assert state.current_player() == A and state.legal_actions()[0] == CALL


# --------------------------------------------------------------------------- French variants


def test_a_joker_has_no_suit_so_the_total_decides():  # PZ-T25
    state = conflict("JR", ["2H", "3S"], ["10C", "2D"], ["3C", "4C"], deck="french", b_set=["10C"])
    shown = last(state, "reveal")
    assert [t["cards"] for t in shown["take_sets"]] == [["2H", "3S"], ["10C"]]
    assert shown["winner"] == B
    assert state.scores() == [0, 5, 0]


def test_french_suits_rank_hearts_first():  # PZ-T26
    state = new(["QS", "KS"], ["3H", "3D", "2C"], deck="french")
    through_windows(state)
    act(state, A, PRENDO)
    act(state, A, stake(1))
    act(state, B, JOIN)
    act(state, A, HOLD)
    act(state, B, HOLD)
    assert last(state, "reveal")["winner"] == A
    assert state.scores() == [3, 0, 0]


FIGURE_POINTS = {"J": 2, "N": 3, "Q": 3, "K": 4}


@pytest.mark.parametrize("deck, turns, points", [("italian", 12, 36), ("french", 14, 46), ("french_double", 28, 92)])
def test_match_length_and_total_points_follow_the_deck(deck, turns, points):  # PZ-T27
    rng = random.Random(deck)
    state = GAME.new_match(players=4, seed=5, options={"deck": deck})
    assert state.view(None)["turns"] == turns
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    assert state.view(None)["turn"] == turns
    figures = [e["card"] for e in state.log if e["type"] == "figure"]
    assert len(figures) == turns
    value = {f: 5 if f in ("JR", "JB") and deck != "italian" else FIGURE_POINTS[f[:-1]] for f in figures}
    assert sum(value[f] for f in figures) == points
    won = sum(e["points"] for e in state.log if e["type"] == "win")
    aside = sum(value[e["figure"]] for e in state.log if e["type"] == "set_aside")
    assert won + aside == points
    assert sum(state.scores()) == won - 3 * sum(state.view(None)["penalties"])


# --------------------------------------------------------------------------- a whole turn, a whole match


def test_one_complete_turn():  # PZ-T28
    # Turn 1 (dealer B, priority C, A, B) under KD: C takes with 4S alone. Turn 2 (lead A):
    # B asks for a 2 and A gives his only card, 2B, drawing AC, 3C, 5S; C drew 7D at T0.
    state = new(["KD", "KC", "JD"], ["4S", "2B", "6C", "7D", "AC", "3C", "5S", "2D"], dealer=B)
    for seat in (C, A, B):
        act(state, seat, PASS)
    act(state, C, PASS)  # commercio
    act(state, A, PASS)
    act(state, B, PASS)
    act(state, C, PRENDO)  # uncontested: C discards 4S
    for seat in (A, B, C):
        act(state, seat, PASS)  # rivolta window of turn 2
    act(state, A, PASS)
    act(state, B, request("2"))
    act(state, A, OFFER)
    act(state, C, PASS)
    assert (hand(state, A), hand(state, B), hand(state, C)) == (["3C", "5S", "AC"], ["2B", "6C"], ["7D"])
    assert state.view(None)["figure"] == "KC" and state.view(None)["lead"] == A
    # the scenario proper
    assert sets(state.view(A)["take_sets"]) == [["3C", "5S"], ["3C", "AC"]]
    act(state, A, PRENDO)
    act(state, A, stake(2))
    act(state, B, JOIN)  # C (7D) is not eligible
    act(state, A, HOLD)
    act(state, B, HOLD)
    act(state, A, reveal("AC", "3C"))
    shown = last(state, "reveal")
    assert [t["key"][:2] for t in shown["take_sets"]] == [[4, 4], [6, 8]]
    assert last(state, "win") == {"type": "win", "seat": B, "figure": "KC", "points": 4, "pot": 4}
    assert state.view(None)["chips"] == [-2, 2, 0]
    assert state.scores() == [0, 4, 4]
    assert hand(state, A) == ["5S"]
    assert hand(state, C) == ["7D"]
    assert hand(state, B) == ["2D"]  # used both cards: drew one at the next T0
    assert state.view(None)["turn"] == 3


A_FIGURES = {"KC", "JD", "NS", "KB"}
ALL_FIGURES = ["KC", "JD", "NS", "KB", "JC", "NC", "KD", "ND", "JS", "KS", "JB", "NB"]


def scripted_match(seed):
    """Only A claims KC, JD, NS, KB and only B the others; B once shows his card."""
    state = GAME.new_match(
        players=3, seed=seed, options={"dealer": C}, deck={"figures": ALL_FIGURES, "numerals": ["2D", "5S", "3C"]}
    )
    showed = False
    while not state.is_over():
        view = state.view(None)
        seat, kind, legal = state.current_player(), view["phase"], state.legal_actions()
        owner = A if view["figure"] in A_FIGURES else B
        if kind == "commercio" and seat == A and view["turn"] == 1 and not view["requested"][A]:
            action = request("5")  # B holds 5S
        elif kind == "offer":
            action = {"type": "offer", "show": "5S"} if seat == B and not showed else DECLINE
            showed = showed or seat == B
        elif kind == "claim":
            action = PRENDO if seat == owner else PASS
        elif kind == "replacement":
            action = legal[0] if seat == owner else PASS
        elif kind == "join":
            action = STAY_OUT
        elif PASS in legal:
            action = PASS
        else:
            action = legal[0]
        state.apply(action)
    return state


def test_final_score_is_figure_points_minus_penalties():  # PZ-T19
    state = scripted_match(seed=3)
    assert [e["figure"] for e in events(state, "win") if e["seat"] == A] == ["KC", "JD", "NS", "KB"]
    assert not events(state, "set_aside")
    assert state.view(None)["penalties"] == [0, 1, 0]
    assert state.scores() == [13, 20, 0]
    assert state.places() == [2, 1, 3]
    assert state.ranking() == [B, A, C]
    assert last(state, "match_over")["scores"] == [13, 20, 0]


# --------------------------------------------------------------------------- the discard pile


def test_an_empty_numeral_deck_is_refilled_from_the_discard_pile():  # PZ-T30
    for seed in range(200):
        rng = random.Random(seed)
        state = GAME.new_match(players=3, seed=seed)
        while not state.is_over():
            before = state.view(None)
            start = len(state.log)
            state.apply(rng.choice(state.legal_actions()))
            new_events = state.log[start:]
            kinds = [e["type"] for e in new_events]
            if "reshuffle" not in kinds:
                continue
            i = kinds.index("reshuffle")
            if i == 0 or kinds[i - 1] != "turn":
                continue
            # At T0 of a new turn the deck was empty: the first draw reshuffles the pile.
            assert before["stock"] == 0
            thrown = sum(len(e["cards"]) for e in new_events[:i] if e["type"] == "take")
            thrown += sum(len(t["cards"]) for e in new_events[:i] if e["type"] == "reveal" for t in e["take_sets"])
            assert new_events[i]["cards"] == before["discards"] + thrown
            draw = new_events[i + 1]
            assert draw["type"] == "draw"
            assert state.view(None)["stock"] <= new_events[i]["cards"] - 1
            return
    raise AssertionError("no reshuffle at T0 in 200 random matches")


# --------------------------------------------------------------------------- options and decks


def test_default_options():
    assert GAME.default_options(4) == {
        "deck": "italian",
        "rivolta_scope": "per_player",
        "table_max": 20,
        "replacement_limit": 10,
        "dealer": 3,
    }
    assert (GAME.min_players, GAME.max_players) == (2, 8)


@pytest.mark.parametrize(
    "players, options, message",
    [
        (1, {}, "2 to 8 players"),
        (9, {}, "2 to 8 players"),
        (3, {"deck": "tarot"}, "'deck' must be one of"),
        (3, {"rivolta_scope": "never"}, "'rivolta_scope' must be one of"),
        (3, {"table_max": 0}, "'table_max' must be at least 1"),
        (3, {"dealer": 3}, "'dealer' must be at most 2"),
        (3, {"colour": "red"}, "unknown option"),
    ],
)
def test_bad_players_and_options_are_refused(players, options, message):
    with pytest.raises(InvalidOptions, match=message):
        GAME.new_match(players=players, seed=1, options=options)


@pytest.mark.parametrize(
    "deck, options, message",
    [
        ({"figures": ["KD", "KD"]}, {}, "duplicate"),
        ({"numerals": ["8D"]}, {}, "8D not in this deck"),
        ({"figures": ["5D"]}, {}, "5D not in this deck"),
        ({"figures": ["JR"]}, {}, "JR not in this deck"),
        ({"numerals": ["KH"]}, {"deck": "french"}, "KH not in this deck"),
        ({"numerals": ["5H", "5H", "5H"]}, {"deck": "french_double"}, "duplicate"),
        ({"stock": []}, {}, "unknown deck key"),
        (["KD", "5D"], {}, "dict"),
        ({"numerals": "5D"}, {}, "list of card codes"),
        ([{"figures": ["KD"]}, {"figures": ["KC"]}], {}, "one stacked deck"),
    ],
)
def test_bad_stacked_decks_are_refused(deck, options, message):
    with pytest.raises(InvalidOptions, match=message):
        GAME.new_match(players=3, seed=1, options=options, deck=deck)


def test_a_double_deck_may_stack_both_copies_of_a_card():
    state = GAME.new_match(
        players=2, seed=1, options={"deck": "french_double"}, deck={"figures": ["JR", "JR"], "numerals": ["5H", "5H"]}
    )
    assert hand(state, 0) == ["5H"] and hand(state, 1) == ["5H"]


def test_the_same_seed_deals_the_same_cards_whatever_the_options():  # EC-1
    one = GAME.new_match(players=4, seed=9)
    two = GAME.new_match(players=4, seed=9, options={"table_max": 5, "rivolta_scope": "per_table"})
    assert [one.view(s)["hand"] for s in range(4)] == [two.view(s)["hand"] for s in range(4)]


def test_the_dealer_option_sets_the_first_lead():  # PZ-A1, EC-0
    state = GAME.new_match(players=4, seed=2, options={"dealer": 1})
    assert state.view(None)["lead"] == 2 and state.current_player() == 2
    assert [e["seat"] for e in state.log if e["type"] == "draw"] == [2, 3, 0, 1]


# --------------------------------------------------------------------------- illegal actions


def assert_refused(state, action, rule):
    saved, log, legal = state.to_json(), list(state.log), state.legal_actions()
    with pytest.raises(IllegalAction, match=rule):
        state.apply(action)
    assert state.to_json() == saved and state.log == log and state.legal_actions() == legal


def test_illegal_actions_name_the_rule_and_change_nothing():
    state = new(["KD", "KC"], ["4D", "4S", "5C", "7D"])
    assert_refused(state, PRENDO, r"rivolta step .*\(3\.6, EC-8\)")
    through_windows(state)
    assert_refused(state, stake(3), r"T3b, PZ-A2")
    assert_refused(state, {"type": "dance"}, r"'dance' is not allowed")
    act(state, A, PRENDO)
    assert_refused(state, stake(21), r"from 1 to 20.*PZ-A3")
    act(state, A, stake(3))
    assert_refused(state, join_raise(3), r"above 3 and at most 20.*PZ-A3")
    assert_refused(state, HOLD, r"3\.4, EC-9")
    act(state, B, JOIN)
    assert_refused(state, CALL, r"already matches the level 3.*3\.4")
    act(state, A, raise_to(4))
    assert_refused(state, HOLD, r"below the level 4.*3\.4")
    assert_refused(state, "call", r"an action is an object")


def test_a_take_set_that_is_not_one_is_refused():  # 3.2
    a, b, c = ["AC", "3C", "5S"], ["6C", "2B", "4B"], ["5D", "5C", "5B"]
    state = new(["KC", "KD"], rounds(a, b, c))
    deal_to(state, a, b, c)
    act(state, A, PRENDO)
    act(state, A, stake(1))
    act(state, B, JOIN)
    act(state, A, HOLD)
    act(state, B, HOLD)
    assert state.current_player() == A and phase(state) == "reveal"
    assert_refused(state, reveal("AC", "5S"), r"not a take-set.*multiple of 4 \(3\.2")
    state.apply(reveal("3C", "AC"))  # card lists compare as multisets
    assert events(state, "secret")[-1] == {"type": "secret", "seat": A, "cards": ["AC", "3C"]}
    assert state.current_player() == B and phase(state) == "reveal"
    assert {"type": "secret", "seat": A} in state.view(B)["events"]  # hidden until the reveal
    assert {"type": "secret", "seat": A} in state.view(None)["events"]


def test_the_requester_must_choose_an_offerer():  # PZ-A13
    state = new(["KB", "JS", "KD"], ["2C", "5D", "2S", "4S", "4D", "6C", "AD", "3D", "7D"], dealer=B)
    deal_to(state, ["5D", "4D"], ["2S", "6C"], ["2C", "4S"])
    act(state, C, PRENDO)
    act(state, C, stake(1))
    act(state, A, JOIN)
    act(state, B, STAY_OUT)
    act(state, C, HOLD)
    act(state, A, HOLD)
    for seat in (A, B, C):
        act(state, seat, PASS)
    act(state, A, request("2"))
    act(state, B, OFFER)
    act(state, C, OFFER)
    assert_refused(state, choose(A), r"PZ-A13")
    assert_refused(state, PASS, r"PZ-A13")


def test_views_show_legal_actions_only_to_the_seat_to_act():
    state = new(["KD", "KC"], ["4D", "4S", "5C", "7D"])
    assert state.view(A)["legal_actions"] == [RIVOLTA, PASS]
    assert "legal_actions" not in state.view(B) and "legal_actions" not in state.view(None)
    assert state.view(None)["hand"] is None
    with pytest.raises(ValueError):
        state.view(3)
