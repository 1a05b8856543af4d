"""Sette e mezzo: a banker against the table; get closest to 7½ without going over.

Rules: shared/rules/sette_e_mezzo.md (SM-A1 … SM-A19), seats and notation in its README.
Values are kept in half points (7½ == 15).

A match is ``hands`` hands (SM-A16, default 10). Each hand:

1. the 40 cards are shuffled (SM-A12) and one card is dealt face-down to every participant,
   the players in turn order first and the banker ("mazziere", "banco") last;
2. every player stakes ``stake_min`` … ``stake_max`` chips before looking at his card
   (SM-A17); each stake stays hidden from the others until all have staked;
3. each player in turn order, then the banker, HITs or STANDs. A participant's first HIT
   chooses how his cards lie (SM-A11): ``keep`` leaves the first card face-down and deals
   the others face-up; ``expose`` turns the first card up and deals each new card face-down,
   the previous one being turned up first. At most one card is ever face-down;
4. a hand over 7½ is declared bust at once: its cards are shown and the stake is paid to the
   banker (SM-A9). Reaching 7½ is declared and ends the turn (SM-A10). The banker does not
   play if every player has bust (SM-A13);
5. settlement: a player beats the banker only by ranking strictly higher (ties go to the
   banker, SM-A5); a winner is paid his stake times his own multiplier, a loser pays his stake
   times the banker's; a busting banker pays everyone still in (SM-A8);
6. the bank passes to the first player, in turn order, with a two-card 7½, unless the banker
   made one himself (SM-A14); the new banker starts with the next hand (SM-A15).

Hand classes, highest first: ``triple`` (*triplé*: exactly 7+7 or 7+matta, worth 7½, paid 3×),
``emblee`` (*d'emblée*: exactly a 7 or the matta with a figure, paid 2×), ``plain`` 7½, 7, …, ½,
and ``bust``. The *matta* (the King of denari, ``KD``, by default) is worth ½ or any whole
number 1 … 7, always the one that makes the hand largest without passing 7½ (SM-A3).

Actions (shared/design/engine.md)::

    {"type": "stake", "amount": s}                       # stake_min <= s <= stake_max
    {"type": "hit", "mode": "keep" | "expose"}          # a participant's first HIT
    {"type": "hit"}                                      # later HITs
    {"type": "stand"}

The banker uses ``hit``/``stand`` and never stakes. A participant whose tallone is empty may
only stand (SM-A12): the engine stands for him. Reaching 7½ or busting ends a turn by itself.

Options: ``hands``, ``stake_min``, ``stake_max``, ``dealer`` (the first banker),
``min_participants`` (3; 4 for SM-A1's strict reading), ``matta`` (a card code, or None to
play without one), ``special_vs_plain`` (``"multiplier"``: a two-card 7½ beating the
banker's plain 7½ is paid its 2× or 3×, SM-A4; ``"single"``: paid 1×, the TRECCANI variant).

Scores are net chips, one per seat; they sum to zero.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Self

from .cards import ITALIAN_DECK, check_deck, match_rng, shuffled
from .core import Game, IllegalAction, InvalidOptions, Option, State, dealer_option, stacked_decks

#: Half points of each rank; the matta's value is chosen per hand.
HALF_POINTS = {"A": 2, "2": 4, "3": 6, "4": 8, "5": 10, "6": 12, "7": 14, "J": 1, "N": 1, "K": 1}
CARD_HALF_POINTS = {c: HALF_POINTS[c[:-1]] for c in ITALIAN_DECK}
SEVEN_AND_A_HALF = 15
#: The values the matta may take, in half points, largest first (SM-A3).
MATTA_VALUES = (14, 12, 10, 8, 6, 4, 2, 1)
FIGURES = frozenset(c for c in ITALIAN_DECK if c[0] in "JNK")

# Class ranks: a plain hand ranks by its value 1 … 15; specials above, bust below.
BUST = -1
EMBLEE = 16
TRIPLE = 17
CLASS_NAMES = {BUST: "bust", EMBLEE: "emblee", TRIPLE: "triple"}
MULTIPLIER = {TRIPLE: 3, EMBLEE: 2}

STAND = {"type": "stand"}
HIT = {"type": "hit"}
HIT_KEEP = {"type": "hit", "mode": "keep"}
HIT_EXPOSE = {"type": "hit", "mode": "expose"}
FIRST_MOVES = (STAND, HIT_KEEP, HIT_EXPOSE)
LATER_MOVES = (STAND, HIT)
ONLY_STAND = (STAND,)

# Seat statuses within a hand.
WAITING, STOOD, DECLARED, BUSTED = 0, 1, 2, 3
STATUS_NAMES = ("waiting", "stood", "seven_and_a_half", "bust")

CARD_ORDER = {c: i for i, c in enumerate(ITALIAN_DECK)}


def hand_value(cards: list[str] | tuple[str, ...], matta: str | None = "KD") -> int:
    """Best total in half points; the matta takes the value that helps most (SM-A3).

    A hand that passes 7½ even with the matta at ½ is bust: its value is then its smallest
    total, which is above 15.
    """
    total = 0
    has_matta = False
    for card in cards:
        if card == matta:
            has_matta = True
        else:
            total += CARD_HALF_POINTS[card]
    return _best(total, has_matta)


def _best(total: int, has_matta: bool) -> int:
    if not has_matta:
        return total
    for v in MATTA_VALUES:
        if total + v <= SEVEN_AND_A_HALF:
            return total + v
    return total + 1


def hand_class(cards: list[str] | tuple[str, ...], matta: str | None = "KD") -> int:
    """The hand's rank: ``TRIPLE`` > ``EMBLEE`` > plain value 15 … 1 > ``BUST`` (2.2)."""
    if len(cards) == 2:
        a, b = cards
        a7 = a[0] == "7"
        b7 = b[0] == "7"
        if (a7 and (b7 or b == matta)) or (b7 and a == matta):
            return TRIPLE
        if ((a7 or a == matta) and b in FIGURES and b != matta) or (
            (b7 or b == matta) and a in FIGURES and a != matta
        ):
            return EMBLEE
    value = hand_value(cards, matta)
    return BUST if value > SEVEN_AND_A_HALF else value


def class_name(rank: int) -> str:
    return CLASS_NAMES.get(rank, "plain")


class SetteEMezzoState(State):
    card_order = CARD_ORDER

    # ------------------------------------------------------------------ setup

    def _setup(self, deck: Any) -> None:
        opts = self.options
        n = self.players
        self.matta: str | None = opts["matta"]
        self.n_hands: int = opts["hands"]
        self._stakes = tuple(
            {"type": "stake", "amount": s} for s in range(opts["stake_min"], opts["stake_max"] + 1)
        )
        stacked = [
            check_deck(d, ITALIAN_DECK, f"deck for hand {i + 1}", partial=True)
            for i, d in enumerate(stacked_decks(deck))
        ]
        if len(stacked) > self.n_hands:
            raise InvalidOptions(f"{len(stacked)} stacked decks for a match of {self.n_hands} hands")
        # Every hand's tallone is shuffled now, from the seed alone (EC-1): the deals never
        # depend on the actions, and clones share this list instead of a generator.
        rng = match_rng(self.seed, "tallone")
        decks = []
        for h in range(self.n_hands):
            deck_h = shuffled(ITALIAN_DECK, rng)
            if h < len(stacked):
                top = stacked[h]
                on_top = set(top)
                deck_h = top + [c for c in deck_h if c not in on_top]
            deck_h.reverse()  # the top of the tallone is the end of the list: pop() deals it
            decks.append(tuple(deck_h))
        self._decks = tuple(decks)
        self.chips = [0] * n
        self.banker: int = opts["dealer"]
        self.hand_no = -1
        self._start_hand()

    def _start_hand(self) -> None:
        n = self.players
        self.hand_no += 1
        banker = self.banker
        self.order = order = tuple((banker + 1 + i) % n for i in range(n))  # banker last
        self.stock = stock = list(self._decks[self.hand_no])
        self.cards: list[list[str]] = [[] for _ in range(n)]
        self.down: list[str | None] = [None] * n  # the card lying face-down, if any
        self.looked = [False] * n
        self.mode: list[str | None] = [None] * n
        self.stake: list[int | None] = [None] * n
        self.status = [WAITING] * n
        self.rank = [0] * n  # hand_class of each hand, kept up to date
        self.total = [0] * n  # half points of the cards other than the matta
        self.has_matta = [False] * n
        self.revealed = False  # every card shown at the settlement
        self.hand_start = len(self.log)
        self._event({"type": "hand", "hand": self.hand_no + 1, "banker": banker, "order": list(order)})
        matta = self.matta
        dealt: list[str | None] = [None] * n
        for seat in order:
            dealt[seat] = card = stock.pop()
            self.cards[seat].append(card)
            self.down[seat] = card
            if card == matta:
                self.has_matta[seat] = True
                self.rank[seat] = 14  # the matta alone is worth 7
            else:
                self.rank[seat] = self.total[seat] = CARD_HALF_POINTS[card]
        # Nobody has seen his card yet: each sees it only after staking (SEED-1).
        self._event({"type": "deal", "cards": dealt}, (), {"type": "deal", "seats": list(order)})
        self.phase = "stake"
        self.pos = 0
        self._turn = order[0]

    # ------------------------------------------------------------------ contract hooks

    def _legal_actions(self) -> tuple[dict, ...]:
        if self.phase == "stake":
            return self._stakes
        if not self.stock:
            return ONLY_STAND
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        if self.mode[seat] is None:
            return FIRST_MOVES
        return LATER_MOVES

    def _why_extra(self, action: dict, extra: list[str]) -> str | None:
        # A later hit's mode is SM-A11's to refuse: its message says which mode the seat plays.
        return self._why_illegal(action) if action["type"] == "hit" and extra == ["mode"] else None

    def _why_illegal(self, action: dict) -> str:
        kind = action.get("type")
        seat = self._turn
        assert seat is not None  # asked only while a seat is to act
        who = "the banker" if seat == self.banker else f"seat {seat}"
        if self.phase == "stake":
            if kind != "stake":
                return f"{kind!r} is not allowed: {who} must stake before looking at his card (SM-A17)"
            lo, hi = self.options["stake_min"], self.options["stake_max"]
            return f"a stake is an integer from {lo} to {hi}, got {action.get('amount')!r} (SM-A2)"
        if kind == "stake":
            return "'stake' is not allowed: stakes are fixed before play and never change (SM-A17)"
        if kind == "hit":
            if not self.stock:
                return "'hit' is not allowed: the tallone is empty, so the only choice is to stand (SM-A12)"
            if self.mode[seat] is None:
                return (
                    f"{who}'s first hit must choose a mode, 'keep' or 'expose' "
                    f"(SM-A11), got {action.get('mode')!r}"
                )
            return f"only the first hit chooses a mode; {who} already plays {self.mode[seat]!r} (SM-A11)"
        return f"{kind!r} is not an action of Sette e mezzo: use 'stake', 'hit' or 'stand'"

    def _do(self, action: dict, forced: bool) -> None:
        seat = self._turn
        assert seat is not None  # _do runs only while a seat is to act
        kind = action["type"]
        if kind == "stake":
            self._stake(seat, action["amount"])
        elif kind == "hit":
            self._hit(seat, action.get("mode"))
        else:
            self.status[seat] = STOOD
            self._event({"type": "stand", "seat": seat, "forced": forced})
            self._next_participant()

    # ------------------------------------------------------------------ the hand

    def _stake(self, seat: int, amount: int) -> None:
        self.stake[seat] = amount
        # Only after staking may a player look at his card (SEED-1); the others learn
        # that he staked, not how much, until every stake is in (engine.md).
        self.looked[seat] = True
        self._event(
            {"type": "stake", "seat": seat, "amount": amount, "card": self.cards[seat][0]},
            seat,
            {"type": "stake", "seat": seat},
        )
        self.pos += 1
        if self.pos < len(self.order) - 1:
            self._turn = self.order[self.pos]
            return
        self._event(
            {"type": "stakes", "amounts": [self.stake[s] for s in range(self.players)]}
        )
        banker = self.banker
        self.looked[banker] = True
        self._event({"type": "look", "seat": banker, "card": self.cards[banker][0]}, banker)
        self.phase = "play"
        self.pos = 0
        self._turn = self.order[0]

    def _hit(self, seat: int, mode: str | None) -> None:
        down = self.down[seat]
        if mode is not None:
            self.mode[seat] = mode
        if self.mode[seat] == "expose" and down is not None:
            # Only one card may lie face-down: turn it up before the next arrives.
            self.down[seat] = None
            self._event({"type": "turn_up", "seat": seat, "card": down})
        card = self.stock.pop()
        cards = self.cards[seat]
        cards.append(card)
        if self.mode[seat] == "expose":
            self.down[seat] = card
            self._event(
                {"type": "hit", "seat": seat, "card": card, "face_down": True},
                seat,
                {"type": "hit", "seat": seat, "face_down": True},
            )
        else:
            self._event({"type": "hit", "seat": seat, "card": card, "face_down": False})
        matta = self.matta
        if card == matta:
            self.has_matta[seat] = True
        else:
            self.total[seat] += CARD_HALF_POINTS[card]
        if len(cards) == 2:
            rank = hand_class(cards, matta)  # the two-card specials
        else:
            rank = _best(self.total[seat], self.has_matta[seat])
            if rank > SEVEN_AND_A_HALF:
                rank = BUST
        self.rank[seat] = rank
        if rank == BUST:
            self._bust(seat)
        elif rank >= SEVEN_AND_A_HALF:
            self.status[seat] = DECLARED
            self._event(
                {"type": "declare", "seat": seat, "class": class_name(rank), "value": SEVEN_AND_A_HALF}
            )
            self._next_participant()

    def _bust(self, seat: int) -> None:
        self.status[seat] = BUSTED
        self.down[seat] = None
        event = {
            "type": "bust",
            "seat": seat,
            "cards": list(self.cards[seat]),
            "value": _best(self.total[seat], self.has_matta[seat]),
        }
        if seat != self.banker:
            # A busting player pays his stake to the banker at once (SEED-1, SM-A9).
            paid = self.stake[seat]
            assert paid is not None  # a player busts only after he staked
            self.chips[seat] -= paid
            self.chips[self.banker] += paid
            event["paid"] = paid
        self._event(event)
        self._next_participant()

    def _next_participant(self) -> None:
        self.pos += 1
        last = len(self.order) - 1
        if self.pos == last and all(self.status[s] == BUSTED for s in self.order[:last]):
            self._settle()  # every player has bust: the banker does not play (SM-A13)
        elif self.pos <= last:
            self._turn = self.order[self.pos]
        else:
            self._settle()

    def _settle(self) -> None:
        banker = self.banker
        order = self.order
        players = order[:-1]
        ranks = self.rank
        b_rank = ranks[banker]
        b_mult = MULTIPLIER.get(b_rank, 1)
        single = self.options["special_vs_plain"] == "single"
        paid = [0] * self.players
        hands = []
        for seat in order:
            rank = ranks[seat]
            cards = self.cards[seat]
            hands.append(
                {
                    "seat": seat,
                    "cards": cards,  # never mutated again: the next hand makes new lists
                    "value": _best(self.total[seat], self.has_matta[seat]),
                    "class": CLASS_NAMES.get(rank, "plain"),
                }
            )
            if seat == banker or self.status[seat] == BUSTED:
                continue
            stake = self.stake[seat]
            assert stake is not None  # every player has staked before the settlement
            if b_rank == BUST or rank > b_rank:
                mult = MULTIPLIER.get(rank, 1)
                if single and b_rank == SEVEN_AND_A_HALF:
                    mult = 1  # TRECCANI: a reale against the banker's plain 7½ is paid once
                delta = stake * mult
            else:
                delta = -stake * b_mult  # ties and worse pay the banker's multiplier (SM-A5)
            paid[seat] += delta
            paid[banker] -= delta
        for seat in range(self.players):
            self.chips[seat] += paid[seat]
        self.revealed = True
        for seat in order:
            self.down[seat] = None
        next_banker = banker
        if b_rank not in MULTIPLIER:
            for seat in players:
                if ranks[seat] in MULTIPLIER:
                    next_banker = seat  # the first to declare a two-card 7½ (SM-A14)
                    break
        self._event(
            {
                "type": "settle",
                "hand": self.hand_no + 1,
                "banker": banker,
                "hands": hands,
                "payments": paid,
                "next_banker": next_banker,
            }
        )
        if next_banker != banker:
            self._event({"type": "bank_transfer", "from": banker, "to": next_banker})
            self.banker = next_banker
        if self.hand_no + 1 < self.n_hands:
            self._start_hand()
        else:
            self._turn = None
            self.phase = "over"
            self._event({"type": "match_over", "scores": list(self.chips)})

    # ------------------------------------------------------------------ results and views

    def scores(self) -> list[int]:
        """Net chips of each seat; they sum to zero."""
        return list(self.chips)

    def _copy_into(self, new: Self) -> None:
        new.stock = self.stock.copy()
        new.cards = [c.copy() for c in self.cards]
        new.down = self.down.copy()
        new.looked = self.looked.copy()
        new.mode = self.mode.copy()
        new.stake = self.stake.copy()
        new.status = self.status.copy()
        new.rank = self.rank.copy()
        new.total = self.total.copy()
        new.has_matta = self.has_matta.copy()
        new.chips = self.chips.copy()

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (None: a spectator): the current hand and the scores."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        staked = self.phase != "stake"
        revealed = self.revealed
        matta = self.matta
        table = []
        for s in range(self.players):
            cards = self.cards[s]
            down = self.down[s]
            if revealed or (s == seat and self.looked[s]):
                shown = list(cards)
                hidden = 0
            elif down is None:
                shown = list(cards)
                hidden = 0
            else:
                shown = [c for c in cards if c != down]
                hidden = 1
            status = self.status[s]
            entry = {
                "seat": s,
                "cards": shown,
                "hidden": hidden,
                "stake": self.stake[s] if (staked or s == seat) else None,
                "mode": self.mode[s],
                "status": STATUS_NAMES[status],
            }
            if not hidden:
                entry["value"] = hand_value(cards, matta)
                entry["class"] = CLASS_NAMES.get(self.rank[s], "plain")
            elif status == DECLARED:
                # A declared 7½ makes its value and class public, not its face-down card (EC-5).
                entry["value"] = SEVEN_AND_A_HALF
                entry["class"] = CLASS_NAMES.get(self.rank[s], "plain")
            table.append(entry)
        turn = self._turn
        view = {
            "game": "sette_e_mezzo",
            "seat": seat,
            "players": self.players,
            "hand": self.hand_no + 1,
            "hands": self.n_hands,
            "banker": self.banker,
            "phase": self.phase,
            "current_player": turn,
            "stake_limits": [self.options["stake_min"], self.options["stake_max"]],
            "matta": matta,
            "tallone": len(self.stock),
            "options": dict(self.options),  # public: the table's rules, needed by determinize
            "table": table,
            "scores": list(self.chips),
            "events": self._events_for(seat, self.hand_start),
        }
        if seat is not None and seat == turn:
            view["legal_actions"] = self.legal_actions()
        return view


def _consistent(cards: list[str], entry: dict[str, Any], matta: str | None) -> bool:
    """Whether a hand holding a face-down card agrees with what the table shows (``entry``):
    no card but the last may reach 7½ or bust (the turn would have ended there); the last
    leaves it standing below 7½ or declared with the class shown."""
    for k in range(2, len(cards)):
        if hand_class(cards[:k], matta) >= SEVEN_AND_A_HALF or hand_class(cards[:k], matta) == BUST:
            return False
    if len(cards) == 1:
        return True
    rank = hand_class(cards, matta)
    if entry["status"] == "seven_and_a_half":
        return rank >= SEVEN_AND_A_HALF and class_name(rank) == entry["class"]
    return BUST < rank < SEVEN_AND_A_HALF


def _matta_option() -> Option:
    return Option(
        default="KD",
        doc="the matta, a card worth ½ or 1 … 7 as best suits its hand; null to play without",
        kind=str,
        choices=ITALIAN_DECK,
        nullable=True,
    )


class SetteEMezzo(Game[SetteEMezzoState]):
    name = "sette_e_mezzo"
    title = "Sette e mezzo"
    min_players = 3
    max_players = 10
    state_class = SetteEMezzoState
    zero_sum = True  # net chips: every stake is paid between a player and the banker
    options = {
        "hands": Option(10, "hands in the match (SM-A16)", low=1),
        "stake_min": Option(1, "smallest stake (SM-A2)", low=1),
        "stake_max": Option(10, "largest stake (SM-A2)", low=1),
        "dealer": dealer_option(),
        "min_participants": Option(
            3, "fewest participants, banker included (SM-A1; 4 for the strict reading)", low=3, high=10
        ),
        "matta": _matta_option(),
        "special_vs_plain": Option(
            "multiplier",
            "a two-card 7½ beating the banker's plain 7½ is paid its multiplier (SM-A4) "
            "or 'single' (paid 1x, TRECCANI)",
            kind=str,
            choices=("multiplier", "single"),
        ),
    }

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> SetteEMezzoState:
        """A playable state consistent with ``view(seat)``, the unknowns sampled (engine.md).

        Unknown: every face-down card the seat has not seen (others', and its own before
        staking), the tallone's order, the stakes of players still hidden in the stake phase
        (uniform over the limits) and every later hand (a fresh random seed). Hidden cards are
        drawn uniformly from the 40 cards minus those the view shows, conditioned (by
        rejection) on what the table shows about them: a hand with a face-down card that
        stands or waits has neither bust nor reached 7½ at any card, and a declared 7½ has
        the declared class. The current hand is rebuilt by replaying its actions on a deck
        stacked with the sample, so the sample's ``view(seat)`` equals ``view``; its log holds
        only the current hand and its ``to_json()`` does not replay the real match.
        """
        if view.get("phase") == "over" or view.get("current_player") is None:
            raise ValueError("the match is over: nothing to determinize")
        seat = view["seat"]
        n = view["players"]
        options = dict(view["options"])
        matta = options["matta"]
        table = view["table"]
        events = view["events"]
        start = events[0]
        order = start["order"]
        # Every participant's cards in the order received, None for the face-down one.
        seqs: list[list[str | None]] = []
        shown: set[str] = set()
        for entry in table:
            cards = list(entry["cards"])
            shown.update(cards)
            if entry["hidden"]:
                if entry["mode"] == "expose":
                    cards.append(None)  # the face-down card is the latest one
                else:
                    cards.insert(0, None)  # no hit yet, or 'keep': the first card
            seqs.append(cards)
        hidden = [s for s in range(n) if table[s]["hidden"]]
        pool = sorted((c for c in ITALIAN_DECK if c not in shown), key=CARD_ORDER.__getitem__)
        tallone = view["tallone"]
        if len(pool) != len(hidden) + tallone:
            raise ValueError("view is inconsistent: unseen cards do not fill the hidden places")
        # The stakes: known to all after the stake phase, own one once made; else sampled.
        lo, hi = options["stake_min"], options["stake_max"]
        stakes = [e["stake"] for e in table]
        for e in events:
            if e["type"] == "stakes":
                stakes = list(e["amounts"])
        stakes = [s if s is not None else lo + int(rng.random() * (hi - lo + 1)) for s in stakes]
        future_seed = rng.getrandbits(63)
        for _ in range(10000):
            sample = shuffled(pool, rng)
            assigned = []
            ok = True
            for i, s in enumerate(hidden):
                cards = [c if c is not None else sample[i] for c in seqs[s]]
                if not _consistent(cards, table[s], matta):
                    ok = False
                    break
                assigned.append(cards)
            if not ok:
                continue
            full = [list(q) for q in seqs]
            for s, cards in zip(hidden, assigned):
                full[s] = cards
            deck = [full[s][0] for s in order]
            for s in order:
                deck.extend(full[s][1:])
            deck.extend(sample[len(hidden):])
            state = self._replay_hand(view, options, stakes, deck, future_seed)
            if state is not None and state.view(seat) == view:
                return state
        raise ValueError("no deal consistent with this view was found")

    def _replay_hand(
        self, view: Mapping[str, Any], options: dict, stakes: list[int], deck: list[str], seed: int
    ) -> SetteEMezzoState | None:
        """The current hand replayed on ``deck``, as hand ``view["hand"]`` of the match."""
        hand, hands = view["hand"], view["hands"]
        opts = dict(options, dealer=view["banker"], hands=hands - hand + 1)
        state = self.new_match(players=view["players"], seed=seed, options=opts, deck=[deck])
        table = view["table"]
        blind = options["stake_min"] == options["stake_max"]  # a forced stake: not an action
        hit = set()
        try:
            for e in view["events"]:
                kind = e["type"]
                if kind == "stake":
                    if not blind:
                        state.apply({"type": "stake", "amount": stakes[e["seat"]]})
                elif kind == "hit":
                    s = e["seat"]
                    if s in hit:
                        state.apply(HIT)
                    else:
                        hit.add(s)
                        state.apply({"type": "hit", "mode": table[s]["mode"]})
                elif kind == "stand" and not e["forced"]:
                    state.apply(STAND)
        except IllegalAction:
            return None
        # Make it hand ``hand`` of ``hands``, with the chips the view shows.
        state.hand_no = hand - 1
        state.n_hands = hands
        state.options = dict(options)
        state._decks = (None,) * (hand - 1) + state._decks
        state.chips = list(view["scores"])
        state.log[state.hand_start] = dict(state.log[state.hand_start], hand=hand)
        return state

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        if options["stake_min"] > options["stake_max"]:
            raise InvalidOptions(
                f"stake_min ({options['stake_min']}) is above stake_max ({options['stake_max']})"
            )
        if players < options["min_participants"]:
            raise InvalidOptions(
                f"{players} participants, fewer than min_participants={options['min_participants']} (SM-A1)"
            )


from . import register  # noqa: E402

GAME = register(SetteEMezzo())
