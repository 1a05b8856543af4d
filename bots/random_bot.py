"""``random``: a uniformly random choice among the legal actions, for every game."""

from __future__ import annotations

from .base import Action, Bot, View


class RandomBot(Bot):
    """Plays uniformly at random over ``view["legal_actions"]``, from its own seeded rng."""

    def act(self, view: View) -> Action:
        legal = view["legal_actions"]
        return legal[int(self.rng.random() * len(legal))]
