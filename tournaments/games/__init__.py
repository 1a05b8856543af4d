"""Every game as the tournament layer knows it (:class:`~tournaments.games.base.TournamentGame`),
by the game's name: option bounds, phases, ismcts's ceiling, display name, deck.

A game joins with its own module here (``tournaments/games/<game>.py``, declaring ``GAME``)
listed in :data:`MODULES` (docs/games/README.md, "Adding a game");
tests/tournaments/test_games.py checks that every engine game has one, with every field.
Pure: no ORM, no service.
"""

from __future__ import annotations

from bots.declarations import Declarations

from . import piazza, sette_e_mezzo, spacca_il_mazzo, stoppa
from .base import TournamentGame

_DECLARED: Declarations[TournamentGame] = Declarations(
    (piazza, sette_e_mezzo, spacca_il_mazzo, stoppa),
    layer="tournament", module="tournaments/games/{name}.py", listed_in="tournaments/games/__init__.py",
)

MODULES = _DECLARED.modules
GAMES: dict[str, TournamentGame] = _DECLARED.games
#: The declaration of a game by its name; engine.UnknownGame says where a missing one goes.
get = _DECLARED.get
