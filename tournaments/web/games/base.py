"""What a game's module of tournaments/web/games/ declares (:class:`WebGame`), and the helpers its
table and its words share: numbers with their sign, seats as the pages number them, piles.

A layout (tables.py), the narration (narration.py) and the replay's steps (replays.py) are the
same for every game but for what the game's module says. Every field of :class:`WebGame` is
required.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

MINUS = "\u2212"  # as the pages write a negative number
MAZZIERE = "mazziere"  # the dealer of Stoppa, the banker of Sette e mezzo: the game's own word

#: Says an event or an action in words: ``(teller, event or action) -> str``; the teller
#: (narration.Teller) names the match's cards (``card``, ``cards``, ``rank``).
Say = Callable[[Any, dict], str]

#: What the event ``log[index]`` opens for the replay (replays.py): ``"hand"`` (a hand, or what
#: the game counts its deals in: Spacca il mazzo's game), ``"stage"`` (a part of a hand whose end
#: the replay draws: Stoppa's betting round, Piazza's turn) or None: ``(log, index) -> str | None``.
Opens = Callable[[Sequence[dict], int], str | None]

#: Fixes, in place, a seat's view of the match cut after a hand (replays.py: how a hand's end is
#: drawn) where the cut's differs from the hand's own: ``(view, log, end)``, ``log[end - 1]`` the
#: hand's last event.
HandEnd = Callable[[dict, Sequence[dict], int], None]

#: Undoes, in place, one event of a stage's opening in a seat's view after the action that
#: logged it (replays.py: how a stage's end is drawn): ``(view, event, log, end) -> bool``,
#: ``log[end - 1]`` the ended stage's last event; False for an event it cannot undo.
Undo = Callable[[dict, dict, Sequence[dict], int], bool]


@dataclass(frozen=True)
class WebGame:
    """One game on the pages.

    * ``name``: the engine's;
    * ``layout(view, table)``: fills the table tables.layout starts (facts, centre, each seat's
      badges, notes and piles) from a seat's (or a spectator's) view alone;
    * ``events``: event type -> its words (``Say``); the types every game shares (``pass``,
      ``raise``, ``stake``, ``match_over``) are narration.Teller's own unless listed here;
    * ``actions``: action type -> what its button says; ``pass``, ``stake`` and ``raise`` are
      narration's unless listed here;
    * ``hidden``: event type -> the fields only some seats see (docs/games/, "Log events");
    * ``private(event)``: for an event of a type in ``hidden``, the seats that see it whole,
      or None when this one is public after all (:func:`seat_only`: its own seat);

    and how the replay (replays.py) cuts the log into the tables it draws:

    * ``opens(log, index)``: what the event opens, a ``"hand"``, a ``"stage"`` or None
      (:data:`Opens`); a hand is cut by the option tournaments.games' ``counted_by`` names;
    * ``hand_end(view, log, end)``: fixes a view of the match cut after a hand where it is not
      the hand's own (:data:`HandEnd`; :func:`same_hand_end`: nothing to fix);
    * ``undo(view, event, log, end)``: undoes one event of a stage's opening (:data:`Undo`;
      :func:`undo_nothing` for a game without stages);
    * ``held``: the view's list fields ``undo`` changes in place (a seat's own cards, every
      seat's count of them), copied before it does; () for a game without stages.
    """

    name: str
    layout: Callable[[dict, dict], None]
    events: Mapping[str, Say]
    actions: Mapping[str, Say]
    hidden: Mapping[str, tuple[str, ...]]
    private: Callable[[dict], tuple[int, ...] | None]
    opens: Opens
    hand_end: HandEnd
    undo: Undo
    held: tuple[str, ...]


def seat_only(event: dict) -> tuple[int, ...] | None:
    """``private`` for a game whose private parts are seen by the event's own seat alone."""
    return (event.get("seat"),)


def same_hand_end(view: dict, log: Sequence[dict], end: int) -> None:
    """``hand_end`` for a game whose cut match's view is the hand's end as it is."""


def undo_nothing(view: dict, event: dict, log: Sequence[dict], end: int) -> bool:
    """``undo`` for a game without stages: nothing is undone."""
    return False


# --- numbers and seats -----------------------------------------------------------------------

def signed(n: int | float | None) -> str:
    """A score or a payment with its sign: +5, −3 (a real minus sign), 0."""
    if n is None:
        return "—"
    if n > 0:
        return f"+{n}"
    return f"{MINUS}{-n}" if n < 0 else "0"


def half_points(value: int) -> str:
    """Sette e mezzo's values are kept in half points (15 is 7½)."""
    whole, half = divmod(int(value), 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def seat_label(position: int) -> str:
    """A seat as the pages number it: from 1 (the engine and the API count from 0)."""
    return _("Seat %(n)s") % {"n": position + 1}


def seat_no(position) -> int:
    """A seat as the pages number it, from 1."""
    return int(position) + 1


def per_seat(values, show=str) -> str:
    """A value per seat in words, "seat 1: +5, seat 2: −3" (a None left out)."""
    return ", ".join(_("seat %(n)s: %(what)s") % {"n": position + 1, "what": show(value)}
                     for position, value in enumerate(values) if value is not None)


def seat_list(positions) -> str:
    """Seats in words, "1, 3, 4"."""
    return ", ".join(str(seat_no(p)) for p in positions)


def pile(label: str, codes=(), backs: int = 0, note: str = "") -> dict:
    """A row of cards: its label, the codes face up, how many face down, a note beside it."""
    return {"label": label, "cards": list(codes), "backs": int(backs or 0), "note": note}
