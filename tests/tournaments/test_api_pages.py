"""How lists come in pages (docs/api.md, "Lists"): a leaderboard by cursor or offset with true
ranks, a history and the matches by cursor, every bad limit, offset or cursor a 400 naming it;
and the reads kept under their state's key answer again without their queries, and never stale."""

from __future__ import annotations

import base64
import json

import pytest
from rest_framework.test import APIClient

from tournaments.api import serializers as s
from tournaments.models import Entry, Match, Rating, RatingChange
from tournaments.services.ladders import ladder_create
from tournaments.services.players import player_create
from tournaments.services.tournaments import entry_withdraw, tournament_start

from .helpers import bot_players, fields, make_tournament, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.services]  # and on PostgreSQL: its plain SQL

# Ties on purpose: lines of equal value are ordered by player, and a page may end inside a tie.
VALUES = [1700.0, 1650.5, 1650.5, 1650.5, 1600.0, 1550.0, 1550.0, 1500.25, 1490.0, 1400.0, 1399.5]


@pytest.fixture
def board():
    """A ladder whose board is VALUES, given in a shuffled order of players."""
    ladder = ladder_create(slug="pages", name="Pages", game="stoppa", system="elo")
    players = [player_create(name=f"p{i:02}", kind="bot", bot_kind="builtin", bot_config={"bot": "random"})
               for i in range(len(VALUES))]
    order = [3, 0, 7, 1, 10, 5, 2, 9, 4, 8, 6]  # the player of each value
    Rating.objects.bulk_create(Rating(ladder=ladder, player=players[p], mu=v, value=v, games=5, provisional=False)
                               for p, v in zip(order, VALUES))
    return ladder


def expected(ladder) -> list[tuple[int, int, float]]:
    """(rank, player, value) of every line, computed here from the rows."""
    rows = sorted(Rating.objects.filter(ladder=ladder).values_list("value", "player_id"), key=lambda r: (-r[0], r[1]))
    return [(rank, player, value) for rank, (value, player) in enumerate(rows, start=1)]


def lines(page: dict) -> list[tuple[int, int, float]]:
    return [(line["rank"], line["player"], line["rating"]) for line in page["results"]]


@pytest.mark.parametrize("limit", [1, 3, 4, 11, 500])
def test_next_links_read_the_whole_board_once_in_order_and_previous_links_read_it_back(board, limit):
    client = APIClient()
    url = f"/api/ladders/{board.pk}/leaderboard/"
    pages = [client.get(url, {"limit": limit}).json()]
    while pages[-1]["next"]:
        assert "cursor=" in pages[-1]["next"] and "offset" not in pages[-1]["next"]
        pages.append(client.get(pages[-1]["next"]).json())
    assert [line for page in pages for line in lines(page)] == expected(board)
    assert all(page["count"] == len(VALUES) for page in pages)
    assert pages[0]["previous"] is None
    back = [pages[-1]]
    while back[-1]["previous"]:
        back.append(client.get(back[-1]["previous"]).json())
    assert [lines(page) for page in back] == [lines(page) for page in reversed(pages)]


def test_an_offset_is_a_page_number_and_agrees_with_the_cursors(board):
    client = APIClient()
    page = client.get(f"/api/ladders/{board.pk}/leaderboard/", {"limit": 4, "offset": 5}).json()
    assert lines(page) == expected(board)[5:9]
    assert lines(client.get(page["next"]).json()) == expected(board)[9:]
    assert lines(client.get(page["previous"]).json()) == expected(board)[1:5]
    assert client.get(f"/api/ladders/{board.pk}/leaderboard/", {"offset": 11}).json()["results"] == []


@pytest.mark.parametrize("offset, limit", [(0, 11), (3, 1), (3, 4), (4, 4), (5, 6), (7, 3), (1, 500), (10, 5)])
def test_a_page_at_any_offset_is_the_boards_lines_whatever_blocks_it_spans(board, monkeypatch, offset, limit):
    from tournaments.api import boards

    monkeypatch.setattr(boards, "BLOCK", 4)  # the board's 11 lines in blocks of 4, 4 and 3
    page = APIClient().get(f"/api/ladders/{board.pk}/leaderboard/", {"limit": limit, "offset": offset}).json()
    assert lines(page) == expected(board)[offset:offset + limit]


def test_a_cursor_made_before_ratings_changed_shows_the_ranks_of_the_board_as_it_is_now(board):
    client = APIClient()
    first = client.get(f"/api/ladders/{board.pk}/leaderboard/", {"limit": 3}).json()
    # Ratings applied meanwhile: a player from the bottom climbs above the page's last line.
    climber = expected(board)[-1][1]
    Rating.objects.filter(ladder=board, player_id=climber).update(value=1680.0, mu=1680.0)
    board.applied += 2
    board.save(update_fields=["applied"])
    following = client.get(first["next"]).json()
    now = expected(board)
    last_seen = next(i for i, line in enumerate(now) if line[1] == first["results"][-1]["player"])
    assert lines(following) == now[last_seen + 1:last_seen + 4]
    assert following["results"][0]["rank"] == now[last_seen][0] + 1


def test_a_page_is_answered_again_without_reading_the_board_until_ratings_are_applied(
        board, django_assert_num_queries):
    client = APIClient()
    url = f"/api/ladders/{board.pk}/leaderboard/?limit=5"
    before = client.get(url).json()
    with django_assert_num_queries(1):  # the ladder's row: its version
        assert client.get(url).json() == before
    Rating.objects.filter(ladder=board, player_id=before["results"][0]["player"]).update(value=1800.0, mu=1800.0)
    board.applied += 1
    board.save(update_fields=["applied"])
    assert client.get(url).json()["results"][0]["rating"] == 1800.0


@pytest.mark.parametrize("query, field", [
    ({"limit": 0}, "limit"), ({"limit": 501}, "limit"), ({"limit": "ten"}, "limit"), ({"limit": "-1"}, "limit"),
    ({"offset": "-1"}, "offset"), ({"offset": "1e3"}, "offset"), ({"offset": 10_000_001}, "offset"),
    ({"cursor": "not-a-cursor"}, "cursor"), ({"cursor": "x" * 300}, "cursor"),
    ({"cursor": base64.urlsafe_b64encode(b'[1e999,1,1,0,1]').decode()}, "cursor"),
    ({"cursor": base64.urlsafe_b64encode(b'[1500.0,-4,1,0,1]').decode()}, "cursor"),
    ({"cursor": base64.urlsafe_b64encode(b'{"v":1}').decode()}, "cursor"),
])
def test_a_bad_limit_offset_or_cursor_is_a_400_naming_it(board, query, field):
    answer = APIClient().get(f"/api/ladders/{board.pk}/leaderboard/", query)
    assert answer.status_code == 400 and field in fields(answer)


def test_a_cursor_and_an_offset_together_are_refused(board):
    page = APIClient().get(f"/api/ladders/{board.pk}/leaderboard/", {"limit": 2}).json()
    answer = APIClient().get(page["next"] + "&offset=3")
    assert answer.status_code == 400 and "not both" in fields(answer)["cursor"][0]


@pytest.mark.parametrize("url", ["/api/players/", "/api/tournaments/", "/api/matches/"])
def test_every_list_refuses_a_page_over_500(url):
    answer = APIClient().get(url, {"limit": 501})
    assert answer.status_code == 400 and "500" in fields(answer)["limit"][0]


@pytest.fixture
def rated():
    tournament = make_tournament(bot_players(6), format="swiss", format_config={"rounds": 3}, table_size=3)
    play_out(tournament)
    return tournament


def test_a_history_by_cursor_is_the_players_ledger_in_order_as_the_serializer_shows_it(rated):
    ladder = rated.ladder
    player = RatingChange.objects.filter(ladder=ladder).values_list("player_id", flat=True).first()
    client = APIClient()
    page = client.get(f"/api/ladders/{ladder.pk}/history/{player}/", {"limit": 1}).json()
    seen = page["results"]
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += page["results"]
    ledger = RatingChange.objects.filter(ladder=ladder, player_id=player).select_related("match__round") \
        .order_by("sequence")
    assert len(seen) == 3 and seen == json.loads(json.dumps(s.RatingChangeSerializer(ledger, many=True).data))


def test_a_historys_previous_links_read_it_back_page_by_page(rated):
    ladder = rated.ladder
    player = RatingChange.objects.filter(ladder=ladder).values_list("player_id", flat=True).first()
    client = APIClient()
    pages = [client.get(f"/api/ladders/{ladder.pk}/history/{player}/", {"limit": 2}).json()]
    while pages[-1]["next"]:
        pages.append(client.get(pages[-1]["next"]).json())
    back = [pages[-1]]
    while back[-1]["previous"]:
        back.append(client.get(back[-1]["previous"]).json())
    sequences = [[line["sequence"] for line in page["results"]] for page in pages]
    assert pages[0]["previous"] is None and len(pages) == 2 and sum(map(len, sequences)) == 3
    assert [[line["sequence"] for line in page["results"]] for page in back] == sequences[::-1]


@pytest.mark.parametrize("cursor", ["not-a-cursor", "x" * 300, base64.urlsafe_b64encode(b"[-1,1]").decode(),
                                    base64.urlsafe_b64encode(b"[1.5,1]").decode(),
                                    base64.urlsafe_b64encode(b"[3,2]").decode()])
def test_a_bad_history_cursor_is_a_400_naming_it(rated, cursor):
    answer = APIClient().get(f"/api/ladders/{rated.ladder_id}/history/1/", {"cursor": cursor})
    assert answer.status_code == 400 and "cursor" in fields(answer)


def test_the_board_and_a_history_of_no_ladder_are_a_404_naming_it(rated):
    client = APIClient()
    for pk in ("999999", "9" * 30, "abc", "²", "١٢"):  # "²" and Arabic-Indic digits: isdigit() holds
        for url in (f"/api/ladders/{pk}/leaderboard/", f"/api/ladders/{pk}/history/1/"):
            answer = client.get(url)
            assert answer.status_code == 404, url
            assert answer.json()["error"]["code"] == "not_found" and pk in answer.json()["error"]["message"], url


@pytest.mark.parametrize("path", ["leaderboard/?limit=2", "leaderboard/?offset=3", "history/{player}/"])
def test_a_board_page_or_history_one_process_built_is_taken_by_another_from_the_shared_cache(
        rated, path, django_assert_max_num_queries):
    from django.core.cache import caches

    player = RatingChange.objects.filter(ladder=rated.ladder).values_list("player_id", flat=True).first()
    url = f"/api/ladders/{rated.ladder_id}/" + path.format(player=player)
    client = APIClient()
    before = client.get(url).content
    caches["local"].clear()  # another process: its own memory holds nothing
    with django_assert_max_num_queries(1):  # the ladder's version only: nothing built again
        assert client.get(url).content == before


def test_a_history_of_nobody_is_404_and_of_an_unrated_player_is_empty(rated):
    client = APIClient()
    assert client.get(f"/api/ladders/{rated.ladder_id}/history/999999/").status_code == 404
    assert client.get(f"/api/ladders/{rated.ladder_id}/history/{'9' * 30}/").status_code == 404
    unrated = player_create(name="newcomer", kind="bot", bot_kind="builtin", bot_config={"bot": "random"})
    assert client.get(f"/api/ladders/{rated.ladder_id}/history/{unrated.pk}/").json()["results"] == []


def test_matches_by_cursor_neither_repeat_nor_skip_when_matches_are_made_between_pages(rated):
    client = APIClient()
    page = client.get("/api/matches/", {"limit": 4}).json()
    seen = [m["id"] for m in page["results"]]
    later = make_tournament(bot_players(4, prefix="late"), slug="later", format="round_robin", format_config={})
    play_out(later)  # new matches while the reader is between pages
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [m["id"] for m in page["results"]]
    assert seen == sorted(seen) == list(Match.objects.order_by("id").values_list("id", flat=True))


def test_a_tournaments_audit_pages_by_cursor(rated):
    client = APIClient()
    page = client.get(f"/api/tournaments/{rated.pk}/audit/", {"limit": 2}).json()
    assert "cursor=" in page["next"] and "count" not in page
    assert client.get(f"/api/tournaments/{rated.pk}/audit/", {"cursor": "nonsense"}).status_code == 400


def test_standings_are_answered_again_without_computing_them_and_change_with_an_entry(
        django_assert_max_num_queries):
    tournament = make_tournament(bot_players(5), format="swiss", format_config={"rounds": 2}, slug="kept",
                                 table_size=4)
    tournament_start(tournament=tournament)
    client = APIClient()
    url = f"/api/tournaments/{tournament.pk}/standings/"
    before = client.get(url).json()
    with django_assert_max_num_queries(1):  # the key of its state: one small query, nothing computed
        assert client.get(url).json() == before
    gone = before["results"][-1]["player"]
    entry_withdraw(entry=Entry.objects.get(tournament=tournament, player_id=gone))
    after = {line["player"]: line for line in client.get(url).json()["results"]}
    assert after[gone]["withdrawn"] is True and not any(line["withdrawn"] for line in before["results"])


def test_standings_built_by_one_process_are_taken_by_another_from_the_shared_cache(django_assert_max_num_queries):
    from django.core.cache import caches

    tournament = make_tournament(bot_players(5), format="swiss", format_config={"rounds": 2}, slug="shared",
                                 table_size=4)
    tournament_start(tournament=tournament)
    client = APIClient()
    url = f"/api/tournaments/{tournament.pk}/standings/"
    before = client.get(url).content
    caches["local"].clear()  # another process: its own memory holds nothing
    with django_assert_max_num_queries(1):  # the state's key only: nothing computed again
        assert client.get(url).content == before
    caches["local"].clear()
    caches["default"].clear()  # nowhere kept: computed again, the same
    assert client.get(url).content == before


@pytest.mark.parametrize("url, field", [
    ("/api/players/", "name"), ("/api/players/", "created_at"), ("/api/tournaments/", "name"),
    ("/api/tournaments/", "created_at"),
])
def test_the_top_level_lists_order_by_a_field_either_way(url, field):
    for slug in ("b-night", "a-night", "c-night"):
        make_tournament(bot_players(4, prefix=slug), slug=slug)
    client = APIClient()
    for sign, reverse in (("", False), ("-", True)):
        got = [line[field] for line in client.get(url, {"ordering": f"{sign}{field},id", "limit": 500}).json()["results"]]
        assert len(set(got)) > 2 and got == sorted(got, reverse=reverse)


def test_ordering_by_a_field_a_list_does_not_take_is_a_400_naming_those_it_does(rated):
    answer = APIClient().get("/api/players/", {"ordering": "bot_config"})
    assert answer.status_code == 400 and "name, created_at, id" in fields(answer)["ordering"][0]


def test_a_kept_answer_is_sent_as_json_and_the_browsable_api_still_renders_it(board):
    client = APIClient()
    url = f"/api/ladders/{board.pk}/leaderboard/?limit=3"
    first, again = client.get(url), client.get(url)
    assert again["Content-Type"] == first["Content-Type"] == "application/json"
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert "Accept" in again["Vary"]
    html = client.get(url, HTTP_ACCEPT="text/html")
    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")
    assert client.get(url, HTTP_ACCEPT="application/json; indent=2").content.startswith(b"{\n")


def test_the_standings_of_no_tournament_are_a_404():
    client = APIClient()
    for pk in ("999999", "9" * 30):
        answer = client.get(f"/api/tournaments/{pk}/standings/")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
