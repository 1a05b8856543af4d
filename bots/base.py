"""The Bot interface: a bot sees only ``view(seat)`` and returns one of its legal actions."""

from __future__ import annotations

import random
from typing import Any

View = dict[str, Any]
Action = dict[str, Any]


class Bot:
    """A player program. ``act`` receives the seat's view, legal actions included.

    A bot never touches an engine ``State``: everything it may know is in the view, so the
    same bot can run in-process, in the arena or behind the external-bot protocol.
    """

    #: The registry name; set by :func:`bots.registry.register`.
    name = ""

    def __init__(self, game: str, seed: int | str | None = None, **options: Any) -> None:
        if options:
            raise TypeError(f"bot {self.name!r} takes no option(s) {', '.join(sorted(options))}")
        self.game = game
        self.seed = seed
        self.rng = random.Random(seed)

    def start(self, seat: int, view: View) -> None:
        """Called once when a match starts, with the seat and its first view."""

    def act(self, view: View) -> Action:
        """Choose one of ``view["legal_actions"]``."""
        raise NotImplementedError

    def finish(self, seat: int, view: View) -> None:
        """Called once when the match is over, with the final view."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} for {self.game}>"
