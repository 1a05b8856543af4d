"""Co-organisers of an event (a tournament, a league or a rating ladder), named and removed by
its owner (the caller checked that: tournaments.permissions.owns)."""

from __future__ import annotations

from django.db import transaction

from tournaments.models import League, RatingLadder, Tournament

from .webhooks import webhooks_unfollowed_delete


def organiser_add(*, event: Tournament | League | RatingLadder, user) -> None:
    """Name ``user`` a co-organiser of ``event`` (naming one twice changes nothing)."""
    event.organisers.add(user)


@transaction.atomic
def organiser_remove(*, event: Tournament | League | RatingLadder, user) -> None:
    """Remove ``user`` from ``event``'s co-organisers, and with them, in the same transaction,
    their webhooks on it (a league's: on its divisions too) that they may no longer follow: a
    removed co-organiser is told nothing more of the event, and has no webhook of it to change."""
    event.organisers.remove(user)
    webhooks_unfollowed_delete(owner=user, event=event)
