"""What a game's module of tournaments/web/games/ declares (:class:`WebGame`), and the helpers its
table and its words share: numbers with their sign, seats as the pages number them, piles.

A layout (tables.py) and the narration (narration.py) are the same for every game but for
what the game's module says. Every field of :class:`WebGame` is required.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

MINUS = "\u2212"  # as the pages write a negative number
MAZZIERE = "mazziere"  # the dealer of Stoppa, the banker of Sette e mezzo: the game's own word

#: Says an event or an action in words: ``(teller, event or action) -> str``; the teller
#: (narration.Teller) names the match's cards (``card``, ``cards``, ``rank``).
Say = Callable[[Any, dict], str]


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
      or None when this one is public after all (:func:`seat_only`: its own seat).
    """

    name: str
    layout: Callable[[dict, dict], None]
    events: Mapping[str, Say]
    actions: Mapping[str, Say]
    hidden: Mapping[str, tuple[str, ...]]
    private: Callable[[dict], tuple[int, ...] | None]


def seat_only(event: dict) -> tuple[int, ...] | None:
    """``private`` for a game whose private parts are seen by the event's own seat alone."""
    return (event.get("seat"),)


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
