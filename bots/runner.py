"""Play one match with bots: the single place where a match between programs is played, a
loop over its :class:`~bots.table.Table` (where the rule of the table is written: what a
bot is given, what forfeits its seat, who plays it then, how forfeited seats rank).

::

    from bots.runner import play_match
    import bots, engine
    game = engine.game("sette_e_mezzo")
    players = [bots.create("random", game=game.name, seed=i) for i in range(3)]
    outcome = play_match(game, players, seed=42)
    outcome.scores, outcome.places, outcome.forfeits
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine

from .base import Bot

# The table's rule lives in bots.table; its names stay importable from here.
from .table import (  # noqa: F401
    DETAIL_CHARS,
    REASONS,
    Forfeit,
    ForfeitPolicy,
    Fresh,
    Table,
    ThinkClock,
    copy_action,
    fallback_seed,
    forfeit_detail,
    forfeit_places,
    raised,
    refused,
    view_for,
)


@dataclass(frozen=True)
class MatchOutcome:
    """The result of :func:`play_match`.

    ``places`` are the engine's places with forfeits applied (see :class:`ForfeitPolicy`);
    ``decisions``/``decision_time`` count only the seat's own bot (seconds, wall clock),
    ``fallback_decisions`` the decisions the fallback played for a forfeited seat.
    """

    state: engine.State
    scores: tuple[int, ...]
    places: tuple[int, ...]
    forfeits: Mapping[int, Forfeit]
    decisions: tuple[int, ...]
    decision_time: tuple[float, ...]
    fallback_decisions: tuple[int, ...] = field(default=())

    @property
    def ranking(self) -> list[int]:
        """Seats from first to last place; within a shared place, by seat number."""
        return sorted(range(len(self.places)), key=lambda s: (self.places[s], s))


def play_match(
    game: engine.Game | str,
    players: Sequence[Bot],
    *,
    seed: int | str,
    options: Mapping[str, Any] | None = None,
    deck: Any = None,
    policy: ForfeitPolicy = ForfeitPolicy(),
) -> MatchOutcome:
    """Play a whole match, one bot per seat (seat i is ``players[i]``: a bot, or a
    :class:`~bots.table.Fresh` maker of one bot a decision).

    Calls each bot's ``start`` hook, asks the seat to act with its view, applies the action,
    and calls ``finish`` hooks at the end. Bots with a ``close()`` method are closed in every
    case, so external processes never outlive the match. The match always completes.
    """
    table = Table(game, players, seed=seed, options=options, deck=deck, policy=policy)
    try:
        table.start()
        if table.step() is not None:  # a bot at every seat: the table waits for nobody
            raise ValueError("play_match plays bots only: a seat waits for the network")
        table.finish()
    finally:
        table.close()
    state = table.state
    return MatchOutcome(
        state=state,
        scores=tuple(state.scores()),
        places=tuple(table.places()),
        forfeits=dict(sorted(table.forfeits.items())),
        decisions=tuple(table.decisions),
        decision_time=tuple(table.spent),
        fallback_decisions=tuple(table.fallback_decisions),
    )
