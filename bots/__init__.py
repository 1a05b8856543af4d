"""Programs that choose actions: built-in bots and, later, external bots.

Every bot is made the same way and sees only ``view(seat)``::

    import bots
    bot = bots.create("random", game="sette_e_mezzo", seed=7)
    action = bot.act(state.view(seat))
    bots.available("sette_e_mezzo")   # ["random", ...]

``bots`` imports ``engine`` only: no Django, no database.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine

from .base import Action, Bot, View
from .random_bot import RandomBot
from .external import HttpBot, SubprocessBot

__all__ = ["Action", "Bot", "View", "available", "create", "register"]

# name -> (factory, games it plays or None for every game)
_BOTS: dict[str, tuple[Callable[..., Bot], frozenset[str] | None]] = {}


def register(name: str, factory: Callable[..., Bot], games: tuple[str, ...] | None = None) -> None:
    """Make ``factory(game=..., seed=..., **options)`` available as ``name``."""
    _BOTS[name] = (factory, None if games is None else frozenset(games))


def available(game: str) -> list[str]:
    """The names of the bots that play ``game``, sorted."""
    engine.game(game)  # UnknownGame for a bad name
    return sorted(n for n, (_, games) in _BOTS.items() if games is None or game in games)


def create(name: str, game: str, seed: int | str | None = None, **options: Any) -> Bot:
    """A new bot ``name`` for ``game``; ``seed`` makes its choices reproducible."""
    engine.game(game)
    entry = _BOTS.get(name)
    if entry is None or (entry[1] is not None and game not in entry[1]):
        raise ValueError(
            f"no bot {name!r} for {game}; available: {', '.join(available(game))}"
        )
    bot = entry[0](game=game, seed=seed, **options)
    bot.name = name
    return bot


register("random", RandomBot)
register("subprocess", SubprocessBot)  # command=[...], limits=..., sandbox=...
register("http", HttpBot)  # url=..., limits=...

# Built-in players beyond random (issue 6): heuristic per game, expectimax for Sette e mezzo,
# ismcts for every game whose engine can determinize a view.
from . import heuristic as _heuristic, ismcts as _ismcts  # noqa: E402
from .sette_e_mezzo_bots import ExpectimaxBot  # noqa: E402

register("heuristic", _heuristic.create, games=tuple(_heuristic.HEURISTICS))
register("expectimax", ExpectimaxBot, games=("sette_e_mezzo",))
register("ismcts", _ismcts.IsmctsBot, games=_ismcts.searchable_games())
