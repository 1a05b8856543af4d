"""The API's URLs: DRF's router, its patterns grouped by their first path segment.

Django tries a request's path against each pattern in turn, and the router makes some 110 (each
route with its ``.json``-style suffix twin): the API root, whose patterns come last, took ~100
µs to find and the webhooks' routes 85 µs, against 8 and 35 µs grouped (a path is tried against
one test per segment, then its own segment's patterns alone; a route near the top, the ladders',
costs ~5 µs more for the extra level). The patterns themselves, their names, reversing and the
schema are the router's, unchanged (tests/tournaments/test_api_urls.py).
"""

from __future__ import annotations

import re

from django.urls import path
from django.urls.resolvers import RegexPattern, URLResolver
from rest_framework.routers import DefaultRouter

from . import accounts, views, webhooks

router = DefaultRouter()
router.register("players", views.PlayerViewSet)
router.register("ladders", views.LadderViewSet)
router.register("tournaments", views.TournamentViewSet)
router.register("entries", views.EntryViewSet)
router.register("matches", views.MatchViewSet)
router.register("submissions", views.SubmissionViewSet, basename="resultsubmission")
router.register("leagues", views.LeagueViewSet)
router.register("tokens", views.TokenViewSet, basename="token")
router.register("seats", views.OnlineSeatViewSet, basename="seat")
router.register("webhooks", webhooks.WebhookViewSet, basename="webhook")

_SEGMENT = re.compile(r"\^([a-z][a-z0-9_-]*)(?:/|\\\.)")  # a router pattern's first segment: ^ladders/ or ^ladders\.


class Segment(RegexPattern):
    """Matches a path whose first segment is ``segment`` (followed by ``/`` or ``.``) and
    consumes nothing, so that the patterns under it, whole regexes, see the whole path (this is
    only a filter: they decide). As a regex, for reversing and the schema, it is ``^``, which
    adds nothing."""

    def __init__(self, segment: str) -> None:
        super().__init__("^", is_endpoint=False)
        self.segment = segment
        self._after = len(segment)

    def match(self, path: str):
        if path.startswith(self.segment) and path[self._after:self._after + 1] in ("/", "."):
            return path, (), {}
        return None


def by_segment(patterns: list) -> list:
    """``patterns``, those whose regex names a first segment grouped under it (in their order;
    the others first, as they were)."""
    groups: dict[str, list] = {}
    rest = []
    for pattern in patterns:
        found = _SEGMENT.match(str(pattern.pattern)) if isinstance(pattern.pattern, RegexPattern) else None
        if found:
            groups.setdefault(found.group(1), []).append(pattern)
        else:
            rest.append(pattern)
    return [*rest, *(URLResolver(Segment(segment), members) for segment, members in groups.items())]


urlpatterns = [
    path("accounts/", accounts.AccountsView.as_view(), name="accounts"),
    path("session/", accounts.SessionView.as_view(), name="session"),
    *by_segment(router.urls),
]
