"""Every game on the pages (:class:`~tournaments.web.games.base.WebGame`), by the game's name: how
to draw its table, how to say its events and actions, which parts of its events are private.

A game joins with its own module here (``tournaments/web/games/<game>.py``, declaring ``GAME``)
listed in :data:`MODULES` (docs/games/README.md, "Adding a game");
tests/tournaments/web/test_games.py checks that every engine game has one, with every field.
The pages read it through tables.layout and narration (Teller, seen_by); a game without one
is drawn and told with what every game shares.
"""

from __future__ import annotations

from bots.declarations import Declarations

from . import piazza, sette_e_mezzo, spacca_il_mazzo, stoppa
from .base import WebGame

_DECLARED: Declarations[WebGame] = Declarations(
    (piazza, sette_e_mezzo, spacca_il_mazzo, stoppa),
    layer="web", module="tournaments/web/games/{name}.py", listed_in="tournaments/web/games/__init__.py",
)

MODULES = _DECLARED.modules
GAMES: dict[str, WebGame] = _DECLARED.games
#: The declaration of a game by its name; engine.UnknownGame says where a missing one goes.
get = _DECLARED.get
