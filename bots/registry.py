"""The bot registry: every bot, built-in or external, is made by name.

::

    from bots.registry import available, create, register
    register("mine", MyBot, games=("stoppa",))   # MyBot(game=..., seed=..., **options)
    bot = create("mine", game="stoppa", seed=7)
    available("stoppa")                             # [..., "mine", ...], sorted

This module imports ``engine`` and :mod:`bots.base` only, so a bot that makes other bots by
name (``ismcts``'s rollout policy) and the match runner (its fallback bot) import it at module
level. Factories are looked up when :func:`create` is called: the built-in bots are
registered by :mod:`bots.builtin`, which ``import bots`` (any ``bots.*`` import) runs first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine

from .base import Bot

__all__ = ["available", "create", "register"]

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
