"""Versions that name the exact state of what readers keep in caches.

A tournament's standings are computed from its own row (its scoring, its status) and from other
rows: its entries and their players' names, its rounds (made, closed, their byes) and the results
of its matches. ``Tournament.standings_version`` counts the changes of those other rows; with the
row's own columns it is the key the standings are kept under (selectors.standings_key), read in
one small query instead of digesting every entry and match on every request (docs/api.md, "Load").

So every service that changes one of those rows calls :func:`standings_changed` in the same
transaction, and so does the admin (tournaments/admin.py). The number is only ever bumped
together with the change it names: a reader that computes the standings after reading version
*n* may keep the newer state under *n*, never an older one under *n + 1*.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import F

from tournaments.models import Tournament


def standings_changed(*, tournament_ids: Iterable[int]) -> None:
    """What these tournaments' standings are computed from has changed: one more version each,
    in the caller's transaction."""
    ids = sorted(set(tournament_ids))  # in id order, as the tournaments' rows are locked elsewhere
    if ids:
        Tournament.objects.filter(pk__in=ids).update(standings_version=F("standings_version") + 1)


def player_renamed(*, player_id: int) -> None:
    """A player's shown name changed: the standings of every tournament it entered show it."""
    standings_changed(tournament_ids=Tournament.objects.filter(entries__player_id=player_id)
                      .values_list("pk", flat=True))
