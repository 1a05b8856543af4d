"""A worker's leases are renewed by a heartbeat while it plays, so a lease can be short (a dead
worker's matches go back within seconds) and a match can still play longer than its lease; a
worker that makes no progress stops renewing, and its matches go back as a dead worker's do.

The heartbeat is a thread with its own database connection: on PostgreSQL (the services leg),
not on the first leg's in-memory SQLite, where it is off (services.leases.Heartbeat).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from bots import runner
from tournaments.models import AuditEvent, Match
from tournaments.services import play
from tournaments.services.leases import leases_hand_back, leases_renew, match_claim, matches_reclaim
from tournaments.services.play import match_play_batch
from tournaments.services.tournaments import tournament_start

from .helpers import bot_players, make_tournament

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def one_match(settings):
    if connection.vendor != "postgresql":
        pytest.skip("the heartbeat's thread needs a database taking writes from two connections")
    settings.MATCH_LEASE_SECONDS, settings.MATCH_HEARTBEAT_SECONDS = 0.8, 0.1
    tournament = make_tournament(bot_players(4), slug="heartbeat", ladder_slug=None, format="round_robin",
                                 format_config={})
    _, progress = tournament_start(tournament=tournament)
    (match_id,) = progress.to_play
    return match_id


def slow_play(monkeypatch, seconds: float, while_playing) -> None:
    """Each match takes ``seconds`` longer, ``while_playing(match_id)`` asked every 0.2 s."""
    real = runner.play_match

    def play_match(game, players, *, seed, **kwargs):
        (match_id,) = Match.objects.filter(seed=seed).values_list("pk", flat=True)
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            time.sleep(0.2)
            while_playing(match_id)
        return real(game, players, seed=seed, **kwargs)

    monkeypatch.setattr(play.runner, "play_match", play_match)


def test_a_match_playing_three_times_its_lease_keeps_it_and_is_recorded_once(one_match, monkeypatch):
    seen = []

    def still_held(match_id: int) -> None:
        assert matches_reclaim() == []  # beat's reclaim finds no lease run out
        seen.append(Match.objects.values_list("status", "lease_owner").get(pk=match_id))

    slow_play(monkeypatch, 2.4, still_held)
    claims = match_play_batch(match_ids=[one_match], owner="w1", play_all=True)
    assert claims[one_match].status == "finished"
    assert set(seen) == {("running", "w1")} and len(seen) >= 10
    match = Match.objects.get(pk=one_match)
    assert (match.status, match.attempts, match.interrupted) == ("finished", 1, 0)


def test_a_worker_making_no_progress_stops_renewing_and_its_match_goes_back(one_match, monkeypatch, settings):
    settings.MATCH_STUCK_SECONDS = 0.5
    reclaimed = []

    def reclaim(match_id: int) -> None:
        reclaimed.extend(matches_reclaim())

    slow_play(monkeypatch, 3.0, reclaim)
    match_play_batch(match_ids=[one_match], owner="stuck", play_all=True)
    # Its lease ran out once it had made no progress for MATCH_STUCK_SECONDS: handed back for
    # another worker (this one's late result is still the match's: the same seeds, the same play).
    assert reclaimed == [one_match]
    assert Match.objects.get(pk=one_match).interrupted == 1


def test_renewing_leases_locks_the_matches_alone(settings):
    # The defect (found by bench/soak.py): renewing locked the matches' round and tournament
    # rows too (Match's default ordering joins them), so the heartbeat's thread and the
    # player's loop, renewing overlapping matches of one round on two connections, deadlocked,
    # and the batch failed (its matches played again once their leases ran out). A renewal of
    # one match now waits for no renewal of another.
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    tournament = make_tournament(bot_players(8), slug="renew-locks", ladder_slug=None, format="round_robin",
                                 format_config={})
    tournament_start(tournament=tournament)
    first, second = Match.objects.filter(round__tournament=tournament, round__number=1).order_by("table")[:2]
    Match.objects.filter(pk=first.pk).update(status=Match.Status.RUNNING, lease_owner="one")
    Match.objects.filter(pk=second.pk).update(status=Match.Status.RUNNING, lease_owner="two")
    renewed = threading.Event()

    def renew_the_other() -> None:
        try:
            if leases_renew(match_ids=[second.pk], owner="two") == {second.pk}:
                renewed.set()
        finally:
            connection.close()  # this thread's own

    with transaction.atomic():
        assert leases_renew(match_ids=[first.pk], owner="one") == {first.pk}  # its locks held until the commit
        other = threading.Thread(target=renew_the_other)
        other.start()
        other.join(timeout=5)
        assert renewed.is_set(), "renewing a match of the same round waited for another renewal's locks"
    other.join(timeout=30)


def test_lease_operations_do_not_wait_for_rows_referring_to_the_match(settings):
    # Seen once in the soak: a claim deadlocked with another worker's recording at its commit.
    # A row inserted referring to a match (a result, an audit event) key-share locks the match
    # until its transaction commits; a lease's plain FOR UPDATE waited for it. Leases change no
    # key: FOR NO KEY UPDATE, which does not wait.
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL")
    tournament = make_tournament(bot_players(4), slug="key-share", ladder_slug=None, format="round_robin",
                                 format_config={})
    _, progress = tournament_start(tournament=tournament)
    (match_id,) = progress.to_play
    done = threading.Event()

    def lease_it() -> None:
        try:
            if match_claim(match_id=match_id, owner="w").status == "claimed" and leases_renew(
                    match_ids=[match_id], owner="w") == {match_id} and matches_reclaim() == [] \
                    and leases_hand_back(match_ids=[match_id], owner="w") == [match_id]:
                done.set()
        finally:
            connection.close()  # this thread's own

    with transaction.atomic():
        # Django's foreign keys are checked at the commit (deferred): at once here, so the lock
        # the check takes is held while the other connection works, as during a commit.
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        AuditEvent.objects.create(tournament=tournament, match_id=match_id, action="note")  # key-shares the match
        other = threading.Thread(target=lease_it)
        other.start()
        other.join(timeout=5)
        assert done.is_set(), "a lease operation waited for a row referring to the match"
    other.join(timeout=30)
