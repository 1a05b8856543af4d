"""Play a whole match between built-in bots, in this process, through the engine's contract
(shared/design/engine.md). No database: the Celery task and the demo command call this."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import bots
import engine


def play(game: str, bot_names: Sequence[str], *, seed: int, options: dict | None = None) -> Any:
    """Seat one bot per name (seat i gets bot_names[i]), play until the match is over and
    return the finished engine state. The same arguments always give the same match."""
    rules = engine.game(game)
    state = rules.new_match(players=len(bot_names), seed=seed, options=options or {})
    players = [bots.create(name, game=game, seed=seed * 100 + i) for i, name in enumerate(bot_names)]
    while not state.is_over():
        seat = state.current_player()
        state.apply(players[seat].act(state.view(seat)))
    return state


def result(state: Any) -> dict:
    """A finished match as JSON-ready data: the scores, the places and the replayable record."""
    return {"scores": list(state.scores()), "places": list(state.places()), "match": state.to_json()}


def play_bot_match(game: str, bot_names: Sequence[str], seed: int, options: dict | None = None) -> dict:
    """Play one match (see play) and return its result (see result)."""
    return result(play(game, bot_names, seed=seed, options=options))
