"""Sette e mezzo through the public contract: the conformance scenarios SM-T1 … SM-T24
of shared/rules/sette_e_mezzo.md, the information rules and the options.

Unless a test says otherwise the table is the rules' own: players P1, P2, P3 at seats 0, 1, 2
and the banker B at seat 3 (the default dealer, N-1), so the turn order is P1, P2, P3, B.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction, InvalidOptions

GAME = engine.game("sette_e_mezzo")
P1, P2, P3, B = 0, 1, 2, 3

STAND = {"type": "stand"}
HIT = {"type": "hit"}
KEEP = {"type": "hit", "mode": "keep"}
EXPOSE = {"type": "hit", "mode": "expose"}


def stake(amount: int) -> dict:
    return {"type": "stake", "amount": amount}


def hand(deck, stakes, moves=(), players=4, hands=1, **options):
    """One stacked hand: the deck's top cards go one to each seat in turn order (banker
    last), then to every HIT; ``stakes`` are the players' stakes in turn order."""
    state = GAME.new_match(players=players, seed=1, options={"hands": hands, **options}, deck=deck)
    for amount in stakes:
        state.apply(stake(amount))
    for move in moves:
        state.apply(move)
    return state


def events(state, kind):
    return [e for e in state.log if e["type"] == kind]


def settlement(state):
    (settle,) = events(state, "settle")
    return settle


def settled_hand(state, seat):
    return next(h for h in settlement(state)["hands"] if h["seat"] == seat)


# --------------------------------------------------------------------------- values


def test_card_values_and_two_figures_are_a_plain_one():  # SM-T1
    # P1 JD stands; P2 AS + 6C; P3 3B + 4S + JB; B JC + NS.
    deck = ["JD", "AS", "3B", "JC", "6C", "4S", "JB", "NS"]
    state = hand(deck, [1, 1, 1], [STAND, KEEP, STAND, KEEP, HIT, KEEP, STAND])
    assert settled_hand(state, P1)["value"] == 1  # ½ in half points
    assert settled_hand(state, P2)["value"] == 14  # 7
    assert settled_hand(state, P3) == {"seat": P3, "cards": ["3B", "4S", "JB"], "value": 15, "class": "plain"}
    assert settled_hand(state, B)["value"] == 2  # {JC, NS} = 1, not an emblée
    assert settled_hand(state, B)["class"] == "plain"


def test_matta_takes_the_value_that_helps_most():  # SM-T12
    assert engine.sette_e_mezzo.hand_value(["KD", "6C"]) == 14  # matta 1
    assert engine.sette_e_mezzo.hand_value(["KD", "5C", "AS"]) == 14  # matta 1, not ½
    assert engine.sette_e_mezzo.hand_value(["KD", "5C", "2S"]) == 15  # matta ½
    assert engine.sette_e_mezzo.hand_value(["KD"]) == 14  # matta 7
    # Through the contract: P1 KD + 5C + 2S is a plain 7½, P2 KD-less 6C stands.
    deck = ["KD", "6C", "AB", "4B", "5C", "2S"]
    state = hand(deck, [1, 1, 1], [KEEP, HIT, STAND, STAND, STAND])
    assert settled_hand(state, P1)["class"] == "plain"
    assert settled_hand(state, P1)["value"] == 15


def test_three_card_seven_and_a_half_with_the_matta_is_plain_and_paid_once():  # SM-T11
    deck = ["KD", "AS", "AB", "6B", "4S", "JC"]
    state = hand(deck, [2, 1, 1], [KEEP, HIT, STAND, STAND, STAND])
    assert settled_hand(state, P1)["cards"] == ["KD", "4S", "JC"]
    assert settled_hand(state, P1)["class"] == "plain"
    assert settlement(state)["payments"][P1] == 2  # 1 × stake: B holds 6


def test_seven_and_ace_is_bust_not_triple():  # SM-T14
    deck = ["7B", "2C", "3C", "6D", "AS"]
    state = hand(deck, [3, 1, 1], [KEEP])
    (bust,) = events(state, "bust")
    assert bust == {"type": "bust", "seat": P1, "cards": ["7B", "AS"], "value": 16, "paid": 3}


# --------------------------------------------------------------------------- classes and payments


def test_emblee_is_paid_double_and_takes_the_bank():  # SM-T2
    # P1 7C + JS; P2 4C stands (loses 1 to B's 6); P3 2D stands (loses 1); B 6D stands.
    deck = ["7C", "4C", "2D", "6D", "JS"]
    state = hand(deck, [3, 1, 1], [KEEP, STAND, STAND, STAND], hands=2)
    declare = events(state, "declare")[0]
    assert declare == {"type": "declare", "seat": P1, "class": "emblee", "value": 15}
    settle = settlement(state)
    assert settle["payments"][P1] == 6
    assert settle["payments"][B] == -6 + 1 + 1  # −6 to P1, +1 from each of P2 and P3
    assert settle["next_banker"] == P1
    assert state.view(None)["banker"] == P1  # the next hand is P1's bank (SM-A15)


def test_seven_and_seven_is_a_triple_paid_three_times():  # SM-T3
    deck = ["7C", "AC", "AD", "7D", "7S"]
    state = hand(deck, [2, 1, 1], [KEEP, STAND, STAND, STAND])
    assert settled_hand(state, P1)["class"] == "triple"
    assert settlement(state)["payments"][P1] == 6
    assert settlement(state)["next_banker"] == P1


@pytest.mark.parametrize("first, drawn", [("KD", "7B"), ("7D", "KD")])
def test_seven_and_matta_is_a_triple_in_either_order(first, drawn):  # SM-T4, SM-A7
    deck = [first, "AC", "AD", "AS", drawn]
    state = hand(deck, [1, 1, 1], [KEEP, STAND, STAND, STAND])
    assert events(state, "declare")[0]["class"] == "triple"


def test_matta_and_a_figure_is_an_emblee():  # SM-T5
    deck = ["KD", "AC", "AD", "AS", "NC"]
    state = hand(deck, [1, 1, 1], [KEEP, STAND, STAND, STAND])
    assert events(state, "declare")[0]["class"] == "emblee"


def test_plain_seven_and_a_half_tie_goes_to_the_banker():  # SM-T6
    # P1 3B + 4S + JB; B 5D + 2C + ND.
    deck = ["3B", "AC", "AD", "5D", "4S", "JB", "2C", "ND"]
    state = hand(deck, [4, 1, 1], [KEEP, HIT, STAND, STAND, KEEP, HIT])
    assert settled_hand(state, B)["value"] == 15
    assert settlement(state)["payments"][P1] == -4


def test_emblee_beats_a_plain_seven_and_a_half_and_takes_the_bank():  # SM-T7, SM-A4
    deck = ["7S", "AC", "AD", "5B", "JD", "2S", "JC"]
    state = hand(deck, [2, 1, 1], [KEEP, STAND, STAND, KEEP, HIT])
    assert settlement(state)["payments"][P1] == 4
    assert settlement(state)["next_banker"] == P1


def test_single_payment_variant_pays_an_emblee_once_against_a_plain_seven_and_a_half():
    # SM-A4's known variant (TRECCANI), an option.
    deck = ["7S", "AC", "AD", "5B", "JD", "2S", "JC"]
    state = hand(deck, [2, 1, 1], [KEEP, STAND, STAND, KEEP, HIT], special_vs_plain="single")
    assert settlement(state)["payments"][P1] == 2


def test_emblee_against_the_bankers_emblee_pays_the_banker_double():  # SM-T8, SM-A5
    deck = ["7S", "AC", "AD", "7B", "JD", "NC"]
    state = hand(deck, [2, 1, 1], [KEEP, STAND, STAND, KEEP])
    assert settlement(state)["payments"][P1] == -4
    assert settlement(state)["next_banker"] == B


def test_bankers_triple_collects_three_times_and_keeps_the_bank():  # SM-T9
    # P1 6C stands (plain 6, s=1); P2 7S + NB emblée (s=2); P3 6S + 5S bust (s=4); B 7D + 7C.
    deck = ["6C", "7S", "6S", "7D", "NB", "5S", "7C"]
    state = hand(deck, [1, 2, 4], [STAND, KEEP, KEEP, KEEP])
    settle = settlement(state)
    assert settled_hand(state, B)["class"] == "triple"
    assert settle["payments"][P1] == -3
    assert settle["payments"][P2] == -6
    assert events(state, "bust")[0]["paid"] == 4
    assert state.scores()[B] == 13
    assert settle["next_banker"] == B


def test_a_busting_banker_pays_everyone_still_in():  # SM-T10, SM-A8
    # P1 6B + JC = 6½ (s=2); P2 7S + NB emblée (s=1); P3 6S + 5S bust (s=3); B 4C + 2B + 3D = 9.
    deck = ["6B", "7S", "6S", "4C", "JC", "NB", "5S", "2B", "3D"]
    state = hand(deck, [2, 1, 3], [KEEP, STAND, KEEP, KEEP, KEEP, HIT])
    assert events(state, "bust")[1]["seat"] == B
    assert state.scores() == [2, 2, -3, -1]
    assert settlement(state)["next_banker"] == P2


def test_a_busting_player_pays_at_once_and_gets_nothing_back():  # SM-T13, SM-A9
    # P2 6B + 2C bust (s=5); the banker 4C + 2B + 3D busts later.
    deck = ["AB", "6B", "AC", "4C", "2C", "2B", "3D"]
    state = hand(deck, [1, 5, 1], [STAND, KEEP])
    assert state.scores()[P2] == -5  # paid the moment he bust
    assert state.current_player() == P3
    state.apply(STAND)
    state.apply(KEEP)
    state.apply(HIT)
    assert settled_hand(state, B)["class"] == "bust"
    assert state.scores() == [1, -5, 1, 3]


def test_seven_and_a_half_ends_the_turn_without_offering_a_hit():  # SM-T15, SM-A10
    deck = ["7C", "AC", "AD", "AS", "JS"]
    state = hand(deck, [1, 1, 1], [KEEP])
    assert state.current_player() == P2
    assert not [e for e in state.log if e["type"] in ("stand", "hit") and e["seat"] == P1 and e["type"] == "stand"]
    # A plain 7½ ends the turn too: P2 1 + 6 + ½.
    state = hand(["AC", "AD", "AS", "2S", "6D", "JB"], [1, 1, 1], [STAND, KEEP, HIT])
    assert state.current_player() == P3
    assert events(state, "declare")[0] == {"type": "declare", "seat": P2, "class": "plain", "value": 15}


def test_the_first_to_declare_takes_the_bank():  # SM-T16, SM-A14
    # P1 7B + NC emblée (s=1); P2 AB stands (s=1); P3 7C + 7S triple (s=2); B 5C stands.
    deck = ["7B", "AB", "7C", "5C", "NC", "7S"]
    state = hand(deck, [1, 1, 2], [KEEP, STAND, KEEP, STAND])
    settle = settlement(state)
    assert (settle["payments"][P1], settle["payments"][P3]) == (2, 6)
    assert settle["next_banker"] == P1


def test_full_table_settlement():  # SM-T17
    # Players P1–P4 at seats 0–3, B at seat 4: B 4D + 2B + JC = 6½.
    # P1 6C + JB = 6½ (s=2); P2 7D (s=3); P3 6S + 4S bust (s=1); P4 7C + NS emblée (s=4).
    deck = ["6C", "7D", "6S", "7C", "4D", "JB", "4S", "NS", "2B", "JC"]
    state = hand(deck, [2, 3, 1, 4], [KEEP, STAND, STAND, KEEP, KEEP, KEEP, HIT, STAND], players=5)
    settle = settlement(state)
    assert settle["payments"][:4] == [-2, 3, 0, 8]
    assert events(state, "bust")[0] == {"type": "bust", "seat": 2, "cards": ["6S", "4S"], "value": 20, "paid": 1}
    assert state.scores()[4] == -8
    assert settle["next_banker"] == 3


def test_bankers_emblee_keeps_the_bank_against_a_players_triple():  # SM-T18, SM-A14
    # P1 7S stands (plain 7, s=1); P2 7D + 7C triple (s=2); P3 AB stands; B 7B + JC.
    deck = ["7S", "7D", "AB", "7B", "7C", "JC"]
    state = hand(deck, [1, 2, 1], [STAND, KEEP, STAND, KEEP])
    settle = settlement(state)
    assert settle["payments"][P2] == 6
    assert settle["payments"][P1] == -2
    assert settle["next_banker"] == B


def test_a_complete_hand_from_a_fixed_tallone():  # SM-T21
    deck = ["7C", "3D", "KD", "5B", "JS", "4S", "7B", "2C"]
    state = hand(deck, [2, 3, 1], [KEEP, KEEP, STAND, KEEP, KEEP, STAND])
    settle = settlement(state)
    assert [h["cards"] for h in settle["hands"]] == [["7C", "JS"], ["3D", "4S"], ["KD", "7B"], ["5B", "2C"]]
    assert settle["payments"] == [4, -3, 3, -4]
    assert settle["next_banker"] == P1


def test_every_player_busting_leaves_the_banker_idle():  # SM-T23, SM-A13
    deck = ["7B", "6C", "5S", "AD", "AS", "2C", "3S"]
    state = hand(deck, [1, 2, 3], [KEEP, KEEP, KEEP])
    assert [e["seat"] for e in events(state, "bust")] == [P1, P2, P3]
    assert not [e for e in state.log if e.get("seat") == B and e["type"] in ("hit", "stand")]
    assert state.scores() == [-1, -2, -3, 6]


def test_bankers_plain_seven_and_a_half_beats_plain_hands():  # SM-T24
    # P1 7C stands (s=3); P2 3B + 4S + JD = 7½ (s=2); P3 AC stands; B AS + 6C + JB.
    deck = ["7C", "3B", "AC", "AS", "4S", "JD", "6C", "JB"]
    state = hand(deck, [3, 2, 1], [STAND, KEEP, HIT, STAND, KEEP, HIT])
    payments = settlement(state)["payments"]
    assert (payments[P1], payments[P2]) == (-3, -2)


# --------------------------------------------------------------------------- face-down modes


def test_keep_mode_leaves_the_first_card_face_down():  # SM-T19
    deck = ["2C", "AC", "AD", "AS", "3S", "2D"]
    state = hand(deck, [1, 1, 1], [KEEP, HIT])
    seen_by_p2 = state.view(P2)["table"][P1]
    assert seen_by_p2["cards"] == ["3S", "2D"]
    assert seen_by_p2["hidden"] == 1
    own = state.view(P1)["table"][P1]
    assert own["cards"] == ["2C", "3S", "2D"]
    assert own["value"] == 14


def test_expose_mode_turns_up_the_previous_card_before_each_hit():  # SM-T20
    deck = ["AB", "5B", "AD", "AS", "AC", "JD"]
    state = hand(deck, [1, 1, 1], [STAND, EXPOSE])
    assert events(state, "turn_up")[0] == {"type": "turn_up", "seat": P2, "card": "5B"}
    assert state.view(P3)["table"][P2]["cards"] == ["5B"]
    state.apply(HIT)
    assert events(state, "turn_up")[1] == {"type": "turn_up", "seat": P2, "card": "AC"}
    seen_by_p3 = state.view(P3)["table"][P2]
    assert seen_by_p3["cards"] == ["5B", "AC"]
    assert seen_by_p3["hidden"] == 1  # JD, the only face-down card
    assert "JD" not in str(state.view(P3))
    assert state.view(P2)["table"][P2]["value"] == 13  # 6½


def test_only_the_first_hit_chooses_a_mode():  # SM-A11
    deck = ["AB", "AC", "AD", "AS", "2C"]
    state = hand(deck, [1, 1, 1])
    assert state.legal_actions() == [STAND, KEEP, EXPOSE]
    state.apply(KEEP)
    assert state.legal_actions() == [STAND, HIT]
    with pytest.raises(IllegalAction, match="SM-A11"):
        state.apply(EXPOSE)


# --------------------------------------------------------------------------- the tallone


# Ten participants who always hit use this whole tallone before the last of them acts
# (found by a search over deck orders).
EXHAUSTING_DECK = [
    "JB", "KD", "NB", "NS", "AC", "JS", "KC", "7B", "5S", "KS", "2C", "JC", "4S", "6C",
    "2D", "4B", "6S", "5D", "6D", "NC", "AD", "AB", "4C", "5C", "5B", "7S", "3C", "KB",
    "3D", "6B", "3S", "2B", "4D", "7C", "AS", "ND", "7D", "3B", "2S", "JD",
]


def test_an_empty_tallone_leaves_only_stand():  # SM-T22, SM-A12
    state = GAME.new_match(players=10, seed=1, options={"hands": 1}, deck=EXHAUSTING_DECK)
    for _ in range(9):
        state.apply(stake(1))
    while not state.is_over():
        view = state.view(state.current_player())
        assert view["tallone"] > 0  # a seat is asked only while it may still hit
        state.apply(next(a for a in view["legal_actions"] if a["type"] == "hit"))
    (forced,) = [e for e in state.log if e["type"] == "stand"]
    assert forced["forced"] is True
    assert len(events(state, "hit")) == 30  # with the 10 dealt, the whole tallone


# --------------------------------------------------------------------------- stakes and information


def test_stakes_are_fixed_before_looking_and_hidden_until_all_are_in():  # SM-A17
    state = GAME.new_match(players=4, seed=3, options={"hands": 1})
    first_card = state.log[1]["cards"][P1]
    assert first_card not in str(state.view(P1))  # not seen before staking
    state.apply(stake(7))
    assert first_card in str(state.view(P1))
    assert state.view(P2)["table"][P1]["stake"] is None
    assert state.view(P1)["table"][P1]["stake"] == 7
    assert "7" not in str([e for e in state.view(P2)["events"] if e["type"] == "stake"])
    state.apply(stake(2))
    state.apply(stake(9))
    assert [row["stake"] for row in state.view(None)["table"]] == [7, 2, 9, None]


def test_stakes_outside_the_limits_are_illegal():  # SM-A2
    state = GAME.new_match(players=4, seed=3, options={"stake_min": 2, "stake_max": 5})
    before = state.to_json()
    for bad in (stake(1), stake(6), {"type": "stand"}, {"type": "stake", "amount": "3"}):
        with pytest.raises(IllegalAction) as err:
            state.apply(bad)
        assert "SM-A" in str(err.value)
    assert state.to_json() == before
    assert [a["amount"] for a in state.legal_actions()] == [2, 3, 4, 5]


def test_a_stake_after_the_stakes_are_in_is_illegal():  # SM-A17
    state = hand(["AB", "AC", "AD", "AS"], [1, 1, 1])
    with pytest.raises(IllegalAction, match="SM-A17"):
        state.apply(stake(2))


def test_the_new_banker_starts_the_next_hand():  # SM-A15
    deck = ["7C", "4C", "2D", "6D", "JS"]
    state = hand(deck, [3, 1, 1], [KEEP, STAND, STAND, STAND], hands=2)
    hand_two = [e for e in state.log if e["type"] == "hand"][1]
    assert hand_two["banker"] == P1
    assert hand_two["order"] == [P2, P3, B, P1]
    assert state.current_player() == P2


def test_a_match_lasts_the_agreed_number_of_hands():  # SM-A16
    state = GAME.new_match(players=3, seed=11, options={"hands": 4})
    while not state.is_over():
        state.apply(state.legal_actions()[-1])
    assert len(events(state, "settle")) == 4
    assert events(state, "match_over")[0]["scores"] == state.scores()


def test_without_a_matta_the_king_of_denari_is_half_a_point():
    deck = ["KD", "AC", "AD", "AS", "7B"]
    state = hand(deck, [1, 1, 1], [KEEP], matta=None)
    assert events(state, "declare")[0]["class"] == "emblee"  # KD is a plain figure here
    state = hand(["KD"] + ["AC", "AD", "AS"], [1, 1, 1], [STAND, STAND, STAND, STAND], matta=None)
    assert settled_hand(state, P1)["value"] == 1


# --------------------------------------------------------------------------- options and decks


@pytest.mark.parametrize(
    "players, options, deck, message",
    [
        (2, {}, None, "3 to 10 players"),
        (11, {}, None, "3 to 10 players"),
        (3, {"min_participants": 4}, None, "min_participants"),
        (4, {"stake_min": 5, "stake_max": 4}, None, "stake_min"),
        (4, {"hands": 0}, None, "'hands' must be at least 1"),
        (4, {"dealer": 4}, None, "'dealer' must be at most 3"),
        (4, {"colour": "red"}, None, "unknown option"),
        (4, {"matta": "XX"}, None, "'matta' must be one of"),
        (4, {}, ["7C", "7C"], "duplicate"),
        (4, {}, ["7C", "QH"], "QH not in this deck"),
        (4, {"hands": 1}, [["7C"], ["7D"]], "2 stacked decks for a match of 1 hands"),
    ],
)
def test_bad_inputs_are_refused_with_the_reason(players, options, deck, message):
    with pytest.raises(InvalidOptions, match=message):
        GAME.new_match(players=players, seed=1, options=options, deck=deck)


def test_the_first_banker_is_the_dealer_option():  # EC-0
    state = GAME.new_match(players=4, seed=1, options={"dealer": 1})
    assert state.view(None)["banker"] == 1
    assert state.current_player() == 2


def test_stacked_decks_stack_the_first_hands_in_turn():  # EC-1
    state = GAME.new_match(players=3, seed=5, options={"hands": 3}, deck=[["AC", "2C", "3C"], ["4C", "5C", "6C"]])
    while not state.is_over():
        state.apply(STAND if STAND in state.legal_actions() else state.legal_actions()[0])
    deals = [e["cards"] for e in events(state, "deal")]
    assert deals[0] == ["AC", "2C", "3C"]
    assert deals[1] == ["4C", "5C", "6C"]  # the banker is still seat 2: nobody made 7½
    plain = GAME.new_match(players=3, seed=5, options={"hands": 3})
    while not plain.is_over():
        plain.apply(STAND if STAND in plain.legal_actions() else plain.legal_actions()[0])
    assert [e["cards"] for e in events(plain, "deal")][2] == deals[2]  # later hands: the seed


def test_the_same_seed_deals_the_same_cards_whatever_is_played():  # EC-1
    a = GAME.new_match(players=5, seed=99)
    b = GAME.new_match(players=5, seed=99)
    while not a.is_over():
        a.apply(a.legal_actions()[0])
    while not b.is_over():
        b.apply(b.legal_actions()[-1])

    def talloni(state):  # each hand's deal, in turn order: who sits where follows the bank
        hands = events(state, "hand")
        return [[d["cards"][seat] for seat in h["order"]] for h, d in zip(hands, events(state, "deal"))]

    assert talloni(a) == talloni(b)
