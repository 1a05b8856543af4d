"""Results reported by people for matches played on real tables: versioned submissions,
confirmed as the tournament's ``confirmation`` setting asks, and an audit trail.

Who must confirm a report before it counts (``Tournament.confirmation``):

* ``none``: nobody; every report counts at once.
* ``other`` (the default): an organiser's report counts at once; a player's (its owner's, for
  its seat) once someone other than its author confirms it: an organiser, or another seated
  player's owner.
* ``organiser``: an organiser's report counts at once; a player's once an organiser confirms it.
* ``strict``: every report, an organiser's too, once someone other than its author confirms it
  (staff may confirm their own).

Whether the caller acts as an organiser (tournaments.permissions.organises: the owner, a
co-organiser or staff, with the ``organise`` scope) is the caller's to say; who may report or
confirm at all (an organiser, or a seated player's owner: permissions.reports_for) too. A
report that counts at once is confirmed by its author in the same transaction and takes the
confirmed result's one path (recording.match_record_result), audited as both."""

from __future__ import annotations

from typing import NamedTuple

from django.db import transaction

import engine
from tournaments import limits
from tournaments.errors import ServiceError
from tournaments.models import AuditEvent, Match, Result, ResultSubmission, Tournament

from .recording import check_result, match_record_result
from .rounds import NOTHING, Progress

Confirmation = Tournament.Confirmation


class Reported(NamedTuple):
    """What reporting a result did: the submission (the original one, for a result sent
    again), whether it is new, and the rounds its counting at once closed and made."""

    submission: ResultSubmission
    created: bool
    progress: Progress


def counts_at_once(tournament: Tournament, *, organiser: bool) -> bool:
    """Whether a report counts as soon as it is made: every report under ``none``; an
    organiser's (``organiser``) under ``other`` and ``organiser``; never under ``strict``."""
    rule = tournament.confirmation
    return rule == Confirmation.NONE or (organiser and rule != Confirmation.STRICT)


def confirm_refusal(tournament: Tournament, submission: ResultSubmission, user, *, organiser: bool) -> str | None:
    """Why ``user`` (acting as an organiser of the tournament or not: ``organiser``) may not
    confirm ``submission`` under the tournament's rule; None when they may. ``user`` None is
    the service's own call (a command), which may."""
    if user is None:
        return None
    rule = tournament.confirmation
    if rule == Confirmation.ORGANISER:
        return None if organiser else ("a player's report is confirmed by an organiser (the tournament's "
                                       "confirmation is \"organiser\")")
    if submission.submitted_by_id != user.pk:
        return None
    if rule == Confirmation.STRICT:
        return None if user.is_staff else ("a result is confirmed by someone other than its author (the "
                                           "tournament's confirmation is \"strict\")")
    return None if organiser else "a result is confirmed by an organiser or by someone other than its author"


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


def _count(submission: ResultSubmission, tournament: Tournament, user, *, organiser: bool) -> tuple[Match, Progress]:
    """``submission`` confirmed by ``user`` and recorded as the match's result, with everything
    that follows from it (recording.match_record_result), audited with the rule it was confirmed
    under, whether its confirmer acted as an organiser, and whether it was its own author (an
    organiser's report that counted at once, or staff under ``strict``)."""
    submission.status = ResultSubmission.Status.CONFIRMED
    submission.confirmed_by = user
    submission.save(update_fields=["status", "confirmed_by"])
    AuditEvent.objects.create(
        tournament_id=tournament.pk, match_id=submission.match_id, actor=user, action="result_confirmed",
        detail={"version": submission.version, "confirmation": tournament.confirmation, "organiser": organiser,
                "by_author": user is not None and submission.submitted_by_id == user.pk},
    )
    return match_record_result(
        match_id=submission.match_id, scores=list(submission.scores), places=list(submission.places),
        source=Result.Source.REPORTED, actor=user,
    )


@transaction.atomic
def result_submit(
    *, match: Match, scores: list[int], places: list[int] | None = None, user=None, organiser: bool = False
) -> Reported:
    """Report a result, as an organiser of the match's tournament or not (``organiser``).

    ``places=None`` derives the places from the scores, as the game ranks them. A result must
    agree with itself (recording.check_result: scores within the 32-bit column, adding up to 0
    in a zero-sum game, places that follow the scores), and is refused (conflict) for a match
    of a cancelled tournament. The same result sent again is accepted once: the original
    submission is returned and nothing new is written, except that a report which counts at
    once (:func:`counts_at_once`) confirms the same result awaiting confirmation. A different
    result while one is recorded or awaiting confirmation is refused with the reason.

    A report that counts at once is confirmed by its author and recorded in this transaction,
    as :func:`result_confirm` records one."""
    match = Match.objects.select_for_update(of=("self",)).select_related("round__tournament").get(pk=match.pk)
    tournament = _check_tournament_open(match)
    n = match.seats.count()
    if places is None:
        places = engine.game(tournament.game).places(limits.check_scores(scores, n))
    check_result(match, scores, places, n, reported=True, game=tournament.game)
    at_once = counts_at_once(tournament, organiser=organiser)
    if match.status == Match.Status.FINISHED:
        result = Result.objects.get(match=match)
        original = match.submissions.filter(status=ResultSubmission.Status.CONFIRMED).first()
        if _same(result, scores, places) and original is not None:
            return Reported(original, False, NOTHING)
        raise ServiceError(
            f"match {match.pk} already has a recorded result (scores {result.scores}, places {result.places}); "
            "a different one cannot replace it",
            "scores",
            code="conflict",
        )
    pending = match.submissions.filter(status=ResultSubmission.Status.PENDING).order_by("-version").first()
    if pending is not None:
        if not _same(pending, scores, places):
            raise ServiceError(
                f"version {pending.version} of this match's result (scores {pending.scores}) awaits confirmation; "
                "confirm or reject it before reporting another",
                "scores",
                code="conflict",
            )
        if at_once and confirm_refusal(tournament, pending, user, organiser=organiser) is None:
            _, progress = _count(pending, tournament, user, organiser=organiser)
            return Reported(pending, False, progress)
        return Reported(pending, False, NOTHING)
    version = (match.submissions.order_by("-version").values_list("version", flat=True).first() or 0) + 1
    submission = ResultSubmission.objects.create(
        match=match, version=version, scores=scores, places=places, submitted_by=user
    )
    AuditEvent.objects.create(
        tournament_id=tournament.pk, match=match, actor=user, action="result_submitted",
        detail={"version": version, "scores": scores, "places": places, "organiser": organiser},
    )
    if not at_once:
        return Reported(submission, True, NOTHING)
    _, progress = _count(submission, tournament, user, organiser=organiser)
    return Reported(submission, True, progress)


@transaction.atomic
def result_confirm(*, submission: ResultSubmission, user=None, organiser: bool = False) -> tuple[Match, Progress]:
    """Confirm a pending submission, as an organiser of the match's tournament or not
    (``organiser``), as the tournament's rule allows (:func:`confirm_refusal`: forbidden
    otherwise): it becomes the match's result, with everything that follows from it. Returns
    the match and the rounds its result closed and made (recording.match_record_result)."""
    submission = (ResultSubmission.objects.select_for_update(of=("self",)).select_related("match__round__tournament")
                  .get(pk=submission.pk))
    tournament = _check_tournament_open(submission.match)
    if submission.status != ResultSubmission.Status.PENDING:
        raise ServiceError(f"version {submission.version} is already {submission.status}", "status", code="conflict")
    refusal = confirm_refusal(tournament, submission, user, organiser=organiser)
    if refusal is not None:
        raise ServiceError(refusal, "user", code="forbidden")
    return _count(submission, tournament, user, organiser=organiser)


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
