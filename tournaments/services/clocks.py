"""How long the bots the service plays in its own processes may think: built-in bots, whatever
their options, and the fallback and timeout bots (docs/bots.md, "Time at the service's tables").

Every such bot has BOT_DECISION_SECONDS a decision and an even share of BOT_MATCH_SECONDS for
the whole match at its table; it is told when each decision's time ends (bots.base.Bot.deadline:
a search stops there, and answers at once once its share is spent), and one that answers
BOT_OVERRUN_SECONDS after that forfeits its seat (``timeout``), as bots.table rules. So no
option of a built-in bot makes a match hold a worker longer than BOT_MATCH_SECONDS beyond the
engine's own time. External bots keep their own limits (bots.external.Limits).

And the clocks of online matches: the deadline of the seat an online match awaits, its bank,
the watchdog of the service's turns, a late move's refusal, the timeout bot's move.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

import bots
from bots.external import Limits
from bots.table import ForfeitPolicy, ThinkClock, view_for
from tournaments import plain
from tournaments.errors import ServiceError
from tournaments.models import Match, Seat
from tournaments.online_reads import OnlineTable, bank_left

from .rounds import NOTHING, Progress
from .seeds import derive_seed


def bot_policy(players: int) -> ForfeitPolicy:
    """The rule of a table of ``players`` seats for the bots the service plays there."""
    return ForfeitPolicy(decision_limit=settings.BOT_DECISION_SECONDS,
                         match_limit=settings.BOT_MATCH_SECONDS / max(1, players),
                         overrun=settings.BOT_OVERRUN_SECONDS)


def bot_clock(players: int, left: float | None = None) -> ThinkClock:
    """A seat's clock at such a table, ``left`` seconds of its match time left (None: all)."""
    return ThinkClock(bot_policy(players), left)


# --- the clocks of online matches (services.online) ------------------------------------------
# Whoever an online match awaits has a deadline, stored on the match and its seats: the clock
# survives any process's restart, and a player's seats to play are one query.

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


def seat_await(table: OnlineTable, seat: int | None) -> None:
    """The match now awaits ``seat`` (None: no online seat), which has the tournament's
    ``move_seconds`` from now, and then what it has left of its bank (no clock without
    ``move_seconds``)."""
    seconds = table.tournament.move_seconds
    if seconds and seat is not None:
        since = timezone.now()
        deadline = since + timedelta(seconds=seconds + bank_left(table, seat))
    else:
        since = deadline = None
    _set_clock(table, seat, deadline, since)


def service_await(table: OnlineTable, seat: int, now=None) -> None:
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


def _set_clock(table: OnlineTable, seat: int | None, deadline, since) -> None:
    match = table.match
    if (match.awaiting_seat, match.deadline_at, match.awaiting_since) != (seat, deadline, since):
        match.awaiting_seat, match.deadline_at, match.awaiting_since = seat, deadline, since
        plain.update(Match, match.pk, {"awaiting_seat": seat, "deadline_at": deadline, "awaiting_since": since})


def seat_charge(table: OnlineTable, position: int, now) -> None:
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


class LateMove(ServiceError):
    """A move that came after its seat's deadline (conflict). ``progress``: what applying the
    timeout policy then set off, for the caller to send before it answers the refusal."""

    def __init__(self, message: str, progress: Progress = NOTHING) -> None:
        super().__init__(message, "deadline_at", code="conflict")
        self.progress = progress


def check_deadline(table: OnlineTable, position: int, now) -> None:
    """Refuse (:class:`LateMove`) a move that comes after the awaited seat's deadline, whatever
    the clocks' periodic check has done yet: the timeout policy applies instead."""
    match = table.match
    if match.deadline_at is not None and match.awaiting_seat == position and now > match.deadline_at:
        policy = (f"the timeout bot ({table.tournament.timeout_bot}) plays it" if table.tournament.timeout_bot
                  else "the seat is forfeited")
        raise LateMove(f"this move came after its deadline, {match.deadline_at.isoformat()}: {policy}")


def timeout_move(table: OnlineTable, turn: int) -> dict:
    """The tournament's timeout bot's move for the seat at ``turn``, chosen at once: it moves
    under the match's lock, so it is given no time to think (a bot that searches plays its
    rollout policy's move; the service accepts only bots that do not search)."""
    bot = bots.create(table.tournament.timeout_bot, game=table.tournament.game,
                      seed=derive_seed(table.match.seed, "timeout", turn, table.actions))
    bot.deadline = time.monotonic()
    return bot.act(view_for(table.state, turn))
