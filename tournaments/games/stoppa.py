"""Stoppa in tournaments (docs/games/stoppa.md, "Limits in tournaments")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import MENU_MAX, Bound, EngineFigure, TournamentGame, italian


def options_problem(options: Mapping[str, Any]) -> str | None:
    """Every bet lists one action per amount: at most MENU_MAX of them, defaults included."""
    amounts = options["max_bet"] // options["cip"]
    if amounts > MENU_MAX:
        return (f"max_bet / cip must be at most {MENU_MAX} in a tournament (every bet lists one action per "
                f"amount), got {options['max_bet']} / {options['cip']} = {amounts}; max_bet defaults to "
                "N·ante: set max_bet or raise cip")
    return None


GAME = TournamentGame(
    name="stoppa",
    display_name="Stoppa",
    # Per hand a seat loses at most a + b (antes) + (R + 1)·M (bets: R <= 5 side rounds and the
    # final, M each) + N·f·H (card fees and re/povera, H <= 13 cards, N <= 6 seats) = 1000 +
    # 1000 + 6·10,000 + 6·1000·13 = 140,000, and wins at most what the other five lose,
    # 700,000; over 50 hands 35,000,000 = 2**31 / 61. Scores add up to 0.
    # Time: 50 hands at 6 seats is ~1,900 decisions, 0.15 s of heuristic play.
    option_bounds={
        "hands": Bound(1, 50, "about 8 rotations of the deal at 6 seats: ~1,900 decisions"),
        "ante": Bound(0, 1000, "chip amounts: keeps 50 hands' scores under 2**31 / 60"),
        "side_ante": Bound(0, 1000, "chip amounts: keeps 50 hands' scores under 2**31 / 60"),
        "cip": Bound(1, 1000, "chip amounts: keeps 50 hands' scores under 2**31 / 60"),
        "max_bet": Bound(1, 10_000, "a round's commitment: keeps 50 hands' scores under 2**31 / 60"),
        "card_fee": Bound(0, 1000, "chip amounts: keeps 50 hands' scores under 2**31 / 60"),
    },
    engine_bounded={
        "dealer": "a seat: 0 to N-1",
        "three_player_variant": '"A" or "B"',
        "removed_suit": "one of the four suits",
        "removed_king": "one of the four Kings",
    },
    options_problem=options_problem,
    phases=("bet", "showdown", "stoppa"),
    # ms an iteration: 2.9 with its bets searched.
    ismcts_iterations=300,
    counted_by="hands",
    deck=italian,
    engine_figure=EngineFigure(players=4, measure="decisions/s", target=150_000),
)
