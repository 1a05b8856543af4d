"""Recording finished matches, played by a worker or reported by people: each result stored
exactly once, together with what follows from it — the rounds it closes, their ratings, the
next rounds, the tournament's end and its league season's — in the same transaction. The new
bot matches come back to the caller (rounds.Progress), which decides who plays them.

A worker records a flush of matches at a time, a few queries for the whole flush, because for
short bot matches the database round trips, not the cards, are what a match costs.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

import engine
from tournaments import limits
from tournaments.errors import ServiceError
from tournaments.models import AuditEvent, Match, Result, Seat, Tournament

from . import webhooks
from .bulk import bulk_set, bulk_set_rows
from .leagues import seasons_close_after
from .rounds import NOTHING, Progress, rounds_close
from .versions import standings_changed

log = logging.getLogger(__name__)


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


def check_result(match: Match, scores: list, places: list, n: int | None = None, *,
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
) -> tuple[Match, Progress]:
    """Store a finished match once. A second call returns the match as first recorded.

    In the same transaction, a round whose last match this is is closed: its ratings are
    applied (in table order, so the order workers finish in does not matter) and the next
    round is made, or the tournament finished. Returns the match and that progress.
    """
    outcome = Outcome(match_id, scores, places, forfeits or {}, record, decisions, think_seconds)
    matches, progress = matches_record_results(outcomes=[outcome], source=source, actor=actor)
    return matches[match_id], progress


_SEAT_FIELDS = ["score", "place", "forfeit_reason", "forfeit_detail", "decisions", "think_seconds"]
_MATCH_FIELDS = ["status", "finished_at", "lease_owner", "lease_expires_at", "record", "attempts"]


def matches_record_results(*, outcomes: Sequence[Outcome], source: str, actor=None
                           ) -> tuple[dict[int, Match], Progress]:
    """:func:`match_record_result` for many matches in one transaction and a handful of
    queries: the matches are locked in id order (two recorders cannot deadlock), recorded,
    then each tournament's finished rounds are closed (rounds.rounds_close), and the seasons
    of the league divisions that finished. A match already finished keeps its first result.
    If any outcome is invalid nothing is recorded. Returns the matches by id and the progress
    the results made.

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
            check_result(match, outcome.scores, outcome.places, len(seats[match.pk]), reported=reported,
                         game=tournament.game)
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
            _release_cancelled(released, source, actor)
        progress = NOTHING
        if finished:
            bulk_set_rows(Seat, _SEAT_FIELDS, seat_rows)
            Result.objects.bulk_create(results)
            bulk_set(finished, _MATCH_FIELDS)
            AuditEvent.objects.bulk_create(audits)
            standings_changed(tournament_ids={m.round.tournament_id for m in finished})
            for tournament_id in sorted({m.round.tournament_id for m in finished}):
                progress += rounds_close(tournament=tournaments[tournament_id])
            progress += seasons_close_after(progress.finished)
            webhooks.notify_results(finished=finished, results={r.match_id: (r.scores, r.places) for r in results},
                                    closed=progress.closed)
        return matches, progress


def _release_cancelled(released: list[Match], source: str, actor) -> None:
    """Played matches of a cancelled tournament: not recorded, their leases released."""
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
