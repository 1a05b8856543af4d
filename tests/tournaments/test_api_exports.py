"""Exports (docs/api.md, "Exports"): a tournament's matches and a ladder's ledger, streamed as
ndjson or CSV, page by page, showing exactly what the API's lists show."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest
from django.test import AsyncClient
from rest_framework.test import APIClient

from tournaments.api import exports
from tournaments.models import Match, RatingChange

from .helpers import bot_players, fields, make_tournament, play_out

pytestmark = pytest.mark.django_db


def body(answer) -> str:
    return b"".join(answer.streaming_content).decode()


def listed(client: APIClient, url: str) -> list[dict]:
    """Every line of a list, page after page by its next links."""
    lines, page = [], client.get(url, {"limit": 500}).json()
    while True:
        lines += page["results"]
        if not page["next"]:
            return lines
        page = client.get(page["next"]).json()


@pytest.fixture
def played():
    tournament = make_tournament(bot_players(5), format="round_robin", format_config={}, table_size=4)
    play_out(tournament)
    return tournament


def test_a_tournaments_matches_as_ndjson_are_its_list_of_matches_page_after_page(played, monkeypatch):
    monkeypatch.setattr(exports, "PAGE_ROWS", 1)  # a page a match
    visitor = APIClient()
    answer = visitor.get(f"/api/tournaments/{played.pk}/export/")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/x-ndjson"
    assert answer["Content-Disposition"] == 'attachment; filename="club-night-matches.ndjson"'
    lines = [json.loads(line) for line in body(answer).splitlines()]
    assert lines == sorted(listed(visitor, f"/api/matches/?tournament={played.pk}"), key=lambda m: m["id"])
    assert len(lines) == Match.objects.filter(round__tournament=played).count() > 1


def test_as_csv_a_row_per_seat(played):
    answer = APIClient().get(f"/api/tournaments/{played.pk}/export/", {"as": "csv"})
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body(answer))))
    matches = Match.objects.filter(round__tournament=played).prefetch_related("seats__player")
    assert len(rows) == sum(m.seats.count() for m in matches)
    first = matches.order_by("pk").first()
    seat = first.seats.order_by("position").first()
    assert rows[0]["match"] == str(first.pk) and rows[0]["player_name"] == seat.player.name
    assert rows[0]["score"] == str(seat.score) and rows[0]["place"] == str(seat.place)


def test_what_the_list_hides_the_export_hides():
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="unplayed", ladder_slug="")
    from tournaments.services.tournaments import tournament_start
    tournament_start(tournament=tournament)
    lines = [json.loads(line) for line in body(APIClient().get(f"/api/tournaments/{tournament.pk}/export/")).splitlines()]
    assert lines and all(m["seed"] is None for m in lines)  # not finished: no seed
    assert lines == listed(APIClient(), f"/api/matches/?tournament={tournament.pk}")


def test_a_ladders_ledger_is_every_rating_change_in_order(played):
    ladder = played.ladder
    answer = APIClient().get(f"/api/ladders/{ladder.pk}/export/")
    assert answer.status_code == 200
    lines = [json.loads(line) for line in body(answer).splitlines()]
    assert len(lines) == RatingChange.objects.filter(ladder=ladder).count() > 0
    player = lines[0]["player"]
    history = listed(APIClient(), f"/api/ladders/{ladder.pk}/history/{player}/")
    assert [line for line in lines if line["player"] == player] == history
    table = list(csv.reader(io.StringIO(body(APIClient().get(f"/api/ladders/{ladder.pk}/export/", {"as": "csv"})))))
    assert table[0][:3] == ["sequence", "match", "tournament"] and len(table) == len(lines) + 1


def test_an_unknown_kind_is_refused_naming_the_parameter(played):
    answer = APIClient().get(f"/api/tournaments/{played.pk}/export/", {"as": "xml"}, HTTP_ACCEPT="text/csv")
    assert answer.status_code == 400 and answer["Content-Type"] == "application/json"
    assert "as" in fields(answer)


def test_a_cell_a_spreadsheet_would_run_is_written_as_text():
    assert exports._cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert exports._cell("@SUM(A1)") == "'@SUM(A1)"
    assert exports._cell(-3) == "-3" and exports._cell("-3.5") == "-3.5"  # numbers stay numbers
    assert exports._cell(None) == "" and exports._cell([1, 2]) == "[1, 2]"


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_export_is_read_page_by_page_on_the_event_loop(monkeypatch):
    tournament = make_tournament(bot_players(5), format="round_robin", format_config={}, slug="async")
    play_out(tournament)
    count = Match.objects.filter(round__tournament=tournament).count()
    monkeypatch.setattr(exports, "PAGE_ROWS", 1)

    async def scenario():
        answer = await AsyncClient().get(f"/api/tournaments/{tournament.pk}/export/")
        assert answer.status_code == 200 and answer.is_async
        return [chunk async for chunk in answer.streaming_content]

    chunks = asyncio.run(scenario())
    assert len(b"".join(chunks).decode().splitlines()) == count > 1
    assert len(chunks) == count  # a chunk a page, sent as read


def test_a_replay_is_versioned_and_its_record_plays_the_match_again(played):
    import engine

    match = Match.objects.filter(round__tournament=played).order_by("pk").first()
    replay = APIClient().get(f"/api/matches/{match.pk}/replay/").json()
    assert replay["format"] == 1 and replay["match"] == match.pk
    again = engine.load(replay["record"])
    assert again.is_over() and list(again.scores()) == [s.score for s in match.seats.order_by("position")]
    assert json.loads(json.dumps(again.log)) == replay["log"]
