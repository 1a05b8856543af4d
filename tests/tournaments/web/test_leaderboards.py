"""A ladder's leaderboard page: the board in rank order, 50 lines a page, the trend of each
line, search by name keeping each player's rank on the whole board; a page of a ladder of
10,000 players read in a few indexed queries, none of them loading the ladder."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments import selectors
from tournaments.models import Match, Player, Rating, RatingChange, RatingLadder
from tournaments.services.ladders import ladder_create
from tournaments.services.tournaments import tournament_start
from tournaments.web import reads
from tournaments.web.templatetags.web import signed

from ..helpers import bot_players, make_tournament, play_out
from .pages import body, ids

pytestmark = [pytest.mark.django_db, pytest.mark.services]  # the rank and trend queries, on PostgreSQL too


def ranks(page: str) -> list[int]:
    return [int(rank) for rank in re.findall(r'class="num rank">(\d+)<', page)]


def trends(page: str) -> list[str]:
    return re.findall(r'class="num trend-cell">(?:<span[^>]*>)?([^<]+)<', page)


@pytest.fixture
def seasoned(db) -> RatingLadder:
    """Six bots that played seven rated games each: more than a trend's five."""
    tournament = make_tournament(bot_players(6, prefix="seasoned"), slug="long-swiss", table_size=3,
                                 format_config={"rounds": 7}, options={"hands": 1}, ladder_slug="seasoned")
    play_out(tournament)
    return tournament.ladder


def crowd(size: int, *, slug: str = "crowd") -> RatingLadder:
    """A ladder of ``size`` players p-00000, p-00001 ... rated best first, two by two level
    (the name then decides), each with one rated game (+3 in it)."""
    ladder = ladder_create(slug=slug, name="Crowd", game="sette_e_mezzo")
    players = Player.objects.bulk_create(
        Player(name=f"p-{i:05d}", kind=Player.Kind.BOT, bot_kind=Player.BotKind.BUILTIN,
               bot_config={"bot": "random"}) for i in range(size))
    Rating.objects.bulk_create(
        Rating(ladder=ladder, player=p, mu=3000.0 - i // 2, value=3000.0 - i // 2, games=1, provisional=i % 3 == 0)
        for i, p in enumerate(players))
    tournament = make_tournament(bot_players(3, prefix=f"{slug}-table"), slug=f"{slug}-event", table_size=3,
                                 ladder_slug=None)
    tournament_start(tournament=tournament)
    match = Match.objects.filter(round__tournament=tournament).first()
    RatingChange.objects.bulk_create(
        RatingChange(ladder=ladder, match=match, player=p, sequence=i + 1, before_mu=2997.0 - i // 2,
                     after_mu=3000.0 - i // 2, games=1, expected_place=1.5, actual_place=1)
        for i, p in enumerate(players))
    return ladder


def test_the_board_lists_every_player_in_rank_order(client, seasoned):
    page = body(client.get(f"/ladders/{seasoned.pk}/"))
    lines = list(selectors.ladder_leaderboard(seasoned))
    assert ids(page, "players") == [line.player.pk for line in lines]
    assert ranks(page) == [1, 2, 3, 4, 5, 6]


def test_the_trend_is_the_change_in_rating_over_each_players_last_five_games(client, seasoned):
    lines = list(selectors.ladder_leaderboard(seasoned))
    expected = {}
    for line in lines:
        history = list(selectors.rating_history(seasoned, line.player))
        assert len(history) == line.games == 7
        expected[line.player.pk] = line.rating - history[-5].before_mu  # Elo: the rating is the value
    found = reads.leaderboard_trends(seasoned, lines)
    assert {player: trend.change for player, trend in found.items()} == pytest.approx(expected)
    assert {trend.games for trend in found.values()} == {5}
    page = body(client.get(f"/ladders/{seasoned.pk}/"))
    assert trends(page) == [signed(expected[line.player.pk], seasoned) for line in lines]


def test_a_player_with_fewer_games_than_the_trend_counts_them_all(client, db):
    ladder = crowd(3)
    lines = list(selectors.ladder_leaderboard(ladder))
    found = reads.leaderboard_trends(ladder, lines)
    assert [(found[line.player.pk].change, found[line.player.pk].games) for line in lines] == [(3.0, 1)] * 3
    assert trends(body(client.get(f"/ladders/{ladder.pk}/"))) == ["+3"] * 3


def test_the_provisional_ratings_are_marked(client, db):
    ladder = crowd(6)
    page = body(client.get(f"/ladders/{ladder.pk}/"))
    rows = page.split('class="num rank">')[1:]
    marked = ["(provisional)" in row.split("</tr>")[0] for row in rows]
    assert marked == [True, False, False, True, False, False]


def test_the_board_is_read_fifty_lines_a_page_with_links_to_the_others(client, db):
    ladder = crowd(120)
    first = body(client.get(f"/ladders/{ladder.pk}/"))
    assert ranks(first) == list(range(1, 51))
    assert 'href="?page=2"' in first and 'href="?page=3"' in first
    assert ranks(body(client.get(f"/ladders/{ladder.pk}/", {"page": 2}))) == list(range(51, 101))
    assert ranks(body(client.get(f"/ladders/{ladder.pk}/", {"page": 3}))) == list(range(101, 121))
    assert ranks(body(client.get(f"/ladders/{ladder.pk}/", {"page": 99}))) == list(range(101, 121))  # the last
    assert ranks(body(client.get(f"/ladders/{ladder.pk}/", {"page": "x"}))) == list(range(1, 51))


def test_search_narrows_the_board_to_matching_names_and_keeps_their_ranks(client, db):
    ladder = crowd(120)
    page = body(client.get(f"/ladders/{ladder.pk}/", {"q": "p-0004"}))
    names = [Player.objects.get(pk=pk).name for pk in ids(page, "players")]
    assert names == [f"p-{i:05d}" for i in range(40, 50)]
    assert ranks(page) == list(range(41, 51))  # their places on the whole board, ties to the player who came first
    assert "10 players match “p-0004”." in page


def test_search_results_are_paged_and_their_links_keep_the_search(client, db):
    ladder = crowd(120)
    page = body(client.get(f"/ladders/{ladder.pk}/", {"q": "p-000"}))  # p-00000 ... p-00099
    assert ranks(page) == list(range(1, 51))
    assert 'href="?q=p-000&amp;page=2"' in page
    assert ranks(body(client.get(f"/ladders/{ladder.pk}/", {"q": "p-000", "page": 2}))) == list(range(51, 101))


def test_a_search_that_finds_nobody_says_so(client, seasoned):
    page = body(client.get(f"/ladders/{seasoned.pk}/", {"q": "nobody-by-that-name"}))
    assert ranks(page) == [] and "Nobody on this ladder has that name." in page


def test_a_page_of_a_ten_thousand_player_ladder_is_a_few_queries_none_reading_the_whole_ladder(client, db):
    ladder = crowd(10_000, slug="big")
    for params, first in (({"page": 150}, 7451), ({"q": "p-0745"}, 7451)):
        with CaptureQueriesContext(connection) as queries:
            page = body(client.get(f"/ladders/{ladder.pk}/", params))
        assert ranks(page)[0] == first
        assert len(queries) <= 6, [q["sql"] for q in queries]
        for query in queries:
            sql = query["sql"].upper()
            if '"TOURNAMENTS_RATING"' in sql and "COUNT(" not in sql.split("FROM")[0]:
                assert "LIMIT" in sql, sql  # a page of lines, never the ladder
        changes = [q["sql"] for q in queries if "TOURNAMENTS_RATINGCHANGE" in q["sql"].upper()]
        assert len(changes) == 1  # the trend: one query for the page's players
