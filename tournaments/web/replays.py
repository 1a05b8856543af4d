"""A finished match step by step, for the replay viewer: each step is one event of the engine's
log, said in words from one seat's point of view (or with every hand open), with the table as
that seat saw it once the event had happened.

The match is played again from its record (``engine.game(...).new_match`` and its actions, as
``engine.load`` does), and the table at each step is the engine's ``view(seat)`` after the
action that made the event (events before the first action: the view as dealt). Nothing but
the engine's views is drawn, so a seat's point of view never shows a card that seat did not
see; "open hands" draws every seat as it saw itself.

A long match (a Spacca il mazzo game has about a thousand events, two hundred hands of Sette e
mezzo some ten thousand) is cut in parts of ``PART_STEPS`` steps: a page carries one part's
tables, and its script moves to the next part's page at the part's end. The match is replayed
to the end of the part asked for, and tables are drawn only for that part's steps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import engine

from . import cards, tables
from .narration import Teller, seen_by

PART_STEPS = 250


@dataclass(frozen=True)
class Step:
    """One event of the log: its number (from 1), the table drawn for it (an index into the
    part's ``tables``), its type and what it says."""

    number: int
    table: int
    kind: str
    said: str


@dataclass(frozen=True)
class Part:
    """The steps of one part of a replay and the tables they show."""

    total: int  # steps in the whole match: the engine's log
    first: int  # the number of this part's first step
    steps: list[Step]
    tables: list[dict]  # tables.layout of each action whose events are among the steps
    deck: str

    @property
    def last(self) -> int:
        return self.first + len(self.steps) - 1

    @property
    def number(self) -> int:
        return (self.first - 1) // PART_STEPS + 1

    @property
    def parts(self) -> int:
        return max(1, -(-self.total // PART_STEPS))

    def data(self) -> dict:
        """What the page's script reads (a <script type="application/json"> block): the table
        of each step, and how to draw each card. A seat or a row of facts that looks the same
        at many steps (most do: one seat acts at a time) is written once, in ``pool``, and
        each table names its parts by their index there: a part's data is a third as long."""
        pool: list = []
        known: dict[str, int] = {}

        def once(part) -> int:
            key = json.dumps(part, sort_keys=True)
            if key not in known:
                known[key] = len(pool)
                pool.append(part)
            return known[key]

        tables = [{"facts": once(table["facts"]), "centre": once(table["centre"]),
                   "seats": [once(seat) for seat in table["seats"]], "turn": table["turn"]}
                  for table in self.tables]
        return {"first": self.first, "total": self.total, "steps": [step.table for step in self.steps],
                "tables": tables, "pool": pool, "faces": cards.faces(self.deck)}


def _dealt(record: dict) -> engine.State:
    return engine.game(record["game"]).new_match(players=record["players"], seed=record["seed"],
                                                 options=record.get("options"), deck=record.get("deck"))


def steps_in_all(record: dict) -> int:
    """How many events the match's log holds: the replay's steps."""
    return len(engine.load(record).log)


def part(record: dict, players: list[str], *, seat: int, open_hands: bool, step: int | None) -> Part:
    """The part of the replay holding ``step`` (clamped to the match; None: the last step),
    from ``seat``'s point of view or with every hand open."""
    total = steps_in_all(record)
    step = min(max(1, total if step is None else step), max(1, total))
    first = (step - 1) // PART_STEPS * PART_STEPS + 1
    last = min(total, first + PART_STEPS - 1)
    game = record["game"]
    teller = Teller(game, cards.deck_of(game, record.get("options")))
    state = _dealt(record)
    actions = iter(record.get("actions") or [])
    steps: list[Step] = []
    drawn: list[dict] = []
    told = 0  # events of the log looked at so far
    while True:
        log = state.log
        if len(log) >= first and told < last:  # this action's events reach into the part
            shown = range(max(told, first - 1), min(len(log), last))
            if shown:
                drawn.append(_table(state, players, seat, open_hands))
                for index in shown:
                    event = log[index] if open_hands else seen_by(game, log[index], seat)
                    steps.append(Step(index + 1, len(drawn) - 1, log[index].get("type", ""), teller.event(event)))
        told = len(log)
        if told >= last:
            break
        action = next(actions, None)
        if action is None:
            break
        state.apply(action)
    return Part(total=total, first=first, steps=steps, tables=drawn, deck=teller.deck)


def _table(state: engine.State, players: list[str], seat: int, open_hands: bool) -> dict:
    if open_hands:
        return tables.open_hands([state.view(s) for s in range(state.players)], state.view(None), players)
    return tables.layout(state.view(seat), players)
