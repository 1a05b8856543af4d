"""The persistence around an online match's table (bots.table.Table): lock and load the match
(tournaments.online_reads, its players seated as the service plays them), store what the table
told (its moves as MatchAction rows, its forfeits on their seats), start the next clock
(services.clocks), tell the streams (tournaments.events) and record the end
(services.recording). services.online moves the matches through these.
"""

from __future__ import annotations

from functools import partial

from django.utils import timezone

from bots.external import BotFailure
from bots.table import BY_BOT, BY_SEAT, NETWORK, Forfeited, Fresh, Moved, decision_seed
from tournaments import events, plain
from tournaments.errors import ServiceError
from tournaments.models import Match, MatchAction, Player, Result, Seat, Tournament
from tournaments.online_reads import NOT_ONLINE, OnlineTable, check_online, match_read, table_load

from . import bot_calls
from .clocks import bot_policy, seat_await, service_await
from .players import player_bot
from .recording import Outcome, matches_record_results
from .rounds import NOTHING, Progress


def _builtin(player: Player, game: str, match_seed: int, position: int, decision: int):
    """The built-in bot of ``player`` for decision number ``decision``: made afresh, seeded by
    the match, the seat and the decision, so the match plays the same whichever worker plays
    it. One that cannot be made fails its decision (BotFailure: its seat is forfeited)."""
    try:
        return player_bot(player, game=game, seed=decision_seed(match_seed, position, decision))
    except ServiceError as exc:
        raise BotFailure("exception", exc.message) from None


def seating(match: Match, seats: list[Seat]):
    """The players of an online table as the service plays it (online_reads.Seating): a
    built-in bot made per decision; every other seat waits for the network (a person or a
    remote bot through the API, an external bot that a worker asks: services.bot_calls). The
    service's bots think by services.clocks, their match time left kept on their seats."""
    game = match.round.tournament.game
    players = [NETWORK if seat.player.plays_online or seat.player.is_external_bot
               else Fresh(partial(_builtin, seat.player, game, match.seed, seat.position)) for seat in seats]
    return players, bot_policy(len(seats)), [seat.bank_left for seat in seats]


def locked(match_id: int, *, finished_ok: bool = False, skip_locked: bool = False) -> OnlineTable:
    """The match as it stands, its row locked, refused unless it is an online match still to
    be played (or, ``finished_ok``, already over); with ``skip_locked``, refused at once
    (conflict) when another transaction holds it."""
    match = match_read(match_id, lock=True, skip_locked=skip_locked)
    if match is None:
        if skip_locked and Match.objects.filter(pk=match_id).exists():
            raise ServiceError(f"match {match_id} is being changed", "match", code="conflict")
        raise ServiceError(f"no match {match_id}", "match", code="not_found")
    tournament = match.round.tournament
    if not tournament.online:
        raise ServiceError(NOT_ONLINE, "match", code="conflict")
    if tournament.status == Tournament.Status.CANCELLED:
        raise ServiceError("the tournament is cancelled: its matches are not played", "match", code="conflict")
    if match.status == Match.Status.FINISHED and not finished_ok:
        raise ServiceError("the match is over", "match", code="conflict")
    table = table_load(match, seating)
    check_online(match, table.seats)
    return table


def unlocked(match_id: int) -> OnlineTable | None:
    """The match as it stands, read without a lock, or None unless it is an online match
    being played (or just finished) in a tournament not cancelled."""
    match = Match.objects.select_related("round__tournament").filter(pk=match_id).first()
    if (match is None or not match.round.tournament.online or match.status == Match.Status.PENDING
            or match.round.tournament.status == Tournament.Status.CANCELLED):
        return None
    return table_load(match, seating)


def store(table: OnlineTable, told: int, key: str = "") -> int:
    """Store what the table told since it had told ``told`` things (its ``play.told`` then):
    each move a MatchAction (the first one with ``key``), each forfeit on its seat. Returns the
    number of the last move."""
    seq = -1
    for event in table.play.events_since(told):
        if isinstance(event, Moved):
            seq = event.number
            plain.insert(MatchAction, {"match_id": table.match.pk, "seq": seq, "seat": event.seat,
                                      "action": event.action, "by": event.by, "idempotency_key": key,
                                      "created_at": timezone.now()})
            key = ""
        elif isinstance(event, Forfeited):
            seat = table.seats[event.seat]
            seat.forfeit_reason, seat.forfeit_detail = event.forfeit.reason[:40], event.forfeit.detail
            Seat.objects.filter(pk=seat.pk).update(forfeit_reason=seat.forfeit_reason,
                                                   forfeit_detail=seat.forfeit_detail)
    return seq


def act(table: OnlineTable, by: str, position: int, action: dict, key: str = "") -> int:
    """Apply an action that arrived from outside (engine.IllegalAction: refused, nothing
    changed) and store it; its number."""
    told = table.play.told
    table.play.act(position, action, by=by)
    return store(table, told, key)


def forfeit(table: OnlineTable, position: int, reason: str, detail: str) -> None:
    told = table.play.told
    table.play.forfeit(position, reason, detail)
    store(table, told)


def advance(table: OnlineTable) -> Progress:
    """Start the clock of whoever acts next: an online seat (the tournament's clock), or the
    service (the match returned in ``to_move``, for a worker to play its bots' turns:
    :func:`online_bots_move`), or nobody (the match is over)."""
    turn = table.state.current_player()
    if turn is None:
        return NOTHING
    if table.waits_for() is not None:
        seat_await(table, turn)
        return NOTHING
    service_await(table, turn)
    return Progress(to_move=(table.match.pk,))


def announce(table: OnlineTable) -> None:
    """Tell the match's streams, and the accounts whose players hold its online seats, that
    it changed — once this transaction commits (tournaments.events: a bare notification; each
    stream reads what changed itself)."""
    owners = {seat.player.owner_id for seat in table.seats if seat.player.plays_online and seat.player.owner_id}
    events.publish_on_commit([events.match_channel(table.match.pk), *map(events.user_channel, owners)])


def finish_if_over(table: OnlineTable) -> Progress:
    """Record a match that is over, through services.recording (its result, the rounds it
    closes, ratings, the next rounds); a match with HTTP bots still playing is also returned in
    ``to_move``, for a worker to send them ``finish``."""
    state = table.state
    if not state.is_over():
        return NOTHING
    decisions = [0] * len(table.seats)
    # The bots' thinking is counted on their seats as they play (online_bots_move); a seat played
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
        match_id=table.match.pk, scores=list(state.scores()), places=table.play.places(),
        forfeits={s.position: (s.forfeit_reason, s.forfeit_detail) for s in table.seats if s.forfeit_reason},
        record=state.to_json(), decisions=decisions, think_seconds=think,
    )
    _, progress = matches_record_results(outcomes=[outcome], source=Result.Source.ENGINE)
    seat_await(table, None)
    if any(bot_calls.told_finish(seat) for seat in table.seats):
        progress += Progress(to_move=(table.match.pk,))
    return progress


def open_match(table: OnlineTable) -> Progress:
    """Start a pending online match: the service's seats play up to the first online turn."""
    match = table.match
    match.status, match.started_at = Match.Status.RUNNING, timezone.now()
    Match.objects.filter(pk=match.pk).update(status=match.status, started_at=match.started_at)
    progress = advance(table)
    announce(table)
    return progress + finish_if_over(table)
