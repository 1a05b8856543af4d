"""Every game's bots-layer declaration (:class:`bots.tuning.GameBots`), by the game's name.

A game joins by declaring ``GAME`` in its ``bots/<game>_bots.py`` and being listed in
:data:`MODULES` (docs/games/README.md, "Adding a game"). tests/bots/test_games.py checks that
every engine game has one.
"""

from __future__ import annotations

from . import piazza_bots, sette_e_mezzo_bots, spacca_il_mazzo_bots, stoppa_bots
from .declarations import Declarations
from .tuning import GameBots

_DECLARED: Declarations[GameBots] = Declarations(
    (piazza_bots, sette_e_mezzo_bots, spacca_il_mazzo_bots, stoppa_bots),
    layer="bots", module="bots/{name}_bots.py", listed_in="bots/games.py",
)

MODULES = _DECLARED.modules
GAMES: dict[str, GameBots] = _DECLARED.games
#: The declaration of a game by its name; engine.UnknownGame says where a missing one goes.
get = _DECLARED.get
