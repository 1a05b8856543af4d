"""Built-in Piazza bot: ``heuristic``. It sees only the view.

Only figure points (minus penalties) decide a match; chips never do (PZ-A21). So
``heuristic`` claims every figure it can, never pays a penalty, and risks few chips:

* **rivolta**: never (the figure is not known yet: a redeal is a blind gamble).
* **request** (commercio): always, for the rank that would give its hand the take-set with
  the highest total under the figure's modulus (ties: the higher rank); a request costs
  nothing and a card received is a card more.
* **offer**: only with fewer than 3 cards and no take-set (the giver draws back up to 3, so
  giving gains cards); never *shows* a card (3 points of penalty). Otherwise ``decline``.
* **choose**: the first seat that offered. **give**: the card of that rank whose loss leaves
  the best hand (its best take-set, then its chances below).
* **claim**: ``prendo`` whenever it holds a take-set (the poll asks only eligible seats).
* **replacement**: discards the card whose loss leaves the two cards that make a take-set
  with the most of the numeral values it may draw (ties: the lower card goes).
* **betting**: stakes 1; joins every contest it may join, without raising; calls or holds,
  never raises and never withdraws (withdrawing gives up the figure).
* **take** (lone winner): discards the smallest take-set, then the lowest total, keeping
  the most and highest cards for the next figures. **reveal** (conflict): the take-set that
  wins the conflict if any can: the best by 3.5 (figure's suit, total, suits).
"""

from __future__ import annotations

from engine.piazza import VALUE, VARIANTS, conflict_key

from .base import Action, Bot, View
from .tuning import GameBots, Search


def _best_total(values: list[int], m: int) -> int:
    """The highest total of a non-empty subset of ``values`` that is a multiple of m; 0 if none."""
    best = 0
    k = len(values)
    for mask in range(1, 1 << k):
        total = sum(values[i] for i in range(k) if mask >> i & 1)
        if total % m == 0 and total > best:
            best = total
    return best


def _chances(values: list[int], m: int, top: int) -> int:
    """How many of the values 1 … top, added to ``values``, make a take-set under m."""
    return sum(1 for v in range(1, top + 1) if _best_total(values + [v], m))


class HeuristicBot(Bot):
    """Plays the rules of the module docstring; deterministic (no randomness needed)."""

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        phase = view["phase"]
        handler = getattr(self, "_" + phase, None)
        action = handler(view, legal) if handler else None
        return action if action is not None else legal[0]

    # ------------------------------------------------------------------ steps

    def _rivolta(self, view: View, legal: list[Action]) -> Action | None:
        return _find(legal, "pass")

    def _commercio(self, view: View, legal: list[Action]) -> Action | None:
        m = view["modulus"] or 1
        values = [VALUE[c] for c in view["hand"]]
        best, best_key = None, None
        for action in legal:
            if action["type"] != "request":
                continue
            v = _rank_value(action["rank"])
            key = (_best_total(values + [v], m), v)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    def _offer(self, view: View, legal: list[Action]) -> Action | None:
        if len(view["hand"]) < 3 and not view.get("take_sets"):
            return _find(legal, "offer", plain=True)
        return _find(legal, "decline")

    def _choose(self, view: View, legal: list[Action]) -> Action | None:
        return legal[0]

    def _give(self, view: View, legal: list[Action]) -> Action | None:
        m = view["modulus"] or 1
        top = _top_value(view)
        hand = view["hand"]

        def left(action: Action) -> tuple:
            rest = list(hand)
            rest.remove(action["card"])
            values = [VALUE[c] for c in rest]
            return (_best_total(values, m), _chances(values, m, top))

        return max(legal, key=left)

    def _claim(self, view: View, legal: list[Action]) -> Action | None:
        return _find(legal, "prendo")

    def _replacement(self, view: View, legal: list[Action]) -> Action | None:
        m = view["modulus"] or 1
        top = _top_value(view)
        hand = view["hand"]
        best, best_key = None, None
        for action in legal:
            if action["type"] != "discard":
                continue
            rest = list(hand)
            rest.remove(action["cards"][0])
            values = [VALUE[c] for c in rest]
            key = (_chances(values, m, top), -VALUE[action["cards"][0]])
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    def _stake(self, view: View, legal: list[Action]) -> Action | None:
        return legal[0]  # the smallest stake: chips never decide the match

    def _join(self, view: View, legal: list[Action]) -> Action | None:
        return _find(legal, "join")

    def _response(self, view: View, legal: list[Action]) -> Action | None:
        return _find(legal, "call") or _find(legal, "hold")

    def _take(self, view: View, legal: list[Action]) -> Action | None:
        return min(legal, key=lambda a: (len(a["cards"]), sum(VALUE[c] for c in a["cards"])))

    def _reveal(self, view: View, legal: list[Action]) -> Action | None:
        v = VARIANTS[view["deck"]]
        fsuit = v.figure_suit[view["figure"]]
        return max(legal, key=lambda a: conflict_key(tuple(a["cards"]), fsuit, v.hierarchy))


def _find(legal: list[Action], kind: str, plain: bool = False) -> Action | None:
    for action in legal:
        if action["type"] == kind and (not plain or len(action) == 1):
            return action
    return None


def _rank_value(rank: str) -> int:
    return 1 if rank == "A" else int(rank)


def _top_value(view: View) -> int:
    return 7 if view["deck"] == "italian" else 10



# ------------------------------------------------------------------ the bots layer's declaration

def search_candidates(view: View, legal: list[Action]) -> list[Action]:
    """Of the raises (``raise``, ``join_raise``) only the smallest; chips never decide the
    match (PZ-A21), so a bigger raise only costs the search time."""
    low: dict[str, int] = {}
    for a in legal:
        if a["type"] in ("raise", "join_raise"):
            low[a["type"]] = min(low.get(a["type"], a["amount"]), a["amount"])
    return [a for a in legal if a["type"] not in low or a["amount"] == low[a["type"]]]


GAME = GameBots(
    name="piazza",
    heuristic=HeuristicBot,
    bots={},
    search=Search(
        # The stake is left to the rollout policy (chips never decide a match, so it is worth
        # no time); the rivolta, claims, joins and responses are searched in paired mode (with
        # the rivolta left to the heuristic too it gained about a third as much).
        delegate=("stake",),
        # Played to the end of the match: what is kept in hand for the next figures is what a
        # trade or a conflict costs, and a whole match is ~2 ms of rollout. Piazza has no
        # hands; under the "hand" horizon its unit is the figure turn (``turn``), whose figure
        # points are settled at its end.
        horizon="match",
        horizon_field="turn",
        # Rollouts to the end of a long match are few and noisy: the search overrides its
        # rollout policy only on clear evidence.
        guard=2.0,
        mode="paired",
        depth=None,
        candidates=search_candidates,
        estimate=None,
        consistent=None,
    ),
)
