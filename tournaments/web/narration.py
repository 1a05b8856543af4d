"""The engine's events and actions in words, in the reader's language: what the replay says at
each step ("Seat 2 draws a card") and what the play screen's buttons say ("Stake 5").

Seats are numbered from 1, as the pages show them. A card is named with the match's deck
(cards.name). Events carry private parts (a seat's cards); :func:`seen_by` takes them out for a
reader who may not see them, as the engine's ``view(seat)`` does (docs/games/, "Log events"):
the replay tells a seat's point of view without a card that seat never saw. A test checks it
against the engine, event by event, for every game.
"""

from __future__ import annotations

from django.utils.translation import gettext as _, ngettext, pgettext

from . import cards
from .tables import half_points, signed

# (game, event type) -> the fields only some seats see. ``_private`` says who sees them.
HIDDEN_FIELDS = {
    ("sette_e_mezzo", "deal"): ("cards",),  # dealt face down: each seat looks at its own once it has staked
    ("sette_e_mezzo", "stake"): ("amount", "card"),  # stakes are secret until all are in
    ("sette_e_mezzo", "look"): ("card",),  # the mazziere's first card
    ("sette_e_mezzo", "hit"): ("card",),  # a card taken face down
    ("stoppa", "deal"): ("cards",),
    ("piazza", "draw"): ("card",),
    ("piazza", "redeal"): ("cards",),
    ("piazza", "secret"): ("cards",),  # a take-set chosen in secret (shown at the reveal)
    ("piazza", "replace"): ("card",),
    ("spacca_il_mazzo", "deal"): ("cards",),
    ("spacca_il_mazzo", "face_down"): ("cards",),  # nobody has seen them, their owners neither
    ("spacca_il_mazzo", "draw"): ("card",),
}


def _private(game: str, event: dict) -> tuple[int, ...] | None:
    """The seats that see the whole of ``event``, or None when it is public."""
    kind = event.get("type")
    if (game, kind) not in HIDDEN_FIELDS:
        return None
    if game == "sette_e_mezzo" and kind == "deal":
        return ()
    if game == "sette_e_mezzo" and kind == "hit" and not event.get("face_down"):
        return None
    if game == "spacca_il_mazzo" and kind == "face_down":
        return ()
    if game == "spacca_il_mazzo" and kind == "draw" and event.get("card") in (cards.RED_JOKER, cards.BLACK_JOKER):
        return None  # a joker goes out as soon as it is seen
    return (event.get("seat"),)


def seen_by(game: str, event: dict, seat: int | None) -> dict:
    """``event`` as ``seat`` sees it: whole if it is public or the seat's own, else without its
    private fields (a list of cards becomes its ``count``)."""
    who = _private(game, event)
    if who is None or (seat is not None and seat in who):
        return event
    hidden = HIDDEN_FIELDS[(game, event["type"])]
    seen = {key: value for key, value in event.items() if key not in hidden}
    held = event.get("cards")
    if "cards" in hidden and isinstance(held, list) and all(isinstance(c, str) for c in held):
        seen.setdefault("count", len(held))
    return seen


# --- words -----------------------------------------------------------------------------------

def _n(position) -> int:
    """A seat as the pages number it, from 1."""
    return int(position) + 1


def _per_seat(values, show=str) -> str:
    """A value per seat in words, "seat 1: +5, seat 2: −3" (a None left out)."""
    return ", ".join(_("seat %(n)s: %(what)s") % {"n": position + 1, "what": show(value)}
                     for position, value in enumerate(values) if value is not None)


def _seats(positions) -> str:
    """Seats in words, "1, 3, 4"."""
    return ", ".join(str(_n(p)) for p in positions)


class Teller:
    """Says one match's events and actions: knows its game and deck."""

    def __init__(self, game: str, deck: str) -> None:
        self.game = game
        self.deck = deck

    def card(self, code: str) -> str:
        return cards.name(code, self.deck)

    def cards(self, codes) -> str:
        return cards.names(codes, self.deck)

    def rank(self, rank: str) -> str:
        return cards.rank_name(rank, self.deck)

    def event(self, event: dict) -> str:
        """One event of the log in words."""
        kind = event.get("type")
        say = getattr(self, f"_{self.game}_{kind}", None) or getattr(self, f"_any_{kind}", None)
        if say is None:
            return _("Event: %(type)s") % {"type": kind}
        try:
            return say(event)
        except (KeyError, TypeError, ValueError, IndexError):  # a field this page does not know how to say
            return _("Event: %(type)s") % {"type": kind}

    # --- every game

    def _any_match_over(self, e):
        return _("The match is over. Scores: %(scores)s") % {"scores": _per_seat(e["scores"], signed)}

    def _any_pass(self, e):
        if e.get("announce"):  # Stoppa's "Senza sette": the players' own words
            return _("Seat %(seat)s passes: %(announce)s") % {"seat": _n(e["seat"]), "announce": e["announce"]}
        return _("Seat %(seat)s passes") % {"seat": _n(e["seat"])}

    def _any_raise(self, e):
        return _("Seat %(seat)s raises to %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    def _any_stake(self, e):
        if "amount" not in e:
            return _("Seat %(seat)s stakes") % {"seat": _n(e["seat"])}
        if e.get("card"):
            return _("Seat %(seat)s stakes %(amount)s and looks at their card: %(card)s") % {
                "seat": _n(e["seat"]), "amount": e["amount"], "card": self.card(e["card"])}
        return _("Seat %(seat)s stakes %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    # --- Sette e mezzo

    def _sette_e_mezzo_hand(self, e):
        return _("Hand %(hand)s begins; the mazziere is seat %(seat)s") % {"hand": e["hand"], "seat": _n(e["banker"])}

    def _sette_e_mezzo_deal(self, e):
        if "cards" in e:
            return _("One card is dealt face down to each seat: %(cards)s") % {
                "cards": _per_seat(e["cards"], self.card)}
        return _("One card is dealt face down to each seat")

    def _sette_e_mezzo_stakes(self, e):
        return _("Every stake is in: %(stakes)s") % {"stakes": _per_seat(e["amounts"])}

    def _sette_e_mezzo_look(self, e):
        if "card" in e:
            return _("Seat %(seat)s, the mazziere, looks at their card: %(card)s") % {
                "seat": _n(e["seat"]), "card": self.card(e["card"])}
        return _("Seat %(seat)s, the mazziere, looks at their card") % {"seat": _n(e["seat"])}

    def _sette_e_mezzo_hit(self, e):
        if "card" not in e:
            return _("Seat %(seat)s takes a card face down") % {"seat": _n(e["seat"])}
        if e.get("face_down"):
            return _("Seat %(seat)s takes a card face down: %(card)s") % {"seat": _n(e["seat"]),
                                                                         "card": self.card(e["card"])}
        return _("Seat %(seat)s takes a card: %(card)s") % {"seat": _n(e["seat"]), "card": self.card(e["card"])}

    def _sette_e_mezzo_turn_up(self, e):
        return _("Seat %(seat)s turns up %(card)s") % {"seat": _n(e["seat"]), "card": self.card(e["card"])}

    def _sette_e_mezzo_bust(self, e):
        said = _("Seat %(seat)s is bust with %(cards)s (%(value)s)") % {
            "seat": _n(e["seat"]), "cards": self.cards(e["cards"]), "value": half_points(e["value"])}
        if e.get("paid"):
            said += " " + _("and pays %(n)s") % {"n": e["paid"]}
        return said

    def _sette_e_mezzo_stand(self, e):
        if e.get("forced"):
            return _("Seat %(seat)s stands: the tallone is empty") % {"seat": _n(e["seat"])}
        return _("Seat %(seat)s stands") % {"seat": _n(e["seat"])}

    def _sette_e_mezzo_declare(self, e):
        what = {"emblee": "sette e mezzo emblée", "triple": "sette e mezzo triplé"}.get(e["class"], "sette e mezzo")
        return _("Seat %(seat)s declares %(what)s") % {"seat": _n(e["seat"]), "what": what}

    def _sette_e_mezzo_settle(self, e):
        return _("Hand %(hand)s is settled. Payments: %(payments)s") % {
            "hand": e["hand"], "payments": _per_seat(e["payments"], signed)}

    def _sette_e_mezzo_bank_transfer(self, e):
        return _("Seat %(to)s becomes the mazziere, after seat %(from)s") % {"to": _n(e["to"]), "from": _n(e["from"])}

    # --- Stoppa

    def _stoppa_hand(self, e):
        return _("Hand %(hand)s begins; the mazziere is seat %(seat)s") % {"hand": e["hand"], "seat": _n(e["dealer"])}

    def _stoppa_ante(self, e):
        return _("Every seat antes %(amount)s; the pot holds %(pot)s") % {"amount": e["amount"], "pot": e["pot"]}

    def _stoppa_deal(self, e):
        if "cards" in e:
            return _("Seat %(seat)s is dealt %(cards)s") % {"seat": _n(e["seat"]), "cards": self.cards(e["cards"])}
        return ngettext("Seat %(seat)s is dealt %(n)s card", "Seat %(seat)s is dealt %(n)s cards", e["count"]) % {
            "seat": _n(e["seat"]), "n": e["count"]}

    def _stoppa_betting(self, e):
        if e.get("final"):
            return _("The final betting round: prize %(prize)s, pot %(pot)s") % {"prize": e["prize"], "pot": e["pot"]}
        return _("Betting round %(round)s: prize %(prize)s, pot %(pot)s") % {
            "round": e["round"], "prize": e["prize"], "pot": e["pot"]}

    def _stoppa_open(self, e):
        return _("Seat %(seat)s opens at %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    def _stoppa_see(self, e):
        return _("Seat %(seat)s sees at %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    def _stoppa_showdown_starts(self, e):
        return _("Showdown: the seats show in the order %(order)s") % {"order": _seats(e["order"])}

    def _stoppa_show(self, e):
        return _("Seat %(seat)s shows %(cards)s: a point of %(point)s") % {
            "seat": _n(e["seat"]), "cards": self.cards(e["cards"]), "point": e["point"]}

    def _stoppa_concede(self, e):
        return _("Seat %(seat)s concedes") % {"seat": _n(e["seat"])}

    def _stoppa_showdown(self, e):
        return _("Seat %(seat)s wins the showdown with a point of %(point)s") % {
            "seat": _n(e["winner"]), "point": e["point"]}

    def _stoppa_prize(self, e):
        return _("Seat %(seat)s takes the prize of %(prize)s and receives %(received)s") % {
            "seat": _n(e["seat"]), "prize": e["prize"], "received": e["received"]}

    def _stoppa_special(self, e):
        kind = {"re": "stoppa di re", "povera": "stoppa povera", "assi": "stoppa di assi"}.get(e["kind"], e["kind"])
        return _("Seat %(seat)s has a %(kind)s. Payments: %(payments)s") % {
            "seat": _n(e["seat"]), "kind": kind, "payments": _per_seat(e["payments"], signed)}

    def _stoppa_stoppa(self, e):
        return _("The stoppa begins: seat %(seat)s lays first") % {"seat": _n(e["first"])}

    def _stoppa_lay(self, e):
        return _("Seat %(seat)s lays %(cards)s; cards left: %(left)s") % {
            "seat": _n(e["seat"]), "cards": self.cards(e["cards"]), "left": e["left"]}

    def _stoppa_close(self, e):
        if e.get("chiusa"):
            return _("Seat %(seat)s closes on their first turn (chiusa). Payments: %(payments)s") % {
                "seat": _n(e["seat"]), "payments": _per_seat(e["payments"], signed)}
        return _("Seat %(seat)s closes. Payments: %(payments)s") % {
            "seat": _n(e["seat"]), "payments": _per_seat(e["payments"], signed)}

    def _stoppa_hand_over(self, e):
        return _("Hand %(hand)s is over. Scores: %(scores)s") % {"hand": e["hand"],
                                                                 "scores": _per_seat(e["scores"], signed)}

    # --- Piazza

    def _piazza_start(self, e):
        return ngettext("The match begins: %(n)s figure to win", "The match begins: %(n)s figures to win",
                        e["figures"]) % {"n": e["figures"]}

    def _piazza_turn(self, e):
        return _("Turn %(turn)s: seat %(seat)s leads") % {"turn": e["turn"], "seat": _n(e["lead"])}

    def _piazza_draw(self, e):
        if "card" in e:
            return _("Seat %(seat)s draws %(card)s") % {"seat": _n(e["seat"]), "card": self.card(e["card"])}
        return _("Seat %(seat)s draws a card") % {"seat": _n(e["seat"])}

    def _piazza_rivolta(self, e):
        return _("Seat %(seat)s calls a rivolta") % {"seat": _n(e["seat"])}

    def _piazza_redeal(self, e):
        if "cards" in e:
            return _("Seat %(seat)s is dealt %(cards)s") % {"seat": _n(e["seat"]), "cards": self.cards(e["cards"])}
        return ngettext("Seat %(seat)s is dealt %(n)s card", "Seat %(seat)s is dealt %(n)s cards", e["count"]) % {
            "seat": _n(e["seat"]), "n": e["count"]}

    def _piazza_figure(self, e):
        return _("The figure is %(card)s: a take-set must total a multiple of %(n)s") % {
            "card": self.card(e["card"]), "n": e["modulus"]}

    def _piazza_request(self, e):
        return _("Seat %(seat)s asks for a %(rank)s") % {"seat": _n(e["seat"]), "rank": self.rank(e["rank"])}

    def _piazza_offer(self, e):
        if e.get("show"):
            return _("Seat %(seat)s offers a card, showing %(card)s (%(penalty)s points)") % {
                "seat": _n(e["seat"]), "card": self.card(e["show"]), "penalty": signed(-e.get("penalty", 3))}
        return _("Seat %(seat)s offers a card") % {"seat": _n(e["seat"])}

    def _piazza_decline(self, e):
        return _("Seat %(seat)s declines") % {"seat": _n(e["seat"])}

    def _piazza_no_offer(self, e):
        return _("Nobody offers seat %(seat)s a %(rank)s") % {"seat": _n(e["seat"]), "rank": self.rank(e["rank"])}

    def _piazza_choose(self, e):
        return _("Seat %(seat)s chooses the card of seat %(giver)s") % {"seat": _n(e["seat"]), "giver": _n(e["giver"])}

    def _piazza_give(self, e):
        return _("Seat %(seat)s gives %(card)s to seat %(to)s") % {
            "seat": _n(e["seat"]), "card": self.card(e["card"]), "to": _n(e["to"])}

    def _piazza_no_take(self, e):
        if e.get("draw"):
            return _("Nobody claims the figure; seats %(seats)s draw a card") % {"seats": _seats(e["draw"])}
        return _("Nobody claims the figure")

    def _piazza_replacement(self, e):
        return _("Replacement round %(n)s") % {"n": e["round"]}

    def _piazza_replace(self, e):
        if "card" in e:
            return _("Seat %(seat)s discards %(card)s and draws again") % {"seat": _n(e["seat"]),
                                                                          "card": self.card(e["card"])}
        return _("Seat %(seat)s discards a card and draws again") % {"seat": _n(e["seat"])}

    def _piazza_prendo(self, e):
        return _("Seat %(seat)s says prendo") % {"seat": _n(e["seat"])}

    def _piazza_join(self, e):
        return _("Seat %(seat)s joins at %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    def _piazza_join_raise(self, e):
        return _("Seat %(seat)s joins and raises to %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    def _piazza_stay_out(self, e):
        return _("Seat %(seat)s stays out") % {"seat": _n(e["seat"])}

    def _piazza_call(self, e):
        return _("Seat %(seat)s calls at %(amount)s") % {"seat": _n(e["seat"]), "amount": e["amount"]}

    def _piazza_hold(self, e):
        return _("Seat %(seat)s holds") % {"seat": _n(e["seat"])}

    def _piazza_withdraw(self, e):
        return _("Seat %(seat)s withdraws, leaving %(n)s chips") % {"seat": _n(e["seat"]), "n": e["forfeit"]}

    def _piazza_no_bets(self, e):
        return _("Nobody joins seat %(seat)s") % {"seat": _n(e["seat"])}

    def _piazza_uncontested(self, e):
        return _("Seat %(seat)s is unopposed") % {"seat": _n(e["seat"])}

    def _piazza_last_in(self, e):
        return _("Seat %(seat)s is the last one in") % {"seat": _n(e["seat"])}

    def _piazza_take(self, e):
        return _("Seat %(seat)s takes with %(cards)s") % {"seat": _n(e["seat"]), "cards": self.cards(e["cards"])}

    def _piazza_conflict(self, e):
        return _("A conflict between seats %(seats)s at level %(level)s") % {"seats": _seats(e["seats"]),
                                                                            "level": e["level"]}

    def _piazza_secret(self, e):
        if "cards" in e:
            return _("Seat %(seat)s chooses a take-set in secret: %(cards)s") % {
                "seat": _n(e["seat"]), "cards": self.cards(e["cards"])}
        return _("Seat %(seat)s chooses a take-set in secret") % {"seat": _n(e["seat"])}

    def _piazza_reveal(self, e):
        shown = "; ".join(_("seat %(n)s: %(what)s") % {"n": _n(one["seat"]), "what": self.cards(one["cards"])}
                          for one in e["take_sets"])
        return _("The take-sets are revealed (%(sets)s); seat %(seat)s wins") % {"sets": shown,
                                                                                "seat": _n(e["winner"])}

    def _piazza_win(self, e):
        return _("Seat %(seat)s wins %(card)s (%(points)s points) and a pot of %(pot)s chips") % {
            "seat": _n(e["seat"]), "card": self.card(e["figure"]), "points": e["points"], "pot": e["pot"]}

    def _piazza_reshuffle(self, e):
        return ngettext("The discards are shuffled into a new stock of %(n)s card",
                        "The discards are shuffled into a new stock of %(n)s cards", e["cards"]) % {"n": e["cards"]}

    # --- Spacca il mazzo

    def _spacca_il_mazzo_game(self, e):
        return _("Game %(game)s begins: seat %(seat)s leads") % {"game": e["game"], "seat": _n(e["first"])}

    def _spacca_il_mazzo_deal(self, e):
        if "cards" in e:
            return _("Seat %(seat)s is dealt %(cards)s") % {"seat": _n(e["seat"]), "cards": self.cards(e["cards"])}
        return ngettext("Seat %(seat)s is dealt %(n)s card", "Seat %(seat)s is dealt %(n)s cards", e["count"]) % {
            "seat": _n(e["seat"]), "n": e["count"]}

    def _spacca_il_mazzo_face_up(self, e):
        return _("Seat %(seat)s's face-up cards: %(cards)s") % {"seat": _n(e["seat"]), "cards": self.cards(e["cards"])}

    def _spacca_il_mazzo_face_down(self, e):
        if "cards" in e:
            return _("Three cards are dealt face down to each seat: %(cards)s") % {
                "cards": "; ".join(_("seat %(n)s: %(what)s") % {"n": position + 1, "what": self.cards(held)}
                                   for position, held in enumerate(e["cards"]))}
        return _("Three cards are dealt face down to each seat")

    def _spacca_il_mazzo_start(self, e):
        return _("The pile starts with %(card)s") % {"card": self.card(e["card"])}

    def _spacca_il_mazzo_start_rejected(self, e):
        return _("%(card)s may not start the pile: it goes under the deck") % {"card": self.card(e["card"])}

    def _spacca_il_mazzo_draw(self, e):
        if e.get("penalty"):
            if "card" in e:
                return _("Seat %(seat)s draws a penalty card: %(card)s") % {"seat": _n(e["seat"]),
                                                                           "card": self.card(e["card"])}
            return _("Seat %(seat)s draws a penalty card") % {"seat": _n(e["seat"])}
        if "card" in e:
            return _("Seat %(seat)s draws %(card)s") % {"seat": _n(e["seat"]), "card": self.card(e["card"])}
        return _("Seat %(seat)s draws a card") % {"seat": _n(e["seat"])}

    def _spacca_il_mazzo_play(self, e):
        return _("Seat %(seat)s plays %(cards)s") % {"seat": _n(e["seat"]), "cards": self.cards(e["cards"])}

    def _spacca_il_mazzo_pickup(self, e):
        return ngettext("Seat %(seat)s picks up the pile: %(n)s card", "Seat %(seat)s picks up the pile: %(n)s cards",
                        len(e["cards"])) % {"seat": _n(e["seat"]), "n": len(e["cards"])}

    def _spacca_il_mazzo_burn(self, e):
        return _("Seat %(seat)s burns the pile with %(cards)s") % {"seat": _n(e["seat"]),
                                                                  "cards": self.cards(e["cards"])}

    def _spacca_il_mazzo_flip(self, e):
        said = _("Seat %(seat)s turns up face-down card %(slot)s: %(card)s") % {
            "seat": _n(e["seat"]), "slot": _n(e["slot"]), "card": self.card(e["card"])}
        if e.get("result") == "played":
            said += " " + _("and plays it")
        elif e.get("result") == "picked_up":
            said += " " + _("and takes it with the pile")
        return said

    def _spacca_il_mazzo_red_joker(self, e):
        seat, choice = _n(e["seat"]), e.get("choice")
        if choice == "dump":
            return _("Seat %(seat)s throws their whole hand with the red joker: %(cards)s") % {
                "seat": seat, "cards": self.cards(e.get("cards", []))}
        if choice in ("up", "down"):
            return _("Seat %(seat)s throws %(cards)s with the red joker") % {"seat": seat,
                                                                            "cards": self.cards(e.get("cards", []))}
        if choice == "decline":
            return _("Seat %(seat)s does not use the red joker") % {"seat": seat}
        return _("Seat %(seat)s meets the red joker") % {"seat": seat}

    def _spacca_il_mazzo_black_joker(self, e):
        return _("Seat %(seat)s meets the black joker and takes the pile") % {"seat": _n(e["seat"])}

    def _spacca_il_mazzo_finish(self, e):
        return _("Seat %(seat)s has no cards left: place %(place)s") % {"seat": _n(e["seat"]), "place": e["place"]}

    def _spacca_il_mazzo_game_over(self, e):
        return _("Game %(game)s is over. Points: %(points)s") % {"game": e["game"],
                                                                "points": _per_seat(e["points"], signed)}

    # --- actions: what a button says

    def action(self, action: dict) -> str:
        """A legal action in words, as its button says it."""
        kind = action.get("type")
        say = ACTIONS.get((self.game, kind)) or ACTIONS.get((None, kind))
        if say is None:
            return kind.replace("_", " ").capitalize() if isinstance(kind, str) else str(action)
        return say(self, action)


def _hit(teller, a):
    if a.get("mode") == "keep":
        return _("Hit, the first card kept face down")
    if a.get("mode") == "expose":
        return _("Hit, the first card turned up")
    return _("Hit")


def _offer(teller, a):
    if a.get("show"):
        return _("Offer, showing %(card)s (−3 points)") % {"card": teller.card(a["show"])}
    return _("Offer a card")


def _piazza_discard(teller, a):
    if len(a.get("cards", [])) == 1:
        return _("Discard %(cards)s") % {"cards": teller.cards(a["cards"])}
    return _("Take with %(cards)s") % {"cards": teller.cards(a["cards"])}


def _joker_throw(teller, a):
    if "card" in a:
        return _("Throw %(card)s with the red joker") % {"card": teller.card(a["card"])}
    return _("Throw face-down card %(n)s with the red joker") % {"n": _n(a["slot"])}


ACTIONS = {
    (None, "pass"): lambda t, a: _("Pass"),
    (None, "stake"): lambda t, a: _("Stake %(n)s") % {"n": a["amount"]},
    (None, "raise"): lambda t, a: _("Raise to %(n)s") % {"n": a["amount"]},
    ("sette_e_mezzo", "hit"): _hit,
    ("sette_e_mezzo", "stand"): lambda t, a: _("Stand"),
    ("stoppa", "open"): lambda t, a: _("Open at %(n)s") % {"n": a["amount"]},
    ("stoppa", "see"): lambda t, a: _("See"),
    ("stoppa", "show"): lambda t, a: _("Show %(cards)s") % {"cards": t.cards(a["cards"])},
    ("stoppa", "concede"): lambda t, a: _("Concede"),
    ("stoppa", "lay"): lambda t, a: _("Lay %(cards)s") % {"cards": t.cards(a["cards"])},
    ("piazza", "rivolta"): lambda t, a: _("Call a rivolta"),
    ("piazza", "request"): lambda t, a: _("Ask for a %(rank)s") % {"rank": t.rank(a["rank"])},
    ("piazza", "offer"): _offer,
    ("piazza", "decline"): lambda t, a: _("Decline"),
    ("piazza", "choose"): lambda t, a: _("Take the card of seat %(n)s") % {"n": _n(a["seat"])},
    ("piazza", "give"): lambda t, a: _("Give %(card)s") % {"card": t.card(a["card"])},
    ("piazza", "prendo"): lambda t, a: "Prendo",
    ("piazza", "discard"): _piazza_discard,
    ("piazza", "stay_out"): lambda t, a: _("Stay out"),
    ("piazza", "join"): lambda t, a: _("Join"),
    ("piazza", "join_raise"): lambda t, a: _("Join and raise to %(n)s") % {"n": a["amount"]},
    ("piazza", "call"): lambda t, a: _("Call"),
    ("piazza", "withdraw"): lambda t, a: pgettext("a Piazza player leaves the hand", "Withdraw"),
    ("piazza", "hold"): lambda t, a: _("Hold"),
    ("piazza", "reveal"): lambda t, a: _("Reveal %(cards)s") % {"cards": t.cards(a["cards"])},
    ("spacca_il_mazzo", "play"): lambda t, a: _("Play %(cards)s") % {"cards": t.cards(a["cards"])},
    ("spacca_il_mazzo", "draw"): lambda t, a: _("Draw a card"),
    ("spacca_il_mazzo", "pickup"): lambda t, a: _("Pick up the pile"),
    ("spacca_il_mazzo", "flip"): lambda t, a: _("Turn up face-down card %(n)s") % {"n": _n(a["slot"])},
    ("spacca_il_mazzo", "joker_dump"): lambda t, a: _("Throw your whole hand with the red joker"),
    ("spacca_il_mazzo", "joker_throw"): _joker_throw,
    ("spacca_il_mazzo", "joker_decline"): lambda t, a: _("Do not use the red joker"),
}


def amount_choice(kind: str) -> str | None:
    """What a choice among many amounts of one action says ("Stake", "Raise to"), or None for
    an action without an amount to choose."""
    words = {"stake": _("Stake"), "open": _("Open at"), "raise": _("Raise to"), "join_raise": _("Join and raise to")}
    return words.get(kind)
