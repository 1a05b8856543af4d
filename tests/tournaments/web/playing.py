"""Tournaments part played, as the workers leave them while they are busy."""

from __future__ import annotations

from django.test import override_settings

from tournaments.models import Match, Tournament
from tournaments.services.leases import matches_claim
from tournaments.services.play import tournament_play_out
from tournaments.services.tournaments import tournament_start


def play_some(tournament: Tournament, matches: int) -> Tournament:
    """Start the tournament and play about ``matches`` of its matches, in round and table
    order, then stop: the rest wait, as if the workers were busy."""
    tournament.refresh_from_db()
    if tournament.status == Tournament.Status.REGISTRATION:
        tournament_start(tournament=tournament)
    played = []
    with override_settings(MATCH_FLUSH_SECONDS=0):  # each match recorded as soon as played: counted at once
        tournament_play_out(tournament=tournament, owner="test", on_played=played.append,
                            should_stop=lambda: len(played) >= matches)
    tournament.refresh_from_db()
    return tournament


def claim(match: Match) -> Match:
    """A worker takes the match: it is being played (status running)."""
    matches_claim(match_ids=[match.pk], owner="a-worker")
    match.refresh_from_db()
    return match
