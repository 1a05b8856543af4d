"""Stoppa on the pages: its table drawn from a seat's view, its events and actions in words,
and the parts of its events only some seats see."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import cards
from .base import MAZZIERE, WebGame, per_seat, pile, seat_label, seat_list, seat_no, seat_only, signed

# --- the table --------------------------------------------------------------------------------

STOPPA_VALUES = {1: "A", 8: "J", 9: "N", 10: "K"}  # the stoppa's values of the figures and the ace


def _value(value: int) -> str:
    return cards.rank_name(STOPPA_VALUES.get(value, str(value)), cards.ITALIAN)


def layout(view: dict, table: dict) -> None:
    phase = view["phase"]
    if phase == "bet":
        final = (view.get("betting") or {}).get("final")
        what = _("final betting round") if final else _("betting round %(n)s of %(of)s") % {
            "n": view["round"], "of": view["rounds"]}
    else:
        what = {"showdown": _("showdown"), "stoppa": "stoppa", "over": _("over")}.get(phase, phase)
    table["facts"] = [
        [_("Hand"), _("%(hand)s of %(hands)s") % {"hand": view["hand"], "hands": view["hands"]}],
        [_("Phase"), what],
        [_("Pot"), str(view["pot"])],
    ]
    if view.get("dealer") is not None:
        table["facts"].insert(1, [MAZZIERE, seat_label(view["dealer"])])
    betting = view.get("betting")
    if betting and phase in ("bet", "showdown"):
        table["facts"] += [[_("Prize"), str(betting["prize"])],
                           [_("Level"), _("%(level)s (at most %(max)s)") % {"level": betting["level"],
                                                                            "max": betting["max_bet"]}]]
    for position, seat in enumerate(table["seats"]):
        if position == view.get("dealer"):
            seat["badges"].append(MAZZIERE)
        if betting and phase in ("bet", "showdown"):
            if betting["in"][position]:
                seat["notes"].append(_("committed %(n)s") % {"n": betting["commitments"][position]})
            else:
                seat["notes"].append(_("out of this round"))
        held = view["counts"][position]
        if position == view.get("seat"):
            seat["piles"].append(pile(_("Hand"), view.get("cards", [])))
        else:
            seat["piles"].append(pile(_("Hand"), backs=held))
        if view["shown"][position]:
            seat["piles"].append(pile(_("Shown"), view["shown"][position]))
    if phase == "stoppa":
        stoppa = view.get("stoppa") or {}
        laid = next((e for e in reversed(view.get("events", [])) if e.get("type") == "lay"), None)
        if stoppa.get("required") is not None:
            note = _("next: %(rank)s") % {"rank": _value(stoppa["required"])}
        else:
            note = _("any card starts a new run")
        table["centre"].append(pile(_("Last laid"), laid["cards"] if laid else [], note=note))


# --- the events in words ----------------------------------------------------------------------

def event_hand(t, e):
    return _("Hand %(hand)s begins; the mazziere is seat %(seat)s") % {"hand": e["hand"], "seat": seat_no(e["dealer"])}


def event_ante(t, e):
    return _("Every seat antes %(amount)s; the pot holds %(pot)s") % {"amount": e["amount"], "pot": e["pot"]}


def event_deal(t, e):
    if "cards" in e:
        return _("Seat %(seat)s is dealt %(cards)s") % {"seat": seat_no(e["seat"]), "cards": t.cards(e["cards"])}
    return ngettext("Seat %(seat)s is dealt %(n)s card", "Seat %(seat)s is dealt %(n)s cards", e["count"]) % {
        "seat": seat_no(e["seat"]), "n": e["count"]}


def event_betting(t, e):
    if e.get("final"):
        return _("The final betting round: prize %(prize)s, pot %(pot)s") % {"prize": e["prize"], "pot": e["pot"]}
    return _("Betting round %(round)s: prize %(prize)s, pot %(pot)s") % {
        "round": e["round"], "prize": e["prize"], "pot": e["pot"]}


def event_open(t, e):
    return _("Seat %(seat)s opens at %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}


def event_see(t, e):
    return _("Seat %(seat)s sees at %(amount)s") % {"seat": seat_no(e["seat"]), "amount": e["amount"]}


def event_showdown_starts(t, e):
    return _("Showdown: the seats show in the order %(order)s") % {"order": seat_list(e["order"])}


def event_show(t, e):
    return _("Seat %(seat)s shows %(cards)s: a point of %(point)s") % {
        "seat": seat_no(e["seat"]), "cards": t.cards(e["cards"]), "point": e["point"]}


def event_concede(t, e):
    return _("Seat %(seat)s concedes") % {"seat": seat_no(e["seat"])}


def event_showdown(t, e):
    return _("Seat %(seat)s wins the showdown with a point of %(point)s") % {
        "seat": seat_no(e["winner"]), "point": e["point"]}


def event_prize(t, e):
    return _("Seat %(seat)s takes the prize of %(prize)s and receives %(received)s") % {
        "seat": seat_no(e["seat"]), "prize": e["prize"], "received": e["received"]}


def event_special(t, e):
    kind = {"re": "stoppa di re", "povera": "stoppa povera", "assi": "stoppa di assi"}.get(e["kind"], e["kind"])
    return _("Seat %(seat)s has a %(kind)s. Payments: %(payments)s") % {
        "seat": seat_no(e["seat"]), "kind": kind, "payments": per_seat(e["payments"], signed)}


def event_stoppa(t, e):
    return _("The stoppa begins: seat %(seat)s lays first") % {"seat": seat_no(e["first"])}


def event_lay(t, e):
    return _("Seat %(seat)s lays %(cards)s; cards left: %(left)s") % {
        "seat": seat_no(e["seat"]), "cards": t.cards(e["cards"]), "left": e["left"]}


def event_close(t, e):
    if e.get("chiusa"):
        return _("Seat %(seat)s closes on their first turn (chiusa). Payments: %(payments)s") % {
            "seat": seat_no(e["seat"]), "payments": per_seat(e["payments"], signed)}
    return _("Seat %(seat)s closes. Payments: %(payments)s") % {
        "seat": seat_no(e["seat"]), "payments": per_seat(e["payments"], signed)}


def event_hand_over(t, e):
    return _("Hand %(hand)s is over. Scores: %(scores)s") % {"hand": e["hand"],
                                                             "scores": per_seat(e["scores"], signed)}


EVENTS = {
    "hand": event_hand,
    "ante": event_ante,
    "deal": event_deal,
    "betting": event_betting,
    "open": event_open,
    "see": event_see,
    "showdown_starts": event_showdown_starts,
    "show": event_show,
    "concede": event_concede,
    "showdown": event_showdown,
    "prize": event_prize,
    "special": event_special,
    "stoppa": event_stoppa,
    "lay": event_lay,
    "close": event_close,
    "hand_over": event_hand_over,
}


# --- the actions in words: what a button says --------------------------------------------------



ACTIONS = {
    "open": lambda t, a: _("Open at %(n)s") % {"n": a["amount"]},
    "see": lambda t, a: _("See"),
    "show": lambda t, a: _("Show %(cards)s") % {"cards": t.cards(a["cards"])},
    "concede": lambda t, a: _("Concede"),
    "lay": lambda t, a: _("Lay %(cards)s") % {"cards": t.cards(a["cards"])},
}


# --- what only some seats see ----------------------------------------------------------------

HIDDEN = {
    "deal": ("cards",),
}


# --- the replay: a hand, and its betting rounds ----------------------------------------------

def opens(log: Sequence[dict], index: int) -> str | None:
    """A hand opens with its ``hand``; a betting round after the first with its first packet
    (a ``deal`` after neither a packet nor the ante)."""
    kind = log[index].get("type")
    if kind == "hand":
        return "hand"
    if kind == "deal" and index and log[index - 1].get("type") not in ("deal", "ante"):
        return "stage"
    return None


def hand_end(view: dict, log: Sequence[dict], end: int) -> None:
    """The hand's mazziere (a match's end names none)."""
    view["dealer"] = next((event.get("dealer") for event in reversed(log[:end]) if event.get("type") == "hand"), None)


def undo(view: dict, event: dict, log: Sequence[dict], end: int) -> bool:
    """The next round's packets (``deal``) and its round (``betting``: the ended round's bets
    are in the pot and the prize)."""
    kind = event.get("type")
    if kind == "deal":
        view["counts"][event["seat"]] -= len(event["cards"])
        if event["seat"] == view["seat"]:
            for card in event["cards"]:
                view["cards"].remove(card)
    elif kind == "betting":
        view["round"] = event["round"] - 1
        view.pop("betting", None)
        view.pop("round_cards", None)
    else:
        return False
    return True


GAME = WebGame(name="stoppa", layout=layout, events=EVENTS, actions=ACTIONS, hidden=HIDDEN, private=seat_only,
               opens=opens, hand_end=hand_end, undo=undo, held=("cards", "counts"))
