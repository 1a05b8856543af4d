"""Piazza on the pages: its table drawn from a seat's view, its events and actions in words,
and the parts of its events only some seats see."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .base import WebGame, pile, same_hand_end, seat_list, seat_no, seat_only, signed

# --- the table --------------------------------------------------------------------------------

def layout(view: dict, table: dict) -> None:
    phases = {
        "rivolta": "rivolta", "commercio": "commercio", "offer": _("offers"), "choose": _("choosing a card"),
        "give": _("the gift"), "claim": _("claims"), "replacement": _("replacement round"), "stake": _("the stake"),
        "join": _("joining"), "response": _("betting"), "take": _("the take"), "reveal": _("conflict"),
        "over": _("over"),
    }
    table["facts"] = [
        [_("Turn"), _("%(turn)s of %(turns)s") % {"turn": view["turn"], "turns": view["turns"]}],
        [_("Phase"), phases.get(view["phase"], view["phase"])],
        [_("Stock"), ngettext("%(n)s card", "%(n)s cards", view["stock"]) % {"n": view["stock"]}],
        [_("Discards"), ngettext("%(n)s card", "%(n)s cards", view["discards"]) % {"n": view["discards"]}],
        [_("Figures left"), str(view["figures_left"])],
    ]
    betting = view.get("betting")
    if betting and betting.get("level") is not None:
        table["facts"].append([_("Level"), str(betting["level"])])
    if view.get("figure"):
        note = _("take-sets total a multiple of %(n)s") % {"n": view["modulus"]} if view.get("modulus") else ""
        table["centre"].append(pile(_("Figure"), [view["figure"]], note=note))
    if view.get("set_aside"):
        table["centre"].append(pile(_("Set aside"), view["set_aside"]))
    for position, seat in enumerate(table["seats"]):
        if position == view.get("lead"):
            seat["badges"].append(_("leads"))
        seat["notes"].append(_("chips %(n)s") % {"n": signed(view["chips"][position])})
        if view["penalties"][position]:
            seat["notes"].append(_("penalties %(n)s") % {"n": view["penalties"][position]})
        if position == view.get("seat") and view.get("hand") is not None:
            seat["piles"].append(pile(_("Hand"), view["hand"]))
        else:
            seat["piles"].append(pile(_("Hand"), backs=view["hand_sizes"][position]))
        if view["won"][position]:
            seat["piles"].append(pile(_("Won"), view["won"][position]))


# --- the events in words ----------------------------------------------------------------------

def event_start(t, e):
    return ngettext("The match begins: %(n)s figure to win", "The match begins: %(n)s figures to win",
                    e["figures"]) % {"n": e["figures"]}


def event_turn(t, e):
    return _("Turn %(turn)s: seat %(seat)s leads") % {"turn": e["turn"], "seat": seat_no(e["lead"])}


def event_draw(t, e):
    if "card" in e:
        return _("Seat %(seat)s draws %(card)s") % {"seat": seat_no(e["seat"]), "card": t.card(e["card"])}
    return _("Seat %(seat)s draws a card") % {"seat": seat_no(e["seat"])}


def event_rivolta(t, e):
    return _("Seat %(seat)s calls a rivolta") % {"seat": seat_no(e["seat"])}


def event_redeal(t, e):
    if "cards" in e:
        return _("Seat %(seat)s is dealt %(cards)s") % {"seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}
    return ngettext("Seat %(seat)s is dealt %(n)s card", "Seat %(seat)s is dealt %(n)s cards", e["count"]) % {
        "seat": seat_no(e["seat"]), "n": e["count"]}


def event_figure(t, e):
    return _("The figure is %(card)s: a take-set must total a multiple of %(n)s") % {
        "card": t.card(e["card"]), "n": e["modulus"]}


def event_request(t, e):
    return _("Seat %(seat)s asks for a %(rank)s") % {"seat": seat_no(e["seat"]), "rank": t.rank(e["rank"])}


def event_offer(t, e):
    if e.get("show"):
        return _("Seat %(seat)s offers a card, showing %(card)s (%(penalty)s points)") % {
            "seat": seat_no(e["seat"]), "card": t.card(e["show"]), "penalty": signed(-e.get("penalty", 3))}
    return _("Seat %(seat)s offers a card") % {"seat": seat_no(e["seat"])}


def event_decline(t, e):
    return _("Seat %(seat)s declines") % {"seat": seat_no(e["seat"])}


def event_no_offer(t, e):
    return _("Nobody offers seat %(seat)s a %(rank)s") % {"seat": seat_no(e["seat"]), "rank": t.rank(e["rank"])}


def event_choose(t, e):
    return _("Seat %(seat)s chooses the card of seat %(giver)s") % {"seat": seat_no(e["seat"]),
                                                                    "giver": seat_no(e["giver"])}


def event_give(t, e):
    return _("Seat %(seat)s gives %(card)s to seat %(to)s") % {
        "seat": seat_no(e["seat"]), "card": t.card(e["card"]), "to": seat_no(e["to"])}


def event_no_take(t, e):
    if e.get("draw"):
        return _("Nobody claims the figure; seats %(seats)s draw a card") % {"seats": seat_list(e["draw"])}
    return _("Nobody claims the figure")


def event_replacement(t, e):
    return _("Replacement round %(n)s") % {"n": e["round"]}


def event_replace(t, e):
    if "card" in e:
        return _("Seat %(seat)s discards %(card)s and draws again") % {"seat": seat_no(e["seat"]),
                                                                      "card": t.card(e["card"])}
    return _("Seat %(seat)s discards a card and draws again") % {"seat": seat_no(e["seat"])}


def event_prendo(t, e):
    return _("Seat %(seat)s says prendo") % {"seat": seat_no(e["seat"])}


def event_join(t, e):
    return _("Seat %(seat)s joins at %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}


def event_join_raise(t, e):
    return _("Seat %(seat)s joins and raises to %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}


def event_stay_out(t, e):
    return _("Seat %(seat)s stays out") % {"seat": seat_no(e["seat"])}


def event_call(t, e):
    return _("Seat %(seat)s calls at %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}


def event_hold(t, e):
    return _("Seat %(seat)s holds") % {"seat": seat_no(e["seat"])}


def event_withdraw(t, e):
    return _("Seat %(seat)s withdraws, leaving %(n)s chips") % {"seat": seat_no(e["seat"]), "n": e["forfeit"]}


def event_no_bets(t, e):
    return _("Nobody joins seat %(seat)s") % {"seat": seat_no(e["seat"])}


def event_uncontested(t, e):
    return _("Seat %(seat)s is unopposed") % {"seat": seat_no(e["seat"])}


def event_last_in(t, e):
    return _("Seat %(seat)s is the last one in") % {"seat": seat_no(e["seat"])}


def event_take(t, e):
    return _("Seat %(seat)s takes with %(cards)s") % {"seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}


def event_conflict(t, e):
    return _("A conflict between seats %(seats)s at level %(level)s") % {"seats": seat_list(e["seats"]),
                                                                        "level": e["level"]}


def event_secret(t, e):
    if "cards" in e:
        return _("Seat %(seat)s chooses a take-set in secret: %(cards)s") % {
            "seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}
    return _("Seat %(seat)s chooses a take-set in secret") % {"seat": seat_no(e["seat"])}


def event_reveal(t, e):
    shown = "; ".join(_("seat %(n)s: %(what)s") % {"n": seat_no(one["seat"]), "what": t.cards(one["cards"])}
                      for one in e["take_sets"])
    return _("The take-sets are revealed (%(sets)s); seat %(seat)s wins") % {"sets": shown,
                                                                            "seat": seat_no(e["winner"])}


def event_win(t, e):
    return _("Seat %(seat)s wins %(card)s (%(points)s points) and a pot of %(pot)s chips") % {
        "seat": seat_no(e["seat"]), "card": t.card(e["figure"]), "points": e["points"], "pot": e["pot"]}


def event_reshuffle(t, e):
    return ngettext("The discards are shuffled into a new stock of %(n)s card",
                    "The discards are shuffled into a new stock of %(n)s cards", e["cards"]) % {"n": e["cards"]}


EVENTS = {
    "start": event_start,
    "turn": event_turn,
    "draw": event_draw,
    "rivolta": event_rivolta,
    "redeal": event_redeal,
    "figure": event_figure,
    "request": event_request,
    "offer": event_offer,
    "decline": event_decline,
    "no_offer": event_no_offer,
    "choose": event_choose,
    "give": event_give,
    "no_take": event_no_take,
    "replacement": event_replacement,
    "replace": event_replace,
    "prendo": event_prendo,
    "join": event_join,
    "join_raise": event_join_raise,
    "stay_out": event_stay_out,
    "call": event_call,
    "hold": event_hold,
    "withdraw": event_withdraw,
    "no_bets": event_no_bets,
    "uncontested": event_uncontested,
    "last_in": event_last_in,
    "take": event_take,
    "conflict": event_conflict,
    "secret": event_secret,
    "reveal": event_reveal,
    "win": event_win,
    "reshuffle": event_reshuffle,
}


# --- the actions in words: what a button says --------------------------------------------------

def action_offer(t, a):
    if a.get("show"):
        return _("Offer, showing %(card)s (−3 points)") % {"card": t.card(a["show"])}
    return _("Offer a card")


def action_discard(t, a):
    if len(a.get("cards", [])) == 1:
        return _("Discard %(cards)s") % {"cards": t.cards(a["cards"])}
    return _("Take with %(cards)s") % {"cards": t.cards(a["cards"])}


ACTIONS = {
    "rivolta": lambda t, a: _("Call a rivolta"),
    "request": lambda t, a: _("Ask for a %(rank)s") % {"rank": t.rank(a["rank"])},
    "offer": action_offer,
    "decline": lambda t, a: _("Decline"),
    "choose": lambda t, a: _("Take the card of seat %(n)s") % {"n": seat_no(a["seat"])},
    "give": lambda t, a: _("Give %(card)s") % {"card": t.card(a["card"])},
    "prendo": lambda t, a: "Prendo",
    "discard": action_discard,
    "stay_out": lambda t, a: _("Stay out"),
    "join": lambda t, a: _("Join"),
    "join_raise": lambda t, a: _("Join and raise to %(n)s") % {"n": a["amount"]},
    "call": lambda t, a: _("Call"),
    "withdraw": lambda t, a: pgettext("a Piazza player leaves the hand", "Withdraw"),
    "hold": lambda t, a: _("Hold"),
    "reveal": lambda t, a: _("Reveal %(cards)s") % {"cards": t.cards(a["cards"])},
}


# --- what only some seats see ----------------------------------------------------------------

HIDDEN = {
    "draw": ("card",),
    "redeal": ("cards",),
    "secret": ("cards",),  # a take-set chosen in secret (shown at the reveal)
    "replace": ("card",),
}


# --- the replay: turns (a match is one hand, played to its figures) ----------------------------

def opens(log: Sequence[dict], index: int) -> str | None:
    """A turn opens with its ``turn``."""
    return "stage" if log[index].get("type") == "turn" else None


def undo(view: dict, event: dict, log: Sequence[dict], end: int) -> bool:
    """The next turn's opening: its number and lead (the ended turn's lead, from its own
    ``turn``), the cards drawn by seats left without one (``draw``, ``no_draw``), the discards
    shuffled into a new stock (``reshuffle``) and the figure turned up (``figure``)."""
    kind = event.get("type")
    if kind == "draw":
        view["stock"] += 1
        view["hand_sizes"][event["seat"]] -= 1
        if event["seat"] == view["seat"]:
            view["hand"].remove(event["card"])
    elif kind == "reshuffle":
        view.update(stock=view["stock"] - event["cards"], discards=view["discards"] + event["cards"])
    elif kind == "figure":
        view.update(figure=None, modulus=0, figures_left=view["figures_left"] + 1)
    elif kind == "turn":
        ended = next((e for e in reversed(log[:end]) if e.get("type") == "turn"), {})
        view.update(turn=view["turn"] - 1, lead=ended.get("lead"), phase="over")
    elif kind != "no_draw":
        return False
    return True


GAME = WebGame(name="piazza", layout=layout, events=EVENTS, actions=ACTIONS, hidden=HIDDEN, private=seat_only,
               opens=opens, hand_end=same_hand_end, undo=undo, held=("hand", "hand_sizes"))
