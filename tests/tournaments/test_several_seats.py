"""The seats-per-account rule: an account holds at most one seat whose cards it reads among a
tournament's entrants (a person or a remote bot in an online tournament, read through the API;
an external bot, whose program its owner runs), so it never reads two hands at one table,
unless the organisers allow several (``several_seats``), which a rated tournament never does.
Built-in bots (nobody reads their seats) and people at real tables count for nobody. Enforced at
every door: an entry (by an organiser or by the player's owner), a change of the settings, the
start, a league's members; docs/api.md, "Who may do what"; docs/online.md."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from tournaments.models import Match, Tournament
from tournaments.services import ServiceError
from tournaments.services.ladders import ladder_create
from tournaments.services.leagues import league_create, league_join
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tournaments import entry_add, tournament_create

from .helpers import as_user, error, fields

pytestmark = [pytest.mark.django_db]

RULE = "an account holds at most one seat whose cards it reads"


@pytest.fixture
def world(settings):
    """olga organises; ada has a person, a remote bot, two HTTP bots and a built-in bot."""
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.example.org"]
    User = get_user_model()
    users = {name: User.objects.create_user(name) for name in ("olga", "ada", "bob")}
    ada = users["ada"]
    players = {
        "ada": player_create(name="ada", kind="person", owner=ada),
        "ada-remote": player_create(name="ada-remote", kind="bot", bot_kind="remote", owner=ada),
        "ada-http": player_create(name="ada-http", kind="bot", bot_kind="http", owner=ada,
                                  bot_config={"url": "https://bots.example.org/one"}),
        "ada-http-2": player_create(name="ada-http-2", kind="bot", bot_kind="http", owner=ada,
                                    bot_config={"url": "https://bots.example.org/two"}),
        "ada-rnd": player_create(name="ada-rnd", kind="bot", bot_kind="builtin", bot_config={"bot": "random"},
                                 owner=ada),
        "bob": player_create(name="bob", kind="person", owner=users["bob"]),
    }
    return users, players


def create(users, slug: str, **settings) -> dict:
    body = {"name": slug, "slug": slug, "game": "stoppa", "table_size": 4, "format": "round_robin",
            "options": {"hands": 1}, "open_entry": True, **settings}
    answer = as_user(users["olga"]).post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def enter(users, tournament: dict, player):
    return as_user(users["ada"]).post(f"/api/tournaments/{tournament['id']}/entries/", {"player": player.pk},
                                        format="json")


@pytest.mark.parametrize("first, second, online", [
    ("ada", "ada-remote", True),  # a person and her remote bot
    ("ada-http", "ada-http-2", False),  # two bots of one author, in the room
    ("ada", "ada-http", True),  # a person and her HTTP bot, online
])
def test_a_second_seat_an_account_reads_is_refused_unless_the_organisers_allow_it(world, first, second, online):
    users, players = world
    closed = create(users, "closed", online=online)
    assert closed["several_seats"] is False  # the default
    assert enter(users, closed, players[first]).status_code == 201
    refused = enter(users, closed, players[second])
    assert refused.status_code == 409, refused.json()
    message = fields(refused)["player"][0]
    assert RULE in message and first in message and second in message and "several_seats" in message
    assert Tournament.objects.get(pk=closed["id"]).entries.count() == 1
    allowed = create(users, "allowed", online=online, several_seats=True)
    for name in (first, second):
        assert enter(users, allowed, players[name]).status_code == 201, name


def test_built_in_bots_and_people_at_real_tables_count_for_nobody(world):
    users, players = world
    online = create(users, "online", online=True)
    for name in ("ada", "ada-rnd"):  # her seat, and a bot the service plays, whose seat nobody reads
        assert enter(users, online, players[name]).status_code == 201, name
    guests = create(users, "room")  # an organiser's guests at real tables: the service shows them no cards
    for i in range(3):
        guest = player_create(name=f"guest-{i}", kind="person", owner=users["olga"])
        answer = as_user(users["olga"]).post(f"/api/tournaments/{guests['id']}/entries/", {"player": guest.pk},
                                               format="json")
        assert answer.status_code == 201


def test_a_rated_tournament_never_allows_several_seats(world):
    users, players = world
    ladder = ladder_create(slug="club", name="Club", game="stoppa", owner=users["olga"])
    olga = as_user(users["olga"])
    body = {"name": "r", "slug": "rated", "game": "stoppa", "table_size": 4, "format": "round_robin",
            "options": {"hands": 1}, "ladder": ladder.pk, "several_seats": True}
    refused = olga.post("/api/tournaments/", body, format="json")
    assert refused.status_code == 400 and "never allowed in a rated tournament" in fields(refused)["several_seats"][0]
    rated = create(users, "rated", ladder=ladder.pk, online=True)
    refused = olga.patch(f"/api/tournaments/{rated['id']}/", {"several_seats": True}, format="json")
    assert refused.status_code == 400 and "rated" in fields(refused)["several_seats"][0]
    allowing = create(users, "allowing", several_seats=True)
    refused = olga.patch(f"/api/tournaments/{allowing['id']}/", {"ladder": ladder.pk}, format="json")
    assert refused.status_code == 400 and "rated" in fields(refused)["several_seats"][0]
    # In a rated tournament the refusal of a second seat says it is never allowed there.
    assert enter(users, rated, players["ada"]).status_code == 201
    refused = enter(users, rated, players["ada-remote"])
    assert refused.status_code == 409 and "never in a rated tournament" in fields(refused)["player"][0]
    # The database holds the rule too: the admin's form (a model's full_clean) is refused it.
    tournament = Tournament.objects.get(pk=rated["id"])
    tournament.several_seats = True
    with pytest.raises(ValidationError, match="never allowed in a rated tournament"):
        tournament.full_clean()


def test_a_change_of_the_settings_keeps_the_rule(world):
    users, players = world
    olga = as_user(users["olga"])
    allowing = create(users, "allowing", online=True, several_seats=True)
    for name in ("ada", "ada-remote"):
        assert enter(users, allowing, players[name]).status_code == 201
    refused = olga.patch(f"/api/tournaments/{allowing['id']}/", {"several_seats": False}, format="json")
    assert refused.status_code == 409 and RULE in fields(refused)["several_seats"][0]
    # In the room two people of one account count for nothing; online they would be two seats.
    room = create(users, "room")
    for i in range(2):
        assert enter(users, room, player_create(name=f"ada-{i}", kind="person", owner=users["ada"])).status_code == 201
    refused = olga.patch(f"/api/tournaments/{room['id']}/", {"online": True}, format="json")
    assert refused.status_code == 409 and RULE in fields(refused)["online"][0]
    assert not Tournament.objects.get(pk=room["id"]).online


def test_a_field_entered_past_the_rule_does_not_start(world):
    users, players = world
    tournament = tournament_create(name="t", slug="t", game="stoppa", table_size=4, format="round_robin",
                                   options={"hands": 1}, online=True, several_seats=True, owner=users["olga"])
    for player in (players["ada"], players["ada-remote"], players["bob"],
                   builtin_bot_get_or_create(bot="random", name="rnd")):
        entry_add(tournament=tournament, player=player)
    Tournament.objects.filter(pk=tournament.pk).update(several_seats=False)  # the admin, say
    refused = as_user(users["olga"]).post(f"/api/tournaments/{tournament.pk}/start/")
    assert refused.status_code == 409 and RULE in error(refused)["message"]
    assert not Match.objects.exists()


def test_a_league_takes_one_external_bot_of_an_account(world):
    users, players = world
    league = league_create(name="L", slug="l", game="stoppa", table_size=3, division_size=3,
                           round_interval=timezone.timedelta(days=7), promote=1, relegate=1)
    league_join(league=league, player=players["ada-http"])
    league_join(league=league, player=players["ada-rnd"])  # a built-in bot: nobody reads its seats
    with pytest.raises(ServiceError, match="ada-http and ada-http-2 are one account's") as refused:
        league_join(league=league, player=players["ada-http-2"])
    assert refused.value.code == "conflict"
    assert sorted(league.players.values_list("name", flat=True)) == ["ada-http", "ada-rnd"]
