"""Playing matches: claiming them with a lease, playing them through the engine with the seats'
bots, and recording each result exactly once, together with what follows from it (the round's
end, its ratings, the next round) in the same transaction.

Workers take bot matches in batches (``match_play_batch``): one statement claims the batch, and
results are recorded a flush at a time, a few queries for the whole flush, because for short
bot matches the database round trips, not the cards, are what a match costs.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

import bots
import engine
from bots import runner
from tournaments import limits
from tournaments.models import AuditEvent, Match, Player, Result, Round, Seat, Tournament

from .bulk import bulk_set, bulk_set_rows
from .dispatch import dispatch_matches, keep_one_batch
from .errors import ServiceError
from .ladders import ladder_apply_rounds
from .players import player_bot
from .schedule import next_round_due
from .seeds import bot_seed
from .tournaments import rounds_top_up

log = logging.getLogger(__name__)


def lease_seconds() -> float:
    return settings.MATCH_LEASE_SECONDS


def flush_seconds() -> float:
    return settings.MATCH_FLUSH_SECONDS


def max_attempts() -> int:
    return settings.MATCH_MAX_ATTEMPTS


class ClaimStatus(StrEnum):
    """What became of a match a worker asked for."""

    CLAIMED = "claimed"  # leased to this worker: it plays it
    FINISHED = "finished"  # recorded (before, or by this worker)
    BUSY = "busy"  # another live worker holds its lease (retry_in: until it runs out)
    PEOPLE = "people"  # people play it: never a worker
    FAILED = "failed"  # its play raised: it keeps its lease until reclaimed
    EXHAUSTED = "exhausted"  # played MATCH_MAX_ATTEMPTS times without a result: waits for match_retry
    CANCELLED = "cancelled"  # its tournament was cancelled: never played
    GONE = "gone"  # deleted: a round made ahead was remade after a withdrawal
    HANDED_BACK = "handed_back"  # its worker is shutting down: pending again, back to the broker


@dataclass(frozen=True)
class Claim:
    """What a worker got when it asked for a match."""

    status: ClaimStatus
    match: Match
    retry_in: float = 0.0
    seats: tuple[Seat, ...] = ()  # of a claimed match, in turn order, with their players


@dataclass(frozen=True)
class Outcome:
    """A finished match's result, as a worker or a person reports it."""

    match_id: int
    scores: list[int]
    places: list[int]
    forfeits: dict[int, tuple[str, str]] = field(default_factory=dict)
    record: dict | None = None
    decisions: list[int] | None = None
    think_seconds: list[float] | None = None
    # A play of the engine not charged yet to the match's attempts: recording charges it.
    charge: bool = False


def match_claim(*, match_id: int, owner: str) -> Claim:
    """Take the run lease of a match. A match already finished, or leased by another worker
    whose lease has not run out, is not claimed; a match with people at it is never played
    by a worker."""
    return matches_claim(match_ids=[match_id], owner=owner)[match_id]


def matches_claim(*, match_ids: Sequence[int], owner: str) -> dict[int, Claim]:
    """:func:`match_claim` for many matches in one transaction (rows locked in id order, so
    two workers claiming overlapping batches cannot deadlock). A match that no longer exists
    (a round made ahead and remade after a withdrawal) is "gone"."""
    with transaction.atomic():
        matches = list(
            Match.objects.select_for_update(of=("self",)).select_related("round")
            .filter(pk__in=match_ids).order_by("pk")
        )
        claims: dict[int, Claim] = {
            pk: Claim(ClaimStatus.GONE, Match(pk=pk)) for pk in set(match_ids) - {m.pk for m in matches}
        }
        # A batch's matches share a few tournaments and players: each is loaded once, not once
        # per match or seat (a batch of short matches can hold hundreds).
        tournaments = Tournament.objects.in_bulk({m.round.tournament_id for m in matches})
        for match in matches:
            match.round.tournament = tournaments[match.round.tournament_id]
        seats: dict[int, list[Seat]] = {m.pk: [] for m in matches}
        seat_rows = list(Seat.objects.filter(match__in=matches).order_by("match_id", "position"))
        players = Player.objects.in_bulk({seat.player_id for seat in seat_rows})
        for seat in seat_rows:
            seat.player = players[seat.player_id]
            seats[seat.match_id].append(seat)
        with_people = {pk for pk, at in seats.items() if any(s.player.kind != Player.Kind.BOT for s in at)}
        now = timezone.now()
        expires = now + timedelta(seconds=lease_seconds())
        taken_over: list[int] = []
        for match in matches:
            if match.status == Match.Status.FINISHED:
                claims[match.pk] = Claim(ClaimStatus.FINISHED, match)
            elif (
                match.status == Match.Status.RUNNING
                and match.lease_owner != owner
                and match.lease_expires_at is not None
                and match.lease_expires_at > now
            ):
                claims[match.pk] = Claim(ClaimStatus.BUSY, match, (match.lease_expires_at - now).total_seconds())
            elif match.pk in with_people:
                claims[match.pk] = Claim(ClaimStatus.PEOPLE, match)
            elif match.round.tournament.status == Tournament.Status.CANCELLED:
                # Rounds made ahead may still be queued when an organiser cancels.
                claims[match.pk] = Claim(ClaimStatus.CANCELLED, match)
            elif match.attempts >= max_attempts():
                claims[match.pk] = Claim(ClaimStatus.EXHAUSTED, match)
            else:
                if match.status == Match.Status.RUNNING and match.lease_owner != owner:
                    match.interrupted += 1  # taken over: its worker's lease ran out
                    taken_over.append(match.pk)
                match.status = Match.Status.RUNNING
                match.lease_owner = owner
                match.lease_expires_at = expires
                match.started_at = match.started_at or now
                claims[match.pk] = Claim(ClaimStatus.CLAIMED, match, seats=tuple(seats[match.pk]))
        claimed = [claim.match for claim in claims.values() if claim.status == ClaimStatus.CLAIMED]
        if claimed:
            # No attempt is charged here: a claimed match may never start (its worker dies
            # first); the play is charged when it is recorded, or before it starts when an
            # earlier worker died holding it (_play_batch).
            Match.objects.filter(pk__in=[m.pk for m in claimed]).update(
                status=Match.Status.RUNNING, lease_owner=owner, lease_expires_at=expires,
                started_at=Coalesce("started_at", now),
            )
            if taken_over:
                Match.objects.filter(pk__in=taken_over).update(interrupted=F("interrupted") + 1)
        return claims


def _lease_renew(match_ids: list[int], owner: str) -> set[int]:
    """Extend the lease of matches this worker still holds; returns those it still holds (a
    match whose lease ran out may have gone to another worker)."""
    expires = timezone.now() + timedelta(seconds=lease_seconds())
    with transaction.atomic():
        held = set(
            Match.objects.select_for_update().filter(pk__in=match_ids, status=Match.Status.RUNNING, lease_owner=owner)
            .values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=held).update(lease_expires_at=expires)
    return held


def match_play(*, match_id: int, owner: str) -> Claim:
    """Claim a bot match, play it and record the result. Safe to call twice, or from two
    workers at once: the lease keeps them apart and the result is recorded only once."""
    claim = match_play_batch(match_ids=[match_id], owner=owner)[match_id]
    if claim.status == ClaimStatus.FINISHED:
        return Claim(ClaimStatus.FINISHED, Match.objects.get(pk=match_id))
    return claim


def match_play_batch(*, match_ids: Sequence[int], owner: str, on_played=None,
                     should_stop: Callable[[], bool] | None = None) -> dict[int, Claim]:
    """Claim bot matches, play those claimed in the order given, and record their results a
    flush at a time: whenever MATCH_FLUSH_SECONDS have passed since the last flush, and at the
    end. The leases of matches not yet played are renewed when half their time has gone, so a
    long batch keeps its matches and a dead worker's batch goes back after one lease.

    Returns each match's claim; a played match's status is "finished". ``on_played(match_id)``
    is called after each match is recorded (progress bars). A flush that closes a round keeps
    the next round's first batch for this worker (dispatch.keep_one_batch), which plays it next.

    ``should_stop()`` is asked before each match: once it says yes (the worker is told to shut
    down), the match in hand has been recorded, and the rest are handed back (status
    "handed_back": pending again and sent to the broker for another worker) at once."""
    claims: dict[int, Claim] = {}
    batch = list(dict.fromkeys(match_ids))
    # Play on for at most one lease's time, then hand the kept batch to the broker like the
    # others: a task stays short, and the broker never takes a long one for a lost one.
    play_on_until = time.monotonic() + lease_seconds()
    while batch:
        kept: list[int] = []
        claims.update(_play_batch(batch, owner, on_played, kept, should_stop))
        # The flushes closed a round and this worker kept the next round's first batch.
        batch = [pk for pk in dict.fromkeys(kept) if pk not in claims]
        stopping = should_stop is not None and should_stop()
        if batch and (stopping or time.monotonic() > play_on_until):
            dispatch_matches(batch)  # outside any transaction: sent now
            break
    return claims


def _hand_back(match_ids: list[int], owner: str) -> list[int]:
    """Give back claimed matches this worker will not play (it is shutting down): pending
    again, no attempt charged, and sent to the broker for another worker."""
    if not match_ids:
        return []
    with transaction.atomic():
        mine = list(
            Match.objects.select_for_update().filter(pk__in=match_ids, status=Match.Status.RUNNING, lease_owner=owner)
            .order_by("pk").values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=mine).update(status=Match.Status.PENDING, lease_owner="", lease_expires_at=None)
        dispatch_matches(mine)
    return mine


def _play_batch(match_ids: list[int], owner: str, on_played, kept: list[int],
                should_stop: Callable[[], bool] | None = None) -> dict[int, Claim]:
    claims = matches_claim(match_ids=match_ids, owner=owner)
    to_play = [pk for pk in match_ids if claims[pk].status == ClaimStatus.CLAIMED]
    if not to_play:
        return claims

    lease = lease_seconds()
    renew_at = time.monotonic() + lease / 2
    flush_every = flush_seconds()
    last_flush = time.monotonic()
    played: list[Outcome] = []
    play_seconds, play_count = 0.0, 0  # what a match costs this worker: bots, engine, its record

    def flush() -> None:
        nonlocal last_flush
        if played:
            with keep_one_batch(match_seconds=play_seconds / play_count) as next_batch:
                matches_record_results(outcomes=played, source=Result.Source.ENGINE)
            kept.extend(next_batch)
            for outcome in played:
                claims[outcome.match_id] = Claim(ClaimStatus.FINISHED, claims[outcome.match_id].match)
                if on_played is not None:
                    on_played(outcome.match_id)
            played.clear()
        last_flush = time.monotonic()

    def charge(pk: int) -> None:
        """Charge a play to ``pk`` now (committed before it starts, or as it failed)."""
        Match.objects.filter(pk=pk, status=Match.Status.RUNNING, lease_owner=owner).update(attempts=F("attempts") + 1)
        claims[pk].match.attempts += 1

    for index, pk in enumerate(to_play):
        if should_stop is not None and should_stop():
            flush()
            for given in _hand_back([p for p in to_play[index:] if claims[p].status == ClaimStatus.CLAIMED], owner):
                claims[given] = Claim(ClaimStatus.HANDED_BACK, claims[given].match)
            log.info("stopping: handed back %d match(es) for another worker", len(to_play) - index)
            break
        if time.monotonic() >= renew_at:
            flush()
            still_held = _lease_renew(to_play[index:], owner)
            for lost in set(to_play[index:]) - still_held:
                claims[lost] = Claim(ClaimStatus.BUSY, claims[lost].match)
            renew_at = time.monotonic() + lease / 2
        if claims[pk].status != ClaimStatus.CLAIMED:
            continue
        match = claims[pk].match
        # A match whose earlier worker died holding it may be what killed it: it is played
        # alone, its play charged (and committed) first, so a match that kills every worker is
        # given up after MATCH_MAX_ATTEMPTS plays, and the innocent rest of that worker's batch
        # is never charged for plays that did not start.
        careful = match.interrupted > 0
        if careful:
            flush()
            charge(pk)
        tournament = match.round.tournament
        players = []
        for seat in claims[pk].seats:
            seed = bot_seed(match.seed, seat.position)
            try:
                players.append(player_bot(seat.player, game=tournament.game, seed=seed))
            except ServiceError as exc:
                players.append(_unavailable_bot(tournament.game, seed, exc.message))
        started = time.monotonic()
        try:
            outcome = runner.play_match(tournament.game, players, seed=match.seed, options=tournament.options, deck=match.deck)
        except Exception:
            # A bug, not a bot's fault (bots' failures are forfeits inside the runner): the rest
            # of the batch goes on; this match keeps its lease and is played again once
            # reclaim_matches finds the lease run out.
            if not careful:
                charge(pk)
            log.exception("match %s could not be played (attempt %s)", pk, match.attempts)
            claims[pk] = Claim(ClaimStatus.FAILED, match)
            continue
        state = outcome.state
        played.append(Outcome(
            match_id=pk,
            scores=list(state.scores()),
            places=list(outcome.places),
            forfeits={seat: (f.reason, f.detail) for seat, f in outcome.forfeits.items()},
            record=state.to_json(),
            decisions=list(outcome.decisions),
            think_seconds=list(outcome.decision_time),
            charge=not careful,
        ))
        play_seconds += time.monotonic() - started
        play_count += 1
        if time.monotonic() - last_flush >= flush_every:
            flush()
    flush()
    return claims


def _unavailable_bot(game: str, seed: int, reason: str):
    """A bot that fails at its first decision, so the runner forfeits the seat (and plays it
    with the fallback bot) when a player's bot cannot be built."""
    class Unavailable(bots.Bot):
        def act(self, view):
            raise bots.BotFailure("unavailable", reason)

    bot = Unavailable(game=game, seed=seed)
    bot.name = "unavailable"
    return bot


def _check_result(match: Match, scores: list, places: list, n: int | None = None, *,
                  reported: bool = False, game: str | None = None) -> None:
    """A result fit to record: one integer score per seat within the 32-bit score column, and
    places that form a competition ranking (1, 2, 2, 4). A ``reported`` result (people's word,
    not the engine's) must also agree with itself: the scores of a zero-sum game add up to 0,
    and the places are those the game gives the scores (``engine.Game.places``). A played
    result keeps its places whatever the scores: a forfeiting bot ranks last."""
    n = match.seats.count() if n is None else n
    limits.check_scores(scores, n)
    limits.check_places(places, n)
    if reported:
        game = game or match.round.tournament.game
        limits.check_reported(engine.game(game), scores, places)


def match_record_result(
    *,
    match_id: int,
    scores: list[int],
    places: list[int],
    source: str,
    forfeits: dict[int, tuple[str, str]] | None = None,
    record: dict | None = None,
    decisions: list[int] | None = None,
    think_seconds: list[float] | None = None,
    actor=None,
) -> Match:
    """Store a finished match once. A second call returns the match as first recorded.

    In the same transaction, a round whose last match this is is closed: its ratings are
    applied (in table order, so the order workers finish in does not matter) and the next
    round is made, or the tournament finished.
    """
    outcome = Outcome(match_id, scores, places, forfeits or {}, record, decisions, think_seconds)
    return matches_record_results(outcomes=[outcome], source=source, actor=actor)[match_id]


_SEAT_FIELDS = ["score", "place", "forfeit_reason", "forfeit_detail", "decisions", "think_seconds"]
_MATCH_FIELDS = ["status", "finished_at", "lease_owner", "lease_expires_at", "record", "attempts"]


def matches_record_results(*, outcomes: Sequence[Outcome], source: str, actor=None) -> dict[int, Match]:
    """:func:`match_record_result` for many matches in one transaction and a handful of
    queries: the matches are locked in id order (two recorders cannot deadlock), recorded,
    then each tournament's finished rounds are closed (:func:`rounds_close`). A match already
    finished keeps its first result. If any outcome is invalid nothing is recorded.

    A match of a cancelled tournament is never recorded nor rated: a played one (``source``
    engine: its worker played it before it learnt of the cancellation) is left unrecorded,
    its lease released, and the audit log says so; a reported one is refused (conflict).
    The tournaments' rows are locked after the matches' (rounds_close's order), so a
    cancellation either comes first and is seen, or waits for this transaction."""
    ids = [o.match_id for o in outcomes]
    if len(set(ids)) != len(ids):
        raise ServiceError("a batch names a match twice", "match")
    with transaction.atomic():
        matches = {
            m.pk: m
            for m in Match.objects.select_for_update(of=("self",)).select_related("round")
            .filter(pk__in=ids).order_by("pk")
        }
        missing = set(ids) - set(matches)
        if missing:
            raise Match.DoesNotExist(f"no match {sorted(missing)}")
        tournaments = {
            t.pk: t for t in Tournament.objects.select_for_update()
            .filter(pk__in={m.round.tournament_id for m in matches.values()}).order_by("pk")
        }
        reported = source == Result.Source.REPORTED
        # (seat id, position) of each match to record: written back as plain rows, no instances.
        seats: dict[int, list[tuple[int, int]]] = {pk: [] for pk in ids}
        for seat_id, match_id, position in Seat.objects.filter(
            match_id__in=[pk for pk in ids if matches[pk].status != Match.Status.FINISHED]
        ).values_list("pk", "match_id", "position"):
            seats[match_id].append((seat_id, position))
        now = timezone.now()
        seat_rows, results, audits, finished, released = [], [], [], [], []
        for outcome in outcomes:
            match = matches[outcome.match_id]
            if match.status == Match.Status.FINISHED:
                continue
            tournament = tournaments[match.round.tournament_id]
            if tournament.status == Tournament.Status.CANCELLED:
                if reported:
                    raise ServiceError(f"the tournament of match {match.pk} is cancelled: no result is recorded",
                                       "match", code="conflict")
                released.append(match)
                continue
            _check_result(match, outcome.scores, outcome.places, len(seats[match.pk]), reported=reported, game=tournament.game)
            forfeits = outcome.forfeits or {}
            for seat_id, i in seats[match.pk]:
                reason, detail = forfeits.get(i, ("", ""))
                seat_rows.append((
                    seat_id, outcome.scores[i], outcome.places[i], reason[:40], detail[:4000],
                    outcome.decisions[i] if outcome.decisions else 0,
                    outcome.think_seconds[i] if outcome.think_seconds else 0.0,
                ))
            results.append(Result(match=match, scores=outcome.scores, places=outcome.places, source=source))
            match.status = Match.Status.FINISHED
            match.finished_at = now
            match.lease_owner = ""
            match.lease_expires_at = None
            match.record = outcome.record
            if outcome.charge:
                match.attempts += 1
            finished.append(match)
            if forfeits:
                audits.append(AuditEvent(
                    tournament_id=match.round.tournament_id, match=match, actor=actor,
                    action="forfeit", detail={str(seat): reason for seat, (reason, _) in forfeits.items()},
                ))
        if released:
            for match in released:
                match.status, match.lease_owner, match.lease_expires_at = Match.Status.PENDING, "", None
            Match.objects.filter(pk__in=[m.pk for m in released]).update(
                status=Match.Status.PENDING, lease_owner="", lease_expires_at=None)
            AuditEvent.objects.bulk_create(
                AuditEvent(tournament_id=m.round.tournament_id, match=m, actor=actor, action="result_discarded",
                           detail={"why": "the tournament is cancelled", "source": source})
                for m in released
            )
            log.info("discarded the results of match(es) %s: their tournament is cancelled", [m.pk for m in released])
        if finished:
            bulk_set_rows(Seat, _SEAT_FIELDS, seat_rows)
            Result.objects.bulk_create(results)
            bulk_set(finished, _MATCH_FIELDS)
            AuditEvent.objects.bulk_create(audits)
            for tournament_id in sorted({m.round.tournament_id for m in finished}):
                rounds_close(tournament=tournaments[tournament_id])
        return matches


def rounds_close(*, tournament: Tournament) -> list[Round]:
    """Close the rounds whose matches have all finished, in round order, up to the first one
    still being played: apply their ratings (round by round, table by table), then make the
    next rounds or finish the tournament (:func:`rounds_top_up`). Serialised on the
    tournament's row, so a round closes once; a round made ahead and played before an earlier
    one waits for it, so ratings never depend on the order matches finished in. Call inside a
    transaction that holds the tournament's row (select_for_update); returns the rounds closed
    now."""
    playing = list(
        Round.objects.filter(tournament=tournament).exclude(status=Round.Status.FINISHED)
        .annotate(unplayed=Count("matches", filter=Q(matches__status__in=[Match.Status.PENDING, Match.Status.RUNNING])))
        .order_by("number")
    )
    closing = list(itertools.takewhile(lambda rnd: rnd.unplayed == 0, playing))
    if not closing:
        return []
    now = timezone.now()
    Round.objects.filter(pk__in=[rnd.pk for rnd in closing]).update(status=Round.Status.FINISHED, finished_at=now)
    for rnd in closing:
        rnd.status, rnd.finished_at = Round.Status.FINISHED, now
    if tournament.ladder_id is not None:
        ladder_apply_rounds(ladder_id=tournament.ladder_id, rounds=closing)
    # A periodic tournament (a league division) opens its next round when it is due; the
    # periodic tick does it then.
    if tournament.status == Tournament.Status.RUNNING and next_round_due(tournament):
        rounds_top_up(tournament=tournament, waiting=sum(rnd.unplayed for rnd in playing[len(closing):]))
    return closing


def matches_reclaim(*, stale_after: float | None = None) -> list[int]:
    """Give back matches whose worker died (lease run out) and re-dispatch bot matches that
    nobody has claimed for a while, in a tournament where no match has started for as long
    (a lost message). A match already claimed MATCH_MAX_ATTEMPTS times is given back but not
    sent again: it is logged in the audit ("match_failed") and waits for :func:`match_retry`,
    so a match that kills or breaks its worker every time does not do so for ever. Returns
    the ids dispatched."""
    now = timezone.now()
    stale_after = lease_seconds() if stale_after is None else stale_after
    limit = max_attempts()
    with transaction.atomic():
        expired = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=Match.Status.RUNNING, lease_expires_at__lt=now)
            .values_list("pk", "attempts", "round__tournament_id")
        )
        if expired:
            Match.objects.filter(pk__in=[pk for pk, _, _ in expired]).update(
                status=Match.Status.PENDING, lease_owner="", lease_expires_at=None, interrupted=F("interrupted") + 1,
            )
        given_up = [(pk, attempts, tid) for pk, attempts, tid in expired if attempts >= limit]
        AuditEvent.objects.bulk_create(
            AuditEvent(tournament_id=tid, match_id=pk, action="match_failed",
                       detail={"attempts": attempts, "why": "its lease ran out on every attempt"})
            for pk, attempts, tid in given_up
        )
        waiting = list(
            Match.objects.filter(
                status=Match.Status.PENDING,
                attempts__lt=limit,
                round__tournament__status=Tournament.Status.RUNNING,
                round__created_at__lt=now - timedelta(seconds=stale_after),
            )
            # Rounds made ahead wait in the queue behind earlier ones: a tournament whose
            # workers started a match lately is moving, and its messages are not lost.
            .exclude(round__tournament__in=Tournament.objects.filter(
                rounds__matches__started_at__gte=now - timedelta(seconds=stale_after)))
            .exclude(seats__player__kind=Player.Kind.PERSON)
            .values_list("pk", flat=True)
        )
        ids = sorted({pk for pk, attempts, _ in expired if attempts < limit} | set(waiting))
        if expired:
            log.warning("reclaimed %d match(es) whose lease ran out: %s", len(expired), [pk for pk, _, _ in expired])
        if given_up:
            log.error("gave up on match(es) %s after %d attempts: retry them once fixed", [pk for pk, _, _ in given_up], limit)
        dispatch_matches(ids)
    return ids


def match_retry(*, match_id: int, actor=None) -> Match:
    """Play a bot match again from scratch (its attempts count reset), e.g. once what made it
    fail is fixed. Refused for a finished match, a match of a cancelled tournament, a match
    with people at it, and a match a live worker holds."""
    with transaction.atomic():
        match = Match.objects.select_for_update(of=("self",)).select_related("round__tournament").get(pk=match_id)
        if match.status == Match.Status.FINISHED:
            raise ServiceError("the match is finished: its result stands", "status", code="conflict")
        if match.round.tournament.status == Tournament.Status.CANCELLED:
            raise ServiceError("the tournament is cancelled: its matches are not played", "status", code="conflict")
        if match.seats.exclude(player__kind=Player.Kind.BOT).exists():
            raise ServiceError("people play this match: they report its result", "match", code="conflict")
        if match.status == Match.Status.RUNNING and match.lease_expires_at and match.lease_expires_at > timezone.now():
            raise ServiceError(f"a worker ({match.lease_owner}) is playing it now", "status", code="conflict")
        AuditEvent.objects.create(tournament_id=match.round.tournament_id, match=match, actor=actor,
                                  action="match_retried", detail={"attempts_before": match.attempts})
        match.status = Match.Status.PENDING
        match.attempts = match.interrupted = 0
        match.lease_owner = ""
        match.lease_expires_at = None
        match.save(update_fields=["status", "attempts", "interrupted", "lease_owner", "lease_expires_at"])
        dispatch_matches([match.pk])
        return match


def pending_bot_matches(tournament: Tournament) -> list[int]:
    return list(
        Match.objects.filter(round__tournament=tournament, status=Match.Status.PENDING)
        .exclude(seats__player__kind=Player.Kind.PERSON)
        .order_by("round__number", "table")
        .values_list("pk", flat=True)
    )

