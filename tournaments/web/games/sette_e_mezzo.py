"""Sette e mezzo on the pages: its table drawn from a seat's view, its events and actions in words,
and the parts of its events only some seats see."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .. import cards
from .base import (
    MAZZIERE,
    WebGame,
    half_points,
    per_seat,
    pile,
    same_hand_end,
    seat_label,
    seat_no,
    seat_only,
    signed,
    undo_nothing,
)

# --- the table --------------------------------------------------------------------------------

SM_CLASSES = {"emblee": "emblée", "triple": "triplé"}  # the game's own words


def layout(view: dict, table: dict) -> None:
    deck = cards.ITALIAN
    phases = {"stake": _("staking"), "play": _("playing"), "over": _("over")}
    table["facts"] = [
        [_("Hand"), _("%(hand)s of %(hands)s") % {"hand": view["hand"], "hands": view["hands"]}],
        [MAZZIERE, seat_label(view["banker"])],
        [_("Phase"), phases.get(view["phase"], view["phase"])],
        ["tallone", ngettext("%(n)s card", "%(n)s cards", view["tallone"]) % {"n": view["tallone"]}],
    ]
    if view.get("matta"):
        table["facts"].append(["matta", cards.name(view["matta"], deck)])
    for entry in view["table"]:
        seat = table["seats"][entry["seat"]]
        if entry["seat"] == view["banker"]:
            seat["badges"].append(MAZZIERE)
        if entry.get("stake") is not None:
            seat["notes"].append(_("stake %(n)s") % {"n": entry["stake"]})
        status = entry.get("status")
        if status == "stood":
            seat["notes"].append(_("stands"))
        elif status == "seven_and_a_half":
            seat["notes"].append("sette e mezzo")
        elif status == "bust":
            seat["notes"].append(_("bust"))
        if "value" in entry and entry["cards"]:
            seat["notes"].append(_("value %(v)s") % {"v": half_points(entry["value"])})
        if entry.get("class") in SM_CLASSES:
            seat["notes"].append(SM_CLASSES[entry["class"]])
        seat["piles"].append(pile(_("Cards"), entry["cards"], entry.get("hidden", 0)))


# --- the events in words ----------------------------------------------------------------------

def event_hand(t, e):
    return _("Hand %(hand)s begins; the mazziere is seat %(seat)s") % {"hand": e["hand"], "seat": seat_no(e["banker"])}


def event_deal(t, e):
    if "cards" in e:
        return _("One card is dealt face down to each seat: %(cards)s") % {
            "cards": per_seat(e["cards"], t.card)}
    return _("One card is dealt face down to each seat")


def event_stakes(t, e):
    return _("Every stake is in: %(stakes)s") % {"stakes": per_seat(e["amounts"])}


def event_look(t, e):
    if "card" in e:
        return _("Seat %(seat)s, the mazziere, looks at their card: %(card)s") % {
            "seat": seat_no(e["seat"]), "card": t.card(e["card"])}
    return _("Seat %(seat)s, the mazziere, looks at their card") % {"seat": seat_no(e["seat"])}


def event_hit(t, e):
    if "card" not in e:
        return _("Seat %(seat)s takes a card face down") % {"seat": seat_no(e["seat"])}
    if e.get("face_down"):
        return _("Seat %(seat)s takes a card face down: %(card)s") % {"seat": seat_no(e["seat"]),
                                                                     "card": t.card(e["card"])}
    return _("Seat %(seat)s takes a card: %(card)s") % {"seat": seat_no(e["seat"]), "card": t.card(e["card"])}


def event_turn_up(t, e):
    return _("Seat %(seat)s turns up %(card)s") % {"seat": seat_no(e["seat"]), "card": t.card(e["card"])}


def event_bust(t, e):
    said = _("Seat %(seat)s is bust with %(cards)s (%(value)s)") % {
        "seat": seat_no(e["seat"]), "cards": t.cards(e["cards"]), "value": half_points(e["value"])}
    if e.get("paid"):
        said += " " + _("and pays %(n)s") % {"n": e["paid"]}
    return said


def event_stand(t, e):
    if e.get("forced"):
        return _("Seat %(seat)s stands: the tallone is empty") % {"seat": seat_no(e["seat"])}
    return _("Seat %(seat)s stands") % {"seat": seat_no(e["seat"])}


def event_declare(t, e):
    what = {"emblee": "sette e mezzo emblée", "triple": "sette e mezzo triplé"}.get(e["class"], "sette e mezzo")
    return _("Seat %(seat)s declares %(what)s") % {"seat": seat_no(e["seat"]), "what": what}


def event_settle(t, e):
    return _("Hand %(hand)s is settled. Payments: %(payments)s") % {
        "hand": e["hand"], "payments": per_seat(e["payments"], signed)}


def event_bank_transfer(t, e):
    return _("Seat %(to)s becomes the mazziere, after seat %(from)s") % {"to": seat_no(e["to"]),
                                                                         "from": seat_no(e["from"])}


EVENTS = {
    "hand": event_hand,
    "deal": event_deal,
    "stakes": event_stakes,
    "look": event_look,
    "hit": event_hit,
    "turn_up": event_turn_up,
    "bust": event_bust,
    "stand": event_stand,
    "declare": event_declare,
    "settle": event_settle,
    "bank_transfer": event_bank_transfer,
}


# --- the actions in words: what a button says --------------------------------------------------

def action_hit(t, a):
    if a.get("mode") == "keep":
        return _("Hit, the first card kept face down")
    if a.get("mode") == "expose":
        return _("Hit, the first card turned up")
    return _("Hit")


ACTIONS = {
    "hit": action_hit,
    "stand": lambda t, a: _("Stand"),
}


# --- what only some seats see ----------------------------------------------------------------

HIDDEN = {
    "deal": ("cards",),  # dealt face down: each seat looks at its own once it has staked
    "stake": ("amount", "card"),  # stakes are secret until all are in
    "look": ("card",),  # the mazziere's first card
    "hit": ("card",),  # a card taken face down
}


def private(event: dict) -> tuple[int, ...] | None:
    """The deal is seen whole by nobody (each seat looks at its own card later, in its stake);
    a card taken face up is public."""
    kind = event.get("type")
    if kind == "deal":
        return ()
    if kind == "hit" and not event.get("face_down"):
        return None
    return seat_only(event)



# --- the replay: hands, without stages --------------------------------------------------------

def opens(log: Sequence[dict], index: int) -> str | None:
    """A hand opens with its ``hand``."""
    return "hand" if log[index].get("type") == "hand" else None


GAME = WebGame(name="sette_e_mezzo", layout=layout, events=EVENTS, actions=ACTIONS, hidden=HIDDEN, private=private,
               opens=opens, hand_end=same_hand_end, undo=undo_nothing, held=())
