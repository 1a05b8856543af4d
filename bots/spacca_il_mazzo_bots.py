"""Built-in Spacca il mazzo bot: ``heuristic``. It sees only the view.

The goal is to shed every card first, so ``heuristic`` follows these rules:

* **play low, keep the specials**: among the legal PLAYs of ordinary ranks (3 … A) it plays
  the lowest rank, with every copy it may add (hand and face-up cards of that rank): the
  most cards shed for the smallest reference left to the next player.
* **2 and 10 only when nothing else plays**: then a 10 if the pile holds 4 cards or more
  (burn it), else a 2 if it has one, else the 10; one card at a time, keeping the others.
* **never pick up by choice**: with no play it DRAWs (one card) while the stock lasts, and
  PICKs UP the pile only when that is all that is left.
* **face-down cards**: with an empty hand it plays a face-up card by the rules above when
  allowed (after E1), else FLIPs the first face-down slot left (all are unknown).
* **red joker**: drawn with cards in hand, it throws the whole hand (``joker_dump``);
  otherwise it throws its highest ordinary face-up card (a high reference for the next
  player), else a face-down card, and declines only when it has nothing to throw.
"""

from __future__ import annotations

from engine.spacca_il_mazzo import HIERARCHIES, LEVEL_2

from .base import Action, Bot, View

BURN_PILE = 4  # a pile this big is worth a 10


class HeuristicBot(Bot):
    """Plays the rules of the module docstring; deterministic (no randomness needed)."""

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        level_of = HIERARCHIES[view.get("k_below_q", True)].level_of
        if view.get("red_joker"):
            return _red_joker(legal, level_of)
        best = None
        best_key = None
        special = []
        for action in legal:
            if action["type"] != "play":
                continue
            cards = action["cards"]
            level = level_of[cards[0]]
            if level >= LEVEL_2:
                special.append((level, len(cards), action))
                continue
            key = (level, -len(cards))  # lowest rank, then the most cards
            if best_key is None or key < best_key:
                best, best_key = action, key
        if best is not None:
            return best
        if special:
            tens = [s for s in special if s[0] > LEVEL_2]
            twos = [s for s in special if s[0] == LEVEL_2]
            group = tens if tens and (len(view["pile"]) >= BURN_PILE or not twos) else twos
            return min(group, key=lambda s: s[1])[2]
        by_type = {}
        for action in legal:
            by_type.setdefault(action["type"], action)
        for kind in ("flip", "draw", "pickup"):
            if kind in by_type:
                return by_type[kind]
        return legal[0]


def _red_joker(legal: list[Action], level_of: dict[str, int]) -> Action:
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    if "joker_dump" in by_type:
        return by_type["joker_dump"][0]
    throws = by_type.get("joker_throw", [])
    up = [a for a in throws if "card" in a]
    ordinary = [a for a in up if level_of[a["card"]] < LEVEL_2]
    if ordinary:
        return max(ordinary, key=lambda a: level_of[a["card"]])
    down = [a for a in throws if "slot" in a]
    if down:
        return down[0]
    if up:
        return up[0]
    return legal[-1]
