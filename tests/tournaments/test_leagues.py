"""Leagues: seasons of periodic rounds in divisions, promotion and relegation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import selectors
from tournaments.models import Match, Result, Round, Season, Seat, Tournament
from tournaments.services import ServiceError, leagues
from tournaments.services.leagues import league_create, league_join, season_start
from tournaments.services.recording import match_record_result
from tournaments.services.schedule import schedule_tick

from .helpers import bot_players, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.services]

DAY = timedelta(days=1)


def bot_matches(season):
    """The season's bot matches still to play, division by division, in round and table order."""
    return [pk for division in season.divisions.order_by("division")
            for pk in selectors.open_bot_matches(division, "test")[0]]


def make_league(players, **changes):
    settings = {"name": "Lega", "slug": "lega", "game": "sette_e_mezzo", "table_size": 3, "division_size": 5,
                "round_interval": DAY, "promote": 1, "relegate": 1, "options": {"hands": 1}, **changes}
    league = league_create(**settings)
    for player in players:
        league_join(league=league, player=player)
    return league


def play_season(season, days=30):
    """Play every division, letting the days pass one at a time for the periodic rounds."""
    start = timezone.now()
    for day in range(days):
        now = start + day * DAY
        schedule_tick(now=now)
        for division in season.divisions.all():
            play_out(division)
        season.refresh_from_db()
        if season.finished_at is not None:
            return day
    raise AssertionError("the season did not end")


@pytest.mark.parametrize(
    "changes, field",
    [({"division_size": 2}, "division_size"), ({"promote": 3, "relegate": 2}, "promote"),
     ({"round_interval": timedelta(0)}, "round_interval"), ({"table_size": 2}, "table_size")],
)
def test_a_bad_league_is_refused_naming_the_field(changes, field):
    with pytest.raises(ServiceError) as err:
        make_league([], **changes)
    assert err.value.field == field


def test_a_season_cuts_the_players_into_divisions_best_first():
    players = bot_players(10)
    league = make_league(players)
    season, progress = season_start(league=league)
    divisions = list(season.divisions.order_by("division"))
    assert [d.entries.count() for d in divisions] == [5, 5]
    assert all(d.status == Tournament.Status.RUNNING for d in divisions)
    assert [d.round_interval for d in divisions] == [DAY, DAY]
    # Their first rounds' bot matches come back for the caller to send.
    assert [r.tournament_id for r in progress.made] == [d.pk for d in divisions]
    assert list(progress.to_play) == bot_matches(season) != []


def test_rounds_open_once_a_period():
    league = make_league(bot_players(10))
    season, _ = season_start(league=league)
    for each in season.divisions.all():
        play_out(each)
    division = season.divisions.get(division=1)
    assert division.rounds.count() == 1  # round 2 waits for its day
    early = schedule_tick(now=timezone.now() + DAY / 2)
    assert early.counts()["rounds"] == 0 and not early.progress
    assert division.rounds.count() == 1
    ticked = schedule_tick(now=timezone.now() + DAY)
    assert ticked.counts()["rounds"] == 2  # one per division
    assert division.rounds.count() == 2
    # The new rounds' bot matches come back for the tick task to send.
    assert sorted(ticked.progress.to_play) == sorted(bot_matches(season)) != []


def test_a_season_ends_with_promotion_and_relegation_and_the_next_begins():
    league = make_league(bot_players(10))
    first, _ = season_start(league=league)
    play_season(first)
    first.refresh_from_db()
    top, bottom = (
        [line.player.pk for line in selectors.tournament_standings(first.divisions.get(division=d))] for d in (1, 2)
    )
    assert first.next_divisions == [top[:-1] + bottom[:1], top[-1:] + bottom[1:]]
    second = Season.objects.get(league=league, number=2)
    assert [sorted(d.entries.values_list("player_id", flat=True)) for d in second.divisions.order_by("division")] == [
        sorted(d) for d in first.next_divisions
    ]


def test_newcomers_join_the_bottom_division_next_season():
    players = bot_players(11)
    league = make_league(players[:10], continuous=False)
    first, _ = season_start(league=league)
    play_season(first)
    league_join(league=league, player=players[10])
    second, _ = season_start(league=league)
    bottom = second.divisions.order_by("-division").first()
    assert bottom.entries.filter(player=players[10]).exists()


def _record(match_id):
    """A result for a bot match, as a worker records it (the first seat wins)."""
    n = Seat.objects.filter(match_id=match_id).count()
    return match_record_result(match_id=match_id, scores=list(range(n - 1, -1, -1)), places=list(range(1, n + 1)),
                               source="engine")


def test_recording_the_last_match_of_a_season_closes_it_and_starts_the_next_in_the_same_transaction(
        monkeypatch, sent, django_capture_on_commit_callbacks):
    league = make_league(bot_players(10))  # continuous
    # Begun a month ago, so every round is due: closing one makes the next, and closing the
    # last finishes the division (its results came in after the next period began).
    first, _ = season_start(league=league, starts_at=timezone.now() - 30 * DAY)
    top, bottom = first.divisions.order_by("division")
    play_out(top)
    assert top.status == Tournament.Status.FINISHED
    first.refresh_from_db()
    assert first.finished_at is None  # the bottom division still plays

    # Play the bottom division a match at a time while the next season cannot start: every
    # recording goes through but the last, which would close the season.
    def cannot_start(**kwargs):
        raise RuntimeError("the next season cannot start")

    monkeypatch.setattr(leagues, "season_start", cannot_start)
    last = None
    while last is None:
        playable, _ = selectors.open_bot_matches(bottom, "test")
        assert playable, "the division ran out of matches and its season never tried to close"
        try:
            _record(playable[0])
        except RuntimeError:
            last = playable[0]
    # One transaction: the season that could not close took the result and the division's
    # end with it.
    bottom.refresh_from_db()
    first.refresh_from_db()
    assert Match.objects.get(pk=last).status == Match.Status.PENDING
    assert not Result.objects.filter(match_id=last).exists()
    assert bottom.status == Tournament.Status.RUNNING
    assert Round.objects.get(matches=last).status == Round.Status.PLAYING
    assert first.finished_at is None and first.next_divisions in (None, [])
    assert not Season.objects.filter(league=league, number=2).exists()

    monkeypatch.setattr(leagues, "season_start", season_start)
    with django_capture_on_commit_callbacks(execute=True):
        match, progress = _record(last)
    assert match.status == Match.Status.FINISHED
    bottom.refresh_from_db()
    first.refresh_from_db()
    assert bottom.status == Tournament.Status.FINISHED
    assert [t.pk for t in progress.finished] == [bottom.pk]
    assert first.finished_at is not None and first.next_divisions
    second = Season.objects.get(league=league, number=2)
    divisions = list(second.divisions.order_by("division"))
    assert second.starts_at == first.finished_at
    assert all(d.status == Tournament.Status.RUNNING for d in divisions)
    # The new season's bot matches come back to the recorder, in division, round and table
    # order, for its caller to send or play: the service sent nothing.
    assert [r.tournament_id for r in progress.made] == [d.pk for d in divisions]
    assert list(progress.to_play) == bot_matches(second) != []
    assert sent == []


def test_a_season_whose_next_cannot_start_still_ends_and_its_last_result_is_recorded():
    """A continuous league whose players left during the season: the season ends, its last
    result stands, and the organisers are told why no next season began (audit), instead of
    the last result being refused for ever."""
    players = bot_players(5)
    league = make_league(players)
    first, _ = season_start(league=league)
    # Three of the five leave: two cannot fill a table of three next season.
    Player = type(players[0])
    Player.objects.filter(pk__in=[p.pk for p in players[:3]]).update(active=False)
    play_season(first)
    first.refresh_from_db()
    division = first.divisions.get()
    assert division.status == Tournament.Status.FINISHED
    assert not Match.objects.filter(round__tournament=division).exclude(status=Match.Status.FINISHED).exists()
    assert first.finished_at is not None and first.next_divisions
    assert not Season.objects.filter(league=league, number=2).exists()
    told = division.audit.get(action="next_season_not_started")
    assert told.detail["season"] == 2 and "cannot fill" in told.detail["why"]


def test_a_remote_bot_cannot_join_a_league_whose_divisions_are_not_played_online():
    from django.contrib.auth import get_user_model

    from tournaments.services.players import player_create

    owner = get_user_model().objects.create_user("author")
    remote = player_create(name="far-away", kind="bot", bot_kind="remote", owner=owner)
    league = make_league(bot_players(6))
    with pytest.raises(ServiceError) as refused:
        league_join(league=league, player=remote)
    assert refused.value.field == "player" and "remote bot" in refused.value.message
    assert not league.players.filter(pk=remote.pk).exists()
    season_start(league=league)  # the league's season still starts
