"""Spacca il mazzo in tournaments (docs/games/spacca_il_mazzo.md, "Limits in tournaments")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import FRENCH, MATCH_TURNS_MAX, Bound, EngineFigure, TournamentGame


def options_problem(options: Mapping[str, Any]) -> str | None:
    """games x turn_limit: a match's turns, at most MATCH_TURNS_MAX."""
    turns = options["games"] * options["turn_limit"]
    if turns > MATCH_TURNS_MAX:
        return (f"games x turn_limit must be at most {MATCH_TURNS_MAX:,} in a tournament (a match's turns: what a "
                f"replay and the players sit through), got {options['games']} x {options['turn_limit']} = {turns:,}")
    return None


def deck(options: Mapping[str, Any] | None = None) -> str:
    """The French deck, with its two jokers."""
    return FRENCH


GAME = TournamentGame(
    name="spacca_il_mazzo",
    display_name="Spacca il mazzo",
    # A game pays at most 25 + V points, V <= 116 card points (every rank once, doubled): 141;
    # over 20 games 2,820. Length: games x turn_limit is at most MATCH_TURNS_MAX
    # (options_problem), ~0.5 s of random play.
    option_bounds={
        "games": Bound(1, 20, "rollouts of search bots play to the end of the match: ~20 times one game"),
        "turn_limit": Bound(1, 5000, "5 times the default; games x turn_limit at most 10,000"),
    },
    engine_bounded={
        "dealer": "a seat: 0 to N-1",
        "k_below_q": "true or false",
    },
    options_problem=options_problem,
    phases=(),  # its views have no phase
    ismcts_iterations=250,  # ms an iteration: 4
    counted_by="games",
    deck=deck,
    engine_figure=EngineFigure(players=4, measure="decisions/s", target=150_000),
)
