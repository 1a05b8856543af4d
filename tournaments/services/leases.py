"""Who plays a bot match: a worker claims it with a lease (an owner and an expiry, taken under
row locks), renews it while it plays, hands it back when it stops, and loses it when it dies
(reclaimed once the lease has run out). Attempts count the plays that started, so a match that
kills every worker is given up after MATCH_MAX_ATTEMPTS and waits for an organiser's retry.

Nothing here sends a match: the ids returned are for the caller to send (services.dispatch).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import AuditEvent, Match, Player, Seat, Tournament, seats_online

from .seeds import derive_seed

log = logging.getLogger(__name__)


class ClaimStatus(StrEnum):
    """What became of a match a worker asked for."""

    CLAIMED = "claimed"  # leased to this worker: it plays it
    FINISHED = "finished"  # recorded (before, or by this worker)
    BUSY = "busy"  # another live worker holds its lease (retry_in: until it runs out)
    PEOPLE = "people"  # people (or remote bots) play it: never a worker
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
            Match.objects.select_for_update(of=("self",), no_key=True).select_related("round")
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
        with_people = {pk for pk, at in seats.items() if any(s.player.plays_online for s in at)}
        now = timezone.now()
        expires = now + timedelta(seconds=settings.MATCH_LEASE_SECONDS)
        taken_over: list[int] = []
        dealt_anew: list[Match] = []
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
            elif match.attempts >= settings.MATCH_MAX_ATTEMPTS:
                claims[match.pk] = Claim(ClaimStatus.EXHAUSTED, match)
            else:
                if match.status == Match.Status.RUNNING and match.lease_owner != owner:
                    match.interrupted += 1  # taken over: its worker's lease ran out
                    taken_over.append(match.pk)
                if match.started_at is not None and match.deck is None and any(
                        seat.player.is_external_bot for seat in seats[match.pk]):
                    # Claimed before: its play may have begun (a worker died, it failed, an
                    # organiser retries it), and an external bot may have been sent that deal's
                    # cards, or may even have made the play fail to see them again. Dealt anew,
                    # from a seed derived from the old one (as secret, never seen).
                    match.seed = derive_seed(match.seed, "dealt again")
                    dealt_anew.append(match)
                match.status = Match.Status.RUNNING
                match.lease_owner = owner
                match.lease_expires_at = expires
                match.started_at = match.started_at or now
                claims[match.pk] = Claim(ClaimStatus.CLAIMED, match, seats=tuple(seats[match.pk]))
        claimed = [claim.match for claim in claims.values() if claim.status == ClaimStatus.CLAIMED]
        if claimed:
            # No attempt is charged here: a claimed match may never start (its worker dies
            # first); the play is charged when it is recorded, or before it starts when an
            # earlier worker died holding it (services.play).
            Match.objects.filter(pk__in=[m.pk for m in claimed]).update(
                status=Match.Status.RUNNING, lease_owner=owner, lease_expires_at=expires,
                started_at=Coalesce("started_at", now),
            )
            if taken_over:
                Match.objects.filter(pk__in=taken_over).update(interrupted=F("interrupted") + 1)
            for match in dealt_anew:
                Match.objects.filter(pk=match.pk).update(seed=match.seed)
        return claims


def leases_renew(*, match_ids: list[int], owner: str) -> set[int]:
    """Extend the lease of matches this worker still holds; returns those it still holds (a
    match whose lease ran out may have gone to another worker)."""
    expires = timezone.now() + timedelta(seconds=settings.MATCH_LEASE_SECONDS)
    with transaction.atomic():
        # The match rows alone, in id order, as matches_claim takes them: Match's default
        # ordering joins its round and tournament, whose rows a plain FOR UPDATE locks too, in
        # the order of the result; the heartbeat's thread and the player's own loop, renewing
        # overlapping matches on two connections, then deadlocked (and so did a renewal beside
        # a recording, which locks the tournament first), failing the batch. Every lease
        # operation takes FOR NO KEY UPDATE (it changes no key): it does not wait for, nor
        # deadlock with, the key-share locks another transaction's rows referring to a match
        # take (a recording's results, seats' audit events) until it commits.
        held = set(
            Match.objects.select_for_update(of=("self",), no_key=True)
            .filter(pk__in=match_ids, status=Match.Status.RUNNING, lease_owner=owner)
            .order_by("pk").values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=held).update(lease_expires_at=expires)
    return held


class Heartbeat:
    """Renews, every MATCH_HEARTBEAT_SECONDS from a thread of its own, the leases of the
    matches a worker holds and has not yet recorded, so a lease can be short (a dead worker's
    matches go back within seconds) while a match plays as long as its clocks allow. A worker
    that makes no progress (no match started or recorded) for MATCH_STUCK_SECONDS stops
    renewing: its matches go back as a dead worker's do.

    Not on an in-memory SQLite database (the tests' first leg): its shared cache refuses a
    write beside another connection's transaction instead of waiting, so the thread could
    break the player's own writes; there the player's loop renews between matches, as it
    always does."""

    def __init__(self, owner: str, match_ids: Sequence[int]):
        self.owner = owner
        self.held = set(match_ids)
        self.progress_at = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if not (connection.vendor == "sqlite" and connection.is_in_memory_db()):
            self._thread = threading.Thread(target=self._beat, name=f"lease-heartbeat {self.owner}", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=settings.MATCH_HEARTBEAT_SECONDS + 5)

    def progressed(self, *, done: Sequence[int] = ()) -> None:
        """A match started, or ``done`` were recorded, lost or handed back (no longer renewed)."""
        with self._lock:
            self.progress_at = time.monotonic()
            self.held.difference_update(done)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(settings.MATCH_HEARTBEAT_SECONDS):
                with self._lock:
                    held, idle = sorted(self.held), time.monotonic() - self.progress_at
                if not held:
                    continue
                if idle > settings.MATCH_STUCK_SECONDS:
                    log.error("no progress for %.0f s on matches %s: their leases are left to run out", idle, held)
                    return
                try:
                    leases_renew(match_ids=held, owner=self.owner)
                except DatabaseError as exc:  # e.g. the database restarting: the next beat tries again
                    log.warning("could not renew the leases of matches %s: %s", held, exc)
                    connection.close()  # reconnected at the next beat
        finally:
            connection.close()  # this thread's own connection


def attempt_charge(*, match: Match, owner: str) -> None:
    """Charge a play to a match this worker holds, now (committed before the play starts, or as
    it failed)."""
    Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING, lease_owner=owner).update(attempts=F("attempts") + 1)
    match.attempts += 1


def leases_hand_back(*, match_ids: list[int], owner: str) -> list[int]:
    """Give back claimed matches this worker will not play (it is shutting down): pending
    again, no attempt charged. Returns those it held, for the caller to send to another
    worker."""
    if not match_ids:
        return []
    with transaction.atomic():
        mine = list(
            Match.objects.select_for_update(of=("self",), no_key=True)
            .filter(pk__in=match_ids, status=Match.Status.RUNNING, lease_owner=owner)
            .order_by("pk").values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=mine).update(status=Match.Status.PENDING, lease_owner="", lease_expires_at=None)
    return mine


def matches_reclaim(*, stale_after: float | None = None) -> list[int]:
    """Give back matches whose worker died (lease run out) and find bot matches that nobody
    has claimed for a while, in a tournament where no match has started for as long (a lost
    message). A match already claimed MATCH_MAX_ATTEMPTS times is given back but not played
    again: it is logged in the audit ("match_failed") and waits for :func:`match_retry`, so
    a match that kills or breaks its worker every time does not do so for ever. Returns the
    ids to send to the workers again."""
    now = timezone.now()
    stale_after = settings.MATCH_STALE_SECONDS if stale_after is None else stale_after
    limit = settings.MATCH_MAX_ATTEMPTS
    with transaction.atomic():
        expired = list(
            Match.objects.select_for_update(skip_locked=True, of=("self",), no_key=True)
            .filter(status=Match.Status.RUNNING, lease_expires_at__lt=now).order_by("pk")
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
            .exclude(seats_online())
            .values_list("pk", flat=True)
        )
        ids = sorted({pk for pk, attempts, _ in expired if attempts < limit} | set(waiting))
        if expired:
            log.warning("reclaimed %d match(es) whose lease ran out: %s", len(expired), [pk for pk, _, _ in expired])
        if given_up:
            log.error("gave up on match(es) %s after %d attempts: retry them once fixed", [pk for pk, _, _ in given_up], limit)
    return ids


def match_retry(*, match_id: int, actor=None) -> Match:
    """Make a bot match playable again from scratch (its attempts count reset), e.g. once what
    made it fail is fixed; the caller sends it to the workers. Refused for a finished match, a
    match of a cancelled tournament, a match with people at it, and a match a live worker
    holds."""
    with transaction.atomic():
        match = Match.objects.select_for_update(of=("self",)).select_related("round__tournament").get(pk=match_id)
        if match.status == Match.Status.FINISHED:
            raise ServiceError("the match is finished: its result stands", "status", code="conflict")
        if match.round.tournament.status == Tournament.Status.CANCELLED:
            raise ServiceError("the tournament is cancelled: its matches are not played", "status", code="conflict")
        if Match.objects.filter(seats_online(), pk=match.pk).exists():
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
        return match
