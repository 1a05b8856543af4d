"""Spacca il mazzo: the conformance scenarios SP-T1 … SP-T28 of shared/rules/spacca_il_mazzo.md
and the rules around them, driven through the public contract only.

Seats: P1 is seat 0, P2 seat 1, …; the default dealer is the last seat, so seat 0 leads and the
stacked deck deals seat 0 first (rules README §5).
"""

from __future__ import annotations

import pytest

import engine
from engine.cards import FRENCH_DECK
from engine.spacca_il_mazzo import card_points, placement_points

GAME = engine.game("spacca_il_mazzo")
JOKERS = ("JR", "JB")
DRAW = {"type": "draw"}
PICKUP = {"type": "pickup"}


def stack(players=2, hands=None, up=None, down=None, start="3C", top=(), second=None):
    """A stacked deck: the given cards where the rules deal them (README §5), the unnamed
    places filled with unused cards in FRENCH_DECK order, unnamed jokers at the bottom of MAIN."""
    hands, up, down = hands or {}, up or {}, down or {}
    named = [c for zone in (hands, up, down) for cards in zone.values() for c in cards]
    named += [start, *top]
    assert len(named) == len(set(named)), "a card named twice"
    pool = [c for c in FRENCH_DECK if c not in named]

    def fill(cards, k):
        cards = list(cards)
        while len(cards) < k:
            cards.append(pool.pop(0))
        return cards

    main = []
    for zone, k in ((hands, 5), (up, 3), (down, 3)):
        for s in range(players):
            main += fill(zone.get(s, ()), k)
    main += [start, *top]
    main += pool + [j for j in JOKERS if j not in named]
    deck = {"main": main}
    if second is not None:
        deck["second"] = second
    return deck


def new(players=2, options=None, **deal):
    return GAME.new_match(players=players, seed=1, options=options, deck=stack(players, **deal))


def play(state, *cards):
    state.apply({"type": "play", "cards": list(cards)})


def plays(state):
    return [a["cards"] for a in state.legal_actions() if a["type"] == "play"]


def events(state, kind):
    return [e for e in state.log if e["type"] == kind]


def snapshot(state):
    return state.to_json(), list(state.log), state.legal_actions(), state.view(state.current_player())


# --------------------------------------------------------------------------- legal plays


def test_on_a_king_any_king_queen_ace_two_or_ten_may_be_played():  # SP-T1
    s = new(hands={0: ["JH", "KS", "QC", "AS", "2D"]}, up={0: ["4S", "5S", "6S"]}, start="KD",
            top=["10C", "5H", "9H", "6H"])
    s.apply(DRAW)  # P1 draws 10C
    s.apply(DRAW)  # P2
    s.apply(DRAW)  # P1 draws 9H
    s.apply(DRAW)  # P2
    assert s.view(0)["hand"] == ["9H", "JH", "KS", "QC", "AS", "2D", "10C"]
    assert plays(s) == [["KS"], ["QC"], ["AS"], ["2D"], ["10C"]]
    for card in ("JH", "9H"):
        with pytest.raises(engine.IllegalAction, match=r"does not beat the reference K"):
            play(s, card)


def test_a_king_does_not_beat_a_queen():  # SP-T2
    s = new(hands={0: ["KC", "QS", "AD", "4C", "5C"]}, up={0: ["6S", "7S", "8S"]}, start="QH")
    assert plays(s) == [["QS"], ["AD"]]
    with pytest.raises(engine.IllegalAction, match=r"SP-A1"):
        play(s, "KC")


def test_with_the_usual_order_a_king_beats_a_queen():  # SP-A1 option
    s = new(options={"k_below_q": False}, hands={0: ["KC", "QS", "AD", "4C", "5C"]},
            up={0: ["6S", "7S", "8S"]}, start="QH")
    assert plays(s) == [["QS"], ["KC"], ["AD"]]


def test_equal_cards_may_be_played_alone_or_together():  # SP-T3
    s = new(hands={0: ["9H", "9S", "5C", "4D", "6D"]}, up={0: ["KS", "QS", "AS"]}, start="9C")
    assert s.legal_actions() == [
        {"type": "play", "cards": ["9H"]},
        {"type": "play", "cards": ["9S"]},
        {"type": "play", "cards": ["9H", "9S"]},
        DRAW,
        PICKUP,
    ]
    with pytest.raises(engine.IllegalAction, match=r"does not beat"):
        play(s, "5C")


def test_a_face_up_card_joins_an_equal_hand_card_before_the_main_deck_runs_out():  # SP-T4
    s = new(hands={0: ["7C", "4D", "3H", "4H", "5H"]}, up={0: ["7D", "3S", "QH"]}, start="6S")
    assert s.legal_actions() == [
        {"type": "play", "cards": ["7C"]},
        {"type": "play", "cards": ["7D", "7C"]},
        DRAW,
        PICKUP,
    ]
    with pytest.raises(engine.IllegalAction, match=r"SP-A10"):
        play(s, "7D")
    with pytest.raises(engine.IllegalAction, match=r"SP-A10"):
        play(s, "QH")
    for card in ("4D", "3S"):
        with pytest.raises(engine.IllegalAction):
            play(s, card)
    play(s, "7C", "7D")  # any order: card lists are multisets
    assert s.view(None)["table"][0]["up"] == ["3S", "QH"]
    assert s.view(None)["pile"] == ["6S", "7D", "7C"]


# --------------------------------------------------------------------------- 10, 2 and drawing


def burn_deal():
    return dict(hands={0: ["5H", "9H", "10H", "4C", "4D"], 1: ["7H", "AS", "3D", "6C", "6D"]},
                up={0: ["8C", "8D", "JC"], 1: ["8S", "JD", "KC"]}, start="3C")


def test_a_ten_burns_the_pile_and_the_next_player_plays_anything():  # SP-T5
    s = new(**burn_deal())
    for _seat, card in ((0, "5H"), (1, "7H"), (0, "9H"), (1, "AS")):
        play(s, card)
    assert s.view(None)["pile"] == ["3C", "5H", "7H", "9H", "AS"]
    play(s, "10H")
    v = s.view(None)
    assert v["pile"] == [] and v["out"] == 6 and v["reference"] is None
    assert events(s, "burn")[-1]["cards"] == ["3C", "5H", "7H", "9H", "AS", "10H"]
    assert s.current_player() == 1  # P1 does not play again (SP-A7)
    assert ["3D"] in plays(s)


def test_a_two_resets_the_reference_and_stays_on_the_pile():  # SP-T6
    s = new(hands={0: ["2C", "4C", "5C", "6C", "7C"], 1: ["3H", "4H", "5H", "6H", "7H"]}, start="AS")
    play(s, "2C")
    assert s.view(1)["reference"] is None
    assert ["3H"] in plays(s)
    play(s, "3H")
    assert s.view(None)["pile"] == ["AS", "2C", "3H"]


def test_drawing_with_a_playable_card_ends_the_turn_and_leaves_the_pile():  # SP-T7
    s = new(hands={0: ["9C", "4C", "5C", "6C", "7C"], 1: ["3S", "4S", "6S", "7S", "8S"]},
            up={1: ["JH", "QH", "KH"]}, start="5D", top=["4H"])
    s.apply(DRAW)
    assert s.view(0)["hand"] == ["4H", "4C", "5C", "6C", "7C", "9C"]
    assert s.current_player() == 1
    assert s.view(None)["pile"] == ["5D"]
    assert plays(s) == [["6S"], ["7S"], ["8S"]]
    draw = events(s, "draw")[-1]
    assert draw["card"] == "4H"
    assert {"type": "draw", "seat": 0, "deck": "main", "penalty": False, "forced": False} in s.view(1)["events"]


# --------------------------------------------------------------------------- face-down cards


def test_an_empty_hand_with_face_down_cards_must_flip():  # SP-T8
    s = new(hands={0: ["4H", "4D", "4C", "4S", "6H"], 1: ["8D", "KH", "KD", "KC", "KS"]},
            up={0: ["6D", "QS", "5C"]}, down={0: ["JR", "9H", "9D"]}, start="3C")
    play(s, "4H", "4D", "4C", "4S")
    s.apply(DRAW)
    play(s, "6H", "6D")
    s.apply(DRAW)
    s.apply({"type": "flip", "slot": 0})  # the red joker
    s.apply({"type": "joker_throw", "card": "5C"})
    play(s, "8D")
    v = s.view(0)
    assert (v["hand"], v["table"][0]["up"], v["table"][0]["down"]) == ([], ["QS"], [1, 2])
    assert not v["main_exhausted"] and v["reference"] == "8"
    assert s.legal_actions() == [{"type": "flip", "slot": 1}, {"type": "flip", "slot": 2}]
    for action in (DRAW, PICKUP, {"type": "play", "cards": ["QS"]}):
        with pytest.raises(engine.IllegalAction, match=r"SP-A11"):
            s.apply(action)


def joker_dump_deal(p1_down, p2_card):
    return dict(hands={0: ["3H", "3D", "3S", "4H", "4D"], 1: [p2_card, "5C", "5D", "5S", "6C"]},
                up={0: ["KH", "KD", "KC"], 1: ["7C", "7D", "7S"]}, down={0: [p1_down, "9C", "9S"]},
                start="3C", top=["JR"])


def test_a_drawn_red_joker_can_empty_the_hand():  # SP-T9/SP-T10 set-up, SP-A13
    s = new(**joker_dump_deal("5H", "QD"))
    s.apply(DRAW)
    assert s.legal_actions() == [{"type": "joker_dump"}, {"type": "joker_decline"}]
    s.apply({"type": "joker_dump"})
    assert s.view(0)["hand"] == []
    assert s.view(None)["pile"] == ["3C", "4H", "4D", "3H", "3D", "3S"]
    assert s.view(None)["reference"] == "3"
    assert "JR" in s.zones()["out"]


def test_a_face_down_card_that_cannot_be_played_is_taken_with_the_pile():  # SP-T9
    s = new(**joker_dump_deal("5H", "QD"))
    s.apply(DRAW)
    s.apply({"type": "joker_dump"})
    play(s, "QD")
    s.apply({"type": "flip", "slot": 0})
    assert s.view(0)["hand"] == ["3H", "3D", "3C", "3S", "4H", "4D", "5H", "QD"]
    flip = events(s, "flip")[-1]
    assert (flip["card"], flip["result"]) == ("5H", "picked_up")
    assert s.current_player() == 1 and s.view(1)["pile"] == []
    assert plays(s) == [["5D"], ["5C"], ["5S"], ["5D", "5C"], ["5D", "5S"], ["5C", "5S"],
                        ["5D", "5C", "5S"], ["6C"]]
    assert PICKUP not in s.legal_actions()


def test_a_face_down_card_that_beats_the_reference_is_played():  # SP-T10
    s = new(**joker_dump_deal("AH", "8S"))
    s.apply(DRAW)
    s.apply({"type": "joker_dump"})
    play(s, "8S")
    s.apply({"type": "flip", "slot": 0})
    assert s.view(None)["pile"][-1] == "AH"
    assert s.view(None)["reference"] == "A"
    assert s.view(0)["hand"] == []


def test_only_one_face_down_card_per_turn_and_none_while_the_hand_holds_cards():  # SP-T20
    s = new(hands={0: ["4H", "5H", "5D", "5C", "5S"], 1: ["9C", "JC", "QC", "KC", "AC"]},
            up={0: ["6S", "7S", "8S"]}, start="3C")
    play(s, "5H", "5D", "5C", "5S")
    play(s, "9C")
    assert s.legal_actions() == [DRAW, PICKUP]
    with pytest.raises(engine.IllegalAction, match=r"hand is empty \(4.4, SP-T20\)"):
        s.apply({"type": "flip", "slot": 0})
    with pytest.raises(engine.IllegalAction, match=r"does not beat the reference 9"):
        play(s, "4H")


# --------------------------------------------------------------------------- jokers


def red_joker_down_deal():
    return dict(hands={0: ["4H", "4D", "4C", "4S", "5H"], 1: ["9D", "KH", "QD", "2S", "5D"]},
                up={0: ["QH", "3C", "6S"], 1: ["6H", "7H", "8H"]}, down={0: ["JR", "7C", "8C"]},
                start="3D", top=["JC"])


def red_joker_found(s):
    play(s, "4H", "4D", "4C", "4S")
    s.apply(DRAW)
    play(s, "5H")
    play(s, "9D")
    s.apply({"type": "flip", "slot": 0})


def test_a_red_joker_found_face_down_throws_one_more_card():  # SP-T11
    s = new(**red_joker_down_deal())
    red_joker_found(s)
    assert s.current_player() == 0
    assert s.legal_actions() == [
        {"type": "joker_throw", "card": "3C"},
        {"type": "joker_throw", "card": "6S"},
        {"type": "joker_throw", "card": "QH"},
        {"type": "joker_throw", "slot": 1},
        {"type": "joker_throw", "slot": 2},
        {"type": "joker_decline"},
    ]
    assert s.zones()["out"] == ["JR"]
    other = s.clone()
    s.apply({"type": "joker_throw", "card": "QH"})
    assert s.view(1)["reference"] == "Q"
    assert s.legal_actions() == [{"type": "play", "cards": ["QD"]}, {"type": "play", "cards": ["2S"]},
                                 DRAW, PICKUP]
    other.apply({"type": "joker_throw", "card": "3C"})
    assert other.view(1)["reference"] == "3"


def test_a_red_joker_throwing_a_face_down_card_turns_it_up_without_its_effect():  # SP-A13
    deal = red_joker_down_deal()
    deal["down"] = {0: ["JR", "2C", "8C"]}
    s = new(**deal)
    red_joker_found(s)
    s.apply({"type": "joker_throw", "slot": 1})
    assert s.view(None)["pile"][-1] == "2C"
    assert s.view(None)["reference"] is None  # a thrown 2 leaves the next player FREE
    assert s.view(None)["table"][0]["down"] == [2]
    assert events(s, "red_joker")[-1] == {"type": "red_joker", "seat": 0, "choice": "down", "slot": 1,
                                          "cards": ["2C"]}


def test_the_black_joker_thrown_by_the_red_one_goes_out_with_no_effect():  # 4.6
    deal = red_joker_down_deal()
    deal["down"] = {0: ["JR", "JB", "8C"]}
    s = new(**deal)
    red_joker_found(s)
    s.apply({"type": "joker_throw", "slot": 1})
    assert s.zones()["out"] == ["JR", "JB"]
    assert s.view(None)["pile"][-1] == "9D" and s.view(None)["reference"] == "9"


def test_the_red_joker_may_be_declined():  # SP-A14
    s = new(**red_joker_down_deal())
    red_joker_found(s)
    s.apply({"type": "joker_decline"})
    assert s.view(None)["reference"] == "9"
    assert s.view(None)["table"][0]["up"] == ["3C", "6S", "QH"]
    assert s.current_player() == 1


def black_joker_deal():
    return dict(hands={0: ["4H", "4D", "4C", "4S", "5H"], 1: ["10C", "KH", "QD", "2S", "5D"]},
                up={0: ["6C", "7C", "8C"]}, down={0: ["JB", "9C", "9S"]}, start="3C", top=["KC", "QC"])


def test_a_black_joker_found_face_down_takes_the_pile():  # SP-T12
    s = new(**black_joker_deal())
    play(s, "4H", "4D", "4C", "4S")
    s.apply(DRAW)
    play(s, "5H")
    s.apply(DRAW)
    assert len(s.view(None)["pile"]) == 6
    s.apply({"type": "flip", "slot": 0})
    assert s.view(0)["hand"] == ["3C", "4H", "4D", "4C", "4S", "5H"]
    assert s.zones()["out"] == ["JB"] and s.view(None)["pile"] == []


def test_a_black_joker_on_an_empty_pile_draws_a_penalty_card():  # SP-T12 variant, SP-A16
    s = new(**black_joker_deal())
    play(s, "4H", "4D", "4C", "4S")
    s.apply(DRAW)  # KC
    play(s, "5H")
    play(s, "10C")  # burns the pile
    s.apply({"type": "flip", "slot": 0})
    assert s.view(0)["hand"] == ["QC"]
    penalty = events(s, "draw")[-1]
    assert (penalty["seat"], penalty["card"], penalty["penalty"]) == (0, "QC", True)


def test_a_drawn_red_joker_throws_the_whole_hand_lowest_card_as_reference():  # SP-T13
    s = new(hands={0: ["4C", "9D", "KS", "6H", "6D"], 1: ["3H", "5S", "2S", "4S", "JH"]},
            up={0: ["7S", "8S", "JS"], 1: ["QH", "QD", "AH"]}, start="3C", top=["KH", "JR"])
    play(s, "6H", "6D")
    s.apply(DRAW)
    s.apply(DRAW)  # JR
    s.apply({"type": "joker_dump"})
    assert s.view(0)["hand"] == []
    assert s.view(None)["pile"][-3:] == ["KS", "9D", "4C"]
    assert s.view(None)["reference"] == "4"
    assert plays(s) == [["4S"], ["5S"], ["JH"], ["KH"], ["2S"]]


def test_a_thrown_two_ranks_above_the_ace_and_does_not_reset():  # SP-T14
    s = new(hands={0: ["2S", "8H", "5C", "5D", "5H"], 1: ["7S", "9S", "4S", "3S", "JH"]},
            up={0: ["KC", "QC", "AC"], 1: ["KH", "QH", "AH"]}, start="3C", top=["6H", "JR"])
    play(s, "5H", "5D", "5C")
    s.apply(DRAW)
    s.apply(DRAW)
    s.apply({"type": "joker_dump"})
    assert s.view(None)["pile"][-2:] == ["2S", "8H"]
    assert s.view(None)["reference"] == "8"
    assert plays(s) == [["9S"], ["JH"]]


def test_a_drawn_black_joker_takes_the_pile():  # SP-T15
    s = new(hands={0: ["4C", "5C", "6C", "7C", "8C"]}, start="3C", top=["JB"])
    s.apply(DRAW)
    assert s.view(0)["hand"] == ["3C", "4C", "5C", "6C", "7C", "8C"]
    assert s.zones()["out"] == ["JB"]
    assert s.current_player() == 1 and PICKUP not in s.legal_actions()


def test_a_black_joker_penalty_that_draws_the_red_joker_applies_it():  # SP-A17
    deal = black_joker_deal()
    deal["top"] = ["KC", "JR"]
    s = new(**deal)
    play(s, "4H", "4D", "4C", "4S")
    s.apply(DRAW)  # KC
    play(s, "5H")
    play(s, "10C")  # burns the pile
    s.apply({"type": "flip", "slot": 0})  # JB: the pile is empty, so a penalty card: JR
    assert s.zones()["out"][-2:] == ["JB", "JR"]
    assert s.current_player() == 0
    assert s.legal_actions() == [
        {"type": "joker_throw", "card": "6C"},
        {"type": "joker_throw", "card": "7C"},
        {"type": "joker_throw", "card": "8C"},
        {"type": "joker_throw", "slot": 1},
        {"type": "joker_throw", "slot": 2},
        {"type": "joker_decline"},
    ]
    s.apply({"type": "joker_throw", "card": "7C"})
    assert s.view(None)["pile"] == ["7C"] and s.view(0)["hand"] == []


# --------------------------------------------------------------------------- only face-up cards


def test_with_only_face_up_cards_before_e1_the_draw_is_forced():  # SP-T16
    s = new(hands={0: ["4H", "4D", "4C", "4S", "5H"]}, up={0: ["8C", "8D", "3S"]},
            down={0: ["5D", "6H", "7H"]}, start="3C", top=["KH", "KD", "KC", "KS", "QH", "8H", "QD"])
    play(s, "4H", "4D", "4C", "4S")
    s.apply(DRAW)
    play(s, "5H")
    s.apply(DRAW)
    s.apply({"type": "flip", "slot": 0})
    s.apply(DRAW)
    s.apply({"type": "flip", "slot": 1})
    s.apply(DRAW)  # then P1's last flip is forced
    s.apply(DRAW)  # then P1's draw is forced: 8H
    forced = [e for e in s.log if e.get("forced")]
    assert [(e["type"], e["seat"], e["card"]) for e in forced] == [("flip", 0, "7H"), ("draw", 0, "8H")]
    s.apply(DRAW)
    assert s.current_player() == 0 and s.view(0)["hand"] == ["8H"]
    assert ["8H", "8D", "8C"] in plays(s)
    play(s, "8C", "8H", "8D")
    assert s.view(None)["pile"][-3:] == ["8H", "8D", "8C"]


def test_after_e1_a_face_up_card_may_be_played_alone():  # SP-T17
    s = new(4, hands={0: ["4S", "5H", "5D", "6H", "6D"], 3: ["7D", "JH", "QH", "KH", "AH"]},
            up={0: ["8C", "5C", "6C"]}, down={1: ["JR", "JB", "9C"]}, start="3C")
    assert s.view(None)["main"] == 9
    play(s, "5H")
    for _ in range(3):
        s.apply(DRAW)
    play(s, "5D", "5C")
    for _ in range(3):
        s.apply(DRAW)
    play(s, "6H")
    for _ in range(3):
        s.apply(DRAW)
    assert s.view(None)["main_exhausted"]
    play(s, "6D", "6C")
    s.apply(DRAW)
    s.apply(DRAW)
    assert events(s, "draw")[-1]["deck"] == "second"
    play(s, "7D")
    assert s.legal_actions() == [{"type": "play", "cards": ["8C"]}, DRAW, PICKUP]


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("players,main", [(2, 31), (3, 20), (4, 9)])
def test_the_main_deck_after_the_deal(players, main):  # SP-T18
    for seed in range(20):
        s = GAME.new_match(players=players, seed=seed)
        v = s.view(None)
        assert (v["main"], v["second"]) == (main, 52)
        assert [(t["hand"], len(t["up"]), t["down"]) for t in v["table"]] == [(5, 3, [0, 1, 2])] * players
        z = s.zones()
        assert not any(c in JOKERS for h in z["hands"] + z["up"] for c in h)
        assert v["pile"][0] not in ("JR", "JB", "10H", "10D", "10C", "10S")


@pytest.mark.parametrize("bad", ["10S", "JB"])
def test_a_forbidden_starting_card_goes_to_the_bottom_of_a_stacked_main_deck(bad):  # SP-T19
    s = new(start=bad, top=["7H"])
    assert events(s, "start_rejected") == [{"type": "start_rejected", "card": bad}]
    assert s.view(None)["pile"] == ["7H"]
    assert s.zones()["main"][-1] == bad and s.view(None)["main"] == 31


def test_a_forbidden_starting_card_is_shuffled_back_into_a_random_main_deck():  # SP-T19, SP-A5
    seen = 0
    for seed in range(300):
        s = GAME.new_match(players=4, seed=seed)
        rejected = events(s, "start_rejected")
        if rejected:
            seen += 1
            start = s.view(None)["pile"][0]
            assert start not in ("JR", "JB") and not start.startswith("10")
            assert s.view(None)["main"] == 9
            assert all(e["card"] in s.zones()["main"] for e in rejected)
    assert seen > 10


def test_the_first_player_sits_at_the_dealers_left():  # SP-A3
    s = GAME.new_match(players=3, seed=5, options={"dealer": 0})
    assert s.current_player() == 1
    assert events(s, "game")[0] == {"type": "game", "game": 1, "dealer": 0, "first": 1}


# --------------------------------------------------------------------------- scoring


def test_two_player_scoring_counts_ranks_once_and_a_king_poker_double():  # SP-T21
    s = new(hands={0: ["6H", "6D", "6C", "9H", "9D"], 1: ["3H", "3S", "7C", "8H", "5C"]},
            up={0: ["6S", "9C", "9S"], 1: ["KS", "KC", "10D"]},
            down={0: ["JR", "4H", "JH"], 1: ["KD", "KH", "2C"]}, start="3C", top=["5S"])
    play(s, "6H", "6D", "6C", "6S")
    play(s, "8H")
    play(s, "9H", "9D", "9C", "9S")
    s.apply(DRAW)  # 5S
    s.apply({"type": "flip", "slot": 0})  # JR
    s.apply({"type": "joker_throw", "slot": 1})  # 4H
    play(s, "5C", "5S")  # then P1's last flip (JH) is forced: he finishes
    assert s.is_over()
    over = events(s, "game_over")[0]
    assert over["cards"][1] == ["3H", "3S", "7C", "KH", "KD", "KC", "KS", "2C", "10D"]
    assert over["values"] == [None, 23] and over["places"] == [1, 2]
    assert s.scores() == [48, 0]
    assert s.places() == [1, 2] and s.ranking() == [0, 1]


def three_player_game():
    return new(3, hands={0: ["3H", "3D", "3S", "7H", "9H"], 1: ["4H", "4D", "4C", "5H", "5D"],
                         2: ["2H", "2D", "2C", "10H", "10D"]},
               up={0: ["6C", "6D", "6S"], 1: ["4S", "5C", "5S"], 2: ["2S", "10C", "10S"]},
               down={0: ["8C", "JC", "JS"], 1: ["6H", "8H", "JH"], 2: ["7D", "9D", "QD"]}, start="3C")


def play_three_player_game(s):
    play(s, "3H")
    play(s, "4H", "4D", "4C", "4S")
    play(s, "2H", "2D", "2C", "2S")
    play(s, "3D")
    play(s, "5H", "5D", "5C", "5S")
    play(s, "10H", "10D", "10C", "10S")
    play(s, "3S")
    s.apply({"type": "flip", "slot": 0})
    s.apply({"type": "flip", "slot": 0})
    play(s, "7H")
    s.apply({"type": "flip", "slot": 1})
    s.apply({"type": "flip", "slot": 1})
    play(s, "9H")  # P2's and P3's last flips are forced


def test_three_player_scoring_rounds_half_of_v_up():  # SP-T22
    s = three_player_game()
    play_three_player_game(s)
    over = events(s, "game_over")[0]
    assert over["values"][0] == 15
    assert s.scores() == [0, 40, 23]


def test_the_game_ends_when_one_player_still_holds_cards():  # SP-T28
    s = three_player_game()
    play_three_player_game(s)
    finishes = [(e["seat"], e["place"]) for e in events(s, "finish")]
    assert finishes == [(1, 1), (2, 2)]
    assert s.is_over() and s.current_player() is None
    over = events(s, "game_over")[0]
    assert (over["places"], over["last"], over["stopped"]) == ([3, 1, 2], 0, False)
    assert over["cards"][0] == ["6D", "6C", "6S", "8C", "JC", "JS"]
    assert s.places() == [3, 1, 2]


def test_four_player_scoring():  # SP-T23
    assert [placement_points(4, p, 10) for p in (1, 2, 3, 4)] == [35, 20, 9, 0]


def test_second_and_third_get_at_least_one_variable_point():  # SP-T24
    v = card_points(["10H"])
    assert v == 1
    assert [placement_points(4, p, v) for p in (1, 2, 3, 4)] == [26, 16, 6, 0]
    assert [placement_points(3, p, v) for p in (1, 2, 3)] == [26, 16, 0]
    assert [placement_points(2, p, v) for p in (1, 2)] == [26, 0]


def test_pokers_count_double_once():  # SP-T25
    assert card_points(["5H", "5D", "5C", "5S", "10H", "10D", "10C", "10S"]) == 14
    assert card_points(["AH", "AD", "AC", "AS"] * 2) == 6
    assert card_points(["JR", "JB", "3H"]) == 7


# --------------------------------------------------------------------------- several 10s, pickup


def test_two_tens_together_burn_the_pile_once():  # SP-T26
    s = new(hands={0: ["10C", "10D", "4C", "5C", "6C"], 1: ["3H", "4H", "5H", "6H", "7H"]},
            up={1: ["KS", "QS", "AS"]}, start="9C")
    play(s, "10C", "10D")
    burns = events(s, "burn")
    assert len(burns) == 1 and burns[0]["cards"] == ["9C", "10D", "10C"]
    assert s.current_player() == 1
    assert plays(s) == [["3H"], ["4H"], ["5H"], ["6H"], ["7H"]]


def test_pickup_needs_a_pile_and_leaves_the_next_player_free():  # SP-T27
    s = new(hands={0: ["10C", "8C", "4C", "5C", "6C"], 1: ["3H", "9H", "5H", "6H", "7H"]},
            up={0: ["KS", "QS", "AS"], 1: ["KD", "QD", "AD"]}, start="9C")
    play(s, "10C")
    assert PICKUP not in s.legal_actions()
    with pytest.raises(engine.IllegalAction, match=r"SP-A22"):
        s.apply(PICKUP)
    play(s, "9H")
    s.apply(PICKUP)
    assert s.view(0)["hand"] == ["4C", "5C", "6C", "8C", "9H"]
    assert s.view(None)["pile"] == [] and s.view(None)["reference"] is None
    assert plays(s) == [["3H"], ["5H"], ["6H"], ["7H"]]


# --------------------------------------------------------------------------- matches and limits


def test_a_match_of_several_games_adds_points_and_passes_the_deal_left():  # SP-A21, 4.3
    s = GAME.new_match(players=3, seed=7, options={"games": 3, "turn_limit": 5})
    while not s.is_over():
        s.apply(s.legal_actions()[0])
    games = events(s, "game")
    assert [(g["dealer"], g["first"]) for g in games] == [(2, 0), (0, 1), (1, 2)]
    overs = events(s, "game_over")
    assert len(overs) == 3 and all(o["stopped"] for o in overs)
    totals = [sum(o["points"][seat] for o in overs) for seat in range(3)]
    assert s.scores() == totals == overs[-1]["scores"]
    assert events(s, "match_over") == [{"type": "match_over", "scores": totals}]


def test_the_turn_limit_places_the_holders_by_their_card_points():  # EC-11
    s = GAME.new_match(players=4, seed=11, options={"turn_limit": 1})
    s.apply(s.legal_actions()[0])
    assert s.is_over()
    over = events(s, "game_over")[0]
    values = over["values"]
    assert over["stopped"] and over["turns"] == 1
    order = sorted(range(4), key=lambda seat: (values[seat], seat))
    assert [over["places"][seat] for seat in order] == [1, 2, 3, 4]
    v = values[over["last"]]
    assert over["last"] == order[-1]
    expected = [0] * 4
    for place, seat in enumerate(order[:3], start=1):
        expected[seat] = placement_points(4, place, v)
    assert s.scores() == expected


def test_stacked_decks_stack_the_first_games_in_turn():  # EC-1
    first, second = stack(2, start="5C"), stack(2, start="6C")
    s = GAME.new_match(players=2, seed=3, options={"games": 3, "turn_limit": 2}, deck=[first, second])
    starts = []
    while not s.is_over():
        if not starts or events(s, "start")[-1]["card"] != starts[-1]:
            starts.append(events(s, "start")[-1]["card"])
        s.apply(s.legal_actions()[-1])
    assert [e["card"] for e in events(s, "start")][:2] == ["5C", "6C"]


def test_deals_depend_on_the_seed_alone():  # EC-1
    a = GAME.new_match(players=3, seed=99, options={"games": 2, "turn_limit": 3})
    b = GAME.new_match(players=3, seed=99, options={"games": 2, "turn_limit": 3})
    while not a.is_over():
        a.apply(a.legal_actions()[0])
    while not b.is_over():
        b.apply(b.legal_actions()[-1])

    def deal(s):
        return [e for e in s.log if e["type"] in ("deal", "face_up", "face_down", "start")]

    assert deal(a) == deal(b)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"players": 1}, "2 to 4 players"),
        ({"players": 5}, "2 to 4 players"),
        ({"options": {"games": 0}}, "'games' must be at least 1"),
        ({"options": {"turn_limit": 0}}, "'turn_limit' must be at least 1"),
        ({"options": {"k_below_q": "yes"}}, "'k_below_q' must be true or false"),
        ({"options": {"dealer": 2}}, "'dealer' must be at most 1"),
        ({"options": {"jokers": False}}, "unknown option"),
        ({"deck": ["3C"] * 54}, "must be a dict"),
        ({"deck": {"main": list(FRENCH_DECK)}}, "must hold 54 cards"),
        ({"deck": {"main": list(FRENCH_DECK) + ["JR", "XX"]}}, "XX not in this deck"),
        ({"deck": {"main": list(FRENCH_DECK) + ["JR", "JR"]}}, "duplicate card"),
        ({"deck": {"main": ["JR"] + list(FRENCH_DECK) + ["JB"]}}, "no jokers"),
        ({"deck": {"main": list(FRENCH_DECK) + list(JOKERS), "spare": []}}, "takes the keys"),
        ({"deck": {"main": list(FRENCH_DECK) + list(JOKERS), "second": list(FRENCH_DECK)[1:]}}, "second must hold 52"),
        ({"deck": [stack(2), stack(2)]}, "2 stacked decks for a match of 1 games"),
    ],
)
def test_bad_players_options_and_decks_are_refused(kwargs, message):
    args = {"players": 2, "seed": 1, **kwargs}
    with pytest.raises(engine.InvalidOptions, match=message):
        GAME.new_match(**args)


@pytest.mark.parametrize(
    "action,message",
    [
        ({"type": "pass"}, "not an action of Spacca il mazzo"),
        ({"type": "flip", "slot": 0}, "SP-T20"),
        ({"type": "joker_dump"}, "no red joker"),
        ({"type": "play", "cards": []}, "non-empty list"),
        ({"type": "play", "cards": ["9H", "8C"]}, "one rank"),
        ({"type": "play", "cards": ["AC"]}, "holds no AC"),
        ({"type": "play", "cards": ["JR"]}, "SP-A15"),
        ({"type": "play", "cards": "9H"}, "non-empty list"),
        ("draw", "an object with a 'type'"),
    ],
)
def test_illegal_actions_name_the_rule_and_change_nothing(action, message):
    s = new(hands={0: ["9H", "9S", "5C", "4D", "6D"]}, up={0: ["KS", "QS", "AS"]}, start="9C")
    before = snapshot(s)
    with pytest.raises(engine.IllegalAction, match=message):
        s.apply(action)
    assert snapshot(s) == before


def test_only_the_red_joker_choice_is_legal_while_it_is_pending():  # SP-A14
    s = new(**red_joker_down_deal())
    red_joker_found(s)
    before = snapshot(s)
    for action, message in ((DRAW, "red joker"), ({"type": "joker_throw", "slot": 0}, "EC-6"),
                            ({"type": "joker_throw", "card": "KH"}, "EC-6")):
        with pytest.raises(engine.IllegalAction, match=message):
            s.apply(action)
    assert snapshot(s) == before


# --------------------------------------------------------------------------- views


def test_views_show_own_hand_counts_of_others_and_no_face_down_card():
    s = new(hands={0: ["4C", "5C", "6C", "7C", "8C"]}, up={0: ["KS", "QS", "AS"]},
            down={0: ["9H", "9D", "9C"], 1: ["JH", "JD", "JC"]}, start="3C")
    v0, v1, spectator = s.view(0), s.view(1), s.view(None)
    assert v0["hand"] == ["4C", "5C", "6C", "7C", "8C"] and v1["hand"] != v0["hand"]
    assert spectator["hand"] is None and "legal_actions" not in spectator
    assert v0["legal_actions"] == s.legal_actions() and "legal_actions" not in v1
    assert v1["table"][0] == {"seat": 0, "hand": 5, "up": ["KS", "QS", "AS"],
                              "down": [0, 1, 2], "place": None}
    text = repr(v0) + repr(v1) + repr(spectator)
    for card in ("9H", "9D", "9C", "JH", "JD", "JC"):
        assert f"'{card}'" not in text
    assert "'4C'" not in repr(v1) and "'4C'" not in repr(spectator)
    with pytest.raises(ValueError):
        s.view(2)


def test_a_view_is_json_ready_and_keeps_only_the_current_games_events():
    import json

    s = GAME.new_match(players=2, seed=4, options={"games": 2, "turn_limit": 4})
    for _ in range(6):
        s.apply(s.legal_actions()[0])
    v = s.view(s.current_player())
    assert json.loads(json.dumps(v)) == v
    assert v["game_no"] == 2 and v["events"][0]["type"] == "game" and v["events"][0]["game"] == 2
