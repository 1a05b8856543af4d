"""What the tournament layer knows of a game (:class:`TournamentGame`), declared in one module
per game beside this one and gathered by :mod:`tournaments.games`.

Pure data and small functions: no ORM, no service, no Django (``tournaments/limits.py``, the
API's forms, the pages and the benches read it). Every field is required, so a game's module
says each choice once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: Every menu of amounts (Stoppa's bets, Sette e mezzo's stakes) lists one legal action per
#: amount, rebuilt or sent to every bot at each such decision (an external bot receives it
#: as JSON, a search bot branches on it): 200 amounts is about 6 KB of JSON.
MENU_MAX = 200

#: The most turns a match may run: what a replay carries (~35 bytes of JSON an action: 350 KB)
#: and what the players of an online match sit through. The other games stay under it by their
#: options' ceilings (measured at the largest table, random play: Stoppa ~1,900 actions at 50
#: hands, Sette e mezzo ~5,000 at 200 hands, Piazza ~800); Spacca il mazzo's games and
#: turn_limit are bounded together by it.
MATCH_TURNS_MAX = 10_000

#: The decks a match is played with (the pages name and draw its cards by it).
ITALIAN = "italian"
FRENCH = "french"


@dataclass(frozen=True)
class Bound:
    """An integer option's range in tournaments, and why."""

    low: int
    high: int
    why: str


@dataclass(frozen=True)
class EngineFigure:
    """bench/engine.py's figure for a game: the players at its table, the measure its target is
    set in (``"hands/s"`` or ``"decisions/s"``) and the target (shared/design/engine.md)."""

    players: int
    measure: str
    target: int


@dataclass(frozen=True)
class TournamentGame:
    """One game as the tournament service knows it.

    * ``name``: the engine's name; ``display_name``: the game's own name, the same in every
      language (the pages, the API's words);
    * ``option_bounds``: a ceiling (and floor) for every integer option, on top of the engine's
      own validation, each with why (the worst-case score is worked out next to them);
    * ``engine_bounded``: the options the engine's validation already bounds (a seat number, or
      a choice among a few values), accepted as the engine checks them, with what it accepts;
      together with ``option_bounds``: every engine option, once;
    * ``options_problem(options)``: a rule across options (a menu of amounts, a match's turns)
      on the full resolved option set, as a message, or None;
    * ``phases``: the phases a view names (``view["phase"]``, "over" aside): the values
      ismcts's ``delegate`` may list;
    * ``ismcts_iterations``: ismcts's ``iterations`` ceiling (about a second a decision at the
      largest table), or None where ismcts does not play the game;
    * ``counted_by``: the option that counts a match's deals (``hands``, ``games``), or None;
    * ``deck(options)``: which deck a match with ``options`` is played with (:data:`ITALIAN`,
      :data:`FRENCH`);
    * ``engine_figure``: bench/engine.py's table and target (:class:`EngineFigure`).
    """

    name: str
    display_name: str
    option_bounds: dict[str, Bound]
    engine_bounded: dict[str, str]
    options_problem: Callable[[Mapping[str, Any]], str | None]
    phases: tuple[str, ...]
    ismcts_iterations: int | None
    counted_by: str | None
    deck: Callable[[Mapping[str, Any] | None], str]
    engine_figure: EngineFigure


def no_problem(options: Mapping[str, Any]) -> None:
    """``options_problem`` for a game whose options have no rule across them."""
    return None


def italian(options: Mapping[str, Any] | None = None) -> str:
    """``deck`` for a game played with the Italian deck whatever its options."""
    return ITALIAN
