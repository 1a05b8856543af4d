"""Online matches: people and remote bots play their seats through the API, turn by turn, and
the server is the only referee (docs/online.md).

A match of an ``online`` tournament with a seat that plays online (a person, or a remote bot:
``Player.plays_online``) is never played by a worker's bots.runner. It is played at the same
table (bots.table.Table: one rule for every match), rebuilt for each request from its seed and
its stored actions (tournaments.online_reads). This module keeps only the persistence around
that table: each change is taken under the match's row lock (so two requests never move one
match at once), what the table told (its moves, its forfeits) is stored, the clocks are set
(services.clocks) and the end is recorded (services.recording), what that sets off coming back
to the caller (rounds.Progress) to send.

Between online turns, the seats the service plays — built-in bots, external bots (their
authors' programs: services.bot_calls) and the fallback bot of a forfeited seat — are played
by a worker (:func:`online_bots_move`), never in a person's request: the bots think outside any
lock, each by its time (services.clocks for the service's own bots, their Limits for external
ones), and what they chose is applied under the match's lock, by the table's rule, only if the
match is still where they were asked.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

import engine
from bots.external import BotFailure
from bots.table import BY_BOT, BY_FALLBACK, BY_SEAT, BY_TIMEOUT, Forfeited, Moved
from tournaments import limits
from tournaments.errors import ServiceError
from tournaments.models import AuditEvent, Match, MatchAction, Seat
from tournaments.online_reads import OnlineTable

from . import bot_calls, table_store
from .clocks import RUN_ACTIONS, RUN_SECONDS, LateMove, check_deadline, seat_charge, service_await, timeout_move
from .rounds import NOTHING, Progress

__all__ = ["BY_BOT", "BY_FALLBACK", "BY_SEAT", "BY_TIMEOUT", "Acted", "LateMove", "deadlines_expire",
           "online_bots_move", "online_matches_open", "seat_act", "seat_forfeit"]

log = logging.getLogger(__name__)

DEADLINES_PER_RUN = 500  # matches one deadlines_expire takes on (the next beat takes the rest)


@dataclass(frozen=True)
class Acted:
    """The answer to an action: the action as applied and its number in the match, whether it
    repeats an earlier request (same Idempotency-Key: nothing was applied again), and the
    progress the match's end made (rounds closed and made, for the caller to send)."""

    seq: int
    action: dict
    repeated: bool
    progress: Progress = NOTHING


def seat_act(*, match_id: int, position: int, action: object, idempotency_key: str = "",
             actor=None, may_act=None, answers: int | None = None) -> Acted:
    """Apply ``action`` for the seat at ``position`` of an online match, then let the service's
    seats move up to the next online turn; the match's last action records it. ``may_act``
    (the seat's player -> whether the caller acts for it: tournaments.permissions.acts_for) is
    asked as soon as the seat is loaded, before anything else is said of the seat: refused
    (forbidden) if not.

    ``answers``: the decision the move answers, as the number of actions the seat's view showed
    (its ``actions``); a move whose match has moved on since is refused (``conflict``) rather
    than applied to a decision its player never saw. None: whatever the seat faces now.

    Refused: an action that is not legal now (``illegal``: the engine's message names the
    rule), out of turn, on a match over or not online (``conflict``), for a forfeited seat
    (``conflict``), after the seat's deadline (:class:`LateMove`). The same ``idempotency_key``
    again (at most 64 printable characters) answers as the first time, the action applied
    once; with another action it is refused. A key is looked up only when the move would be
    refused or when the action's insert finds it taken: the unique constraint on (match, seat,
    key) is the check, so that a new move, nearly every POST, costs no look-up."""
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
            table = table_store.locked(match_id, finished_ok=bool(idempotency_key))
            seat = table.seat(position)
            if may_act is not None and not may_act(seat.player):
                raise ServiceError("only the seat's player's owner acts for it", code="forbidden")
            try:
                _check_answers(table, answers)
                _check_turn(table, seat, position)
                check_deadline(table, position, now)
                seq = table_store.act(table, BY_SEAT, position, action, idempotency_key)
            except (ServiceError, engine.IllegalAction) as exc:
                if idempotency_key and (first := _keyed(match_id, position, idempotency_key, action)) is not None:
                    return first
                if isinstance(exc, engine.IllegalAction):
                    raise ServiceError(str(exc), "action", code="illegal") from None
                raise
            seat_charge(table, position, now)
            progress = table_store.advance(table)
            table_store.announce(table)
            return Acted(seq=seq, action=action, repeated=False, progress=progress + table_store.finish_if_over(table))
    except IntegrityError:
        # The key was this seat's already (the insert rolled back, nothing applied).
        if idempotency_key and (first := _keyed(match_id, position, idempotency_key, action)) is not None:
            return first
        raise
    except LateMove as late:
        # The time ran out and nobody has applied its policy yet (the clocks' beat is late or
        # stopped): the move that came too late applies it, then is refused.
        raise LateMove(late.message, deadlines_expire(now=now, match_ids=[match_id])) from None


def _check_answers(table: OnlineTable, answers: int | None) -> None:
    """Refuse (conflict) a move that answers another decision than the match's current one."""
    if answers is not None and answers != table.actions:
        raise ServiceError(
            f"this move answers the match as it stood after {answers} actions, and it has {table.actions} now: "
            "read the seat's view again and answer what it shows", "actions", code="conflict")


def _check_turn(table: OnlineTable, seat: Seat, position: int) -> None:
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
        table = table_store.locked(match_id)
        match = table.match
        seat = table.seat(position)
        if seat.forfeit_reason:
            raise ServiceError(f"seat {position} is already forfeited", "position", code="conflict")
        table_store.forfeit(table, position, "forfeited", reason)
        AuditEvent.objects.create(tournament_id=match.round.tournament_id, match=match, actor=actor,
                                  action="seat_forfeited", detail={"seat": position, "reason": reason})
        table_store.announce(table)
        if match.status == Match.Status.PENDING:
            return NOTHING  # the fallback bot plays the seat from the match's opening
        if table.state.current_player() != position and table.service_turn() is None:
            return NOTHING  # the fallback plays the seat from its next turn; the seat awaited keeps its clock
        # Its turn (the fallback's now), or the service's, whose run in progress this forfeit
        # makes stale: the workers play on from here.
        return table_store.advance(table) + table_store.finish_if_over(table)


def deadlines_expire(*, now=None, match_ids=None) -> Progress:
    """Apply the timeout policy to every online match whose seat to act has run out of time
    (``match_ids``: of these matches only): with the tournament's ``timeout_bot``, that bot
    plays the move at once (the seat plays on); without one, the seat is forfeited
    ("timeout": the fallback bot plays it to the end, it ranks last). A service's turn whose
    watchdog ran out is sent to the workers again, and a match still pending past its opening
    watchdog (rounds.OPEN_WATCHDOG_SECONDS: the message that opens it was lost) is opened.
    Each match is taken under its row lock and only if its deadline is still passed, so a
    timeout is applied once however many times this runs; a match another transaction holds
    is left for the next run, never waited for (a periodic task must not queue behind a
    request). Returns the rounds the matches it finished closed and made, and the matches for
    the workers."""
    now = now or timezone.now()
    progress = NOTHING
    due = Match.objects.filter(deadline_at__lte=now, status__in=[Match.Status.RUNNING, Match.Status.PENDING])
    if match_ids is not None:
        due = due.filter(pk__in=match_ids)
    for match_id in list(due.order_by("deadline_at").values_list("pk", flat=True)[:DEADLINES_PER_RUN]):
        with transaction.atomic():
            try:
                table = table_store.locked(match_id, skip_locked=True)
            except ServiceError:
                continue
            match = table.match
            if match.deadline_at is None or match.deadline_at > now:
                continue  # moved meanwhile: the new deadline is the seat's own
            if match.status == Match.Status.PENDING:
                # The task that opens it never came (its message lost): opened here.
                log.warning("match %s: opened by the clock check, its opening message lost", match.pk)
                progress += table_store.open_match(table)
                continue
            turn = table.waits_for()
            if turn is None:
                if (service := table.service_turn()) is not None:
                    # No worker has played the service's turn in all the time its bots are
                    # allowed: the message sent is lost, or its worker dead. Send it again (a
                    # late one finds the match moved and applies nothing).
                    service_await(table, service, now)
                    progress += Progress(to_move=(match.pk,))
                continue
            seat_charge(table, turn, now)  # its bank, if any, is spent
            policy_bot = table.tournament.timeout_bot
            if policy_bot:
                table_store.act(table, BY_TIMEOUT, turn, timeout_move(table, turn))
            else:
                table_store.forfeit(table, turn, "timeout", f"no action within {table.tournament.move_seconds} s"
                         + (" and its bank" if table.tournament.bank_seconds else ""))
            AuditEvent.objects.create(tournament_id=match.round.tournament_id, match=match, action="move_timeout",
                                      detail={"seat": turn, "policy": policy_bot or "forfeit"})
            log.info("match %s: seat %s ran out of time, %s", match.pk, turn,
                     f"{policy_bot} moved for it" if policy_bot else "forfeited")
            progress += table_store.advance(table)  # the next seat's clock, or the service's turn, or the end
            progress += table_store.finish_if_over(table)
            table_store.announce(table)
    return progress


def online_matches_open(*, match_ids: list[int]) -> Progress:
    """Open these online matches (their round's time has come): each is started and its
    service-played seats move up to the first online turn. Matches already open, finished,
    gone or not online are left as they are: safe to run twice."""
    progress = NOTHING
    for match_id in sorted(set(match_ids)):
        with transaction.atomic():
            try:
                table = table_store.locked(match_id)
            except ServiceError:
                continue
            if table.match.status == Match.Status.PENDING:
                progress += table_store.open_match(table)
    return progress


def online_bots_move(*, match_id: int, seconds: float | None = None) -> Progress:
    """Play an online match's service turns — its built-in bots, its external bots and the
    fallback bots of its forfeited seats — for as long as it is their turn, as a worker does
    once a move, an opening, a forfeit or a timeout sends it here (Progress.to_move); once the
    match is over, send its HTTP bots ``finish``. With ``seconds``, stop after about that long
    and return the match in ``to_move`` to be sent again: a worker shares itself between the
    matches waiting for it (None: play on to the next online turn, as an eager caller does).

    The bots think outside any transaction (no request waits on the match's lock meanwhile),
    each by its time. The service's own bots play in runs at the unlocked table
    (bots.table.Table.step: RUN_ACTIONS actions or RUN_SECONDS); an external bot is asked one
    decision at a time (services.bot_calls). What they chose is then given, under the lock, to
    the table as it stands, by the table's rule (Table.answer: a failure or an illegal action
    forfeits the seat), and only if the match is still where they were asked: a second run of
    the same task, or a watchdog's resend, finds it moved and applies nothing."""
    progress = NOTHING
    stop_at = None if seconds is None else time.monotonic() + seconds
    while True:
        table = table_store.unlocked(match_id)
        if table is None:
            return progress
        if table.match.status == Match.Status.FINISHED:
            bot_calls.tell_finish(table)
            return progress
        turn = table.service_turn()
        if turn is None:
            return progress
        asked_at, forfeited = table.actions, table.forfeited()
        if table.external_turn() is not None:
            began = time.monotonic()
            action, failure, bank = bot_calls.ask_bot(table, turn)
            took = time.monotonic() - began
            answers = [(turn, action, failure, BY_BOT, took, bank)]
        else:
            table.play.step(most=RUN_ACTIONS, until=time.monotonic() + RUN_SECONDS)
            answers = _answers(table)
        with transaction.atomic():
            try:
                locked = table_store.locked(match_id)
            except ServiceError:
                return progress  # over, or its tournament cancelled meanwhile
            if locked.actions != asked_at or locked.forfeited() != forfeited:
                return progress  # another run moved it, or a seat was forfeited: this plan is stale
            told = locked.play.told
            for position, action, failure, by, took, left in answers:
                locked.play.answer(position, action, failure, by=by, took=took, time_left=left)
            table_store.store(locked, told)
            _keep_time(locked, answers)
            step = table_store.advance(locked)
            progress += table_store.finish_if_over(locked)
            table_store.announce(locked)
        if not step.to_move:
            return progress  # an online seat's turn, or the end (whose finish is in progress)
        if stop_at is not None and time.monotonic() >= stop_at:
            return progress + step  # the rest after the other tasks waiting for a worker


def _answers(table: OnlineTable) -> list[tuple]:
    """What the bots of a run at the unlocked ``table`` answered, to give the locked table:
    (seat, action, failure, by, seconds thought, the seat's match time left)."""
    out: list[tuple] = []
    for event in table.play.events:
        if isinstance(event, Moved):
            out.append((event.seat, event.action, None, event.by, event.took, table.play.clocks[event.seat].left))
        elif isinstance(event, Forfeited):
            failure = BotFailure(event.forfeit.reason, event.forfeit.detail)
            out.append((event.seat, None, failure, BY_BOT, 0.0, None))
    return out


def _keep_time(table: OnlineTable, answers: list[tuple]) -> None:
    """Keep on their seats what the bots of ``answers`` thought (their ``think_seconds``: the
    match's record counts it as a worker's match does) and their time left (``bank_left``: an
    external bot's bank, a built-in bot's match time), one update a seat."""
    changes: dict[int, dict] = {}
    for position, _action, failure, by, took, left in answers:
        if by != BY_BOT:
            continue
        seat = changes.setdefault(position, {"think_seconds": 0.0})
        seat["think_seconds"] += took
        if failure is None and left is not None:
            seat["bank_left"] = left
    for position, change in changes.items():
        seat = table.seats[position]
        change["think_seconds"] = F("think_seconds") + change["think_seconds"]
        if change.get("bank_left", seat.bank_left) == seat.bank_left:
            change.pop("bank_left", None)
        else:
            seat.bank_left = change["bank_left"]
        Seat.objects.filter(pk=seat.pk).update(**change)
