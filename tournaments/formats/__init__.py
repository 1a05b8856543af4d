"""Tournament formats as pure functions: entrants, history and a seeded rng in; tables out.

    fmt = make_format("swiss", seats=4, rounds=5)
    rnd = fmt.next_round(entrants, history, random.Random(seed))   # None: the stage is over

No Django here (shared/design/architecture.md); see docs/formats.md for each format's rules and
guarantees.
"""

from __future__ import annotations

from .base import EntrantId, Format, Round, RoundResult, Scoring, Table, TableResult, duplicate_round, merge_duplicates
from .elimination import DoubleElimination, SingleElimination
from .knockout import MultiTableKnockout
from .league import league_divisions, promote_relegate, season_schedule
from .round_robin import RoundRobin
from .swiss import Swiss

FORMATS: dict[str, type[Format]] = {
    cls.name: cls
    for cls in (RoundRobin, Swiss, SingleElimination, DoubleElimination, MultiTableKnockout)
}


def make_format(name: str, **config: object) -> Format:
    """A configured format; unknown names and settings raise ValueError naming them."""
    try:
        cls = FORMATS[name]
    except KeyError:
        raise ValueError(f"format must be one of {sorted(FORMATS)}, got {name!r}") from None
    import dataclasses

    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ValueError(f"{name} has no setting {unknown[0]!r}; settings: {sorted(known)}")
    return cls(**config)


__all__ = [
    "FORMATS", "DoubleElimination", "EntrantId", "Format", "MultiTableKnockout", "Round",
    "RoundResult", "RoundRobin", "Scoring", "SingleElimination", "Swiss", "Table", "TableResult",
    "duplicate_round", "league_divisions", "make_format", "merge_duplicates",
    "promote_relegate", "season_schedule",
]
