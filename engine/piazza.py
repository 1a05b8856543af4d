"""Piazza: figures "dictate the law"; take them with numeral cards summing to a multiple.

Rules: shared/rules/piazza.md (PZ-A1 … PZ-A25), the conventions EC-8 … EC-10 and the
stacked-deck dealing of shared/rules/README.md §5. Seed: shared/seeds/002_4addde410eaba757.txt.

Two decks that never mix: the FIGURE deck (Italian: the 12 J, N, K; one figure per turn, so
a match is 12 turns) and the NUMERAL deck (the 28 cards A–7), with a discard pile that is
shuffled into a new numeral deck when it runs out (3.8). A figure imposes a modulus m and
scores m points at the end: fante (J) 2, cavallo (N) 3, re (K) 4. A *take-set* is a
non-empty subset of a hand (1 to 3 numerals, A = 1 … 7 = 7) whose total is a multiple of m;
a seat holding one is *eligible*.

Each turn t (the lead L_t is the seat after the dealer in turn 1 and moves one seat on each
turn; "priority order" is L_t, L_t+1, …, PZ-A1):

* T0 every seat without cards draws one (SEED-2: used 3 → draw 1; cards left → draw none);
* T1 the *rivolta* (revolt) window: each seat that may still call one is asked in priority
  order; the first ``rivolta`` gathers every hand, shuffles and deals them back, each seat
  receiving as many cards as it held (3.6). Once per seat per match (``rivolta_scope``
  ``"per_player"``, PZ-A9) or once for the whole table (``"per_table"``); one per turn;
* T2 the figure is revealed;
* T3a the *commercio* (trade) window (3.7, EC-8): each seat with at most 2 cards that has not
  requested this turn may ``request`` a rank; each other seat holding that rank, in order
  after the requester, ``offer``s (optionally *showing* the card: 3 points of penalty each
  time, PZ-A14) or ``decline``s; the requester ``choose``s among the offerers (he must,
  PZ-A13); the giver ``give``s a card of that rank (the shown one, if he showed one), which
  everyone sees, and draws until he holds 3;
* T3b the claim poll: each eligible seat in priority order says ``prendo`` or ``pass``; the
  first ``prendo`` makes the *caller* (PZ-A2);
* T3c nobody claimed: every seat with fewer than 3 cards draws one; if all hold 3, a
  *replacement* round lets each seat in priority order discard one card and draw one. Then
  the commercio window opens again. After the 10th replacement round of a turn, a claim poll
  that again finds no ``prendo`` sets the figure aside unscored (PZ-A15, EC-10);
* T4 betting (3.4, EC-9): if no other seat is eligible the caller simply takes. Otherwise he
  ``stake``s S (1 … ``table_max``); each other eligible seat, in order after the caller,
  ``stay_out``, ``join`` (commits the current level) or ``join_raise``s (its one raise). With
  no joiner the caller takes and no chips move. Otherwise the response loop starts with the
  caller: below the level a participant may ``call``, ``raise`` (once per turn) or
  ``withdraw`` (forfeiting what he committed); at the level, ``hold`` or ``raise``. It ends
  when every participant still in matches the level and has acted since the last raise;
* T5 a lone participant ``discard``s one of his take-sets (it is shown, then discarded) and
  takes the figure and the pot; two or more are in *conflict*: each picks a take-set in secret
  (``reveal``, in claim order) and all are shown together. The best take-set (3.5) has the
  most points in the figure's suit, then the highest total, then the most denari, spade,
  coppe, bastoni; then the earlier in claim order (caller, then joiners in join order,
  PZ-A8). The winner takes the figure and the whole pot; every take-set shown is discarded.

The match ends when the figure deck is empty. ``scores()`` = figure points won − 3 × the
penalties (PZ-A14); chips are a separate currency, reported in ``view()`` and the log and
summing to zero; they never decide the winner (PZ-A21). Equal top scores share place 1.

French variants (3.9): ``deck="french"`` (54 cards: figures J Q K of each suit and both
jokers, 14 turns; numerals A–10) and ``"french_double"`` (108 cards, 28 turns). Q imposes 3,
a joker 5 (and scores 5); a joker has no suit, so level 1 of 3.5 is skipped (PZ-A18). Suits
rank H > D > C > S. In these variants ``JR``/``JB`` are the jokers.

Actions (shared/design/engine.md); bare words are ``{"type": word}``::

    rivolta | pass                                   # rivolta window
    {"type": "request", "rank": "5"} | pass          # commercio window
    offer | {"type": "offer", "show": "5D"} | decline
    {"type": "choose", "seat": k}                    # the requester picks an offerer
    {"type": "give", "card": "5B"}                   # the chosen giver
    prendo | pass                                    # claim poll
    {"type": "discard", "cards": [c]} | pass         # replacement round
    {"type": "stake", "amount": S}                   # the caller, 1 <= S <= table_max
    stay_out | join | {"type": "join_raise", "amount": y}
    call | hold | {"type": "raise", "amount": y} | withdraw
    {"type": "discard", "cards": [...]}              # a lone winner's take-set
    {"type": "reveal", "cards": [...]}               # a secret take-set in a conflict

Legal actions are listed "do it" first and ``pass``/``decline``/``withdraw`` last; amounts
ascending; take-sets by size, then by position in the hand; card lists in ``card_order``
(the deck's order: suit by suit, ranks ascending).

Options: ``deck`` (``"italian"``, ``"french"``, ``"french_double"``), ``rivolta_scope``
(``"per_player"``, ``"per_table"``), ``table_max`` (T, default 20), ``replacement_limit``
(10, EC-10), ``dealer`` (first dealer; default N-1, so seat 0 leads turn 1).

Stacked deck: ``{"figures": [...], "numerals": [...]}``, either key optional, each the top of
its deck (the rest is shuffled from the seed). Figures are revealed top first; numerals are
dealt one to each seat in the priority order of turn 1, then drawn top first.

Engine choices beyond the rules file, stated here once: the rivolta deals each seat its
cards as one packet in priority order; a lone winner's take-set is shown as it is discarded
(a take is made by laying the numerals on the table); a replacement discard stays private.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self

from .cards import FRENCH_DECK, FRENCH_DECK_WITH_JOKERS, ITALIAN_DECK, JOKERS, check_deck, match_rng, shuffled
from .core import Game, InvalidOptions, Option, State, dealer_option, stacked_decks

HAND_MAX = 3
PENALTY_POINTS = 3

# --------------------------------------------------------------------------- decks


@dataclass(frozen=True)
class Variant:
    """One deck choice: its two decks, request ranks, suit hierarchy and figure rules."""

    name: str
    figures: tuple[str, ...]
    numerals: tuple[str, ...]
    ranks: tuple[str, ...]  # numeral ranks a request may name
    hierarchy: tuple[str, ...]  # suits, highest first (level 3 of 3.5)
    order: dict[str, int]  # card_order
    modulus: dict[str, int]  # figure -> m (also its points)
    figure_suit: dict[str, str]  # figure -> suit ("" for a joker: no level 1)


def _value(card: str) -> int:
    r = card[:-1]
    return 1 if r == "A" else int(r)


_ITALIAN_NUMERALS = tuple(c for c in ITALIAN_DECK if c[0] not in "JNK")
_ITALIAN_FIGURES = tuple(c for c in ITALIAN_DECK if c[0] in "JNK")
_FRENCH_NUMERALS = tuple(c for c in FRENCH_DECK if c[:-1] not in ("J", "Q", "K"))
_FRENCH_FIGURES = tuple(c for c in FRENCH_DECK if c[:-1] in ("J", "Q", "K")) + JOKERS

#: Numeral values, A = 1 … 10 = 10 (PZ-A19), and ranks as requests name them.
VALUE = {c: _value(c) for c in _ITALIAN_NUMERALS + _FRENCH_NUMERALS}
RANK = {c: c[:-1] for c in VALUE}
_ITALIAN_MOD = {"J": 2, "N": 3, "K": 4}
_FRENCH_MOD = {"J": 2, "Q": 3, "K": 4}
JOKER_MODULUS = 5


def _variant(name: str, double: bool = False) -> Variant:
    if name == "italian":
        figures, numerals = _ITALIAN_FIGURES, _ITALIAN_NUMERALS
        ranks: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7")
        hierarchy = ("D", "S", "C", "B")
        order = {c: i for i, c in enumerate(ITALIAN_DECK)}
        modulus = {f: _ITALIAN_MOD[f[0]] for f in figures}
        fsuit = {f: f[-1] for f in figures}
    else:
        figures, numerals = _FRENCH_FIGURES, _FRENCH_NUMERALS
        ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
        hierarchy = ("H", "D", "C", "S")
        order = {c: i for i, c in enumerate(FRENCH_DECK_WITH_JOKERS)}
        modulus = {f: JOKER_MODULUS if f in JOKERS else _FRENCH_MOD[f[:-1]] for f in figures}
        fsuit = {f: "" if f in JOKERS else f[-1] for f in figures}
    if double:
        figures, numerals = figures * 2, numerals * 2
        name = "french_double"
    return Variant(name, figures, numerals, ranks, hierarchy, order, modulus, fsuit)


VARIANTS = {
    "italian": _variant("italian"),
    "french": _variant("french"),
    "french_double": _variant("french", double=True),
}

# --------------------------------------------------------------------------- take-sets

#: Index subsets of a hand of 0 … 3 cards, by size then position: the canonical order.
_SUBSETS = {
    0: (),
    1: ((0,),),
    2: ((0,), (1,), (0, 1)),
    3: ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)),
}
#: take-sets by modulus, then by hand (a sorted tuple of at most 3 numerals).
_TAKE_SETS: dict[int, dict[tuple[str, ...], tuple[tuple[str, ...], ...]]] = {m: {} for m in (1, 2, 3, 4, 5)}


def take_sets(hand: tuple[str, ...], m: int) -> tuple[tuple[str, ...], ...]:
    """The take-sets of ``hand`` (a sorted tuple of at most 3 numerals) under modulus ``m``:
    subsets whose total is a multiple of m (3.2), without repeats. Memoised: with at most 3
    cards in a hand the table stays small (a few thousand hands per modulus)."""
    table = _TAKE_SETS[m]
    found = table.get(hand)
    if found is None:
        found = table[hand] = _enumerate_take_sets(hand, m)
    return found


def _enumerate_take_sets(hand: tuple[str, ...], m: int) -> tuple[tuple[str, ...], ...]:
    out: list[tuple[str, ...]] = []
    for idx in _SUBSETS[len(hand)]:
        cards = tuple(hand[i] for i in idx)
        if sum(VALUE[c] for c in cards) % m == 0 and cards not in out:
            out.append(cards)
    return tuple(out)


_KEYS: dict[tuple[tuple[str, ...], str, tuple[str, ...]], tuple[int, ...]] = {}


def conflict_key(cards: tuple[str, ...], figure_suit: str, hierarchy: tuple[str, ...]) -> tuple[int, ...]:
    """What a take-set is worth in a conflict, compared as a tuple (3.5 levels 1–3): the sum
    of its cards of the figure's suit (0 for a joker, PZ-A18), its total, then the sums of
    each suit from the highest down. Memoised."""
    key = (cards, figure_suit, hierarchy)
    found = _KEYS.get(key)
    if found is None:
        found = _KEYS[key] = _conflict_key(cards, figure_suit, hierarchy)
    return found


def _conflict_key(cards: tuple[str, ...], figure_suit: str, hierarchy: tuple[str, ...]) -> tuple[int, ...]:
    level1 = sum(VALUE[c] for c in cards if c[-1] == figure_suit) if figure_suit else 0
    total = sum(VALUE[c] for c in cards)
    return (level1, total) + tuple(sum(VALUE[c] for c in cards if c[-1] == s) for s in hierarchy)


# --------------------------------------------------------------------------- actions

PASS = {"type": "pass"}
RIVOLTA = {"type": "rivolta"}
PRENDO = {"type": "prendo"}
OFFER = {"type": "offer"}
DECLINE = {"type": "decline"}
STAY_OUT = {"type": "stay_out"}
JOIN = {"type": "join"}
CALL = {"type": "call"}
HOLD = {"type": "hold"}
WITHDRAW = {"type": "withdraw"}
RIVOLTA_OR_PASS = [RIVOLTA, PASS]
PRENDO_OR_PASS = [PRENDO, PASS]
CHOOSE = tuple({"type": "choose", "seat": k} for k in range(8))

_REQUESTS = {name: [{"type": "request", "rank": r} for r in v.ranks] + [PASS] for name, v in VARIANTS.items()}
_SHOW: dict[str, dict] = {}
_GIVE: dict[str, dict] = {}
_DISCARD: dict[tuple[str, ...], dict] = {}
_REVEAL: dict[tuple[str, ...], dict] = {}
_REPLACE: dict[tuple[str, ...], list] = {}
_AMOUNTS: dict[tuple[Any, ...], list] = {}  # by the menu's kind and what it depends on


def _show(card: str) -> dict:
    a = _SHOW.get(card)
    if a is None:
        a = _SHOW[card] = {"type": "offer", "show": card}
    return a


def _give(card: str) -> dict:
    a = _GIVE.get(card)
    if a is None:
        a = _GIVE[card] = {"type": "give", "card": card}
    return a


def _discard(cards: tuple[str, ...]) -> dict:
    a = _DISCARD.get(cards)
    if a is None:
        a = _DISCARD[cards] = {"type": "discard", "cards": list(cards)}
    return a


def _reveal(cards: tuple[str, ...]) -> dict:
    a = _REVEAL.get(cards)
    if a is None:
        a = _REVEAL[cards] = {"type": "reveal", "cards": list(cards)}
    return a


def _replace_actions(hand: tuple[str, ...]) -> list:
    a = _REPLACE.get(hand)
    if a is None:
        distinct = []
        for c in hand:
            if c not in distinct:
                distinct.append(c)
        a = _REPLACE[hand] = [_discard((c,)) for c in distinct] + [PASS]
    return a


def _amounts(kind: str, low: int, high: int) -> list:
    """``{"type": kind, "amount": y}`` for low <= y <= high (memoised)."""
    key = (kind, low, high)
    a = _AMOUNTS.get(key)
    if a is None:
        a = _AMOUNTS[key] = [{"type": kind, "amount": y} for y in range(low, high + 1)]
    return a


# --------------------------------------------------------------------------- phases

(RIVOLTA_WINDOW, COMMERCIO, OFFERS, CHOOSING, GIVING, CLAIM, REPLACEMENT,
 STAKE, JOINING, RESPONSE, TAKE, SECRET, OVER) = range(13)
PHASE_NAMES = (
    "rivolta", "commercio", "offer", "choose", "give", "claim", "replacement",
    "stake", "join", "response", "take", "reveal", "over",
)


def _join_actions(level: int, table_max: int) -> list:
    key = ("join", level, table_max)
    a = _AMOUNTS.get(key)
    if a is None:
        a = _AMOUNTS[key] = [JOIN] + _amounts("join_raise", level + 1, table_max) + [STAY_OUT]
    return a


def _response_actions(below: bool, can_raise: bool, level: int, table_max: int) -> list:
    key = ("response", below, can_raise, level, table_max)
    a = _AMOUNTS.get(key)
    if a is None:
        a = [CALL if below else HOLD]
        if can_raise:
            a += _amounts("raise", level + 1, table_max)
        if below:
            a.append(WITHDRAW)
        _AMOUNTS[key] = a
    return a


_BITS: dict[tuple[int, int], tuple[bool, ...]] = {}


def _bits(mask: int, n: int) -> list[bool]:
    """A bitmask over n seats as a list of booleans (memoised)."""
    key = (mask & ((1 << n) - 1), n)
    found = _BITS.get(key)
    if found is None:
        found = _BITS[key] = tuple(bool(key[0] >> s & 1) for s in range(n))
    return list(found)


class PiazzaState(State):
    card_order = VARIANTS["italian"].order

    # ------------------------------------------------------------------ setup

    def _setup(self, deck: Any) -> None:
        opts = self.options
        n = self.players
        v = VARIANTS[opts["deck"]]
        self.variant = v
        self.card_order = v.order
        self._key = v.order.__getitem__
        self._requests = _REQUESTS[v.name]
        self.table_max: int = opts["table_max"]
        self.per_table = opts["rivolta_scope"] == "per_table"
        self.replacement_limit: int = opts["replacement_limit"]
        self.dealer: int = opts["dealer"]
        figures, numerals = self._stacked(deck, v)
        numerals.reverse()  # pop() takes the top
        self.figures = tuple(figures)  # top first; the next one is figures[next_figure]
        self.next_figure = 0
        self.stock = numerals
        self.discards: list[str] = []
        self.reshuffles = 0
        self.n_figures = len(figures)
        self.hands: list[tuple[str, ...]] = [()] * n
        # Tuples and bitmasks are replaced, never mutated, so clone() need not copy them.
        self.won: tuple[tuple[str, ...], ...] = ((),) * n
        self.points = (0,) * n
        self.penalties = (0,) * n
        self.chips = (0,) * n
        self.rivolta_mask = 0  # bit s: seat s has called its rivolta (per_table: every bit)
        self.set_aside: tuple[str, ...] = ()
        self.turn_no = 0
        self.turn_start = 0
        self.order: tuple[int, ...] = ()
        self._orders = tuple(tuple((lead + i) % n for i in range(n)) for lead in range(n))
        self._event(
            {
                "type": "start",
                "players": n,
                "deck": v.name,
                "dealer": self.dealer,
                "figures": self.n_figures,
                "table_max": self.table_max,
                "rivolta_scope": opts["rivolta_scope"],
            }
        )
        for seat in self._orders[(self.dealer + 1) % n]:
            self._draw(seat)
        self._start_turn(first=True)

    def _stacked(self, deck: Any, v: Variant) -> tuple[list[str], list[str]]:
        decks = stacked_decks(deck)
        if len(decks) > 1:
            raise InvalidOptions(f"a Piazza match is one game: give one stacked deck, not {len(decks)}")
        top = decks[0] if decks else {}
        if not isinstance(top, dict):
            raise InvalidOptions('a Piazza deck is a dict {"figures": [...], "numerals": [...]}')
        unknown = sorted(set(top) - {"figures", "numerals"})
        if unknown:
            raise InvalidOptions(
                f"unknown deck key(s) {', '.join(map(repr, unknown))}: use 'figures' and 'numerals'"
            )
        out = []
        for key, full in (("figures", v.figures), ("numerals", v.numerals)):
            rng = match_rng(self.seed, key)
            if key in top:
                head = check_deck(top[key], full, f"{key} deck ({v.name})", partial=True)
                rest = Counter(full)
                rest.subtract(head)
                out.append(head + shuffled(rest.elements(), rng))
            else:
                out.append(shuffled(full, rng))
        return out[0], out[1]

    # ------------------------------------------------------------------ the turn

    def _start_turn(self, first: bool = False) -> None:
        n = self.players
        self.turn_no += 1
        if not first:
            self.turn_start = len(self.log)
        lead = (self.dealer + self.turn_no) % n
        self.lead = lead
        self.order = order = self._orders[lead]
        self._event({"type": "turn", "turn": self.turn_no, "lead": lead})
        hands = self.hands
        for seat in order:  # T0: a seat that used all its cards draws one
            if not hands[seat]:
                self._draw(seat)
        self.figure: str | None = None
        self.modulus = 0
        self.figure_suit = ""
        self._ts = _TAKE_SETS[1]
        self.requested = 0  # bitmask: seats that have made their request this turn
        self.replacements = 0
        # commercio negotiation
        self.requester = -1
        self.rank = ""
        self.offer_seq: tuple[int, ...] = ()
        self.offers: tuple[int, ...] = ()
        self.shown: dict[int, str] = {}  # replaced, never mutated
        # betting
        self.caller = -1
        self.level = 0
        self.commit = [0] * n
        self.raised = 0  # bitmasks
        self.pending = 0
        self.out = 0
        self.participants: tuple[int, ...] = ()  # claim order
        self.join_seq: tuple[int, ...] = ()
        self.remaining = 0
        self.secret: dict[int, tuple[str, ...]] = {}  # replaced, never mutated
        self.fighters: tuple[int, ...] = ()
        self.pos = self.opos = self.jpos = self.rpos = self.fpos = 0
        self.phase = RIVOLTA_WINDOW
        self._rivolta_poll()

    def _rivolta_poll(self) -> None:
        order = self.order
        used = self.rivolta_mask
        n = self.players
        pos = self.pos
        while pos < n:
            seat = order[pos]
            if not used >> seat & 1:
                self.pos = pos
                self._turn = seat
                return
            pos += 1
        self._reveal_figure()

    def _rivolta(self, seat: int) -> None:
        self.rivolta_mask |= (1 << self.players) - 1 if self.per_table else 1 << seat
        self._event({"type": "rivolta", "seat": seat})
        hands = self.hands
        order = self.order
        pool: list[str] = []
        for s in order:
            pool.extend(hands[s])
        pool = shuffled(pool, match_rng(self.seed, "rivolta", self.turn_no))
        key = self._key
        i = 0
        for s in order:
            k = len(hands[s])
            hand = tuple(sorted(pool[i : i + k], key=key))
            i += k
            hands[s] = hand
            self._event(
                {"type": "redeal", "seat": s, "cards": list(hand)}, s, {"type": "redeal", "seat": s, "count": k}
            )
        self._reveal_figure()

    def _reveal_figure(self) -> None:
        figure = self.figures[self.next_figure]
        self.next_figure += 1
        v = self.variant
        self.figure = figure
        self.modulus = v.modulus[figure]
        self.figure_suit = v.figure_suit[figure]
        self._ts = _TAKE_SETS[self.modulus]
        self._event({"type": "figure", "card": figure, "modulus": self.modulus})
        self.pos = 0
        self._commercio_poll()

    # ------------------------------------------------------------------ commercio

    def _commercio_poll(self) -> None:
        order = self.order
        hands = self.hands
        requested = self.requested
        n = self.players
        pos = self.pos
        while pos < n:
            seat = order[pos]
            if not requested >> seat & 1 and len(hands[seat]) < HAND_MAX:
                self.pos = pos
                self.phase = COMMERCIO
                self._turn = seat
                return
            pos += 1
        self.phase = CLAIM
        self.pos = 0
        self._claim_poll()

    def _request(self, seat: int, rank: str) -> None:
        self.requested |= 1 << seat
        self._event({"type": "request", "seat": seat, "rank": rank})
        n = self.players
        hands = self.hands
        seq = []
        for i in range(1, n):
            s = (seat + i) % n
            for c in hands[s]:
                if RANK[c] == rank:
                    seq.append(s)
                    break
        self.requester = seat
        self.rank = rank
        self.offers = ()
        if self.shown:
            self.shown = {}
        if seq:
            self.offer_seq = tuple(seq)
            self.opos = 0
            self.phase = OFFERS
            self._turn = seq[0]
        else:
            self._no_deal()

    def _offer_actions(self, seat: int) -> list:
        rank = self.rank
        out = [OFFER]
        for c in self.hands[seat]:
            if RANK[c] == rank:
                a = _show(c)
                if a not in out:
                    out.append(a)
        out.append(DECLINE)
        return out

    def _offer(self, seat: int, action: dict) -> None:
        if action["type"] == "offer":
            self.offers += (seat,)
            card = action.get("show")
            if card is None:
                self._event({"type": "offer", "seat": seat})
            else:
                self.shown = {**self.shown, seat: card}
                pen = list(self.penalties)
                pen[seat] += 1
                self.penalties = tuple(pen)
                self._event({"type": "offer", "seat": seat, "show": card, "penalty": PENALTY_POINTS})
        else:
            self._event({"type": "decline", "seat": seat})
        self.opos += 1
        if self.opos < len(self.offer_seq):
            self._turn = self.offer_seq[self.opos]
        elif self.offers:
            self.phase = CHOOSING
            self._turn = self.requester
        else:
            self._no_deal()

    def _no_deal(self) -> None:
        self._event({"type": "no_offer", "seat": self.requester, "rank": self.rank})
        self.pos += 1
        self._commercio_poll()

    def _give_card(self, giver: int, card: str) -> None:
        requester = self.requester
        hands = self.hands
        hand = list(hands[giver])
        hand.remove(card)
        hands[giver] = tuple(hand)
        hands[requester] = tuple(sorted(hands[requester] + (card,), key=self._key))
        self._event({"type": "give", "seat": giver, "to": requester, "card": card})
        while len(hands[giver]) < HAND_MAX:  # the giver draws up to 3 (3.7)
            if not self._draw(giver):
                break
        self.pos += 1
        self._commercio_poll()

    # ------------------------------------------------------------------ claim poll, no take

    def _claim_poll(self) -> None:
        order = self.order
        hands = self.hands
        m = self.modulus
        table = self._ts
        n = self.players
        pos = self.pos
        while pos < n:
            seat = order[pos]
            hand = hands[seat]
            found = table.get(hand)
            if found is None:
                found = take_sets(hand, m)
            if found:
                self.pos = pos
                self._turn = seat
                return
            pos += 1
        self._no_take()

    def _no_take(self) -> None:
        hands = self.hands
        short = [s for s in self.order if len(hands[s]) < HAND_MAX]
        if short:  # T3c: each seat with fewer than 3 cards draws one (PZ-A24)
            self._event({"type": "no_take", "draw": short})
            for s in short:
                self._draw(s)
            self.pos = 0
            self._commercio_poll()
            return
        if self.replacements >= self.replacement_limit:  # the safety valve (PZ-A15, EC-10)
            figure = self.figure
            assert figure is not None  # a replacement is for the figure on the table
            self.set_aside += (figure,)
            self._event({"type": "set_aside", "figure": figure, "replacements": self.replacements})
            self._end_turn()
            return
        self.replacements += 1
        self._event({"type": "replacement", "round": self.replacements})
        self.phase = REPLACEMENT
        self.pos = 0
        self._turn = self.order[0]

    def _replace(self, seat: int, card: str | None) -> None:
        if card is None:
            self._event({"type": "pass", "seat": seat})
        else:
            hand = list(self.hands[seat])
            hand.remove(card)
            self.hands[seat] = tuple(hand)
            self.discards.append(card)
            self._event(
                {"type": "replace", "seat": seat, "card": card}, seat, {"type": "replace", "seat": seat}
            )
            self._draw(seat)
        self.pos += 1
        if self.pos < self.players:
            self._turn = self.order[self.pos]
        else:
            self.pos = 0
            self._commercio_poll()

    # ------------------------------------------------------------------ betting

    def _prendo(self, seat: int) -> None:
        self.caller = seat
        self._event({"type": "prendo", "seat": seat})
        n = self.players
        hands = self.hands
        m = self.modulus
        seq = []
        for i in range(1, n):
            s = (seat + i) % n
            if take_sets(hands[s], m):
                seq.append(s)
        self.participants = (seat,)
        self.join_seq = tuple(seq)
        self._turn = seat
        if seq:
            self.phase = STAKE
        else:
            self._event({"type": "uncontested", "seat": seat})
            self.phase = TAKE

    def _stake(self, seat: int, amount: int) -> None:
        self.level = amount
        self.commit[seat] = amount
        self._event({"type": "stake", "seat": seat, "amount": amount})
        self.phase = JOINING
        self.jpos = 0
        self._turn = self.join_seq[0]

    def _join(self, seat: int, action: dict) -> None:
        kind = action["type"]
        if kind == "stay_out":
            self._event({"type": "stay_out", "seat": seat})
        else:
            if kind == "join_raise":
                self.level = action["amount"]
                self.raised |= 1 << seat
                self._event({"type": "join_raise", "seat": seat, "amount": self.level})
            else:
                self._event({"type": "join", "seat": seat, "amount": self.level})
            self.commit[seat] = self.level
            self.participants += (seat,)
        self.jpos += 1
        if self.jpos < len(self.join_seq):
            self._turn = self.join_seq[self.jpos]
            return
        parts = self.participants
        if len(parts) == 1:  # nobody joined: no bets (3.4.2)
            self._event({"type": "no_bets", "seat": self.caller})
            self.phase = TAKE
            self._turn = self.caller
            return
        self.remaining = len(parts)
        pending = 0
        for p in parts:
            pending |= 1 << p
        self.pending = pending
        self.phase = RESPONSE
        self.rpos = 0
        self._turn = parts[0]

    def _respond(self, seat: int, action: dict) -> None:
        kind = action["type"]
        bit = 1 << seat
        pending = self.pending & ~bit
        if kind == "call":
            self.commit[seat] = self.level
            self._event({"type": "call", "seat": seat, "amount": self.level})
        elif kind == "hold":
            self._event({"type": "hold", "seat": seat})
        elif kind == "raise":
            y = action["amount"]
            self.level = y
            self.commit[seat] = y
            self.raised |= bit
            for p in self.participants:
                if p != seat:
                    pending |= 1 << p
            pending &= ~self.out
            self._event({"type": "raise", "seat": seat, "amount": y})
        else:
            self.out |= bit
            self.remaining -= 1
            self._event({"type": "withdraw", "seat": seat, "forfeit": self.commit[seat]})
        self.pending = pending
        parts = self.participants
        out = self.out
        if self.remaining == 1:
            winner = next(p for p in parts if not out >> p & 1)
            self._event({"type": "last_in", "seat": winner})
            self.phase = TAKE
            self._turn = winner
            return
        k = len(parts)
        rpos = self.rpos
        for step in range(1, k + 1):
            i = (rpos + step) % k
            p = parts[i]
            if pending >> p & 1:
                self.rpos = i
                self._turn = p
                return
        # Betting closed: a conflict among those still in, in claim order.
        self.fighters = tuple(p for p in parts if not out >> p & 1)
        self._event({"type": "conflict", "seats": list(self.fighters), "level": self.level})
        self.phase = SECRET
        self.fpos = 0
        self._turn = self.fighters[0]

    # ------------------------------------------------------------------ resolution

    def _secret(self, seat: int, cards: tuple[str, ...]) -> None:
        self.secret = {**self.secret, seat: cards}
        self._event(
            {"type": "secret", "seat": seat, "cards": list(cards)}, seat, {"type": "secret", "seat": seat}
        )
        self.fpos += 1
        fighters = self.fighters
        if self.fpos < len(fighters):
            self._turn = fighters[self.fpos]
            return
        hierarchy = self.variant.hierarchy
        fsuit = self.figure_suit
        best = None
        winner = -1
        shown = []
        for p in fighters:  # claim order: the earlier wins a full tie (PZ-A8)
            ts = self.secret[p]
            key = conflict_key(ts, fsuit, hierarchy)
            shown.append({"seat": p, "cards": list(ts), "key": list(key)})
            if best is None or key > best:
                best = key
                winner = p
        self._event({"type": "reveal", "take_sets": shown, "winner": winner})
        for p in fighters:
            self._throw(p, self.secret[p])
        self._award(winner)

    def _take(self, seat: int, cards: tuple[str, ...]) -> None:
        self._event({"type": "take", "seat": seat, "cards": list(cards)})
        self._throw(seat, cards)
        self._award(seat)

    def _throw(self, seat: int, cards: tuple[str, ...]) -> None:
        hand = list(self.hands[seat])
        for c in cards:
            hand.remove(c)
        self.hands[seat] = tuple(hand)
        self.discards.extend(cards)

    def _award(self, winner: int) -> None:
        figure = self.figure
        assert figure is not None  # the figure on the table is the one won
        pts = self.modulus
        points = list(self.points)
        points[winner] += pts
        self.points = tuple(points)
        won = list(self.won)
        won[winner] += (figure,)
        self.won = tuple(won)
        parts = self.participants
        pot = 0
        if len(parts) > 1:  # somebody joined: the participants pay in, the winner takes the pot
            chips = list(self.chips)
            commit = self.commit
            for p in parts:
                pot += commit[p]
                chips[p] -= commit[p]
            chips[winner] += pot
            self.chips = tuple(chips)
        self._event({"type": "win", "seat": winner, "figure": figure, "points": pts, "pot": pot})
        self._end_turn()

    def _end_turn(self) -> None:
        if self.next_figure < self.n_figures:
            self._start_turn()
            return
        self.phase = OVER
        self._turn = None
        self.figure = None
        self.modulus = 0
        self._event(
            {
                "type": "match_over",
                "scores": self.scores(),
                "chips": list(self.chips),
                "won": list(map(list, self.won)),
            }
        )

    # ------------------------------------------------------------------ drawing

    def _draw(self, seat: int) -> bool:
        stock = self.stock
        if not stock:
            if not self.discards:
                self._event({"type": "no_draw", "seat": seat})  # PZ-A16
                return False
            self.reshuffles += 1  # 3.8: the discard pile becomes the numeral deck
            stock = self.stock = shuffled(self.discards, match_rng(self.seed, "reshuffle", self.reshuffles))
            self.discards = []
            self._event({"type": "reshuffle", "cards": len(stock)})
        card = stock.pop()
        hands = self.hands
        hand = hands[seat]
        if hand:
            hands[seat] = tuple(sorted(hand + (card,), key=self._key))
        else:
            hands[seat] = (card,)
        self._event({"type": "draw", "seat": seat, "card": card}, seat, {"type": "draw", "seat": seat})
        return True

    # ------------------------------------------------------------------ contract hooks

    def _legal_actions(self) -> list[dict]:
        phase = self.phase
        if phase == COMMERCIO:
            return self._requests
        if phase == CLAIM:
            return PRENDO_OR_PASS
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        if phase == JOINING:
            return _join_actions(self.level, self.table_max)
        if phase == RESPONSE:
            level = self.level
            return _response_actions(
                self.commit[seat] < level,
                not self.raised >> seat & 1 and level < self.table_max,
                level,
                self.table_max,
            )
        if phase == OFFERS:
            return self._offer_actions(seat)
        if phase == RIVOLTA_WINDOW:
            return RIVOLTA_OR_PASS
        if phase == STAKE:
            return _amounts("stake", 1, self.table_max)
        if phase == SECRET:
            return [_reveal(ts) for ts in take_sets(self.hands[seat], self.modulus)]
        if phase == TAKE:
            return [_discard(ts) for ts in take_sets(self.hands[seat], self.modulus)]
        if phase == CHOOSING:
            return [CHOOSE[k] for k in self.offers]
        if phase == GIVING:
            shown = self.shown.get(seat)
            if shown is not None:
                return [_give(shown)]
            rank = self.rank
            out = []
            for c in self.hands[seat]:
                if RANK[c] == rank:
                    a = _give(c)
                    if a not in out:
                        out.append(a)
            return out
        if phase == REPLACEMENT:
            return _replace_actions(self.hands[seat])
        raise AssertionError(f"no decision in phase {phase}")

    def _do(self, action: dict, forced: bool) -> None:
        seat = self._turn
        assert seat is not None  # _do runs only while a seat is to act
        phase = self.phase
        if phase == COMMERCIO:
            if action is PASS or action["type"] == "pass":
                self._event({"type": "pass", "seat": seat})
                self.pos += 1
                self._commercio_poll()
            else:
                self._request(seat, action["rank"])
        elif phase == CLAIM:
            if action is PASS or action["type"] == "pass":
                self._event({"type": "pass", "seat": seat})
                self.pos += 1
                self._claim_poll()
            else:
                self._prendo(seat)
        elif phase == JOINING:
            self._join(seat, action)
        elif phase == RESPONSE:
            self._respond(seat, action)
        elif phase == OFFERS:
            self._offer(seat, action)
        elif phase == RIVOLTA_WINDOW:
            if action["type"] == "rivolta":
                self._rivolta(seat)
            else:
                self._event({"type": "pass", "seat": seat})
                self.pos += 1
                self._rivolta_poll()
        elif phase == STAKE:
            self._stake(seat, action["amount"])
        elif phase == SECRET:
            self._secret(seat, tuple(action["cards"]))
        elif phase == TAKE:
            self._take(seat, tuple(action["cards"]))
        elif phase == CHOOSING:
            giver = action["seat"]
            self._event({"type": "choose", "seat": seat, "giver": giver})
            self.phase = GIVING
            self._turn = giver
        elif phase == GIVING:
            self._give_card(seat, action["card"])
        elif phase == REPLACEMENT:
            self._replace(seat, action["cards"][0] if action["type"] == "discard" else None)

    def _why_illegal(self, action: dict) -> str:
        kind = action.get("type")
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        phase = self.phase
        name = PHASE_NAMES[phase]
        who = f"seat {seat}"
        expected = " / ".join(dict.fromkeys(a["type"] for a in self._legal_actions()))
        wrong = f"{kind!r} is not allowed: {who} is asked in the {name} step and may {expected}"
        if kind == "rivolta":
            return (
                f"{who} may not call a rivolta now: it is called before the figure is revealed, "
                f"once per {'table' if self.per_table else 'player'} per match and once per turn (PZ-A9, 3.6)"
            )
        if phase == RIVOLTA_WINDOW:
            return f"{wrong} (3.6, EC-8)"
        if kind == "request":
            if len(self.hands[seat]) >= HAND_MAX:
                return f"{who} holds 3 cards and may not request one (PZ-A11)"
            if self.requested >> seat & 1:
                return f"{who} has already made his one request this turn (PZ-A12)"
            if phase == COMMERCIO:
                ranks = ", ".join(self.variant.ranks)
                return f"a request names a numeral rank ({ranks}), got {action.get('rank')!r} (3.7)"
            return f"{wrong}: requests are made only in a commercio window (EC-8, PZ-A12)"
        if phase == COMMERCIO:
            return f"{wrong} (3.7, EC-8)"
        if phase == OFFERS:
            if kind == "offer":
                return f"{who} may show only a card of rank {self.rank} that he holds, got {action.get('show')!r} (3.7)"
            return f"{wrong} (3.7, EC-8)"
        if phase == CHOOSING:
            if kind == "choose":
                return (
                    f"the requester must choose one of the seats that offered, {list(self.offers)}, "
                    f"got {action.get('seat')!r} (PZ-A13)"
                )
            return f"{wrong} (PZ-A13)"
        if phase == GIVING:
            if kind == "give":
                if seat in self.shown:
                    return f"{who} showed {self.shown[seat]} and must give that card (3.7)"
                return f"{who} must give a card of rank {self.rank} that he holds, got {action.get('card')!r} (3.7)"
            return f"{wrong} (3.7)"
        if kind in ("prendo", "join", "join_raise") and not take_sets(self.hands[seat], self.modulus or 1):
            return f"{who} holds no take-set, so he may neither claim nor join (PZ-A6)"
        if phase == CLAIM:
            return f"{wrong} (T3b, PZ-A2)"
        if phase == REPLACEMENT:
            if kind == "discard":
                return (
                    f"in a replacement round {who} may discard exactly one card of his hand, "
                    f"got {action.get('cards')!r} (T3c)"
                )
            return f"{wrong} (T3c)"
        if phase == STAKE:
            if kind == "stake":
                return f"a stake is an integer from 1 to {self.table_max}, got {action.get('amount')!r} (PZ-A3)"
            return f"{wrong}: the caller first fixes the stake (3.4)"
        if phase in (JOINING, RESPONSE):
            if kind in ("raise", "join_raise"):
                if self.raised >> seat & 1:
                    return f"{who} has already raised this turn: one raise per player per turn (PZ-A3, 3.4)"
                return (
                    f"a raise goes to a level above {self.level} and at most {self.table_max}, "
                    f"got {action.get('amount')!r} (PZ-A3)"
                )
            if kind == "hold" and phase == RESPONSE:
                return f"{who} is below the level {self.level}: he must call, raise or withdraw (3.4)"
            if kind == "call" and phase == RESPONSE:
                return f"{who} already matches the level {self.level}: he may hold or raise (3.4)"
            return f"{wrong} (3.4, EC-9)"
        if kind in ("discard", "reveal"):
            return (
                f"{action.get('cards')!r} is not a take-set of {who}: cards of his hand whose total is "
                f"a multiple of {self.modulus} (3.2, PZ-A7)"
            )
        return f"{wrong} (3.4, 3.5)"

    def _copy_into(self, new: Self) -> None:
        # Everything else is immutable (tuples, ints, bitmasks) or replaced on change.
        new.stock = self.stock.copy()
        new.discards = self.discards.copy()
        new.hands = self.hands.copy()
        new.commit = self.commit.copy()

    # ------------------------------------------------------------------ results and views

    def scores(self) -> list[int]:
        """Figure points won minus 3 per penalty (PZ-A14); chips do not count (PZ-A21)."""
        pen = self.penalties
        return [p - PENALTY_POINTS * pen[i] for i, p in enumerate(self.points)]

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (None: a spectator): its own hand, the public state and the
        events of the current turn."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        turn = self._turn
        phase = self.phase
        n = self.players
        view: dict[str, Any] = {
            "game": "piazza",
            "seat": seat,
            "players": n,
            "deck": self.variant.name,
            "turn": self.turn_no,
            "turns": self.n_figures,
            "lead": self.lead,
            "order": list(self.order),
            "phase": PHASE_NAMES[phase],
            "current_player": turn,
            "figure": self.figure,
            "modulus": self.modulus,
            "hand": None if seat is None else list(self.hands[seat]),
            "hand_sizes": list(map(len, self.hands)),
            "stock": len(self.stock),
            "discards": len(self.discards),
            "figures_left": self.n_figures - self.next_figure,
            "won": list(map(list, self.won)),
            "set_aside": list(self.set_aside),
            "penalties": list(self.penalties),
            "chips": list(self.chips),
            "rivolta_available": _bits(~self.rivolta_mask, n),
            "rivolta_scope": "per_table" if self.per_table else "per_player",
            "table_max": self.table_max,
            "replacement_limit": self.replacement_limit,
            "requested": _bits(self.requested, n),
            "scores": self.scores(),
            "events": self._events_for(seat, self.turn_start),
        }
        if seat is not None and self.figure is not None:
            view["take_sets"] = [list(ts) for ts in take_sets(self.hands[seat], self.modulus)]
        if OFFERS <= phase <= GIVING:
            view["request"] = {
                "seat": self.requester,
                "rank": self.rank,
                "offers": list(self.offers),
                "shown": [[k, c] for k, c in self.shown.items()],
            }
        if STAKE <= phase <= SECRET:
            view["betting"] = {
                "caller": self.caller,
                "level": self.level,
                "participants": list(self.participants),
                "withdrawn": [p for p in self.participants if self.out >> p & 1],
                "commitments": list(self.commit),
                "raised": _bits(self.raised, n),
            }
        if seat is not None and seat == turn:
            view["legal_actions"] = self.legal_actions()
        return view


class Piazza(Game[PiazzaState]):
    name = "piazza"
    title = "Piazza"
    min_players = 2
    max_players = 8
    state_class = PiazzaState
    options = {
        "deck": Option(
            "italian",
            "'italian' (40 cards, 12 turns), 'french' (54, 14 turns) or 'french_double' (108, 28 turns)",
            kind=str,
            choices=("italian", "french", "french_double"),
        ),
        "rivolta_scope": Option(
            "per_player",
            "a rivolta once per player per match ('per_player') or once for the table ('per_table') (PZ-A9)",
            kind=str,
            choices=("per_player", "per_table"),
        ),
        "table_max": Option(20, "T: the highest stake or betting level (PZ-A3)", low=1),
        "replacement_limit": Option(
            10, "replacement rounds in a turn before the figure is set aside (PZ-A15, EC-10)", low=1
        ),
        "dealer": dealer_option(),
    }

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> PiazzaState:
        """A playable state consistent with ``view`` (see :meth:`engine.Game.determinize`).

        Kept exactly: the seat's hand, every count, the figures won and set aside, the
        figure, the phase with its trade and betting, penalties, chips and scores. Known from
        the turn's events: cards traded or shown in an offer are in their holder's hand (until
        he throws them or makes a private replacement discard), the seat's own replacement
        discards and the take-sets thrown are in the discard pile (until a reshuffle).
        Sampled uniformly from the numerals unaccounted for, in canonical order: the rest of
        the others' hands, the stock's order and the discard pile; the figure deck's order
        from the figures not yet seen; the secret take-sets already chosen by others in a
        conflict (uniformly among each one's take-sets). Later rivolte and reshuffles use a
        fresh seed drawn from ``rng``.

        What the current step implies is respected, by rejection (then seat by seat if that
        takes too long): a seat that offered, declined or was asked to give holds the rank
        requested and a seat skipped by that request holds none; the claimant, the caller,
        every seat asked to join and every participant still in holds a take-set, and a seat
        skipped by the joining round holds none. Not used: who was skipped by earlier polls
        and what happened in earlier turns (the view shows only the current turn), and what
        opponents' choices suggest about their hands. The sample's log is the view's events
        (the seat's private ones hidden from the others), so ``view(seat) == view``; other
        seats' views of it lack their own private events, and its ``to_json()`` replays
        nothing.
        """
        return _determinize(self, view, rng)


_PRIVATE = {"draw": ("card",), "redeal": ("cards",), "replace": ("card",), "secret": ("cards",)}


def _visibility(event: dict, seat: int) -> tuple[tuple[int, ...], dict] | None:
    """Who may see ``event`` in a sample: the seat's own private events stay its own."""
    hidden = _PRIVATE.get(event["type"])
    if hidden is None or event.get("seat") != seat or hidden[0] not in event:
        return None
    redacted = {k: v for k, v in event.items() if k not in hidden}
    if event["type"] == "redeal":
        redacted["count"] = len(event["cards"])
    return ((seat,), redacted)


def _known_from_events(view: Mapping[str, Any]) -> tuple[list[Counter], Counter, list[int]]:
    """From the turn's events: the cards each seat is known to hold, the cards known to lie
    in the discard pile, and (for the current request or joining round) who was asked."""
    n = view["players"]
    me = view["seat"]
    known: list[Counter] = [Counter() for _ in range(n)]
    discarded: Counter = Counter()
    asked: list[int] = []
    for e in view["events"]:
        kind = e["type"]
        if kind == "redeal":
            if e["seat"] != me:
                known[e["seat"]].clear()
        elif kind == "offer":
            asked.append(e["seat"])
            if "show" in e:
                known[e["seat"]][e["show"]] = max(1, known[e["seat"]][e["show"]])
        elif kind in ("decline", "stay_out", "join", "join_raise"):
            asked.append(e["seat"])
        elif kind in ("request", "prendo"):
            asked = []
        elif kind == "give":
            giver = known[e["seat"]]
            if giver[e["card"]]:
                giver[e["card"]] -= 1
            known[e["to"]][e["card"]] += 1
        elif kind == "take":
            _thrown(known[e["seat"]], e["cards"], discarded)
        elif kind == "reveal":
            for ts in e["take_sets"]:
                _thrown(known[ts["seat"]], ts["cards"], discarded)
        elif kind == "replace":
            if "card" in e:
                discarded[e["card"]] += 1
            else:
                known[e["seat"]].clear()  # one card went, unseen: perhaps a known one
        elif kind == "reshuffle":
            discarded.clear()
    for k in known:
        k += Counter()  # drop zeros
    known[me] = Counter(view["hand"])
    return known, discarded, asked


def _thrown(known: Counter, cards: list[str], discarded: Counter) -> None:
    for c in cards:
        if known[c]:
            known[c] -= 1
        discarded[c] += 1


def _constraints(view: Mapping[str, Any], asked: list[int]) -> dict[int, tuple[str, Any]]:
    """What the current step says about each other seat's hand: ``("rank", r)`` holds a card
    of rank r, ``("norank", r)`` holds none, ``("take", None)`` holds a take-set,
    ``("notake", None)`` holds none."""
    n = view["players"]
    me = view["seat"]
    phase = view["phase"]
    turn = view["current_player"]
    out: dict[int, tuple[str, Any]] = {}
    if phase in ("offer", "choose", "give"):
        req = view["request"]
        rank = req["rank"]
        responded = set(asked)
        if phase == "offer":
            responded.add(turn)
        for i in range(1, n):
            s = (req["seat"] + i) % n
            if phase == "offer" and s == turn:
                out[s] = ("rank", rank)
                break
            out[s] = ("rank", rank) if s in responded else ("norank", rank)
    elif phase == "claim":
        out[turn] = ("take", None)
    elif phase in ("stake", "join", "response", "take", "reveal"):
        bet = view["betting"]
        caller = bet["caller"]
        withdrawn = set(bet["withdrawn"])
        for p in bet["participants"]:
            if p not in withdrawn:
                out[p] = ("take", None)
        if phase != "stake":
            responded = set(asked)
            if phase == "join":
                responded.add(turn)
            finished = phase != "join"  # the joining round is over: the skipped had no take-set
            for i in range(1, n):
                s = (caller + i) % n
                if phase == "join" and s == turn:
                    out[s] = ("take", None)
                    break
                if s in responded:
                    out.setdefault(s, ("take", None))
                elif finished:
                    out.setdefault(s, ("notake", None))
        if phase == "take":
            out[turn] = ("take", None)
    out.pop(me, None)
    return out


def _satisfied(hand: tuple[str, ...], rule: tuple[str, Any], m: int) -> bool:
    kind, rank = rule
    if kind == "rank":
        return any(RANK[c] == rank for c in hand)
    if kind == "norank":
        return not any(RANK[c] == rank for c in hand)
    found = bool(take_sets(hand, m))
    return found if kind == "take" else not found


_TRIES = 200


def _determinize(game: Piazza, view: Mapping[str, Any], rng: random.Random) -> PiazzaState:
    n = view["players"]
    me = view["seat"]
    if not isinstance(me, int):
        raise ValueError("determinize needs a seat's view, not a spectator's")
    v = VARIANTS[view["deck"]]
    key = v.order.__getitem__
    known, discarded, asked = _known_from_events(view)
    sizes = view["hand_sizes"]
    pool = Counter(v.numerals)
    for k in known:
        pool.subtract(k)
    pool.subtract(discarded)
    if min(pool.values(), default=0) < 0:
        raise ValueError("the view is inconsistent: a card is accounted for twice")
    unseen = sorted(pool.elements(), key=key)  # canonical order
    missing = [sizes[s] - sum(known[s].values()) for s in range(n)]
    unknown_discards = view["discards"] - sum(discarded.values())
    if min(missing) < 0 or unknown_discards < 0 or len(unseen) != sum(missing) + view["stock"] + unknown_discards:
        raise ValueError("the view is inconsistent: zone sizes do not match the unseen cards")
    known_cards = [sorted(k.elements(), key=key) for k in known]
    rules = _constraints(view, asked)
    m = view["modulus"] or 1
    hidden = [s for s in range(n) if missing[s]]
    # A caller asked for his stake has at least one seat that may join (else he took, 3.4).
    joinable = None
    if view["phase"] == "stake":
        caller = view["betting"]["caller"]
        joinable = [s for s in range(n) if s != caller]
        if any(take_sets(tuple(known_cards[s]), m) for s in joinable if not missing[s]):
            joinable = None

    def deal(cards: list[str]) -> list[tuple[str, ...]] | None:
        hands = []
        pos = 0
        for s in range(n):
            hand = tuple(sorted(known_cards[s] + cards[pos : pos + missing[s]], key=key))
            pos += missing[s]
            rule = rules.get(s)
            if rule is not None and not _satisfied(hand, rule, m):
                return None
            hands.append(hand)
        if joinable and not any(take_sets(hands[s], m) for s in joinable):
            return None
        return hands

    hands = None
    for _ in range(_TRIES):
        rest = shuffled(unseen, rng)
        hands = deal(rest)
        if hands is not None:
            break
    else:
        open_seats = [s for s in joinable or () if missing[s]]
        if open_seats:
            rules.setdefault(open_seats[rng.randrange(len(open_seats))], ("take", None))
        rest, hands = _seat_by_seat(unseen, known_cards, missing, rules, m, key, rng)
    used = sum(missing[s] for s in hidden)
    leftover = rest[used:]
    discards = sorted(discarded.elements(), key=key) + leftover[: unknown_discards]
    stock = leftover[unknown_discards:]
    return _build(game, view, v, hands, stock, discards, asked, rng)


def _seat_by_seat(
    unseen: list[str], known_cards: list[list[str]], missing: list[int], rules: dict[int, tuple[str, Any]], m: int,
    key: Callable[[str], int], rng: random.Random,
) -> tuple[list[str], list[tuple[str, ...]]]:
    """The fallback when rejection of whole deals takes too long: each constrained seat in
    turn draws its hidden cards from what is left until its rule holds."""
    n = len(missing)
    left = list(unseen)
    parts: list[list[str] | None] = [None] * n
    for s in sorted(rules):
        for _ in range(_TRIES * 5):
            pick = rng.sample(left, missing[s]) if missing[s] else []
            hand = tuple(sorted(known_cards[s] + pick, key=key))
            if _satisfied(hand, rules[s], m):
                break
        else:
            raise ValueError(f"no hand for seat {s} satisfies {rules[s]}: the view is inconsistent")
        for c in pick:
            left.remove(c)
        parts[s] = pick
    left = shuffled(left, rng)
    rest: list[str] = []
    for s in range(n):
        part = parts[s]
        if part is None:
            part = parts[s] = left[: missing[s]]
            left = left[missing[s] :]
        rest += part
    rest += left
    hands = [tuple(sorted(known_cards[s] + (parts[s] or []), key=key)) for s in range(n)]
    return rest, hands


def _build(
    game: Piazza, view: Mapping[str, Any], v: Variant, hands: list[tuple[str, ...]], stock: list[str],
    discards: list[str], asked: list[int], rng: random.Random,
) -> PiazzaState:
    n = view["players"]
    me = view["seat"]
    state = object.__new__(PiazzaState)
    phase = PHASE_NAMES.index(view["phase"])
    turn_no = view["turn"]
    lead = view["lead"]
    state.game = game
    state.players = n
    state.seed = rng.randrange(2**63)  # later rivolte and reshuffles
    state.dealer = (lead - turn_no) % n
    state.options = {
        "deck": v.name,
        "rivolta_scope": view["rivolta_scope"],
        "table_max": view["table_max"],
        "replacement_limit": view["replacement_limit"],
        "dealer": state.dealer,
    }
    state.deck = None
    state.actions = []
    state.log = list(view["events"])
    state._vis = [_visibility(e, me) for e in view["events"]]
    state.turn_start = 0
    state.variant = v
    state.card_order = v.order
    state._key = v.order.__getitem__
    state._requests = _REQUESTS[v.name]
    state.table_max = view["table_max"]
    state.per_table = view["rivolta_scope"] == "per_table"
    state.replacement_limit = view["replacement_limit"]
    # The figure deck: those seen (in any order: they are behind next_figure), then the rest.
    unseen_figures = Counter(v.figures)
    seen = [f for won in view["won"] for f in won] + list(view["set_aside"])
    if view["figure"] is not None:
        seen.append(view["figure"])
    unseen_figures.subtract(seen)
    rest = shuffled(sorted(unseen_figures.elements(), key=v.order.__getitem__), rng)
    if len(rest) != view["figures_left"]:
        raise ValueError("the view is inconsistent: figures do not add up")
    state.figures = tuple(seen) + tuple(rest)
    state.n_figures = len(state.figures)
    state.next_figure = len(seen)
    state.stock = list(reversed(stock))  # pop() takes the top
    state.discards = list(discards)
    state.reshuffles = 0
    state.hands = list(hands)
    state.won = tuple(tuple(w) for w in view["won"])
    state.penalties = tuple(view["penalties"])
    state.points = tuple(sc + PENALTY_POINTS * p for sc, p in zip(view["scores"], view["penalties"]))
    state.chips = tuple(view["chips"])
    state.rivolta_mask = sum(1 << s for s in range(n) if not view["rivolta_available"][s])
    state.set_aside = tuple(view["set_aside"])
    state.turn_no = turn_no
    state._orders = tuple(tuple((ld + i) % n for i in range(n)) for ld in range(n))
    state.lead = lead
    state.order = order = state._orders[lead]
    figure = view["figure"]
    state.figure = figure
    state.modulus = v.modulus[figure] if figure is not None else 0
    state.figure_suit = v.figure_suit[figure] if figure is not None else ""
    state._ts = _TAKE_SETS[state.modulus or 1]
    state.requested = sum(1 << s for s in range(n) if view["requested"][s])
    state.replacements = sum(1 for e in view["events"] if e["type"] == "replacement")
    turn = view["current_player"]
    req = view.get("request")
    state.requester = req["seat"] if req else -1
    state.rank = req["rank"] if req else ""
    state.offers = tuple(req["offers"]) if req else ()
    state.shown = {k: c for k, c in req["shown"]} if req else {}
    state.offer_seq = ()
    state.opos = 0
    if phase == OFFERS:
        seq = list(asked) + [turn]
        for i in range(1, n):
            s = (state.requester + i) % n
            if _after(s, turn, state.requester, n) and any(RANK[c] == state.rank for c in hands[s]):
                seq.append(s)
        state.offer_seq = tuple(seq)
        state.opos = seq.index(turn)
    bet = view.get("betting")
    state.caller = bet["caller"] if bet else -1
    state.level = bet["level"] if bet else 0
    state.commit = list(bet["commitments"]) if bet else [0] * n
    state.raised = sum(1 << s for s in range(n) if bet["raised"][s]) if bet else 0
    state.participants = tuple(bet["participants"]) if bet else ()
    out = sum(1 << s for s in bet["withdrawn"]) if bet else 0
    state.out = out
    state.join_seq = ()
    state.jpos = 0
    if phase in (STAKE, JOINING):
        caller = state.caller
        seq = list(asked) + ([turn] if phase == JOINING else [])
        for i in range(1, n):
            s = (caller + i) % n
            if s not in seq and (phase == STAKE or _after(s, turn, caller, n)) and take_sets(hands[s], state.modulus):
                seq.append(s)
        state.join_seq = tuple(seq)
        state.jpos = seq.index(turn) if phase == JOINING else 0
    state.remaining = len(state.participants) - bin(out).count("1")
    # Who still has to answer in the response loop: everyone at its start, then each answer
    # clears its seat and a raise asks every other participant still in again.
    pending = 0
    if phase == RESPONSE:
        for p in state.participants:
            pending |= 1 << p
        for e in view["events"]:
            kind = e["type"]
            if kind in ("call", "hold", "withdraw"):
                pending &= ~(1 << e["seat"])
            elif kind == "raise":
                for p in state.participants:
                    pending |= 1 << p
                pending &= ~(1 << e["seat"]) & ~out
    state.pending = pending
    state.rpos = state.participants.index(turn) if phase == RESPONSE else 0
    state.fighters = ()
    state.secret = {}
    state.fpos = 0
    if phase == SECRET:
        state.fighters = fighters = tuple(p for p in state.participants if not out >> p & 1)
        state.fpos = fighters.index(turn)
        secret = {}
        for e in view["events"]:
            if e["type"] == "secret":
                s = e["seat"]
                if "cards" in e:
                    secret[s] = tuple(e["cards"])
                else:  # another seat's secret choice: one of its take-sets
                    options = take_sets(hands[s], state.modulus)
                    secret[s] = options[rng.randrange(len(options))]
        state.secret = secret
    if phase in (RIVOLTA_WINDOW, COMMERCIO, CLAIM, REPLACEMENT):
        state.pos = order.index(turn)
    elif OFFERS <= phase <= GIVING:
        state.pos = order.index(state.requester)
    elif state.caller >= 0:
        state.pos = order.index(state.caller)
    else:
        state.pos = 0
    state.phase = phase
    state._turn = turn
    state._legal = None if turn is not None else []
    return state


def _after(s: int, turn: int, start: int, n: int) -> bool:
    """Whether seat ``s`` comes after ``turn`` going round from ``start``."""
    return (s - start) % n > (turn - start) % n


from . import register  # noqa: E402

GAME = register(Piazza())
