"""The bots that come with Mazziere, registered under their names.

``random`` plays every game; ``subprocess`` and ``http`` are the external bots' transports
(:mod:`bots.external`); ``heuristic`` is one rule-based bot per game (:mod:`bots.heuristic`);
``expectimax`` plays Sette e mezzo; ``ismcts`` searches every game whose engine can
determinize a view. ``bots/__init__.py`` imports this module, so the names are registered
before anything can ask :func:`bots.registry.create` for them.
"""

from __future__ import annotations

from . import heuristic, ismcts
from .external import HttpBot, SubprocessBot
from .random_bot import RandomBot
from .registry import register
from .sette_e_mezzo_bots import ExpectimaxBot

register("random", RandomBot)
register("subprocess", SubprocessBot)  # command=[...], limits=..., sandbox=...
register("http", HttpBot)  # url=..., limits=..., headers=..., public_only=...
register("heuristic", heuristic.create, games=tuple(heuristic.HEURISTICS))
register("expectimax", ExpectimaxBot, games=("sette_e_mezzo",))
register("ismcts", ismcts.IsmctsBot, games=ismcts.searchable_games())
