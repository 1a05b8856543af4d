"""Every game's bots-layer declaration (:class:`bots.tuning.GameBots`), by the game's name.

A game joins by declaring ``GAME`` in its ``bots/<game>_bots.py`` and being listed in
:data:`MODULES` (docs/games/README.md, "Adding a game"). tests/bots/test_games.py checks that
every engine game has one.
"""

from __future__ import annotations

import engine

from . import piazza_bots, sette_e_mezzo_bots, spacca_il_mazzo_bots, stoppa_bots
from .tuning import GameBots

MODULES = (piazza_bots, sette_e_mezzo_bots, spacca_il_mazzo_bots, stoppa_bots)

GAMES: dict[str, GameBots] = {module.GAME.name: module.GAME for module in MODULES}


class UnknownGame(engine.UnknownGame):
    """No bots-layer declaration for that game name."""


def get(name: str) -> GameBots:
    """The declaration of ``name``; :class:`UnknownGame` (an ``engine.UnknownGame``) says
    where a missing one goes."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(
            f"no bots declaration for game {name!r}: declare GAME in bots/{name}_bots.py and list the module "
            f"in bots/games.py (docs/games/README.md); declared: {', '.join(sorted(GAMES))}"
        ) from None
