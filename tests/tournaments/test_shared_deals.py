"""A deal shared by several tables is only for seats that cannot carry it from one to another:
the service's built-in bots, made afresh for each match, and people at real tables. In
duplicate play each entrant plays every seat rotation of its table's deal, so an external bot
(HTTP or subprocess: a program that can remember) would know, at its second table of a deal, one
opponent's starting hand and at its last every one's; and a chosen seed that another tournament
of the game has deals that tournament's cards again, table for table (public once it is
finished). Every door refuses such a field, naming the rule: entering the bot (an organiser, or
its owner where entry is open), turning duplicate play on or choosing the seed with it entered,
starting with it entered past the services, ``run_tournament --duplicate``; a league's divisions
are never duplicate. docs/formats.md, "Duplicate play"; docs/tournaments.md."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments.models import Match, Tournament
from tournaments.services import ServiceError
from tournaments.services.leagues import league_create, league_join
from tournaments.services.players import builtin_bot_get_or_create, player_create
from tournaments.services.tournaments import entry_add, tournament_create

from .helpers import as_user, error, fields, play_out

pytestmark = [pytest.mark.django_db]

RULE = "in duplicate play each entrant plays every seat rotation of its table's deal"


@pytest.fixture
def people(settings):
    settings.HTTP_BOTS_ALLOWED_HOSTS = ["bots.example.org"]
    User = get_user_model()
    return {name: User.objects.create_user(name, is_staff=name == "root") for name in ("olga", "bob", "root")}


def external(kind: str, people: dict, name: str = "") -> object:
    """bob's HTTP bot, or a subprocess bot (staff register those)."""
    if kind == "http":
        return player_create(name=name or "bob-http", kind="bot", bot_kind="http", owner=people["bob"],
                             bot_config={"url": "https://bots.example.org/play"})
    return player_create(name=name or "root-prog", kind="bot", bot_kind="subprocess", owner=people["root"],
                         bot_config={"command": ["python3", "bot.py"]})


def owner_of(kind: str, people: dict):
    return people["bob"] if kind == "http" else people["root"]


def builtins(n: int, prefix: str = "rnd") -> list:
    return [builtin_bot_get_or_create(bot="random", name=f"{prefix}-{i}") for i in range(n)]


def create(client: APIClient, slug: str, **settings) -> dict:
    body = {"name": slug, "slug": slug, "game": "stoppa", "table_size": 4, "format": "round_robin",
            "options": {"hands": 1}, **settings}
    answer = client.post("/api/tournaments/", body, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def enter(client: APIClient, tournament_id: int, player) -> object:
    return client.post(f"/api/tournaments/{tournament_id}/entries/", {"player": player.pk}, format="json")


@pytest.mark.parametrize("kind", ["http", "subprocess"])
def test_an_external_bot_is_refused_a_duplicate_tournament_at_its_entry(people, kind):
    olga = as_user(people["olga"])
    made = create(olga, "dup", duplicate=True, open_entry=True)
    bot = external(kind, people)
    before = Tournament.objects.get(pk=made["id"]).entries.count()
    # Its owner, where entry is open; staff, who may enter anyone's.
    for client in (as_user(owner_of(kind, people)), as_user(people["root"])):
        refused = enter(client, made["id"], bot)
        assert refused.status_code == 400, refused.json()
        assert RULE in fields(refused)["player"][0] and bot.name in fields(refused)["player"][0]
    assert Tournament.objects.get(pk=made["id"]).entries.count() == before
    # The service's own bots play it, as before.
    for player in builtins(4):
        assert enter(olga, made["id"], player).status_code == 201


@pytest.mark.parametrize("kind", ["http", "subprocess"])
def test_duplicate_play_is_not_turned_on_with_an_external_bot_entered(people, kind):
    olga = as_user(people["olga"])
    made = create(olga, "plain", open_entry=True)
    bot = external(kind, people)
    assert enter(as_user(owner_of(kind, people)), made["id"], bot).status_code == 201
    refused = olga.patch(f"/api/tournaments/{made['id']}/", {"duplicate": True}, format="json")
    assert refused.status_code == 409, refused.json()
    assert RULE in fields(refused)["duplicate"][0] and "withdraw it first" in fields(refused)["duplicate"][0]
    assert not Tournament.objects.get(pk=made["id"]).duplicate


@pytest.mark.parametrize("kind", ["http", "subprocess"])
def test_a_duplicate_tournament_with_an_external_bot_does_not_start(people, kind):
    """Entered past the services (the admin's entries, or before the rule): the start refuses it,
    and makes no table."""
    tournament = tournament_create(name="t", slug="t", game="stoppa", table_size=4, format="round_robin",
                                   options={"hands": 1}, owner=people["olga"])
    bot = external(kind, people)
    for player in [bot, *builtins(3)]:
        entry_add(tournament=tournament, player=player)
    Tournament.objects.filter(pk=tournament.pk).update(duplicate=True)
    refused = as_user(people["olga"]).post(f"/api/tournaments/{tournament.pk}/start/")
    assert refused.status_code == 409, refused.json()
    assert RULE in error(refused)["message"] and bot.name in error(refused)["message"]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION and not Match.objects.exists()


def run_tournament(*args: str) -> str:
    out = StringIO()
    call_command("run_tournament", *args, stdout=out)
    return out.getvalue()


def test_run_tournament_duplicate_enters_built_in_bots_only(people, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # A player named as the command names its entrants, but an HTTP bot: never entered.
    external("http", people, name="random-1")
    with pytest.raises(CommandError, match="random-1 is not a built-in bot"):
        run_tournament("stoppa", "--bots", "random:4", "--duplicate", "--format", "round_robin",
                       "--option", "hands=1", "--slug", "taken-name")
    assert not Tournament.objects.filter(slug="taken-name").exists()
    # Resumed, a duplicate tournament with an external bot entered past the services does not start.
    tournament = tournament_create(name="r", slug="resumed", game="stoppa", table_size=4, format="round_robin",
                                   options={"hands": 1})
    for player in [external("subprocess", people), *builtins(3)]:
        entry_add(tournament=tournament, player=player)
    Tournament.objects.filter(pk=tournament.pk).update(duplicate=True)
    with pytest.raises(CommandError, match=f"resumed cannot start: .*{RULE}"):
        run_tournament("--resume", "resumed")
    # Built-in bots play duplicate as ever.
    run_tournament("stoppa", "--bots", "heuristic:4", "--duplicate", "--format", "round_robin",
                   "--option", "hands=1", "--slug", "built-in-dup")
    assert Tournament.objects.get(slug="built-in-dup").status == Tournament.Status.FINISHED


def test_a_leagues_divisions_are_never_duplicate(people):
    """A league makes its divisions itself: none is duplicate (its format_config cannot ask
    for it), so an external bot plays a league's divisions."""
    with pytest.raises(ServiceError, match="duplicate"):
        league_create(name="L", slug="l", game="stoppa", table_size=3, division_size=3, format="swiss",
                      format_config={"rounds": 1, "duplicate": True}, round_interval=timezone.timedelta(days=1))
    league = league_create(name="L", slug="l", game="stoppa", table_size=3, division_size=3, format="swiss",
                           format_config={"rounds": 1}, options={"hands": 1}, round_interval=timezone.timedelta(days=1),
                           promote=1, relegate=1)
    for player in [external("http", people), *builtins(2)]:
        league_join(league=league, player=player)
    answer = as_user(people["root"]).post(f"/api/leagues/{league.pk}/seasons/")
    assert answer.status_code == 201, answer.json()
    assert not Tournament.objects.get(season__league=league).duplicate


def test_a_chosen_seed_another_tournament_has_takes_no_program_and_no_online_seat(people):
    """Two tournaments of a game with one seed deal the same cards at the same tables (and the
    first one's seed is public once it is finished): neither may seat a program, nor online a
    person, while the other has that seed; built-in bots play either. A seed drawn anew frees it."""
    olga = as_user(people["olga"])
    first = create(olga, "first", seed=42, open_entry=True)
    for player in builtins(4, "a"):
        assert enter(olga, first["id"], player).status_code == 201
    play_out(Tournament.objects.get(pk=first["id"]))
    assert olga.get(f"/api/tournaments/{first['id']}/").json()["seed"] == 42  # public: it is finished
    again = create(olga, "again", seed=42, open_entry=True)
    bot = external("http", people)
    refused = enter(as_user(people["bob"]), again["id"], bot)
    assert refused.status_code == 400 and "seed 42 is also tournament first's" in fields(refused)["player"][0]
    online = create(olga, "online-again", seed=42, online=True, open_entry=True)
    ada = player_create(name="ada", kind="person", owner=people["bob"])
    refused = enter(as_user(people["bob"]), online["id"], ada)
    assert refused.status_code == 400 and "a seat played online" in fields(refused)["player"][0]
    # Another game's tournament with that seed deals other cards.
    other_game = create(olga, "other-game", game="sette_e_mezzo", table_size=3, options={"hands": 1}, seed=42,
                        open_entry=True)
    assert enter(as_user(people["bob"]), other_game["id"], bot).status_code == 201
    # Choosing the seed with the bot entered is refused; a new secret seed takes it.
    fresh = create(olga, "fresh", open_entry=True)
    assert enter(as_user(people["bob"]), fresh["id"], bot).status_code == 201
    refused = olga.patch(f"/api/tournaments/{fresh['id']}/", {"seed": 42}, format="json")
    assert refused.status_code == 409 and "seed 42 is also tournament first's" in fields(refused)["seed"][0]
    assert olga.patch(f"/api/tournaments/{again['id']}/", {"seed": None}, format="json").status_code == 200
    assert enter(as_user(people["bob"]), again["id"], bot).status_code == 201
