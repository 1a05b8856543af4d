"""Sette e mezzo in tournaments (docs/games/sette_e_mezzo.md, "Limits in tournaments")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import MENU_MAX, Bound, EngineFigure, TournamentGame, italian


def options_problem(options: Mapping[str, Any]) -> str | None:
    """Every stake lists one action per amount: at most MENU_MAX of them."""
    amounts = options["stake_max"] - options["stake_min"] + 1
    if amounts > MENU_MAX:
        return (f"stake_max - stake_min + 1 must be at most {MENU_MAX} in a tournament (every stake lists one "
                f"action per amount), got {options['stake_max']} - {options['stake_min']} + 1 = {amounts}")
    return None


GAME = TournamentGame(
    name="sette_e_mezzo",
    display_name="Sette e mezzo",
    # Per hand the banker settles with at most 9 players, each paid at most 3 × stake_max (a
    # triplé): 270,000; over 200 hands 54,000,000 = 2**31 / 39. Scores add up to 0.
    # Time: 200 hands at 10 seats is ~5,600 decisions, 0.12 s of heuristic play.
    option_bounds={
        "hands": Bound(1, 200, "~5,600 decisions at 10 seats"),
        "stake_min": Bound(1, 10_000, "stakes: keeps 200 hands' scores under 2**31 / 39"),
        "stake_max": Bound(1, 10_000, "stakes: keeps 200 hands' scores under 2**31 / 39"),
    },
    engine_bounded={
        "dealer": "a seat: 0 to N-1",
        "min_participants": "3 to 10",
        "matta": "a card of the deck, or null",
        "special_vs_plain": '"multiplier" or "single"',
    },
    options_problem=options_problem,
    phases=("stake", "play"),
    ismcts_iterations=1000,  # ms an iteration: 0.9
    counted_by="hands",
    deck=italian,
    # 4 players and the banker (shared/design/engine.md).
    engine_figure=EngineFigure(players=5, measure="hands/s", target=20_000),
)
