"""Every game as the tournament layer knows it (:class:`~tournaments.games.base.TournamentGame`),
by the game's name: option bounds, phases, ismcts's ceiling, display name, deck.

A game joins with its own module here (``tournaments/games/<game>.py``, declaring ``GAME``)
listed in :data:`MODULES` (docs/games/README.md, "Adding a game");
tests/tournaments/test_games.py checks that every engine game has one, with every field.
Pure: no ORM, no service.
"""

from __future__ import annotations

import engine

from . import piazza, sette_e_mezzo, spacca_il_mazzo, stoppa
from .base import TournamentGame

MODULES = (piazza, sette_e_mezzo, spacca_il_mazzo, stoppa)

GAMES: dict[str, TournamentGame] = {module.GAME.name: module.GAME for module in MODULES}


class UnknownGame(engine.UnknownGame):
    """No tournament-layer declaration for that game name."""


def get(name: str) -> TournamentGame:
    """The declaration of ``name``; :class:`UnknownGame` (an ``engine.UnknownGame``) says
    where a missing one goes."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(
            f"no tournament declaration for game {name!r}: declare GAME in tournaments/games/{name}.py and list "
            f"the module in tournaments/games/__init__.py (docs/games/README.md); declared: {', '.join(sorted(GAMES))}"
        ) from None
