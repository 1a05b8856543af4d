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

A feed keeps its engine state between polls and applies only the actions committed since. The
streams of one match in a process share its :class:`MatchReader`: one read per change (one
statement: the match's status, clock, forfeits, result and the actions not yet read), made by
the first stream the change's notification wakes and taken by the others, so following a match
costs one small query per change and process, and a few engine steps per stream.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
import weakref
from dataclasses import dataclass, field

from django.db import connection

import engine
from tournaments import events, online_reads, plain
from tournaments.errors import ServiceError
from tournaments.models import Match, MatchAction, Tournament
from tournaments.selectors import online_seats

VIEW, OVER, TURN, RESYNC = "view", "over", "turn", "resync"

#: The most views one poll of a seat's or a spectator's feed sends between the last it sent (or
#: the reader's Last-Event-ID) and the current one; a reader further behind gets ``resync`` and
#: the current view alone (a view holds the state): a catch-up of a long match, or a run of
#: many bot moves committed at once, is a few hundred KB at most, not the whole match's views.
VIEWS_PER_POLL = 20


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


@dataclass(frozen=True)
class Snapshot:
    """A match as one read found it, in one statement (so one snapshot of the database): its
    status and clock as they were when its first ``count`` actions were all there (the commit
    that adds an action moves the clock and, with the last one, ends the match)."""

    seen: int  # the notifications of the match its reader had heard when the read began
    status: str  # the match's; "cancelled" (its tournament was, before its end), "deleted" (gone)
    deadline_at: object
    forfeited: frozenset[int]  # the positions of its forfeited seats
    first: int  # the number of the first action of ``actions``
    actions: list  # its actions from ``first`` on (perhaps more than ``count``: read what count says)
    count: int  # the actions it had
    result: dict | None  # ``scores`` and ``places`` once it is finished


DELETED = "deleted"

def read_match(match_id: int, first: int, seen: int) -> Snapshot:
    """The match as it stands, with its actions from number ``first`` on: one statement, so one
    snapshot (status, clock, forfeits, result and actions agree), in plain SQL (building an ORM
    query costs more than running it)."""
    found, (deadline, scores_of, places_of, action_of) = plain.match_feed_rows(match_id, first)
    if not found:  # deleted with its tournament
        return Snapshot(seen, DELETED, None, frozenset(), first, [], first, None)
    status, deadline_at, tournament_status, forfeits, scores, places, seq, _ = found[0]
    actions = []
    if seq is not None:  # else no action from ``first`` on: the left join's one empty row
        if [row[6] for row in found] != list(range(first, first + len(found))):  # append-only: never
            raise RuntimeError(f"match {match_id}: its actions from {first} are not in sequence")
        actions = [action_of(row[7]) for row in found]
    if tournament_status == Tournament.Status.CANCELLED and status != Match.Status.FINISHED:
        status = "cancelled"
    result = None
    if scores is not None and status == Match.Status.FINISHED:
        result = {"scores": scores_of(scores), "places": places_of(places)}
    mask = int(forfeits or 0)  # PostgreSQL sums to a numeric
    return Snapshot(seen=seen, status=status, deadline_at=deadline(deadline_at),
                    forfeited=frozenset(p for p in range(mask.bit_length()) if mask >> p & 1), first=first,
                    actions=actions, count=first + len(actions), result=result)


class MatchReader:
    """One online match as this process's streams read it, shared by all of them (its seats'
    and its spectators'): each change is read once, by whichever stream the notification wakes
    first, and the others take that read. A read is reused by a stream only if it began after
    every notification the stream was woken by (its :class:`~tournaments.events.Mark` counts
    them, before any stream wakes), so no stream misses a change; a stream that looks without
    a notification (its first look, its periodic one) reads for itself.

    It keeps the match's seats, its deal, and its actions as far as read: only committed
    actions, for it reads only outside any transaction (in one, a read may see that
    transaction's own writes, which may yet be rolled back: such a read is the stream's own,
    never shared). Its actions are never removed (they are append-only), so a stream applies
    only those after its own count. It lives as long as a feed holds it (:func:`match_reader`)."""

    def __init__(self, match: Match) -> None:
        self.match_id = match.pk
        self.seats = list(match.seats.select_related("player").order_by("position"))
        online_reads.check_online(match, self.seats)
        if len(self.seats) > 62:  # the forfeits are read as a 64-bit mask
            raise RuntimeError(f"match {match.pk} has {len(self.seats)} seats: at most 62 are read")
        self._dealt = online_reads.deal(match, len(self.seats))
        self.actions: list = []  # committed actions 0, 1, 2 ... as far as read; only ever appended to
        self.snapshot: Snapshot | None = None  # the last shared read
        self.reads = 0  # reads made (for tests: one per change however many streams)
        self._lock = threading.Lock()  # one shared read at a time: the others wait for it, then take it
        # The read a stream on an event loop has set out to make (its future, settled once its
        # poll is over; the notifications heard then): the loop's other streams await it there
        # rather than each take a thread to wait on the lock.
        self._claim: tuple[concurrent.futures.Future, int] | None = None
        self._claim_lock = threading.Lock()
        hub = events.hub()
        self._mark = hub.mark([events.match_channel(match.pk)])
        weakref.finalize(self, hub.forget, self._mark)

    def deal(self) -> engine.State:
        """The match before its first action (a state of the caller's own)."""
        return self._dealt.clone()

    def current(self, looked: int | None) -> Snapshot | None:
        """The last shared read, if it will do for a stream whose last read began after
        ``looked`` notifications: the stream has been notified since, and the read began after
        every notification heard. None: the stream must read (:meth:`look`). No database."""
        snapshot = self.snapshot
        if snapshot is not None and looked is not None and looked < snapshot.seen == self._mark.count:
            return snapshot
        return None

    def claim(self, looked: int | None) -> tuple[concurrent.futures.Future, bool]:
        """For a stream on an event loop that must read (:meth:`current` said None): the future
        of a read another stream has set out to make since every notification heard, to await
        before :meth:`current` again (False); or a new claim, which the caller makes by polling
        in a thread and settles (``set_result``) once done, whatever happens (True)."""
        with self._claim_lock:
            count = self._mark.count
            if self._claim is not None:
                future, seen = self._claim
                if not future.done() and seen == count and looked is not None and looked < count:
                    return future, False
            future = concurrent.futures.Future()
            self._claim = (future, count)
            return future, True

    def look(self, looked: int | None, applied: int) -> Snapshot:
        """The match for a stream whose last read began after ``looked`` notifications (None: it
        never read) and that has applied ``applied`` actions: the last shared read if it will do,
        else a new read."""
        if connection.in_atomic_block:
            self.reads += 1
            return read_match(self.match_id, applied, self._mark.count)  # this stream's alone
        with self._lock:
            if (snapshot := self.current(looked)) is not None:
                return snapshot
            seen = self._mark.count  # before the read: a notification heard during it reads again
            got = read_match(self.match_id, len(self.actions), seen)
            self.reads += 1
            self.actions.extend(got.actions)
            self.snapshot = dataclasses.replace(got, first=0, actions=self.actions, count=len(self.actions))
            return self.snapshot


_readers: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_readers_lock = threading.Lock()


def match_reader(match: Match) -> MatchReader:
    """This process's reader of ``match``, made by the first stream of the match (its seats
    loaded, the match checked online: ServiceError otherwise) and gone with the last one.
    Keyed by the match, its seed and its opening, which no other match shares even where a test
    database reuses ids."""
    key = (match.pk, match.seed, match.started_at)
    with _readers_lock:
        reader = _readers.get(key)
    if reader is None:
        made = MatchReader(match)  # its queries outside the lock
        with _readers_lock:
            reader = _readers.setdefault(key, made)
    return reader


class SeatFeed:
    """The events of one seat of an online match, or of its spectators (``position=None``).

    ``after``: the id of the last event the reader has (``Last-Event-ID``): the first poll sends
    every view after it. Without it the first poll sends only the current view.

    The feed keeps its own engine state (each seat's view after each action is its own) and
    takes what changed from the match's :class:`MatchReader`, which it shares with the match's
    other streams in this process."""

    def __init__(self, match: Match, position: int | None, after: int | None = None) -> None:
        self.match_id = match.pk
        self.position = position
        self.after = after
        self.reader = match_reader(match)
        self.seats = self.reader.seats
        self.state = self.reader.deal()
        self.applied = 0
        self.looked: int | None = None  # the notifications heard when the last read it took began
        self.sent: tuple | None = None  # what the last view event said of the match, beyond its view
        self.done = False

    @property
    def channels(self) -> list[str]:
        return [events.match_channel(self.match_id)]

    def _event(self, *, status: str, deadline_at, forfeited: frozenset[int]) -> Event:
        turn = self.state.current_player()
        waiting_for = online_reads.awaited(turn, self.seats, forfeited) if status == Match.Status.RUNNING else None
        data = {
            "match": self.match_id, "actions": self.applied, "status": status, "turn": turn,
            "waiting_for": waiting_for, "deadline_at": deadline_at,
            "view": online_reads.served(self.state.view(self.position)),
        }
        if self.position is not None:
            data["position"] = self.position
            data["forfeited"] = self.position in forfeited
        return Event(id=str(self.applied), kind=VIEW, data=data)

    def poll(self) -> list[Event]:
        """The events since the last poll (the first: since ``after``, or only the current
        view); sets ``done`` once the match is over (its last event is ``over``) or its
        tournament cancelled. Reads the database unless the match's last shared read will do."""
        if self.done:
            return []
        return self._events(self.reader.look(self.looked, self.applied))

    def poll_cached(self) -> list[Event] | None:
        """:meth:`poll` without the database, when the match's last shared read will do (an event
        loop calls it before sending a read to a thread); None when a read is needed."""
        if self.done:
            return []
        snapshot = self.reader.current(self.looked)
        return None if snapshot is None else self._events(snapshot)

    def claim(self) -> tuple[concurrent.futures.Future, bool]:
        """:meth:`MatchReader.claim` for this feed."""
        return self.reader.claim(self.looked)

    def _events(self, snapshot: Snapshot) -> list[Event]:
        self.looked = snapshot.seen
        if snapshot.status == DELETED:
            self.done = True
            return [Event(id=str(self.applied), kind=OVER, data={"match": self.match_id, "status": DELETED})]
        forfeited = snapshot.forfeited
        # The views the reader has not had between its last event and the current one: after
        # ``after`` on the first poll (none without it), all of them on later polls; VIEWS_PER_POLL
        # at most, else none of them but a ``resync`` (the current view follows).
        seen = self.after if self.sent is None else self.sent[0]
        total = snapshot.count
        out = []
        missed = 0 if seen is None else total - max(seen, self.applied) - 1
        between = seen is not None and missed <= VIEWS_PER_POLL
        if missed > VIEWS_PER_POLL:
            out.append(Event(id="", kind=RESYNC, data={"match": self.match_id, "after": seen, "actions": total,
                                                       "skipped": missed}))
        for action in snapshot.actions[self.applied - snapshot.first:total - snapshot.first]:
            self.state.apply(action)
            self.applied += 1
            if between and seen < self.applied < total:
                out.append(self._event(status=Match.Status.RUNNING, deadline_at=None, forfeited=forfeited))
        status = snapshot.status
        said = (self.applied, status, snapshot.deadline_at, tuple(sorted(forfeited)))
        if said != self.sent:
            out.append(self._event(status=status, deadline_at=snapshot.deadline_at, forfeited=forfeited))
            self.sent = said
        if status in (Match.Status.FINISHED, "cancelled"):
            out.append(self._over(status, snapshot.result))
            self.done = True
        return out

    def _over(self, status: str, result: dict | None) -> Event:
        data = {"match": self.match_id, "status": status, "actions": self.applied}
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
                     .annotate(actions=online_reads.count_of_match(MatchAction, "match"))[:TURNS_PER_POLL])
        if self.after is not None:
            self.sent.add(self.after)
            self.after = None
        out, awaited = [], set()
        for seat in seats:
            key = f"{seat.match_id}-{seat.position}-{seat.actions}"
            awaited.add(key)
            if key in self.sent:
                continue
            view = online_reads.seat_view(match=seat.match, position=seat.position)
            if view["waiting_for"] != seat.position:
                continue  # moved on since the query: the next wake-up tells
            key = f"{seat.match_id}-{seat.position}-{view['actions']}"
            awaited.add(key)
            out.append(Event(id=key, kind=TURN, data=view))
        self.sent = awaited  # what is no longer awaited is forgotten: the set stays small
        return out
