"""Leagues: seasons of periodic rounds, and divisions with promotion and relegation.

A league is a ladder of divisions, best first; each season every division plays its own stage
(any format of this package), one round per period (the service's Celery beat schedule asks for
the next round when ``season_schedule`` says it is due). At the season's end the bottom ``down``
of each division swap with the top ``up`` of the division below.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from .base import EntrantId, check_entrants, check_int


def league_divisions(ranked_entrants: Sequence[EntrantId], size: int
                     ) -> tuple[tuple[EntrantId, ...], ...]:
    """Cut a ranking (best first) into the fewest divisions of at most ``size``, sizes as even
    as possible (upper divisions take the extra entrant), best entrants in the top division."""
    check_int("size", size, 2)
    ranked = check_entrants(ranked_entrants)
    if not ranked:
        return ()
    count = -(-len(ranked) // size)
    base, extra = divmod(len(ranked), count)
    out, start = [], 0
    for d in range(count):
        n = base + (1 if d < extra else 0)
        out.append(ranked[start:start + n])
        start += n
    return tuple(out)


def promote_relegate(division_standings: Sequence[Sequence[EntrantId]], up: int, down: int
                     ) -> tuple[tuple[EntrantId, ...], ...]:
    """Next season's divisions from this season's final standings (divisions best first, each
    ranked best first): the top ``up`` of each division go up one, the bottom ``down`` go down
    one. In the new division, those relegated into it come first, then those who stayed (in
    their order), then those promoted into it, so the list is a fair seed order."""
    check_int("up", up, 0)
    check_int("down", down, 0)
    divisions = [check_entrants(d) for d in division_standings]
    check_entrants([e for d in divisions for e in d])
    for i, d in enumerate(divisions):
        moving = (up if i > 0 else 0) + (down if i < len(divisions) - 1 else 0)
        if moving > len(d):
            raise ValueError(f"up and down move {moving} entrants out of division {i + 1}, "
                             f"which has {len(d)}")
    out = []
    for i, d in enumerate(divisions):
        first = up if i > 0 else 0
        last = len(d) - (down if i < len(divisions) - 1 else 0)
        from_above = divisions[i - 1][len(divisions[i - 1]) - down:] if i > 0 and down else ()
        from_below = divisions[i + 1][:up] if i < len(divisions) - 1 else ()
        out.append(tuple(from_above) + tuple(d[first:last]) + tuple(from_below))
    return tuple(out)


def season_schedule(start: datetime, every: timedelta, rounds: int) -> tuple[datetime, ...]:
    """When each round of a season opens: ``rounds`` times, ``every`` apart from ``start``."""
    check_int("rounds", rounds, 1)
    if every <= timedelta(0):
        raise ValueError(f"every must be a positive interval, got {every}")
    return tuple(start + i * every for i in range(rounds))
