"""Spacca il mazzo on the pages: its table drawn from a seat's view, its events and actions in words,
and the parts of its events only some seats see."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .. import cards
from .base import MAZZIERE, WebGame, per_seat, pile, same_hand_end, seat_no, seat_only, signed, undo_nothing

# --- the table --------------------------------------------------------------------------------

CENTRE_PILE_SHOWN = 12  # the pile may hold dozens of cards: its top ones are drawn


def layout(view: dict, table: dict) -> None:
    deck = cards.FRENCH
    reference = view.get("reference")
    table["facts"] = [
        [pgettext("one game of a match", "Game"),
         _("%(game)s of %(games)s") % {"game": view["game_no"], "games": view["games"]}],
        [_("Turn"), str(view["turn"])],
        [_("To beat"), cards.rank_name(reference, deck) if reference else _("any card")],
        [_("Main deck"), ngettext("%(n)s card", "%(n)s cards", view["main"]) % {"n": view["main"]}],
        [_("Second deck"), ngettext("%(n)s card", "%(n)s cards", view["second"]) % {"n": view["second"]}],
        [_("Out of the game"), ngettext("%(n)s card", "%(n)s cards", view["out"]) % {"n": view["out"]}],
    ]
    pile_cards = view.get("pile") or []
    below = max(0, len(pile_cards) - CENTRE_PILE_SHOWN)
    note = ngettext("and %(n)s card below", "and %(n)s cards below", below) % {"n": below} if below else ""
    table["centre"].append(pile(_("Pile"), pile_cards[below:], note=note))
    for entry in view["table"]:
        position = entry["seat"]
        seat = table["seats"][position]
        if position == view.get("dealer"):
            seat["badges"].append(MAZZIERE)
        if entry.get("place"):
            seat["badges"].append(_("place %(n)s") % {"n": entry["place"]})
        if position == view.get("seat") and view.get("hand") is not None:
            seat["piles"].append(pile(_("Hand"), view["hand"]))
        else:
            seat["piles"].append(pile(_("Hand"), backs=entry["hand"]))
        seat["piles"].append(pile(_("Face up"), entry["up"]))
        seat["piles"].append(pile(_("Face down"), backs=len(entry["down"])))
    if view.get("red_joker") and view.get("current_player") is not None:
        table["seats"][view["current_player"]]["notes"].append(_("red joker: to decide"))


# --- the events in words ----------------------------------------------------------------------

def event_game(t, e):
    return _("Game %(game)s begins: seat %(seat)s leads") % {"game": e["game"], "seat": seat_no(e["first"])}


def event_deal(t, e):
    if "cards" in e:
        return _("Seat %(seat)s is dealt %(cards)s") % {"seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}
    return ngettext("Seat %(seat)s is dealt %(n)s card", "Seat %(seat)s is dealt %(n)s cards", e["count"]) % {
        "seat": seat_no(e["seat"]), "n": e["count"]}


def event_face_up(t, e):
    return _("Seat %(seat)s's face-up cards: %(cards)s") % {"seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}


def event_face_down(t, e):
    if "cards" in e:
        return _("Three cards are dealt face down to each seat: %(cards)s") % {
            "cards": "; ".join(_("seat %(n)s: %(what)s") % {"n": position + 1, "what": t.cards(held)}
                               for position, held in enumerate(e["cards"]))}
    return _("Three cards are dealt face down to each seat")


def event_start(t, e):
    return _("The pile starts with %(card)s") % {"card": t.card(e["card"])}


def event_start_rejected(t, e):
    return _("%(card)s may not start the pile: it goes under the deck") % {"card": t.card(e["card"])}


def event_draw(t, e):
    if e.get("penalty"):
        if "card" in e:
            return _("Seat %(seat)s draws a penalty card: %(card)s") % {"seat": seat_no(e["seat"]),
                                                                       "card": t.card(e["card"])}
        return _("Seat %(seat)s draws a penalty card") % {"seat": seat_no(e["seat"])}
    if "card" in e:
        return _("Seat %(seat)s draws %(card)s") % {"seat": seat_no(e["seat"]), "card": t.card(e["card"])}
    return _("Seat %(seat)s draws a card") % {"seat": seat_no(e["seat"])}


def event_play(t, e):
    return _("Seat %(seat)s plays %(cards)s") % {"seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}


def event_pickup(t, e):
    return ngettext("Seat %(seat)s picks up the pile: %(n)s card", "Seat %(seat)s picks up the pile: %(n)s cards",
                    len(e["cards"])) % {"seat": seat_no(e["seat"]), "n": len(e["cards"])}


def event_burn(t, e):
    return _("Seat %(seat)s burns the pile with %(cards)s") % {"seat": seat_no(e["seat"]),
                                                              "cards": t.cards(e["cards"])}


def event_flip(t, e):
    said = _("Seat %(seat)s turns up face-down card %(slot)s: %(card)s") % {
        "seat": seat_no(e["seat"]), "slot": seat_no(e["slot"]), "card": t.card(e["card"])}
    if e.get("result") == "played":
        said += " " + _("and plays it")
    elif e.get("result") == "picked_up":
        said += " " + _("and takes it with the pile")
    return said


def event_red_joker(t, e):
    seat, choice = seat_no(e["seat"]), e.get("choice")
    if choice == "dump":
        return _("Seat %(seat)s throws their whole hand with the red joker: %(cards)s") % {
            "seat": seat, "cards": t.cards(e.get("cards", []))}
    if choice in ("up", "down"):
        return _("Seat %(seat)s throws %(cards)s with the red joker") % {"seat": seat,
                                                                        "cards": t.cards(e.get("cards", []))}
    if choice == "decline":
        return _("Seat %(seat)s does not use the red joker") % {"seat": seat}
    return _("Seat %(seat)s meets the red joker") % {"seat": seat}


def event_black_joker(t, e):
    return _("Seat %(seat)s meets the black joker and takes the pile") % {"seat": seat_no(e["seat"])}


def event_finish(t, e):
    return _("Seat %(seat)s has no cards left: place %(place)s") % {"seat": seat_no(e["seat"]), "place": e["place"]}


def event_game_over(t, e):
    return _("Game %(game)s is over. Points: %(points)s") % {"game": e["game"],
                                                            "points": per_seat(e["points"], signed)}


EVENTS = {
    "game": event_game,
    "deal": event_deal,
    "face_up": event_face_up,
    "face_down": event_face_down,
    "start": event_start,
    "start_rejected": event_start_rejected,
    "draw": event_draw,
    "play": event_play,
    "pickup": event_pickup,
    "burn": event_burn,
    "flip": event_flip,
    "red_joker": event_red_joker,
    "black_joker": event_black_joker,
    "finish": event_finish,
    "game_over": event_game_over,
}


# --- the actions in words: what a button says --------------------------------------------------

def action_joker_throw(t, a):
    if "card" in a:
        return _("Throw %(card)s with the red joker") % {"card": t.card(a["card"])}
    return _("Throw face-down card %(n)s with the red joker") % {"n": seat_no(a["slot"])}


ACTIONS = {
    "play": lambda t, a: _("Play %(cards)s") % {"cards": t.cards(a["cards"])},
    "draw": lambda t, a: _("Draw a card"),
    "pickup": lambda t, a: _("Pick up the pile"),
    "flip": lambda t, a: _("Turn up face-down card %(n)s") % {"n": seat_no(a["slot"])},
    "joker_dump": lambda t, a: _("Throw your whole hand with the red joker"),
    "joker_throw": action_joker_throw,
    "joker_decline": lambda t, a: _("Do not use the red joker"),
}


# --- what only some seats see ----------------------------------------------------------------

HIDDEN = {
    "deal": ("cards",),
    "face_down": ("cards",),  # nobody has seen them, their owners neither
    "draw": ("card",),
}


def private(event: dict) -> tuple[int, ...] | None:
    """The face-down cards are seen by nobody; a joker goes out as soon as it is seen."""
    kind = event.get("type")
    if kind == "face_down":
        return ()
    if kind == "draw" and event.get("card") in (cards.RED_JOKER, cards.BLACK_JOKER):
        return None  # a joker goes out as soon as it is seen
    return seat_only(event)



# --- the replay: games (what the match counts its deals in), without stages -------------------

def opens(log: Sequence[dict], index: int) -> str | None:
    """A game opens with its ``game`` (the replay's "hand": the match is cut after one)."""
    return "hand" if log[index].get("type") == "game" else None


GAME = WebGame(name="spacca_il_mazzo", layout=layout, events=EVENTS, actions=ACTIONS, hidden=HIDDEN,
               private=private, opens=opens, hand_end=same_hand_end, undo=undo_nothing, held=())
