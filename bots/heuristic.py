"""``heuristic``: one documented rule-based bot per game, registered under one name.

Each game's rules are in its module's docstring (``bots/<game>_bots.py``). A game's heuristic
joins by adding its class to :data:`HEURISTICS`; ``bots/builtin.py`` registers the name for
exactly the games listed here.
"""

from __future__ import annotations

from typing import Any

from . import piazza_bots, sette_e_mezzo_bots, spacca_il_mazzo_bots, stoppa_bots
from .base import Bot

HEURISTICS: dict[str, type[Bot]] = {
    "sette_e_mezzo": sette_e_mezzo_bots.HeuristicBot,
    "stoppa": stoppa_bots.HeuristicBot,
    "spacca_il_mazzo": spacca_il_mazzo_bots.HeuristicBot,
    "piazza": piazza_bots.HeuristicBot,
}


def create(game: str, seed: int | str | None = None, **options: Any) -> Bot:
    """A new heuristic bot for ``game`` (a game listed in :data:`HEURISTICS`)."""
    return HEURISTICS[game](game=game, seed=seed, **options)
