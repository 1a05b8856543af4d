"""Tournaments for the pages' tests, built and played through the services as the API would
(tests/tournaments/helpers.py), small enough to play in a fraction of a second."""

from __future__ import annotations

import pytest

from tournaments.models import Match, Tournament

from ..helpers import bot_players, make_tournament, play_out
from .playing import claim, play_some


@pytest.fixture
def swiss(db) -> Tournament:
    """A finished Sette e mezzo Swiss of eight bots at tables of four, rated on its ladder."""
    tournament = make_tournament(bot_players(8, prefix="swiss"), slug="club-swiss", ladder_slug="sette-ladder")
    play_out(tournament)
    return tournament


@pytest.fixture
def knockout(db) -> Tournament:
    """A finished single elimination of six Piazza bots: two byes in a bracket of eight."""
    tournament = make_tournament(bot_players(6, prefix="piazza"), slug="piazza-cup", game="piazza", table_size=2,
                                 format="single_elimination", format_config={}, options={}, ladder_slug="piazza-ladder")
    play_out(tournament)
    return tournament


@pytest.fixture
def running(db) -> Tournament:
    """A Swiss being played: round 1 over, one table of round 2 finished and one in play."""
    tournament = make_tournament(bot_players(8, prefix="live"), slug="live-swiss", ladder_slug="live-ladder",
                                 seed=None)  # drawn: 63 random bits, which no page may show
    play_some(tournament, 3)
    waiting = Match.objects.get(round__tournament=tournament, round__number=2, status=Match.Status.PENDING)
    claim(waiting)
    return tournament


@pytest.fixture
def duplicate(db) -> Tournament:
    """A duplicate round robin of four: in round 1, every table plays the same deal; one of
    them is finished, the others not yet."""
    tournament = make_tournament(bot_players(4, prefix="dup"), slug="duplicate-rr", format="round_robin",
                                 format_config={}, duplicate=True, ladder_slug="dup-ladder", seed=None)
    return play_some(tournament, 1)
