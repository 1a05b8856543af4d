"""`manage.py run_tournament`: a run stopped half way is finished with --resume, the same
tournament, every match recorded and rated once; a second run of the same event is refused."""

from __future__ import annotations

import signal
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Count
from django.utils import timezone

import bots.runner
from tournaments.management.commands import run_tournament
from tournaments.models import Match, RatingChange, RatingLadder, Result, Seat, Tournament
from tournaments.services.leases import matches_reclaim
from tournaments.services.tournaments import tournament_start

from .helpers import bot_players, make_tournament, outcome, play_out

pytestmark = pytest.mark.django_db

# 12 random bots at tables of 4, three Swiss rounds of two hands: 9 matches, well under a second.
EVENT = ["sette_e_mezzo", "--bots", "random:12", "--format-option", "rounds=3", "--option", "hands=2", "--seed", "5"]
SLUG = "sette-e-mezzo-swiss-seed-5"


@pytest.fixture(autouse=True)
def _eager(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True


class Killed(BaseException):
    """What a SIGKILL is to the process: nothing below it catches it, nothing is cleaned up."""


def run(*args: str) -> str:
    out = StringIO()
    call_command("run_tournament", *args, stdout=out)
    return out.getvalue()


def reference() -> Tournament:
    """The same event played through without a stop, under another name (and so its own ladder)."""
    run(*EVENT, "--name", "Reference")
    return Tournament.objects.get(slug="reference")


def kill_in_play(monkeypatch, at: int, exc: BaseException) -> None:
    """Raise ``exc`` as the ``at``-th match starts to be played: the matches played since the
    last flush are lost, and the batch's other matches stay claimed."""
    real, calls = bots.runner.play_match, 0

    def play_match(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == at:
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(bots.runner, "play_match", play_match)


def after_recorded(monkeypatch, at: int, action) -> None:
    """Call ``action`` once the ``at``-th match of this command has been recorded (the loop
    the command plays with, services.play.tournament_play_out, calls ``on_played`` then)."""
    real, recorded = run_tournament.tournament_play_out, 0

    def tournament_play_out(*, on_played=None, **kwargs):
        def counted(match_id):
            nonlocal recorded
            on_played(match_id)
            recorded += 1
            if recorded == at:
                action()

        return real(on_played=counted, **kwargs)

    monkeypatch.setattr(run_tournament, "tournament_play_out", tournament_play_out)


def assert_rated_once(tournament: Tournament) -> None:
    """Every match recorded once; the ledger holds one change per seat of a finished match."""
    matches = Match.objects.filter(round__tournament=tournament)
    assert matches.exclude(status=Match.Status.FINISHED).count() == 0
    assert Result.objects.filter(match__round__tournament=tournament).count() == matches.count()
    seats = Seat.objects.filter(match__round__tournament=tournament, match__status=Match.Status.FINISHED).count()
    ledger = RatingChange.objects.filter(ladder=tournament.ladder)
    assert ledger.count() == seats
    assert not ledger.values("match", "player").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert set(ledger.values_list("match__round__tournament", flat=True)) == {tournament.pk}


def kill_mid_match(monkeypatch, settings):
    """Killed as round 2's second table starts: round 2's first result, played but not yet
    flushed, is lost, and its three matches stay leased to run_tournament."""
    kill_in_play(monkeypatch, 5, Killed())


def kill_after_a_record(monkeypatch, settings):
    """Killed right after round 2's second result is recorded: its third match stays leased."""
    settings.MATCH_FLUSH_SECONDS = 0  # each match recorded as it ends

    def die():
        raise Killed()

    after_recorded(monkeypatch, 5, die)


@pytest.mark.parametrize(("kill", "played_before", "left_leased"),
                         [(kill_mid_match, 3, 3), (kill_after_a_record, 5, 1)])
def test_a_run_killed_half_way_is_finished_by_resume_and_rated_once(monkeypatch, settings, kill, played_before,
                                                                    left_leased):
    expected = outcome(reference())
    kill(monkeypatch, settings)
    with pytest.raises(Killed):
        run(*EVENT)
    monkeypatch.undo()

    tournament = Tournament.objects.get(slug=SLUG)
    assert tournament.status == Tournament.Status.RUNNING
    matches = Match.objects.filter(round__tournament=tournament)
    assert matches.filter(status=Match.Status.FINISHED).count() == played_before
    left = matches.filter(status=Match.Status.RUNNING)
    assert left.count() == left_leased
    assert set(left.values_list("lease_owner", flat=True)) == {run_tournament.OWNER}
    assert left.filter(lease_expires_at__gt=timezone.now()).count() == left_leased  # not run out yet

    text = run("--resume", SLUG)
    assert f"resuming {SLUG}: round 2 of 3, {played_before} of the 6 matches made so far played" in text
    assert "Standings" in text and "Leaderboard" in text

    assert Tournament.objects.count() == 2  # the reference and this one: no copy
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.entries.count() == 12
    assert Match.objects.filter(round__tournament=tournament).count() == 9
    assert_rated_once(tournament)
    assert outcome(tournament) == expected


def test_ctrl_c_stops_after_the_match_in_hand_leaving_nothing_leased(monkeypatch, settings):
    expected = outcome(reference())
    settings.MATCH_FLUSH_SECONDS = 0  # each match recorded as it ends
    after_recorded(monkeypatch, 4, lambda: signal.raise_signal(signal.SIGINT))
    with pytest.raises(CommandError, match=f"--resume {SLUG}"):
        run(*EVENT)
    monkeypatch.undo()
    tournament = Tournament.objects.get(slug=SLUG)
    matches = Match.objects.filter(round__tournament=tournament)
    assert matches.filter(status=Match.Status.FINISHED).count() == 4
    assert not matches.filter(status=Match.Status.RUNNING).exists()  # handed back, pending again
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    run("--resume", SLUG)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_rated_once(tournament)
    assert outcome(tournament) == expected


def test_a_hard_interrupt_names_resume_which_takes_the_leased_matches_back(monkeypatch):
    kill_in_play(monkeypatch, 2, KeyboardInterrupt())
    with pytest.raises(CommandError, match=f"stay leased to run_tournament.*--resume {SLUG}"):
        run(*EVENT)
    monkeypatch.undo()
    tournament = Tournament.objects.get(slug=SLUG)
    assert Match.objects.filter(round__tournament=tournament, status=Match.Status.RUNNING).count() == 3
    run("--resume", SLUG)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_rated_once(tournament)


def test_a_second_run_of_the_same_event_is_refused_naming_resume(monkeypatch):
    kill_in_play(monkeypatch, 5, Killed())
    with pytest.raises(Killed):
        run(*EVENT)
    monkeypatch.undo()
    ladders, ledger = RatingLadder.objects.count(), RatingChange.objects.count()

    with pytest.raises(CommandError, match=rf"already exists and is not finished \(round 2 of 3.*--resume {SLUG}"):
        run(*EVENT)
    assert Tournament.objects.count() == 1
    assert (RatingLadder.objects.count(), RatingChange.objects.count()) == (ladders, ledger)

    run("--resume", SLUG)
    ledger = RatingChange.objects.count()
    with pytest.raises(CommandError, match="already exists and is finished: --resume prints its standings"):
        run(*EVENT)
    assert (Tournament.objects.count(), RatingChange.objects.count()) == (1, ledger)
    assert_rated_once(Tournament.objects.get())


def test_each_new_tournament_gets_its_own_ladder_unless_one_is_named_to_share():
    run(*EVENT)
    text = run(*EVENT, "--seed", "6")  # another event: another name, slug and ladder
    assert "rated on a ladder of its own: sette-e-mezzo-swiss-seed-6" in text
    first, second = Tournament.objects.get(slug=SLUG), Tournament.objects.get(slug="sette-e-mezzo-swiss-seed-6")
    assert first.ladder != second.ladder
    assert_rated_once(first)
    assert_rated_once(second)

    run(*EVENT, "--seed", "7", "--ladder", "club")
    text = run(*EVENT, "--seed", "8", "--ladder", "club")
    assert "shared ladder club (v1), which already holds 36 rating change(s) from 1 other tournament(s): " \
           "sette-e-mezzo-swiss-seed-7" in text
    assert RatingChange.objects.filter(ladder__slug="club").count() == 72


def test_an_existing_ladder_is_used_only_when_named():
    RatingLadder.objects.create(slug="night", version=1, name="x", game="sette_e_mezzo", system="elo",
                                config={}, config_hash="x")
    with pytest.raises(CommandError, match="a ladder 'night' already exists.*--ladder night"):
        run(*EVENT, "--name", "Night")
    assert not Tournament.objects.exists()


def test_resume_starts_a_tournament_still_in_registration():
    tournament = make_tournament(bot_players(8), slug="club-night")
    text = run("--resume", "club-night")
    assert "resuming club-night: not started yet, 8 entrants" in text
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.entries.count() == 8
    assert_rated_once(tournament)


def started(slug: str = "club-night") -> Tournament:
    """A Swiss of 8 random bots, started, nothing played (services send nothing: round 1's
    matches are sent by no one)."""
    tournament = make_tournament(bot_players(8), slug=slug)
    tournament, _ = tournament_start(tournament=tournament)
    return tournament


def test_resume_takes_over_a_match_whose_lease_ran_out_and_waits_for_a_live_one():
    tournament = started("club-night-2")
    first, second = Match.objects.filter(round__tournament=tournament).order_by("table")
    Match.objects.filter(pk=first.pk).update(status=Match.Status.RUNNING, lease_owner="worker@dead",
                                             lease_expires_at=timezone.now() - timedelta(seconds=1))
    Match.objects.filter(pk=second.pk).update(status=Match.Status.RUNNING, lease_owner="worker@alive",
                                              lease_expires_at=timezone.now() + timedelta(minutes=5))
    with pytest.raises(CommandError, match=r"still leased to worker@alive after 0s"):
        run("--resume", "club-night-2", "--timeout", "0")
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED  # taken over: its lease had run out
    Match.objects.filter(pk=second.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    run("--resume", "club-night-2")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_rated_once(tournament)


def test_resume_of_a_finished_tournament_prints_its_standings_and_changes_nothing():
    run(*EVENT)
    ledger = list(RatingChange.objects.values_list("pk", flat=True))
    text = run("--resume", SLUG)
    assert "is finished: nothing is left to play, and nothing is rated again" in text
    assert "Standings" in text and "Leaderboard" in text
    assert list(RatingChange.objects.values_list("pk", flat=True)) == ledger


def test_resume_refusals_are_clear():
    with pytest.raises(CommandError, match="no tournament with slug 'nowhere' to resume"):
        run("--resume", "nowhere")
    make_tournament(bot_players(8), slug="club-night")
    with pytest.raises(CommandError, match=r"no tournament with slug 'nowhere' to resume \(not finished: club-night\)"):
        run("--resume", "nowhere")
    with pytest.raises(CommandError, match="--resume finishes club-night as it was made: --bots, --seed only"):
        run("--resume", "club-night", "--bots", "random:4", "--seed", "3")
    with pytest.raises(CommandError, match="club-night plays sette_e_mezzo, not stoppa"):
        run("stoppa", "--resume", "club-night")
    Tournament.objects.filter(slug="club-night").update(status=Tournament.Status.CANCELLED)
    with pytest.raises(CommandError, match="club-night was cancelled"):
        run("--resume", "club-night")
    with pytest.raises(CommandError, match="name the GAME to play"):
        run()


def test_with_a_broker_resume_sends_what_is_left_to_the_workers_and_follows(monkeypatch, settings):
    tournament = started()
    first = Match.objects.filter(round__tournament=tournament).order_by("table").first()
    Match.objects.filter(pk=first.pk).update(status=Match.Status.RUNNING, lease_owner=run_tournament.OWNER,
                                             lease_expires_at=timezone.now() + timedelta(minutes=5))
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent, followed = [], []
    monkeypatch.setattr(run_tournament.dispatch, "send", lambda ids, **kwargs: sent.append(list(ids)))

    def workers(tournament, console, timeout):  # the workers play it out meanwhile
        followed.append(tournament.slug)
        Match.objects.filter(pk=first.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
        assert first.pk in matches_reclaim()  # the beat hands the match back once its lease has run out
        play_out(tournament)

    monkeypatch.setattr(run_tournament, "follow_workers", workers)
    text = run("--resume", "club-night")
    assert "sent the 2 match(es) still to play to the workers" in text
    # One message per match still to play, the one leased to a killed run of this command too.
    assert sent == [list(Match.objects.filter(round__tournament=tournament, round__number=1).order_by("table")
                         .values_list("pk", flat=True))]
    assert followed == ["club-night"]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_rated_once(tournament)


@pytest.mark.parametrize("resume", [False, True], ids=["new run", "resume of one in registration"])
def test_with_a_broker_a_run_sends_round_one_as_tournament_start_made_it_and_plays_nothing(monkeypatch, settings,
                                                                                         resume):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    if resume:
        slug, args = "club-night", ["--resume", "club-night"]
        make_tournament(bot_players(8), slug=slug)
    else:
        slug, args = SLUG, EVENT
    made, sent, batches, played, followed = [], [], [], [], []
    real_start = run_tournament.tournament_start

    def tournament_start(**kwargs):
        tournament, progress = real_start(**kwargs)
        made.append(progress.to_play)
        return tournament, progress

    def play_match(*args, **kwargs):
        played.append(args)
        raise AssertionError("the command plays a match itself in broker mode")

    def workers(tournament, console, timeout):  # the workers would play it: here they do nothing
        matches = Match.objects.filter(round__tournament=tournament)
        followed.append((tournament.slug, sorted(set(matches.values_list("status", "lease_owner")))))

    monkeypatch.setattr(run_tournament, "tournament_start", tournament_start)
    monkeypatch.setattr(run_tournament.dispatch, "send", lambda ids, **kwargs: sent.append(list(ids)))
    monkeypatch.setattr(run_tournament.dispatch, "send_batches", lambda chunks: batches.append(chunks))
    monkeypatch.setattr(bots.runner, "play_match", play_match)
    monkeypatch.setattr(run_tournament, "follow_workers", workers)
    with pytest.raises(CommandError, match=f"{slug} is not finished"):  # the workers never played it
        run(*args)

    tournament = Tournament.objects.get(slug=slug)
    round_one = list(Match.objects.filter(round__tournament=tournament, round__number=1).order_by("table")
                     .values_list("pk", flat=True))
    assert len(round_one) == (3 if not resume else 2)
    assert made == [tuple(round_one)]  # a Swiss: round 1 only, made once
    assert sent == [round_one]  # exactly what tournament_start returned, sent once
    assert batches == [] and played == []  # nothing else sent, nothing played here
    assert followed == [(slug, [(Match.Status.PENDING, "")])]  # every match waits for the workers, none leased
    assert not Match.objects.filter(round__tournament=tournament).exclude(status=Match.Status.PENDING).exists()
    assert not RatingChange.objects.filter(ladder=tournament.ladder).exists()


def test_a_new_run_that_cannot_start_leaves_nothing_behind():
    with pytest.raises(CommandError, match="entries: 2 entrants cannot fill a table of 4"):
        run(*EVENT[:1], "--bots", "random:2", *EVENT[3:])
    assert not Tournament.objects.exists() and not RatingLadder.objects.exists()
    run(*EVENT)  # the slug is still free
    assert_rated_once(Tournament.objects.get(slug=SLUG))
