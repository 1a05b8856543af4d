"""Rounds made ahead: a bot round robin does not wait for a round to close before the next is
made and played, yet its schedule, standings and ratings are those of one round at a time,
whatever order its matches finish in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from tournaments.models import AuditEvent, Match, Player, RatingChange, Round, Tournament
from tournaments.services import dispatch
from tournaments.services.leases import match_claim, matches_reclaim
from tournaments.services.play import match_play, match_play_batch
from tournaments.services.players import player_create
from tournaments.services.rounds import ahead_matches, rounds_ahead
from tournaments.services.tournaments import entry_disqualify, entry_withdraw, tournament_cancel, tournament_start

from .helpers import bot_players, make_tournament, outcome, pending_bot_matches, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.services]

# Six bots at tables of two, two cycles: 10 rounds of 3 matches.
ROUND_ROBIN = {"game": "piazza", "format": "round_robin", "format_config": {"cycles": 2}, "table_size": 2, "options": {}}


def _open_rounds(tournament):
    return list(tournament.rounds.exclude(status=Round.Status.FINISHED).order_by("number").values_list("number", flat=True))


def _play_only(*match_ids: int, owner: str = "w") -> None:
    """Play these matches and none that their results open, so the test chooses the order
    matches finish in. A worker plays on with what its results open for at most one lease
    (services.play.match_play_batch): with no lease to spare it plays none of it, and sends it
    once the transaction commits — which a test never does, so those matches stay pending."""
    with override_settings(MATCH_LEASE_SECONDS=0.0):
        claims = match_play_batch(match_ids=list(match_ids), owner=owner)
    assert {pk for pk, claim in claims.items() if claim.status == "finished"} == set(match_ids)


def test_a_bot_round_robin_played_ahead_and_backwards_ends_as_one_played_a_round_at_a_time(settings):
    players = bot_players(6)
    settings.ROUNDS_AHEAD_MATCHES = 0
    calm = make_tournament(players, slug="calm", ladder_slug="calm-ladder", **ROUND_ROBIN)
    tournament_start(tournament=calm)
    assert _open_rounds(calm) == [1]
    while pending := pending_bot_matches(calm):
        rounds_pending = set(Match.objects.filter(pk__in=pending).values_list("round__number", flat=True))
        assert [*rounds_pending] == _open_rounds(calm)  # one round at a time
        for match_id in pending:
            _play_only(match_id, owner="calm")
    calm.refresh_from_db()
    assert calm.status == Tournament.Status.FINISHED

    settings.ROUNDS_AHEAD_MATCHES = 8
    ahead = make_tournament(players, slug="ahead", ladder_slug="ahead-ladder", **ROUND_ROBIN)
    most_open = 0
    tournament_start(tournament=ahead)
    # Rounds of three matches until at least eight are waiting.
    assert _open_rounds(ahead) == [1, 2, 3]
    while pending := pending_bot_matches(ahead):
        most_open = max(most_open, len(_open_rounds(ahead)))
        # The latest round first: later rounds finish before earlier ones and wait for them.
        for match_id in reversed(pending):
            _play_only(match_id, owner="ahead")
    ahead.refresh_from_db()
    assert ahead.status == Tournament.Status.FINISHED
    assert most_open > 1
    assert outcome(ahead) == outcome(calm)


def test_a_round_played_before_the_one_ahead_of_it_waits_for_it_to_close(settings):
    settings.ROUNDS_AHEAD_MATCHES = 8
    tournament = make_tournament(bot_players(6), slug="order", **ROUND_ROBIN)
    tournament_start(tournament=tournament)
    for match in Match.objects.filter(round__tournament=tournament, round__number=2):
        _play_only(match.pk)
    # Round 2 is played, but round 1 is not: round 2 is neither closed nor rated.
    assert _open_rounds(tournament) == [1, 2, 3]
    assert not RatingChange.objects.filter(ladder=tournament.ladder).exists()
    for match in Match.objects.filter(round__tournament=tournament, round__number=1):
        _play_only(match.pk)
    # Closing round 1 closed round 2 after it, and rated round 1's matches first.
    rounds = [n for n, in RatingChange.objects.filter(ladder=tournament.ladder).order_by("sequence")
              .values_list("match__round__number")]
    assert rounds == [1] * 6 + [2] * 6
    assert Round.objects.get(tournament=tournament, number=2).status == Round.Status.FINISHED
    # Four of the nine matches made ahead were left: more rounds were made.
    assert _open_rounds(tournament)[0] == 3 and len(_open_rounds(tournament)) >= 2


def test_rounds_are_made_one_at_a_time_where_results_or_people_decide(settings):
    settings.ROUNDS_AHEAD_MATCHES = 8
    swiss = make_tournament(bot_players(6), slug="swiss", game="piazza", table_size=2, options={}, format_config={"rounds": 3})
    person = player_create(name="Nonna Pina", kind=Player.Kind.PERSON)
    with_people = make_tournament(bot_players(5) + [person], slug="people", ladder_slug="people-ladder", **ROUND_ROBIN)
    timed = make_tournament(bot_players(6, prefix="timed"), slug="timed", ladder_slug="timed-ladder",
                            round_interval=timedelta(days=7), **ROUND_ROBIN)
    bots_only = make_tournament(bot_players(6, prefix="fast"), slug="fast", ladder_slug="fast-ladder", **ROUND_ROBIN)
    for tournament in (swiss, with_people, timed, bots_only):
        tournament_start(tournament=tournament)
    assert [rounds_ahead(t) for t in (swiss, with_people, timed, bots_only)] == [0, 0, 0, 8]
    assert [len(_open_rounds(t)) for t in (swiss, with_people, timed, bots_only)] == [1, 1, 1, 3]


def _seated(tournament) -> dict[int, set[int]]:
    seated: dict[int, set[int]] = {}
    for number, _, seats in schedule(tournament):
        seated.setdefault(number, set()).update(seats)
    return seated


@pytest.mark.parametrize("leave", ["withdraw", "disqualify"])
def test_a_withdrawal_counts_from_the_next_round_however_far_ahead_rounds_were_made(settings, leave):
    settings.ROUNDS_AHEAD_MATCHES = 8
    players = bot_players(6)
    tournament = make_tournament(players, slug="withdraw", **ROUND_ROBIN)
    _, started = tournament_start(tournament=tournament)
    made_ahead = pending_bot_matches(tournament)
    assert list(started.to_play) == made_ahead
    entry = tournament.entries.get(player=players[0])
    if leave == "withdraw":
        _, progress = entry_withdraw(entry=entry)
    else:
        _, progress = entry_disqualify(entry=entry, reason="answered after the time limit on purpose")
    # Rounds 2 and 3 were made again without the entrant, and returned for the caller to send
    # to the workers.
    assert _open_rounds(tournament)[:3] == [1, 2, 3]
    assert players[0].pk not in _seated(tournament)[2] | _seated(tournament)[3]
    remade = [pk for pk in pending_bot_matches(tournament) if pk not in set(made_ahead)]
    assert remade and list(progress.to_play) == remade
    assert [rnd.number for rnd in progress.made] == sorted({n for n, _, _ in schedule(tournament)} - {1})
    event = AuditEvent.objects.get(tournament=tournament, action="rounds_remade")
    assert event.detail["from_round"] == 2 and event.detail["rounds"] == 2
    # A worker holding a message for a deleted match finds it gone.
    gone = sorted(set(made_ahead) - set(pending_bot_matches(tournament)))
    assert {c.status for c in match_play_batch(match_ids=gone, owner="w").values()} == {"gone"}
    while pending := pending_bot_matches(tournament):
        for match_id in pending:
            match_play(match_id=match_id, owner="w")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    seated = _seated(tournament)
    assert players[0].pk in seated[1]  # the round being played when it left
    assert all(players[0].pk not in seated[n] for n in range(2, len(seated) + 1))
    # Its opponents in the later rounds have a bye instead.
    assert all(len(Round.objects.get(tournament=tournament, number=n).byes) == 1 for n in range(2, len(seated) + 1))


def test_rounds_made_ahead_that_have_started_are_kept(settings):
    settings.ROUNDS_AHEAD_MATCHES = 8
    players = bot_players(6)
    tournament = make_tournament(players, slug="started", **ROUND_ROBIN)
    tournament_start(tournament=tournament)
    third = Match.objects.filter(round__tournament=tournament, round__number=3).first()
    assert match_claim(match_id=third.pk, owner="w").status == "claimed"
    before = schedule(tournament)
    _, progress = entry_withdraw(entry=tournament.entries.get(player=players[0]))
    # A match of round 3 is being played: rounds 2 and 3 stay as they were, nothing new to play.
    assert schedule(tournament)[:9] == before
    assert not progress and progress.to_play == ()
    assert not AuditEvent.objects.filter(tournament=tournament, action="rounds_remade").exists()


def test_matches_waiting_behind_a_moving_queue_are_not_sent_again(settings, sent, django_capture_on_commit_callbacks):
    """Reclaim re-sends a long-pending match only when its tournament has stalled (no match
    started lately: its message was lost), not while rounds made ahead wait their turn."""
    from tournaments import tasks

    settings.ROUNDS_AHEAD_MATCHES = 8
    moving = make_tournament(bot_players(6), slug="moving", ladder_slug="moving-ladder", **ROUND_ROBIN)
    stalled = make_tournament(bot_players(6, prefix="stalled"), slug="stalled", ladder_slug="stalled-ladder", **ROUND_ROBIN)
    tournament_start(tournament=moving)
    tournament_start(tournament=stalled)
    long_ago = timezone.now() - timedelta(minutes=10)
    Round.objects.update(created_at=long_ago)
    first = pending_bot_matches(moving)[0]
    Match.objects.filter(pk=first).update(status=Match.Status.RUNNING, lease_owner="w", started_at=timezone.now(),
                                          lease_expires_at=timezone.now() + timedelta(minutes=5))
    resent = matches_reclaim(stale_after=60)
    assert resent == pending_bot_matches(stalled) and len(resent) == 9

    Match.objects.filter(pk=first).update(started_at=long_ago)
    assert set(matches_reclaim(stale_after=60)) == set(pending_bot_matches(stalled)) | set(pending_bot_matches(moving))

    # The periodic task sends what the reclaim found, once its transaction commits.
    settings.MATCH_STALE_SECONDS = 60.0  # the task's stale_after
    with django_capture_on_commit_callbacks(execute=True):
        returned = tasks.reclaim_matches()
        assert sent == []
    pending = set(pending_bot_matches(stalled)) | set(pending_bot_matches(moving))
    assert sorted(pk for batch in sent for pk in batch) == returned == sorted(pending)


def test_how_many_matches_are_made_ahead_is_a_setting_not_the_pace_of_the_worker_that_made_them(settings):
    """ROUNDS_AHEAD_MATCHES when set; else, at the start, two batches (MATCH_BATCH_SIZE) for
    each of MATCH_BATCH_SPREAD workers, and once rounds close two of the largest batches
    (MATCH_BATCH_MAX) for each: whatever batch size a worker's pace gives it."""
    settings.ROUNDS_AHEAD_MATCHES = None  # the default
    settings.MATCH_BATCH_SIZE, settings.MATCH_BATCH_SPREAD = 20, 2
    settings.MATCH_BATCH_SECONDS, settings.MATCH_BATCH_MAX = 1.0, 200
    tournament = make_tournament(bot_players(6), slug="pace", **ROUND_ROBIN)
    assert rounds_ahead(tournament, start=True) == ahead_matches(start=True) == 2 * 20 * 2
    assert rounds_ahead(tournament) == ahead_matches() == 2 * 200 * 2
    settings.MATCH_BATCH_SIZE, settings.MATCH_BATCH_MAX, settings.MATCH_BATCH_SPREAD = 50, 60, 3
    assert (ahead_matches(start=True), ahead_matches()) == (2 * 50 * 3, 2 * 60 * 3)
    settings.ROUNDS_AHEAD_MATCHES = 7  # set: the batch settings do not count
    assert rounds_ahead(tournament, start=True) == rounds_ahead(tournament) == 7
    settings.ROUNDS_AHEAD_MATCHES = 0
    assert rounds_ahead(tournament, start=True) == rounds_ahead(tournament) == 0

    # A worker whose pace sizes its batches at MATCH_BATCH_SIZE (1) closes round 1: it makes
    # rounds until two of the largest batches (4) for its one worker, 8 matches, wait: a
    # measure of its pace would make 2 * 1 * 1 = 2, round 2 only.
    settings.ROUNDS_AHEAD_MATCHES = None
    settings.MATCH_BATCH_SIZE, settings.MATCH_BATCH_MAX, settings.MATCH_BATCH_SPREAD = 1, 4, 1
    settings.MATCH_BATCH_SECONDS = 1e-9  # no match is that short: any pace gives MATCH_BATCH_SIZE
    worked = make_tournament(bot_players(6, prefix="worked"), slug="worked", ladder_slug="worked-ladder", **ROUND_ROBIN)
    tournament_start(tournament=worked)
    assert _open_rounds(worked) == [1]  # at the start, rounds of 3 until 2 * 1 * 1 = 2 wait
    assert dispatch.batch_size(pace=0.001) == 1
    _play_only(*Match.objects.filter(round__tournament=worked, round__number=1).values_list("pk", flat=True))
    assert _open_rounds(worked) == [2, 3, 4]
    assert rounds_ahead(worked) == 8


def test_matches_made_ahead_are_not_played_once_the_tournament_is_cancelled(settings):
    settings.ROUNDS_AHEAD_MATCHES = 8
    tournament = make_tournament(bot_players(6), slug="cancelled", **ROUND_ROBIN)
    tournament_start(tournament=tournament)
    waiting = pending_bot_matches(tournament)
    assert len(waiting) == 9
    tournament_cancel(tournament=tournament)
    claims = match_play_batch(match_ids=waiting, owner="w")
    assert {claim.status for claim in claims.values()} == {"cancelled"}
    assert not Match.objects.filter(round__tournament=tournament).exclude(status=Match.Status.PENDING).exists()
