"""The read side of online matches (docs/online.md): a match as it stands, what a seat and a
spectator see of it, and whose turn it is. Reads only: the services (services.online) move the
matches, the pages, the API and the event streams (tournaments.feeds) show them from here.

An online match's state is the engine replaying the actions chosen so far (``MatchAction``
rows) from the match's seed: nothing else is stored, and nothing a seat is not entitled to see
leaves the engine except through ``view(seat)``. A match is loaded as its table
(:class:`OnlineTable`: the match, its seats and the :class:`bots.table.Table` that holds the
state), from the last state this process saw committed (:data:`replays`) and the actions
stored since.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

import engine
from bots.table import NETWORK, Forfeit, ForfeitPolicy, Table
from tournaments import plain
from tournaments.errors import ServiceError
from tournaments.models import Match, Seat, Tournament

#: Who seats a loaded table's players (services.online: the service's bots, their policy and
#: time left): (match, seats) -> (players, policy, think_left). Without it every seat waits for
#: the network, which is all a read needs.
Seating = Callable[[Match, list[Seat]], tuple[list[Any], ForfeitPolicy, list[float | None]]]


@dataclass
class OnlineTable:
    """An online match as it stands: the match (locked by the caller when it changes it), its
    seats in turn order, and its :class:`~bots.table.Table` (``play``: the engine state, the
    seats' players, the forfeits, the events it told)."""

    match: Match
    seats: list[Seat]
    play: Table

    @property
    def state(self) -> engine.State:
        return self.play.state

    @property
    def actions(self) -> int:
        """The actions applied so far."""
        return self.play.played

    @property
    def tournament(self) -> Tournament:
        return self.match.round.tournament

    def seat(self, position: int) -> Seat:
        if not (isinstance(position, int) and 0 <= position < len(self.seats)):
            raise ServiceError(f"this match has seats 0 to {len(self.seats) - 1}, not {position!r}", "position",
                               code="not_found")
        return self.seats[position]

    def waits_for(self) -> int | None:
        """The seat whose owner must act now through the API, or None (over, or the service's
        turn)."""
        return awaited(self.state.current_player(), self.seats, self.forfeited())

    def external_turn(self) -> int | None:
        """The seat to act now if an external bot plays it (not forfeited): a worker asks it
        (services.online.online_bots_move); else None."""
        turn = self.state.current_player()
        if turn is None or turn in self.play.forfeits or not self.seats[turn].player.is_external_bot:
            return None
        return turn

    def service_turn(self) -> int | None:
        """The seat to act now if the service plays it (a built-in or external bot, or the
        fallback bot of a forfeited seat): a worker plays it; else None (an online seat's
        turn, or the end)."""
        turn = self.state.current_player()
        if turn is None or self.waits_for() is not None:
            return None
        return turn

    def forfeited(self) -> frozenset[int]:
        return frozenset(self.play.forfeits)


def awaited(turn: int | None, seats: list[Seat], forfeited: set[int] | frozenset[int]) -> int | None:
    """``turn`` if its seat is played through the API (a person or a remote bot, not
    forfeited), else None: the service plays it, or nobody is to act."""
    if turn is None or turn in forfeited or not seats[turn].player.plays_online:
        return None
    return turn


def count_of_match(model, match: str = "pk", **where) -> Coalesce:
    """How many of ``model``'s rows (those matching ``where``) belong to a match, as a query
    expression: on matches (``match="pk"``) or on rows that point at one (``match="match"``)."""
    rows = model.objects.filter(match=OuterRef(match), **where).order_by().values("match")
    return Coalesce(Subquery(rows.annotate(n=Count("*")).values("n")[:1]), 0)


NOT_ONLINE = ("this match is not played online: bots play it in the workers, or people play it on a real table "
              "and report the result")


def check_online(match: Match, seats: list[Seat]) -> None:
    """Refuse (conflict) a match that is not played through the API: its tournament is not
    online, or none of its ``seats`` (with their players) plays online."""
    if not (match.round.tournament.online and any(seat.player.plays_online for seat in seats)):
        raise ServiceError(NOT_ONLINE, "match", code="conflict")


class _Replays:
    """The engine states of the online matches this process touched lately, as last committed:
    a request then applies only the actions stored since, instead of replaying the whole match
    (a long Spacca il mazzo match has hundreds). A state enters only once the transaction that
    read or wrote it has committed (``transaction.on_commit``), so it never holds an action
    that was rolled back; actions are never removed, so a cached state is a prefix of the
    match. Keyed by the match, its seed and its opening time, which no other match shares even
    where a test database reuses ids. Least recently used out past ``size``."""

    def __init__(self, size: int = 2000) -> None:
        self.size = size
        self._states: OrderedDict[tuple, tuple[int, engine.State]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(match: Match) -> tuple | None:
        return (match.pk, match.seed, match.started_at) if match.started_at is not None else None

    def get(self, match: Match) -> tuple[int, engine.State] | None:
        """(actions applied, a copy of the state after them) or None."""
        key = self.key(match)
        with self._lock:
            hit = self._states.get(key) if key else None
            if hit is None:
                return None
            self._states.move_to_end(key)
        return hit[0], hit[1].clone()

    def put(self, match: Match, actions: int, state: engine.State) -> None:
        key = self.key(match)
        if key is None:
            return
        with self._lock:
            known = self._states.get(key)
            if known is None or known[0] <= actions:
                self._states[key] = (actions, state)
                self._states.move_to_end(key)
            while len(self._states) > self.size:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


replays = _Replays()


def remember(table: OnlineTable) -> None:
    """Keep the table's state, as it is when the current transaction commits."""
    transaction.on_commit(lambda: replays.put(table.match, table.actions, table.state.clone()))


def deal(match: Match, players: int) -> engine.State:
    """The match before its first action: its game dealt from its seed (and stacked deck)."""
    tournament = match.round.tournament
    try:
        return engine.game(tournament.game).new_match(players=players, seed=match.seed, options=tournament.options,
                                                      deck=match.deck)
    except engine.InvalidOptions as exc:  # checked at creation: a bug, not a request's fault
        raise RuntimeError(f"match {match.pk} cannot be dealt: {exc}") from exc


def table_load(match: Match, seating: Seating | None = None) -> OnlineTable:
    """The match as it stands, replayed from its seed and its actions (from the last state this
    process saw committed, when it has one); its players seated by ``seating`` (None: every
    seat waits for the network)."""
    known = replays.get(match)
    applied, state = known if known is not None else (0, None)
    seats, actions = plain.seats_and_actions(match, applied)
    if state is None:
        state = deal(match, len(seats))
    for action in actions:
        state.apply(action)
    if seating is None:
        players, policy, left = [NETWORK] * len(seats), ForfeitPolicy(), None
    else:
        players, policy, left = seating(match, seats)
    forfeits = {seat.position: Forfeit(seat.forfeit_reason, seat.forfeit_detail, 0)
                for seat in seats if seat.forfeit_reason}
    play = Table.resume(state, players, seed=match.seed, played=applied + len(actions), policy=policy,
                        forfeits=forfeits, think_left=left)
    table = OnlineTable(match=match, seats=seats, play=play)
    remember(table)
    return table


def match_read(match_id: int, *, lock: bool = False, skip_locked: bool = False) -> Match | None:
    """The match with its round and its tournament, in one statement (tournaments.plain)."""
    return plain.match_read(match_id, lock=lock, skip_locked=skip_locked)


def bank_left(table: OnlineTable, position: int) -> float:
    """The seconds of its bank the seat has left (0.0 when the tournament gives none)."""
    bank = table.tournament.bank_seconds
    if not bank:
        return 0.0
    left = table.seats[position].bank_left
    return float(bank) if left is None else left


#: The most events a view the API or a stream serves carries: the latest of its hand's (its
#: game's, in Spacca il mazzo) — every hand of Stoppa, Sette e mezzo and Piazza fits (at most
#: ~130 events, at the largest tables); a Spacca il mazzo game may run to thousands (~80 bytes
#: each). A view holds the state; the match's history is its stream and, once public, its replay.
VIEW_EVENTS = 200


def served(view: dict) -> dict:
    """``view`` (an engine's view) as the API and the streams serve it: at most VIEW_EVENTS of
    its events, the latest, with ``events_skipped``, how many earlier ones are left out, when
    any is. Changes and returns ``view``."""
    events = view.get("events")
    if events is not None and len(events) > VIEW_EVENTS:
        view["events_skipped"] = len(events) - VIEW_EVENTS
        view["events"] = events[-VIEW_EVENTS:]
    return view


def seat_view(*, match: Match, position: int) -> dict:
    """What the seat at ``position`` sees now (the engine's ``view(seat)``: its own cards, the
    public table, whose turn, its legal actions on its turn), for its own player's owner only
    (the caller checks). Read-only: a match not opened yet shows whose turn it will be. Refused
    (conflict) for a match not played online."""
    table = table_load(match)
    check_online(match, table.seats)
    seat = table.seat(position)
    return {
        "match": match.pk, "position": position, "player": seat.player.name, "status": match.status,
        "turn": table.state.current_player(), "waiting_for": table.waits_for(),
        "forfeited": bool(seat.forfeit_reason), "deadline_at": match.deadline_at,
        "bank_left": bank_left(table, position) if table.tournament.bank_seconds and seat.player.plays_online else None,
        "actions": table.actions,
        "view": served(table.state.view(position)),
    }


def table_view(*, match: Match) -> dict:
    """What a spectator sees of an online match: the public view (the engine's ``view(None)``).
    Refused (conflict) for a match not played online."""
    table = table_load(match)
    check_online(match, table.seats)
    return {
        "match": match.pk, "status": match.status, "turn": table.state.current_player(),
        "waiting_for": table.waits_for(), "deadline_at": match.deadline_at, "actions": table.actions,
        "view": served(table.state.view(None)),
    }
