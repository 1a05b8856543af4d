"""An elimination tournament's bracket, laid out for an inline SVG (web/_bracket.html).

Single elimination is drawn as its tree: the bracket's slots in the standard seeding order
(formats.elimination.round_one, read back from round 1 as the format reads it), each round a
column of pairings joined to the pairing its winner goes to, the rounds not yet made drawn
empty. Who goes through a table is decided as the format decides it (``resolver``: the better
place, then score, then seed; a bye), from the tables whose outcome is public only
(selectors.outcome_public): a table still hidden sends nobody on.

Double elimination and the multi-table knockout are drawn as columns of the tables each round
made (double elimination: the winners' bracket above, the losers' below), without the lines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.utils.text import capfirst
from django.utils.translation import gettext, pgettext

from tournaments import formats, selectors
from tournaments.formats import elimination
from tournaments.models import Match, Player, Round, Tournament

from . import terms

BOX_WIDTH = 160
LINE_HEIGHT = 24
CAPTION = 18  # above a box: its table number and stage
GAP_X = 30  # between two columns: room for the connectors (six columns fit a desktop's width)
GAP_Y = 14
HEADER = 34  # the columns' names
BAND = 26  # the name of a double elimination's bracket, above its tables
NAME_CHARS = 16  # longer names are cut (the full name is the line's tooltip)


@dataclass
class Line:
    player: Player | None  # None: not decided yet
    score: int | None = None  # once the table's outcome is public
    advanced: bool = False  # won the table, or went through (once public)
    y: int = 0

    @property
    def name(self) -> str:
        text = str(self.player) if self.player is not None else "—"
        return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"


@dataclass
class Box:
    lines: list[Line]
    match: Match | None = None
    caption: str = ""
    bye: bool = False
    x: int = 0  # whole numbers: the template adds offsets to them with |add
    y: int = 0

    @property
    def height(self) -> int:
        return len(self.lines) * LINE_HEIGHT

    @property
    def middle(self) -> int:
        return self.y + self.height // 2


@dataclass
class Column:
    title: str
    boxes: list[Box] = field(default_factory=list)
    x: int = 0


@dataclass
class Bracket:
    columns: list[Column]
    connectors: list[str]  # SVG path data
    bands: list[tuple[str, int]]  # (name, y) of the double elimination's two brackets
    width: int
    height: int
    box_width: int = BOX_WIDTH
    line_height: int = LINE_HEIGHT

    @property
    def boxes(self) -> list[Box]:
        return [box for column in self.columns for box in column.boxes]


def tournament_bracket(tournament: Tournament) -> Bracket | None:
    """The tournament's bracket, or None: not an elimination format, or no round made yet."""
    if tournament.format not in terms.BRACKET_FORMATS:
        return None
    rounds = list(selectors.tournament_rounds(tournament))
    if not rounds or not rounds[0].matches.all():
        return None
    players = {seat.player_id: seat.player for rnd in rounds for m in rnd.matches.all() for seat in m.seats.all()}
    byes = {p for rnd in rounds for p in rnd.byes} - set(players)
    players.update(Player.objects.in_bulk(byes))
    if tournament.format == "single_elimination":
        return _tree(rounds, players, tournament.duplicate)
    return _columns(tournament, rounds, players)


# --- single elimination: the tree --------------------------------------------------------------

def _seeding(first: Round, duplicate: bool) -> list[int]:
    """The entrants in seed order, read back from round 1's tables and byes (in duplicate play,
    each group of rotated tables read as its first, as the format reads it)."""
    tables = tuple(formats.TableResult.unplayed([s.player_id for s in m.seats.all()]) for m in first.matches.all())
    issued = formats.RoundResult(1, tables, tuple(first.byes))
    return elimination.seeds_from_round_one(formats.merge_duplicates(issued) if duplicate else issued)


def _public_result(rnd: Round, duplicate: bool) -> formats.RoundResult:
    """The round as the bracket reads it: its byes, and only its tables whose outcome is public
    (in duplicate play, each group of rotated tables merged into one, as the format merges them)."""
    tables = []
    for match in rnd.matches.all():
        if selectors.outcome_public(match):
            seats = list(match.seats.all())
            tables.append(formats.TableResult(seats=tuple(s.player_id for s in seats),
                                              places=tuple(s.place for s in seats),
                                              scores=tuple(s.score for s in seats)))
    result = formats.RoundResult(rnd.number, tuple(tables), tuple(rnd.byes))
    return formats.merge_duplicates(result) if duplicate else result


def _scores(result: formats.RoundResult) -> dict[int, int]:
    """Each seated entrant's score in a (public) round result."""
    return {e: score for table in result.tables for e, score in zip(table.seats, table.game_scores)}


def _tree(rounds: list[Round], players: dict[int, Player], duplicate: bool) -> Bracket:
    seeds = _seeding(rounds[0], duplicate)
    seed = {e: i for i, e in enumerate(seeds)}
    slots: list[int | None] = elimination.round_one(seeds)[0]
    columns: list[Column] = []
    for number in range(1, int(math.log2(len(slots))) + 1):
        rnd = rounds[number - 1] if number <= len(rounds) else None
        by_entrant = {s.player_id: m for m in rnd.matches.all() for s in m.seats.all()} if rnd else {}
        result = _public_result(rnd, duplicate) if rnd else None
        play = elimination.resolver(result, seed) if result else None
        score = _scores(result) if result else {}
        column = Column(capfirst(terms.stage(elimination.round_label(len(slots))) or ""))
        winners: list[int | None] = []
        for a, b in zip(slots[0::2], slots[1::2]):
            match = by_entrant.get(a) or by_entrant.get(b)
            winner = play(a, b, "")[0] if play else None  # None: not decided, or not public yet
            winners.append(winner)
            bye = number == 1 and (a is None or b is None)
            entrants = [e for e in (a, b) if e is not None] if bye else [a, b]
            lines = [Line(players.get(e), score.get(e), advanced=e is not None and e == winner) for e in entrants]
            caption = gettext("Table %(n)s") % {"n": match.table} if match else (gettext("bye") if bye else "")
            column.boxes.append(Box(lines, match, caption, bye))
        columns.append(column)
        slots = winners
    champion = Column(gettext("Champion"), [Box([Line(players.get(slots[0]), advanced=slots[0] is not None)])])
    columns.append(champion)
    return _place_tree(columns)


def _place_tree(columns: list[Column]) -> Bracket:
    """Column r's k-th box sits level with the middle of the two boxes that feed it."""
    unit = 2 * LINE_HEIGHT + CAPTION + GAP_Y  # the height of a first-round pairing
    connectors = []
    for r, column in enumerate(columns):
        column.x = r * (BOX_WIDTH + GAP_X)
        span = unit * 2 ** min(r, len(columns) - 2)  # the champion sits level with the final
        for k, box in enumerate(column.boxes):
            middle = HEADER + span * (k + 0.5) + CAPTION / 2  # the caption sits above the box
            box.x, box.y = column.x, round(middle - box.height / 2)
            for i, line in enumerate(box.lines):
                line.y = box.y + i * LINE_HEIGHT
            if r:
                for child in columns[r - 1].boxes[2 * k: 2 * k + 2]:
                    turn = child.x + BOX_WIDTH + GAP_X / 2
                    connectors.append(f"M{child.x + BOX_WIDTH},{child.middle} H{turn} V{box.middle} H{box.x}")
    height = HEADER + unit * len(columns[0].boxes) + GAP_Y
    width = len(columns) * BOX_WIDTH + (len(columns) - 1) * GAP_X
    return Bracket(columns, connectors, [], width, height)


# --- double elimination and the multi-table knockout: the tables of each round -------------------

def _went_through(tournament: Tournament, rounds: list[Round], index: int, seed: dict[int, int]) -> set[int]:
    """Who went on from the round's public tables: each two-seat table's winner (double
    elimination's rule), or, in the multi-table knockout, whoever sits in the next round (or
    won the final table)."""
    if tournament.format == "double_elimination":
        result = _public_result(rounds[index], tournament.duplicate)
        return {elimination.table_winner(table, seed)[0] for table in result.tables}
    if index + 1 < len(rounds):
        following = rounds[index + 1]
        return {s.player_id for m in following.matches.all() for s in m.seats.all()} | set(following.byes)
    if rounds[index].status != Round.Status.FINISHED:
        return set()
    return {s.player_id for m in rounds[index].matches.all() for s in m.seats.all() if s.place == 1}


def _caption(match: Match) -> str:
    label = next((terms.stage(note) for note in match.notes if terms.stage(note)), None)
    table = gettext("Table %(n)s") % {"n": match.table}
    return f"{table} · {label}" if label else table


def _columns(tournament: Tournament, rounds: list[Round], players: dict[int, Player]) -> Bracket:
    double = tournament.format == "double_elimination"
    seed = {e: i for i, e in enumerate(_seeding(rounds[0], tournament.duplicate))} if double else {}
    columns: list[Column] = []
    lower_of: dict[int, list[Box]] = {}
    for index, rnd in enumerate(rounds):
        title = pgettext("bracket", "Round %(n)s") % {"n": rnd.number}
        column, lower = Column(title), []
        through = _went_through(tournament, rounds, index, seed)
        for match in rnd.matches.all():
            public = selectors.outcome_public(match)
            lines = [Line(s.player, s.score if public else None, advanced=public and s.player_id in through)
                     for s in match.seats.all()]
            box = Box(lines, match, _caption(match))
            losers = double and any(note.startswith("losers'") for note in match.notes)
            (lower if losers else column.boxes).append(box)
        if rnd.byes:
            column.boxes.append(Box([Line(players.get(p), advanced=True) for p in rnd.byes], caption=gettext("bye"),
                                    bye=True))
        columns.append(column)
        lower_of[index] = lower
    upper_top = HEADER + (BAND if double else 0)
    upper_height = max(_stack_height(c.boxes) for c in columns)
    lower_height = max((_stack_height(boxes) for boxes in lower_of.values()), default=0)
    lower_top = upper_top + upper_height + BAND
    for index, column in enumerate(columns):
        column.x = index * (BOX_WIDTH + GAP_X)
        _stack(column.boxes, column.x, upper_top)
        _stack(lower_of[index], column.x, lower_top)
        column.boxes.extend(lower_of[index])
    bands = []
    height = upper_top + upper_height
    if double:
        bands = [(terms.stage("winners' bracket"), upper_top - 8)]
        if lower_height:
            bands.append((terms.stage("losers' bracket"), lower_top - 8))
            height = lower_top + lower_height
    width = len(columns) * BOX_WIDTH + (len(columns) - 1) * GAP_X
    return Bracket(columns, [], bands, width, height)


def _stack_height(boxes: Sequence[Box]) -> int:
    return sum(CAPTION + box.height + GAP_Y for box in boxes)


def _stack(boxes: Sequence[Box], x: int, top: int) -> None:
    y = top
    for box in boxes:
        box.x, box.y = x, y + CAPTION
        for i, line in enumerate(box.lines):
            line.y = box.y + i * LINE_HEIGHT
        y += CAPTION + box.height + GAP_Y
