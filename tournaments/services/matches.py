"""Playing matches: claiming one with a lease, playing it through the engine with the seats'
bots, and recording its result exactly once, together with what follows from it (the round's
end, its ratings, the next round) in the same transaction."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from tournaments.models import AuditEvent, Match, Player, Result, Round, Seat, Tournament

from .dispatch import dispatch_matches
from .errors import ServiceError
from .seeds import derive_seed

log = logging.getLogger(__name__)


def lease_seconds() -> float:
    return float(getattr(settings, "MATCH_LEASE_SECONDS", 300))


@dataclass(frozen=True)
class Claim:
    """What a worker got when it asked for a match."""

    status: str  # "claimed" | "finished" | "busy" | "people"
    match: Match
    retry_in: float = 0.0


def match_claim(*, match_id: int, owner: str) -> Claim:
    """Take the run lease of a match. A match already finished, or leased by another worker
    whose lease has not run out, is not claimed; a match with people at it is never played
    by a worker."""
    with transaction.atomic():
        match = Match.objects.select_for_update(of=("self",)).select_related("round__tournament").get(pk=match_id)
        if match.status == Match.Status.FINISHED:
            return Claim("finished", match)
        now = timezone.now()
        if (
            match.status == Match.Status.RUNNING
            and match.lease_owner != owner
            and match.lease_expires_at is not None
            and match.lease_expires_at > now
        ):
            return Claim("busy", match, (match.lease_expires_at - now).total_seconds())
        if match.seats.exclude(player__kind=Player.Kind.BOT).exists():
            return Claim("people", match)
        match.status = Match.Status.RUNNING
        match.lease_owner = owner
        match.lease_expires_at = now + timedelta(seconds=lease_seconds())
        match.attempts += 1
        match.started_at = match.started_at or now
        match.save(update_fields=["status", "lease_owner", "lease_expires_at", "attempts", "started_at"])
        return Claim("claimed", match)


def match_play(*, match_id: int, owner: str) -> Claim:
    """Claim a bot match, play it and record the result. Safe to call twice, or from two
    workers at once: the lease keeps them apart and the result is recorded only once."""
    from bots.runner import play_match as run_match

    from .players import player_bot

    claim = match_claim(match_id=match_id, owner=owner)
    if claim.status != "claimed":
        return claim
    match = claim.match
    tournament = match.round.tournament
    seats = list(match.seats.select_related("player").order_by("position"))
    players = []
    for seat in seats:
        bot_seed = derive_seed(match.seed, "bot", seat.position)
        try:
            players.append(player_bot(seat.player, game=tournament.game, seed=bot_seed))
        except ServiceError as exc:
            players.append(_unavailable_bot(tournament.game, bot_seed, exc.message))
    outcome = run_match(tournament.game, players, seed=match.seed, options=tournament.options, deck=match.deck)
    state = outcome.state
    forfeits = {seat: (f.reason, f.detail) for seat, f in outcome.forfeits.items()}
    match_record_result(
        match_id=match.pk,
        scores=list(state.scores()),
        places=list(outcome.places),
        forfeits=forfeits,
        record=state.to_json(),
        decisions=list(outcome.decisions),
        think_seconds=list(outcome.decision_time),
        source=Result.Source.ENGINE,
    )
    return Claim("finished", Match.objects.get(pk=match.pk))


def _unavailable_bot(game: str, seed: int, reason: str):
    """A bot that fails at its first decision, so the runner forfeits the seat (and plays it
    with the fallback bot) when a player's bot cannot be built."""
    import bots
    from bots.external import BotFailure

    class Unavailable(bots.Bot):
        def act(self, view):
            raise BotFailure("unavailable", reason)

    bot = Unavailable(game=game, seed=seed)
    bot.name = "unavailable"
    return bot


def _check_result(match: Match, scores: list, places: list, n: int | None = None) -> None:
    n = match.seats.count() if n is None else n
    if not isinstance(scores, list) or len(scores) != n or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores):
        raise ServiceError(f"scores must list {n} integers, one per seat", "scores")
    if not isinstance(places, list) or len(places) != n or not all(isinstance(p, int) and not isinstance(p, bool) for p in places):
        raise ServiceError(f"places must list {n} integers, one per seat", "places")
    # A competition ranking: place p is shared by k seats, and the next place is p + k.
    expected = 1
    for place in sorted(set(places)):
        if place != expected:
            raise ServiceError(f"places {places} skip or repeat: expected place {expected} next", "places")
        expected += places.count(place)


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
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(matches=match_id)  # one round closes once
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.FINISHED:
            return match
        seats = list(match.seats.all())
        _check_result(match, scores, places, len(seats))
        forfeits = forfeits or {}
        for seat in seats:
            i = seat.position
            seat.score = scores[i]
            seat.place = places[i]
            reason, detail = forfeits.get(i, ("", ""))
            seat.forfeit_reason = reason[:40]
            seat.forfeit_detail = detail[:4000]
            seat.decisions = decisions[i] if decisions else 0
            seat.think_seconds = think_seconds[i] if think_seconds else 0.0
        Seat.objects.bulk_update(
            seats, ["score", "place", "forfeit_reason", "forfeit_detail", "decisions", "think_seconds"]
        )
        Result.objects.create(match=match, scores=scores, places=places, source=source)
        match.status = Match.Status.FINISHED
        match.finished_at = timezone.now()
        match.lease_owner = ""
        match.lease_expires_at = None
        match.record = record
        match.save(update_fields=["status", "finished_at", "lease_owner", "lease_expires_at", "record"])
        if forfeits:
            AuditEvent.objects.create(
                tournament_id=rnd.tournament_id, match=match, actor=actor, action="forfeit",
                detail={str(seat): reason for seat, (reason, _) in forfeits.items()},
            )
        round_close_if_done(rnd=rnd)
        return match


def round_close_if_done(*, rnd: Round) -> bool:
    """Close a round whose matches have all finished: ratings, then the next round. Call
    with the round's row locked. Returns whether the round closed now."""
    from .ladders import ladder_apply_round
    from .schedule import next_round_due
    from .tournaments import round_create_next

    if rnd.status == Round.Status.FINISHED or rnd.matches.exclude(status=Match.Status.FINISHED).exists():
        return False
    rnd.status = Round.Status.FINISHED
    rnd.finished_at = timezone.now()
    rnd.save(update_fields=["status", "finished_at"])
    tournament = Tournament.objects.select_for_update().get(pk=rnd.tournament_id)
    if tournament.ladder_id is not None:
        ladder_apply_round(ladder_id=tournament.ladder_id, rnd=rnd)
    # A periodic tournament (a league division) opens its next round when it is due; the
    # periodic tick does it then.
    if tournament.status == Tournament.Status.RUNNING and next_round_due(tournament):
        round_create_next(tournament=tournament)
    return True


def matches_reclaim(*, stale_after: float | None = None) -> list[int]:
    """Give back matches whose worker died (lease run out) and re-dispatch bot matches that
    nobody has claimed for a while (a lost message). Returns the ids dispatched."""
    now = timezone.now()
    stale_after = lease_seconds() if stale_after is None else stale_after
    with transaction.atomic():
        expired = list(
            Match.objects.select_for_update(skip_locked=True)
            .filter(status=Match.Status.RUNNING, lease_expires_at__lt=now)
            .values_list("pk", flat=True)
        )
        if expired:
            Match.objects.filter(pk__in=expired).update(status=Match.Status.PENDING, lease_owner="", lease_expires_at=None)
        waiting = list(
            Match.objects.filter(
                status=Match.Status.PENDING,
                round__tournament__status=Tournament.Status.RUNNING,
                round__created_at__lt=now - timedelta(seconds=stale_after),
            )
            .exclude(seats__player__kind=Player.Kind.PERSON)
            .exclude(pk__in=expired)
            .values_list("pk", flat=True)
        )
        ids = sorted(set(expired) | set(waiting))
        if expired:
            log.warning("reclaimed %d match(es) whose lease ran out: %s", len(expired), expired)
        dispatch_matches(ids)
    return ids


def pending_bot_matches(tournament: Tournament) -> list[int]:
    return list(
        Match.objects.filter(round__tournament=tournament, status=Match.Status.PENDING)
        .exclude(seats__player__kind=Player.Kind.PERSON)
        .order_by("round__number", "table")
        .values_list("pk", flat=True)
    )

