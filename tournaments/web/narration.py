"""The engine's events and actions in words, in the reader's language: what the replay says at
each step ("Seat 2 draws a card") and what the play screen's buttons say ("Stake 5").

Seats are numbered from 1, as the pages show them. A card is named with the match's deck
(cards.name). Events carry private parts (a seat's cards); :func:`seen_by` takes them out for a
reader who may not see them, as the engine's ``view(seat)`` does (docs/games/, "Log events"):
the replay tells a seat's point of view without a card that seat never saw. A test checks it
against the engine, event by event, for every game.

Each game's words and private fields are declared in its module of tournaments/web/games/
(``events``, ``actions``, ``hidden``, ``private``); what every game shares is here.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from . import cards, games
from .games.base import per_seat, seat_no, signed


def _private(game: str, event: dict) -> tuple[int, ...] | None:
    """The seats that see the whole of ``event``, or None when it is public."""
    declared = games.GAMES.get(game)
    if declared is None or event.get("type") not in declared.hidden:
        return None
    return declared.private(event)


def seen_by(game: str, event: dict, seat: int | None) -> dict:
    """``event`` as ``seat`` sees it: whole if it is public or the seat's own, else without its
    private fields (a list of cards becomes its ``count``)."""
    who = _private(game, event)
    if who is None or (seat is not None and seat in who):
        return event
    hidden = games.GAMES[game].hidden[event["type"]]
    seen = {key: value for key, value in event.items() if key not in hidden}
    held = event.get("cards")
    if "cards" in hidden and isinstance(held, list) and all(isinstance(c, str) for c in held):
        seen.setdefault("count", len(held))
    return seen


# --- words -----------------------------------------------------------------------------------

class Teller:
    """Says one match's events and actions: knows its game and deck."""

    def __init__(self, game: str, deck: str) -> None:
        self.game = game
        self.deck = deck
        declared = games.GAMES.get(game)
        self._events = declared.events if declared is not None else {}
        self._actions = declared.actions if declared is not None else {}

    def card(self, code: str) -> str:
        return cards.name(code, self.deck)

    def cards(self, codes) -> str:
        return cards.names(codes, self.deck)

    def rank(self, rank: str) -> str:
        return cards.rank_name(rank, self.deck)

    def event(self, event: dict) -> str:
        """One event of the log in words."""
        kind = event.get("type")
        own = self._events.get(kind) if isinstance(kind, str) else None
        say = (lambda e: own(self, e)) if own is not None else getattr(self, f"_any_{kind}", None)
        if say is None:
            return _("Event: %(type)s") % {"type": kind}
        try:
            return say(event)
        except (KeyError, TypeError, ValueError, IndexError):  # a field this page does not know how to say
            return _("Event: %(type)s") % {"type": kind}

    # --- every game

    def _any_match_over(self, e):
        return _("The match is over. Scores: %(scores)s") % {"scores": per_seat(e["scores"], signed)}

    def _any_pass(self, e):
        if e.get("announce"):  # Stoppa's "Senza sette": the players' own words
            return _("Seat %(seat)s passes: %(announce)s") % {"seat": seat_no(e["seat"]), "announce": e["announce"]}
        return _("Seat %(seat)s passes") % {"seat": seat_no(e["seat"])}

    def _any_raise(self, e):
        return _("Seat %(seat)s raises to %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}

    def _any_stake(self, e):
        if "amount" not in e:
            return _("Seat %(seat)s stakes") % {"seat": seat_no(e["seat"])}
        if e.get("card"):
            return _("Seat %(seat)s stakes %(amount)s and looks at their card: %(card)s") % {
                "seat": seat_no(e["seat"]), "amount": e["amount"], "card": self.card(e["card"])}
        return _("Seat %(seat)s stakes %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}

    # --- actions: what a button says

    def action(self, action: dict) -> str:
        """A legal action in words, as its button says it."""
        kind = action.get("type")
        say = self._actions.get(kind) or ACTIONS.get(kind)
        if say is None:
            return kind.replace("_", " ").capitalize() if isinstance(kind, str) else str(action)
        return say(self, action)


#: What every game's buttons share (a game's own ``actions`` come first).
ACTIONS = {
    "pass": lambda t, a: _("Pass"),
    "stake": lambda t, a: _("Stake %(n)s") % {"n": a["amount"]},
    "raise": lambda t, a: _("Raise to %(n)s") % {"n": a["amount"]},
}


def amount_choice(kind: str) -> str | None:
    """What a choice among many amounts of one action says ("Stake", "Raise to"), or None for
    an action without an amount to choose."""
    words = {"stake": _("Stake"), "open": _("Open at"), "raise": _("Raise to"), "join_raise": _("Join and raise to")}
    return words.get(kind)
