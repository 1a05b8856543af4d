"""Built-in Sette e mezzo bots: ``heuristic`` and ``expectimax``. Both see only the view.

``heuristic`` follows these rules (values in points, 7½ the best plain hand):

* **stake**: always the smallest stake. A player moves first, busts first and loses ties
  (SM-A5), so the table's side of the game loses on average: risk as little as possible.
* **player**: hit while the hand is worth less than 5, stand from 5 on. The first hit keeps
  the first card face-down (``keep``), so the banker sees as little as possible.
* **banker**: hit while worth less than 5; from 5 to 6½ also hit when the players still in
  whose *face-up cards alone* already beat him have staked more than the rest; else stand.

``expectimax`` plays by exact expected value over the unseen cards (the tallone and every
face-down card the seat has not seen, all equally likely; cards are grouped by what matters
for the rules: A … 7, figure, matta):

* **player**: compares standing with hitting, recursively over every card the tallone can
  give (bust pays the stake at once; 7½ ends the turn). Standing on a hand is valued against
  the banker's final hand, computed exactly over the unseen cards for a banker who draws
  while worth less than 5 (the usual table rule; the banker's real policy is unknown).
* **banker**: every player has finished: the banker maximises his expected takings over the
  players' face-down cards (each from the unseen cards, conditioned on what its hand shows:
  a standing hand did not bust or reach 7½ with it, a declared one has the declared class;
  taken independently of one another and of the banker's draws) and over his own draws.
* **stake**: the expected value of one chip staked blind, with the player's policy above
  against that banker, is computed once per rule set; the bot stakes the maximum if it is
  positive and the minimum otherwise (with the default rules it is negative: the minimum).
* **the bank**: a two-card 7½ takes the bank (SM-A14), and the banker wins ties and lets the
  players bust first. Holding it from the next hand to the end is valued at ``bank_edge`` ×
  participants × the mean stake × the hands left (``bank_edge`` 0.17: the banker's measured
  gain per hand and player at unit stakes, heuristic against heuristic, is about 0.17, and a
  player's loss about the same). A player deciding on his first card (no other seat has
  declared a two-card 7½ yet) adds that value, per chip of his stake, to every two-card 7½
  a hit can give: early in a match he hits a lone 7 (7 + figure, 7 + 7 or 7 + matta) and
  the matta. A banker on his first card, when a player's two-card 7½ is about to take the
  bank, adds it to his own two-card 7½, which keeps it.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from engine.cards import ITALIAN_DECK
from engine.sette_e_mezzo import BUST, MULTIPLIER, SEVEN_AND_A_HALF, _consistent, hand_class, hand_value

from .base import Action, Bot, View
from .tuning import GameBots, Search

STAND = {"type": "stand"}
FIVE = 10  # half points


def _choose(view: View, kind: str, **fields: Any) -> Action:
    """The legal action of this type (and fields), else the first legal one."""
    for action in view["legal_actions"]:
        if action["type"] == kind and all(action.get(k) == v for k, v in fields.items()):
            return action
    return view["legal_actions"][0]


def _hit(view: View) -> Action:
    for action in view["legal_actions"]:
        if action["type"] == "hit" and action.get("mode") in (None, "keep"):
            return action
    return _choose(view, "stand")


def _stake(view: View, amount: int) -> Action:
    return _choose(view, "stake", amount=amount)


class HeuristicBot(Bot):
    """The rule-based player of the module docstring."""

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        if legal[0]["type"] == "stake":
            return _stake(view, view["stake_limits"][0])
        if len(legal) == 1:
            return legal[0]
        seat = view["seat"]
        me = view["table"][seat]
        value = me["value"]
        if value < FIVE:
            return _hit(view)
        if seat == view["banker"] and value < 13:
            beaten = beating = 0
            for entry in view["table"]:
                if entry["seat"] == seat or entry["status"] == "bust":
                    continue
                shown = hand_value(entry["cards"], view["matta"]) if entry["cards"] else 0
                if entry.get("value", shown) > value or shown > value:
                    beaten += entry["stake"]
                else:
                    beating += entry["stake"]
            if beaten > beating:
                return _hit(view)
        return _choose(view, "stand")


# --------------------------------------------------------------------------- expectimax

# Card categories: what the rules distinguish. "F" a figure other than the matta, "M" the matta.
CATEGORIES = ("A", "2", "3", "4", "5", "6", "7", "F", "M")


def _category(card: str, matta: str | None) -> str:
    if card == matta:
        return "M"
    return "F" if card[0] in "JNK" else card[0]


def _representatives(matta: str | None) -> dict[str, str]:
    """A card code standing for each category (never the matta, except for "M")."""
    reps = {}
    for card in ITALIAN_DECK:
        cat = _category(card, matta)
        if cat not in reps:
            reps[cat] = card
    return reps


class _Model:
    """Exact expectations for one rule set (the matta), memoised across decisions."""

    def __init__(self, matta: str | None) -> None:
        self.matta = matta
        self.reps = _representatives(matta)
        self.cats = tuple(c for c in CATEGORIES if c in self.reps)
        self.index = {c: i for i, c in enumerate(self.cats)}
        self._rank = lru_cache(maxsize=None)(self._rank_uncached)
        self._banker = lru_cache(maxsize=200_000)(self._banker_uncached)
        self._player = lru_cache(maxsize=200_000)(self._player_uncached)
        self._blind: float | None = None

    def pool(self, cards) -> tuple[int, ...]:
        counts = [0] * len(self.cats)
        for card in cards:
            counts[self.index[_category(card, self.matta)]] += 1
        return tuple(counts)

    def hand(self, cards) -> tuple[int, ...]:
        """A hand as the category indices of its cards (first two kept in order, rest sorted)."""
        idx = [self.index[_category(c, self.matta)] for c in cards]
        return tuple(idx[:2]) + tuple(sorted(idx[2:]))

    def _rank_uncached(self, hand: tuple[int, ...]) -> int:
        return hand_class([self.reps[self.cats[i]] for i in hand], self.matta)

    def _add(self, hand: tuple[int, ...], i: int) -> tuple[int, ...]:
        if len(hand) < 2:
            return hand + (i,)
        return hand[:2] + tuple(sorted(hand[2:] + (i,)))

    # The banker's final rank for a banker who draws while worth less than 5, each card drawn
    # from the composition ``pool`` (the unseen cards at the decision).
    def _banker_uncached(self, pool: tuple[int, ...]) -> tuple[tuple[int, float], ...]:
        total = sum(pool)
        memo: dict[tuple[int, ...], dict[int, float]] = {}

        def dist(hand: tuple[int, ...]) -> dict[int, float]:
            if hand:
                rank = self._rank(hand)
                if rank == BUST or rank >= FIVE:
                    return {rank: 1.0}
            if hand in memo:
                return memo[hand]
            out: dict[int, float] = {}
            for i, k in enumerate(pool):
                if k:
                    for rank, p in dist(self._add(hand, i)).items():
                        out[rank] = out.get(rank, 0.0) + p * k / total
            memo[hand] = out
            return out

        return tuple(dist(()).items())

    @staticmethod
    def _payoff(rank: int, banker: tuple[tuple[int, float], ...]) -> float:
        """A standing player's expected result per chip against the banker's distribution."""
        mult = MULTIPLIER.get(rank, 1)
        ev = 0.0
        for b, p in banker:
            if b == BUST or rank > b:
                ev += p * mult
            else:
                ev -= p * MULTIPLIER.get(b, 1)
        return ev

    def stand_value(self, hand: tuple[int, ...], root: tuple[int, ...]) -> float:
        return self._payoff(self._rank(hand), self._banker(root))

    def _player_uncached(
        self, hand: tuple[int, ...], pool: tuple[int, ...], root: tuple[int, ...],
        bonus: float = 0.0,
    ) -> tuple[float, float]:
        """(stand, hit) expected results per chip for a player still free to choose; the
        banker draws from ``root``, the unseen cards at the decision. ``bonus`` (per chip) is
        added to a two-card 7½ reached by hitting: what taking the bank is worth."""
        stand = self.stand_value(hand, root)
        total = sum(pool)
        if not total:
            return stand, float("-inf")
        hit = 0.0
        for i, k in enumerate(pool):
            if k:
                rest = pool[:i] + (k - 1,) + pool[i + 1 :]
                new = self._add(hand, i)
                rank = self._rank(new)
                if rank == BUST:
                    v = -1.0
                elif rank >= SEVEN_AND_A_HALF:
                    v = self.stand_value(new, root)
                    if rank in MULTIPLIER and len(new) == 2:
                        v += bonus
                else:
                    v = max(self._player(new, rest, root, bonus))
                hit += v * k / total
        return stand, hit

    def blind_stake_value(self) -> float:
        """Expected result of one chip staked before seeing one's card (full deck unseen)."""
        if self._blind is None:
            self._blind = self._blind_stake_value()
        return self._blind

    def _blind_stake_value(self) -> float:
        pool = self.pool(ITALIAN_DECK)
        total = sum(pool)
        ev = 0.0
        for i, k in enumerate(pool):
            if k:
                rest = pool[:i] + (k - 1,) + pool[i + 1 :]
                ev += max(self._player((i,), rest, pool)) * k / total
        return ev

    # The banker's own turn: exact expectimax over his draws.
    def banker_values(self, hand, pool, players, keep: float = 0.0) -> tuple[float, float]:
        """(stand, hit) expected takings; ``players`` is [(stake, ((rank, p), ...)), ...];
        ``keep`` is added when the banker ends on a two-card 7½ (he keeps the bank that a
        player's two-card 7½ would otherwise take)."""
        memo: dict = {}

        def takings(rank: int) -> float:
            b_mult = MULTIPLIER.get(rank, 1)
            ev = 0.0
            for stake, dist in players:
                for r, p in dist:
                    if rank == BUST or r > rank:
                        ev -= p * stake * MULTIPLIER.get(r, 1)
                    else:
                        ev += p * stake * b_mult
            return ev

        def best(hand, pool) -> float:
            key = (hand, pool)
            if key not in memo:
                memo[key] = max(values(hand, pool))
            return memo[key]

        def values(hand, pool) -> tuple[float, float]:
            rank = self._rank(hand)
            stand = takings(rank)
            if keep and rank in MULTIPLIER and len(hand) == 2:
                stand += keep
            total = sum(pool)
            if rank >= SEVEN_AND_A_HALF or not total:
                return stand, float("-inf")
            hit = 0.0
            for i, k in enumerate(pool):
                if k:
                    rest = pool[:i] + (k - 1,) + pool[i + 1 :]
                    new = self._add(hand, i)
                    r = self._rank(new)
                    v = takings(BUST) if r == BUST else best(new, rest)
                    hit += v * k / total
            return stand, hit

        return values(hand, pool)


_MODELS: dict[str | None, _Model] = {}


def _model(matta: str | None) -> _Model:
    model = _MODELS.get(matta)
    if model is None:
        model = _MODELS[matta] = _Model(matta)
    return model


class ExpectimaxBot(Bot):
    """Exact expected value over the unseen cards; see the module docstring. Option
    ``bank_edge``: the banker's expected gain per hand, per participant and chip staked,
    over a player's (0 ignores the bank)."""

    def __init__(self, game: str, seed: int | str | None = None, bank_edge: float = 0.17) -> None:
        super().__init__(game, seed)
        self.bank_edge = bank_edge

    def bank_value(self, view: View) -> float:
        """Chips that holding the bank from the next hand to the end is worth (the bank
        rarely changes hands, so it is counted as held to the end)."""
        later = view["hands"] - view["hand"]
        if later <= 0 or self.bank_edge <= 0:
            return 0.0
        stakes = [e["stake"] for e in view["table"] if e["stake"] is not None]
        stake = sum(stakes) / len(stakes) if stakes else view["stake_limits"][0]
        return self.bank_edge * view["players"] * stake * later

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        matta = view["matta"]
        model = _model(matta)
        if legal[0]["type"] == "stake":
            lo, hi = view["stake_limits"]
            return _stake(view, hi if model.blind_stake_value() > 0 else lo)
        if len(legal) == 1:
            return legal[0]
        seat = view["seat"]
        table = view["table"]
        seen = [c for entry in table for c in entry["cards"]]
        unseen = [c for c in ITALIAN_DECK if c not in set(seen)]
        pool = model.pool(unseen)
        mine = table[seat]["cards"]
        hand = model.hand(mine)
        if seat != view["banker"]:
            bonus = 0.0
            if len(mine) == 1 and not self._special_before(view, seat):
                bonus = self.bank_value(view) / max(table[seat]["stake"] or 1, 1)
            stand, hit = model._player(hand, pool, pool, round(bonus, 6))
        else:
            players = []
            for entry in table:
                if entry["seat"] == seat or entry["status"] == "bust" or entry["stake"] is None:
                    continue
                players.append((entry["stake"], self._distribution(model, entry, unseen, matta)))
            keep = 0.0
            if len(mine) == 1 and self._special_before(view, seat):
                keep = self.bank_value(view)
            stand, hit = model.banker_values(hand, pool, players, keep)
        return _hit(view) if hit > stand + 1e-12 else _choose(view, "stand")

    @staticmethod
    def _special_before(view: View, seat: int) -> bool:
        """Whether another seat has already declared a two-card 7½ (it takes the bank)."""
        return any(
            e["seat"] != seat and e.get("class") in ("emblee", "triple") and len(e["cards"]) + e["hidden"] == 2
            for e in view["table"]
        )

    @staticmethod
    def _distribution(model: _Model, entry: dict, unseen: list[str], matta):
        """A player's final rank: known, or over his face-down card (module docstring)."""
        cards = entry["cards"]
        if not entry["hidden"]:
            return ((hand_class(cards, matta), 1.0),)
        weights: Counter = Counter()
        for card in unseen:
            full = cards + [card] if entry["mode"] == "expose" else [card] + cards
            if _consistent(full, entry, matta):
                weights[hand_class(full, matta)] += 1
        total = sum(weights.values())
        if not total:
            return ((SEVEN_AND_A_HALF - 1, 1.0),)
        return tuple((r, w / total) for r, w in weights.items())


# ------------------------------------------------------------------ the bots layer's declaration

GAME = GameBots(
    name="sette_e_mezzo",
    heuristic=HeuristicBot,
    bots={"expectimax": ExpectimaxBot},
    search=Search(
        delegate=(),
        horizon="hand",
        horizon_field="hand",
        guard=0.0,
        mode="tree",
        depth=None,
        candidates=None,
        estimate=None,
        consistent=None,
    ),
)
