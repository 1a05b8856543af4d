"""Spacca il mazzo (Spacc 'u mazz): shed every card before the others; 2 resets, 10 burns.

Rules: shared/rules/spacca_il_mazzo.md (SP-A1 … SP-A27), stacked decks in its README §5,
conventions EC-6, EC-7 and EC-11. Play goes clockwise: seat (i+1) mod N acts after seat i.

Cards: two French decks; deck 1 has the jokers ``JR`` (red) and ``JB`` (black). Each player
gets 5 cards in HAND (private), 3 FACE-UP (public) and 3 FACE-DOWN (nobody has seen them, not
even their owner; named by slot 0, 1, 2, EC-6). A starting card (never a joker or a 10) opens
the PILE; the rest of deck 1 is the MAIN deck, then deck 2 (the *second* deck) is drawn. E1 is
"the MAIN deck is exhausted".

Hierarchy (SP-A1): 3 < 4 < … < 9 < J < K < Q < A (option ``k_below_q``; ``false`` gives the
usual J < Q < K). A card beats the reference if its rank is equal or higher, or if it is a 2
(resets: the next player is FREE) or a 10 (burns the pile to OUT; the next player is FREE; the
player of a 10 does not play again, SP-A7). When the lowest of thrown cards is needed the
order goes on A < 2 < 10.

On his turn a player (4.4):

* with cards in hand: PLAYs one or more hand cards of one legal rank, to which equal face-up
  cards may be added (after E1 face-up cards may also be played alone, SP-A10); or DRAWs a
  card into his hand, which ends his turn with the pile untouched (SP-A6); or PICKs UP the pile
  (not when it is empty, SP-A22);
* with an empty hand and face-down cards: FLIPs one, unseen (compulsory, SP-A11; after E1 he
  may play face-up cards instead). A legal card is played; an illegal one goes into his hand
  with the whole pile (SP-A9);
* with only face-up cards: before E1 he must DRAW; after E1 he plays, draws (deck 2) or picks
  up.

Jokers go OUT as soon as they are seen (SP-A15). The red joker found face-down lets the player
throw one face-up or face-down card onto the pile, whatever its rank; drawn, it lets him throw
his whole hand (or, with an empty hand, one face-up/face-down card). Thrown cards set the
reference to the lowest of them and never reset or burn (SP-A13); the red joker is optional
(SP-A14). The black joker makes the player take the pile, or draw a penalty card from the
stock if the pile is empty (SP-A16, SP-A17). Every joker ends the turn.

A player with no cards left finishes; the game ends when one player still holds cards (the
last). His card points V (each rank once; a *poker*, 4 or more of a rank, counts double; jokers
0) pay 25 + V to the 1st, 15 + ⌈V/2⌉ to the 2nd, 5 + ⌈V/3⌉ to the 3rd (at least 1 variable
point each for 2nd and 3rd), 0 to the last (4.1, 4.7). A game stops after ``turn_limit`` turns
(EC-11): the players still holding cards are placed after the finished ones by their card
points (fewer first, then by their order of play in the game's first round).

Actions (shared/design/engine.md)::

    {"type": "play", "cards": [...]}        # hand and/or face-up cards of one rank (EC-7:
                                            # a code held in both zones is taken from the hand)
    {"type": "draw"}
    {"type": "pickup"}
    {"type": "flip", "slot": i}             # a face-down card, i in 0, 1, 2 (EC-6)
    {"type": "joker_dump"}                  # drawn red joker: throw the whole hand
    {"type": "joker_throw", "card": "QC"}   # red joker: throw a face-up card
    {"type": "joker_throw", "slot": i}      # red joker: throw a face-down card, unseen
    {"type": "joker_decline"}               # red joker: do nothing

The black joker offers no choice. A seat with a single legal action (the forced draw, a lone
flip) never gets asked: the engine plays it and logs it with ``"forced": true``.

Options: ``games`` (games in the match, default 1, SP-A21), ``k_below_q`` (default true),
``turn_limit`` (default 1000, EC-11), ``dealer`` (first dealer; the deal then passes to the
dealer's left, i.e. the next seat, and the seat after the dealer leads).

Scores are each seat's points summed over the games played so far.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from typing import Any, Self

from .cards import BLACK_JOKER, FRENCH_DECK, FRENCH_DECK_WITH_JOKERS, RED_JOKER, check_deck, match_rng, shuffled
from .core import Game, InvalidOptions, Option, State, dealer_option, shown, stacked_decks

#: Ranks in the seed's hierarchy (SP-A1), then the special 2 and 10; index = rank number.
RANKS = ("3", "4", "5", "6", "7", "8", "9", "J", "K", "Q", "A", "2", "10")
SUITS = ("H", "D", "C", "S")
R_K, R_Q, R_2, R_10 = 8, 9, 11, 12
#: Every card code; a card's index is rank * 4 + suit, the jokers 52 and 53.
CODES = tuple(r + s for r in RANKS for s in SUITS) + (RED_JOKER, BLACK_JOKER)
CARD_ORDER = {c: i for i, c in enumerate(CODES)}
RANK_OF = {c: i >> 2 for i, c in enumerate(CODES)}  # jokers: 13
#: A hand (or face-up zone) keeps, per rank, the counts of its four suits as base-3 digits
#: (two decks: at most 2 copies of a code); POW_OF[c] is the weight of c's digit.
POW3 = (1, 3, 9, 27)
POW_OF = {c: POW3[i & 3] for i, c in enumerate(CODES[:52])}
#: The codes of one rank held, for every base-3 key: DECODE[rank][key].
DECODE = tuple(
    tuple(
        tuple(RANKS[r] + SUITS[i] for i in range(4) for _ in range((key // POW3[i]) % 3))
        for key in range(81)
    )
    for r in range(13)
)

#: Card points of each rank (4.1); a poker (4 or more) counts double.
BASE_POINTS = (7, 6, 6, 6, 5, 5, 5, 4, 4, 4, 3, 2, 1)
#: Fixed placement points of the 1st, 2nd and 3rd places (4.1).
FIXED_POINTS = (25, 15, 5)
FORBIDDEN_START = frozenset({RED_JOKER, BLACK_JOKER} | {"10" + s for s in SUITS})
JOKERS = (RED_JOKER, BLACK_JOKER)

DRAW = {"type": "draw"}
PICKUP = {"type": "pickup"}
FLIPS = tuple({"type": "flip", "slot": i} for i in range(3))
JOKER_DUMP = {"type": "joker_dump"}
JOKER_DECLINE = {"type": "joker_decline"}
JOKER_THROW_SLOT = tuple({"type": "joker_throw", "slot": i} for i in range(3))
JOKER_THROW_CARD = {c: {"type": "joker_throw", "card": c} for c in CODES[:52]}
ACTION_TYPES = ("play", "draw", "pickup", "flip", "joker_dump", "joker_throw", "joker_decline")

# Pending red-joker choices.
NO_JOKER, JOKER_HAND, JOKER_ONE = 0, 1, 2

_PLAYS: dict[int, tuple[dict, ...]] = {}


def _plays(rank: int, hand_key: int, up_key: int, up_alone: int) -> tuple[dict, ...]:
    """Every PLAY of ``rank`` from a hand and face-up zone holding these base-3 keys, in
    canonical order (fewer cards first). Without ``up_alone`` (before E1) a play must take at
    least one hand card (SP-A10); a code held in both zones is taken from the hand (EC-7)."""
    key = ((rank * 81 + hand_key) * 81 + up_key) * 2 + up_alone
    plays = _PLAYS.get(key)
    if plays is None:
        held = [(hand_key // p) % 3 for p in POW3]
        avail = [h + (up_key // p) % 3 for h, p in zip(held, POW3)]
        sets = []
        for counts in itertools.product(*(range(a + 1) for a in avail)):
            if not any(counts):
                continue
            if not up_alone and not any(k and h for k, h in zip(counts, held)):
                continue
            sets.append([rank * 4 + i for i in range(4) for _ in range(counts[i])])
        sets.sort(key=lambda s: (len(s), s))
        plays = _PLAYS[key] = tuple({"type": "play", "cards": [CODES[i] for i in s]} for s in sets)
    return plays


def card_points(cards: list[str] | tuple[str, ...]) -> int:
    """V: each rank held counts its points once, doubled for a poker of 4 or more (SP-A19);
    jokers count 0 (SP-A15)."""
    counts = [0] * 14
    for c in cards:
        counts[RANK_OF[c]] += 1
    return sum(BASE_POINTS[r] * (2 if n >= 4 else 1) for r, n in enumerate(counts[:13]) if n)


def placement_points(players: int, place: int, value: int) -> int:
    """Points of ``place`` (1 = first) in a game of ``players`` whose last player holds V =
    ``value`` card points: fixed points plus V, ⌈V/2⌉ or ⌈V/3⌉, the 2nd's and 3rd's variable
    points at least 1 (4.1, SP-A20); the last scores 0."""
    if place >= players:
        return 0
    variable = -(-value // place)
    if place > 1:
        variable = max(1, variable)
    return FIXED_POINTS[place - 1] + variable


class _Hierarchy:
    """The ranks in order, lowest first (SP-A1): a card's *level* is its rank's position,
    0 (the 3) … 10 (the A), 11 (the 2), 12 (the 10). Zones are stored by level, so the ranks
    a reference allows are one slice."""

    def __init__(self, k_below_q: bool) -> None:
        ranks = list(range(13))
        if not k_below_q:
            ranks[R_K], ranks[R_Q] = ranks[R_Q], ranks[R_K]
        self.rank_at = tuple(ranks)
        self.level_of = {c: ranks.index(RANK_OF[c]) for c in CODES[:52]}
        self.decode = tuple(DECODE[r] for r in ranks)


HIERARCHIES = {True: _Hierarchy(True), False: _Hierarchy(False)}
LEVEL_2 = 11  # levels 11 and 12 are the 2 and the 10: they reset the reference


class SpaccaIlMazzoState(State):
    card_order = CARD_ORDER
    dealer: int  # set by each game's deal (_start_game), from the previous game's dealer

    # ------------------------------------------------------------------ setup

    def _setup(self, deck: Any) -> None:
        opts = self.options
        n = self.players
        self.hierarchy = HIERARCHIES[opts["k_below_q"]]
        self.level_of = self.hierarchy.level_of
        self.n_games: int = opts["games"]
        self.turn_limit: int = opts["turn_limit"]
        stacks = stacked_decks(deck)
        if len(stacks) > self.n_games:
            raise InvalidOptions(f"{len(stacks)} stacked decks for a match of {self.n_games} games")
        self._stacked = [self._check_stack(d, g) for g, d in enumerate(stacks)]
        self.points = [0] * n
        self.game_no = -1
        self._start_game()

    def _check_stack(self, deck: Any, g: int) -> tuple[list[str], list[str] | None]:
        what = f"deck for game {g + 1}"
        if not isinstance(deck, dict):
            raise InvalidOptions(f"{what} must be a dict {{'main': [54 cards], 'second': [52 cards]}}")
        if set(deck) - {"main", "second"} or "main" not in deck:
            raise InvalidOptions(f"{what} takes the keys 'main' (required) and 'second', got {sorted(deck)}")
        main = check_deck(deck["main"], FRENCH_DECK_WITH_JOKERS, f"{what}: main")
        second = deck.get("second")
        if second is not None:
            second = check_deck(second, FRENCH_DECK, f"{what}: second")
        n = self.players
        early = [c for c in main[: 8 * n] if c in JOKERS]
        if early:
            raise InvalidOptions(
                f"{what}: main has {', '.join(early)} among its first {8 * n} cards, the hand and "
                "face-up deal, which has no jokers (SP-A4)"
            )
        return main, second

    def _start_game(self) -> None:
        n = self.players
        self.game_no += 1
        g = self.game_no
        # The deal passes to the dealer's left, the next seat (4.3).
        self.dealer = dealer = (self.dealer + 1) % n if g else self.options["dealer"]
        self.first = first = (dealer + 1) % n
        order = [(first + i) % n for i in range(n)]
        rng = match_rng(self.seed, "game", g)
        stacked = g < len(self._stacked)
        if stacked:
            main, second = self._stacked[g]
            second = list(second) if second is not None else shuffled(FRENCH_DECK, rng)
            seq = list(main)
        else:
            # Jokers out for the hand and face-up deal, back in for the face-down deal.
            seq = shuffled(FRENCH_DECK, rng)
            seq[8 * n :] = shuffled(seq[8 * n :] + list(JOKERS), rng)
            second = shuffled(FRENCH_DECK, rng)
        self.game_start = len(self.log)
        self._vcache: dict[int | None, list] = {}
        self._event({"type": "game", "game": g + 1, "dealer": dealer, "first": first})
        self.hk = hk = [0] * (13 * n)  # hand keys by seat * 13 + level
        self.uk = uk = [0] * (13 * n)  # face-up keys
        self.hn = [5] * n
        self.un = [3] * n
        self.dn = [3] * n
        self.down: list[str | None] = [None] * (3 * n)
        level_of = self.level_of
        pos = 0
        for s in order:
            cards = seq[pos : pos + 5]
            pos += 5
            for c in cards:
                hk[s * 13 + level_of[c]] += POW_OF[c]
            self._event(
                {"type": "deal", "seat": s, "count": 5, "cards": _sorted(cards)},
                s,
                {"type": "deal", "seat": s, "count": 5},
            )
        for s in order:
            cards = seq[pos : pos + 3]
            pos += 3
            for c in cards:
                uk[s * 13 + level_of[c]] += POW_OF[c]
            self._event({"type": "face_up", "seat": s, "cards": _sorted(cards)})
        for s in order:
            self.down[3 * s : 3 * s + 3] = seq[pos : pos + 3]
            pos += 3
        # Nobody sees the face-down cards, their owner included.
        self._event({"type": "face_down", "cards": [self.down[3 * s : 3 * s + 3] for s in range(n)]}, ())
        start = seq[pos]
        main = seq[pos + 1 :]
        # At least 10 cards remain and only 6 are forbidden, so this ends.
        while start in FORBIDDEN_START:
            # SP-A5: back into the MAIN deck (stacked: to its bottom, README §5), another one up.
            self._event({"type": "start_rejected", "card": start})
            if stacked:
                main.append(start)
            else:
                main = shuffled(main + [start], rng)
            start = main.pop(0)
        self.pile = [start]
        self.ref = self._ref_after(start)
        self.out: tuple[str, ...] = ()
        self.main = tuple(main)
        self.second = tuple(second)
        self.mpos = 0
        self.spos = 0
        self.e1 = 0
        self.place = [0] * n
        self.finished: list[int] = []
        self.turns = 0
        self.joker = NO_JOKER
        self.hp: list[tuple[dict, ...]] = [()] * (13 * n)  # the plays each level allows
        for s in range(n):
            self._sync_seat(s)
        self._event({"type": "start", "card": start, "main": len(main), "second": len(second)})
        self._turn = first

    # ------------------------------------------------------------------ legal actions

    def _ref_after(self, card: str) -> int:
        """The lowest level legal once ``card`` is the reference: its own, or 0 (FREE) for a 2
        or a 10 (4.5)."""
        level = self.level_of[card]
        return 0 if level >= LEVEL_2 else level

    def _sync(self, i: int) -> None:
        """Recompute the plays of one seat and level (index seat * 13 + level)."""
        h = self.hk[i]
        u = self.uk[i]
        e1 = self.e1
        if h or (e1 and u):
            self.hp[i] = _PLAYS.get(((self.hierarchy.rank_at[i % 13] * 81 + h) * 81 + u) * 2 + e1) or _plays(
                self.hierarchy.rank_at[i % 13], h, u, e1
            )
        else:
            self.hp[i] = ()

    def _sync_seat(self, seat: int) -> None:
        for i in range(seat * 13, seat * 13 + 13):
            self._sync(i)

    def _legal_actions(self) -> list[dict]:
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        if self.joker:
            return self._joker_choices(seat)
        base = seat * 13
        if self.hn[seat]:
            acts = list(chain.from_iterable(self.hp[base + self.ref : base + 13]))
            if self.spos < len(self.second):  # the MAIN deck, then the second (4.4)
                acts.append(DRAW)
            if self.pile:
                acts.append(PICKUP)
            return acts
        if self.dn[seat]:
            # SP-A11: flip; after E1 face-up cards may be played instead.
            acts = list(chain.from_iterable(self.hp[base + self.ref : base + 13])) if self.e1 else []
            d = 3 * seat
            down = self.down
            for i in range(3):
                if down[d + i] is not None:
                    acts.append(FLIPS[i])
            return acts
        if not self.e1:
            return [DRAW]  # only face-up cards: "bisognerà sempre e per forza pescare"
        acts = list(chain.from_iterable(self.hp[base + self.ref : base + 13]))
        if self.spos < len(self.second):
            acts.append(DRAW)
        if self.pile:
            acts.append(PICKUP)
        return acts

    def _joker_choices(self, seat: int) -> list[dict]:
        if self.joker == JOKER_HAND:
            return [JOKER_DUMP, JOKER_DECLINE]
        acts: list[dict] = [JOKER_THROW_CARD[c] for c in dict.fromkeys(self._up_cards(seat))]
        d = 3 * seat
        for i in range(3):
            if self.down[d + i] is not None:
                acts.append(JOKER_THROW_SLOT[i])
        acts.append(JOKER_DECLINE)
        return acts

    def _why_illegal(self, action: dict) -> str:
        kind = action.get("type")
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        if kind not in ACTION_TYPES:
            return f"{kind!r} is not an action of Spacca il mazzo: use {', '.join(ACTION_TYPES)} (4.4, 4.6)"
        if self.joker == JOKER_HAND:
            return f"seat {seat} drew the red joker: 'joker_dump' or 'joker_decline' only (4.6, SP-A14)"
        if self.joker:
            if kind == "joker_throw":
                return (
                    f"the red joker throws one of seat {seat}'s face-up cards or a face-down slot "
                    f"still there, got {shown(action)} (4.6, EC-6)"
                )
            return f"seat {seat} must first use or decline the red joker: 'joker_throw' or 'joker_decline' (4.6, SP-A14)"
        if kind.startswith("joker"):
            return f"{kind!r} is not allowed: seat {seat} has no red joker to use (4.6)"
        hand = self.hn[seat]
        down = self.dn[seat]
        if kind == "flip":
            if hand:
                return "'flip' is not allowed: face-down cards are played only once the hand is empty (4.4, SP-T20)"
            return f"seat {seat} has no face-down card in slot {action.get('slot')!r} (EC-6, SP-A12)"
        if not hand and down and (kind != "play" or not self.e1):
            return f"{kind!r} is not allowed: with an empty hand seat {seat} must flip a face-down card (SP-A11)"
        if not hand and not down and not self.e1:
            return f"{kind!r} is not allowed: with only face-up cards before E1 seat {seat} must draw (4.4)"
        if kind == "draw":
            return "'draw' is not allowed: the MAIN and second decks are both empty (SP-A26)"
        if kind == "pickup":
            return "'pickup' is not allowed: the pile is empty (SP-A22)"
        return self._why_illegal_play(seat, action.get("cards"))

    def _why_illegal_play(self, seat: int, cards: Any) -> str:
        if not isinstance(cards, list) or not cards or not all(c in CARD_ORDER for c in cards):
            return f"'play' needs a non-empty list of card codes, got {cards!r} (4.4)"
        if any(c in JOKERS for c in cards):
            return "a joker is never held or played: it goes out as soon as it is seen (SP-A15)"
        levels = {self.level_of[c] for c in cards}
        if len(levels) > 1:
            return f"cards played together must be of one rank, got {cards!r} (4.4)"
        level = levels.pop()
        i = seat * 13 + level
        hand = list(self.hierarchy.decode[level][self.hk[i]])
        up = list(self.hierarchy.decode[level][self.uk[i]])
        from_hand = 0
        for c in cards:
            if c in hand:
                hand.remove(c)
                from_hand += 1
            elif c in up:
                up.remove(c)
            else:
                return f"seat {seat} holds no {c} in hand or face-up for {cards!r} (4.4, EC-7)"
        if not from_hand and not self.e1:
            return (
                f"face-up cards may be played only with an equal hand card until the MAIN deck "
                f"is exhausted, got {cards!r} (SP-A10)"
            )
        return (
            f"{cards[0][:-1]} does not beat the reference {self.pile[-1][:-1]} "
            "(4.4: equal or higher, or a 2 or a 10; SP-A1)"
        )

    # ------------------------------------------------------------------ actions

    def _do(self, action: dict, forced: bool) -> None:
        seat = self._turn
        assert seat is not None  # _do runs only while a seat is to act
        kind = action["type"]
        if kind == "play":
            self._play(seat, action["cards"], forced)
        elif kind == "draw":
            self._draw(seat, forced, False)
        elif kind == "pickup":
            self._event({"type": "pickup", "seat": seat, "cards": self.pile, "forced": forced})
            self._take_pile(seat)
            self._end_turn(seat)
        elif kind == "flip":
            self._flip(seat, action["slot"], forced)
        else:
            self._use_red_joker(seat, action)

    def _play(self, seat: int, cards: list[str], forced: bool) -> None:
        level = self.level_of[cards[0]]
        i = seat * 13 + level
        hk = self.hk[i]
        up = []
        for c in cards:
            p = POW_OF[c]
            if (hk // p) % 3:
                hk -= p  # EC-7: the hand first
            else:
                self.uk[i] -= p
                up.append(c)
        self.hk[i] = hk
        self._sync(i)
        self.hn[seat] -= len(cards) - len(up)
        self.un[seat] -= len(up)
        self.pile += cards
        self._event({"type": "play", "seat": seat, "cards": list(cards), "up": up, "forced": forced})
        if level < LEVEL_2:
            self.ref = level
        else:
            self.ref = 0  # 2 and 10: the next player is FREE (4.5)
            if level > LEVEL_2:
                self._burn(seat)
        self._end_turn(seat)

    def _burn(self, seat: int) -> None:
        """A 10: the whole pile, the 10s included, goes OUT (4.5, SP-A7)."""
        self.out += tuple(self.pile)
        self._event({"type": "burn", "seat": seat, "cards": self.pile})
        self.pile = []

    def _take(self) -> tuple[str | None, str]:
        """The top card of the stock: the MAIN deck, then the second (4.4); None if both are empty."""
        if not self.e1:
            card = self.main[self.mpos]
            self.mpos += 1
            if self.mpos == len(self.main):
                self.e1 = 1  # E1: face-up cards may now be played alone (SP-A10)
                for s in range(self.players):
                    self._sync_seat(s)
            return card, "main"
        if self.spos < len(self.second):
            self.spos += 1
            return self.second[self.spos - 1], "second"
        return None, "none"

    def _take_pile(self, seat: int) -> None:
        hk = self.hk
        base = seat * 13
        level_of = self.level_of
        touched = set()
        for c in self.pile:
            i = base + level_of[c]
            hk[i] += POW_OF[c]
            touched.add(i)
        for i in touched:
            self._sync(i)
        self.hn[seat] += len(self.pile)
        self.pile = []
        self.ref = 0

    def _to_hand(self, seat: int, card: str) -> None:
        i = seat * 13 + self.level_of[card]
        self.hk[i] += POW_OF[card]
        self._sync(i)
        self.hn[seat] += 1

    def _draw(self, seat: int, forced: bool, penalty: bool) -> None:
        card, deck = self._take()
        event = {"type": "draw", "seat": seat, "card": card, "deck": deck, "penalty": penalty, "forced": forced}
        if card is None:  # only a penalty draw can find the stock empty (SP-A16)
            self._event(event)
            self._end_turn(seat)
        elif card in JOKERS:
            self._event(event)
            self._joker(seat, card, drawn=True)
        else:
            self._event(
                event, seat, {"type": "draw", "seat": seat, "deck": deck, "penalty": penalty, "forced": forced}
            )
            self._to_hand(seat, card)
            self._end_turn(seat)

    def _flip(self, seat: int, slot: int, forced: bool) -> None:
        i = 3 * seat + slot
        card = self.down[i]
        assert card is not None  # only a slot that holds a card is flipped
        self.down[i] = None
        self.dn[seat] -= 1
        event = {"type": "flip", "seat": seat, "slot": slot, "card": card, "forced": forced}
        if card in JOKERS:
            self._event(event)
            self._joker(seat, card, drawn=False)
            return
        level = self.level_of[card]
        if level >= self.ref:
            event["result"] = "played"
            self._event(event)
            self.pile.append(card)
            if level < LEVEL_2:
                self.ref = level
            else:
                self.ref = 0
                if level > LEVEL_2:
                    self._burn(seat)
        else:
            # SP-A9: the pile and the flipped card go into his hand.
            event["result"] = "picked_up"
            event["pile"] = self.pile
            self._event(event)
            self._take_pile(seat)
            self._to_hand(seat, card)
        self._end_turn(seat)

    def _joker(self, seat: int, card: str, drawn: bool) -> None:
        """A joker just drawn or flipped: it goes OUT and takes effect (4.6)."""
        self.out += (card,)
        if card == BLACK_JOKER:
            self._event({"type": "black_joker", "seat": seat, "cards": list(self.pile)})
            if self.pile:
                self._take_pile(seat)
                self._end_turn(seat)
            else:
                self._draw(seat, True, True)  # a penalty card instead (SP-A16, SP-A17)
        elif drawn and self.hn[seat]:
            self.joker = JOKER_HAND
        elif self.un[seat] or self.dn[seat]:
            self.joker = JOKER_ONE
        else:
            self._event({"type": "red_joker", "seat": seat, "choice": "none"})
            self._end_turn(seat)

    def _use_red_joker(self, seat: int, action: dict) -> None:
        kind = action["type"]
        self.joker = NO_JOKER
        if kind == "joker_dump":
            cards = self._hand_cards(seat)
            base = seat * 13
            self.hk[base : base + 13] = [0] * 13
            self._sync_seat(seat)
            self.hn[seat] = 0
            self._throw(seat, cards, {"type": "red_joker", "seat": seat, "choice": "dump"})
        elif kind == "joker_decline":
            self._event({"type": "red_joker", "seat": seat, "choice": "decline"})
        elif "card" in action:
            card = action["card"]
            i = seat * 13 + self.level_of[card]
            self.uk[i] -= POW_OF[card]
            self._sync(i)
            self.un[seat] -= 1
            self._throw(seat, [card], {"type": "red_joker", "seat": seat, "choice": "up"})
        else:
            slot = action["slot"]
            i = 3 * seat + slot
            card = self.down[i]
            self.down[i] = None
            self.dn[seat] -= 1
            event = {"type": "red_joker", "seat": seat, "choice": "down", "slot": slot}
            if card == BLACK_JOKER:  # the other joker: out, no effect, same reference (4.6)
                self.out += (card,)
                event["cards"] = [card]
                self._event(event)
            else:
                self._throw(seat, [card], event)
        self._end_turn(seat)

    def _throw(self, seat: int, cards: list[str], event: dict) -> None:
        """Cards thrown by the red joker: onto the pile, the lowest on top as the reference;
        no reset, no burn (SP-A13)."""
        cards.sort(key=self.level_of.__getitem__, reverse=True)
        self.pile += cards
        event["cards"] = cards
        self._event(event)
        self.ref = self._ref_after(cards[-1])

    # ------------------------------------------------------------------ turns and games

    def _end_turn(self, seat: int) -> None:
        n = self.players
        if not (self.hn[seat] or self.un[seat] or self.dn[seat]):
            self.finished.append(seat)
            self.place[seat] = len(self.finished)
            self._event({"type": "finish", "seat": seat, "place": len(self.finished)})
        self.turns += 1
        if len(self.finished) == n - 1:
            self._end_game(False)  # one player still holds cards: the last (SP-A18)
        elif self.turns >= self.turn_limit:
            self._end_game(True)  # EC-11
        else:
            nxt = (seat + 1) % n
            while self.place[nxt]:
                nxt = (nxt + 1) % n
            self._turn = nxt

    def _end_game(self, stopped: bool) -> None:
        n = self.players
        first = self.first
        holding = {s: self._cards_of(s) for s in range(n) if not self.place[s]}
        value = {s: card_points(c) for s, c in holding.items()}
        # EC-11: fewer card points first, then the earlier in the game's first round.
        rest = sorted(holding, key=lambda s: (value[s], (s - first) % n))
        places = list(self.place)
        for k, s in enumerate(rest):
            places[s] = len(self.finished) + 1 + k
        last = rest[-1]
        gained = [placement_points(n, places[s], value[last]) for s in range(n)]
        for s in range(n):
            self.points[s] += gained[s]
        self._event(
            {
                "type": "game_over",
                "game": self.game_no + 1,
                "stopped": stopped,
                "turns": self.turns,
                "places": places,
                "last": last,
                "cards": [_sorted(holding[s]) if s in holding else None for s in range(n)],
                "values": [value.get(s) for s in range(n)],
                "points": gained,
                "scores": list(self.points),
            }
        )
        if self.game_no + 1 < self.n_games:
            self._start_game()
        else:
            self.place = places
            self._turn = None
            self._event({"type": "match_over", "scores": list(self.points)})

    # ------------------------------------------------------------------ zones

    def _zone_cards(self, keys: list[int], seat: int) -> list[str]:
        decode = self.hierarchy.decode
        base = seat * 13
        out: list[str] = []
        for level in range(13):
            k = keys[base + level]
            if k:
                out += decode[level][k]
        return out

    def _hand_cards(self, seat: int) -> list[str]:
        return self._zone_cards(self.hk, seat)

    def _up_cards(self, seat: int) -> list[str]:
        return self._zone_cards(self.uk, seat)

    def _cards_of(self, seat: int) -> list[str]:
        """Every card ``seat`` still holds: hand, face-up and face-down."""
        down = [c for c in self.down[3 * seat : 3 * seat + 3] if c is not None]
        return self._hand_cards(seat) + self._up_cards(seat) + down

    def zones(self) -> dict[str, Any]:
        """Every card of the current game by zone, private parts included (for tests and tools;
        never show it to a player)."""
        n = self.players
        return {
            "hands": [self._hand_cards(s) for s in range(n)],
            "up": [self._up_cards(s) for s in range(n)],
            "down": [self.down[3 * s : 3 * s + 3] for s in range(n)],
            "main": list(self.main[self.mpos :]),
            "second": list(self.second[self.spos :]),
            "pile": list(self.pile),
            "out": list(self.out),
        }

    # ------------------------------------------------------------------ results and views

    def scores(self) -> list[int]:
        """Each seat's points over the games played so far."""
        return list(self.points)

    def _copy_into(self, new: Self) -> None:
        new.hk = self.hk.copy()
        new.uk = self.uk.copy()
        new.hp = self.hp.copy()
        new.hn = self.hn.copy()
        new.un = self.un.copy()
        new.dn = self.dn.copy()
        new.down = self.down.copy()
        new.pile = self.pile.copy()
        new.place = self.place.copy()
        new.finished = self.finished.copy()
        new.points = self.points.copy()
        new._vcache = {}

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (None: a spectator): the current game and the scores."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        down = self.down
        table = [
            {
                "seat": s,
                "hand": self.hn[s],
                "up": self._up_cards(s),
                "down": [i for i in range(3) if down[3 * s + i] is not None],
                "place": self.place[s] or None,
            }
            for s in range(self.players)
        ]
        turn = self._turn
        pile = self.pile
        # The current game's events, extended from a per-seat cache.
        cached = self._vcache.get(seat)
        if cached is None:
            cached = self._vcache[seat] = [self.game_start, []]
        if cached[0] < len(self.log):
            cached[1] += self._events_for(seat, cached[0])
            cached[0] = len(self.log)
        view = {
            "game": "spacca_il_mazzo",
            "seat": seat,
            "players": self.players,
            "game_no": self.game_no + 1,
            "games": self.n_games,
            "dealer": self.dealer,
            "current_player": turn,
            "hand": self._hand_cards(seat) if seat is not None else None,
            "table": table,
            "pile": list(pile),
            "reference": pile[-1][:-1] if pile and self.level_of[pile[-1]] < LEVEL_2 else None,
            "main": len(self.main) - self.mpos,
            "second": len(self.second) - self.spos,
            "main_exhausted": bool(self.e1),
            "out": len(self.out),
            "red_joker": ("dump", "one")[self.joker - 1] if self.joker and turn is not None else None,
            "turn": self.turns,
            "turn_limit": self.turn_limit,
            "k_below_q": self.hierarchy is HIERARCHIES[True],
            "scores": list(self.points),
            "events": list(cached[1]),
        }
        if seat is not None and seat == turn:
            view["legal_actions"] = self.legal_actions()
        return view


def _sorted(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


class SpaccaIlMazzo(Game[SpaccaIlMazzoState]):
    name = "spacca_il_mazzo"
    title = "Spacca il mazzo (Spacc 'u mazz)"
    min_players = 2
    max_players = 4
    state_class = SpaccaIlMazzoState
    options = {
        "games": Option(1, "games in the match; points add up (SP-A21)", low=1),
        "k_below_q": Option(
            True, "true: J < K < Q < A, the seed's order (SP-A1); false: J < Q < K < A", kind=bool
        ),
        "turn_limit": Option(1000, "turns after which a game stops (EC-11)", low=1),
        "dealer": dealer_option(),
    }

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> SpaccaIlMazzoState:
        """A playable state consistent with ``view`` (see :meth:`engine.Game.determinize`).

        Kept exactly: the seat's hand, every face-up card, the pile, the counts of every zone,
        the turn, places, scores and the red-joker choice pending. Known too, from the view's
        events: the cards that went OUT (burns, jokers) and, for each opponent, the cards he is
        known to hold (a pile he picked up, minus what he has played from his hand since).
        Sampled uniformly from the cards unaccounted for (the two decks minus all of the
        above), in canonical order: the rest of each opponent's hand, every face-down card
        (the seat's own included: nobody has seen them), the MAIN and the second deck. Jokers
        go only where deck 1 still lies (face-down slots, MAIN). Later games of the match are
        dealt from a fresh seed drawn from ``rng``.

        Not modelled: which deck a card came from (the sampled MAIN or second deck may hold a
        code twice), and what opponents' choices suggest about their hands. The sample's log
        is the view's events (the seat's private ones hidden from the others), so the sample's
        ``view(seat) == view``; other seats' views of it lack their own private events, and
        its ``to_json()`` does not replay anything.
        """
        return _determinize(self, view, rng)


def _known_from_events(view: Mapping[str, Any]) -> tuple[list[str], list[dict[str, int]]]:
    """The cards that went OUT this game, and the cards each seat is known to hold in hand,
    read from the public events of the view (4.5, 4.6, SP-A9, SP-A15)."""
    out: list[str] = []
    known: list[dict[str, int]] = [{} for _ in range(view["players"])]
    for e in view["events"]:
        kind = e["type"]
        if kind == "play":
            k = known[e["seat"]]
            if k:
                up = list(e["up"])
                for c in e["cards"]:
                    if c in up:
                        up.remove(c)
                    elif k.get(c):
                        k[c] -= 1  # a copy of a known card: which one left makes no difference
        elif kind == "pickup" or kind == "black_joker":
            k = known[e["seat"]]
            for c in e["cards"]:
                k[c] = k.get(c, 0) + 1
        elif kind == "burn":
            out += e["cards"]
        elif kind == "flip":
            card = e["card"]
            if card in JOKERS:
                out.append(card)
            elif e["result"] == "picked_up":
                k = known[e["seat"]]
                for c in e["pile"] + [card]:
                    k[c] = k.get(c, 0) + 1
        elif kind == "draw":
            if e.get("card") in JOKERS:
                out.append(e["card"])
        elif kind == "red_joker":
            if e["choice"] == "dump":
                known[e["seat"]].clear()
            elif e["choice"] == "down" and e["cards"][0] in JOKERS:
                out.append(e["cards"][0])  # the other joker, thrown unseen: out (4.6)
    return out, known


_TWO_DECKS = Counter(FRENCH_DECK_WITH_JOKERS) + Counter(FRENCH_DECK)
#: The last view analysed and what it gave: a search bot determinizes one view many times.
_LAST: list[Any] = [None, -1, None]


def _analyse(view: Mapping[str, Any]) -> tuple:
    """What ``view`` says about the hidden cards: OUT, each seat's known hand cards, the
    unseen cards (jokers apart, canonical order) and how many of each zone are unknown."""
    events = view["events"]
    if _LAST[0] is view and _LAST[1] == len(events):
        return _LAST[2]
    n = view["players"]
    seat = view["seat"]
    if not isinstance(seat, int):
        raise ValueError("determinize needs a seat's view, not a spectator's")
    table = view["table"]
    out, known = _known_from_events(view)
    known_cards = [[c for c, m in k.items() for _ in range(m)] for k in known]
    known_cards[seat] = list(view["hand"])
    pool = _TWO_DECKS.copy()
    for part in (out, view["pile"], *(t["up"] for t in table), *known_cards):
        pool.subtract(part)
    if min(pool.values()) < 0:
        raise ValueError("the view is inconsistent: a card is accounted for twice")
    jokers = [c for c in JOKERS if pool[c]]
    unseen = [c for c in CODES[:52] for _ in range(pool[c])]  # canonical order
    missing = [table[s]["hand"] - len(known_cards[s]) for s in range(n)]
    deck1 = sum(len(t["down"]) for t in table) + view["main"]
    if min(missing) < 0 or len(jokers) > deck1 or len(unseen) + len(jokers) != sum(missing) + deck1 + view["second"]:
        raise ValueError("the view is inconsistent: zone sizes do not match the unseen cards")
    vis = [_visibility(e, seat) for e in events]
    found = (out, known_cards, jokers, unseen, missing, deck1, vis)
    _LAST[:] = [view, len(events), found]
    return found


def _determinize(game: SpaccaIlMazzo, view: Mapping[str, Any], rng: random.Random) -> SpaccaIlMazzoState:
    n = view["players"]
    table = view["table"]
    out, known_cards, jokers, unseen, missing, deck1, vis = _analyse(view)
    # Jokers lie only where deck 1 still is: face-down slots and MAIN.
    joker_at = dict(zip(rng.sample(range(deck1), len(jokers)), jokers)) if jokers else {}
    rest = shuffled(unseen, rng)
    pos = 0
    hands = []
    for s in range(n):
        hands.append(known_cards[s] + rest[pos : pos + missing[s]])
        pos += missing[s]
    slots = []
    for i in range(deck1):
        card = joker_at.get(i)
        if card is None:
            card = rest[pos]
            pos += 1
        slots.append(card)
    second = rest[pos:]

    state = object.__new__(SpaccaIlMazzoState)
    k_below_q = view["k_below_q"]
    game_no = view["game_no"] - 1
    dealer = view["dealer"]
    state.game = game
    state.players = n
    state.seed = rng.randrange(2**63)  # deals the later games of the match afresh
    state.options = {
        "games": view["games"],
        "k_below_q": k_below_q,
        "turn_limit": view["turn_limit"],
        "dealer": (dealer - game_no) % n,
    }
    state.deck = None
    state.actions = []
    state.hierarchy = h = HIERARCHIES[k_below_q]
    state.level_of = level_of = h.level_of
    state.n_games = view["games"]
    state.turn_limit = view["turn_limit"]
    state._stacked = []
    state.points = list(view["scores"])
    state.game_no = game_no
    state.dealer = dealer
    events = view["events"]
    state.first = events[0]["first"] if events and events[0]["type"] == "game" else (dealer + 1) % n
    # The log is what the seat saw; its own private events stay hidden from the others.
    state.log = list(events)
    state._vis = list(vis)
    state.game_start = 0
    state._vcache = {}
    state.hk = hk = [0] * (13 * n)
    state.uk = uk = [0] * (13 * n)
    for s in range(n):
        for c in hands[s]:
            hk[s * 13 + level_of[c]] += POW_OF[c]
        for c in table[s]["up"]:
            uk[s * 13 + level_of[c]] += POW_OF[c]
    state.hn = [len(c) for c in hands]
    state.un = [len(t["up"]) for t in table]
    state.dn = [len(t["down"]) for t in table]
    down: list[str | None] = [None] * (3 * n)
    state.down = down
    i = 0
    for s in range(n):
        for slot in table[s]["down"]:
            down[3 * s + slot] = slots[i]
            i += 1
    state.pile = pile = list(view["pile"])
    state.ref = 0 if not pile else (0 if level_of[pile[-1]] >= LEVEL_2 else level_of[pile[-1]])
    state.out = tuple(out) + ("?",) * (view["out"] - len(out))  # only its size is ever read
    state.main = tuple(slots[i:])
    state.second = tuple(second)
    state.mpos = 0
    state.spos = 0
    state.e1 = 1 if view["main_exhausted"] else 0
    state.place = [t["place"] or 0 for t in table]
    state.finished = sorted((s for s in range(n) if table[s]["place"]), key=lambda s: table[s]["place"])
    state.turns = view["turn"]
    state.joker = {None: NO_JOKER, "dump": JOKER_HAND, "one": JOKER_ONE}[view["red_joker"]]
    state.hp = [()] * (13 * n)
    for s in range(n):
        state._sync_seat(s)
    state._turn = view["current_player"]
    state._legal = None if state._turn is not None else []
    return state


def _visibility(event: dict, seat: int) -> tuple[tuple[int, ...], dict] | None:
    """Who may see ``event`` in a sample: the seat's own cards stay its own."""
    kind = event["type"]
    if event.get("seat") != seat:
        return None
    if kind == "deal" and "cards" in event:
        return ((seat,), {"type": "deal", "seat": seat, "count": event["count"]})
    if kind == "draw" and event.get("card") is not None and event["card"] not in JOKERS:
        redacted = {k: v for k, v in event.items() if k != "card"}
        return ((seat,), redacted)
    return None


from . import register  # noqa: E402

GAME = register(SpaccaIlMazzo())
