"""Stoppa (Cinquantacinque): bet on same-suit points round by round, then shed your hand.

Rules: shared/rules/stoppa.md (ST-A1 … ST-A30), seats and notation in its README.

A match is ``hands`` hands (EC-1; default N, one rotation: each seat deals once). Each hand:

1. **Ante.** Every seat pays ``ante + side_ante`` (a + b) into one common pot (ST-A4).
2. **Deal rounds.** The cards in use are dealt in packets of k cards per round, to each seat
   in turn order (the seat after the dealer first, the dealer last):

   ======================  =====  ===============  ====  ===========
   players                 cards  rounds           H     removed
   ======================  =====  ===============  ====  ===========
   3, variant ``"A"``      30     3, 3, 3, 1       10    a suit (``removed_suit``)
   3, variant ``"B"``      39     3, 3, 3, 3, 1    13    a King (``removed_king``)
   4                       40     3, 3, 3, 1       10    —
   5                       40     3, 3, 2          8     —
   6                       36     3, 3             6     the four Kings (ST-A1)
   ======================  =====  ===============  ====  ===========

3. **Betting rounds.** After each deal a side round is bet on the cards of that deal only
   (ST-A29); its prize is ``cip`` taken from the pot. After the last deal the final round
   ("punto grande") is bet on the whole hand; its prize is whatever is left in the pot.
   In a round the seats act in turn order and then round the table over those still in:
   with no bet yet a seat may ``pass`` (out for this round, ST-A8) or ``open`` a bet
   (*Giocare*); after a bet it may ``pass`` (forfeiting what it committed), ``see`` (*Vedere*,
   match the level) or ``raise`` (*Rilanciare*) to a higher total. Amounts are totals for
   the round, multiples of ``cip``, at most ``max_bet`` (M, ST-A7). The round ends when every
   seat still in has matched the level and has acted since it last changed, or when a
   single seat is left in (ST-A6). Nobody bet: the dealer takes the prize (ST-A10). One seat
   left: it takes the prize and every commitment (ST-A9). Otherwise a showdown: the seat
   that made the last ``see``/``raise`` shows first, the others still in follow in turn
   order (ST-A11). Each shows a *declaration* — one to three of its eligible cards, all of
   one suit, worth the sum of their primiera points (7=21, 6=18, A=16, 5=15, 4=14, 3=13,
   2=12, figures 10) — or, after the first, may ``concede`` (ST-A12). A weaker declaration
   than one's best is allowed. Highest point wins, ties to the seat nearest the dealer
   (lowest TOP, ST-A13); the winner takes the prize and every commitment.
4. **Special hands** (ST-A14 … ST-A18), found by the engine after the final round: *stoppa di
   re* (every King in use) > *stoppa povera* (no J, N or K) > *stoppa di assi* (every Ace in
   use); the first seat in turn order with the highest kind is the only beneficiary. Re and
   povera are paid ``card_fee × H`` by every other seat, assi nothing. The stoppa is not
   played and the hand ends.
5. **The stoppa** (shedding, 1.8). Suits no longer matter; values are A=1 … 7, J=8, N=9, K=10.
   The first seat in turn order starts with any card. After a card of value v the next card
   must be the smallest value above v that is not *exhausted* (all its copies in use
   played; ST-A24); after a King, or when every value above v is exhausted, any card may
   start a new sequence (ST-A25). An Ace may always follow an Ace, also across turns
   (ST-A23). A seat holding every copy in use of a value (at least two, not Aces) may lay
   them as one step when that value is playable (ST-A21, ST-A22). A seat must keep laying
   while it can (ST-A20); then it passes, announcing "Senza q" (ST-A26). The first seat to
   empty its hand closes ("chiude"): every other seat pays ``card_fee`` per card it holds.
6. The dealer passes to the seat after him (1.3).

Actions (shared/design/engine.md)::

    {"type": "pass"}                       # betting: leave the round
    {"type": "open", "amount": x}          # betting, no bet yet: cip <= x <= max_bet
    {"type": "see"}                        # betting: match the level
    {"type": "raise", "amount": y}         # betting: level < y <= max_bet (a total)
    {"type": "show", "cards": [...]}       # showdown: a declaration (1-3 cards, one suit)
    {"type": "concede"}                    # showdown, not the first to show
    {"type": "lay", "cards": [c]}          # stoppa: one card
    {"type": "lay", "cards": [c1, c2, ...]}  # stoppa: every copy in use of one value

The stoppa's pass ("Senza q") is always the only choice when it happens, so the engine makes
it and logs it; so are single legal steps. Card lists are in ``card_order``: by value
(A, 2 … 7, J, N, K), then suit (D, C, S, B).

Options: ``hands``, ``dealer``, ``three_player_variant`` (``"A"``/``"B"``), ``removed_suit``,
``removed_king``, ``ante`` (a), ``side_ante`` (b), ``cip``, ``max_bet`` (M; ``None`` = N·a),
``card_fee`` (f). Scores are net chips (antes count from the start of their hand, EC-2);
they sum to zero once no chips are left in the pot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import combinations
from typing import Any, Self

from .cards import ITALIAN_DECK, ITALIAN_RANKS, ITALIAN_SUITS, check_deck, match_rng, shuffled
from .core import Game, IllegalAction, InvalidOptions, Option, State, dealer_option, shown, stacked_decks

#: Primiera points of each rank, for the betting rounds (1.1).
POINTS = {"7": 21, "6": 18, "A": 16, "5": 15, "4": 14, "3": 13, "2": 12, "J": 10, "N": 10, "K": 10}
#: Shedding values, for the stoppa (1.1).
VALUES = {r: i + 1 for i, r in enumerate(ITALIAN_RANKS)}
CARD_POINTS = {c: POINTS[c[0]] for c in ITALIAN_DECK}
CARD_VALUE = {c: VALUES[c[0]] for c in ITALIAN_DECK}
ACE, KING = 1, 10
FIGURE_VALUES = (8, 9, 10)

#: Card lists are sorted by value, then suit D, C, S, B.
CARD_ORDER = {
    r + s: i * 4 + j for i, r in enumerate(ITALIAN_RANKS) for j, s in enumerate(ITALIAN_SUITS)
}

#: The names of the values in the "Senza q" announcement (ST-A26).
VALUE_NAMES = {
    2: "due", 3: "tre", 4: "quattro", 5: "cinque", 6: "sei", 7: "sette", 8: "otto", 9: "nove",
    10: "re",
}

ANNOUNCE = {q: f"Senza {name}" for q, name in VALUE_NAMES.items()}

#: Deal rounds per configuration (1.1).
ROUNDS = {"3A": (3, 3, 3, 1), "3B": (3, 3, 3, 3, 1), 4: (3, 3, 3, 1), 5: (3, 3, 2), 6: (3, 3)}

SPECIAL_KINDS = ("re", "povera", "assi")  # priority order (ST-A16)

PASS = {"type": "pass"}
SEE = {"type": "see"}
CONCEDE = {"type": "concede"}
LAY = {c: {"type": "lay", "cards": [c]} for c in ITALIAN_DECK}

# Phases.
BET, SHOW, STOPPA, OVER = "bet", "showdown", "stoppa", "over"

_BET_ACTIONS: dict[tuple[int, int], tuple[tuple[dict, ...], dict[int, tuple[dict, ...]]]] = {}


def _bet_actions(cip: int, max_bet: int) -> tuple[tuple[dict, ...], dict[int, tuple[dict, ...]]]:
    """The prebuilt betting menus: with no bet, and after a bet at each level."""
    key = (cip, max_bet)
    menus = _BET_ACTIONS.get(key)
    if menus is None:
        amounts = range(cip, max_bet + 1, cip)
        opening: tuple[dict, ...] = (PASS,) + tuple({"type": "open", "amount": x} for x in amounts)
        raises: list[dict[str, Any]] = [{"type": "raise", "amount": y} for y in amounts]
        after = {lvl: (PASS, SEE) + tuple(r for r in raises if r["amount"] > lvl) for lvl in amounts}
        menus = _BET_ACTIONS[key] = (opening, after)
    return menus


def cards_in_use(
    players: int, variant: str = "A", removed_suit: str = "B", removed_king: str = "KB"
) -> tuple[str, ...]:
    """The deck for a player count and variant, in ITALIAN_DECK order (1.1, ST-A1 … ST-A3)."""
    if players == 3:
        if variant == "A":
            return tuple(c for c in ITALIAN_DECK if c[1] != removed_suit)
        return tuple(c for c in ITALIAN_DECK if c != removed_king)
    if players == 6:
        return tuple(c for c in ITALIAN_DECK if c[0] != "K")
    return ITALIAN_DECK


def deal_rounds(players: int, variant: str = "A") -> tuple[int, ...]:
    """Cards per seat in each deal round (1.1)."""
    return ROUNDS["3" + variant] if players == 3 else ROUNDS[players]


def declaration_point(cards: list[str] | tuple[str, ...]) -> int:
    """The point of a declaration: the sum of its cards' primiera points (1.6)."""
    return sum(CARD_POINTS[c] for c in cards)


def declarations(cards: list[str] | tuple[str, ...]) -> list[list[str]]:
    """Every declaration the cards allow: 1 to 3 cards of one suit (1.6, ST-A30), each
    sorted by ``CARD_ORDER``; suit by suit (D, C, S, B), the highest point first."""
    return [a["cards"] for a in _show_actions(tuple(sorted(cards, key=CARD_ORDER.__getitem__)))]


_SHOW_CACHE: dict[tuple[str, ...], tuple[dict, ...]] = {}
_SUIT_CACHE: dict[tuple[str, ...], list[tuple[tuple[int, ...], dict]]] = {}


def _by_key(entry: tuple[tuple[int, ...], dict]) -> tuple[int, ...]:
    return entry[0]


def _suit_declarations(group: tuple[str, ...]) -> list[tuple[tuple[int, ...], dict]]:
    """(sort key, ``show`` action) for every declaration of cards of one suit (cached)."""
    out = _SUIT_CACHE.get(group)
    if out is None:
        out = []
        for k in (1, 2, 3):
            for d in combinations(group, k):
                key = (-sum(CARD_POINTS[c] for c in d), *(CARD_ORDER[c] for c in d))
                out.append((key, {"type": "show", "cards": list(d)}))
        out.sort(key=_by_key)
        _SUIT_CACHE[group] = out
    return out


def _show_actions(cards: tuple[str, ...]) -> tuple[dict, ...]:
    """The ``show`` actions for eligible cards sorted by ``CARD_ORDER`` (shared dicts): suit
    by suit (D, C, S, B), the highest point first within a suit."""
    acts = _SHOW_CACHE.get(cards)
    if acts is None:
        found: list[dict] = []
        for suit in ITALIAN_SUITS:
            group = tuple([c for c in cards if c[1] == suit])
            if group:
                found.extend([e[1] for e in _suit_declarations(group)])
        acts = tuple(found)
        if len(cards) <= 3:  # the side rounds' packets recur; whole hands rarely do
            _SHOW_CACHE[cards] = acts
    return acts


def best_point(cards: list[str] | tuple[str, ...]) -> int:
    """The highest point the cards can declare: the best three of a suit (1.6); 0 if none."""
    best: dict[str, list[int]] = {}
    for c in cards:
        best.setdefault(c[1], []).append(CARD_POINTS[c])
    return max((sum(sorted(p, reverse=True)[:3]) for p in best.values()), default=0)


def _special(cards: list[str], copies: list[int] | tuple[int, ...]) -> bool:
    """Whether a hand is a stoppa di re, povera or di assi (1.7)."""
    counts = [0] * 11
    for c in cards:
        counts[CARD_VALUE[c]] += 1
    if copies[KING] and counts[KING] == copies[KING]:
        return True
    if not (counts[8] or counts[9] or counts[10]):
        return True
    return counts[ACE] == copies[ACE]


class StoppaState(State):
    card_order = CARD_ORDER

    # ------------------------------------------------------------------ setup

    def _setup(self, deck: Any) -> None:
        opts = self.options
        n = self.players
        variant = opts["three_player_variant"]
        self.deck_cards = cards_in_use(n, variant, opts["removed_suit"], opts["removed_king"])
        self.rounds = deal_rounds(n, variant)
        self.hand_size = sum(self.rounds)
        copies = [0] * 11
        for c in self.deck_cards:
            copies[CARD_VALUE[c]] += 1
        self.copies = tuple(copies)
        self.n_hands: int = opts["hands"]
        self.cip: int = opts["cip"]
        self.max_bet: int = opts["max_bet"]
        self.fee: int = opts["card_fee"]
        self._opening, self._after = _bet_actions(self.cip, self.max_bet)
        self._groups = {}
        for v in range(2, 11):
            if copies[v] >= 2:
                group = sorted((c for c in self.deck_cards if CARD_VALUE[c] == v), key=CARD_ORDER.__getitem__)
                self._groups[v] = {"type": "lay", "cards": group}
        self._stacked = [
            check_deck(d, self.deck_cards, f"deck for hand {i + 1}")
            for i, d in enumerate(stacked_decks(deck))
        ]
        if len(self._stacked) > self.n_hands:
            raise InvalidOptions(
                f"{len(self._stacked)} stacked decks for a match of {self.n_hands} hands (EC-1)"
            )
        self.chips = [0] * n
        self.pot = 0
        self.dealer: int = opts["dealer"]
        self.hand_no = -1
        self._start_hand()

    def _start_hand(self) -> None:
        n = self.players
        self.hand_no += 1
        h = self.hand_no
        dealer = self.dealer
        self.order = tuple((dealer + 1 + i) % n for i in range(n))  # TOP 1 … N
        if h < len(self._stacked):
            stock = tuple(self._stacked[h])
        else:
            stock = tuple(shuffled(self.deck_cards, match_rng(self.seed, "hand", h)))
        # Containers a clone may share are immutable and replaced when they change.
        self.stock = stock  # top first; never changes within a hand
        self.dealt = 0  # cards dealt from the stock
        self.hands: list[tuple[str, ...]] = [()] * n
        self.received: tuple[tuple[tuple[str, ...], ...], ...] = ((),) * n  # per seat, per round
        self.shown: tuple[tuple[str, ...], ...] = ((),) * n
        # The hand's private events: (log index, seat who sees it, what the others see).
        self._private: tuple[tuple[int, int, dict], ...] = ()
        self.hand_start = len(self.log)
        self._event({"type": "hand", "hand": h + 1, "dealer": dealer, "order": list(self.order)})
        stake = self.options["ante"] + self.options["side_ante"]
        for s in range(n):
            self.chips[s] -= stake
        self.pot += stake * n
        self._event({"type": "ante", "amount": stake, "pot": self.pot})
        self.rnd = 0
        self._deal()

    def _deal(self) -> None:
        """DEAL(r): a packet of k_r cards to each seat in turn order, then BET(r)."""
        r = self.rnd
        k = self.rounds[r]
        stock = self.stock
        pos = self.dealt
        received = list(self.received)
        hands = self.hands
        private = list(self._private)
        key = CARD_ORDER.__getitem__
        for seat in self.order:
            packet = tuple(sorted(stock[pos : pos + k], key=key))
            pos += k
            received[seat] += (packet,)
            hands[seat] = tuple(sorted(hands[seat] + packet, key=key))
            hidden = {"type": "deal", "round": r + 1, "seat": seat, "count": k}
            private.append((len(self.log), seat, hidden))
            self._event({"type": "deal", "round": r + 1, "seat": seat, "cards": list(packet)}, seat, hidden)
        self.dealt = pos
        self.received = tuple(received)
        self._private = tuple(private)
        self._start_betting()

    def _start_betting(self) -> None:
        n = self.players
        final = self.rnd == len(self.rounds)
        self.phase = BET
        self.level = 0
        self.commit = [0] * n
        self.inn = [True] * n
        self.n_in = n
        self.need = [True] * n
        self.n_need = n
        self.round_pot = 0
        self.last_caller: int | None = None
        prize = self.pot if final else self.cip
        self._event(
            {"type": "betting", "round": self.rnd + 1, "final": final, "prize": prize, "pot": self.pot}
        )
        self._turn = self.order[0]

    # ------------------------------------------------------------------ contract hooks

    def _legal_actions(self) -> list[dict]:
        phase = self.phase
        if phase == STOPPA:
            return self._stoppa_legal()
        if phase == BET:
            if self.level == 0:
                return list(self._opening)
            return list(self._after[self.level])
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        acts = list(_show_actions(tuple(self._eligible(seat))))
        if self.show_pos > 0:
            acts.append(CONCEDE)
        return acts

    def _eligible(self, seat: int) -> tuple[str, ...]:
        """The cards that count in this round: the round's packet, or the whole hand (ST-A29)."""
        if self.rnd < len(self.rounds):
            return self.received[seat][self.rnd]
        return self.hands[seat]

    def _do(self, action: dict, forced: bool) -> None:
        kind = action["type"]
        seat = self._turn
        assert seat is not None  # _do runs only while a seat is to act
        if self.phase == STOPPA:
            if kind == "lay":
                self._lay(seat, action["cards"], forced)
            else:
                self._stoppa_pass(seat)
        elif self.phase == BET:
            self._bet(seat, kind, action.get("amount"))
        else:
            self._show(seat, action.get("cards"), forced)

    def _why_illegal(self, action: dict) -> str:
        kind = action.get("type")
        seat = self._turn
        if seat is None:
            return "the match is over: no action is legal"
        phase = self.phase
        if phase == BET:
            level = self.level
            if kind in ("show", "concede", "lay"):
                return f"{kind!r} is not allowed: seat {seat} is betting (1.5: pass, open, see or raise)"
            amount = action.get("amount")
            if kind in ("see", "raise") and level == 0:
                return f"{kind!r} is not allowed: nobody has bet in this round yet; open or pass (ST-A5)"
            if kind == "open" and level > 0:
                return f"'open' is not allowed: the level is already {level}; see, raise or pass (ST-A5)"
            if kind in ("open", "raise"):
                if isinstance(amount, bool) or not isinstance(amount, int):
                    return f"{kind!r} needs an integer 'amount', got {amount!r} (ST-A7)"
                if amount > self.max_bet:
                    return f"{kind} {amount} is above the maximum bet M={self.max_bet} (ST-A7)"
                if kind == "raise" and level >= self.max_bet:
                    return (
                        f"'raise' is not allowed: the level is already the maximum {self.max_bet}; "
                        "see or pass (ST-A7)"
                    )
                if kind == "raise" and amount <= level:
                    return f"a raise must go above the level {level}, got {amount} (ST-A7)"
                if amount < self.cip or amount % self.cip:
                    return f"amounts are whole multiples of the cip ({self.cip}), got {amount} (ST-A7)"
            return f"{shown(action)} is not a betting action; use pass, open, see or raise (1.5)"
        if phase == SHOW:
            if kind == "concede":
                return "'concede' is not allowed: the first to show must show a declaration (ST-A12)"
            if kind != "show":
                return f"{kind!r} is not allowed: seat {seat} is at the showdown; show or concede (1.6)"
            cards = action.get("cards")
            if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
                return f"a declaration is a non-empty list of cards, got {cards!r} (1.6)"
            if len(cards) > 3:
                return f"a declaration holds at most three cards, got {len(cards)} (ST-A30)"
            eligible = self._eligible(seat)
            other = [c for c in cards if c not in eligible]
            if other:
                return f"{', '.join(map(str, other))} do(es) not count in this round for seat {seat} (ST-A29)"
            if len({c[1] for c in cards}) > 1:
                return "a declaration's cards must all be of one suit (1.6)"
            return f"{cards!r} is not a declaration: each card once, at most three of one suit (1.6)"
        if phase == STOPPA:
            if kind == "pass":
                return f"'pass' is not allowed: seat {seat} can still lay a card and must (ST-A20)"
            if kind != "lay":
                return f"{kind!r} is not allowed in the stoppa: lay cards (1.8)"
            cards = action.get("cards")
            if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
                return f"'lay' needs a non-empty list of cards, got {cards!r} (1.8)"
            hand = self.hands[seat]
            missing = [c for c in cards if c not in hand]
            if missing or len(set(cards)) != len(cards):
                return f"seat {seat} does not hold {', '.join(map(str, missing or cards))} (1.8)"
            values = {CARD_VALUE[c] for c in cards}
            if len(cards) > 1:
                v = CARD_VALUE[cards[0]]
                if len(values) > 1:
                    return "a group holds cards of one value only (ST-A21)"
                if v == ACE:
                    return "Aces are laid one at a time; an Ace may always follow an Ace (ST-A23)"
                return f"a group must hold every copy in use of its value ({self.copies[v]}) (ST-A21)"
            v = values.pop()
            req = self.req
            if self.last == v:
                return f"a card of value {v} may not follow another {v}: only an Ace follows itself (ST-A23)"
            return (
                f"{cards[0]} (value {v}) does not continue the sequence: the next card must be "
                f"a {req}, missing values skipped (ST-A24)"
            )
        return "the match is over: no action is legal"

    # ------------------------------------------------------------------ betting (1.5)

    def _bet(self, seat: int, kind: str, amount: int | None) -> None:
        # Public events are appended directly (as State._event(event) does): the hot path.
        if kind == "pass":
            self.inn[seat] = False
            self.n_in -= 1
            self.need[seat] = False
            self.n_need -= 1
            event = {"type": "pass", "seat": seat}
        elif kind == "see":
            level = self.level
            commit = self.commit
            delta = level - commit[seat]
            commit[seat] = level
            self.chips[seat] -= delta
            self.round_pot += delta
            self.need[seat] = False
            self.n_need -= 1
            self.last_caller = seat
            event = {"type": "see", "seat": seat, "amount": level}
        else:  # open or raise
            assert amount is not None  # a legal open or raise has its amount
            commit = self.commit
            delta = amount - commit[seat]
            commit[seat] = amount
            self.chips[seat] -= delta
            self.round_pot += delta
            self.level = amount
            self.need = need = self.inn.copy()
            need[seat] = False
            self.n_need = self.n_in - 1
            if kind == "raise":
                self.last_caller = seat
            event = {"type": kind, "seat": seat, "amount": amount}
        self.log.append(event)
        self._vis.append(None)
        if self.n_in == 1 and self.level:
            self._award(self.inn.index(True), "uncontested")
        elif not self.n_need:
            if self.level == 0:
                self._award(self.dealer, "no_bets")
            else:
                self._start_showdown()
        else:
            n = self.players
            need = self.need
            nxt = seat + 1
            if nxt == n:
                nxt = 0
            while not need[nxt]:
                nxt += 1
                if nxt == n:
                    nxt = 0
            self._turn = nxt

    def _start_showdown(self) -> None:
        n = self.players
        first = self.last_caller
        assert first is not None  # a showdown follows a call
        self.show_order = [s for s in ((first + i) % n for i in range(n)) if self.inn[s]]
        self.show_pos = 0
        self.declared: list[tuple[int, int | None]] = []  # (seat, point or None if conceded)
        self.phase = SHOW
        self._event({"type": "showdown_starts", "order": list(self.show_order)})
        self._turn = first

    def _show(self, seat: int, cards: list[str] | None, forced: bool) -> None:
        if cards is None:
            self.declared.append((seat, None))
            self._event({"type": "concede", "seat": seat})
        else:
            point = declaration_point(cards)
            self.declared.append((seat, point))
            self._show_cards(seat, cards)
            self._event(
                {"type": "show", "seat": seat, "cards": list(cards), "point": point, "forced": forced}
            )
        self.show_pos += 1
        if self.show_pos < len(self.show_order):
            self._turn = self.show_order[self.show_pos]
            return
        top = self._top
        best = max(
            ((p, -top(s), s) for s, p in self.declared if p is not None),
        )
        winner = best[2]
        self._event(
            {
                "type": "showdown",
                "round": self.rnd + 1,
                "declarations": [
                    {"seat": s, "point": p} if p is not None else {"seat": s, "conceded": True}
                    for s, p in self.declared
                ],
                "winner": winner,
                "point": best[0],
            }
        )
        self._award(winner, "showdown")

    def _show_cards(self, seat: int, cards: list[str]) -> None:
        """Cards turned face up for everyone; they stay in the hand (1.4)."""
        shown = list(self.shown)
        shown[seat] = tuple(sorted(set(shown[seat]).union(cards), key=CARD_ORDER.__getitem__))
        self.shown = tuple(shown)

    def _top(self, seat: int) -> int:
        """Turn-order position in this hand: 1 for the seat after the dealer (0.3)."""
        return (seat - self.dealer - 1) % self.players + 1

    def _award(self, winner: int, how: str) -> None:
        final = self.rnd == len(self.rounds)
        prize = self.pot if final else self.cip
        self.pot -= prize
        received = prize + self.round_pot
        self.chips[winner] += received
        nets = [-c for c in self.commit]
        nets[winner] += received
        self._event(
            {
                "type": "prize",
                "round": self.rnd + 1,
                "final": final,
                "seat": winner,
                "how": how,
                "prize": prize,
                "received": received,
                "nets": nets,
                "pot": self.pot,
            }
        )
        self.rnd += 1
        if self.rnd < len(self.rounds):
            self._deal()
        elif self.rnd == len(self.rounds):
            self._start_betting()
        else:
            self._special_check()

    # ------------------------------------------------------------------ special hands (1.7)

    def _special_check(self) -> None:
        n = self.players
        copies = self.copies
        # hold[11 * seat + v]: how many cards of value v the seat holds.
        self.hold = hold = [0] * (11 * n)
        for seat in range(n):
            base = 11 * seat
            for c in self.hands[seat]:
                hold[base + CARD_VALUE[c]] += 1
        found = []  # (priority, top, seat)
        for seat in self.order:
            counts = hold[11 * seat : 11 * seat + 11]
            if copies[KING] and counts[KING] == copies[KING]:
                kind = 0
            elif not (counts[8] or counts[9] or counts[10]):
                kind = 1
            elif counts[ACE] == copies[ACE]:
                kind = 2
            else:
                continue
            found.append((kind, self._top(seat), seat))
        if not found:
            self._start_stoppa()
            return
        kind, _, seat = min(found)
        name = SPECIAL_KINDS[kind]
        payments = [0] * n
        if kind < 2:
            due = self.fee * self.hand_size
            for s in range(n):
                if s != seat:
                    payments[s] = -due
                    payments[seat] += due
        for s in range(n):
            self.chips[s] += payments[s]
        event = {
            "type": "special",
            "seat": seat,
            "kind": name,
            "declared": [{"seat": s, "kind": SPECIAL_KINDS[k]} for k, _, s in found],
            "payments": payments,
        }
        # Holding every King or every Ace in use says which cards they are: show them.
        shown = []
        for k, _, s in found:
            if k != 1:
                value = KING if k == 0 else ACE
                cards = [c for c in self.hands[s] if CARD_VALUE[c] == value]
                shown.append({"seat": s, "cards": cards})
                self._show_cards(s, cards)
        event["shown"] = shown
        self._event(event)
        self._end_hand()

    # ------------------------------------------------------------------ the stoppa (1.8)

    def _start_stoppa(self) -> None:
        self.phase = STOPPA
        self.played = [0] * 11
        self.last = 0  # none
        self.req = 0  # 0: the table is OPEN; else REQUIRED(req)
        self.passed = 0  # bit s: seat s has passed in this stoppa
        self._event({"type": "stoppa", "first": self.order[0]})
        self._turn = self.order[0]

    def _stoppa_legal(self) -> list[dict]:
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        hand = self.hands[seat]
        req = self.req
        hold = self.hold
        base = 11 * seat
        copies = self.copies
        if req == 0:
            acts = [LAY[c] for c in hand]
            for v, group in self._groups.items():
                if hold[base + v] == copies[v]:
                    acts.append(group)
            return acts
        if self.last == ACE:
            if not (hold[base + req] or hold[base + ACE]):
                return [PASS]
            acts = [LAY[c] for c in hand if CARD_VALUE[c] in (ACE, req)]
        else:
            if not hold[base + req]:
                return [PASS]
            acts = [LAY[c] for c in hand if CARD_VALUE[c] == req]
        if acts:
            if hold[base + req] == copies[req] and req in self._groups:
                acts.append(self._groups[req])
            return acts
        return [PASS]

    def _lay(self, seat: int, cards: list[str], forced: bool) -> None:
        if len(cards) == 1:
            card = cards[0]
            self.hands[seat] = hand = tuple([c for c in self.hands[seat] if c != card])
        else:
            self.hands[seat] = hand = tuple([c for c in self.hands[seat] if c not in cards])
        v = CARD_VALUE[cards[0]]
        k = len(cards)
        self.hold[11 * seat + v] -= k
        played = self.played
        played[v] += k
        self.last = v
        req = 0
        if v != KING:
            copies = self.copies
            for r in range(v + 1, 11):
                if played[r] < copies[r]:
                    req = r
                    break
        self.req = req
        self.log.append({"type": "lay", "seat": seat, "cards": cards, "left": len(hand), "forced": forced})
        self._vis.append(None)  # public, as State._event(event) records it
        if not hand:
            self._close(seat)

    def _stoppa_pass(self, seat: int) -> None:
        """Pass, announcing "Senza q" (ST-A26); so does every following seat that cannot lay
        (their only action: the same as the engine applying each forced pass in turn). Some
        seat holds a q, since every card in use is dealt (1.8), so the loop ends."""
        q = self.req
        announce = ANNOUNCE[q]
        hold = self.hold
        n = self.players
        passed = self.passed
        ace = self.last == ACE
        log = self.log
        vis = self._vis
        while True:
            passed |= 1 << seat
            log.append({"type": "pass", "seat": seat, "missing": q, "announce": announce})
            vis.append(None)  # public, as State._event(event) records it
            seat += 1
            if seat == n:
                seat = 0
            base = 11 * seat
            if hold[base + q] or (ace and hold[base + ACE]):
                break
        self.passed = passed
        self._turn = seat

    def _close(self, seat: int) -> None:
        n = self.players
        payments = [0] * n
        for s in range(n):
            if s != seat:
                due = self.fee * len(self.hands[s])
                payments[s] = -due
                payments[seat] += due
        for s in range(n):
            self.chips[s] += payments[s]
        self._event(
            {
                "type": "close",
                "seat": seat,
                "chiusa": not self.passed >> seat & 1,  # emptied the hand on the first turn
                "left": [len(h) for h in self.hands],
                "payments": payments,
            }
        )
        self._end_hand()

    # ------------------------------------------------------------------ end of hand

    def _end_hand(self) -> None:
        n = self.players
        self.dealer = (self.dealer + 1) % n  # the old first hand deals next (1.3)
        last = self.hand_no + 1 >= self.n_hands
        self._event(
            {
                "type": "hand_over",
                "hand": self.hand_no + 1,
                "next_dealer": None if last else self.dealer,
                "scores": list(self.chips),
            }
        )
        if not last:
            self._start_hand()
        else:
            self.phase = OVER
            self._turn = None
            self._event({"type": "match_over", "scores": list(self.chips)})

    # ------------------------------------------------------------------ results and views

    def scores(self) -> list[int]:
        """Net chips of each seat (antes count from the start of their hand, EC-2)."""
        return list(self.chips)

    def _copy_into(self, new: Self) -> None:
        # stock, received, shown, _private and each hand are immutable, replaced when they change.
        new.chips = self.chips.copy()
        new.hands = self.hands.copy()
        phase = self.phase
        if phase == BET or phase == SHOW:
            new.commit = self.commit.copy()
            new.inn = self.inn.copy()
            new.need = self.need.copy()
            if phase == SHOW:
                new.declared = self.declared.copy()  # show_order is never changed
        elif phase == STOPPA:
            new.played = self.played.copy()
            new.hold = self.hold.copy()

    def _public_options(self) -> dict[str, Any]:
        """The table's rules, public, for determinize. The removed King (variant B) is given
        by its suit, ``removed_king_suit``: a card code in a view would read as a card seen."""
        options = {k: v for k, v in self.options.items() if k != "removed_king"}
        if len(self.deck_cards) == 39:
            options["removed_king_suit"] = self.options["removed_king"][1]
        return options

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (None: a spectator): the current hand and the scores."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        phase = self.phase
        turn = self._turn
        view: dict[str, Any] = {
            "game": "stoppa",
            "seat": seat,
            "players": self.players,
            "hand": self.hand_no + 1,
            "hands": self.n_hands,
            "dealer": self.dealer if phase != OVER else None,
            "order": list(self.order),
            "phase": phase,
            "round": min(self.rnd, len(self.rounds)) + 1,  # R + 1: the final round
            "rounds": len(self.rounds),
            "pot": self.pot,
            "current_player": turn,
            "counts": [len(h) for h in self.hands],
            "shown": [list(s) for s in self.shown],
            "scores": list(self.chips),
            "options": self._public_options(),
        }
        if seat is not None:
            view["cards"] = list(self.hands[seat])
            if phase == BET or phase == SHOW:
                view["round_cards"] = list(self._eligible(seat))
        if phase == BET or phase == SHOW:
            view["betting"] = {
                "final": self.rnd == len(self.rounds),
                "prize": self.pot if self.rnd == len(self.rounds) else self.cip,
                "level": self.level,
                "max_bet": self.max_bet,
                "commitments": self.commit.copy(),
                "in": self.inn.copy(),
            }
            if phase == SHOW:
                view["showdown"] = {
                    "order": self.show_order.copy(),
                    "declared": [
                        {"seat": s, "point": p} if p is not None else {"seat": s, "conceded": True}
                        for s, p in self.declared
                    ],
                }
        elif phase == STOPPA:
            view["stoppa"] = {
                "last": self.last or None,
                "required": self.req or None,
                "open": self.req == 0,
                "ace_may_follow": self.last == ACE,
                "played": self.played[1:],
            }
        # As self._events_for(seat, self.hand_start), faster: only the deals are private.
        start = self.hand_start
        events = self.log[start:]
        for i, owner, hidden in self._private:
            if owner != seat:
                events[i - start] = hidden
        view["events"] = events
        if seat is not None and seat == turn:
            view["legal_actions"] = self.legal_actions()
        return view


class Stoppa(Game[StoppaState]):
    name = "stoppa"
    title = "Stoppa (Cinquantacinque)"
    min_players = 3
    max_players = 6
    state_class = StoppaState
    zero_sum = True  # net chips: every payment goes from one seat to another, the pot ends empty
    options = {
        "hands": Option(lambda n: n, "hands in the match; N hands = one rotation (EC-1, ST-A27)", low=1),
        "dealer": dealer_option(),
        "three_player_variant": Option(
            "A",
            "3 players: 'A' removes one suit (30 cards), 'B' one King (39 cards) (ST-A2)",
            kind=str,
            choices=("A", "B"),
        ),
        "removed_suit": Option(
            "B", "variant A: the suit removed (ST-A3)", kind=str, choices=ITALIAN_SUITS
        ),
        "removed_king": Option(
            "KB", "variant B: the King removed (ST-A3)", kind=str, choices=("KD", "KC", "KS", "KB")
        ),
        "ante": Option(5, "a: each seat's central entry per hand (1.2)", low=0),
        "side_ante": Option(1, "b: each seat's peripheral entry per hand (1.2)", low=0),
        "cip": Option(1, "the smallest bet and the prize of each side round (1.2)", low=1),
        "max_bet": Option(
            None, "M: the most a seat may commit in one round; null means N·ante (1.2, ST-A7)",
            low=1, nullable=True,
        ),
        "card_fee": Option(1, "f: paid per card left in hand, and f·H for re/povera (1.2)", low=0),
    }

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> StoppaState:
        """A playable state consistent with ``view(seat)``, the unknowns sampled (engine.md).

        Unknown: the cards of the other seats that nobody has seen, the undealt rest of the
        stock and every later hand (a fresh random seed). They are drawn from the cards in use
        minus those the view accounts for (the seat's own packets, every card shown at a
        showdown or laid in the stoppa), keeping what the events imply: a card shown in a side
        round stays in that round's packet; a seat that passed "Senza q" holds no q (nor an
        Ace, when an Ace could have followed); once the stoppa has begun, no seat held a
        special hand (re, povera, assi). Seats are filled in seat order from one shuffle of
        the unknown cards, skipping cards a seat cannot hold (uniform when no seat has passed).
        The current hand is rebuilt by replaying its actions on a deck stacked with the
        sample, so the sample's ``view(seat)`` equals ``view``. Documented difference: the
        ``forced`` flags of past ``lay`` events are copied from the view (the sampled hands
        might have offered a different number of choices); the log holds only the current
        hand and ``to_json()`` does not replay the real match.
        """
        if view.get("phase") == OVER or view.get("current_player") is None:
            raise ValueError("the match is over: nothing to determinize")
        seat = view["seat"]
        n = view["players"]
        options = dict(view["options"])
        suit = options.pop("removed_king_suit", None)
        if suit is not None:
            options["removed_king"] = "K" + suit
        deck_cards = cards_in_use(
            n, options["three_player_variant"], options["removed_suit"], options.get("removed_king", "KB")
        )
        rounds = deal_rounds(n, options["three_player_variant"])
        order = view["order"]
        copies = [0] * 11
        for c in deck_cards:
            copies[CARD_VALUE[c]] += 1
        # What the events say about each seat's cards.
        packets: list[list[list[str]]] = [[] for _ in range(n)]  # per seat, per dealt round
        sizes: list[list[int]] = [[] for _ in range(n)]
        in_hand: list[set[str]] = [set() for _ in range(n)]  # known, packet unknown
        void: list[set[int]] = [set() for _ in range(n)]  # values a seat cannot hold
        actions: list[tuple[int, dict, bool]] = []  # (seat, action, may be forced)
        rnd, final, last, stoppa = 0, False, 0, False
        for e in view["events"]:
            kind = e["type"]
            if kind == "deal":
                packets[e["seat"]].append(list(e.get("cards", ())))
                sizes[e["seat"]].append(e["count"] if "cards" not in e else len(e["cards"]))
            elif kind == "betting":
                rnd, final = e["round"] - 1, e["final"]
            elif kind == "show":
                s = e["seat"]
                if s != seat:
                    if final:
                        in_hand[s].update(e["cards"])
                    else:
                        packets[s][rnd].extend(e["cards"])
                actions.append((s, {"type": "show", "cards": e["cards"]}, e["forced"]))
            elif kind == "concede":
                actions.append((e["seat"], CONCEDE, False))
            elif kind in ("open", "raise"):
                actions.append((e["seat"], {"type": kind, "amount": e["amount"]}, False))
            elif kind == "see":
                actions.append((e["seat"], SEE, False))
            elif kind == "pass" and "missing" not in e:
                actions.append((e["seat"], PASS, False))
            elif kind == "pass":  # "Senza q": forced, the engine replays it by itself
                void[e["seat"]].add(e["missing"])
                if last == ACE:
                    void[e["seat"]].add(ACE)
            elif kind == "stoppa":
                stoppa = True
            elif kind == "lay":
                s = e["seat"]
                if s != seat:
                    in_hand[s].update(e["cards"])
                last = CARD_VALUE[e["cards"][0]]
                actions.append((s, {"type": "lay", "cards": e["cards"]}, True))
        known = set()
        for s in range(n):
            for p in packets[s]:
                known.update(p)
            known.update(in_hand[s])
        for s in range(n):
            for p in packets[s]:
                in_hand[s].difference_update(p)  # a card shown earlier in its packet
        pool = sorted((c for c in deck_cards if c not in known), key=CARD_ORDER.__getitem__)
        others = [s for s in range(n) if s != seat]
        need = {s: sum(sizes[s]) - sum(map(len, packets[s])) - len(in_hand[s]) for s in others}
        future_seed = rng.getrandbits(63)
        for _ in range(2000):
            sample = shuffled(pool, rng)
            taken = [False] * len(sample)
            dealt: dict[int, list[list[str]]] = {}
            ok = True
            for s in others:
                free: list[str] = []
                bad = void[s]
                want = need[s]
                for i, c in enumerate(sample):
                    if want == len(free):
                        break
                    if not taken[i] and CARD_VALUE[c] not in bad:
                        taken[i] = True
                        free.append(c)
                if len(free) < want:
                    ok = False
                    break
                loose = sorted(in_hand[s], key=CARD_ORDER.__getitem__) + free
                mine = [list(p) for p in packets[s]]
                j = 0
                for r, size in enumerate(sizes[s]):
                    gap = size - len(mine[r])
                    mine[r].extend(loose[j : j + gap])
                    j += gap
                dealt[s] = mine
            if not ok:
                continue
            if stoppa and any(_special(sum(dealt[s], []), copies) for s in others):
                continue
            rest = [c for i, c in enumerate(sample) if not taken[i]]
            dealt[seat] = packets[seat]
            deck: list[str] = []
            for r, k in enumerate(rounds):
                for s in order:
                    if r < len(dealt[s]):
                        deck.extend(dealt[s][r])
                    else:
                        deck.extend(rest[:k])
                        rest = rest[k:]
            state = self._replay_hand(view, options, deck, actions, future_seed)
            if state is not None and state.view(seat) == view:
                return state
        raise ValueError("no deal consistent with this view was found")

    def _replay_hand(
        self, view: Mapping[str, Any], options: dict, deck: list[str], actions: list, seed: int
    ) -> StoppaState | None:
        """The current hand replayed on ``deck``, as hand ``view["hand"]`` of the match."""
        hand, hands = view["hand"], view["hands"]
        opts = dict(options, dealer=view["dealer"], hands=hands - hand + 1)
        state = self.new_match(players=view["players"], seed=seed, options=opts, deck=[deck])
        try:
            for s, action, may_be_forced in actions:
                if may_be_forced:
                    # A lay the real seat was forced to make may be a choice here, or the
                    # reverse: apply it unless the engine already has.
                    if state._turn != s or not any(a == action for a in state.legal_actions()):
                        continue
                state.apply(action)
        except IllegalAction:
            return None
        state.hand_no = hand - 1
        state.n_hands = hands
        state.options = dict(state.options, **options)
        state.chips = list(view["scores"])
        log = state.log
        start = state.hand_start
        log[start] = dict(log[start], hand=hand)
        events = view["events"]
        if len(log) - start != len(events):
            return None
        for i, e in enumerate(events):
            if e["type"] == "lay":
                mine = log[start + i]
                if mine.get("type") != "lay":
                    return None
                if mine["forced"] != e["forced"]:
                    log[start + i] = dict(mine, forced=e["forced"])
        return state

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        if options["max_bet"] is None:
            options["max_bet"] = players * options["ante"]
        if options["max_bet"] < options["cip"]:
            raise InvalidOptions(
                f"max_bet ({options['max_bet']}) is below the cip ({options['cip']}): "
                "nobody could bet (ST-A7)"
            )
        rounds = len(deal_rounds(players, options["three_player_variant"]))
        pot = players * (options["ante"] + options["side_ante"])
        if pot < rounds * options["cip"]:
            raise InvalidOptions(
                f"the pot after the ante ({pot}) cannot pay {rounds} side prizes of {options['cip']} (ST-A4)"
            )


from . import register  # noqa: E402

GAME = register(Stoppa())
