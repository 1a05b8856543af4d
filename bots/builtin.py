"""The bots that come with Mazziere, registered under their names.

``random`` plays every game; ``subprocess`` and ``http`` are the external bots' transports
(:mod:`bots.external`); ``heuristic`` is one rule-based bot per game (:mod:`bots.heuristic`);
a game's own bots (``expectimax`` plays Sette e mezzo) are named in its declaration
(``GameBots.bots``, :mod:`bots.games`); ``ismcts`` searches every game whose engine can
determinize a view. ``bots/__init__.py`` imports this module, so the names are registered
before anything can ask :func:`bots.registry.create` for them.
"""

from __future__ import annotations

from . import games, heuristic, ismcts
from .external import HttpBot, SubprocessBot
from .random_bot import RandomBot
from .registry import register

register("random", RandomBot)
register("subprocess", SubprocessBot)  # command=[...], limits=..., sandbox=...
register("http", HttpBot)  # url=..., limits=..., headers=..., public_only=...
register("heuristic", heuristic.create, games=tuple(heuristic.HEURISTICS))
for _game in games.GAMES.values():  # each game's own bots (tests/bots/test_games.py: no name twice)
    for _name, _factory in _game.bots.items():
        register(_name, _factory, games=(_game.name,))
register("ismcts", ismcts.IsmctsBot, games=ismcts.searchable_games())
