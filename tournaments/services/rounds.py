"""Rounds: making them (the next one, or several ahead), closing those whose matches have all
finished, remaking those made ahead when the field changes, and finishing the tournament.

Every function here runs inside the caller's transaction, holding the tournament's row, and
returns what it did as a :class:`Progress`: the rounds closed and made, the tournaments
finished, and the new bot matches. Nothing here sends a match anywhere: the caller at the
top decides (services.dispatch, services.play).
"""

from __future__ import annotations

import dataclasses
import itertools
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from tournaments import formats
from tournaments.formats.stored import tournament_format
from tournaments.models import AuditEvent, Match, Player, Round, Seat, Tournament, plays_online
from tournaments.selectors import active_entrants, round_history

from . import webhooks
from .ladders import ladder_apply_rounds
from .seeds import derive_rng, derive_seed
from .versions import standings_changed


@dataclasses.dataclass(frozen=True)
class Progress:
    """What a change did to tournaments' rounds. ``to_play``: the bot matches it made, in
    round and table order, for the caller to send to the workers (dispatch.send), to keep
    (dispatch.split) or to play itself; people's matches are told to them, never sent.
    ``finished``: the tournaments it finished (a league division closes its season then).
    ``to_open``: the online matches it made (people or remote bots at them, in an online
    tournament), for the caller to open (services.online: dispatch.send_progress).
    ``to_move``: online matches where an external bot (subprocess or HTTP) is to act, or has
    to be told the match is over, for the caller to send to the workers (services.online.
    online_bots_move)."""

    closed: tuple[Round, ...] = ()
    made: tuple[Round, ...] = ()
    to_play: tuple[int, ...] = ()
    finished: tuple[Tournament, ...] = ()
    to_open: tuple[int, ...] = ()
    to_move: tuple[int, ...] = ()

    def __add__(self, other: Progress) -> Progress:
        return Progress(self.closed + other.closed, self.made + other.made, self.to_play + other.to_play,
                        self.finished + other.finished, self.to_open + other.to_open,
                        self.to_move + other.to_move)

    def __bool__(self) -> bool:
        return bool(self.closed or self.made or self.to_play or self.finished or self.to_open or self.to_move)


NOTHING = Progress()


# --- when ----------------------------------------------------------------------------------------

def round_due_at(tournament: Tournament, number: int) -> datetime | None:
    """When round ``number`` may open: ``starts_at`` (or the first round's making) plus one
    ``round_interval`` per earlier round; None when rounds follow one another at once."""
    if tournament.round_interval is None:
        return None
    base = tournament.starts_at
    if base is None:
        first = tournament.rounds.order_by("number").values_list("created_at", flat=True).first()
        base = first or timezone.now()
    return base + (number - 1) * tournament.round_interval


def next_round_due(tournament: Tournament, now: datetime | None = None) -> bool:
    if tournament.round_interval is None:  # rounds follow one another at once
        return True
    due = round_due_at(tournament, tournament.rounds.count() + 1)
    return due is None or due <= (now or timezone.now())


# --- how many ahead ------------------------------------------------------------------------------

def rounds_ahead(tournament: Tournament, fmt: formats.Format | None = None, entrants: list[int] | None = None,
                 *, start: bool = False) -> int:
    """How many matches not yet played a tournament keeps made ahead: 0 (one round at a time)
    unless its format's rounds do not depend on results (a round robin), every entrant is a
    bot and rounds follow one another at once. Then :func:`ahead_matches` (``start``: for the
    rounds its start makes), so workers go from one round to the next without waiting for the
    round to close, and make and record rounds several at a time. A withdrawal or
    disqualification remakes those not started (:func:`rounds_remake_ahead`)."""
    fmt = fmt or tournament_format(tournament)
    if fmt.uses_results or tournament.round_interval is not None:
        return 0
    entrants = active_entrants(tournament) if entrants is None else entrants
    if Player.objects.filter(plays_online(), pk__in=entrants).exists():
        return 0  # people (and remote bots) are told their tables a round at a time
    return ahead_matches(start=start)


def ahead_matches(*, start: bool = False) -> int:
    """ROUNDS_AHEAD_MATCHES when set. By default, at the start two default batches
    (MATCH_BATCH_SIZE) for each of MATCH_BATCH_SPREAD workers: nobody knows yet how long the
    matches take, so they go out in batches of that size, to be shared; and once rounds close,
    two of the largest batches (MATCH_BATCH_MAX) for each worker, made at once by the worker
    whose results closed the rounds, which cuts them at the pace it has measured: what it would
    play in MATCH_BATCH_SECONDS it keeps and plays on with, the rest goes to the broker
    (dispatch.split). Making and recording rounds costs per call, not per match, so short
    matches want them made in large groups; how many is a setting, never the pace of whichever
    worker made them."""
    configured = settings.ROUNDS_AHEAD_MATCHES
    if configured is not None:
        return max(0, int(configured))
    size = settings.MATCH_BATCH_SIZE if start else settings.MATCH_BATCH_MAX
    return 2 * size * max(1, settings.MATCH_BATCH_SPREAD)


def open_matches(tournament: Tournament) -> int:
    return Match.objects.filter(round__tournament=tournament).exclude(status=Match.Status.FINISHED).count()


# --- making ----------------------------------------------------------------------------------------

def round_create_next(*, tournament: Tournament, fmt: formats.Format | None = None,
                      entrants: list[int] | None = None, ahead: int | None = None,
                      waiting: int | None = None, start: bool = False) -> Progress:
    """Ask the format for the next round and make its matches; for a tournament that makes
    rounds ahead (:func:`rounds_ahead`; ``start``: the tournament's first rounds), go on until
    that many matches are open. Finish the tournament when the format has no more and no round
    is open. ``fmt``, ``entrants``, ``ahead`` and ``waiting`` (open matches), when the caller
    has them. Call inside a transaction holding the tournament's row."""
    fmt = fmt or tournament_format(tournament)
    entrants = active_entrants(tournament) if entrants is None else entrants
    ahead = rounds_ahead(tournament, fmt, entrants, start=start) if ahead is None else ahead
    history = round_history(tournament, open_rounds=bool(ahead))
    number = tournament.rounds.count() + 1
    if not ahead:
        waiting = 0  # one round at a time: the next is made once the last closed
    elif waiting is None:
        waiting = open_matches(tournament)
    planned_rounds: list[formats.Round] = []
    while True:
        rng = derive_rng(tournament.seed, "round", number)
        planned = fmt.next_round(entrants, history, rng)
        if planned is None:
            break
        planned = dataclasses.replace(planned, number=number)
        planned_rounds.append(planned)
        history.append(formats.RoundResult(
            number=number, byes=planned.byes,
            tables=tuple(formats.TableResult.unplayed(t.seats) for t in planned.tables),
        ))
        number += 1
        waiting += len(planned.tables)
        # A round of byes only (double elimination keeps its round numbers in step this
        # way) is over as soon as it is made: go on to the next.
        if planned.tables and waiting >= ahead:
            break
    progress = _rounds_create(tournament, planned_rounds)
    if not any(p.tables for p in planned_rounds) and not tournament.rounds.exclude(status=Round.Status.FINISHED).exists():
        progress += tournament_finish(tournament=tournament)
    return progress


#: Seconds an online match waits for the task that opens it before the clock check opens it
#: itself (its message lost): the watchdog of a pending online match's ``deadline_at``.
OPEN_WATCHDOG_SECONDS = 10


def _rounds_create(tournament: Tournament, planned_rounds: list[formats.Round]) -> Progress:
    """The rounds, their tables and seats, four INSERTs however many rounds (PostgreSQL and
    SQLite >= 3.35 return the new ids)."""
    if not planned_rounds:
        return NOTHING
    now = timezone.now()
    standings_changed(tournament_ids=[tournament.pk])  # new rounds: their byes, the bracket's reach
    rounds = Round.objects.bulk_create(
        Round(tournament=tournament, number=planned.number, notes=list(planned.notes), byes=list(planned.byes),
              **({} if planned.tables else {"status": Round.Status.FINISHED, "finished_at": now}))
        for planned in planned_rounds
    )
    online = set(
        Player.objects.filter(plays_online(),
                              pk__in={p for planned in planned_rounds for table in planned.tables for p in table.seats})
        .values_list("pk", flat=True)
    )
    matches, tables = [], []
    # An online match is opened by the task its round's maker sends once it commits; if that
    # message is lost (a process killed after the commit, the broker down), the clock check
    # opens it once this watchdog runs out (online.deadlines_expire).
    watchdog = now + timedelta(seconds=OPEN_WATCHDOG_SECONDS)
    for rnd, planned in zip(rounds, planned_rounds):
        for index, table in enumerate(planned.tables, start=1):
            # Duplicate play: tables with one deal key share the seed, so they share the cards.
            if table.deal is not None:
                seed = derive_seed(tournament.seed, "round", rnd.number, "deal", table.deal)
            else:
                seed = derive_seed(tournament.seed, "round", rnd.number, "table", index)
            people = tournament.online and not online.isdisjoint(table.seats)
            matches.append(Match(
                round=rnd, table=index, seed=seed, deal=table.deal, notes=list(table.notes),
                scheduled_at=tournament.starts_at if rnd.number == 1 else None,
                deadline_at=watchdog if people else None,
            ))
            tables.append(table)
    Match.objects.bulk_create(matches)
    Seat.objects.bulk_create(
        Seat(match=match, position=pos, player_id=pid)
        for match, table in zip(matches, tables)
        for pos, pid in enumerate(table.seats)
    )
    AuditEvent.objects.bulk_create(
        AuditEvent(tournament=tournament, action="round_made",
                   detail={"round": planned.number, "tables": len(planned.tables), "byes": list(planned.byes)})
        for planned in planned_rounds
    )
    to_play = tuple(match.pk for match, table in zip(matches, tables) if online.isdisjoint(table.seats))
    # People's tables: played through the API in an online tournament, else on real tables
    # (their results reported).
    to_open = tuple(match.pk for match, table in zip(matches, tables)
                    if tournament.online and not online.isdisjoint(table.seats))
    webhooks.notify_rounds(tournament=tournament, rounds=rounds,
                           matches={rnd.pk: [m.pk for m in matches if m.round_id == rnd.pk] for rnd in rounds})
    return Progress(made=tuple(rounds), to_play=to_play, to_open=to_open)


def rounds_top_up(*, tournament: Tournament, waiting: int | None = None) -> Progress:
    """After rounds closed: make the next round when none is open, or, for a tournament that
    makes rounds ahead, more rounds once half of those made ahead are played; finish the
    tournament when the format has no more and every round is over. ``waiting``: the matches
    still to play, when the caller knows. Call inside a transaction holding the tournament's
    row."""
    if tournament.status != Tournament.Status.RUNNING:
        return NOTHING
    waiting = open_matches(tournament) if waiting is None else waiting
    if waiting > ahead_matches() // 2:
        return NOTHING  # enough made ahead whatever the format: no need to ask
    fmt = tournament_format(tournament)
    entrants = active_entrants(tournament)
    ahead = rounds_ahead(tournament, fmt, entrants)
    if waiting > ahead // 2:
        return NOTHING
    return round_create_next(tournament=tournament, fmt=fmt, entrants=entrants, ahead=ahead, waiting=waiting)


def rounds_remake_ahead(*, tournament: Tournament, why: str) -> Progress:
    """After the field changed: the rounds made ahead (after the current round) of which no
    match has started are deleted and made again for the field as it is now, so a withdrawal
    or disqualification counts from the next round however far ahead rounds were made. A round
    with a started match stays, and so does every round before it. Call inside a
    transaction."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != Tournament.Status.RUNNING:
        return NOTHING
    ahead = list(tournament.rounds.exclude(status=Round.Status.FINISHED).order_by("number")[1:])
    if not ahead:
        return NOTHING
    # Lock the waiting matches: a worker claiming one now finishes its claim first (claims
    # never wait for the tournament's row), and later claims find them gone. Recorders lock
    # only running matches, save one whose lease ran out and was handed back while its slow
    # worker records it: then PostgreSQL aborts one of the two on the deadlock, and nothing is
    # half-written. Then the rounds where a match has started (claimed, even once) stay.
    list(Match.objects.select_for_update().filter(round__in=ahead, status=Match.Status.PENDING).values_list("pk"))
    started = set(
        Match.objects.filter(round__in=ahead)
        .filter(~Q(status=Match.Status.PENDING) | Q(started_at__isnull=False))
        .values_list("round__number", flat=True)
    )
    doomed = [rnd for rnd in ahead if rnd.number > max(started, default=0)]
    if not doomed:
        return NOTHING
    Round.objects.filter(pk__in=[rnd.pk for rnd in doomed]).delete()
    standings_changed(tournament_ids=[tournament.pk])
    AuditEvent.objects.create(tournament=tournament, action="rounds_remade", detail={
        "from_round": doomed[0].number, "rounds": len(doomed), "why": why,
    })
    return rounds_top_up(tournament=tournament)


# --- closing ---------------------------------------------------------------------------------------

def rounds_close(*, tournament: Tournament) -> Progress:
    """Close the rounds whose matches have all finished, in round order, up to the first one
    still being played: apply their ratings (round by round, table by table), then make the
    next rounds or finish the tournament (:func:`rounds_top_up`). Serialised on the
    tournament's row, so a round closes once; a round made ahead and played before an earlier
    one waits for it, so ratings never depend on the order matches finished in. Call inside a
    transaction that holds the tournament's row (select_for_update)."""
    playing = list(
        Round.objects.filter(tournament=tournament).exclude(status=Round.Status.FINISHED)
        .annotate(unplayed=Count("matches", filter=Q(matches__status__in=[Match.Status.PENDING, Match.Status.RUNNING])))
        .order_by("number")
    )
    closing = list(itertools.takewhile(lambda rnd: rnd.unplayed == 0, playing))
    if not closing:
        return NOTHING
    now = timezone.now()
    Round.objects.filter(pk__in=[rnd.pk for rnd in closing]).update(status=Round.Status.FINISHED, finished_at=now)
    standings_changed(tournament_ids=[tournament.pk])  # a closed round's duplicate tables are public now
    for rnd in closing:
        rnd.status, rnd.finished_at = Round.Status.FINISHED, now
    if tournament.ladder_id is not None:
        ladder_apply_rounds(ladder_id=tournament.ladder_id, rounds=closing)
    progress = Progress(closed=tuple(closing))
    # A periodic tournament (a league division) opens its next round when it is due; the
    # periodic tick does it then.
    if tournament.status == Tournament.Status.RUNNING and next_round_due(tournament):
        progress += rounds_top_up(tournament=tournament, waiting=sum(rnd.unplayed for rnd in playing[len(closing):]))
    return progress


def tournament_finish(*, tournament: Tournament) -> Progress:
    """Mark the tournament finished (inside the transaction that completed its last round). A
    league division's season is closed by the caller (services.leagues.seasons_close_after)."""
    if tournament.status == Tournament.Status.FINISHED:
        return NOTHING
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "finished_at"])
    AuditEvent.objects.create(tournament=tournament, action="finished", detail={})
    webhooks.notify_finished(tournament=tournament)
    return Progress(finished=(tournament,))
