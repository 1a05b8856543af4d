"""What the bots layer knows of a game, declared next to its heuristic in ``bots/<game>_bots.py``
(``GAME = GameBots(...)``) and gathered by :mod:`bots.games`.

Every field is required (no defaults), so that a game's declaration says each choice once, in
one place: its rule-based bot, the other built-in bots that play only it, and how ``ismcts``
(:mod:`bots.ismcts`) searches it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import engine

from .base import Action, Bot, View


@dataclass(frozen=True)
class Search:
    """How ``ismcts`` searches one game; each field is the default of the bot's option of the
    same name (``horizon_field``, ``candidates``, ``estimate`` and ``consistent`` are not options).

    ``delegate``: the phases left to the rollout policy. ``horizon``: ``"hand"`` or ``"match"``.
    ``horizon_field``: the view field whose change ends a rollout under the ``"hand"`` horizon.
    ``guard``: standard errors by which the search must beat its rollout policy's move (0: off).
    ``mode``: ``"tree"`` or ``"paired"``. ``depth``: tree mode's rollout moves before
    ``estimate`` scores the state (None: to the horizon). ``candidates(view, legal)``: the
    actions worth searching (None: every legal one). ``estimate(state)``: final scores guessed
    from a state cut off by ``depth`` (None: no cut-off). ``consistent(view, state)``: whether a
    determinization agrees with what the other seats' actions reveal under the heuristic
    (None: every sample is kept)."""

    delegate: tuple[str, ...]
    horizon: str
    horizon_field: str
    guard: float
    mode: str
    depth: int | None
    candidates: Callable[[View, list[Action]], list[Action]] | None
    estimate: Callable[[engine.State], list[float]] | None
    consistent: Callable[[View, Any], bool] | None


@dataclass(frozen=True)
class GameBots:
    """One game's bots: ``name`` (the engine's), ``heuristic`` (its rule-based bot, registered
    as ``heuristic``), ``bots`` (other built-in bots that play this game only, by name:
    registered by :mod:`bots.builtin`) and ``search`` (:class:`Search`)."""

    name: str
    heuristic: type[Bot]
    bots: Mapping[str, Callable[..., Bot]]
    search: Search
