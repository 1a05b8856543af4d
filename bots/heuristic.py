"""``heuristic``: one documented rule-based bot per game, registered under one name.

Each game's rules are in its module's docstring (``bots/<game>_bots.py``), whose ``GAME``
declaration names its ``HeuristicBot`` (:mod:`bots.games`); ``bots/builtin.py`` registers the
name for exactly the games listed in :data:`HEURISTICS`.
"""

from __future__ import annotations

from typing import Any

from . import games
from .base import Bot

#: Every game's rule-based bot, from its declaration (:mod:`bots.games`).
HEURISTICS: dict[str, type[Bot]] = {name: game.heuristic for name, game in games.GAMES.items()}


def create(game: str, seed: int | str | None = None, **options: Any) -> Bot:
    """A new heuristic bot for ``game`` (a game listed in :data:`HEURISTICS`)."""
    return HEURISTICS[game](game=game, seed=seed, **options)
