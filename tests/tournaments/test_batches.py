"""Workers play bot matches in batches: one claim for the batch, results recorded a flush at a
time in a few queries, with the same outcome as playing the matches one by one."""

from __future__ import annotations

import pytest
from celery import current_app
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tournaments.models import Match, Result, Seat
from tournaments.services import ServiceError, dispatch
from tournaments.services.dispatch import batch_size, batches
from tournaments.services.leases import match_claim
from tournaments.services.play import match_play_batch
from tournaments.services.recording import Outcome, match_record_result, matches_record_results
from tournaments.services.tournaments import tournament_start

from .helpers import bot_players, make_tournament, outcome, pending_bot_matches, play_out, started_round_robin

pytestmark = [pytest.mark.django_db, pytest.mark.services]


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 19, 20, 21, 64])
@pytest.mark.parametrize("size, spread", [(1, 1), (20, 1), (20, 4), (8, 2), (3, 10)])
def test_batches_cover_every_match_once_in_order_within_the_limits(n, size, spread):
    ids = list(range(100, 100 + n))
    chunks = batches(ids, size=size, spread=spread)
    assert [i for chunk in chunks for i in chunk] == ids
    assert all(0 < len(chunk) <= size for chunk in chunks)
    if n:
        assert len(chunks) >= min(n, spread)
        assert max(map(len, chunks)) - min(map(len, chunks)) <= 1


def _play_in_batches(tournament, owner="batch-worker"):
    """Give a worker the tournament's pending matches as one batch until none is left. The
    worker plays on with the first batch of the rounds it opens (services.play); what it sends
    to the broker is never published (the test never commits) and is pending for the next
    batch. Returns the number of matches played."""
    played = 0
    tournament_start(tournament=tournament)
    while pending := pending_bot_matches(tournament):
        claims = match_play_batch(match_ids=pending, owner=owner)
        assert set(pending) <= set(claims)
        assert {c.status for c in claims.values()} == {"finished"}
        played += len(claims)
    tournament.refresh_from_db()
    return played


def test_playing_in_batches_gives_what_playing_match_by_match_gives(settings):
    settings.MATCH_FLUSH_SECONDS = 0.0  # a flush after every match, and one batch per round
    players = bot_players(12)
    one_by_one = make_tournament(players, slug="single", ladder_slug="ladder-a", seed=3)
    batched = make_tournament(players, slug="batched", ladder_slug="ladder-b", seed=3)
    assert play_out(one_by_one) == _play_in_batches(batched) == 9
    assert batched.status == "finished"
    assert outcome(batched) == outcome(one_by_one)


def test_a_short_lease_is_renewed_and_the_whole_batch_is_still_played_once(settings):
    settings.MATCH_LEASE_SECONDS = 0.0001  # renewed before every match
    tournament = make_tournament(bot_players(12))
    assert _play_in_batches(tournament) == 9
    assert Result.objects.count() == 9
    assert set(Match.objects.values_list("attempts", flat=True)) == {1}


def test_a_batch_skips_what_is_finished_and_leaves_what_another_worker_holds():
    tournament, matches = started_round_robin(16)
    first, held_elsewhere, *rest = matches
    match_record_result(match_id=first.pk, scores=[1, 0, 0, -1], places=[1, 2, 2, 4], source="engine")
    assert match_claim(match_id=held_elsewhere.pk, owner="w1").status == "claimed"
    claims = match_play_batch(match_ids=[m.pk for m in matches], owner="w2")
    assert claims[first.pk].status == "finished"
    assert claims[held_elsewhere.pk].status == "busy"
    assert all(claims[m.pk].status == "finished" for m in rest)
    # The result recorded before the batch is untouched; the held match is still w1's.
    assert Result.objects.get(match=first).scores == [1, 0, 0, -1]
    held_elsewhere.refresh_from_db()
    assert held_elsewhere.status == Match.Status.RUNNING and held_elsewhere.lease_owner == "w1"


def _outcomes(matches):
    return [Outcome(match_id=m.pk, scores=[3, -1, -1, -1], places=[1, 2, 2, 2]) for m in matches]


def test_recording_a_batch_costs_the_same_queries_whatever_its_size():
    _, matches = started_round_robin(32)  # 8 tables, so that no batch below closes the round
    with CaptureQueriesContext(connection) as two:
        matches_record_results(outcomes=_outcomes(matches[:2]), source="engine")
    with CaptureQueriesContext(connection) as five:
        matches_record_results(outcomes=_outcomes(matches[2:7]), source="engine")
    assert len(five.captured_queries) == len(two.captured_queries)
    assert Seat.objects.filter(match__in=matches[:7], score=3).count() == 7


def test_one_bad_result_in_a_batch_records_none_of_it():
    _, matches = started_round_robin(16)
    outcomes = _outcomes(matches[:3])
    outcomes[2] = Outcome(match_id=matches[2].pk, scores=[0, 0, 0, 0], places=[1, 1, 2, 3])
    with pytest.raises(ServiceError, match="skip or repeat"):
        matches_record_results(outcomes=outcomes, source="engine")
    assert not Result.objects.exists()
    assert not Seat.objects.filter(score__isnull=False).exists()
    assert set(Match.objects.values_list("status", flat=True)) == {Match.Status.PENDING}


def _broker(monkeypatch) -> list[list[int]]:
    """Replace the broker by a list: the batches play_matches tasks are published with."""
    sent: list[list[int]] = []

    def apply_async(args, **kw):
        assert kw.get("queue") == django_settings.MATCH_QUEUE
        sent.append(list(args[0]))

    monkeypatch.setattr(current_app.tasks[dispatch.PLAY_MATCHES], "apply_async", apply_async)
    return sent


def _first_round_played_by_one_worker(monkeypatch, capture):
    """Start a 16-bot Swiss (4 tables a round, 3 rounds), let worker w1 play round 1 as one
    batch, with the broker replaced by a list. Returns (tournament, round 1's claims, the
    batches sent to the broker)."""
    tournament = make_tournament(bot_players(16), seed=4)
    _, progress = tournament_start(tournament=tournament)
    first_round = list(progress.to_play)
    assert first_round == _round(1)
    sent = _broker(monkeypatch)
    with capture(execute=True):
        claims = match_play_batch(match_ids=first_round, owner="w1")
        assert sent == []  # nothing is published before the worker's transactions commit
    tournament.refresh_from_db()
    return tournament, first_round, claims, sent


def _round(number):
    return list(Match.objects.filter(round__number=number).order_by("table").values_list("pk", flat=True))


def test_the_worker_that_closes_a_round_plays_on_with_the_next_rounds_first_batch(
        settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.MATCH_BATCH_SPREAD = 2
    settings.MATCH_SPLIT_SECONDS = 0.0  # however short the matches, share the round
    _, first_round, claims, sent = _first_round_played_by_one_worker(monkeypatch, django_capture_on_commit_callbacks)
    # Round 1 closed; of round 2's two batches, this worker played the first and sent the other.
    round_two = _round(2)
    assert sent == [round_two[2:]]
    assert all(claims[pk].status == "finished" for pk in first_round + round_two[:2])
    assert set(Match.objects.filter(pk__in=round_two[2:]).values_list("status", flat=True)) == {Match.Status.PENDING}


def test_one_worker_with_a_round_per_batch_plays_the_tournament_through_without_the_broker(
        settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.MATCH_BATCH_SPREAD = 1
    tournament, _, _, sent = _first_round_played_by_one_worker(monkeypatch, django_capture_on_commit_callbacks)
    assert tournament.status == "finished" and sent == []
    assert Result.objects.count() == 12
    assert set(Match.objects.values_list("attempts", flat=True)) == {1}


def test_a_worker_plays_on_for_one_lease_at_most_then_hands_the_batch_over(
        settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.MATCH_BATCH_SPREAD = 1
    settings.MATCH_LEASE_SECONDS = 0.0  # the play-on time is already spent after the first batch
    _, _, _, sent = _first_round_played_by_one_worker(monkeypatch, django_capture_on_commit_callbacks)
    round_two = _round(2)
    assert sent == [round_two]
    assert set(Match.objects.filter(pk__in=round_two).values_list("status", flat=True)) == {Match.Status.PENDING}


def test_a_match_that_cannot_be_played_does_not_hold_up_the_rest_of_its_batch(monkeypatch, caplog):
    import bots.runner

    _, matches = started_round_robin(16)
    broken = matches[1]
    real = bots.runner.play_match

    def play_match(game, players, *, seed, **kw):
        if seed == broken.seed:
            raise RuntimeError("an engine bug")
        return real(game, players, seed=seed, **kw)

    monkeypatch.setattr(bots.runner, "play_match", play_match)
    claims = match_play_batch(match_ids=[m.pk for m in matches], owner="w1")
    assert claims[broken.pk].status == "failed"
    assert all(claims[m.pk].status == "finished" for m in matches if m != broken)
    assert f"match {broken.pk} could not be played" in caplog.text
    broken.refresh_from_db()
    # Still leased: reclaim_matches hands it back when the lease runs out.
    assert broken.status == Match.Status.RUNNING and broken.lease_owner == "w1"
    assert not Result.objects.filter(match=broken).exists()


def test_a_round_of_short_matches_is_kept_whole_by_the_worker_that_made_it(
        settings, monkeypatch, django_capture_on_commit_callbacks):
    settings.MATCH_BATCH_SPREAD = 2
    settings.MATCH_SPLIT_SECONDS = 60.0  # random bots' 2-hand matches take milliseconds
    tournament, _, _, sent = _first_round_played_by_one_worker(monkeypatch, django_capture_on_commit_callbacks)
    assert tournament.status == "finished" and sent == []


def test_a_worker_that_knows_its_matches_are_short_sends_them_in_larger_batches(settings):
    settings.MATCH_BATCH_SIZE = 20
    settings.MATCH_BATCH_SECONDS = 1.0
    settings.MATCH_BATCH_MAX = 200
    settings.MATCH_BATCH_SPREAD = 2
    assert batch_size() == 20  # no pace known (a tournament's start, an API call)
    assert batch_size(pace=0.02) == 50  # a second of 20 ms matches
    assert batches(list(range(100)), size=batch_size(pace=0.02), spread=2) == [list(range(50)), list(range(50, 100))]
    assert dispatch.split(range(100), pace=0.02).rest == [list(range(50)), list(range(50, 100))]
    assert dispatch.split(range(100)).rest == [list(range(k, k + 20)) for k in range(0, 100, 20)]
    assert batch_size(pace=0.001) == 200  # capped
    assert batch_size(pace=2.0) == 20  # long matches keep the default, shared among the workers


def test_a_worker_keeps_a_whole_round_it_would_play_quickly_and_only_the_first_batch_otherwise(settings):
    settings.MATCH_SPLIT_SECONDS = 1.0
    settings.MATCH_BATCH_SPREAD = 2
    settings.MATCH_BATCH_SIZE, settings.MATCH_BATCH_SECONDS, settings.MATCH_BATCH_MAX = 20, 1.0, 200
    ids = list(range(100, 110))
    # 10 matches of 50 ms: half a second, under MATCH_SPLIT_SECONDS: all kept, nothing sent.
    assert dispatch.split(ids, pace=0.05, keep=True) == dispatch.Split(kept=ids, rest=[])
    # 10 matches of 100 ms (1 s, not under it) or 200 ms: the round is shared, the first batch kept.
    for pace in (0.1, 0.2):
        assert dispatch.split(ids, pace=pace, keep=True) == dispatch.Split(kept=ids[:5], rest=[ids[5:]])
    # Without keep (nobody plays them here), nothing is kept, however short the matches.
    assert dispatch.split(ids, pace=0.05) == dispatch.Split(kept=[], rest=[ids[:5], ids[5:]])
    # Nor without a pace.
    assert dispatch.split(ids, keep=True) == dispatch.Split(kept=ids[:5], rest=[ids[5:]])
    assert dispatch.split([], pace=0.05, keep=True) == dispatch.Split(kept=[], rest=[])


def test_batches_are_published_one_task_each_once_the_transaction_commits(monkeypatch,
                                                                          django_capture_on_commit_callbacks):
    sent = _broker(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        dispatch.send_batches([[1, 2], [], [3]])
        assert sent == []  # not before the commit: a worker must find the rows
    assert len(callbacks) == 1
    assert sent == [[1, 2], [3]]  # one task per batch, empty ones left out

    # A transaction rolled back publishes nothing.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            dispatch.send_batches([[4, 5]])
            raise RuntimeError("rolled back")
    assert callbacks == [] and sent == [[1, 2], [3]]

    # send: the same, cut into batches first.
    with django_capture_on_commit_callbacks(execute=True):
        dispatch.send([6, 7, 8])
        dispatch.send([])
        assert sent == [[1, 2], [3]]
    assert sent[2:] == dispatch.split([6, 7, 8]).rest
    assert [i for chunk in sent[2:] for i in chunk] == [6, 7, 8]
