"""Results reported by people for matches played on real tables: versioned submissions,
confirmation by someone else, and an audit trail."""

from __future__ import annotations

from django.db import transaction

import engine
from tournaments import limits
from tournaments.models import AuditEvent, Match, Result, ResultSubmission, Tournament

from .errors import ServiceError
from .recording import check_result, match_record_result
from .rounds import Progress


def _check_tournament_open(match: Match) -> Tournament:
    """The match's tournament, refused (conflict) once it is cancelled: nothing is reported,
    confirmed or rejected for an event that will not be played. (A finished tournament's
    matches all have their result: the checks below answer for them.)"""
    tournament = match.round.tournament
    if tournament.status == Tournament.Status.CANCELLED:
        raise ServiceError(f"the tournament {tournament.slug} is cancelled: its results are no longer reported",
                           "match", code="conflict")
    return tournament


def _same(submission_or_result, scores: list, places: list) -> bool:
    return list(submission_or_result.scores) == list(scores) and list(submission_or_result.places) == list(places)


@transaction.atomic
def result_submit(
    *, match: Match, scores: list[int], places: list[int] | None = None, user=None
) -> tuple[ResultSubmission, bool]:
    """Report a result. Returns (submission, created).

    ``places=None`` derives the places from the scores, as the game ranks them. A result must
    agree with itself (recording.check_result: scores within the 32-bit column, adding up to 0
    in a zero-sum game, places that follow the scores), and is refused (conflict) for a match
    of a cancelled tournament. The same result sent again is accepted once: the original
    submission is returned and nothing new is written. A different result while one is
    recorded or awaiting confirmation is refused with the reason."""
    match = Match.objects.select_for_update(of=("self",)).select_related("round__tournament").get(pk=match.pk)
    tournament = _check_tournament_open(match)
    n = match.seats.count()
    if places is None:
        places = engine.game(tournament.game).places(limits.check_scores(scores, n))
    check_result(match, scores, places, n, reported=True, game=tournament.game)
    if match.status == Match.Status.FINISHED:
        result = Result.objects.get(match=match)
        original = match.submissions.filter(status=ResultSubmission.Status.CONFIRMED).first()
        if _same(result, scores, places) and original is not None:
            return original, False
        raise ServiceError(
            f"match {match.pk} already has a recorded result (scores {result.scores}, places {result.places}); "
            "a different one cannot replace it",
            "scores",
            code="conflict",
        )
    pending = match.submissions.filter(status=ResultSubmission.Status.PENDING).order_by("-version").first()
    if pending is not None:
        if _same(pending, scores, places):
            return pending, False
        raise ServiceError(
            f"version {pending.version} of this match's result (scores {pending.scores}) awaits confirmation; "
            "confirm or reject it before reporting another",
            "scores",
            code="conflict",
        )
    version = (match.submissions.order_by("-version").values_list("version", flat=True).first() or 0) + 1
    submission = ResultSubmission.objects.create(
        match=match, version=version, scores=scores, places=places, submitted_by=user
    )
    AuditEvent.objects.create(
        tournament_id=match.round.tournament_id, match=match, actor=user, action="result_submitted",
        detail={"version": version, "scores": scores, "places": places},
    )
    return submission, True


@transaction.atomic
def result_confirm(*, submission: ResultSubmission, user=None) -> tuple[Match, Progress]:
    """Confirm a pending submission (by someone other than its author, unless staff): it
    becomes the match's result, with everything that follows from it. Returns the match and the
    rounds its result closed and made (recording.match_record_result)."""
    submission = ResultSubmission.objects.select_for_update().get(pk=submission.pk)
    _check_tournament_open(submission.match)
    if submission.status != ResultSubmission.Status.PENDING:
        raise ServiceError(f"version {submission.version} is already {submission.status}", "status", code="conflict")
    if user is not None and submission.submitted_by_id == user.pk and not user.is_staff:
        raise ServiceError("a result is confirmed by someone other than its author", "user", code="forbidden")
    submission.status = ResultSubmission.Status.CONFIRMED
    submission.confirmed_by = user
    submission.save(update_fields=["status", "confirmed_by"])
    AuditEvent.objects.create(
        tournament_id=submission.match.round.tournament_id, match=submission.match, actor=user,
        action="result_confirmed", detail={"version": submission.version},
    )
    return match_record_result(
        match_id=submission.match_id, scores=list(submission.scores), places=list(submission.places),
        source=Result.Source.REPORTED, actor=user,
    )


@transaction.atomic
def result_reject(*, submission: ResultSubmission, reason: str, user=None) -> ResultSubmission:
    """Reject a pending submission, with a reason of at most 200 characters; refused
    (conflict) once the match's tournament is cancelled."""
    if not reason:
        raise ServiceError("a rejection needs a reason", "reason")
    limits.check_text(reason, "reason", limits.REASON_MAX)
    submission = ResultSubmission.objects.select_for_update().get(pk=submission.pk)
    _check_tournament_open(submission.match)
    if submission.status != ResultSubmission.Status.PENDING:
        raise ServiceError(f"version {submission.version} is already {submission.status}", "status", code="conflict")
    submission.status = ResultSubmission.Status.REJECTED
    submission.reason = reason
    submission.save(update_fields=["status", "reason"])
    AuditEvent.objects.create(
        tournament_id=submission.match.round.tournament_id, match=submission.match, actor=user,
        action="result_rejected", detail={"version": submission.version, "reason": reason},
    )
    return submission
