"""Rating one match, and replaying a whole ladder from its history.

Both are pure: ratings and places in, new ratings and ledger lines out. The service applies one
match at a time, serialised per ladder, in the order of each match's ``order_key`` (for example
``(finished_at, match_id)``); ``replay_ladder`` rebuilds the same ledger from the history alone,
bit for bit, whatever order the history is handed over in.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .base import PlayerId, Rating, RatingChange
from .elo import EloSystem
from .plackett_luce import PlackettLuceSystem

RatingSystem = EloSystem | PlackettLuceSystem

SYSTEMS: dict[str, type] = {EloSystem.name: EloSystem, PlackettLuceSystem.name: PlackettLuceSystem}

# The name openskill's ladders were stored under until migration 0012 renamed them: read by the
# migrations before it, never accepted from a caller.
STORED_NAMES = {"openskill_plackett_luce": PlackettLuceSystem.name}


def system_from_json(data: Mapping[str, Any]) -> RatingSystem:
    """The configuration ``system.to_json()`` wrote; an unknown system or parameter is an error."""
    name = data.get("system")
    name = STORED_NAMES.get(name, name)
    if name not in SYSTEMS:
        raise ValueError(f"unknown rating system {name!r}; known: {', '.join(sorted(SYSTEMS))}")
    return SYSTEMS[name].from_json({**data, "system": name})


def rate_match(
    system: RatingSystem, ratings: Mapping[PlayerId, Rating], places: Mapping[PlayerId, int]
) -> list[RatingChange]:
    """Rate one table: every player in ``places`` gets one change, in (place, player) order.

    ``places`` maps each seat's player to its finishing place, 1 first; equal places are a tie.
    Only the order of places matters (1, 1, 3 and 1, 1, 2 rate alike). A player missing from
    ``ratings`` starts from the system's initial rating. The result does not depend on the order
    of either mapping: the table is put in canonical (place, player) order first.
    """
    if len(places) < 2:
        raise ValueError(f"a rated match needs at least two players, got {len(places)}")
    for player, place in places.items():
        if isinstance(place, bool) or not isinstance(place, int) or place < 1:
            raise ValueError(f"player {player}: place must be a whole number ≥ 1, not {place!r}")
    initial = system.initial_rating()
    table = [(player, ratings.get(player, initial), places[player]) for player in places]
    table.sort(key=lambda seat: (seat[2], seat[0]))
    return system.rate(table)


@dataclass(frozen=True)
class RatedMatch:
    """One match's lines of the ledger, under the order key the service gave it."""

    order_key: Any
    changes: tuple[RatingChange, ...]


def replay_ladder(
    system: RatingSystem,
    matches: Iterable[tuple[Hashable, Mapping[PlayerId, int]]],
    initial: Mapping[PlayerId, Rating] | None = None,
) -> tuple[dict[PlayerId, Rating], list[RatedMatch]]:
    """Apply every match in ascending ``order_key`` and return (final ratings, ledger).

    ``matches`` are ``(order_key, places)`` pairs; order keys must be distinct and comparable
    (e.g. ``(finished_at, match_id)``), because two matches with one key have no canonical
    order. ``initial`` gives ratings to start from (players not in it start from the system's
    initial rating). The final ratings are keyed in ascending player order.
    """
    ordered = sorted(matches, key=lambda match: match[0])
    for earlier, later in zip(ordered, ordered[1:]):
        if not earlier[0] < later[0]:
            raise ValueError(f"two matches share the order key {later[0]!r}: their order is ambiguous")
    ratings: dict[PlayerId, Rating] = dict(initial or {})
    ledger = []
    for order_key, places in ordered:
        changes = rate_match(system, ratings, places)
        for change in changes:
            ratings[change.player] = change.after
        ledger.append(RatedMatch(order_key, tuple(changes)))
    return dict(sorted(ratings.items())), ledger
