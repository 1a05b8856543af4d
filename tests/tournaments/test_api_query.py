"""Query parameters: a GET takes exactly what /api/schema/ documents for it (its filters, its
page's, ``ordering`` where the list has it, an action's own), and any other is a 400 naming it:
a misspelt filter must not answer the whole list as if it were the one asked for. Matches are
filtered by ``tournament`` and ``round``, as they show them."""

from __future__ import annotations

import re

import pytest
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.settings import api_settings
from rest_framework.test import APIClient, APIRequestFactory

from tests.tournaments.helpers import bot_players, make_tournament, play_out

pytestmark = pytest.mark.django_db


def documented_gets():
    """(path template, query parameters) of every GET the schema documents."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, operations in schema["paths"].items():
        if "get" in operations:
            yield path, {p["name"] for p in operations["get"].get("parameters", ()) if p["in"] == "query"}


def test_every_get_takes_exactly_the_query_parameters_the_schema_documents():
    checked = 0
    for path, documented in documented_gets():
        sample = re.sub(r"\{(\w+)\}", lambda m: "0" if m.group(1) == "position" else "1", path)
        match = resolve(sample)
        if not hasattr(match.func, "actions"):
            continue  # not a view set (accounts, session): it takes no query parameter
        view = match.func.cls(**match.func.initkwargs)
        view.action_map = match.func.actions
        view.action = match.func.actions["get"]
        view.request = view.initialize_request(APIRequestFactory().get(sample))
        view.kwargs, view.format_kwarg = match.kwargs, None
        assert view.query_parameters() == documented | {api_settings.URL_FORMAT_OVERRIDE}, path
        checked += 1
    assert checked >= 35  # every list, detail, stream and export of the view sets


@pytest.fixture
def two_tournaments():
    first = make_tournament(bot_players(4, prefix="a"), slug="first", format="round_robin", format_config={},
                            ladder_slug=None)
    second = make_tournament(bot_players(4, prefix="b"), slug="second", format="round_robin", format_config={},
                             ladder_slug=None)
    play_out(first)
    play_out(second)
    return first, second


def ids(answer) -> set[int]:
    assert answer.status_code == 200, answer.content
    return {match["id"] for match in answer.json()["results"]}


def test_matches_are_filtered_by_their_tournament_and_round(two_tournaments):
    first, second = two_tournaments
    client = APIClient()
    everything = ids(client.get("/api/matches/"))
    of_first = ids(client.get(f"/api/matches/?tournament={first.pk}"))
    of_second = ids(client.get(f"/api/matches/?tournament={second.pk}"))
    assert of_first and of_second and not of_first & of_second and of_first | of_second == everything
    assert of_first == set(first.rounds.values_list("matches__id", flat=True))
    round_one = ids(client.get(f"/api/matches/?tournament={first.pk}&round=1&status=finished"))
    assert round_one == set(first.rounds.filter(number=1).values_list("matches__id", flat=True))
    assert client.get("/api/matches/?tournament=x").status_code == 400


@pytest.mark.parametrize("url, unknown", [
    ("/api/matches/?tournamnet=1", "tournamnet"),
    ("/api/matches/?round__tournament=1", "round__tournament"),  # not a name of the API's
    ("/api/tournaments/?format_=swiss&games=stoppa", "format_"),
    ("/api/players/?page=2", "page"),
    ("/api/tournaments/{first}/standings/?round=1", "round"),
    ("/api/tournaments/{first}/entries/?player=1", "player"),
    ("/api/tournaments/{first}/?expand=entries", "expand"),
    ("/api/matches/{match}/?seat=1", "seat"),
    ("/api/matches/?ordering=id", "ordering"),  # matches page by cursor, in the order made
])
def test_a_parameter_an_endpoint_does_not_take_is_refused_naming_it(two_tournaments, url, unknown):
    first, _ = two_tournaments
    url = url.format(first=first.pk, match=first.rounds.first().matches.first().pk)
    answer = APIClient().get(url)
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert unknown in error["fields"] and unknown in error["message"]
    assert error["fields"][unknown][0].startswith(f"{unknown} is not a parameter of this endpoint (it takes ")


@pytest.mark.parametrize("url", [
    "/api/tournaments/?game=sette_e_mezzo&status=finished&tournament_format=round_robin&ordering=-name"
    "&limit=5&offset=0&format=json",
    "/api/matches/?tournament={first}&round=2&status=finished&limit=2",
    "/api/tournaments/{first}/standings/?limit=2&offset=1",
    "/api/tournaments/{first}/audit/?limit=3",
    "/api/tournaments/{first}/export/?as=csv",
    "/api/players/?kind=bot&bot_kind=builtin&active=true&ordering=name",
    "/api/entries/?tournament={first}",
])
def test_the_documented_parameters_are_taken(two_tournaments, url):
    first, _ = two_tournaments
    assert APIClient().get(url.format(first=first.pk)).status_code == 200
