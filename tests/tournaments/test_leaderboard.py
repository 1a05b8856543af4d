"""A ladder's leaderboard is read a page at a time from the values kept on its ratings
(selectors.Leaderboard): the same board as the system computes, in a few queries whatever the
ladder's size."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from rest_framework.test import APIClient

from tournaments import ratings
from tournaments.models import Rating
from tournaments.services.ladders import ladder_create

from .helpers import bot_players, make_tournament, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.services]


def computed(ladder) -> list[tuple[str, float, bool]]:
    """The board as the ladder's system computes it from the ratings: best value, then the
    player who came first."""
    system = ratings.system_from_json(ladder.config)
    lines = []
    for row in Rating.objects.filter(ladder=ladder).select_related("player"):
        rating = ratings.Rating(mu=row.mu, sigma=row.sigma, games=row.games)
        lines.append((row.player.name, system.leaderboard_value(rating), system.is_provisional(rating), row.player_id))
    return [line[:3] for line in sorted(lines, key=lambda line: (-line[1], line[3]))]


@pytest.mark.parametrize("system", ["elo", "openskill"])
def test_every_page_of_the_board_is_the_systems_board(system, django_assert_max_num_queries):
    ladder = ladder_create(slug=f"board-{system}", name="Board", game="sette_e_mezzo", system=system)
    tournament = make_tournament(bot_players(7), format="swiss", format_config={"rounds": 3}, table_size=3,
                                 ladder_slug="")
    tournament.ladder = ladder
    tournament.save(update_fields=["ladder"])
    play_out(tournament)
    expected = computed(ladder)
    assert len(expected) == 7
    client, seen = APIClient(), []
    for offset in range(0, 7, 3):
        with django_assert_max_num_queries(6):  # the count and the page, whatever the ladder's size
            page = client.get(f"/api/ladders/{ladder.pk}/leaderboard/", {"limit": 3, "offset": offset}).json()
        assert page["count"] == 7
        seen += page["results"]
    assert [line["rank"] for line in seen] == list(range(1, 8))
    assert [(line["player_name"], line["rating"], line["provisional"]) for line in seen] == expected


def test_the_migration_fills_the_values_of_ratings_already_there():
    ladder = ladder_create(slug="old", name="Old", game="stoppa", system="openskill")
    tournament = make_tournament(bot_players(4), game="stoppa", format="round_robin", format_config={},
                                 options={"hands": 1}, ladder_slug="")
    tournament.ladder = ladder
    tournament.save(update_fields=["ladder"])
    play_out(tournament)
    expected = computed(ladder)
    Rating.objects.update(value=0.0, provisional=False)  # as rows written before the field existed
    migration = importlib.import_module("tournaments.migrations.0007_leaderboard_value")
    migration.fill_board(apps, None)
    board = APIClient().get(f"/api/ladders/{ladder.pk}/leaderboard/").json()["results"]
    assert [(line["player_name"], line["rating"], line["provisional"]) for line in board] == expected
