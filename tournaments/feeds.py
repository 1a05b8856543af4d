"""The events of online matches, as their streams send them (docs/online.md, "Event streams").

Reads only: a feed turns what the services committed (a match's actions, its status and
clock, its seats' forfeits, its result) into events for one reader. Nothing is stored per
event: a match's *n*-th event is its state after its *n*-th action, replayed by the engine
from the match's seed, so any event can be sent again after a reconnection (``Last-Event-ID``)
and nothing but the engine decides what a reader sees.

* :class:`SeatFeed` — one seat's events: after every action, that seat's own view (the
  engine's ``view(seat)``: its cards, the public table, whose turn, its legal actions on its
  turn) — or, for a spectator (``position=None``), the public view (``view(None)``). Event
  ``view``, id = the number of actions applied. Then ``over`` (the result) and the end.
* :class:`TurnFeed` — one account's turns: a ``turn`` event each time one of its online seats
  is awaited (the seat's view, its deadline), id ``<match>-<position>-<actions>``.

A feed keeps its engine state between polls and applies only the actions committed since, so
following a match costs one small query and a few engine steps per change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tournaments import events
from tournaments.models import Match, MatchAction, Result, Seat, Tournament
from tournaments.selectors import online_seats
from tournaments.services import online
from tournaments.services.errors import ServiceError

VIEW, OVER, TURN = "view", "over", "turn"


@dataclass(frozen=True)
class Event:
    """One server-sent event: its id (what ``Last-Event-ID`` sends back), its name and its JSON
    data."""

    id: str
    kind: str
    data: dict


def view_event_id(value: str | None) -> int | None:
    """A seat or spectator feed's ``Last-Event-ID``: the number of actions the reader has seen
    (an integer from 0 to 1,000,000), or None when absent."""
    if value is None or value == "":
        return None
    if not (value.isascii() and value.isdigit() and len(value) <= 7):
        raise ServiceError("Last-Event-ID is the id of an event of this stream: a number of actions, 0 to 1000000",
                           "Last-Event-ID")
    return int(value)


class SeatFeed:
    """The events of one seat of an online match, or of its spectators (``position=None``).

    ``after``: the id of the last event the reader has (``Last-Event-ID``): the first poll sends
    every view after it. Without it the first poll sends only the current view."""

    def __init__(self, match: Match, position: int | None, after: int | None = None) -> None:
        self.match_id = match.pk
        self.position = position
        self.after = after
        self.seats = list(match.seats.select_related("player").order_by("position"))
        online.check_online(match, self.seats)
        self.state = online.deal(match, len(self.seats))
        self.applied = 0
        self.forfeited: set[int] = set()
        self.sent: tuple | None = None  # what the last view event said of the match, beyond its view
        self.done = False

    @property
    def channels(self) -> list[str]:
        return [events.match_channel(self.match_id)]

    def _event(self, *, status: str, deadline_at, forfeited: set[int]) -> Event:
        turn = self.state.current_player()
        waiting_for = online.awaited(turn, self.seats, forfeited) if status == Match.Status.RUNNING else None
        data = {
            "match": self.match_id, "actions": self.applied, "status": status, "turn": turn,
            "waiting_for": waiting_for, "deadline_at": deadline_at,
            "view": self.state.view(self.position),
        }
        if self.position is not None:
            data["position"] = self.position
            data["forfeited"] = self.position in forfeited
        return Event(id=str(self.applied), kind=VIEW, data=data)

    def poll(self) -> list[Event]:
        """The events since the last poll (the first: since ``after``, or only the current
        view); sets ``done`` once the match is over (its last event is ``over``) or its
        tournament cancelled."""
        if self.done:
            return []
        # One statement, so one snapshot: the match's status and clock as they were when its
        # first ``n_actions`` actions were all there (the commit that adds an action moves the
        # clock and, with the last one, ends the match). Actions committed since wait for the
        # next look, which their commit's notification brings.
        match = (Match.objects.filter(pk=self.match_id)
                 .annotate(n_actions=online.count_of_match(MatchAction),
                           n_forfeits=online.count_of_match(Seat, forfeit_reason__gt=""))
                 .values("status", "deadline_at", "round__tournament__status", "n_actions", "n_forfeits").first())
        if match is None:  # deleted with its tournament
            self.done = True
            return [Event(id=str(self.applied), kind=OVER, data={"match": self.match_id, "status": "deleted"})]
        if match["n_forfeits"] != len(self.forfeited):
            self.forfeited = set(Seat.objects.filter(match_id=self.match_id).exclude(forfeit_reason="").order_by()
                                 .values_list("position", flat=True))
        forfeited = self.forfeited
        new = []
        if match["n_actions"] > self.applied:
            new = list(MatchAction.objects.filter(match_id=self.match_id, seq__gte=self.applied,
                                                  seq__lt=match["n_actions"]).order_by("seq")
                       .values_list("action", flat=True))
        # The views the reader has not had between its last event and the current one: after
        # ``after`` on the first poll (none without it), all of them on later polls.
        seen = self.after if self.sent is None else self.sent[0]
        total = self.applied + len(new)
        out = []
        for action in new:
            self.state.apply(action)
            self.applied += 1
            if seen is not None and seen < self.applied < total:
                out.append(self._event(status=Match.Status.RUNNING, deadline_at=None, forfeited=forfeited))
        status = match["status"]
        if match["round__tournament__status"] == Tournament.Status.CANCELLED and status != Match.Status.FINISHED:
            status = "cancelled"
        said = (self.applied, status, match["deadline_at"], tuple(sorted(forfeited)))
        if said != self.sent:
            out.append(self._event(status=status, deadline_at=match["deadline_at"], forfeited=forfeited))
            self.sent = said
        if status in (Match.Status.FINISHED, "cancelled"):
            out.append(self._over(status))
            self.done = True
        return out

    def _over(self, status: str) -> Event:
        data = {"match": self.match_id, "status": status, "actions": self.applied}
        if status == Match.Status.FINISHED:
            result = Result.objects.filter(match_id=self.match_id).values("scores", "places").first()
            if result is not None:
                data.update(scores=result["scores"], places=result["places"])
        return Event(id=str(self.applied), kind=OVER, data=data)


TURNS_PER_POLL = 100  # awaited seats one poll of a TurnFeed sends at most (the next poll sends the rest)


def turn_event_id(value: str | None) -> str | None:
    """A turn feed's ``Last-Event-ID`` (``<match>-<position>-<actions>``), or None."""
    if value is None or value == "":
        return None
    parts = value.split("-")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 12 for p in parts):
        raise ServiceError("Last-Event-ID is the id of a turn event: <match>-<position>-<actions>", "Last-Event-ID")
    return value


@dataclass
class TurnFeed:
    """The turns of one account's online seats (of one bot, for a token tied to it): a ``turn``
    event — what ``GET /api/matches/{id}/seats/{position}/`` answers — each time one of them is
    awaited. ``after``: the id of the last turn event the reader has, not sent again."""

    user: object
    bot_id: int | None = None
    after: str | None = None
    sent: set[str] = field(default_factory=set)
    done: bool = False  # a turn feed follows its account forever

    @property
    def channels(self) -> list[str]:
        return [events.user_channel(self.user.pk)]

    def poll(self) -> list[Event]:
        seats = list(online_seats(self.user, self.bot_id).filter(your_turn=True)
                     .annotate(actions=online.count_of_match(MatchAction, "match"))[:TURNS_PER_POLL])
        if self.after is not None:
            self.sent.add(self.after)
            self.after = None
        out, awaited = [], set()
        for seat in seats:
            key = f"{seat.match_id}-{seat.position}-{seat.actions}"
            awaited.add(key)
            if key in self.sent:
                continue
            view = online.seat_view(match=seat.match, position=seat.position)
            if view["waiting_for"] != seat.position:
                continue  # moved on since the query: the next wake-up tells
            key = f"{seat.match_id}-{seat.position}-{view['actions']}"
            awaited.add(key)
            out.append(Event(id=key, kind=TURN, data=view))
        self.sent = awaited  # what is no longer awaited is forgotten: the set stays small
        return out
