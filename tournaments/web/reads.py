"""What the pages read beyond tournaments.selectors, built on it: what may be shown is decided
there (``outcome_public``, ``OUTCOME_PUBLIC``, ``tournament_seed_public``), never here.

Each function is a fixed number of queries whatever the size of the ladder or tournament: a
leaderboard page, its search and its trend read only the page's players.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from tournaments import ratings, selectors
from tournaments.models import Entry, Match, Player, Rating, RatingChange, RatingLadder, Round, Seat, Tournament

LEADERBOARD_PAGE = 50
TREND_GAMES = 5  # a leaderboard line's trend: the change over the player's last this many games
HOME_TOP = 5
RECENT_MATCHES = 10


# --- ladders ---------------------------------------------------------------------------------

def current_ladders() -> QuerySet[RatingLadder]:
    """Ladders that are the latest version of their slug (what selectors.current_ladder
    returns for each slug)."""
    newer = RatingLadder.objects.filter(slug=OuterRef("slug"), version__gt=OuterRef("version"))
    return RatingLadder.objects.filter(~Exists(newer))


def main_ladders() -> list[RatingLadder]:
    """Each game's main ladder, by game: of the current versions, the one with the most rating
    changes applied (the counter kept on the ladder's row: no count over its ratings)."""
    chosen: dict[str, RatingLadder] = {}
    for ladder in current_ladders().order_by("game", "-applied", "-created_at", "-pk"):
        chosen.setdefault(ladder.game, ladder)
    return [ladder for ladder in chosen.values() if ladder.applied]


def ladders_by_game() -> list[tuple[str, list[RatingLadder]]]:
    """Every ladder, grouped by game, each with ``players`` (rated on it) and ``current`` (the
    latest version of its slug); the busiest first."""
    newer = RatingLadder.objects.filter(slug=OuterRef("slug"), version__gt=OuterRef("version"))
    ladders = (RatingLadder.objects.annotate(players=Count("ratings"), superseded=Exists(newer))
               .order_by("game", "superseded", "-applied", "name", "-version"))
    groups: dict[str, list[RatingLadder]] = {}
    for ladder in ladders:
        ladder.current = not ladder.superseded
        groups.setdefault(ladder.game, []).append(ladder)
    return list(groups.items())


def ladder_system(ladder: RatingLadder) -> ratings.RatingSystem:
    return ratings.system_from_json(ladder.config)


def _position() -> Coalesce:
    """A rating's line on its ladder's leaderboard, as selectors.Leaderboard numbers them
    (by value, then the player who came first: selectors.BOARD_ORDER): 1 + those above it. Two
    counts along the rating_board index (ladder, value, player), not a sort of the ladder."""
    def count(rows: QuerySet) -> Coalesce:
        return Coalesce(Subquery(rows.order_by().values("ladder").annotate(n=Count("pk")).values("n")), Value(0))

    same_ladder = Rating.objects.filter(ladder=OuterRef("ladder"))
    above = count(same_ladder.filter(value__gt=OuterRef("value")))
    level_before = count(same_ladder.filter(value=OuterRef("value"), player_id__lt=OuterRef("player_id")))
    return above + level_before + Value(1)


class LeaderboardSearch:
    """The lines of a ladder's leaderboard whose player's name or display name holds ``q``,
    best first, each with its rank on the whole board; read by pages like
    selectors.Leaderboard (a count, then a slice: one query each)."""

    def __init__(self, ladder: RatingLadder, q: str) -> None:
        matching = Q(player__name__icontains=q) | Q(player__display_name__icontains=q)
        self.rows = (Rating.objects.filter(matching, ladder=ladder).select_related("player")
                     .annotate(position=_position()).order_by(*selectors.BOARD_ORDER))

    def count(self) -> int:
        return self.rows.count()

    def __getitem__(self, window: slice) -> list[selectors.LeaderboardLine]:
        return [selectors.LeaderboardLine(row.position, row.player, row.value, row.mu, row.sigma, row.games,
                                          row.provisional) for row in self.rows[window]]


def leaderboard_page(ladder: RatingLadder, *, q: str = "", page: str | int | None = 1) -> Page:
    """A page of the ladder's leaderboard (``LEADERBOARD_PAGE`` lines), or of the lines whose
    player's name holds ``q``; an out-of-range page number gives the last page."""
    board = LeaderboardSearch(ladder, q) if q else selectors.ladder_leaderboard(ladder)
    return Paginator(board, LEADERBOARD_PAGE).get_page(page)


@dataclass(frozen=True)
class Trend:
    change: float  # the leaderboard value now minus ``games`` games ago
    games: int


def leaderboard_trends(ladder: RatingLadder, lines: Sequence[selectors.LeaderboardLine]) -> dict[int, Trend]:
    """Each line's trend (by player id): how its leaderboard value moved over its last
    ``TREND_GAMES`` rated games (fewer, for a player with fewer). One query for all the
    lines: the ledger line that opened that stretch of each player (its ``before`` rating),
    found by player and games, along the player index."""
    wanted = {line.player.pk: min(line.games, TREND_GAMES) for line in lines if line.games > 0}
    if not wanted:
        return {}
    line_of = {line.player.pk: line for line in lines}
    opening = functools.reduce(operator.or_, (Q(player_id=player, games=line_of[player].games - games + 1)
                                              for player, games in wanted.items()))
    # Not filtered by ladder in the query: the database would then walk the ladder's whole
    # ledger; the few lines of the players' other ladders are dropped here instead.
    rows = (RatingChange.objects.filter(opening).order_by()  # unordered: no join to sort by
            .values_list("ladder_id", "player_id", "before_mu", "before_sigma"))
    system = ladder_system(ladder)
    trends = {}
    for ladder_id, player, mu, sigma in rows:
        if ladder_id == ladder.pk:
            then = system.leaderboard_value(ratings.Rating(mu=mu, sigma=sigma))
            trends[player] = Trend(change=line_of[player].rating - then, games=wanted[player])
    return trends


@dataclass(frozen=True)
class PlayerRating:
    ladder: RatingLadder
    rating: Rating
    rank: int
    players: int  # on the ladder


def player_ratings(player: Player) -> list[PlayerRating]:
    """The player's rating on each ladder it is rated on, with its rank there (as on the
    leaderboard) and the ladder's size; current versions first, then by game."""
    players_on = Subquery(Rating.objects.filter(ladder=OuterRef("ladder")).order_by().values("ladder")
                          .annotate(n=Count("pk")).values("n"))
    newer = RatingLadder.objects.filter(slug=OuterRef("ladder__slug"), version__gt=OuterRef("ladder__version"))
    rows = (Rating.objects.filter(player=player).select_related("ladder")
            .annotate(position=_position(), players=players_on, superseded=Exists(newer))
            .order_by("superseded", "ladder__game", "ladder__name", "-ladder__version"))
    return [PlayerRating(row.ladder, row, row.position, row.players) for row in rows]


@dataclass(frozen=True)
class HistoryPoint:
    games: int
    rating: float  # the leaderboard value after that many rated games


def rating_points(ladder: RatingLadder, player: Player) -> list[HistoryPoint]:
    """The player's leaderboard value on the ladder after each rated game, from its first
    rating (before its first game) on (selectors.rating_history)."""
    system = ladder_system(ladder)
    rows = selectors.rating_history(ladder, player).values_list(
        "games", "before_mu", "before_sigma", "after_mu", "after_sigma")
    points: list[HistoryPoint] = []
    for games, before_mu, before_sigma, after_mu, after_sigma in rows:
        if not points:
            points.append(HistoryPoint(games - 1, system.leaderboard_value(ratings.Rating(before_mu, before_sigma))))
        points.append(HistoryPoint(games, system.leaderboard_value(ratings.Rating(after_mu, after_sigma))))
    return points


# --- players ---------------------------------------------------------------------------------

def player_recent_matches(player: Player, limit: int = RECENT_MATCHES) -> list[Match]:
    """The player's last matches whose outcome is public (selectors.OUTCOME_PUBLIC), newest
    first, with their tournament and seats."""
    seats = Seat.objects.select_related("player").order_by("position")
    return list(
        Match.objects.filter(selectors.OUTCOME_PUBLIC, seats__player=player)
        .select_related("round__tournament").prefetch_related(Prefetch("seats", queryset=seats))
        .order_by("-finished_at", "-pk")[:limit]
    )


def player_entries(player: Player) -> QuerySet[Entry]:
    """The tournaments the player entered, newest first."""
    return Entry.objects.filter(player=player).select_related("tournament").order_by("-tournament__created_at",
                                                                                        "-tournament__pk")


# --- tournaments -----------------------------------------------------------------------------

def tournaments_listed() -> QuerySet[Tournament]:
    """Tournaments with their number of entrants, newest first."""
    return Tournament.objects.annotate(entrants=Count("entries")).order_by("-created_at", "-pk")


def live_tournaments(limit: int = 10) -> list[Tournament]:
    return list(tournaments_listed().filter(status=Tournament.Status.RUNNING)[:limit])


def upcoming_tournaments(limit: int = 10) -> list[Tournament]:
    """Registration open (or still a draft), of those that are events yet: a table's worth of
    active entrants (it could start now), or open entry (it invites players' owners to enter).
    Any account makes tournaments, and one being set up, or a try-out nobody entered, is
    nothing to announce on the front page (the list of every tournament shows it). The soonest
    to start first, then the newest."""
    upcoming = (tournaments_listed().filter(status__in=[Tournament.Status.REGISTRATION, Tournament.Status.DRAFT])
                .annotate(active=Count("entries", filter=Q(entries__withdrawn_at__isnull=True,
                                                           entries__disqualified="")))
                .filter(Q(open_entry=True) | Q(active__gte=F("table_size"))))
    return list(upcoming.order_by("starts_at", "-created_at", "-pk")[:limit])


def recent_finished(limit: int = 5) -> list[Tournament]:
    finished = tournaments_listed().filter(status=Tournament.Status.FINISHED)
    return list(finished.order_by("-finished_at", "-pk")[:limit])


@dataclass(frozen=True)
class RoundProgress:
    number: int
    status: str
    tables: int
    finished: int
    playing: int


def rounds_progress(tournament: Tournament) -> list[RoundProgress]:
    """Each round made so far: its tables, how many are finished and being played (a match's
    status is public; its result is not: selectors.outcome_public)."""
    rows = (Round.objects.filter(tournament=tournament).order_by("number")
            .annotate(tables=Count("matches"),
                      finished=Count("matches", filter=Q(matches__status=Match.Status.FINISHED)),
                      playing=Count("matches", filter=Q(matches__status=Match.Status.RUNNING)))
            .values_list("number", "status", "tables", "finished", "playing"))
    return [RoundProgress(*row) for row in rows]


def tournament_round(tournament: Tournament, number: int) -> Round | None:
    """One round with its matches and their seated players (selectors.tournament_rounds)."""
    return selectors.tournament_rounds(tournament).filter(number=number).first()


def round_numbers(tournament: Tournament) -> list[int]:
    return list(tournament.rounds.order_by("number").values_list("number", flat=True))


def match_with_seats(pk: int) -> Match | None:
    """A match with its round, tournament and seated players, seat by seat."""
    seats = Seat.objects.select_related("player").order_by("position")
    return (Match.objects.select_related("round__tournament").prefetch_related(Prefetch("seats", queryset=seats))
            .filter(pk=pk).first())


def round_byes(rnd: Round) -> list[Player]:
    """The players with a bye in the round, in the order the format gave them."""
    players = Player.objects.in_bulk(set(rnd.byes))
    return [players[pk] for pk in rnd.byes if pk in players]


def tournament_entries(tournament: Tournament) -> QuerySet[Entry]:
    """The entrants, best seed first."""
    return tournament.entries.select_related("player").order_by("seed_rank")
