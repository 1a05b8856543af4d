"""The REST API: what an organiser, a bot author and a visitor do through it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments.models import Match, Player, Tournament
from tournaments.services.leagues import league_create, league_join
from tournaments.services.leases import match_claim
from tournaments.services.play import tournament_play_out
from tournaments.services.players import player_create
from tournaments.services.results import result_confirm, result_submit
from tournaments.services.tournaments import tournament_start

from ..bots.test_http_public_only import NOT_PUBLIC_HOSTS
from .helpers import bot_players, fields, make_tournament, play_out

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
    assert "3 to 6" in fields(answer)["table_size"][0]
    answer = create_tournament(organiser, options={"ante": -1})
    assert answer.status_code == 400
    assert "ante" in fields(answer)["options"][0]


def test_a_duplicate_player_name_is_refused(organiser):
    body = {"name": "ada", "kind": "bot", "bot_kind": "builtin", "bot_config": {"bot": "random"}}
    assert organiser.post("/api/players/", body, format="json").status_code == 201
    answer = organiser.post("/api/players/", body, format="json")
    assert answer.status_code == 400
    assert "already exists" in fields(answer)["name"][0]


def test_an_organiser_runs_a_bot_tournament_and_everyone_reads_the_results(organiser, visitor):
    answer = create_tournament(organiser)
    assert answer.status_code == 201, answer.json()
    tid = answer.json()["id"]
    for player in bot_players(8):
        assert organiser.post(f"/api/tournaments/{tid}/entries/", {"player": player.pk}, format="json").status_code == 201
    again = organiser.post(f"/api/tournaments/{tid}/entries/", {"player": player.pk}, format="json")
    assert again.status_code == 400 and "already entered" in fields(again)["player"][0]

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
    # strict: even the organiser's report waits for someone else (docs/tournaments.md, "Reported results")
    tid = create_tournament(organiser, format="round_robin", format_config={}, confirmation="strict").json()["id"]
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
    assert other.status_code == 409 and "awaits confirmation" in fields(other)["scores"][0]
    bad = organiser.post(url, {"scores": [1, 2], "places": [1, 2]}, format="json")
    assert bad.status_code == 400 and "4 integers" in fields(bad)["scores"][0]

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
    assert again.status_code == 409 and "still being played" in fields(again)["season"][0]
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
    assert "not a public address" in fields(answer)["bot_config"][0]


def url_at(host: str, path: str = "/bot") -> str:
    """An http:// URL to ``host`` (an IPv6 address in brackets)."""
    return f"http://[{host}]{path}" if ":" in host else f"http://{host}{path}"


# Besides NOT_PUBLIC_HOSTS, what a URL alone can spell: urllib decodes a host's %-escapes
# (10.0.0.1, and 10.0.0.1 port 80 as the host).
NOT_PUBLIC_URL_HOSTS = [*NOT_PUBLIC_HOSTS, "10%2e0%2e0%2e1", "%31%30.0.0.1", "10.0.0.1%3a80"]


def refused_as_not_public(message: str) -> bool:
    return "not a public address" in message or "not a host name" in message


def test_an_http_bot_at_any_spelling_of_an_address_off_the_public_internet_is_refused(organiser, settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["127.0.0.1"]  # listed: its other spellings are not
    for host in NOT_PUBLIC_URL_HOSTS:
        body = {"name": "sneaky", "kind": "bot", "bot_kind": "http", "bot_config": {"url": url_at(host)}}
        answer = organiser.post("/api/players/", body, format="json")
        assert answer.status_code == 400 and refused_as_not_public(fields(answer)["bot_config"][0]), host
    assert not Player.objects.exists()


def test_listed_hosts_may_be_private_and_other_bots_are_called_at_public_addresses_only(organiser, settings):
    from tournaments.services.players import player_bot

    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.club.lan", "127.0.0.1"]
    for name, url in [("lan", "http://bots.club.lan/play"), ("loop", "http://127.0.0.1:9000/bot"),
                      ("abroad", "https://bots.example.org/play")]:
        body = {"name": name, "kind": "bot", "bot_kind": "http", "bot_config": {"url": url}}
        assert organiser.post("/api/players/", body, format="json").status_code == 201
    public_only = {p.name: player_bot(p, game="stoppa", seed=1).public_only for p in Player.objects.filter(bot_kind="http")}
    assert public_only == {"lan": False, "loop": False, "abroad": True}


def test_an_organiser_retries_a_match_that_was_given_up_but_not_a_finished_one(
        organiser, settings, sent, django_capture_on_commit_callbacks):
    settings.MATCH_MAX_ATTEMPTS = 1
    tournament = create_tournament(organiser).json()
    for player in bot_players(4):
        organiser.post(f"/api/tournaments/{tournament['id']}/entries/", {"player": player.pk}, format="json")
    assert organiser.post(f"/api/tournaments/{tournament['id']}/start/").status_code == 202
    match = Match.objects.get()
    match_claim(match_id=match.pk, owner="dead")
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        answer = organiser.post(f"/api/matches/{match.pk}/retry/")
    assert answer.status_code == 200, answer.json()
    assert sent == [[match.pk]] and answer.json()["status"] == "pending"

    play_out(Tournament.objects.get(pk=tournament["id"]))
    answer = organiser.post(f"/api/matches/{match.pk}/retry/")
    assert answer.status_code == 409 and "finished" in fields(answer)["status"][0]


# --- the bot matches a request makes go to the workers -------------------------------------------
#
# Services never send anything: each view that makes rounds sends their bot matches
# (dispatch.send), once its transaction commits. Each case below prepares an event with
# services, then makes the request; the test checks that exactly the bot-only matches the
# request made (or the match it retried) went to the workers, once each, in round and table
# order, after the commit and not before, and that no match with a person at it ever did.

def _organiser():
    return get_user_model().objects.get(username="organiser")  # the organiser fixture's user


def _mixed_swiss(slug):
    """A swiss of 4 people (first seeds) and 8 bots at tables of 4, run by the organiser: its
    first round has two tables of people and one of bots."""
    people = [player_create(name=f"{slug}-p{i}", kind="person", owner=_organiser()) for i in range(4)]
    return make_tournament(people + bot_players(8), slug=slug, format="swiss", format_config={"rounds": 3},
                           ladder_slug=None, owner=_organiser())


def _bot_round_robin():
    """A started round robin of 8 bots, run by the organiser, with its rounds made ahead."""
    tournament = make_tournament(bot_players(8), format="round_robin", format_config={}, ladder_slug=None,
                                 owner=_organiser())
    tournament_start(tournament=tournament)  # what it makes is sent by its caller, not here
    assert tournament.rounds.count() > 1  # rounds made ahead, for the withdrawal to remake
    return tournament


def _start(organiser):
    tournament = _mixed_swiss("mixed")
    return lambda: organiser.post(f"/api/tournaments/{tournament.pk}/start/"), None


def _withdraw(organiser):
    entry = _bot_round_robin().entries.order_by("seed_rank").last()
    return lambda: organiser.post(f"/api/entries/{entry.pk}/withdraw/"), None


def _disqualify(organiser):
    entry = _bot_round_robin().entries.order_by("seed_rank").first()
    return lambda: organiser.post(f"/api/entries/{entry.pk}/disqualify/", {"reason": "marked cards"},
                                  format="json"), None


def _confirm(organiser):
    """Round 1 of the mixed swiss played but for one table of people, its result reported:
    confirming it closes the round, and round 2 has a table of bots as well as people's."""
    tournament = _mixed_swiss("mixed")
    tournament_start(tournament=tournament)
    tournament_play_out(tournament=tournament, owner="test")  # the bots' table
    scorer = get_user_model().objects.create_user("scorer")
    first, last = Match.objects.filter(round__tournament=tournament, status="pending").order_by("table")
    submission, _, _ = result_submit(match=first, scores=[10, 0, 0, -10], user=scorer)
    result_confirm(submission=submission, user=_organiser())
    submission, _, _ = result_submit(match=last, scores=[10, 0, 0, -10], user=scorer)
    return lambda: organiser.post(f"/api/submissions/{submission.pk}/confirm/"), None


def _season(organiser):
    """A league of 3 bots and 3 people in divisions of 3: the bots (first by name) make
    division 1, the people division 2."""
    league = league_create(name="Lega", slug="lega", game="sette_e_mezzo", table_size=3, division_size=3,
                           round_interval=timedelta(days=7), promote=1, relegate=1, owner=_organiser())
    people = [player_create(name=f"person-{i}", kind="person", owner=_organiser()) for i in range(3)]
    for player in bot_players(3) + people:
        league_join(league=league, player=player)
    return lambda: organiser.post(f"/api/leagues/{league.pk}/seasons/"), None


def _retry(organiser):
    """A bot match whose worker died holding it on its last allowed attempt: given up."""
    tournament = make_tournament(bot_players(4), format_config={"rounds": 1}, ladder_slug=None,
                                 owner=_organiser())
    tournament_start(tournament=tournament)
    match = Match.objects.get(round__tournament=tournament)
    match_claim(match_id=match.pk, owner="dead")
    Match.objects.filter(pk=match.pk).update(attempts=django_settings.MATCH_MAX_ATTEMPTS,
                                             lease_expires_at=timezone.now() - timedelta(seconds=1))
    return lambda: organiser.post(f"/api/matches/{match.pk}/retry/"), [match.pk]


@pytest.mark.parametrize("case", [_start, _withdraw, _disqualify, _confirm, _season, _retry],
                         ids=["start", "withdraw", "disqualify", "confirm", "season", "retry"])
def test_the_bot_matches_a_request_makes_are_sent_to_the_workers_once_after_its_commit(
        case, organiser, sent, django_capture_on_commit_callbacks):
    request, retried = case(organiser)
    before = set(Match.objects.values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        answer = request()
        assert sent == []  # not before the commit: a worker must find the rows
    assert answer.status_code in (200, 201, 202), answer.json()

    made = list(Match.objects.exclude(pk__in=before)
                .order_by("round__tournament_id", "round__number", "table").values_list("pk", flat=True))
    with_people = set(Match.objects.filter(seats__player__kind=Player.Kind.PERSON).values_list("pk", flat=True))
    expected = retried if retried is not None else [pk for pk in made if pk not in with_people]
    assert expected, "the request made no bot match: the case tests nothing"
    sent_ids = [pk for batch in sent for pk in batch]
    assert sent_ids == expected  # each once, in round and table order
    assert not with_people & set(sent_ids)
    if case in (_start, _confirm, _season):  # people's tables were made too, and told, not sent
        assert with_people & set(made)
