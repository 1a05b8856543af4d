"""The table as a seat sees it, laid out for the pages: built from the engine's ``view(seat)``
alone (shared/design/engine.md), so a page never draws a card the seat may not see.

A layout is plain JSON-ready data, the same for every game, drawn by
templates/web/_play_table.html on the server and again by static/web/replay.js in the browser:

* ``facts``: ``[label, value]`` pairs about the deal (the hand, the mazziere, the pot…);
* ``centre``: the piles in the middle of the table (Piazza's figure, Spacca il mazzo's pile,
  the last cards laid in the stoppa);
* ``seats``: one per seat, in seat order: its number, player, badges (``mazziere``, a place),
  notes (its stake, its status), its piles (cards face up, and ``backs``: how many face down),
  its score and whether it is the reader's seat;
* ``turn``: the seat to act, or None.

Every word is in the reader's language; the games' own terms (mazziere, matta, stoppa, emblée,
triplé, rivolta, prendo) stay as they are. What each game adds to the table is its module's
``layout`` (tournaments/web/games/<game>.py).
"""

from __future__ import annotations

from . import cards, games
from .games.base import seat_label, signed


def _seat(view: dict, position: int, players: list[str], you: int | None) -> dict:
    scores = view.get("scores") or []
    return {
        "seat": position,
        "title": seat_label(position),
        "player": players[position] if position < len(players) else "",
        "badges": [],
        "notes": [],
        "piles": [],
        "score": signed(scores[position]) if position < len(scores) else "",
        "you": position == you,
    }


def layout(view: dict, players: list[str]) -> dict:
    """The table of ``view`` (one seat's, or a spectator's when its ``seat`` is None)."""
    declared = games.GAMES.get(view.get("game"))
    build = declared.layout if declared is not None else None
    you = view.get("seat")
    seats = [_seat(view, position, players, you) for position in range(view.get("players", len(players)))]
    table = {"facts": [], "centre": [], "seats": seats, "turn": view.get("current_player")}
    if build is not None:
        build(view, table)
    return table


def open_hands(views: list[dict], public: dict, players: list[str]) -> dict:
    """Every hand open: the spectator's table, each seat drawn as it sees itself (its own view).
    Only for a match whose outcome is public (the replay)."""
    table = layout(public, players)
    table["seats"] = [layout(view, players)["seats"][position] for position, view in enumerate(views)]
    for seat in table["seats"]:
        seat["you"] = False
    return table


def codes(table: dict) -> set[str]:
    """Every card a layout draws face up (the tests compare them with the engine's view)."""
    found = set()
    for group in [table["centre"]] + [seat["piles"] for seat in table["seats"]]:
        for one in group:
            found.update(one["cards"])
    return found


def drawn(table: dict, deck: str) -> dict:
    """The layout with each card code turned into the card to draw (cards.Card), for the
    templates; the JSON the replay's script reads keeps the codes."""
    def faces(one: dict) -> dict:
        return {**one, "cards": [cards.card(code, deck) for code in one["cards"]]}

    return {**table, "centre": [faces(one) for one in table["centre"]],
            "seats": [{**seat, "piles": [faces(one) for one in seat["piles"]]} for seat in table["seats"]]}
