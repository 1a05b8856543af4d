"""Programs that choose actions: built-in bots and external bots.

Every bot is made the same way and sees only ``view(seat)``::

    import bots
    bot = bots.create("random", game="sette_e_mezzo", seed=7)
    action = bot.act(state.view(seat))
    bots.available("sette_e_mezzo")   # ["random", ...]

``bots`` imports ``engine`` only: no Django, no database.

Layout, each module importing only those before it: :mod:`bots.base` (the :class:`Bot`
interface, :class:`BotFailure`), :mod:`bots.registry` (``register``, ``available``,
``create``), :mod:`bots.tuning` (what a game declares to the bots layer),
:mod:`bots.declarations` (each layer's declarations gathered by the game's name), the bots
themselves (``random_bot``, ``<game>_bots`` with each game's declaration, :mod:`bots.games`
gathering them, ``heuristic``, ``ismcts``, the :mod:`bots.external` package),
:mod:`bots.builtin` (registers the built-in bots), then :mod:`bots.runner` (plays a match) and
:mod:`bots.arena` (plays many), which this package does not import.
"""

from __future__ import annotations

from . import builtin  # noqa: F401  (registers the built-in bots)
from .base import Action, Bot, BotFailure, View
from .external import HttpBot, SubprocessBot
from .random_bot import RandomBot
from .registry import _BOTS, available, create, register  # noqa: F401  (_BOTS: tests patch it)

__all__ = [
    "Action", "Bot", "BotFailure", "HttpBot", "RandomBot", "SubprocessBot", "View",
    "available", "create", "register",
]
