"""Online matches: people and remote bots play their seats through the API, turn by turn, and
the server is the only referee (docs/online.md).

A match of an ``online`` tournament with a seat that plays online (a person, or a remote bot:
``Player.plays_online``) is never played by a worker. Its state is the engine replaying the
actions chosen so far (``MatchAction`` rows) from the match's seed: nothing else is stored,
and nothing a seat is not entitled to see leaves the engine except through ``view(seat)``.
Each action is taken under the match's row lock, so two requests never move one match at
once. Between online turns, the seats the service plays — built-in bots, external bots
(subprocess or HTTP: their authors' programs) and the fallback bot of a forfeited seat — are
played by a worker (:func:`online_bots_move`), never in a person's request: the bots think
outside any lock, each by its time (services.clocks for the service's own bots, their Limits
for external ones), and what they chose is applied under the match's lock only if the match
is still where they were asked (a failing bot forfeits its seat, as bots.runner rules;
forfeited seats rank last). The last action records the match through services.recording,
like a worker's result, and what that sets off comes back to the caller (rounds.Progress) to
send.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

import bots
import engine
from bots.external import BotFailure, Limits
from bots.runner import ForfeitPolicy, forfeit_places, raised, refused, view_for
from tournaments import events, limits, plain
from tournaments.models import AuditEvent, Match, MatchAction, Player, Result, Round, Seat, Tournament

from .clocks import bot_clock
from tournaments.errors import ServiceError
from .players import player_bot
from .recording import Outcome, matches_record_results
from .rounds import NOTHING, Progress
from .seeds import derive_seed

log = logging.getLogger(__name__)

BY_SEAT = "seat"  # the seat's own choice, posted through the API
BY_BOT = "bot"  # the seat's built-in bot
BY_FALLBACK = "fallback"  # the fallback bot of a forfeited seat
BY_TIMEOUT = "timeout"  # the tournament's timeout bot, for a seat whose time ran out

DEADLINES_PER_RUN = 500  # matches one deadlines_expire takes on (the next beat takes the rest)
# The service's turns have a watchdog: if no worker has moved them this long after their bots'
# time allows (the worker died, or the queue is that far behind), the move is sent again.
BOT_TURN_GRACE_SECONDS = 30
# A worker plays the service's turns of an online match in runs: what its built-in and fallback
# bots choose in at most RUN_SECONDS (or RUN_ACTIONS actions) is applied in one transaction,
# then the next run; after TASK_SECONDS the match goes back to the queue, behind the other
# tasks, so one long match (a Spacca il mazzo of bots, thousands of turns) shares the workers.
RUN_SECONDS = 0.25
RUN_ACTIONS = 500
TASK_SECONDS = 5.0

FALLBACK_BOT = ForfeitPolicy().fallback  # the bot that plays a forfeited seat, as in bots.runner


@dataclass
class Table:
    """An online match as it stands: the match (locked by the caller when it changes it), its
    seats in turn order, the engine state, and the actions applied so far."""

    match: Match
    seats: list[Seat]
    state: engine.State
    actions: int

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
        forfeited = {seat.position for seat in self.seats if seat.forfeit_reason}
        return awaited(self.state.current_player(), self.seats, forfeited)

    def external_turn(self) -> int | None:
        """The seat to act now if an external bot plays it (not forfeited): a worker asks it
        (:func:`online_bots_move`); else None."""
        turn = self.state.current_player()
        if turn is None or self.seats[turn].forfeit_reason or not self.seats[turn].player.is_external_bot:
            return None
        return turn

    def service_turn(self) -> int | None:
        """The seat to act now if the service plays it (a built-in or external bot, or the
        fallback bot of a forfeited seat): a worker plays it (:func:`online_bots_move`); else
        None (an online seat's turn, or the end)."""
        turn = self.state.current_player()
        if turn is None or self.waits_for() is not None:
            return None
        return turn

    def forfeited(self) -> frozenset[int]:
        return frozenset(seat.position for seat in self.seats if seat.forfeit_reason)


def awaited(turn: int | None, seats: list[Seat], forfeited: set[int]) -> int | None:
    """``turn`` if its seat is played through the API (a person or a remote bot, not
    forfeited), else None: the service plays it, or nobody is to act."""
    if turn is None or turn in forfeited or not seats[turn].player.plays_online:
        return None
    return turn


@dataclass(frozen=True)
class Acted:
    """The answer to an action: the action as applied and its number in the match, whether it
    repeats an earlier request (same Idempotency-Key: nothing was applied again), and the
    progress the match's end made (rounds closed and made, for the caller to send)."""

    seq: int
    action: dict
    repeated: bool
    progress: Progress = NOTHING


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


def _remember(table: Table) -> None:
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


def table_load(match: Match) -> Table:
    """The match as it stands, replayed from its seed and its actions (from the last state this
    process saw committed, when it has one)."""
    known = replays.get(match)
    applied, state = known if known is not None else (0, None)
    seats, actions = _seats_and_actions(match, applied)
    if state is None:
        state = deal(match, len(seats))
    for action in actions:
        state.apply(action)
    table = Table(match=match, seats=seats, state=state, actions=applied + len(actions))
    _remember(table)
    return table


# Every request that moves or shows an online match reads it: these two statements are written
# once in plain SQL (tournaments.plain), which halves what a move's POST costs the web process.

def _match_statement():
    t, c = plain.table, plain.column
    match, rnd, tournament = plain.Columns(Match, "m"), plain.Columns(Round, "r"), plain.Columns(Tournament, "t")
    sql = (f"SELECT {match.select}, {rnd.select}, {tournament.select} FROM {t(Match)} m "
           f"JOIN {t(Round)} r ON r.{c(Round, 'id')} = m.{c(Match, 'round')} "
           f"JOIN {t(Tournament)} t ON t.{c(Tournament, 'id')} = r.{c(Round, 'tournament')} "
           f"WHERE m.{c(Match, 'id')} = %s")
    # The match's row alone is locked (its round and tournament are only read), as
    # select_for_update(of=("self",)); SQLite has no row locks (its writes are serialised).
    locked = sql + " FOR UPDATE OF m" if connection.features.has_select_for_update_of else sql
    return sql, locked, match, rnd, tournament


def match_read(match_id: int, *, lock: bool = False, skip_locked: bool = False) -> Match | None:
    """The match with its round and its tournament (one statement), its row locked until the
    transaction ends if ``lock``; None: no such match, or (``skip_locked``) its row is locked
    by another transaction, which a periodic task leaves to it rather than wait."""
    sql, locked, match, rnd, tournament = plain.made("online.match", _match_statement)
    if lock and skip_locked and connection.features.has_select_for_update_skip_locked:
        locked += " SKIP LOCKED"
    row = plain.row(locked if lock else sql, [match_id])
    if row is None:
        return None
    found, at = match.make(row), len(match)
    its_round = rnd.make(row, at)
    Round._meta.get_field("tournament").set_cached_value(its_round, tournament.make(row, at + len(rnd)))
    Match._meta.get_field("round").set_cached_value(found, its_round)
    return found


def _seats_statement():
    t, c = plain.table, plain.column
    seat, player = plain.Columns(Seat, "s"), plain.Columns(Player, "p")
    seq = c(MatchAction, "seq")
    # The actions come joined to seat 0's row only: one statement reads both, seat 0 repeated
    # once per action (and once, with NULLs, when there is none).
    sql = (f"SELECT {seat.select}, {player.select}, a.{seq}, a.{c(MatchAction, 'action')} FROM {t(Seat)} s "
           f"JOIN {t(Player)} p ON p.{c(Player, 'id')} = s.{c(Seat, 'player')} "
           f"LEFT JOIN {t(MatchAction)} a ON a.{c(MatchAction, 'match')} = s.{c(Seat, 'match')} "
           f"AND s.{c(Seat, 'position')} = 0 AND a.{seq} >= %s "
           f"WHERE s.{c(Seat, 'match')} = %s ORDER BY s.{c(Seat, 'position')}, a.{seq}")
    return sql, seat, player, plain.converter(MatchAction, "action", "a")


def _seats_and_actions(match: Match, first: int) -> tuple[list[Seat], list]:
    """The match's seats in turn order (with their players), and its actions from number
    ``first`` on: one statement, so one snapshot."""
    sql, seat, player, action_of = plain.made("online.seats", _seats_statement)
    found = plain.rows(sql, [first, match.pk])
    seats, actions = [], []
    at, last = len(seat), len(seat) + len(player)
    pk = seat.names.index(Seat._meta.pk.attname)
    match_field, player_field = Seat._meta.get_field("match"), Seat._meta.get_field("player")
    for row in found:
        if row[last] is not None:
            if row[last] != first + len(actions):  # append-only, numbered from 0: never
                raise RuntimeError(f"match {match.pk}: its actions from {first} are not in sequence")
            actions.append(action_of(row[last + 1]))
        if seats and seats[-1].pk == row[pk]:
            continue  # seat 0 again, for its next action
        made = seat.make(row)
        match_field.set_cached_value(made, match)
        player_field.set_cached_value(made, player.make(row, at))
        seats.append(made)
    return seats, actions


def _locked(match_id: int, *, finished_ok: bool = False, skip_locked: bool = False) -> Table:
    """The match as it stands, its row locked, refused unless it is an online match still to
    be played (or, ``finished_ok``, already over); with ``skip_locked``, refused at once
    (conflict) when another transaction holds it."""
    match = match_read(match_id, lock=True, skip_locked=skip_locked)
    if match is None:
        if skip_locked and Match.objects.filter(pk=match_id).exists():
            raise ServiceError(f"match {match_id} is being changed", "match", code="conflict")
        raise ServiceError(f"no match {match_id}", "match", code="not_found")
    if not match.round.tournament.online:
        raise ServiceError(NOT_ONLINE, "match", code="conflict")
    if match.round.tournament.status == Tournament.Status.CANCELLED:
        raise ServiceError("the tournament is cancelled: its matches are not played", "match", code="conflict")
    if match.status == Match.Status.FINISHED and not finished_ok:
        raise ServiceError("the match is over", "match", code="conflict")
    table = table_load(match)
    check_online(match, table.seats)
    return table


def _record(table: Table, by: str, seat: int, action: dict, key: str = "") -> int:
    """Apply ``action`` for ``seat`` (IllegalAction propagates, the state unchanged) and store
    it; returns its sequence number."""
    table.state.apply(action)
    return _store(table, by, seat, action, key)


def _store(table: Table, by: str, seat: int, action: dict, key: str = "") -> int:
    seq = table.actions
    plain.insert(MatchAction, {"match_id": table.match.pk, "seq": seq, "seat": seat, "action": action, "by": by,
                              "idempotency_key": key, "created_at": timezone.now()})
    table.actions += 1
    return seq


def _advance(table: Table) -> Progress:
    """Start the clock of whoever acts next: an online seat (the tournament's clock), or the
    service (the match returned in ``to_move``, for a worker to play its bots' turns:
    :func:`online_bots_move`), or nobody (the match is over)."""
    turn = table.state.current_player()
    if turn is None:
        return NOTHING
    if table.waits_for() is not None:
        _await(table, turn)
        return NOTHING
    _await_service(table, turn)
    return Progress(to_move=(table.match.pk,))


def _await(table: Table, seat: int | None) -> None:
    """The match now awaits ``seat`` (None: no online seat), which has the tournament's
    ``move_seconds`` from now, and then what it has left of its bank (no clock without
    ``move_seconds``). All of it is stored on the match and its seats: the clock survives any
    process's restart, and a player's seats to play are one query."""
    seconds = table.tournament.move_seconds
    if seconds and seat is not None:
        since = timezone.now()
        deadline = since + timedelta(seconds=seconds + bank_left(table, seat))
    else:
        since = deadline = None
    _set_clock(table, seat, deadline, since)


def _await_service(table: Table, seat: int, now=None) -> None:
    """The match now waits for a worker to play the service's turn at ``seat``. No online seat
    is awaited; the deadline is the watchdog's: what the bots may take for it (an external
    bot's own limits, start-up, decision and all of its bank; a run of the service's own bots)
    and BOT_TURN_GRACE_SECONDS, after which deadlines_expire sends the move again."""
    player = table.seats[seat].player
    if player.is_external_bot and not table.seats[seat].forfeit_reason:
        limits = Limits.of(player.bot_config.get("limits"))
        seconds = limits.startup + limits.decision + limits.bank
    else:
        seconds = RUN_SECONDS + settings.BOT_DECISION_SECONDS + settings.BOT_OVERRUN_SECONDS
    _set_clock(table, None, (now or timezone.now()) + timedelta(seconds=seconds + BOT_TURN_GRACE_SECONDS), None)


def _set_clock(table: Table, seat: int | None, deadline, since) -> None:
    match = table.match
    if (match.awaiting_seat, match.deadline_at, match.awaiting_since) != (seat, deadline, since):
        match.awaiting_seat, match.deadline_at, match.awaiting_since = seat, deadline, since
        plain.update(Match, match.pk, {"awaiting_seat": seat, "deadline_at": deadline, "awaiting_since": since})


def bank_left(table: Table, position: int) -> float:
    """The seconds of its bank the seat has left (0.0 when the tournament gives none)."""
    bank = table.tournament.bank_seconds
    if not bank:
        return 0.0
    left = table.seats[position].bank_left
    return float(bank) if left is None else left


def _charge(table: Table, position: int, now) -> None:
    """The awaited seat has moved (or run out of time) at ``now``: what the move took beyond
    ``move_seconds`` comes out of its bank."""
    match, tournament = table.match, table.tournament
    if not (tournament.bank_seconds and tournament.move_seconds and match.awaiting_since is not None
            and match.awaiting_seat == position):
        return
    over = (now - match.awaiting_since).total_seconds() - tournament.move_seconds
    if over > 0:
        seat = table.seats[position]
        seat.bank_left = max(0.0, bank_left(table, position) - over)
        Seat.objects.filter(pk=seat.pk).update(bank_left=seat.bank_left)


def _announce(table: Table) -> None:
    """Tell the match's streams, and the accounts whose players hold its online seats, that
    it changed — once this transaction commits (tournaments.events: a bare notification; each
    stream reads what changed itself)."""
    owners = {seat.player.owner_id for seat in table.seats if seat.player.plays_online and seat.player.owner_id}
    events.publish_on_commit([events.match_channel(table.match.pk), *map(events.user_channel, owners)])


def deadlines_expire(*, now=None, match_ids=None) -> Progress:
    """Apply the timeout policy to every online match whose seat to act has run out of time
    (``match_ids``: of these matches only): with the tournament's ``timeout_bot``, that bot
    plays the move at once (the seat plays on); without one, the seat is forfeited
    ("timeout": the fallback bot plays it to the end, it ranks last). A service's turn whose
    watchdog ran out is sent to the workers again, and a match still pending past its opening
    watchdog (rounds.OPEN_WATCHDOG_SECONDS: the message that opens it was lost) is opened. Each match is taken under its row lock and
    only if its deadline is still passed, so a timeout is applied once however many times this
    runs (two beats, a worker killed half way); a match another transaction holds is left for
    the next run, never waited for (a periodic task must not queue behind a request). Returns
    the rounds the matches it finished closed and made, and the matches for the workers."""
    now = now or timezone.now()
    progress = NOTHING
    due = Match.objects.filter(deadline_at__lte=now, status__in=[Match.Status.RUNNING, Match.Status.PENDING])
    if match_ids is not None:
        due = due.filter(pk__in=match_ids)
    for match_id in list(due.order_by("deadline_at").values_list("pk", flat=True)[:DEADLINES_PER_RUN]):
        with transaction.atomic():
            try:
                table = _locked(match_id, skip_locked=True)
            except ServiceError:
                continue
            match = table.match
            if match.deadline_at is None or match.deadline_at > now:
                continue  # moved meanwhile: the new deadline is the seat's own
            if match.status == Match.Status.PENDING:
                # The task that opens it never came (its message lost): opened here.
                log.warning("match %s: opened by the clock check, its opening message lost", match.pk)
                progress += _open(table)
                continue
            turn = table.waits_for()
            if turn is None:
                if (service := table.service_turn()) is not None:
                    # No worker has played the service's turn in all the time its bots are
                    # allowed: the message sent is lost, or its worker dead. Send it again (a
                    # late one finds the match moved and applies nothing).
                    _await_service(table, service, now)
                    progress += Progress(to_move=(match.pk,))
                continue
            _charge(table, turn, now)  # its bank, if any, is spent
            policy_bot = table.tournament.timeout_bot
            if policy_bot:
                _record(table, BY_TIMEOUT, turn, _timeout_move(table, turn))
            else:
                _forfeit(table, turn, "timeout", f"no action within {table.tournament.move_seconds} s"
                         + (" and its bank" if table.tournament.bank_seconds else ""))
            AuditEvent.objects.create(tournament_id=match.round.tournament_id, match=match, action="move_timeout",
                                      detail={"seat": turn, "policy": policy_bot or "forfeit"})
            log.info("match %s: seat %s ran out of time, %s", match.pk, turn,
                     f"{policy_bot} moved for it" if policy_bot else "forfeited")
            progress += _advance(table)  # the next seat's clock, or the service's turn, or the end
            progress += _finish_if_over(table)
            _announce(table)
    return progress


def _timeout_move(table: Table, turn: int) -> dict:
    """The tournament's timeout bot's move for the seat at ``turn``, chosen at once: it moves
    under the match's lock, so it is given no time to think (a bot that searches plays its
    rollout policy's move; the service accepts only bots that do not search)."""
    bot = bots.create(table.tournament.timeout_bot, game=table.tournament.game,
                      seed=derive_seed(table.match.seed, "timeout", turn, table.actions))
    bot.deadline = time.monotonic()
    return bot.act(view_for(table.state, turn))


def _forfeit(table: Table, position: int, reason: str, detail: str) -> None:
    seat = table.seats[position]
    seat.forfeit_reason, seat.forfeit_detail = reason[:40], detail[:4000]
    Seat.objects.filter(pk=seat.pk).update(forfeit_reason=seat.forfeit_reason, forfeit_detail=seat.forfeit_detail)


def _finish_if_over(table: Table) -> Progress:
    """Record a match that is over, through services.recording (its result, the rounds it
    closes, ratings, the next rounds); a match with HTTP bots still playing is also returned in
    ``to_move``, for a worker to send them ``finish``."""
    state = table.state
    if not state.is_over():
        return NOTHING
    forfeited = [s.position for s in table.seats if s.forfeit_reason]
    decisions = [0] * len(table.seats)
    # The bots' thinking is counted on their seats as they play (_play_step); a seat played
    # through the API thought from the action before its own (or the opening) to its own.
    think = list(Seat.objects.filter(match=table.match).order_by("position").values_list("think_seconds", flat=True))
    before = table.match.started_at
    for seat, by, at in (MatchAction.objects.filter(match=table.match).order_by("seq")
                         .values_list("seat", "by", "created_at")):
        if by in (BY_SEAT, BY_BOT):
            decisions[seat] += 1
        if by == BY_SEAT and before is not None:
            think[seat] += max(0.0, (at - before).total_seconds())
        before = at
    outcome = Outcome(
        match_id=table.match.pk, scores=list(state.scores()), places=forfeit_places(state.places(), forfeited),
        forfeits={s.position: (s.forfeit_reason, s.forfeit_detail) for s in table.seats if s.forfeit_reason},
        record=state.to_json(), decisions=decisions, think_seconds=think,
    )
    _, progress = matches_record_results(outcomes=[outcome], source=Result.Source.ENGINE)
    _await(table, None)
    if any(_told_finish(seat) for seat in table.seats):
        progress += Progress(to_move=(table.match.pk,))
    return progress


def _told_finish(seat: Seat) -> bool:
    """An external bot whose side of the match outlives a decision (HTTP), still playing at the
    end: it is sent ``finish``."""
    return seat.player.bot_kind == seat.player.BotKind.HTTP and not seat.forfeit_reason


def _open(table: Table) -> Progress:
    """Start a pending online match: the service's seats play up to the first online turn."""
    match = table.match
    match.status, match.started_at = Match.Status.RUNNING, timezone.now()
    Match.objects.filter(pk=match.pk).update(status=match.status, started_at=match.started_at)
    progress = _advance(table)
    _announce(table)
    return progress + _finish_if_over(table)


def online_matches_open(*, match_ids: list[int]) -> Progress:
    """Open these online matches (their round's time has come): each is started and its
    service-played seats move up to the first online turn. Matches already open, finished,
    gone or not online are left as they are: safe to run twice."""
    progress = NOTHING
    for match_id in sorted(set(match_ids)):
        with transaction.atomic():
            try:
                table = _locked(match_id)
            except ServiceError:
                continue
            if table.match.status == Match.Status.PENDING:
                progress += _open(table)
    return progress


def online_bots_move(*, match_id: int, seconds: float | None = None) -> Progress:
    """Play an online match's service turns — its built-in bots, its external bots and the
    fallback bots of its forfeited seats — for as long as it is their turn, as a worker does
    once a move, an opening, a forfeit or a timeout sends it here (Progress.to_move); once the
    match is over, send its HTTP bots ``finish``. With ``seconds``, stop after about that long
    and return the match in ``to_move`` to be sent again: a worker shares itself between the
    matches waiting for it (None: play on to the next online turn, as an eager caller does).

    The bots think outside any transaction (no request waits on the match's lock meanwhile),
    each by its time: the service's own bots as services.clocks allows (their match time kept
    on their seats), an external bot by its own limits (its time bank kept on its seat). What
    they chose is applied under the lock only if the match is still where they were asked: a
    second run of the same task, or a watchdog's resend, finds it moved and applies nothing.
    A bot that breaks its limits, fails or answers an illegal action forfeits its seat, as in
    bots.runner, and the fallback bot plays it.

    The service's own bots play in runs (:func:`_run`: RUN_SECONDS or RUN_ACTIONS, one
    transaction each); an external bot is asked one decision at a time. An HTTP bot keeps the
    match between requests: it has ``start`` once and ``finish`` at the end, with one match id
    throughout. A subprocess is started for each decision (``start``, then one ``act``): the
    match may wait for people for hours between its turns, and no process is kept that long."""
    progress = NOTHING
    stop_at = None if seconds is None else time.monotonic() + seconds
    while True:
        table = _unlocked(match_id)
        if table is None:
            return progress
        if table.match.status == Match.Status.FINISHED:
            _tell_finish(table)
            return progress
        turn = table.service_turn()
        if turn is None:
            return progress
        asked_at, forfeited = table.actions, table.forfeited()
        if table.external_turn() is not None:
            began = time.monotonic()
            action, failure, bank = _ask_bot(table, turn)
            plan = [_Step(turn, BY_BOT, action, failure, bank, took=time.monotonic() - began)]
        else:
            plan = _run(table)
        with transaction.atomic():
            try:
                table = _locked(match_id)
            except ServiceError:
                return progress  # over, or its tournament cancelled meanwhile
            if table.actions != asked_at or table.forfeited() != forfeited:
                return progress  # another run moved it, or a seat was forfeited: this plan is stale
            for step in plan:
                _play_step(table, step)
            _count_thinking(table, plan)
            step = _advance(table)
            progress += _finish_if_over(table)
            _announce(table)
        if not step.to_move:
            return progress  # an online seat's turn, or the end (whose finish is in progress)
        if stop_at is not None and time.monotonic() >= stop_at:
            return progress + step  # the rest after the other tasks waiting for a worker


@dataclass(frozen=True)
class _Step:
    """One decision of the service's seats, chosen outside the lock: the seat's action (None if
    its bot failed: ``failure``), who chose it, and the bot's time left after it (an external
    bot's bank, a built-in bot's match time; None: unchanged)."""

    seat: int
    by: str
    action: object
    failure: BotFailure | None = None
    time_left: float | None = None
    took: float = 0.0  # the seconds its bot thought


def _play_step(table: Table, step: _Step) -> None:
    """Apply a step chosen outside the lock to the locked ``table``: the action (an illegal
    one forfeits the seat), or the bot's failure (a forfeit); the bot's time left onto its
    seat."""
    seat = table.seats[step.seat]
    failure = step.failure
    if failure is None:
        try:
            _record(table, step.by, step.seat, step.action)
        except engine.IllegalAction as exc:
            failure = BotFailure(*refused(step.action, exc))
        except Exception:  # noqa: BLE001 - junk the engine cannot even compare
            failure = BotFailure(*refused(step.action))
    if failure is not None:
        _forfeit(table, step.seat, failure.reason, failure.detail)
    elif step.time_left is not None and seat.bank_left != step.time_left:
        seat.bank_left = step.time_left
        Seat.objects.filter(pk=seat.pk).update(bank_left=step.time_left)


def _count_thinking(table: Table, plan: list[_Step]) -> None:
    """Add what the bots of ``plan`` thought to their seats' ``think_seconds`` (one update a
    seat): the match's record counts it as a worker's match does."""
    took: dict[int, float] = {}
    for step in plan:
        if step.by == BY_BOT:
            took[step.seat] = took.get(step.seat, 0.0) + step.took
    for position, seconds in took.items():
        Seat.objects.filter(pk=table.seats[position].pk).update(think_seconds=F("think_seconds") + seconds)


def _run(table: Table) -> list[_Step]:
    """A run of the service's own turns from where ``table`` stands (its state is played on):
    built-in bots and fallback bots, one after another, until an online seat's or an external
    bot's turn, the end, RUN_ACTIONS actions or RUN_SECONDS. Each decision's bot is made
    afresh, seeded by the match, the seat and the decision, so the match plays the same
    whichever worker plays it; a built-in bot thinks by its clock (services.clocks: its match
    time kept on its seat), and one that fails or overruns ends the run with its forfeit."""
    state, steps = table.state, []
    ends = time.monotonic() + RUN_SECONDS
    left = {seat.position: seat.bank_left for seat in table.seats}
    while len(steps) < RUN_ACTIONS and (not steps or time.monotonic() < ends):
        turn = state.current_player()
        if turn is None or awaited(turn, table.seats, table.forfeited()) is not None:
            break
        seat = table.seats[turn]
        if not seat.forfeit_reason and seat.player.is_external_bot:
            break  # asked one decision at a time, by online_bots_move
        seed = derive_seed(table.match.seed, "online", turn, table.actions + len(steps))
        if seat.forfeit_reason:
            action = bots.create(FALLBACK_BOT, game=table.tournament.game, seed=seed).act(view_for(state, turn))
            steps.append(_Step(turn, BY_FALLBACK, action))
            state.apply(action)
            continue
        clock = bot_clock(len(table.seats), left[turn])
        try:
            bot = player_bot(seat.player, game=table.tournament.game, seed=seed)
            allowance = clock.start(bot)
            began = time.perf_counter()
            action = bot.act(view_for(state, turn))
            took = time.perf_counter() - began
            late = clock.charge(took, allowance)
            if late is not None:
                raise BotFailure("timeout", late)
            state.apply(action)
        except Exception as exc:  # noqa: BLE001 - whatever a bot does wrong, as bots.runner:
            # never stops the match: its seat is forfeited (when the run is applied) and the
            # fallback plays it from the next run on.
            if isinstance(exc, BotFailure):
                failure = exc
            elif isinstance(exc, engine.IllegalAction):
                failure = BotFailure(*refused(action, exc))
            else:
                failure = BotFailure("exception", exc.message if isinstance(exc, ServiceError) else raised(exc))
            steps.append(_Step(turn, BY_BOT, None, failure))
            break
        left[turn] = clock.left
        steps.append(_Step(turn, BY_BOT, action, time_left=clock.left, took=took))
    return steps


def _unlocked(match_id: int) -> Table | None:
    """The match as it stands, read without a lock, or None unless it is an online match
    being played (or just finished) in a tournament not cancelled."""
    match = Match.objects.select_related("round__tournament").filter(pk=match_id).first()
    if (match is None or not match.round.tournament.online or match.status == Match.Status.PENDING
            or match.round.tournament.status == Tournament.Status.CANCELLED):
        return None
    return table_load(match)


def _bot_match_id(table: Table, position: int) -> str:
    """The match's id as an external bot at ``position`` knows it: the same at each of its
    decisions, unique to the match and the seat, and telling nothing of the deal."""
    match = table.match
    return uuid.uuid5(uuid.NAMESPACE_URL, f"mazziere:online:{match.pk}:{match.started_at.isoformat()}:{position}").hex


def _external_bot(table: Table, position: int, *, started: bool) -> bots.Bot:
    """The external bot of the seat at ``position``, resumed where its match stands (a
    ServiceError if it cannot be made)."""
    seat = table.seats[position]
    bot = player_bot(seat.player, game=table.tournament.game, seed=derive_seed(table.match.seed, "online", position))
    bot.resume(position, match=_bot_match_id(table, position), bank=seat.bank_left, started=started)
    return bot


def _ask_bot(table: Table, position: int) -> tuple[object, BotFailure | None, float | None]:
    """Ask the external bot at ``position`` for its action: (the action, None, its bank left)
    or (None, why it failed, None)."""
    started = MatchAction.objects.filter(match=table.match, seat=position, by=BY_BOT).exists()
    view = table.state.view(position)
    bot = None
    try:
        bot = _external_bot(table, position, started=started)
        if not bot.started:
            bot.start_match(position, view, players=len(table.seats), options=dict(table.state.options))
        action = bot.act(view)
    except BotFailure as exc:
        return None, exc, None
    except ServiceError as exc:
        return None, BotFailure("exception", exc.message), None
    except Exception as exc:  # noqa: BLE001 - whatever the bot's transport does wrong forfeits the seat
        # Ours, not the bot's: its owner reads the detail, so no traceback (our files) nor message;
        # the log keeps them.
        log.exception("match %s: asking the external bot at seat %s failed", table.match.pk, position)
        return None, BotFailure("exception", f"the service failed asking the bot ({type(exc).__name__})"), None
    finally:
        if bot is not None:
            bot.close()
    return action, None, bot.bank_left


def _tell_finish(table: Table) -> None:
    """Send ``finish`` (its final view and the scores) to the match's HTTP bots still playing.
    A notice: what a bot answers, or whether it answers, changes nothing."""
    scores = list(table.state.scores())
    for seat in table.seats:
        if not _told_finish(seat):
            continue
        try:
            bot = _external_bot(table, seat.position, started=True)
            bot.finish_match(seat.position, table.state.view(seat.position), scores=scores)
        except Exception:  # noqa: BLE001 - the result is settled; a failing goodbye changes nothing
            pass


def seat_act(*, match_id: int, position: int, action: object, idempotency_key: str = "",
             actor=None, may_act=None, answers: int | None = None) -> Acted:
    """Apply ``action`` for the seat at ``position`` of an online match, then let the service's
    seats move up to the next online turn; the match's last action records it. ``may_act``
    (the seat's player -> whether the caller acts for it: tournaments.permissions.acts_for) is
    asked as soon as the seat is loaded, before anything else is said of the seat: refused
    (forbidden) if not.

    ``answers``: the decision the move answers, as the number of actions the seat's view showed
    (its ``actions``); a move whose match has moved on since (the seat's clock ran out and its
    timeout bot moved, the others moved, and the seat's turn came again) is refused
    (``conflict``) rather than applied to a decision its player never saw. None: the move
    answers whatever the seat faces now.

    Refused: an action that is not legal now (``illegal``: the engine's message names the
    rule), out of turn, on a match over or not online (``conflict``), for a forfeited seat
    (``conflict``), after the seat's deadline (:class:`LateMove`). The same ``idempotency_key`` again (at most 64 printable characters)
    answers as the first time, the action applied once; with another action it is refused.

    A key is looked up only when the move would be refused (a retry comes when the turn has
    moved on, or the match is over) or when the action's insert finds it taken (the seat's
    turn again, the same move legal again): the unique constraint on (match, seat, key) is
    the check, so that a new move, nearly every POST, costs no look-up."""
    if idempotency_key:
        limits.check_text(idempotency_key, "Idempotency-Key", 64)
        if not idempotency_key.isprintable():
            raise ServiceError("the Idempotency-Key must be printable characters", "Idempotency-Key")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ServiceError('an action is an object with a "type", as the seat\'s legal_actions list them', "action")
    now = timezone.now()  # when the move came: what it took is charged to the seat's bank
    try:
        with transaction.atomic():
            # With a key, a finished match is loaded all the same: a retry of the move that ended
            # it finds its first answer where the match's end refuses anything new.
            table = _locked(match_id, finished_ok=bool(idempotency_key))
            seat = table.seat(position)
            if may_act is not None and not may_act(seat.player):
                raise ServiceError("only the seat's player's owner acts for it", code="forbidden")
            try:
                _check_answers(table, answers)
                _check_turn(table, seat, position)
                _check_deadline(table, position, now)
                seq = _record(table, BY_SEAT, position, action, idempotency_key)
            except (ServiceError, engine.IllegalAction) as exc:
                if idempotency_key and (first := _keyed(match_id, position, idempotency_key, action)) is not None:
                    return first
                if isinstance(exc, engine.IllegalAction):
                    raise ServiceError(str(exc), "action", code="illegal") from None
                raise
            _charge(table, position, now)
            progress = _advance(table)
            _announce(table)
            return Acted(seq=seq, action=action, repeated=False, progress=progress + _finish_if_over(table))
    except IntegrityError:
        # The key was this seat's already (the insert rolled back, nothing applied).
        if idempotency_key and (first := _keyed(match_id, position, idempotency_key, action)) is not None:
            return first
        raise
    except LateMove as late:
        # The time ran out and nobody has applied its policy yet (the clocks' beat is late or
        # stopped): the move that came too late applies it, then is refused.
        raise LateMove(late.message, deadlines_expire(now=now, match_ids=[match_id])) from None


class LateMove(ServiceError):
    """A move that came after its seat's deadline (conflict). ``progress``: what applying the
    timeout policy then set off, for the caller to send before it answers the refusal."""

    def __init__(self, message: str, progress: Progress = NOTHING) -> None:
        super().__init__(message, "deadline_at", code="conflict")
        self.progress = progress


def _check_deadline(table: Table, position: int, now) -> None:
    """Refuse (:class:`LateMove`) a move that comes after the awaited seat's deadline, whatever
    the clocks' periodic check has done yet: the timeout policy applies instead."""
    match = table.match
    if match.deadline_at is not None and match.awaiting_seat == position and now > match.deadline_at:
        policy = (f"the timeout bot ({table.tournament.timeout_bot}) plays it" if table.tournament.timeout_bot
                  else "the seat is forfeited")
        raise LateMove(f"this move came after its deadline, {match.deadline_at.isoformat()}: {policy}")


def _check_answers(table: Table, answers: int | None) -> None:
    """Refuse (conflict) a move that answers another decision than the match's current one."""
    if answers is not None and answers != table.actions:
        raise ServiceError(
            f"this move answers the match as it stood after {answers} actions, and it has {table.actions} now: "
            "read the seat's view again and answer what it shows", "actions", code="conflict")


def _check_turn(table: Table, seat: Seat, position: int) -> None:
    """Refuse a move of ``seat`` unless the match awaits it from the API."""
    match = table.match
    if match.status == Match.Status.FINISHED:
        raise ServiceError("the match is over", "match", code="conflict")
    if match.status == Match.Status.PENDING:
        raise ServiceError("the match has not started: it opens when its round does", "match", code="conflict")
    if seat.forfeit_reason:
        raise ServiceError(f"seat {position} was forfeited ({seat.forfeit_reason}): the fallback bot plays it",
                           "position", code="conflict")
    if not seat.player.plays_online:
        raise ServiceError(f"seat {position} is played by its bot, {seat.player.name}, not through the API",
                           "position", code="conflict")
    turn = table.state.current_player()
    if turn != position:
        raise ServiceError(f"it is seat {turn}'s turn, not seat {position}'s", "position", code="conflict")


def _keyed(match_id: int, position: int, key: str, action: dict) -> Acted | None:
    """The answer to the seat's first move under ``key``, if it made one; refused (conflict)
    if that move was another action."""
    first = MatchAction.objects.filter(match_id=match_id, seat=position, idempotency_key=key).first()
    if first is None:
        return None
    if first.action != action:
        raise ServiceError("this Idempotency-Key was used for another action: use a new key for a new action",
                           "Idempotency-Key", code="conflict")
    return Acted(seq=first.seq, action=first.action, repeated=True)


def seat_forfeit(*, match_id: int, position: int, reason: str, actor=None) -> Progress:
    """An organiser forfeits a seat of an online match (its player is gone): the fallback bot
    plays it to the end and it ranks last, as a bot that fails. If it was that seat's turn the
    match moves on at once. Refused for a seat already forfeited."""
    if not reason:
        raise ServiceError("a forfeit needs a reason", "reason")
    limits.check_text(reason, "reason", limits.REASON_MAX)
    with transaction.atomic():
        table = _locked(match_id)
        match = table.match
        seat = table.seat(position)
        if seat.forfeit_reason:
            raise ServiceError(f"seat {position} is already forfeited", "position", code="conflict")
        _forfeit(table, position, "forfeited", reason)
        AuditEvent.objects.create(tournament_id=match.round.tournament_id, match=match, actor=actor,
                                  action="seat_forfeited", detail={"seat": position, "reason": reason})
        _announce(table)
        if match.status == Match.Status.PENDING:
            return NOTHING  # the fallback bot plays the seat from the match's opening
        if table.state.current_player() != position and table.service_turn() is None:
            return NOTHING  # the fallback plays the seat from its next turn; the seat awaited keeps its clock
        # Its turn (the fallback's now), or the service's, whose run in progress this forfeit
        # makes stale: the workers play on from here.
        return _advance(table) + _finish_if_over(table)


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

