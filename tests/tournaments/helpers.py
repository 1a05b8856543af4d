"""Building tournaments of built-in bots for the tests."""

from __future__ import annotations

from tournaments.models import Match
from tournaments.services.dispatch import held
from tournaments.services.ladders import ladder_create
from tournaments.services.matches import match_play, pending_bot_matches
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start


def bot_players(count: int, bot: str = "random", prefix: str = "bot"):
    return [builtin_bot_get_or_create(bot=bot, name=f"{prefix}-{i}") for i in range(1, count + 1)]


def make_tournament(players, *, slug="club-night", game="sette_e_mezzo", table_size=4, format="swiss",
                    format_config=None, options=None, seed=11, ladder_slug="ladder", **extra):
    ladder = ladder_create(slug=ladder_slug, name=ladder_slug, game=game) if ladder_slug else None
    tournament = tournament_create(
        name=slug, slug=slug, game=game, table_size=table_size, format=format,
        format_config=format_config if format_config is not None else {"rounds": 3},
        options=options if options is not None else {"hands": 2}, seed=seed, ladder=ladder, **extra,
    )
    for player in players:
        entry_add(tournament=tournament, player=player)
    return tournament


def play_out(tournament, owner="test"):
    """Start (if needed) and play every bot match in this process, as run_tournament does
    in eager mode. Returns the number of matches played."""
    played = 0
    tournament.refresh_from_db()
    with held():
        if tournament.status == "registration":
            tournament_start(tournament=tournament)
        while True:
            pending = pending_bot_matches(tournament)
            if not pending:
                break
            for match_id in pending:
                match_play(match_id=match_id, owner=owner)
                played += 1
    tournament.refresh_from_db()
    return played


def started_round_robin(n: int = 4):
    """A started round robin of ``n`` random bots at tables of 4, nothing played (the workers'
    messages held back). Returns (tournament, round 1's matches by table)."""
    tournament = make_tournament(bot_players(n), format="round_robin", format_config={})
    with held():
        tournament_start(tournament=tournament)
    return tournament, list(Match.objects.filter(round__tournament=tournament, round__number=1).order_by("table"))
