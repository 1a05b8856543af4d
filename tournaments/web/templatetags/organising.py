"""Whether the person reading a page runs the tournament it shows: the public pages link to the
organisers' screens for its organisers only (tournaments.permissions.organises, as the API
decides it)."""

from __future__ import annotations

from django import template

from tournaments import permissions
from tournaments.models import Tournament
from tournaments.web.organise import caller

register = template.Library()


@register.simple_tag(takes_context=True)
def organises(context, tournament: Tournament) -> bool:
    """``{% organises tournament as runs_it %}``: the reader is one of its organisers."""
    request = context.get("request")
    if request is None or not request.user.is_authenticated:
        return False
    return permissions.organises(caller(request), tournament)
