"""A finished match step by step, for the replay viewer: each step is one event of the engine's
log, said in words from one seat's point of view (or with every hand open), with the table as
that seat saw it once the event had happened.

The match is played again from its record (``engine.game(...).new_match`` and its actions, as
``engine.load`` does). Nothing but the engine's views is drawn, so a seat's point of view never
shows a card that seat did not see; "open hands" draws every seat as it saw itself. Which view
each step draws (the engine has one state per action, and an action may log many events):

* A step shows the table after the action that logged its event (the events logged before the
  first action, the deal, show it as dealt: what the first action saw).
* Except where that action ended a hand, or a stage of one, and began the next: its events
  before the next one's opening event (``opening``) show **the end of what ended**, and only the
  opening event and those after it the next, as dealt (as its first action found it):
  - a hand of Stoppa or Sette e mezzo, a game of Spacca il mazzo (opened by its ``hand`` or
    ``game`` event): the state the engine ends the match in when the match is cut after that
    hand, with the same seed, deck and actions and the hands (games) option set to that hand's
    number (the deals depend on the seed alone, EC-1: the same hand played the same way, whose
    log is the match's to the hand's end). Its view keeps the match's own count of hands and, in
    Stoppa, the hand's mazziere; nobody is to act.
  - a betting round of Stoppa followed by the next round's packets (its first ``deal``), and a
    turn of Piazza (its ``turn``; Piazza's hands go on from turn to turn): the state after the
    action without what the next one's opening did (``_undone``): the cards it dealt or drew,
    the figure it turned up, the round or turn its own; nobody is to act.

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


def _dealt(record: dict, options: dict | None = None, deck=None) -> engine.State:
    return engine.game(record["game"]).new_match(players=record["players"], seed=record["seed"],
                                                 options=record.get("options") if options is None else options,
                                                 deck=record.get("deck") if deck is None else deck)


# The option that counts each game's hands (Spacca il mazzo: its games), for the match cut
# after one of them.
COUNTED_BY = {"stoppa": "hands", "sette_e_mezzo": "hands", "spacca_il_mazzo": "games"}


def opening(game: str, log: list[dict], index: int) -> str | None:
    """What the event ``log[index]`` opens (module docstring): "hand" (a hand, Spacca il
    mazzo's game), "stage" (Stoppa's betting round, by its first packet; Piazza's turn), or None."""
    kind = log[index].get("type")
    if kind == "hand" and game in ("stoppa", "sette_e_mezzo") or kind == "game" and game == "spacca_il_mazzo":
        return "hand"
    if game == "piazza" and kind == "turn":
        return "stage"
    if game == "stoppa" and kind == "deal" and index and log[index - 1].get("type") not in ("deal", "ante"):
        return "stage"
    return None


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
    state = _dealt(record)
    actions = list(record.get("actions") or [])
    steps: list[Step] = []
    drawn: list[dict] = []
    told = 0  # events of the log looked at so far
    acted = 0  # actions applied so far
    while True:
        log = state.log
        # The events before the first action are the deal, as the first action found it.
        runs = segments(game, log, told) if acted else [(0, len(log), None)]
        for start, end, ended in runs:
            shown = range(max(start, first - 1), min(end, last))
            if not shown:
                continue
            if ended == "hand":
                view_of = _hand_end(record, state, acted, end)
            elif ended == "stage":
                view_of = _stage_end(state, end)
            else:
                view_of = state.view
            drawn.append(_table(view_of, state.players, players, seat, open_hands))
            for index in shown:
                event = log[index] if open_hands else seen_by(game, log[index], seat)
                steps.append(Step(index + 1, len(drawn) - 1, log[index].get("type", ""), teller.event(event)))
        told = len(log)
        if told >= last or acted >= len(actions):
            break
        state.apply(actions[acted])
        acted += 1
    return Part(total=total, first=first, steps=steps, tables=drawn, deck=teller.deck)


def _table(view_of, seats: int, players: list[str], seat: int, open_hands: bool) -> dict:
    """The table from the views ``view_of(seat)`` gives (None: a spectator's)."""
    if open_hands:
        return tables.open_hands([view_of(s) for s in range(seats)], view_of(None), players)
    return tables.layout(view_of(seat), players)


def _hand_end(record: dict, state: engine.State, acted: int, end: int):
    """The views at the end of the hand whose last event is ``state.log[end - 1]``, logged by
    the ``acted``-th action (module docstring): a function of the seat, as ``state.view``; the
    state's own where the match cut there cannot be had (it always can: the tests replay every
    game with many seeds)."""
    game = record["game"]
    log = state.log
    hand = sum(1 for index in range(end) if opening(game, log, index) == "hand")
    cut = _cut(record, hand, acted)
    if cut is None or len(cut.log) != end + 1 or any(
            mine.get("type") != theirs.get("type") for mine, theirs in zip(cut.log, log[:end])):
        return state.view
    count = COUNTED_BY[game]
    dealer = next((event.get("dealer") for event in reversed(log[:end]) if event.get("type") == "hand"), None)

    def view_of(seat):
        view = cut.view(seat)
        view[count] = state.view(seat)[count]  # the match's own count of hands, not the cut's
        if game == "stoppa":
            view["dealer"] = dealer  # the hand's mazziere (a match's end names none)
        return view

    return view_of


def _cut(record: dict, hands: int, acted: int) -> engine.State | None:
    """The match cut after its hand (game) number ``hands``: played by its first ``acted``
    actions, over once they are (None if it is not)."""
    game = record["game"]
    deck = record.get("deck")
    if isinstance(deck, (list, tuple)) and deck and not isinstance(deck[0], str):
        deck = list(deck)[:hands]  # the decks stacked for the hands it plays
    try:
        cut = _dealt(record, options={**(record.get("options") or {}), COUNTED_BY[game]: hands}, deck=deck)
        for action in record["actions"][:acted]:
            cut.apply(action)
    except (engine.IllegalAction, engine.InvalidOptions):
        return None
    return cut if cut.is_over() else None


def _stage_end(state: engine.State, end: int):
    """The views at the end of the stage (Stoppa's betting round, Piazza's turn) whose last
    event is ``state.log[end - 1]``: the state's after the action, without what the next
    stage's opening did (:func:`_undone`); the state's own where that holds anything else."""
    log = state.log
    after = log[end:]
    earlier = next((event for event in reversed(log[:end]) if event.get("type") == "turn"), {})
    return lambda seat: _undone(state.view(seat), after, earlier.get("lead")) or state.view(seat)


def _undone(view: dict, after: list[dict], lead: int | None) -> dict | None:
    """``view`` without the events ``after`` (a new stage's opening, each undone from the last):
    Stoppa's packets dealt (``deal``) and its betting round (``betting``); Piazza's new turn
    (``turn``: its number and lead, ``lead`` the ended turn's), the cards drawn by seats left
    without one (``draw``), the discards shuffled into a new stock (``reshuffle``) and the figure
    turned up (``figure``). Nobody is to act at a stage's end. None if ``after`` holds anything
    else."""
    game = view["game"]
    view = {**view, "current_player": None}
    view.pop("legal_actions", None)
    own = "cards" if game == "stoppa" else "hand"
    sizes = "counts" if game == "stoppa" else "hand_sizes"
    view[sizes] = list(view[sizes])
    if view.get(own) is not None:
        view[own] = list(view[own])
    for event in reversed(after):
        kind = event.get("type")
        if (game, kind) == ("stoppa", "deal"):
            view[sizes][event["seat"]] -= len(event["cards"])
            if event["seat"] == view["seat"]:
                for card in event["cards"]:
                    view[own].remove(card)
        elif (game, kind) == ("stoppa", "betting"):
            view["round"] = event["round"] - 1
            view.pop("betting", None)  # the ended round's bets are in the pot and the prize
            view.pop("round_cards", None)
        elif (game, kind) == ("piazza", "draw"):
            view["stock"] += 1
            view[sizes][event["seat"]] -= 1
            if event["seat"] == view["seat"]:
                view[own].remove(event["card"])
        elif (game, kind) == ("piazza", "reshuffle"):
            view.update(stock=view["stock"] - event["cards"], discards=view["discards"] + event["cards"])
        elif (game, kind) == ("piazza", "figure"):
            view.update(figure=None, modulus=0, figures_left=view["figures_left"] + 1)
        elif (game, kind) == ("piazza", "turn"):
            view.update(turn=view["turn"] - 1, lead=lead, phase="over")
        elif (game, kind) != ("piazza", "no_draw"):
            return None
    return view
