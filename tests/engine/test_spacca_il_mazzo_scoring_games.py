"""Spacca il mazzo: the scoring scenarios SP-T23, SP-T24 and SP-T25 of
shared/rules/spacca_il_mazzo.md, each played as a complete game through the public contract
(a stacked deck, explicit actions) and checked on the exact final result.

Seats: P1 is seat 0, P2 seat 1, …; the default dealer is the last seat, so seat 0 leads and the
stacked deck deals seat 0 first (rules README §5): 5 hand cards per seat, then 3 face-up per
seat, then 3 face-down per seat (slots 0, 1, 2), then the starting card; the rest of ``main``
is the MAIN deck, top first. The deck layouts below follow that order line by line.

How the decks and actions were found: built by hand (a throwaway script under /tmp checked each
one against the engine) on one pattern. Every player who has to finish holds two ranks whose
four cards are split over his hand and face-up zone, so two PLAYs of four clear both zones,
then three FLIPs clear his face-down cards (the last flip is forced, so the engine plays it).
The ranks of those plays and flips are stacked to rise round after round, with 2s and 10s to
reset the reference, so every action is legal. The last player's actions (plays of 2s and
10s, a draw or a flip) are chosen so that he is left with exactly the cards the scenario names
when the others finish.
"""

from __future__ import annotations

import engine

GAME = engine.game("spacca_il_mazzo")
DRAW = {"type": "draw"}


def play(*cards):
    return {"type": "play", "cards": list(cards)}


def flip(slot):
    return {"type": "flip", "slot": slot}


def run(players, main, second, actions):
    s = GAME.new_match(players=players, seed=1, deck={"main": main, "second": second})
    for action in actions:
        s.apply(action)
    return s


def events(state, kind):
    return [e for e in state.log if e["type"] == kind]


def the_game_over(state):
    assert state.is_over() and state.current_player() is None
    (over,) = events(state, "game_over")
    assert over["stopped"] is False  # ended by the rules (4.7), not by the turn limit
    return over


#: Deck 2 in the usual order: unused (nobody draws from it) unless stated.
SECOND = [
    "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH",
    "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD",
    "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC",
    "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
]  # fmt: skip


# --------------------------------------------------------------------------- SP-T23

T23_MAIN = [
    # hands, 5 cards per seat, seat 0 first
    "5H", "5D", "8H", "8D", "8C",
    "6H", "6D", "9H", "9D", "9C",
    "7H", "7D", "JH", "JD", "JC",
    "2H", "2D", "10H", "10D", "3H",
    # face-up, 3 per seat
    "5C", "5S", "8S",
    "6C", "6S", "9S",
    "7C", "7S", "JS",
    "3D", "2C", "10C",
    # face-down, slots 0, 1, 2 per seat
    "4D", "4C", "4S",
    "KH", "KD", "KC",
    "QH", "QD", "AH",
    "3S", "2S", "10S",
    # starting card, then the MAIN deck, top first (nobody draws)
    "4H",
    "AD", "AC", "3C", "QC", "AS", "QS", "KS", "JR", "JB",
]  # fmt: skip

T23_ACTIONS = [
    # round 1: fours of 5, 6, 7 (hand + face-up) on the starting 4H; P4 resets with 2H
    play("5H", "5D", "5C", "5S"), play("6H", "6D", "6C", "6S"), play("7H", "7D", "7C", "7S"), play("2H"),
    # round 2: fours of 8, 9, J; P4 resets with 2D
    play("8H", "8D", "8C", "8S"), play("9H", "9D", "9C", "9S"), play("JH", "JD", "JC", "JS"), play("2D"),
    # round 3: P1-P3 flip 4D, KH, QH (rising); P4 burns with 10H
    flip(0), flip(0), flip(0), play("10H"),
    # round 4: flips 4C, KD, QD; P4 burns with 10D. Round 5: the last flips (4S, KC, AH) are
    # forced: P1, P2, P3 finish in that order before P4 plays again.
    flip(1), flip(1), flip(1), play("10D"),
]  # fmt: skip


def test_four_player_game_scores_35_20_9_0_when_the_last_holds_10_points():  # SP-T23
    s = run(4, T23_MAIN, SECOND, T23_ACTIONS)
    over = the_game_over(s)
    assert [(e["seat"], e["place"]) for e in events(s, "finish")] == [(0, 1), (1, 2), (2, 3)]
    # P4 is left with hand {3H}, face-up {3D, 2C, 10C}, face-down {3S, 2S, 10S}:
    # V = 3 (7) + 2 (2) + 10 (1) = 10, each rank counted once.
    zones = s.zones()
    assert (zones["hands"][3], zones["up"][3], zones["down"][3]) == (["3H"], ["3D", "2C", "10C"], ["3S", "2S", "10S"])
    assert over["last"] == 3
    assert over["cards"] == [None, None, None, ["3H", "3D", "3S", "2C", "2S", "10C", "10S"]]
    assert over["values"] == [None, None, None, 10]
    assert over["places"] == [1, 2, 3, 4]
    # 1st 25 + 10, 2nd 15 + 5, 3rd 5 + ⌈10/3⌉ = 5 + 4, last 0.
    assert over["points"] == [35, 20, 9, 0]
    assert s.scores() == [35, 20, 9, 0]
    assert s.places() == [1, 2, 3, 4]


# --------------------------------------------------------------------------- SP-T24

T24_MAIN_4 = [
    # hands, 5 cards per seat, seat 0 first
    "4H", "4D", "8H", "8D", "8C",
    "5H", "5D", "9H", "9D", "9C",
    "6H", "6D", "JH", "JD", "JC",
    "7H", "7D", "KH", "KD", "KC",
    # face-up, 3 per seat
    "4C", "4S", "8S",
    "5C", "5S", "9S",
    "6C", "6S", "JS",
    "7C", "7S", "KS",
    # face-down, slots 0, 1, 2 per seat
    "QH", "3H", "2D",
    "QD", "3D", "3S",
    "AH", "QC", "QS",
    "2H", "AD", "10H",
    # starting card, then the MAIN deck, top first (nobody draws)
    "3C",
    "10D", "AC", "2C", "10C", "AS", "2S", "10S", "JR", "JB",
]  # fmt: skip

T24_ACTIONS_4 = [
    # rounds 1 and 2: every seat plays two rising fours (4, 5, 6, 7, then 8, 9, J, K)
    play("4H", "4D", "4C", "4S"), play("5H", "5D", "5C", "5S"),
    play("6H", "6D", "6C", "6S"), play("7H", "7D", "7C", "7S"),
    play("8H", "8D", "8C", "8S"), play("9H", "9D", "9C", "9S"),
    play("JH", "JD", "JC", "JS"), play("KH", "KD", "KC", "KS"),
    # round 3: flips QH, QD, AH, 2H (P4); round 4: flips 3H, 3D, QC, AD (P4)
    flip(0), flip(0), flip(0), flip(0),
    flip(1), flip(1), flip(1), flip(1),
    # round 5: the forced last flips (2D, 3S, QS) finish P1, P2, P3; P4 still has 10H face-down.
]  # fmt: skip

#: The same game, but P4's last face-down card is the red joker instead of 10H (10H moves to
#: the MAIN deck): V = 0, the one value at which the minimum of 1 changes the result.
T24_MAIN_4_JOKER = [
    # hands, 5 cards per seat, seat 0 first
    "4H", "4D", "8H", "8D", "8C",
    "5H", "5D", "9H", "9D", "9C",
    "6H", "6D", "JH", "JD", "JC",
    "7H", "7D", "KH", "KD", "KC",
    # face-up, 3 per seat
    "4C", "4S", "8S",
    "5C", "5S", "9S",
    "6C", "6S", "JS",
    "7C", "7S", "KS",
    # face-down, slots 0, 1, 2 per seat
    "QH", "3H", "2D",
    "QD", "3D", "3S",
    "AH", "QC", "QS",
    "2H", "AD", "JR",
    # starting card, then the MAIN deck, top first (nobody draws)
    "3C",
    "10H", "10D", "AC", "2C", "10C", "AS", "2S", "10S", "JB",
]  # fmt: skip

T24_MAIN_3 = [
    # hands, 5 cards per seat, seat 0 first
    "4H", "4D", "7H", "7D", "7C",
    "5H", "5D", "8H", "8D", "8C",
    "6H", "6D", "9H", "9D", "9C",
    # face-up, 3 per seat
    "4C", "4S", "7S",
    "5C", "5S", "8S",
    "6C", "6S", "9S",
    # face-down, slots 0, 1, 2 per seat
    "JH", "KD", "AH",
    "JD", "QH", "AD",
    "KH", "QD", "10H",
    # starting card, then the MAIN deck, top first (nobody draws)
    "3C",
    "2H", "3H", "2D", "3D", "10D", "AC", "2C", "10C", "JC", "QC", "KC", "AS",
    "2S", "3S", "10S", "JS", "QS", "KS", "JR", "JB",
]  # fmt: skip

T24_ACTIONS_3 = [
    # rounds 1 and 2: rising fours 4, 5, 6, then 7, 8, 9
    play("4H", "4D", "4C", "4S"), play("5H", "5D", "5C", "5S"), play("6H", "6D", "6C", "6S"),
    play("7H", "7D", "7C", "7S"), play("8H", "8D", "8C", "8S"), play("9H", "9D", "9C", "9S"),
    # round 3: flips JH, JD, KH (P3); round 4: flips KD, QH, QD (P3)
    flip(0), flip(0), flip(0),
    flip(1), flip(1), flip(1),
    # round 5: the forced last flips (AH, AD) finish P1 and P2; P3 still has 10H face-down.
]  # fmt: skip


def test_second_and_third_get_at_least_one_variable_point():  # SP-T24
    # 4 players: V = 1 → 1st 25 + 1, 2nd 15 + max(1, ⌈1/2⌉), 3rd 5 + max(1, ⌈1/3⌉), last 0.
    s = run(4, T24_MAIN_4, SECOND, T24_ACTIONS_4)
    over = the_game_over(s)
    assert [(e["seat"], e["place"]) for e in events(s, "finish")] == [(0, 1), (1, 2), (2, 3)]
    assert s.zones()["down"][3] == [None, None, "10H"] and s.zones()["hands"][3] == [] == s.zones()["up"][3]
    assert over["last"] == 3
    assert over["cards"] == [None, None, None, ["10H"]]
    assert over["values"] == [None, None, None, 1]
    assert over["points"] == [26, 16, 6, 0]
    assert s.scores() == [26, 16, 6, 0]
    assert s.places() == [1, 2, 3, 4]

    # Beyond the scenario's numbers: with V = 1 the minimum never bites (⌈1/2⌉ = ⌈1/3⌉ = 1), so
    # the same game with a face-down joker left instead of 10H (V = 0) checks it: 1st 25 + 0
    # (no minimum for the 1st), 2nd 15 + max(1, 0), 3rd 5 + max(1, 0), last 0.
    s = run(4, T24_MAIN_4_JOKER, SECOND, T24_ACTIONS_4)
    over = the_game_over(s)
    assert [(e["seat"], e["place"]) for e in events(s, "finish")] == [(0, 1), (1, 2), (2, 3)]
    assert over["cards"] == [None, None, None, ["JR"]]
    assert over["values"] == [None, None, None, 0]
    assert over["points"] == [25, 16, 6, 0]
    assert s.scores() == [25, 16, 6, 0]

    # 3 players: 26, 16, 0.
    s = run(3, T24_MAIN_3, SECOND, T24_ACTIONS_3)
    over = the_game_over(s)
    assert [(e["seat"], e["place"]) for e in events(s, "finish")] == [(0, 1), (1, 2)]
    assert s.zones()["down"][2] == [None, None, "10H"] and s.zones()["hands"][2] == [] == s.zones()["up"][2]
    assert over["last"] == 2
    assert over["cards"] == [None, None, ["10H"]]
    assert over["values"] == [None, None, 1]
    assert over["points"] == [26, 16, 0]
    assert s.scores() == [26, 16, 0]
    assert s.places() == [1, 2, 3]


# --------------------------------------------------------------------------- SP-T25

T25_MAIN_FIVES_TENS = [
    # hands, 5 cards per seat, seat 0 first
    "4H", "4D", "7H", "7D", "7C",
    "5H", "10H", "6H", "8H", "JC",
    # face-up, 3 per seat
    "4C", "4S", "7S",
    "5C", "5D", "10C",
    # face-down, slots 0, 1, 2 per seat
    "9H", "JH", "2H",
    "5S", "10S", "10D",
    # starting card, then the MAIN deck, top first (P2 draws JD)
    "3C",
    "JD", "AH", "3H", "QH", "KH", "AD", "2D", "3D", "6D", "8D", "9D", "QD",
    "KD", "AC", "2C", "6C", "8C", "9C", "QC", "KC", "AS", "2S", "3S", "6S",
    "8S", "9S", "JS", "QS", "KS", "JR", "JB",
]  # fmt: skip

T25_ACTIONS_FIVES_TENS = [
    play("4H", "4D", "4C", "4S"),  # P1, on the starting 3C
    play("6H"),                    # P2 sheds a spare card
    play("7H", "7D", "7C", "7S"),  # P1
    play("8H"),                    # P2
    flip(0),                       # P1 flips 9H
    DRAW,                          # P2 draws JD
    flip(1),                       # P1 flips JH
    play("JC", "JD"),              # P2; then P1's forced last flip (2H) finishes him
]  # fmt: skip

T25_MAIN_ACES = [
    # hands, 5 cards per seat, seat 0 first
    "5H", "5D", "5C", "5S", "8H",
    "6H", "6D", "6C", "6S", "9H",
    "7H", "7D", "7C", "7S", "JH",
    "3D", "3H", "3S", "4H", "2H",
    # face-up, 3 per seat
    "8D", "8C", "8S",
    "9D", "9C", "9S",
    "JD", "JC", "JS",
    "AH", "AD", "AC",
    # face-down, slots 0, 1, 2 per seat (P4: the fourth Ace of deck 1 and both jokers)
    "4D", "KS", "2C",
    "4C", "QS", "2S",
    "4S", "2D", "10S",
    "AS", "JR", "JB",
    # starting card, then the MAIN deck, top first: P1-P3 draw all 9 of it
    "3C",
    "KH", "QH", "10H", "KD", "QD", "10D", "KC", "QC", "10C",
]  # fmt: skip

#: Deck 2, its four Aces on top: P4 draws them once the MAIN deck is exhausted.
T25_SECOND_ACES = [
    "AH", "AD", "AC", "AS",
    "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH",
    "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD",
    "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC",
    "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
]  # fmt: skip

T25_ACTIONS_ACES = [
    # rounds 1-3: P1-P3 draw the MAIN deck (E1 after the 9th card); P4 sheds 3H 3D, 3S, 4H
    DRAW, DRAW, DRAW, play("3D", "3H"),
    DRAW, DRAW, DRAW, play("3S"),
    DRAW, DRAW, DRAW, play("4H"),
    # rounds 4-6: P1-P3 play fours and the drawn threes (the 10s burn); P4 draws three Aces of deck 2
    play("5H", "5D", "5C", "5S"), play("6H", "6D", "6C", "6S"), play("7H", "7D", "7C", "7S"), DRAW,
    play("8H", "8D", "8C", "8S"), play("9H", "9D", "9C", "9S"), play("JH", "JD", "JC", "JS"), DRAW,
    play("KH", "KD", "KC"), play("QH", "QD", "QC"), play("10H", "10D", "10C"), DRAW,
    # round 7: flips 4D, 4C, 4S; P4 draws the fourth Ace of deck 2
    flip(0), flip(0), flip(0), DRAW,
    # round 8: flips KS, QS, 2D; P4 plays his last spare card, 2H. Round 9: the forced last
    # flips (2C, 2S, 10S) finish P1, P2, P3.
    flip(1), flip(1), flip(1), play("2H"),
]  # fmt: skip


def test_pokers_count_double_once_and_a_face_down_joker_counts_nothing():  # SP-T25
    # {5H, 5D, 5C, 5S, 10H, 10D, 10C, 10S}: V = 12 + 2 = 14 (2 players: 25 + 14 = 39).
    s = run(2, T25_MAIN_FIVES_TENS, SECOND, T25_ACTIONS_FIVES_TENS)
    over = the_game_over(s)
    assert [(e["seat"], e["place"]) for e in events(s, "finish")] == [(0, 1)]
    zones = s.zones()
    assert (zones["hands"][1], zones["up"][1], zones["down"][1]) == (
        ["5H", "10H"], ["5D", "5C", "10C"], ["5S", "10S", "10D"]
    )
    assert over["last"] == 1
    assert over["cards"] == [None, ["5H", "5D", "5C", "5S", "10H", "10D", "10C", "10S"]]
    assert over["values"] == [None, 14]
    assert over["points"] == [39, 0]
    assert s.scores() == [39, 0]
    assert s.places() == [1, 2]

    # Eight Aces (four of each deck) and both jokers still face-down: V = 6 + 0 + 0 = 6
    # (4 players: 25 + 6, 15 + 3, 5 + 2, 0).
    s = run(4, T25_MAIN_ACES, T25_SECOND_ACES, T25_ACTIONS_ACES)
    over = the_game_over(s)
    assert [(e["seat"], e["place"]) for e in events(s, "finish")] == [(0, 1), (1, 2), (2, 3)]
    p4_draws = [(e["card"], e["deck"]) for e in events(s, "draw") if e["seat"] == 3]
    assert p4_draws == [("AH", "second"), ("AD", "second"), ("AC", "second"), ("AS", "second")]
    assert not [e for e in s.log if e.get("seat") == 3 and e["type"] in ("flip", "red_joker", "black_joker")]
    zones = s.zones()
    assert (zones["hands"][3], zones["up"][3], zones["down"][3]) == (
        ["AH", "AD", "AC", "AS"], ["AH", "AD", "AC"], ["AS", "JR", "JB"]
    )
    assert over["last"] == 3
    assert over["cards"] == [None, None, None, ["AH", "AH", "AD", "AD", "AC", "AC", "AS", "AS", "JR", "JB"]]
    assert over["values"] == [None, None, None, 6]
    assert over["points"] == [31, 18, 7, 0]
    assert s.scores() == [31, 18, 7, 0]
    assert s.places() == [1, 2, 3, 4]
