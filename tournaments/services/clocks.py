"""How long the bots the service plays in its own processes may think: built-in bots, whatever
their options, and the fallback and timeout bots (docs/bots.md, "Time at the service's tables").

Every such bot has BOT_DECISION_SECONDS a decision and an even share of BOT_MATCH_SECONDS for
the whole match at its table; it is told when each decision's time ends (bots.base.Bot.deadline:
a search stops there, and answers at once once its share is spent), and one that answers
BOT_OVERRUN_SECONDS after that forfeits its seat (``timeout``), as bots.runner rules. So no
option of a built-in bot makes a match hold a worker longer than BOT_MATCH_SECONDS beyond the
engine's own time. External bots keep their own limits (bots.external.Limits).
"""

from __future__ import annotations

from django.conf import settings

from bots.runner import ForfeitPolicy, ThinkClock


def bot_policy(players: int) -> ForfeitPolicy:
    """The rule of a table of ``players`` seats for the bots the service plays there."""
    return ForfeitPolicy(decision_limit=settings.BOT_DECISION_SECONDS,
                         match_limit=settings.BOT_MATCH_SECONDS / max(1, players),
                         overrun=settings.BOT_OVERRUN_SECONDS)


def bot_clock(players: int, left: float | None = None) -> ThinkClock:
    """A seat's clock at such a table, ``left`` seconds of its match time left (None: all)."""
    return ThinkClock(bot_policy(players), left)
