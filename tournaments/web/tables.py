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
triplé, rivolta, prendo) stay as they are.
"""

from __future__ import annotations

from django.utils.translation import gettext as _, ngettext, pgettext

from . import cards

MINUS = "\u2212"  # as the pages write a negative number
MAZZIERE = "mazziere"  # the dealer of Stoppa, the banker of Sette e mezzo: the game's own word
CENTRE_PILE_SHOWN = 12  # Spacca il mazzo's pile may hold dozens of cards: its top ones are drawn


def signed(n: int | float | None) -> str:
    """A score or a payment with its sign: +5, −3 (a real minus sign), 0."""
    if n is None:
        return "—"
    if n > 0:
        return f"+{n}"
    return f"{MINUS}{-n}" if n < 0 else "0"


def seat_label(position: int) -> str:
    """A seat as the pages number it: from 1 (the engine and the API count from 0)."""
    return _("Seat %(n)s") % {"n": position + 1}


def pile(label: str, codes=(), backs: int = 0, note: str = "") -> dict:
    """A row of cards: its label, the codes face up, how many face down, a note beside it."""
    return {"label": label, "cards": list(codes), "backs": int(backs or 0), "note": note}


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
    build = LAYOUTS.get(view.get("game"))
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


def half_points(value: int) -> str:
    """Sette e mezzo's values are kept in half points (15 is 7½)."""
    whole, half = divmod(int(value), 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


# --- Sette e mezzo -----------------------------------------------------------------------------

SM_CLASSES = {"emblee": "emblée", "triple": "triplé"}  # the game's own words


def _sette_e_mezzo(view: dict, table: dict) -> None:
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


# --- Stoppa ------------------------------------------------------------------------------------

STOPPA_VALUES = {1: "A", 8: "J", 9: "N", 10: "K"}  # the stoppa's values of the figures and the ace


def _stoppa_value(value: int) -> str:
    return cards.rank_name(STOPPA_VALUES.get(value, str(value)), cards.ITALIAN)


def _stoppa(view: dict, table: dict) -> None:
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
            note = _("next: %(rank)s") % {"rank": _stoppa_value(stoppa["required"])}
        else:
            note = _("any card starts a new run")
        table["centre"].append(pile(_("Last laid"), laid["cards"] if laid else [], note=note))


# --- Piazza ------------------------------------------------------------------------------------

def _piazza(view: dict, table: dict) -> None:
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


# --- Spacca il mazzo ---------------------------------------------------------------------------

def _spacca_il_mazzo(view: dict, table: dict) -> None:
    deck = cards.FRENCH
    reference = view.get("reference")
    table["facts"] = [
        [pgettext("one game of a match", "Game"), _("%(game)s of %(games)s") % {"game": view["game_no"], "games": view["games"]}],
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


LAYOUTS = {
    "sette_e_mezzo": _sette_e_mezzo,
    "stoppa": _stoppa,
    "piazza": _piazza,
    "spacca_il_mazzo": _spacca_il_mazzo,
}


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
