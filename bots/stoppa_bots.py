"""Built-in Stoppa bot: ``heuristic``. It sees only the view.

Rules it follows:

* **betting** (every round): its strength is its best declaration over the cards that count
  in the round (the packet, or the whole hand in the final round), turned into a chance of
  beating each rival still in: the share of random packets of the same size, drawn from the
  cards in use, whose best declaration is lower (estimated once per size from a fixed seed).
  With ``m`` rivals the chance of winning is that share to the power ``m``.
  With no bet yet it opens for one cip when that chance is at least ½ and passes otherwise;
  after a bet it raises by one cip when the chance is at least ¾, sees when the chance times
  what it would win (prize plus every commitment plus its own call) beats the cost of the
  call, and passes otherwise.
* **showdown**: shows its best declaration, or concedes when that cannot beat the best one
  already shown (conceding keeps its cards hidden).
* **the stoppa**: lays whole groups when it can; otherwise, among the legal lays, the one
  that lets it keep laying longest: each lay is scored by the cards it sheds now plus the
  cards it could lay after it in sequence from its own hand, with a bonus when the sequence
  ends with the table open (after a King or an exhausted value) for it to start again.
"""

from __future__ import annotations

import random
from functools import lru_cache

from engine.stoppa import CARD_VALUE, KING, best_point, cards_in_use, declaration_point

from .base import Action, Bot, View
from .tuning import GameBots, Search


@lru_cache(maxsize=64)
def _beaten_share(deck: tuple[str, ...], size: int) -> tuple[float, ...]:
    """share[p]: the fraction of random ``size``-card packets whose best point is below p."""
    rng = random.Random(f"stoppa-heuristic/{size}")
    counts = [0] * 70
    trials = 3000
    for _ in range(trials):
        counts[best_point(rng.sample(deck, size))] += 1
    share, below = [], 0
    for c in counts:
        share.append(below / trials)
        below += c
    return tuple(share)


class HeuristicBot(Bot):
    """The rule-based player of the module docstring."""

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        phase = view["phase"]
        if phase == "bet":
            return self._bet(view, legal)
        if phase == "showdown":
            return self._show(view, legal)
        return self._lay(view, legal)

    # ------------------------------------------------------------------ betting

    def _bet(self, view: View, legal: list[Action]) -> Action:
        seat = view["seat"]
        opts = view["options"]
        bet = view["betting"]
        cards = view["round_cards"]
        deck = cards_in_use(
            view["players"], opts["three_player_variant"], opts["removed_suit"], "K" + opts.get("removed_king_suit", "B")
        )
        share = _beaten_share(deck, len(cards))[min(best_point(cards), 69)]
        rivals = sum(bet["in"]) - 1
        chance = share ** max(rivals, 1)
        level, cip = bet["level"], opts["cip"]
        kinds = {a["type"]: a for a in legal}
        if level == 0:
            if chance >= 0.5 and "open" in kinds:
                return min((a for a in legal if a["type"] == "open"), key=lambda a: a["amount"])
            return kinds["pass"]
        if chance >= 0.75:
            raises = [a for a in legal if a["type"] == "raise" and a["amount"] <= level + cip]
            if raises:
                return raises[0]
        call = level - bet["commitments"][seat]
        win = bet["prize"] + sum(bet["commitments"]) + call
        if chance * win > call and "see" in kinds:
            return kinds["see"]
        return kinds["pass"]

    def _show(self, view: View, legal: list[Action]) -> Action:
        shows = [a for a in legal if a["type"] == "show"]
        best = max(shows, key=lambda a: declaration_point(a["cards"]))
        shown = [d["point"] for d in view["showdown"]["declared"] if "point" in d]
        if shown and declaration_point(best["cards"]) <= max(shown):
            for a in legal:
                if a["type"] == "concede":
                    return a
        return best

    # ------------------------------------------------------------------ the stoppa

    def _lay(self, view: View, legal: list[Action]) -> Action:
        opts = view["options"]
        deck = cards_in_use(
            view["players"], opts["three_player_variant"], opts["removed_suit"], "K" + opts.get("removed_king_suit", "B")
        )
        copies = [0] * 11
        for c in deck:
            copies[CARD_VALUE[c]] += 1
        played = [0] + list(view["stoppa"]["played"])
        hand = [0] * 11
        for c in view["cards"]:
            hand[CARD_VALUE[c]] += 1

        def score(action: Action) -> float:
            cards = action["cards"]
            v = CARD_VALUE[cards[0]]
            mine, done = hand.copy(), played.copy()
            mine[v] -= len(cards)
            done[v] += len(cards)
            laid = len(cards) * 1.01  # a group is worth a little more than singles
            last = v
            while True:
                req = 0
                if last != KING:
                    req = next((r for r in range(last + 1, 11) if done[r] < copies[r]), 0)
                if req == 0:
                    return laid + (3 if sum(mine) else 10)
                if not mine[req]:
                    return laid
                k = mine[req] if mine[req] + done[req] == copies[req] else 1
                mine[req] -= k
                done[req] += k
                laid += k
                last = req

        return max(legal, key=score)


# ------------------------------------------------------------------ opponent model for search


def betting_consistent(view: View, state) -> bool:
    """Whether the sampled ``state`` agrees with the current betting round of ``view`` when
    every other seat bets by the heuristic's rules above: each open, raise, see and pass seen
    this round is what ``HeuristicBot`` would have done holding the sampled packet. ISMCTS
    rejects samples that fail this (its other seats are modelled by the heuristic), so a
    raise makes strong packets likelier in its determinizations."""
    if view.get("phase") != "bet":
        return True
    events = view["events"]
    start = max((i for i, e in enumerate(events) if e["type"] == "betting"), default=None)
    if start is None:
        return True
    me = view["seat"]
    n = view["players"]
    opts = view["options"]
    deck = cards_in_use(
        n, opts["three_player_variant"], opts["removed_suit"], "K" + opts.get("removed_king_suit", "B")
    )
    prize = events[start].get("prize", 0)
    size = len(view["round_cards"])
    table = _beaten_share(deck, size)
    shares: dict[int, float] = {}
    level = 0
    committed = [0] * n
    inside = n
    for e in events[start + 1 :]:
        kind = e["type"]
        if kind not in ("open", "raise", "see", "pass"):
            continue
        s = e["seat"]
        if s != me:
            share = shares.get(s)
            if share is None:
                cards = state.view(s)["round_cards"]
                share = shares[s] = table[min(best_point(cards), 69)]
            chance = share ** max(inside - 1, 1)
            call = level - committed[s]
            win = prize + sum(committed) + call
            if kind == "open" and chance < 0.5:
                return False
            if kind == "raise" and chance < 0.75:
                return False
            if kind == "see" and not (chance * win > call or chance >= 0.75):
                return False
            if kind == "pass" and (chance >= 0.5 if level == 0 else (chance >= 0.75 or chance * win > call)):
                return False
        if kind in ("open", "raise"):
            level = e["amount"]
            committed[s] = level
        elif kind == "see":
            committed[s] = level
        else:
            inside -= 1
    return True


# ------------------------------------------------------------------ the bots layer's declaration

GAME = GameBots(
    name="stoppa",
    heuristic=HeuristicBot,
    bots={},
    search=Search(
        # The bets and showdowns are left to the rollout policy: ~100 ms of rollouts cannot
        # separate twenty bet sizes (the search opened and raised at random, losing ~26 chips a
        # match); the search plays the stoppa (shedding) phase. The betting check
        # (``consistent``) only acts when bets are searched (``delegate=()``).
        delegate=("bet", "showdown"),
        horizon="hand",
        horizon_field="hand",
        guard=0.0,
        mode="tree",
        depth=None,
        candidates=None,
        estimate=None,
        consistent=betting_consistent,
    ),
)
