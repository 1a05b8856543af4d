"""Play a format to its end with made-up results, the way the service would."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from tournaments.formats import Format, Round, RoundResult, TableResult

Decide = Callable[[tuple[int, ...], random.Random], tuple[int, ...]]


def random_places(seats: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """A random finishing order, no ties."""
    order = rng.sample(range(1, len(seats) + 1), len(seats))
    return tuple(order)


def best_seed_wins(seats: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """Entrant ids are their seeds here: the lower id always finishes better."""
    ranking = sorted(seats)
    return tuple(ranking.index(e) + 1 for e in seats)


def result_of(rnd: Round, decide: Decide, rng: random.Random) -> RoundResult:
    tables = []
    for table in rnd.tables:
        places = decide(table.seats, rng)
        scores = tuple(10 * (len(places) - p) for p in places)
        tables.append(TableResult(seats=table.seats, places=places, scores=scores))
    return RoundResult(number=rnd.number, tables=tuple(tables), byes=rnd.byes)


def play_out(fmt: Format, entrants: Sequence[int], seed: int = 0,
             decide: Decide = random_places, max_rounds: int = 500,
             withdraw: dict[int, Sequence[int]] | None = None,
             stop_after: int | None = None,
             ) -> tuple[list[Round], list[RoundResult]]:
    """Every round the format issues and its result, until it says the stage is over (or
    ``stop_after`` rounds are played). ``withdraw`` maps a round number to entrants who leave
    before it."""
    rng = random.Random(seed)
    results_rng = random.Random(seed + 1)
    field = list(entrants)
    rounds: list[Round] = []
    history: list[RoundResult] = []
    for _ in range(max_rounds):
        if stop_after is not None and len(history) == stop_after:
            return rounds, history
        for e in (withdraw or {}).get(len(history) + 1, ()):
            field.remove(e)
        rnd = fmt.next_round(field, history, rng)
        if rnd is None:
            return rounds, history
        check_round_is_well_formed(rnd, field)
        rounds.append(rnd)
        history.append(result_of(rnd, decide, results_rng))
    raise AssertionError("the format never finished")


def check_round_is_well_formed(rnd: Round, field: Sequence[int]) -> None:
    # In duplicate play the same entrants sit at one table per seat rotation: count them once.
    groups = {frozenset(t.seats): t for t in rnd.tables}.values()
    seated = [e for t in groups for e in t.seats] + list(rnd.byes)
    assert len(seated) == len(set(seated)), "an entrant is seated twice"
    assert set(seated) <= set(field), "a withdrawn or unknown entrant is seated"


def still_in(entrants: Sequence[int], withdraw: dict[int, Sequence[int]] | None,
             played: int) -> list[int]:
    """The entrants who have not withdrawn by the time ``played`` rounds are over (what the
    service passes the format as its entrants then)."""
    gone = {e for number, left in (withdraw or {}).items() if number <= played + 1 for e in left}
    return [e for e in entrants if e not in gone]


def furthest_first(reached: dict) -> list[int]:
    """Entrants by how far they went in the bracket, furthest first; level ones in id order."""
    return sorted(sorted(reached), key=lambda e: reached[e].key, reverse=True)


def last_table(history: Sequence[RoundResult]) -> dict[int, int]:
    """The number of the last round in which each entrant sat at a table."""
    last = {}
    for number, rnd in enumerate(history, start=1):
        for table in rnd.tables:
            for e in table.seats:
                last[e] = number
    return last


def standings_input(history: Sequence[RoundResult]):
    """The tables and byes of ``history`` as tournaments.standings takes them."""
    from tournaments import standings

    tables = [standings.TableResult(t.seats, t.places, t.scores) for r in history for t in r.tables]
    return tables, [e for r in history for e in r.byes]
