"""Every game on the pages (:class:`~tournaments.web.games.base.WebGame`), by the game's name: how
to draw its table, how to say its events and actions, which parts of its events are private.

A game joins with its own module here (``tournaments/web/games/<game>.py``, declaring ``GAME``)
listed in :data:`MODULES` (docs/games/README.md, "Adding a game");
tests/tournaments/web/test_games.py checks that every engine game has one, with every field.
The pages read it through tables.layout and narration (Teller, seen_by); a game without one
is drawn and told with what every game shares.
"""

from __future__ import annotations

import engine

from . import piazza, sette_e_mezzo, spacca_il_mazzo, stoppa
from .base import WebGame

MODULES = (piazza, sette_e_mezzo, spacca_il_mazzo, stoppa)

GAMES: dict[str, WebGame] = {module.GAME.name: module.GAME for module in MODULES}


class UnknownGame(engine.UnknownGame):
    """No web declaration for that game name."""


def get(name: str) -> WebGame:
    """The declaration of ``name``; :class:`UnknownGame` (an ``engine.UnknownGame``) says
    where a missing one goes."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(
            f"no web declaration for game {name!r}: declare GAME in tournaments/web/games/{name}.py and list the "
            f"module in tournaments/web/games/__init__.py (docs/games/README.md); declared: {', '.join(sorted(GAMES))}"
        ) from None
