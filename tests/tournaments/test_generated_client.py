"""A client nobody here wrote: openapi-python-client generates a Python package from the live
/api/schema/, and through that package alone a newcomer signs up, makes a token, creates an
online tournament with a person and built-in bots, starts it and plays the person's seats to
the end. The service's bots move in the workers: in the tests' eager mode, inside the request
that hands them the turn. So the schema is what an ordinary generator makes a working client
of: JSON bodies only, request components without read-only fields (docs/api.md)."""

from __future__ import annotations

import base64
import importlib
import os
import random
import subprocess
import sys
import time

import pytest

from tournaments.models import Match, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"


def generate(schema: bytes, into) -> None:
    """openapi-python-client's package ``mazziere_client`` for ``schema``, in the folder ``into``."""
    try:
        import openapi_python_client  # noqa: F401 - the test extra's; only its command is used
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("openapi-python-client is a test dependency (pyproject.toml, [test]): install it")
        pytest.skip("openapi-python-client is not installed (pip install -e '.[test]')")
    (into / "schema.json").write_bytes(schema)
    (into / "config.yaml").write_text("post_hooks: []\n")  # no formatter run afterwards (ruff may be absent)
    made = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", "schema.json",
                           "--meta", "none", "--output-path", "mazziere_client", "--config", "config.yaml"],
                          cwd=into, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr, made.stdout + made.stderr


@pytest.fixture
def client_package(live_server, tmp_path, monkeypatch):
    """The generated package, imported from the temporary folder it was generated into."""
    import urllib.request

    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json") as answer:
        generate(answer.read(), tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [name for name in sys.modules if name.split(".")[0] == "mazziere_client"]:
        del sys.modules[name]
    yield importlib.import_module("mazziere_client")
    for name in [name for name in sys.modules if name.split(".")[0] == "mazziere_client"]:
        del sys.modules[name]


def test_every_module_of_the_generated_client_imports(client_package, tmp_path):
    modules = sorted(p.relative_to(tmp_path).with_suffix("") for p in (tmp_path / "mazziere_client").rglob("*.py"))
    assert len(modules) > 80
    for module in modules:
        importlib.import_module(".".join(module.parts).removesuffix(".__init__"))


def test_a_newcomer_plays_an_online_tournament_through_the_generated_client_alone(client_package, live_server,
                                                                                    settings):
    settings.ALLOWED_HOSTS = ["*"]
    api = importlib.import_module("mazziere_client.api")
    m = importlib.import_module("mazziere_client.models")
    accounts = importlib.import_module("mazziere_client.api.accounts.accounts_create")
    tokens = importlib.import_module("mazziere_client.api.tokens.tokens_create")
    players = importlib.import_module("mazziere_client.api.players.players_create")
    tournaments = {name: importlib.import_module(f"mazziere_client.api.tournaments.tournaments_{name}")
                   for name in ("create", "entries_create", "start_create", "retrieve", "standings_list")}
    seats_list = importlib.import_module("mazziere_client.api.seats.seats_list")
    matches = {name: importlib.import_module(f"mazziere_client.api.matches.matches_{name}")
               for name in ("seats_retrieve", "seats_actions_create", "list")}
    assert api  # the package's api modules import (every one: the test above)

    anonymous = client_package.Client(base_url=live_server.url, raise_on_unexpected_status=True)
    signed_up = accounts.sync_detailed(client=anonymous, body=m.AccountRequest(username="newcomer", password=PASSWORD))
    assert signed_up.status_code == 201, signed_up.content

    basic = base64.b64encode(f"newcomer:{PASSWORD}".encode()).decode()
    with_password = client_package.Client(base_url=live_server.url, headers={"Authorization": f"Basic {basic}"},
                                          raise_on_unexpected_status=True)
    made = tokens.sync(client=with_password, body=m.TokenRequest(
        name="generated", scopes=[m.ScopesEnum.READ, m.ScopesEnum.ORGANISE, m.ScopesEnum.PLAY]))
    assert isinstance(made, m.TokenCreated) and made.token.startswith("mzt_")
    me = client_package.AuthenticatedClient(base_url=live_server.url, token=made.token,
                                            raise_on_unexpected_status=True)

    person = players.sync(client=me, body=m.PlayerRequest(name="newcomer", kind=m.KindEnum.PERSON))
    bots = [players.sync(client=me, body=m.PlayerRequest(name=f"newcomer-bot-{i}", kind=m.KindEnum.BOT,
                                                         bot_kind=m.BotKindEnum.BUILTIN, bot_config={"bot": bot}))
            for i, bot in enumerate(["random", "heuristic"])]
    tournament = tournaments["create"].sync(client=me, body=m.TournamentRequest(
        name="First night", slug="first-night", game="sette_e_mezzo", format_="round_robin", table_size=3,
        options={"hands": 2}, online=True, move_seconds=600))
    assert isinstance(tournament, m.Tournament) and tournament.online
    for player in [person, *bots]:
        entered = tournaments["entries_create"].sync_detailed(client=me, id=tournament.id,
                                                              body=m.EntryRequest(player=player.id))
        assert entered.status_code == 201, entered.content
    started = tournaments["start_create"].sync_detailed(client=me, id=tournament.id)
    assert started.status_code == 202, started.content

    rng, moves, ends = random.Random(7), 0, time.monotonic() + 120
    while tournaments["retrieve"].sync(client=me, id=tournament.id).status != "finished":
        assert time.monotonic() < ends, "the tournament did not finish"
        awaited = seats_list.sync(client=me, your_turn=True).results
        for seat in awaited:
            view = matches["seats_retrieve"].sync(client=me, id=seat.match, position=seat.position)
            if view.waiting_for != view.position or not view.view.get("legal_actions"):
                continue  # moved on meanwhile
            acted = matches["seats_actions_create"].sync(
                client=me, id=seat.match, position=seat.position,
                body=m.SeatActionRequest(action=rng.choice(view.view["legal_actions"])),
                idempotency_key=f"{seat.match}-{seat.position}-{view.actions}")
            assert isinstance(acted, m.Acted) and acted.repeated is False
            moves += 1
        if not awaited:
            time.sleep(0.05)

    listed = matches["list"].sync(client=me, tournament=tournament.id).results
    assert listed and {match.status for match in listed} == {"finished"}
    assert {match.id for match in listed} == set(Match.objects.filter(round__tournament_id=tournament.id)
                                                 .values_list("id", flat=True))
    assert moves > 0 and Tournament.objects.get(pk=tournament.id).status == "finished"
    standings = tournaments["standings_list"].sync(client=me, id=tournament.id).results
    assert {line.player for line in standings} == {person.id, *(bot.id for bot in bots)}
