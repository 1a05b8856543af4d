"""The games' declarations in one layer, by the game's name: what each layer above the engine
(bots, tournaments, pages) knows of a game is declared as ``GAME`` in one module per game and
gathered by one :class:`Declarations` per layer (docs/games/README.md, "Adding a game")."""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import Generic, TypeVar

import engine

D = TypeVar("D")


class Declarations(Generic[D]):
    """The ``GAME`` of each module of ``modules``: ``games`` by its name (a plain dict, read on
    the pages' hot paths), and :meth:`get`. ``layer`` names the layer in errors; ``module``
    (with ``{name}``) and ``listed_in`` say where a missing declaration goes."""

    def __init__(self, modules: Iterable[ModuleType], *, layer: str, module: str, listed_in: str) -> None:
        self.modules = tuple(modules)
        self.games: dict[str, D] = {m.GAME.name: m.GAME for m in self.modules}
        self._where = (layer, module, listed_in)

    def get(self, name: str) -> D:
        """The declaration of ``name``; engine.UnknownGame says where a missing one goes."""
        try:
            return self.games[name]
        except (KeyError, TypeError):
            layer, module, listed_in = self._where
            raise engine.UnknownGame(
                f"no {layer} declaration for game {name!r}: declare GAME in {module.format(name=name)} and list "
                f"the module in {listed_in} (docs/games/README.md); declared: {', '.join(sorted(self.games))}"
            ) from None
