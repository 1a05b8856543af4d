"""Play a whole match between built-in bots, in this process, the way a worker plays a
tournament's match: through bots.runner (forfeits and all), each seat's bot seeded as the
service seeds it (services.seeds.bot_seed). No database: `manage.py play_match` calls this."""

from __future__ import annotations

from collections.abc import Sequence

import bots
from bots.runner import MatchOutcome, play_match
from tournaments.services.clocks import bot_policy
from tournaments.services.seeds import bot_seed


def play(game: str, bot_names: Sequence[str], *, seed: int, options: dict | None = None) -> MatchOutcome:
    """Seat one built-in bot per name (seat i gets bot_names[i]) and play the match to its end.
    The same arguments always give the same match, and the same one a tournament's match with
    this seed and these bots gives (bots that search by time aside), with the same time allowed."""
    players = [bots.create(name, game=game, seed=bot_seed(seed, i)) for i, name in enumerate(bot_names)]
    return play_match(game, players, seed=seed, options=options, policy=bot_policy(len(players)))
