"""The REST API: what an organiser, a bot author and a visitor do through it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments.models import Match, Tournament

from .helpers import bot_players, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.services]


@pytest.fixture
def organiser():
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("organiser"))
    return client


@pytest.fixture
def visitor():
    return APIClient()


def create_tournament(client, **changes):
    body = {"name": "Saturday Stoppa", "slug": "saturday", "game": "stoppa", "table_size": 4,
            "format": "swiss", "format_config": {"rounds": 2}, "options": {"hands": 1}, "seed": 3, **changes}
    return client.post("/api/tournaments/", body, format="json")


def test_visitors_browse_but_cannot_change_anything(visitor):
    assert visitor.get("/api/tournaments/").status_code == 200
    assert visitor.get("/api/players/").status_code == 200
    answer = visitor.post("/api/players/", {"name": "x", "kind": "person"}, format="json")
    assert answer.status_code in (401, 403)


def test_a_bad_tournament_is_refused_naming_the_field(organiser):
    answer = create_tournament(organiser, table_size=9)
    assert answer.status_code == 400
    assert "3 to 6" in answer.json()["table_size"][0]
    answer = create_tournament(organiser, options={"ante": -1})
    assert answer.status_code == 400
    assert "ante" in answer.json()["options"][0]


def test_a_duplicate_player_name_is_refused(organiser):
    body = {"name": "ada", "kind": "bot", "bot_kind": "builtin", "bot_config": {"bot": "random"}}
    assert organiser.post("/api/players/", body, format="json").status_code == 201
    answer = organiser.post("/api/players/", body, format="json")
    assert answer.status_code == 400
    assert "already exists" in answer.json()["name"][0]


def test_an_organiser_runs_a_bot_tournament_and_everyone_reads_the_results(organiser, visitor):
    answer = create_tournament(organiser)
    assert answer.status_code == 201, answer.json()
    tid = answer.json()["id"]
    for player in bot_players(8):
        assert organiser.post(f"/api/tournaments/{tid}/entries/", {"player": player.pk}, format="json").status_code == 201
    again = organiser.post(f"/api/tournaments/{tid}/entries/", {"player": player.pk}, format="json")
    assert again.status_code == 400 and "already entered" in again.json()["player"][0]

    started = organiser.post(f"/api/tournaments/{tid}/start/")
    assert started.json()["status"] == "running"
    play_out(Tournament.objects.get(pk=tid))

    assert visitor.get(f"/api/tournaments/{tid}/").json()["status"] == "finished"
    standings = visitor.get(f"/api/tournaments/{tid}/standings/").json()["results"]
    assert len(standings) == 8
    assert standings[0]["rank"] == 1 and standings[0]["explanation"]
    rounds = visitor.get(f"/api/tournaments/{tid}/rounds/").json()["results"]
    assert [r["number"] for r in rounds] == [1, 2]
    assert all(len(r["matches"]) == 2 for r in rounds)

    match_id = rounds[0]["matches"][0]["id"]
    replay = visitor.get(f"/api/matches/{match_id}/replay/").json()
    assert replay["record"]["game"] == "stoppa" and replay["log"]

    ladder = Tournament.objects.get(pk=tid).ladder
    assert ladder is None  # none was asked for
    audit = visitor.get(f"/api/tournaments/{tid}/audit/").json()["results"]
    assert [a["action"] for a in audit][:2] == ["created", "entered"]


def test_the_leaderboard_and_a_players_history(organiser, visitor):
    ladder = organiser.post("/api/ladders/", {"slug": "stoppa-open", "name": "Open", "game": "stoppa", "system": "elo"},
                            format="json").json()
    tid = create_tournament(organiser, ladder=ladder["id"]).json()["id"]
    players = bot_players(4)
    for player in players:
        organiser.post(f"/api/tournaments/{tid}/entries/", {"player": player.pk}, format="json")
    organiser.post(f"/api/tournaments/{tid}/start/")
    play_out(Tournament.objects.get(pk=tid))
    board = visitor.get(f"/api/ladders/{ladder['id']}/leaderboard/").json()["results"]
    assert sorted(row["player"] for row in board) == sorted(p.pk for p in players)
    assert board[0]["rating"] >= board[-1]["rating"]
    history = visitor.get(f"/api/ladders/{ladder['id']}/history/{players[0].pk}/").json()["results"]
    assert len(history) == 2
    assert history[1]["before_mu"] == history[0]["after_mu"]


def test_reported_results_through_the_api(organiser):
    people = [organiser.post("/api/players/", {"name": f"p{i}", "kind": "person"}, format="json").json() for i in range(4)]
    tid = create_tournament(organiser, format="round_robin", format_config={}).json()["id"]
    for p in people:
        organiser.post(f"/api/tournaments/{tid}/entries/", {"player": p["id"]}, format="json")
    organiser.post(f"/api/tournaments/{tid}/start/")
    match = Match.objects.get(round__tournament_id=tid)
    url = f"/api/matches/{match.pk}/submissions/"
    first = organiser.post(url, {"scores": [5, 0, 0, -5], "places": [1, 2, 2, 4]}, format="json")
    assert first.status_code == 201
    same = organiser.post(url, {"scores": [5, 0, 0, -5], "places": [1, 2, 2, 4]}, format="json")
    assert same.status_code == 200 and same.json()["id"] == first.json()["id"]
    other = organiser.post(url, {"scores": [-5, 0, 0, 5], "places": [4, 2, 2, 1]}, format="json")
    assert other.status_code == 409 and "awaits confirmation" in other.json()["scores"][0]
    bad = organiser.post(url, {"scores": [1, 2], "places": [1, 2]}, format="json")
    assert bad.status_code == 400 and "4 integers" in bad.json()["scores"][0]

    referee = APIClient()
    referee.force_authenticate(get_user_model().objects.create_user("referee"))
    assert referee.post(f"/api/submissions/{first.json()['id']}/confirm/").status_code == 403  # a stranger
    assert organiser.post(f"/api/tournaments/{tid}/organisers/", {"username": "referee"}, format="json").status_code == 201
    confirmed = referee.post(f"/api/submissions/{first.json()['id']}/confirm/")
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"
    assert referee.get(f"/api/matches/{match.pk}/").json()["status"] == "finished"


def test_the_openapi_schema_describes_the_api(visitor):
    schema = visitor.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/tournaments/{id}/standings/" in schema.content


def test_a_league_through_the_api(organiser, visitor):
    answer = organiser.post("/api/leagues/", {
        "name": "Lega", "slug": "lega", "game": "sette_e_mezzo", "table_size": 3, "division_size": 5,
        "round_interval": "7 00:00:00", "promote": 1, "relegate": 1,
    }, format="json")
    assert answer.status_code == 201, answer.json()
    league = answer.json()["id"]
    for player in bot_players(6):
        assert organiser.post(f"/api/leagues/{league}/join/", {"player": player.pk}, format="json").status_code == 200
    season = organiser.post(f"/api/leagues/{league}/seasons/")
    assert season.status_code == 201 and len(season.json()["divisions"]) == 2  # 6 players: two divisions of 3
    again = organiser.post(f"/api/leagues/{league}/seasons/")
    assert again.status_code == 409 and "still being played" in again.json()["season"][0]
    assert visitor.get(f"/api/leagues/{league}/seasons/").json()["count"] == 1


def test_the_admin_lists_tournaments_and_matches(admin_client):
    for url in ("/admin/tournaments/tournament/", "/admin/tournaments/match/", "/admin/tournaments/ratingchange/"):
        assert admin_client.get(url).status_code == 200


@pytest.mark.parametrize("url", ["http://127.0.0.1:9000/bot", "http://localhost/bot", "http://[::1]/bot",
                                 "http://169.254.169.254/latest", "http://10.1.2.3/bot"])
def test_an_http_bot_on_the_services_own_network_is_refused(organiser, url):
    body = {"name": "sneaky", "kind": "bot", "bot_kind": "http", "bot_config": {"url": url}}
    answer = organiser.post("/api/players/", body, format="json")
    assert answer.status_code == 400
    assert "not a public address" in answer.json()["bot_config"][0]


def test_listed_hosts_may_be_private_and_other_bots_are_called_at_public_addresses_only(organiser, settings):
    from tournaments.models import Player
    from tournaments.services.players import player_bot

    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.club.lan", "127.0.0.1"]
    for name, url in [("lan", "http://bots.club.lan/play"), ("loop", "http://127.0.0.1:9000/bot"),
                      ("abroad", "https://bots.example.org/play")]:
        body = {"name": name, "kind": "bot", "bot_kind": "http", "bot_config": {"url": url}}
        assert organiser.post("/api/players/", body, format="json").status_code == 201
    public_only = {p.name: player_bot(p, game="stoppa", seed=1).public_only for p in Player.objects.filter(bot_kind="http")}
    assert public_only == {"lan": False, "loop": False, "abroad": True}


def test_an_organiser_retries_a_match_that_was_given_up_but_not_a_finished_one(organiser, settings):
    from datetime import timedelta

    from django.utils import timezone

    from tournaments.services.dispatch import held
    from tournaments.services.matches import match_claim

    settings.MATCH_MAX_ATTEMPTS = 1
    tournament = create_tournament(organiser).json()
    for player in bot_players(4):
        organiser.post(f"/api/tournaments/{tournament['id']}/entries/", {"player": player.pk}, format="json")
    with held():
        assert organiser.post(f"/api/tournaments/{tournament['id']}/start/").status_code == 200
    match = Match.objects.get()
    match_claim(match_id=match.pk, owner="dead")
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    with held() as sent:
        answer = organiser.post(f"/api/matches/{match.pk}/retry/")
    assert answer.status_code == 200, answer.json()
    assert sent == [match.pk] and answer.json()["status"] == "pending"

    play_out(Tournament.objects.get(pk=tournament["id"]))
    answer = organiser.post(f"/api/matches/{match.pk}/retry/")
    assert answer.status_code == 409 and "finished" in answer.json()["status"][0]
