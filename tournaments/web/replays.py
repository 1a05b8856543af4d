"""A finished match step by step, for the replay viewer: each step is one event of the engine's
log, said in words from one seat's point of view (or with every hand open), with the table as
that seat saw it once the event had happened.

The match is played again from its record at a :class:`bots.table.Table` (every seat
:data:`~bots.table.NETWORK`: the record's seed, options and deck, each recorded action through
``Table.act``), and its steps are the engine's log as the table tells it, the :class:`Logged`
events of its stream (read after each move with ``Table.events_since``): what a seat or a
spectator was told as the match was played. Nothing but the engine's views is drawn, so a
seat's point of view never shows a card that seat did not see; "open hands" draws every seat
as it saw itself. Which view each step draws (the engine has one state per action, and an
action may log many events):

* A step shows the table after the action that logged its event (the events logged before the
  first action, the deal, show it as dealt: what the first action saw).
* Except where that action ended a hand, or a stage of one, and began the next: its events
  before the next one's opening event (the game's ``opens``) show **the end of what ended**,
  and only the opening event and those after it the next, as dealt (as its first action found
  it):
  - a hand of Stoppa or Sette e mezzo, a game of Spacca il mazzo (opened by its ``hand`` or
    ``game`` event): the state the engine ends the match in when the match is cut after that
    hand, with the same seed, deck and actions and the hands (games) option set to that hand's
    number (the deals depend on the seed alone, EC-1: the same hand played the same way, whose
    log is the match's to the hand's end). Its view keeps the match's own count of hands and, in
    Stoppa, the hand's mazziere; nobody is to act.
  - a betting round of Stoppa followed by the next round's packets (its first ``deal``), and a
    turn of Piazza (its ``turn``; Piazza's hands go on from turn to turn): the state after the
    action without what the next one's opening did (``_undone``, by the game's ``undo``): the
    cards it dealt or drew, the figure it turned up, the round or turn its own; nobody is to
    act.

What each game means by these (which event opens a hand or a stage, what its cut match's view
says otherwise than the hand's end, how a stage's opening is undone) is the game's
:class:`~tournaments.web.games.base.WebGame` (tournaments/web/games/<game>.py); the option that
counts its hands is tournaments.games' ``counted_by``. This module names no game.

A long match (a Spacca il mazzo game has about a thousand events, two hundred hands of Sette e
mezzo some ten thousand) is cut in parts of ``PART_STEPS`` steps: a page carries one part's
tables, and its script moves to the next part's page at the part's end. The match is replayed
to the end of the part asked for, and tables are drawn only for that part's steps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import engine
from bots.table import NETWORK, Logged, Table
from tournaments import games as tournament_games

from . import cards, games, tables
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


def _dealt(record: dict, options: dict | None = None, deck=None) -> engine.State:
    return engine.game(record["game"]).new_match(players=record["players"], seed=record["seed"],
                                                 options=record.get("options") if options is None else options,
                                                 deck=record.get("deck") if deck is None else deck)


def opening(game: str, log: list[dict], index: int) -> str | None:
    """What the event ``log[index]`` opens (module docstring): "hand" (a hand, Spacca il
    mazzo's game), "stage" (Stoppa's betting round, by its first packet; Piazza's turn), or
    None: the game's ``opens`` (tournaments/web/games/)."""
    return games.get(game).opens(log, index)


def steps_in_all(record: dict) -> int:
    """How many events the match's log holds: the replay's steps."""
    return len(engine.load(record).log)


def segments(game: str, log: list[dict], start: int) -> list[tuple[int, int, str | None]]:
    """The events one action logged (``log[start:]``) in runs that each show one table:
    (first, end, ended), ``ended`` what the run's end closed ("hand", "stage": the next event
    opens another) or None for the last run."""
    runs, first = [], start
    for index in range(start, len(log)):
        kind = opening(game, log, index)
        if kind is not None and index > first:
            runs.append((first, index, kind))
            first = index
        elif kind is not None:
            first = index
    if first < len(log):
        runs.append((first, len(log), None))
    return runs


def part(record: dict, players: list[str], *, seat: int, open_hands: bool, step: int | None) -> Part:
    """The part of the replay holding ``step`` (clamped to the match; None: the last step),
    from ``seat``'s point of view or with every hand open."""
    total = steps_in_all(record)
    step = min(max(1, total if step is None else step), max(1, total))
    first = (step - 1) // PART_STEPS * PART_STEPS + 1
    last = min(total, first + PART_STEPS - 1)
    game = record["game"]
    teller = Teller(game, cards.deck_of(game, record.get("options")))
    table = Table(game, [NETWORK] * record["players"], seed=record["seed"], options=record.get("options"),
                  deck=record.get("deck"))
    actions = list(record.get("actions") or [])
    steps: list[Step] = []
    drawn: list[dict] = []
    log: list[dict] = []  # the engine's log as the table told it (its Logged events) so far
    told = 0  # what the table had told when last heard (Table.told)
    acted = 0  # actions applied so far
    while True:
        start = len(log)
        log += [said.event for said in table.events_since(told) if type(said) is Logged]
        told = table.told
        state = table.state
        # The events before the first action are the deal, as the first action found it.
        runs = segments(game, log, start) if acted else [(0, len(log), None)]
        for start, end, ended in runs:
            shown = range(max(start, first - 1), min(end, last))
            if not shown:
                continue
            if ended == "hand":
                view_of = _hand_end(record, state, log, acted, end)
            elif ended == "stage":
                view_of = _stage_end(game, state, log, end)
            else:
                view_of = state.view
            drawn.append(_table(view_of, table.seats, players, seat, open_hands))
            for index in shown:
                event = log[index] if open_hands else seen_by(game, log[index], seat)
                steps.append(Step(index + 1, len(drawn) - 1, log[index].get("type", ""), teller.event(event)))
        if len(log) >= last or acted >= len(actions):
            break
        table.act(table.awaited(), actions[acted])  # a recorded action, by the seat whose turn it was
        acted += 1
    return Part(total=total, first=first, steps=steps, tables=drawn, deck=teller.deck)


def _table(view_of, seats: int, players: list[str], seat: int, open_hands: bool) -> dict:
    """The table from the views ``view_of(seat)`` gives (None: a spectator's)."""
    if open_hands:
        return tables.open_hands([view_of(s) for s in range(seats)], view_of(None), players)
    return tables.layout(view_of(seat), players)


def _hand_end(record: dict, state: engine.State, log: list[dict], acted: int, end: int):
    """The views at the end of the hand whose last event is ``log[end - 1]`` (``log``: what the
    table told of the engine's log), logged by the ``acted``-th action (module docstring): a
    function of the seat, as ``state.view``; the state's own where the match cut there cannot
    be had (it always can: the tests replay every game with many seeds)."""
    game = record["game"]
    count = tournament_games.get(game).counted_by
    if count is None:
        return state.view
    hand = sum(1 for index in range(end) if opening(game, log, index) == "hand")
    cut = _cut(record, count, hand, acted)
    if cut is None or len(cut.log) != end + 1 or any(
            mine.get("type") != theirs.get("type") for mine, theirs in zip(cut.log, log[:end])):
        return state.view
    hand_end = games.get(game).hand_end

    def view_of(seat):
        view = cut.view(seat)
        view[count] = state.view(seat)[count]  # the match's own count of hands, not the cut's
        hand_end(view, log, end)  # what else the cut's view says otherwise than the hand's (Stoppa: its mazziere)
        return view

    return view_of


def _cut(record: dict, count: str, hands: int, acted: int) -> engine.State | None:
    """The match cut after its hand (game) number ``hands`` (the option ``count`` set to it):
    played by its first ``acted`` actions, over once they are (None if it is not)."""
    deck = record.get("deck")
    if isinstance(deck, (list, tuple)) and deck and not isinstance(deck[0], str):
        deck = list(deck)[:hands]  # the decks stacked for the hands it plays
    try:
        cut = _dealt(record, options={**(record.get("options") or {}), count: hands}, deck=deck)
        for action in record["actions"][:acted]:
            cut.apply(action)
    except (engine.IllegalAction, engine.InvalidOptions):
        return None
    return cut if cut.is_over() else None


def _stage_end(game: str, state: engine.State, log: list[dict], end: int):
    """The views at the end of the stage (Stoppa's betting round, Piazza's turn) whose last
    event is ``log[end - 1]``: the state's after the action, without what the next stage's
    opening did (:func:`_undone`); the state's own where that holds anything else."""
    return lambda seat: _undone(games.get(game), state.view(seat), log, end) or state.view(seat)


def _undone(web: games.WebGame, view: dict, log: list[dict], end: int) -> dict | None:
    """``view`` without the events ``log[end:]`` (a new stage's opening, each undone from the
    last by the game's ``undo``: Stoppa's packets dealt and its betting round; Piazza's new
    turn, the cards drawn by seats left without one, the discards shuffled into a new stock and
    the figure turned up). Nobody is to act at a stage's end. None if the game cannot undo one
    of them."""
    view = {**view, "current_player": None}
    view.pop("legal_actions", None)
    for held in web.held:  # the lists undo changes: the view's own copies
        if view.get(held) is not None:
            view[held] = list(view[held])
    for event in reversed(log[end:]):
        if not web.undo(view, event, log, end):
            return None
    return view
