"""Stoppa (Cinquantacinque): the conformance scenarios ST-T1 … ST-T34 of shared/rules/stoppa.md,
driven through the public contract (stacked deck + actions) only.

Unless a test says otherwise: 4 players, dealer P4 (seat 3), so P1 … P4 are seats 0 … 3 and
play in that order; a = 5, b = 1, cip = 1, M = 20, f = 1; the pot after the ante is 24.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction

from .cardwalk import card_codes

STOPPA = engine.game("stoppa")

RANKS = "A234567JNK"
SUITS = "DCSB"
FULL_DECK = [r + s for s in SUITS for r in RANKS]
CARD_SET = frozenset(FULL_DECK)
# Primiera points, from the rules (1.1), independent of the module under test.
POINTS = {"7": 21, "6": 18, "A": 16, "5": 15, "4": 14, "3": 13, "2": 12, "J": 10, "N": 10, "K": 10}
ROUNDS = {3: (3, 3, 3, 1), "3B": (3, 3, 3, 3, 1), 4: (3, 3, 3, 1), 5: (3, 3, 2), 6: (3, 3)}

PASS = {"type": "pass"}
SEE = {"type": "see"}
CONCEDE = {"type": "concede"}


def OPEN(x):
    return {"type": "open", "amount": x}


def RAISE(y):
    return {"type": "raise", "amount": y}


def SHOW(*cards):
    return {"type": "show", "cards": list(cards)}


def LAY(*cards):
    return {"type": "lay", "cards": list(cards)}


# --------------------------------------------------------------------------- helpers


def stacked(hands, players=4, rounds=None, cards=None, dealer=None):
    """A stacked deck that deals seat i the cards ``hands[i]`` (round by round, in the order
    given); seats missing from ``hands`` or given fewer cards are filled with the cards left,
    in deck order. Packets go to the seats after the dealer first (rules README §5)."""
    rounds = rounds or ROUNDS[players]
    cards = list(cards or (FULL_DECK if players != 6 else [c for c in FULL_DECK if c[0] != "K"]))
    dealer = players - 1 if dealer is None else dealer
    size = sum(rounds)
    given = {s: list(h) for s, h in enumerate(hands) if h} if isinstance(hands, list) else dict(hands)
    used = [c for h in given.values() for c in h]
    assert len(used) == len(set(used)), "a card is given twice"
    rest = [c for c in cards if c not in used]
    full = {}
    for seat in range(players):
        h = given.get(seat, [])
        need = size - len(h)
        full[seat] = h + rest[:need]
        rest = rest[need:]
    assert not rest
    deck = []
    pos = {s: 0 for s in range(players)}
    order = [(dealer + 1 + i) % players for i in range(players)]
    for k in rounds:
        for seat in order:
            deck.extend(full[seat][pos[seat] : pos[seat] + k])
            pos[seat] += k
    return deck


def new(hands=(), players=4, options=None, **kw):
    options = dict(options or {})
    rounds = kw.pop("rounds", None)
    cards = kw.pop("cards", None)
    deck = stacked(list(hands), players, rounds, cards, options.get("dealer"))
    return STOPPA.new_match(players=players, seed=kw.pop("seed", 1), options=options, deck=deck)


def play(state, *actions):
    for a in actions:
        state.apply(a)
    return state


def pass_round(state):
    """Every seat passes: nobody bets in this round."""
    for _ in range(state.players):
        state.apply(PASS)
    return state


def to_final(state):
    rounds = state.view(None)["rounds"]
    for _ in range(rounds):
        pass_round(state)
    return state


def to_stoppa(state):
    return pass_round(to_final(state))


def events(state, kind, hand=None):
    out = []
    h = 0
    for e in state.log:
        if e["type"] == "hand":
            h = e["hand"]
        if e["type"] == kind and (hand is None or h == hand):
            out.append(e)
    return out


def senza(state, seat=None):
    """The stoppa's passes ("Senza q"), of one seat or of all."""
    return [e for e in events(state, "pass") if "announce" in e and seat in (None, e["seat"])]


def last_event(state, kind):
    return events(state, kind)[-1]


def lay_line(state, seat, steps):
    """Lay ``steps`` for ``seat``, one turn of it. A step the engine laid by itself (the seat's
    only legal step) is checked in the log instead of applied."""
    pos = len(state.log)
    while pos > 0:  # back to the start of this turn: the previous seat's pass
        e = state.log[pos - 1]
        if e["type"] == "stoppa" or (e["type"] == "pass" and e["seat"] != seat):
            break
        pos -= 1
    for step in steps:
        step = sorted(step) if isinstance(step, list) else [step]
        for i in range(pos, len(state.log)):
            e = state.log[i]
            if e["type"] in ("lay", "pass", "close"):
                break
        else:
            i = None
        if i is not None and state.log[i]["type"] == "lay":
            e = state.log[i]
            assert e["seat"] == seat and sorted(e["cards"]) == step, (e, step)
            pos = i + 1
            continue
        assert i is None, f"expected {step} by seat {seat}, the log shows {state.log[i]}"
        assert state.current_player() == seat
        start = len(state.log)
        state.apply(LAY(*step))
        pos = next(j for j in range(start, len(state.log)) if state.log[j]["type"] == "lay") + 1
    return state


def laid_since(state, start, seat=None):
    return [
        (e["seat"], e["cards"])
        for e in state.log[start:]
        if e["type"] == "lay" and seat in (None, e["seat"])
    ]


def point(cards):
    return sum(POINTS[c[0]] for c in cards)


def show_points(state):
    """{point: [declarations]} of the shows the seat to act may make."""
    out = {}
    for a in state.legal_actions():
        if a["type"] == "show":
            out.setdefault(point(a["cards"]), []).append(a["cards"])
    return out


def showdown_in_round_1(round_cards, actions, players=4, **kw):
    """A match whose first deal gives seat i ``round_cards[i]``, then ``actions`` in BET(1)."""
    return play(new(round_cards, players=players, **kw), *actions)


# --------------------------------------------------------------------------- points (1.6)


def test_two_suits_give_declarations_of_31_16_15_and_12():  # ST-T1
    state = showdown_in_round_1([["2D", "AB", "5B"]], [OPEN(1), PASS, PASS, SEE])
    state.apply(state.legal_actions()[0])  # P4 shows first (last SEE), then P1 chooses
    assert state.current_player() == 0
    assert show_points(state) == {31: [["AB", "5B"]], 16: [["AB"]], 15: [["5B"]], 12: [["2D"]]}
    assert CONCEDE in state.legal_actions()


def test_six_and_ace_of_spade_make_34_beating_coppe_alone():  # ST-T2
    state = showdown_in_round_1([["7C", "6S", "AS"]], [OPEN(1), PASS, PASS, SEE])
    state.apply(state.legal_actions()[0])
    assert sorted(show_points(state)) == [16, 18, 21, 34]
    assert max(show_points(state)) == 34
    assert show_points(state)[34] == [["AS", "6S"]]


def test_cinquantacinque_and_every_lower_declaration():  # ST-T3
    state = showdown_in_round_1([["7D", "6D", "AD"]], [OPEN(1), RAISE(2), PASS, PASS, SEE])
    assert state.current_player() == 0  # P1 made the last SEE: he shows first
    assert sorted(show_points(state), reverse=True) == [55, 39, 37, 34, 21, 18, 16]
    assert CONCEDE not in state.legal_actions()


def test_declaring_37_shows_exactly_the_seven_and_the_ace():  # ST-T3
    state = showdown_in_round_1([["7D", "6D", "AD"]], [OPEN(1), RAISE(2), PASS, PASS, SEE])
    state.apply(SHOW("7D", "AD"))
    shown = last_event(state, "show")
    assert shown["cards"] == ["AD", "7D"] and shown["point"] == 37
    for seat in (None, 1, 2, 3):
        assert "6D" not in card_codes(state.view(seat), CARD_SET)


def test_three_figures_of_different_suits_make_10():  # ST-T4
    state = showdown_in_round_1([["JD", "NC", "KS"]], [OPEN(1), PASS, PASS, SEE])
    state.apply(state.legal_actions()[0])
    assert show_points(state) == {10: [["JD"], ["NC"], ["KS"]]}


def test_a_partial_show_leaves_the_other_card_hidden():  # ST-T5
    state = showdown_in_round_1([["4D", "AC", "7C"]], [OPEN(1), RAISE(2), PASS, PASS, SEE])
    assert max(show_points(state)) == 37
    state.apply(SHOW("AC", "7C"))
    assert state.view(None)["shown"][0] == ["AC", "7C"]
    for seat in (None, 1, 2, 3):
        assert "4D" not in card_codes(state.view(seat), CARD_SET)


def _final_showdown(hand):
    state = to_final(new([hand]))
    play(state, OPEN(1), PASS, PASS, SEE)
    state.apply(state.legal_actions()[0])  # P4 shows his best
    assert state.current_player() == 0
    return state


def best_per_suit(state):
    best = {}
    for p, decls in show_points(state).items():
        for d in decls:
            best[d[0][1]] = max(best.get(d[0][1], 0), p)
    return best


def test_final_point_counts_only_three_cards_of_a_suit():  # ST-T6
    state = _final_showdown(["7D", "6D", "5D", "AD", "KC", "NC", "JS", "2B", "3B", "4S"])
    assert show_points(state)[55] == [["AD", "6D", "7D"]]
    assert all(len(d) <= 3 for ds in show_points(state).values() for d in ds)
    assert best_per_suit(state) == {"D": 55, "C": 20, "S": 24, "B": 25}


def test_final_point_of_four_low_spade():  # ST-T7
    state = _final_showdown(["5S", "4S", "3S", "2S", "JD", "ND", "KD", "JC", "NC", "KB"])
    assert max(show_points(state)) == 42
    assert best_per_suit(state) == {"S": 42, "D": 30, "C": 20, "B": 10}


def test_a_single_card_round_is_worth_its_card():  # ST-T8
    state = new([["AD", "2D", "3D", "AC", "2C", "3C", "AS", "2S", "3S", "6B"]])
    for _ in range(3):
        pass_round(state)
    assert state.view(0)["round_cards"] == ["6B"]
    play(state, OPEN(1), PASS, PASS, SEE)  # P4 has one declaration: the engine shows it
    assert last_event(state, "show")["seat"] == 3 and last_event(state, "show")["forced"]
    assert state.legal_actions() == [SHOW("6B"), CONCEDE]
    state.apply(SHOW("6B"))
    assert last_event(state, "show")["point"] == 18


def test_a_two_card_round_with_five_players_counts_one_seven():  # ST-T8
    state = new([["AD", "2D", "3D", "AC", "2C", "3C", "7S", "7C"]], players=5)
    pass_round(pass_round(state))
    assert state.view(0)["round_cards"] == ["7C", "7S"]
    play(state, OPEN(1), PASS, PASS, PASS, SEE)
    state.apply(state.legal_actions()[0])
    assert max(show_points(state)) == 21


# --------------------------------------------------------------------------- betting (1.5)


def test_an_uncontested_bet_takes_the_side_prize():  # ST-T9
    state = play(new(), OPEN(3), PASS, PASS, PASS)
    prize = last_event(state, "prize")
    assert prize["how"] == "uncontested" and prize["seat"] == 0
    assert prize["received"] == 4 and prize["nets"] == [1, 0, 0, 0] and prize["pot"] == 23
    assert state.scores() == [-5, -6, -6, -6]
    assert not events(state, "show")


def test_when_nobody_bets_the_dealer_takes_the_side_prize():  # ST-T10
    state = pass_round(pass_round(new()))
    prize = events(state, "prize")[1]
    assert prize["round"] == 2 and prize["how"] == "no_bets"
    assert prize["seat"] == 3 and prize["nets"] == [0, 0, 0, 1] and prize["pot"] == 22


def test_the_dealer_betting_last_wins_unanswered():  # ST-T11
    state = play(new(), PASS, PASS, PASS, OPEN(2))
    prize = last_event(state, "prize")
    assert prize["seat"] == 3 and prize["how"] == "uncontested"
    assert prize["received"] == 3 and prize["nets"] == [0, 0, 0, 1]


def _t12():
    return play(
        new([["2D", "AB", "5B"], [], [], ["7C", "6S", "AS"]]),
        OPEN(2), SEE, PASS, RAISE(5), SEE, PASS,
    )


def test_raise_fold_and_showdown_pay_the_best_declaration():  # ST-T12
    state = _t12()
    assert state.view(None)["showdown"]["order"] == [0, 3]
    assert state.current_player() == 0
    play(state, SHOW("AB", "5B"), SHOW("AS", "6S"))
    assert last_event(state, "showdown")["winner"] == 3
    prize = last_event(state, "prize")
    assert prize["received"] == 13 and prize["nets"] == [-5, -2, 0, 8] and prize["pot"] == 23
    assert state.scores() == [-11, -8, -6, 2]


def test_a_conceding_second_shower_loses_to_the_first():  # ST-T12 variant
    state = play(_t12(), SHOW("AB", "5B"), CONCEDE)
    showdown = last_event(state, "showdown")
    assert showdown["winner"] == 0
    assert showdown["declarations"] == [{"seat": 0, "point": 31}, {"seat": 3, "conceded": True}]
    assert last_event(state, "prize")["nets"] == [8, -2, 0, -5]


def test_see_and_raise_are_illegal_before_a_bet():  # ST-T13
    state = new()
    for action in (SEE, RAISE(3)):
        with pytest.raises(IllegalAction, match="ST-A5"):
            state.apply(action)


def test_a_bet_above_the_maximum_is_illegal():  # ST-T13
    state = new()
    with pytest.raises(IllegalAction, match="ST-A7"):
        state.apply(OPEN(21))
    assert OPEN(20) in state.legal_actions()


def test_a_raise_may_reach_the_maximum_but_not_pass_it():  # ST-T13
    state = play(new(), OPEN(15))
    with pytest.raises(IllegalAction, match="ST-A7"):
        state.apply(RAISE(21))
    with pytest.raises(IllegalAction, match="ST-A7"):
        state.apply(RAISE(15))
    state.apply(RAISE(20))
    assert state.legal_actions() == [PASS, SEE]


def test_a_tie_at_showdown_goes_to_the_seat_nearest_the_dealer():  # ST-T14
    hands = [[], ["2D", "3D", "5D"], ["7S", "6S"], ["2C", "3C", "5C"]]
    state = to_final(new(hands))
    assert state.view(None)["pot"] == 20
    play(state, PASS, OPEN(4), SEE, SEE)
    assert state.view(None)["showdown"]["order"] == [3, 1, 2]
    play(state, SHOW("2C", "3C", "5C"), SHOW("2D", "3D", "5D"), SHOW("6S", "7S"))
    assert last_event(state, "showdown")["winner"] == 1  # seats 1 and 3 both show 40
    prize = last_event(state, "prize")
    assert prize["received"] == 32 and prize["nets"] == [0, 28, -4, -4] and prize["pot"] == 0


def test_an_under_declaration_loses_and_keeps_the_55_hidden():  # ST-T15
    state = new([["7D", "6D", "AD"], [], ["7B", "5B", "2C"]])
    play(state, OPEN(1), PASS, RAISE(2), PASS, SEE)
    play(state, SHOW("6D", "AD"), SHOW("7B", "5B"))
    assert last_event(state, "showdown")["winner"] == 2
    for seat in (None, 1, 2, 3):
        assert "7D" not in card_codes(state.view(seat), CARD_SET)


def test_when_nobody_bets_in_the_final_round_the_dealer_takes_the_pot():  # ST-T16
    state = to_stoppa(new())
    prize = events(state, "prize")[-1]
    assert prize["final"] and prize["seat"] == 3 and prize["received"] == 20
    assert prize["nets"] == [0, 0, 0, 20] and prize["pot"] == 0


# --------------------------------------------------------------------------- special hands (1.7)

T17 = [
    ["JD", "JC", "JS", "JB", "2S", "3S", "4S", "5S", "6S", "7S"],
    ["KD", "KC", "KS", "KB", "2D", "3D", "4D", "5D", "6D", "7D"],
    ["AD", "AC", "AS", "AB", "2C", "3C", "4C", "5C", "6C", "7C"],
    ["ND", "NC", "NS", "NB", "2B", "3B", "4B", "5B", "6B", "7B"],
]


def test_stoppa_di_re_has_priority_and_is_paid_the_whole_hand():  # ST-T17
    state = to_stoppa(new(T17))
    special = last_event(state, "special")
    assert special["seat"] == 1 and special["kind"] == "re"
    assert special["declared"] == [{"seat": 1, "kind": "re"}, {"seat": 2, "kind": "povera"}]
    assert special["payments"] == [-10, 30, -10, -10]
    assert not events(state, "stoppa", hand=1)
    assert events(state, "hand")[1]["dealer"] == 0
    assert state.scores() == [-22, 18, -22, 2]  # two antes, the pot to the dealer, the payment


def test_stoppa_di_assi_alone_annuls_the_stoppa_and_pays_nothing():  # ST-T18
    hands = [
        ["AD", "AC", "AS", "AB", "JD", "2D", "3D", "4D", "5D", "6D"],
        ["7D", "ND", "KD", "2C", "3C", "4C", "5C", "6C", "7C", "JC"],
        ["NC", "KC", "2S", "3S", "4S", "5S", "6S", "7S", "JS", "NS"],
        ["KS", "2B", "3B", "4B", "5B", "6B", "7B", "JB", "NB", "KB"],
    ]
    state = to_stoppa(new(hands))
    special = last_event(state, "special")
    assert special["seat"] == 0 and special["kind"] == "assi"
    assert special["payments"] == [0, 0, 0, 0]
    assert not events(state, "stoppa", hand=1)
    assert events(state, "hand")[1]["dealer"] == 0


def test_two_povera_hands_pay_the_one_nearer_the_dealer():  # ST-T19
    hands = [
        ["7S", "AB", "2B", "3B", "4B", "5B", "JD", "ND", "KD", "JC"],
        ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "AC", "2C", "3C"],
        ["6B", "7B", "NC", "KC", "JS", "NS", "KS", "JB", "NB", "KB"],
        ["4C", "5C", "6C", "7C", "AS", "2S", "3S", "4S", "5S", "6S"],
    ]
    state = to_stoppa(new(hands))
    special = last_event(state, "special")
    assert special["seat"] == 1 and special["kind"] == "povera"
    assert special["payments"] == [-10, 30, -10, -10]


def test_povera_beats_assi():  # ST-T20
    hands = [
        ["AD", "AC", "AS", "AB", "JD", "ND", "KD", "JC", "2D", "3D"],
        ["NC", "KC", "2S", "3S", "4S", "5S", "6S", "7S", "JS", "NS"],
        ["4D", "5D", "6D", "7D", "2C", "3C", "4C", "5C", "6C", "7C"],
        ["KS", "2B", "3B", "4B", "5B", "6B", "7B", "JB", "NB", "KB"],
    ]
    state = to_stoppa(new(hands))
    special = last_event(state, "special")
    assert special["seat"] == 2 and special["kind"] == "povera"
    assert special["payments"] == [-10, -10, 30, -10]


# --------------------------------------------------------------------------- the stoppa (1.8)

T21 = [
    ["4S", "5B", "6B", "7C", "JD", "ND", "KS", "4D", "5C", "2B"],
    ["AD", "2D", "3D", "5D", "6D", "7D", "JC", "NC", "KD", "AC"],
    ["2C", "3C", "4C", "6C", "JS", "NS", "KC", "AS", "2S", "3S"],
    ["5S", "6S", "7S", "AB", "3B", "4B", "7B", "JB", "NB", "KB"],
]


def test_any_card_may_start_the_stoppa():  # ST-T21
    state = to_stoppa(new(T21))
    assert state.current_player() == 0
    hand = sorted(T21[0], key=lambda c: (RANKS.index(c[0]), SUITS.index(c[1])))
    assert state.legal_actions() == [LAY(c) for c in hand]


def test_a_seat_must_go_on_after_a_king_then_passes_senza_sei():  # ST-T21
    state = to_stoppa(new(T21))
    start = len(state.log)
    lay_line(state, 0, ["4S", "5B", "6B", "7C", "JD", "ND", "KS", "4D", "5C"])
    line = ["4S", "5B", "6B", "7C", "JD", "ND", "KS", "4D", "5C"]
    assert [c for _, (c,) in laid_since(state, start, 0)] == line
    passed = senza(state)[0]
    assert passed["seat"] == 0 and passed["announce"] == "Senza sei" and passed["missing"] == 6
    assert state.view(0)["cards"] == ["2B"]
    assert state.current_player() == 1


def test_opening_with_the_two_after_the_king_passes_senza_tre():  # ST-T21
    state = to_stoppa(new(T21))
    lay_line(state, 0, ["4S", "5B", "6B", "7C", "JD", "ND", "KS", "2B"])
    assert senza(state)[0]["announce"] == "Senza tre"
    assert state.view(0)["cards"] == ["4D", "5C"]


T22 = [
    ["7D", "NS", "KS", "AD", "ND", "3C", "4D", "5D", "6D", "6S"],
    ["JB", "NB", "KB", "5B", "AC", "AS", "2B", "3D", "4C", "7S"],
    ["6C", "7C", "JC", "NC", "KC", "JS", "AB", "2D", "2C", "3S"],
]


def _t22():
    state = to_stoppa(new(T22))
    lay_line(state, 0, ["7D"])  # Senza otto
    lay_line(state, 1, ["JB", "NB", "KB", "5B"])  # Senza sei
    lay_line(state, 2, ["6C", "7C", "JC", "NC", "KC", "JS"])  # Senza nove; P4 too
    lay_line(state, 0, ["NS", "KS", "AD"])
    assert last_event(state, "pass") == {
        "type": "pass", "seat": 0, "missing": 2, "announce": "Senza due"
    }
    return state


def test_an_ace_may_follow_another_players_ace():  # ST-T22
    state = _t22()
    assert state.current_player() == 1
    assert state.view(1)["cards"] == ["AC", "AS", "2B", "3D", "4C", "7S"]
    assert state.legal_actions() == [LAY("AC"), LAY("AS"), LAY("2B")]


def test_aces_chain_then_the_run_stops_senza_cinque():  # ST-T22
    state = lay_line(_t22(), 1, ["AC", "AS", "2B", "3D", "4C"])
    assert last_event(state, "pass")["announce"] == "Senza cinque"
    assert state.view(1)["cards"] == ["7S"]


def test_a_seven_may_not_follow_a_seven():  # ST-T23
    hands = [
        ["4S", "5S", "6S", "7S", "ND", "KD", "AD", "2D", "3D", "4D"],
        ["7D", "JB", "NB", "3C", "AC", "2C", "4C", "5C", "6C", "AS"],
    ]
    state = to_stoppa(new(hands))
    start = len(state.log)
    lay_line(state, 0, ["4S", "5S", "6S", "7S"])
    passes = [e for e in state.log[start:] if e["type"] == "pass"]
    assert passes[0] == {"type": "pass", "seat": 0, "missing": 8, "announce": "Senza otto"}
    # P2's only step is JB (7D may not follow the 7): the engine lays it, then NB.
    p2 = [e for e in state.log[start:] if e["type"] == "lay" and e["seat"] == 1]
    assert [(e["cards"], e["forced"]) for e in p2] == [(["JB"], True), (["NB"], True)]
    assert passes[1] == {"type": "pass", "seat": 1, "missing": 10, "announce": "Senza re"}
    assert "7D" in state.view(1)["cards"] and "3C" in state.view(1)["cards"]


def test_laying_a_card_that_does_not_continue_the_run_is_illegal():  # ST-T23
    state = to_stoppa(new(T21))
    state.apply(LAY("4S"))
    with pytest.raises(IllegalAction, match="ST-A23"):
        state.apply(LAY("4D"))
    with pytest.raises(IllegalAction, match="ST-A24"):
        state.apply(LAY("2B"))


T24 = [["KD", "3B", "4B", "5C", "6D", "6C", "6S", "6B", "7D", "JC"]]


def test_four_of_a_kind_may_be_laid_singly_or_as_a_group():  # ST-T24
    state = to_stoppa(new(T24))
    lay_line(state, 0, ["KD", "3B", "4B", "5C"])
    assert state.legal_actions() == [
        LAY("6D"), LAY("6C"), LAY("6S"), LAY("6B"), LAY("6D", "6C", "6S", "6B")
    ]


def test_the_group_run_empties_the_hand_and_closes():  # ST-T24
    state = to_stoppa(new(T24))
    lay_line(state, 0, ["KD", "3B", "4B", "5C", ["6D", "6C", "6S", "6B"], "7D", "JC"])
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 0 and close["chiusa"] is True
    assert close["payments"] == [30, -10, -10, -10]


def test_three_of_four_sixes_cannot_be_grouped():  # ST-T25
    state = to_stoppa(new([["5D", "6D", "6C", "6S", "KD", "JD", "AD", "2D", "3D", "4D"]]))
    state.apply(LAY("5D"))
    assert state.legal_actions() == [LAY("6D"), LAY("6C"), LAY("6S")]
    with pytest.raises(IllegalAction, match="ST-A21"):
        state.apply(LAY("6D", "6C", "6S"))


def test_kings_close_and_reopen_the_run_until_the_hand_is_empty():  # ST-T26
    state = to_stoppa(new([["5B", "6B", "7B", "JD", "NC", "KS", "KB", "KD", "2C", "3S"]]))
    start = len(state.log)
    line = ["5B", "6B", "7B", "JD", "NC", "KS", "KB", "KD", "2C", "3S"]
    lay_line(state, 0, line)
    assert [c for _, (c,) in laid_since(state, start)] == line
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 0 and close["payments"] == [30, -10, -10, -10]


T27 = [  # 5 players, dealer P5
    ["4S", "AD", "2S", "3B", "7D", "JB", "ND", "KS"],
    ["5D", "4C", "5S", "7B", "JS", "NS", "KC", "4B"],
    ["6D", "6C", "6S", "6B", "4D", "JD", "2D", "3D"],
    ["7C", "JC", "NC", "KD", "3S", "AC", "2C", "3C"],
    ["AS", "AB", "2B", "5C", "5B", "7S", "NB", "KB"],
]


def test_an_exhausted_rank_is_skipped():  # ST-T27
    state = to_stoppa(new(T27, players=5))
    lay_line(state, 0, ["4S"])  # Senza cinque
    lay_line(state, 1, ["5D"])  # Senza sei
    lay_line(state, 2, [["6D", "6C", "6S", "6B"]])  # Senza sette
    lay_line(state, 3, ["7C", "JC", "NC", "KD", "3S"])  # Senza quattro; P5 and P1 too
    assert [e["announce"] for e in events(state, "pass")[-6:]] == [
        "Senza cinque", "Senza sei", "Senza sette", "Senza quattro", "Senza quattro", "Senza quattro"
    ]
    assert state.current_player() == 1
    assert state.view(1)["cards"] == ["4C", "4B", "5S", "7B", "JS", "NS", "KC"]
    start = len(state.log)
    lay_line(state, 1, ["4C", "5S", "7B", "JS", "NS", "KC", "4B"])
    assert [c for _, (c,) in laid_since(state, start)] == ["4C", "5S", "7B", "JS", "NS", "KC", "4B"]
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 1 and close["chiusa"] is False
    assert close["left"] == [7, 0, 4, 3, 8]


T28 = [  # found by a seeded search: P3 closes while P1 holds 3 cards, P2 5 and P4 2
    ["AD", "AC", "AB", "3D", "5B", "6B", "JD", "JS", "ND", "KC"],
    ["AS", "2S", "2B", "3S", "3B", "5C", "5S", "7D", "NC", "NS"],
    ["2C", "4D", "4S", "6D", "7S", "7B", "JC", "JB", "NB", "KB"],
    ["2D", "3C", "4C", "4B", "5D", "6C", "6S", "7C", "KD", "KS"],
]
T28_STEPS = ["KC", "JD", "7B", "JB", "KD", "6S", "NS", "3C", "4B", "2B", "3S", "4S", "6D", "2C"]


def test_the_closer_is_paid_a_fee_per_card_left():  # ST-T28
    state = to_stoppa(new(T28))
    play(state, *(LAY(c) for c in T28_STEPS))
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 2 and close["left"] == [3, 5, 0, 2]
    assert close["payments"] == [-3, -5, 10, -2]


T29 = [  # 6 players, no Kings, dealer P6
    ["AD", "2D", "3D", "4D", "5D", "ND"],
    ["6D", "7D", "JD", "AC", "2C", "3C"],
    ["6C", "7C", "JC", "NC", "4C", "5C"],
    ["6S", "7S", "JS", "NS", "AS", "2S"],
    ["6B", "7B", "JB", "5S", "3S", "4S"],
    ["AB", "2B", "3B", "4B", "5B", "NB"],
]


def test_six_players_a_nine_reopens_and_p1_closes_on_his_first_turn():  # ST-T29 line A
    state = to_stoppa(new(T29, players=6))
    assert not events(state, "special")
    lay_line(state, 0, ["ND", "AD", "2D", "3D", "4D", "5D"])
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 0 and close["chiusa"] is True
    assert close["payments"] == [30, -6, -6, -6, -6, -6]


def test_six_players_p3_closes_after_the_nine():  # ST-T29 line B
    state = to_stoppa(new(T29, players=6))
    lay_line(state, 0, ["AD", "2D", "3D", "4D", "5D"])
    assert senza(state, 0)[0]["announce"] == "Senza sei"
    lay_line(state, 1, ["6D", "7D", "JD"])
    assert senza(state, 1)[0]["announce"] == "Senza nove"
    lay_line(state, 2, ["NC", "4C", "5C", "6C", "7C", "JC"])
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 2 and close["left"] == [1, 3, 0, 6, 6, 6]
    assert close["payments"] == [-1, -3, 22, -6, -6, -6]


T30 = [
    ["4D", "6D", "6C", "6S", "6B", "ND"],
    ["AD", "2D", "3D", "5D", "7D", "JD"],
    ["AC", "2C", "3C", "5C", "7C", "NC"],
    ["AS", "2S", "3S", "7S", "JS", "NS"],
    ["AB", "2B", "3B", "7B", "JB", "NB"],
    ["4C", "4S", "4B", "5S", "5B", "JC"],
]


def test_six_players_group_skip_and_close_move_by_move():  # ST-T30
    state = to_stoppa(new(T30, players=6))
    assert not events(state, "special")
    lay_line(state, 0, ["ND", ["6D", "6C", "6S", "6B"]])
    assert state.view(0)["cards"] == ["4D"]
    lay_line(state, 1, ["7D", "JD"])
    assert state.view(1)["cards"] == ["AD", "2D", "3D", "5D"]
    lay_line(state, 2, ["NC", "5C", "7C"])
    assert state.view(2)["cards"] == ["AC", "2C", "3C"]
    lay_line(state, 3, ["JS", "NS", "AS", "2S", "3S"])
    assert state.view(3)["cards"] == ["7S"]
    lay_line(state, 5, ["4C", "5S"])  # P6 keeps 4S, 4B, 5B, JC
    lay_line(state, 3, ["7S"])  # after P1, P2 and P3 pass: P4's last card
    announces = [(e["seat"], e["announce"]) for e in senza(state) if e in events(state, "pass", hand=1)]
    assert announces == [
        (0, "Senza sette"), (1, "Senza nove"), (2, "Senza otto"), (3, "Senza quattro"),
        (4, "Senza quattro"), (5, "Senza sette"), (0, "Senza sette"), (1, "Senza sette"),
        (2, "Senza sette"),
    ]
    close = events(state, "close", hand=1)[0]
    assert close["seat"] == 3 and close["left"] == [1, 4, 3, 0, 6, 4]
    assert close["payments"] == [-1, -4, -3, 18, -6, -4]


# --------------------------------------------------------------------------- variants


def test_three_players_variant_a_groups_three_sixes():  # ST-T31
    cards = [c for c in FULL_DECK if c[1] != "B"]
    hand = ["6D", "6C", "6S", "JD", "AD", "2D", "3D", "4D", "5D", "7D"]
    state = to_stoppa(new([hand], players=3, cards=cards))
    assert LAY("6D", "6C", "6S") in state.legal_actions()


def test_three_players_variant_a_re_is_three_kings():  # ST-T31
    cards = [c for c in FULL_DECK if c[1] != "B"]
    state = to_stoppa(new([[], ["KD", "KC", "KS"]], players=3, cards=cards))
    special = last_event(state, "special")
    assert special["seat"] == 1 and special["kind"] == "re" and special["payments"] == [-10, 20, -10]


def test_three_players_variant_a_assi_is_three_aces():  # ST-T31
    cards = [c for c in FULL_DECK if c[1] != "B"]
    hands = [
        ["AD", "AC", "AS", "JD", "2D", "3D", "4D", "5D", "6D", "7D"],
        ["ND", "KD", "2C", "3C", "4C", "5C", "6C", "7C", "JC", "NC"],
        ["KC", "2S", "3S", "4S", "5S", "6S", "7S", "JS", "NS", "KS"],
    ]
    state = to_stoppa(new(hands, players=3, cards=cards))
    special = last_event(state, "special")
    assert special["seat"] == 0 and special["kind"] == "assi" and special["payments"] == [0, 0, 0]


def test_three_players_variant_b_deals_thirteen_and_pays_thirteen():  # ST-T32
    cards = [c for c in FULL_DECK if c != "KB"]
    povera = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "AC", "2C", "3C", "4C", "5C", "6C"]
    state = new([povera], players=3, cards=cards, rounds=ROUNDS["3B"], options={"three_player_variant": "B"})
    assert state.view(None)["pot"] == 18
    deals = [e for e in state.view(1)["events"] if e["type"] == "deal"]
    assert [len(e["cards"]) if e["seat"] == 1 else e["count"] for e in deals] == [3, 3, 3]
    to_final(state)
    assert state.view(0)["counts"] == [13, 13, 13]
    assert state.view(None)["betting"]["prize"] == 13
    pass_round(state)
    special = last_event(state, "special")
    assert special["kind"] == "povera" and special["payments"] == [26, -13, -13]


def test_three_players_variant_b_re_is_the_three_kings_left():  # ST-T32
    cards = [c for c in FULL_DECK if c != "KB"]
    state = to_stoppa(
        new([[], [], ["KD", "KC", "KS"]], players=3, cards=cards, rounds=ROUNDS["3B"],
            options={"three_player_variant": "B"})
    )
    special = last_event(state, "special")
    assert special["seat"] == 2 and special["kind"] == "re"


def test_five_players_deal_eight_cards_and_leave_27_for_the_final():  # ST-T33
    povera = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "AC"]
    state = new([povera], players=5)
    assert state.view(None)["pot"] == 30
    assert OPEN(25) in state.legal_actions() and OPEN(26) not in state.legal_actions()
    to_final(state)
    assert state.view(0)["counts"] == [8] * 5
    assert state.view(None)["betting"]["prize"] == 27
    pass_round(state)
    special = last_event(state, "special")
    assert special["kind"] == "povera" and special["payments"] == [32, -8, -8, -8, -8]


def test_the_first_hand_deals_next():  # ST-T34
    state = to_stoppa(new(T17))  # a special hand ends hand 1 at once
    second = events(state, "hand")[1]
    assert second["dealer"] == 0 and second["order"] == [1, 2, 3, 0]
    assert state.current_player() == 1
