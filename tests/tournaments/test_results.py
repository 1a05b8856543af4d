"""Results that agree with themselves: scores inside their column, zero-sum games adding up to
0, places that follow the scores as the game ranks them; and nothing reported, recorded or
rated for a cancelled tournament, whether people report it or a worker plays it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

import bots.runner
from tournaments.models import AuditEvent, Match, RatingChange, Result, ResultSubmission, Seat, Tournament
from tournaments.services import ServiceError
from tournaments.services.leases import match_claim, match_retry
from tournaments.services.play import match_play_batch
from tournaments.services.players import player_create
from tournaments.services.recording import Outcome, match_record_result, matches_record_results
from tournaments.services.results import result_confirm, result_reject, result_submit
from tournaments.services.tournaments import tournament_cancel, tournament_start

from .helpers import bot_players, make_tournament, started_round_robin

pytestmark = [pytest.mark.django_db, pytest.mark.services]


def refused(check, *args, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        check(*args, **kwargs)
    return err.value


def people_match(game="sette_e_mezzo", table_size=4, options=None):
    people = [player_create(name=f"{game[:5]}-p{i}", kind="person") for i in range(table_size)]
    tournament = make_tournament(people, slug=f"club-{game}", game=game, table_size=table_size,
                                 format="round_robin", format_config={}, options=options)
    tournament_start(tournament=tournament)
    return Match.objects.filter(round__tournament=tournament).order_by("table").first()


@pytest.fixture
def users():
    return [get_user_model().objects.create_user(f"u{i}") for i in range(2)]


# --------------------------------------------------------------------------- scores that fit


def test_a_reported_score_beyond_32_bits_is_refused_and_the_match_stays_open_for_a_good_one(users):
    ann, bea = users
    match = people_match()
    error = refused(result_submit, match=match, scores=[3_000_000_000, -1_000_000_000, -1_000_000_000, -1_000_000_000],
                    places=[1, 2, 2, 2], user=ann)
    assert error.field == "scores" and error.code == "invalid"
    assert "from -2147483648 to 2147483647 (a 32-bit integer column): seat 0 has 3000000000" in error.message
    assert not ResultSubmission.objects.exists()
    submission, created, _ = result_submit(match=match, scores=[30, -10, -10, -10], places=[1, 2, 2, 2], user=ann)
    result_confirm(submission=submission, user=bea)
    assert Result.objects.get(match=match).scores == [30, -10, -10, -10]


def test_a_pending_score_beyond_32_bits_from_before_the_bound_is_refused_at_confirmation_not_stored(users):
    ann, bea = users
    match = people_match()
    # written before the bound existed (on PostgreSQL its confirmation was "integer out of range")
    stale = ResultSubmission.objects.create(match=match, version=1, submitted_by=ann, places=[1, 2, 2, 2],
                                            scores=[3_000_000_000, -1_000_000_000, -1_000_000_000, -1_000_000_000])
    error = refused(result_confirm, submission=stale, user=bea)
    assert error.field == "scores" and "32-bit" in error.message
    stale.refresh_from_db()
    assert stale.status == ResultSubmission.Status.PENDING and not Result.objects.exists()
    assert not Seat.objects.filter(match=match, score__isnull=False).exists()
    # it no longer blocks the match once rejected
    result_reject(submission=stale, reason="impossible score", user=bea)
    submission, created, _ = result_submit(match=match, scores=[3, -1, -1, -1], user=ann)
    assert created and submission.version == 2


def test_an_engine_result_beyond_32_bits_records_nothing():
    _, matches = started_round_robin(4)
    error = refused(match_record_result, match_id=matches[0].pk, scores=[2**31, -(2**31), 0, 0], places=[1, 4, 2, 2],
                    source="engine")
    assert error.field == "scores"
    assert not Result.objects.exists()


# --------------------------------------------------------------------------- results that agree with themselves


def test_places_that_contradict_the_scores_are_refused_naming_the_seats(users):
    match = people_match()
    error = refused(result_submit, match=match, scores=[-50, 0, 0, 50], places=[1, 2, 2, 4], user=users[0])
    assert error.field == "places"
    assert ("places must follow the scores: seat 3 scored 50, more than seat 0 (-50), but is placed behind it; "
            "for these scores the places are [4, 2, 2, 1]") == error.message
    assert not ResultSubmission.objects.exists()


def test_a_zero_sum_games_reported_scores_must_add_up_to_zero(users):
    match = people_match()
    error = refused(result_submit, match=match, scores=[10, 0, 0, 0], places=[1, 2, 2, 2], user=users[0])
    assert error.field == "scores"
    assert "scores of a Sette e mezzo match add up to 0 (chips only change hands); these add up to 10" == error.message


def test_places_left_out_follow_the_scores_as_the_game_ranks_them(users):
    ann, bea = users
    match = people_match()
    submission, _, _ = result_submit(match=match, scores=[5, 5, -5, -5], user=ann)
    assert submission.places == [1, 1, 3, 3]
    # the same result sent again with its places is the same submission
    again, created, _ = result_submit(match=match, scores=[5, 5, -5, -5], places=[1, 1, 3, 3], user=bea)
    assert (again.pk, created) == (submission.pk, False)
    result_confirm(submission=submission, user=bea)
    assert Result.objects.get(match=match).places == [1, 1, 3, 3]


def test_a_game_that_is_not_zero_sum_takes_any_total_but_places_still_follow(users):
    match = people_match(game="piazza", table_size=2, options={})
    submission, _, _ = result_submit(match=match, scores=[14, 9], user=users[0])
    assert submission.places == [1, 2]
    result_reject(submission=submission, reason="typo", user=users[1])
    assert "seat 0 scored 14, more than seat 1 (9), but is placed behind it" in refused(
        result_submit, match=match, scores=[14, 9], places=[2, 1], user=users[0]).message


def test_a_played_result_keeps_its_places_a_forfeit_ranks_last_whatever_its_score():
    _, matches = started_round_robin(4)
    match, _ = match_record_result(match_id=matches[0].pk, scores=[40, -5, -15, -20], places=[4, 1, 2, 3],
                                   source="engine", forfeits={0: ("timeout", "slow")})
    assert match.status == Match.Status.FINISHED
    assert Result.objects.get(match=matches[0]).places == [4, 1, 2, 3]


# --------------------------------------------------------------------------- cancelled tournaments


def test_nothing_is_reported_confirmed_or_rejected_for_a_cancelled_tournament(users):
    ann, bea = users
    match = people_match()
    pending, _, _ = result_submit(match=match, scores=[10, 5, -5, -10], places=[1, 2, 3, 4], user=ann)
    tournament_cancel(tournament=match.round.tournament)
    for attempt in (
        lambda: result_submit(match=match, scores=[10, 5, -5, -10], places=[1, 2, 3, 4], user=ann),
        lambda: result_submit(match=match, scores=[-10, 5, -5, 10], user=bea),
        lambda: result_confirm(submission=pending, user=bea),
        lambda: result_reject(submission=pending, reason="late", user=bea),
    ):
        error = refused(attempt)
        assert error.code == "conflict" and "is cancelled" in error.message
    pending.refresh_from_db()
    assert pending.status == ResultSubmission.Status.PENDING
    assert not Result.objects.exists() and not RatingChange.objects.exists()
    match.refresh_from_db()
    assert match.status == Match.Status.PENDING


def test_a_reported_result_recorded_directly_for_a_cancelled_tournament_is_refused():
    match = people_match()
    tournament_cancel(tournament=match.round.tournament)
    error = refused(match_record_result, match_id=match.pk, scores=[10, 5, -5, -10], places=[1, 2, 3, 4],
                    source="reported")
    assert error.code == "conflict"
    assert not Result.objects.exists()


def test_a_match_played_while_its_tournament_was_cancelled_is_neither_recorded_nor_rated():
    tournament, matches = started_round_robin(4)
    assert match_claim(match_id=matches[0].pk, owner="w1").status == "claimed"
    tournament_cancel(tournament=tournament)
    recorded, progress = matches_record_results(
        outcomes=[Outcome(match_id=matches[0].pk, scores=[3, -1, -1, -1], places=[1, 2, 2, 2])], source="engine")
    match = Match.objects.get(pk=matches[0].pk)
    assert recorded[match.pk].status == Match.Status.PENDING
    assert not progress  # nothing recorded: no round closes, none is made
    assert (match.status, match.lease_owner, match.lease_expires_at) == (Match.Status.PENDING, "", None)
    assert not Result.objects.exists() and not RatingChange.objects.exists()
    assert not Seat.objects.filter(match=match, score__isnull=False).exists()
    discarded = AuditEvent.objects.get(action="result_discarded")
    assert discarded.match_id == match.pk and discarded.detail["why"] == "the tournament is cancelled"


def test_a_batch_records_the_running_tournaments_matches_and_skips_the_cancelled_ones():
    running, ours = started_round_robin(4)
    cancelled = make_tournament(bot_players(4, prefix="other"), slug="called-off", format="round_robin",
                                format_config={}, ladder_slug="ladder")
    tournament_start(tournament=cancelled)
    theirs = list(Match.objects.filter(round__tournament=cancelled))
    tournament_cancel(tournament=cancelled)
    outcomes = [Outcome(match_id=m.pk, scores=[3, -1, -1, -1], places=[1, 2, 2, 2]) for m in ours + theirs]
    matches_record_results(outcomes=outcomes, source="engine")
    assert set(Result.objects.values_list("match_id", flat=True)) == {m.pk for m in ours}
    assert set(RatingChange.objects.values_list("match__round__tournament_id", flat=True)) == {running.pk}
    # and still one transaction: one invalid outcome among them records none of the batch
    Result.objects.all().delete()
    Match.objects.filter(pk__in=[m.pk for m in ours]).update(status=Match.Status.RUNNING)
    bad = outcomes[:1] + [Outcome(match_id=theirs[0].pk, scores=[3, -1, -1, -1], places=[1, 2, 2, 2])]
    bad[0] = Outcome(match_id=ours[0].pk, scores=[3, -1, -1, -1], places=[1, 3, 3, 3])
    refused(matches_record_results, outcomes=bad, source="engine")
    assert not Result.objects.exists()


def test_a_worker_that_finishes_a_match_after_the_cancellation_leaves_it_unrecorded(monkeypatch):
    tournament, matches = started_round_robin(4)
    real = bots.runner.play_match

    def play_then_cancel(*args, **kwargs):
        outcome = real(*args, **kwargs)
        if Tournament.objects.get(pk=tournament.pk).status != Tournament.Status.CANCELLED:
            tournament_cancel(tournament=tournament)  # the organiser, while the worker plays
        return outcome

    monkeypatch.setattr(bots.runner, "play_match", play_then_cancel)
    match_play_batch(match_ids=[m.pk for m in matches], owner="w1")
    assert not Result.objects.exists() and not RatingChange.objects.exists()
    assert set(Match.objects.filter(round__tournament=tournament).values_list("status", "lease_owner")) == {
        (Match.Status.PENDING, "")}


def test_a_match_of_a_cancelled_tournament_is_not_retried():
    tournament, matches = started_round_robin(4)
    tournament_cancel(tournament=tournament)
    error = refused(match_retry, match_id=matches[0].pk)
    assert error.code == "conflict" and "the tournament is cancelled" in error.message
