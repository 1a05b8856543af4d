"""Mazziere's game engine: the rules of four traditional Italian card games.

The public contract is shared/design/engine.md::

    import engine
    game = engine.game("sette_e_mezzo")
    state = game.new_match(players=5, seed=42)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    state.scores()

This package imports nothing from Django or ``bots/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cards import check_deck, shuffled
from .core import Action, Event, Game, IllegalAction, InvalidOptions, Option, State, UnknownGame, shown

__all__ = [
    "Action",
    "Event",
    "Game",
    "IllegalAction",
    "InvalidOptions",
    "Option",
    "State",
    "UnknownGame",
    "check_deck",
    "game",
    "games",
    "load",
    "register",
    "replay",
    "shuffled",
]

_GAMES: dict[str, Game] = {}


def register(game_: Game) -> Game:
    """Add a game to the registry under ``game_.name``."""
    _GAMES[game_.name] = game_
    return game_


def games() -> dict[str, Game]:
    """Every registered game by name, in alphabetical order."""
    return dict(sorted(_GAMES.items()))


def game(name: str) -> Game:
    """The game registered as ``name``; :class:`UnknownGame` lists the valid names."""
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(
            f"unknown game {name!r}; valid names: {', '.join(sorted(_GAMES))}"
        ) from None


def replay(
    name: str,
    players: int,
    seed: int | str | None = None,
    options: Mapping[str, Any] | None = None,
    deck: Any = None,
    actions: Sequence[Action] = (),
) -> State:
    """Rebuild a match from its inputs and the callers' actions."""
    state = game(name).new_match(players=players, seed=seed, options=options, deck=deck)
    for i, action in enumerate(actions):
        try:
            state.apply(action)
        except IllegalAction as exc:
            raise IllegalAction(f"action {i} ({shown(action)}): {exc}") from None
    return state


def load(data: Mapping[str, Any]) -> State:
    """Rebuild a match from ``State.to_json()``."""
    missing = [k for k in ("game", "players", "seed") if k not in data]
    if missing:
        raise InvalidOptions(f"saved match lacks {', '.join(missing)}")
    return replay(
        data["game"],
        players=data["players"],
        seed=data["seed"],
        options=data.get("options"),
        deck=data.get("deck"),
        actions=data.get("actions", ()),
    )


# The games register themselves on import, after register() exists (isort: kept in this order).
# isort: off
from . import sette_e_mezzo  # noqa: E402,F401
from . import stoppa  # noqa: E402,F401
from . import spacca_il_mazzo  # noqa: E402,F401
from . import piazza  # noqa: E402,F401
# isort: on
