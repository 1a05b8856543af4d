"""The API's URLs grouped by their first segment (tournaments/api/urls.py) find the view the
router's own list would, for every route and its format suffix, and nothing else."""

from __future__ import annotations

import re

import pytest
from django.urls import Resolver404, resolve
from django.urls.resolvers import RegexPattern, URLResolver

from tournaments.api.urls import router

SAMPLE = {"pk": "7", "player_id": "12", "position": "1", "username": "ada", "delivery": "3", "format": "json"}


def _sample_path(regex: str) -> str:
    """A path the router's regex matches, its groups filled with sample values."""
    body = regex.removeprefix("^").removesuffix("$").replace("/?", "/")
    body = re.sub(r"\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)", lambda m: SAMPLE[m.group(1)], body)
    return "/api/" + body.replace("\\.", ".")


FLAT = URLResolver(RegexPattern(r"^/api/"), router.urls)  # the router's own list, as it was served
ROUTES = [(str(p.pattern), p.name) for p in router.urls if str(p.pattern).startswith("^")]


def test_the_router_makes_the_routes_this_test_walks():
    assert len(ROUTES) > 90  # every viewset's routes and their suffix twins


@pytest.mark.parametrize(("regex", "name"), ROUTES)
def test_every_route_resolves_to_the_view_and_arguments_the_routers_list_gives(regex, name):
    path = _sample_path(regex)
    found, flat = resolve(path), FLAT.resolve(path)
    assert (found.url_name, found.kwargs, found.func.cls) == (flat.url_name, flat.kwargs, flat.func.cls), path
    if not re.search(r"\(\?P<username>", regex):  # a username may hold a dot: "ada.json" is one
        assert found.url_name == name


@pytest.mark.parametrize("path", ["/api/", "/api/.json", "/api/accounts/", "/api/session/"])
def test_the_routes_outside_the_router_groups_still_resolve(path):
    assert resolve(path).url_name in {"api-root", "accounts", "session"}


@pytest.mark.parametrize("path", ["/api/ladders-x/", "/api/ladder/1/", "/api/ladders", "/api/laddersx/1/history/5/",
                                  "/api/ladders/1/history/x/", "/api/nothing/"])
def test_a_path_that_only_starts_like_a_segment_is_no_route(path):
    try:
        found = resolve(path)
    except Resolver404:
        return
    assert found.url_name == "api-not-found"  # the JSON 404 for any other path under /api/
