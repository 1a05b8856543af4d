"""The Bot interface: a bot sees only ``view(seat)`` and returns one of its legal actions.

:class:`BotFailure` is how a bot says it broke the rules of the table (the external bots'
transports raise it); the match runner turns it into a forfeit.
"""

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

    #: The registry name; set by :func:`bots.registry.create`.
    name = ""

    #: Whether the bot keeps its own time (an external bot: its transport stops it on time,
    #: by its own limits); the match runner's time limits are for the bots that do not.
    clocked = False

    #: When ``act`` must have answered, on ``time.monotonic()``'s clock; None: no limit. The
    #: match runner sets it before each decision from the seat's allowance
    #: (:class:`bots.runner.ForfeitPolicy`); a bot that searches stops there and answers with
    #: what it has found. A bot answering well after it forfeits its seat.
    deadline: float | None = None

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


class BotFailure(Exception):
    """An external bot broke the protocol or a limit; the runner forfeits its seat.

    ``reason`` is one of ``crash``, ``timeout``, ``malformed``, ``output_limit``, ``memory``
    (``illegal`` is decided by the runner, which knows the rules); ``detail`` says what
    happened, with the offending output or the tail of stderr.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
