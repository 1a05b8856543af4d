"""Leagues: seasons of periodic rounds, players in divisions, promotion and relegation.

Each division of a season is a Tournament (the league's format, a round every
``round_interval``). When every division has finished, the season ends: the top ``promote`` of
each division move up and the bottom ``relegate`` move down (formats.promote_relegate), and a
continuous league starts its next season from those divisions.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from tournaments import formats, limits
from tournaments.errors import ServiceError
from tournaments.models import AuditEvent, League, Player, Rating, RatingLadder, Season, Tournament
from tournaments.selectors import tournament_standings

from .rounds import NOTHING, Progress
from .seeds import derive_seed
from .tournaments import check_format, check_game, entry_add, reads_own_seat, tournament_create, tournament_start

log = logging.getLogger(__name__)


@transaction.atomic
def league_create(
    *,
    name: str,
    slug: str,
    game: str,
    table_size: int,
    division_size: int,
    round_interval: timedelta,
    promote: int = 2,
    relegate: int = 2,
    options: dict | None = None,
    format: str = "round_robin",
    format_config: dict | None = None,
    continuous: bool = True,
    ladder: RatingLadder | None = None,
    open_entry: bool = False,
    owner=None,
) -> League:
    """A new league run by ``owner``; its secret seed, from which every division's deals
    derive, is drawn now."""
    limits.check_text(name, "name", limits.LEAGUE_NAME_MAX)
    limits.check_text(slug, "slug", limits.LEAGUE_SLUG_MAX)
    # The tournament checks, as every division is a tournament with these settings.
    options = check_game(game, table_size, options or {})
    fmt = check_format(format, format_config or {}, table_size, False)
    if isinstance(division_size, bool) or not isinstance(division_size, int) or division_size < table_size:
        raise ServiceError(f"a division needs at least a table's worth of players ({table_size})", "division_size")
    limits.check_int(division_size, "division_size", table_size, limits.MAX_ENTRIES,
                     "a division is a tournament, of at most that many entrants")
    for value, field in ((promote, "promote"), (relegate, "relegate")):
        limits.check_int(value, field, 0, limits.POSITIVE_SMALL_INT_MAX)
    if promote + relegate > division_size - 1:
        raise ServiceError(
            f"promote ({promote}) and relegate ({relegate}) must leave someone in a division of {division_size}",
            "promote",
        )
    limits.check_round_interval(round_interval, required=True)
    limits.check_schedule(round_interval, fmt.planned_rounds(division_size))
    if ladder is not None and ladder.game != game:
        raise ServiceError(f"ladder {ladder.slug} rates {ladder.game}, not {game}", "ladder")
    if League.objects.filter(slug=slug).exists():
        raise ServiceError(f"a league with slug {slug!r} already exists", "slug", code="unique")
    return League.objects.create(
        name=name, slug=slug, game=game, options=options, table_size=table_size, division_size=division_size,
        promote=promote, relegate=relegate, round_interval=round_interval, format=format,
        format_config=format_config or {}, continuous=continuous, ladder=ladder, open_entry=open_entry, owner=owner,
    )


@transaction.atomic
def league_join(*, league: League, player: Player) -> League:
    """Add a player; he plays from the next season, in the bottom division. A league's
    divisions are not played online, so a remote bot (which plays only through the API) is
    refused: it could never take its seat, and the season would not start. An account has at
    most one external bot in a league (the seats-per-account rule, which divisions keep)."""
    if not player.active:
        raise ServiceError(f"{player.name} is not active", "player")
    if player.bot_kind == Player.BotKind.REMOTE:
        raise ServiceError(f"{player.name} is a remote bot: it plays through the API, and league divisions are "
                           "not played online", "player")
    # The seats-per-account rule of its divisions (services.tournaments), which allow no more.
    division = Tournament(game=league.game, online=False)
    if reads_own_seat(player, division):
        for other in league.players.filter(owner_id=player.owner_id).exclude(pk=player.pk):
            if reads_own_seat(other, division):
                raise ServiceError(f"{other.name} and {player.name} are one account's: an account holds at most one "
                                   "seat whose cards it reads in a league's divisions, so as not to read two hands "
                                   "at one table", "player", code="conflict")
    league.players.add(player)
    return league


def _ranked_players(league: League, previous: Season | None) -> list[int]:
    """Best first: last season's divisions in order, then newcomers by rating and name."""
    members = set(league.players.filter(active=True).values_list("pk", flat=True))
    ranked: list[int] = []
    if previous is not None and previous.next_divisions:
        ranked = [p for division in previous.next_divisions for p in division if p in members]
    newcomers = members - set(ranked)
    ratings = {}
    if league.ladder_id:
        ratings = dict(Rating.objects.filter(ladder_id=league.ladder_id, player_id__in=newcomers).values_list("player_id", "mu"))
    names = dict(Player.objects.filter(pk__in=newcomers).values_list("pk", "name"))
    ranked += sorted(newcomers, key=lambda p: (-ratings.get(p, float("-inf")), names[p]))
    return ranked


@transaction.atomic
def season_start(*, league: League, starts_at: datetime | None = None) -> tuple[Season, Progress]:
    """Open the next season: the players cut into divisions, one tournament each. Divisions
    start now, or at ``starts_at`` (the periodic tick starts them). Returns the season and the
    rounds its divisions made (their bot matches for the caller to send)."""
    league = League.objects.select_for_update().get(pk=league.pk)
    previous = league.seasons.order_by("-number").first()
    if previous is not None and previous.finished_at is None:
        raise ServiceError(f"season {previous.number} is still being played", "season", code="conflict")
    ranked = _ranked_players(league, previous)
    divisions = formats.league_divisions(ranked, league.division_size)
    if not divisions or len(divisions[-1]) < league.table_size:
        raise ServiceError(
            f"{len(ranked)} players cannot fill divisions of tables of {league.table_size}", "players"
        )
    starts_at = starts_at or timezone.now()
    season = Season.objects.create(league=league, number=(previous.number + 1) if previous else 1, starts_at=starts_at)
    progress = NOTHING
    for number, members in enumerate(divisions, start=1):
        slug = f"{league.slug}-s{season.number}-d{number}"
        tournament = tournament_create(
            name=f"{league.name}, season {season.number}, division {number}", slug=slug, game=league.game,
            table_size=league.table_size, format=league.format, format_config=league.format_config,
            options=league.options, seed=derive_seed(league.seed, "season", season.number, "division", number),
            ladder=league.ladder, starts_at=starts_at, round_interval=league.round_interval, owner=league.owner,
        )
        # The seed derives from the league's secret: nobody chose it.
        Tournament.objects.filter(pk=tournament.pk).update(season=season, division=number, seed_chosen=False)
        for pid in members:
            entry_add(tournament=tournament, player=Player.objects.get(pk=pid))
        if starts_at <= timezone.now():
            progress += tournament_start(tournament=tournament)[1]
    return season, progress


def season_close_if_done(*, season: Season) -> tuple[bool, Progress]:
    """End a season whose divisions have all finished: record next season's divisions (after
    promotion and relegation) and, for a continuous league, start it. Returns whether it ended,
    and the rounds the next season made. Call in a transaction."""
    season = Season.objects.select_for_update().get(pk=season.pk)
    if season.finished_at is not None:
        return False, NOTHING
    divisions = list(season.divisions.order_by("division"))
    if any(t.status not in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED) for t in divisions):
        return False, NOTHING
    standings = [[line.player.pk for line in tournament_standings(t)] for t in divisions]
    league = season.league
    moves = formats.promote_relegate(standings, league.promote, league.relegate)
    season.next_divisions = [list(d) for d in moves]
    season.finished_at = timezone.now()
    season.save(update_fields=["next_divisions", "finished_at"])
    if not league.continuous:
        return True, NOTHING
    try:
        # A savepoint: the season ends, and the result that ended it is recorded, even when the
        # next one cannot start (too few active players left): the organisers are told, and
        # start it once they can (POST /api/leagues/{id}/seasons/).
        with transaction.atomic():
            return True, season_start(league=league, starts_at=season.finished_at)[1]
    except ServiceError as exc:
        AuditEvent.objects.create(tournament=divisions[0], action="next_season_not_started",
                                  detail={"season": season.number + 1, "why": exc.message})
        log.warning("league %s: season %d ended, the next could not start: %s", league.slug, season.number,
                    exc.message)
        return True, NOTHING


def seasons_close_after(finished: Iterable[Tournament]) -> Progress:
    """The seasons of the league divisions among ``finished`` (tournaments that just finished)
    closed if that was their last division. Call in the transaction that finished them."""
    progress = NOTHING
    for season_id in sorted({t.season_id for t in finished if t.season_id is not None}):
        progress += season_close_if_done(season=Season(pk=season_id))[1]
    return progress
