"""Piazza in tournaments (docs/games/piazza.md, "Limits in tournaments")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import FRENCH, ITALIAN, Bound, EngineFigure, TournamentGame, no_problem


def deck(options: Mapping[str, Any] | None = None) -> str:
    """French for the ``french`` and ``french_double`` decks, Italian otherwise."""
    return FRENCH if str((options or {}).get("deck", ITALIAN)).startswith(FRENCH) else ITALIAN


GAME = TournamentGame(
    name="piazza",
    display_name="Piazza",
    # Scores are figure points (at most 28 figures) less 3 per suit shown: hundreds. Chips
    # never count. table_max sizes every stake, join and raise menu, and the engine keeps each
    # menu it has built for the life of the worker: 50 keeps all of them, for every table_max,
    # to about 100,000 small dicts.
    option_bounds={
        "table_max": Bound(1, 50, "menus of stakes and raises (1 to table_max), kept by the engine"),
        "replacement_limit": Bound(1, 20, "twice the rules' 10 (EC-10): replacement rounds in one turn"),
    },
    engine_bounded={
        "dealer": "a seat: 0 to N-1",
        "deck": '"italian", "french" or "french_double"',
        "rivolta_scope": '"per_player" or "per_table"',
    },
    options_problem=no_problem,
    phases=("rivolta", "commercio", "offer", "choose", "give", "claim", "replacement", "stake", "join",
            "response", "take", "reveal"),
    ismcts_iterations=30,  # ms an iteration: 29 at 8 seats
    counted_by=None,  # a match is played to its figures
    deck=deck,
    engine_figure=EngineFigure(players=4, measure="decisions/s", target=150_000),
)
