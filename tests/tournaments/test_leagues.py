"""Leagues: seasons of periodic rounds in divisions, promotion and relegation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import selectors
from tournaments.models import Season, Tournament
from tournaments.services import ServiceError
from tournaments.services.dispatch import held
from tournaments.services.leagues import league_create, league_join, season_start
from tournaments.services.schedule import schedule_tick

from .helpers import bot_players, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.services]

DAY = timedelta(days=1)


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
        with held():
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
    with held():
        season = season_start(league=league)
    divisions = list(season.divisions.order_by("division"))
    assert [d.entries.count() for d in divisions] == [5, 5]
    assert all(d.status == Tournament.Status.RUNNING for d in divisions)
    assert [d.round_interval for d in divisions] == [DAY, DAY]


def test_rounds_open_once_a_period():
    league = make_league(bot_players(10))
    with held():
        season = season_start(league=league)
    for each in season.divisions.all():
        play_out(each)
    division = season.divisions.get(division=1)
    assert division.rounds.count() == 1  # round 2 waits for its day
    with held():
        schedule_tick(now=timezone.now() + DAY / 2)
    assert division.rounds.count() == 1
    with held():
        assert schedule_tick(now=timezone.now() + DAY)["rounds"] == 2  # one per division
    assert division.rounds.count() == 2


def test_a_season_ends_with_promotion_and_relegation_and_the_next_begins():
    league = make_league(bot_players(10))
    with held():
        first = season_start(league=league)
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
    with held():
        first = season_start(league=league)
    play_season(first)
    league_join(league=league, player=players[10])
    with held():
        second = season_start(league=league)
    bottom = second.divisions.order_by("-division").first()
    assert bottom.entries.filter(player=players[10]).exists()
