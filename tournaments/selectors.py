"""Everything that reads the service's state for the API, the pages and the commands."""

from __future__ import annotations

import hashlib
import itertools
import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import BooleanField, ExpressionWrapper, F, Prefetch, Q, QuerySet
from django.utils import timezone

import engine
from tournaments import formats, plain
from tournaments import standings as standings_algo
from tournaments.formats.stored import tournament_format
from tournaments.models import (
    Match,
    Player,
    Rating,
    RatingChange,
    RatingLadder,
    Round,
    Seat,
    Tournament,
    plays_online,
    seats_online,
)

# --- what may be shown (docs/api.md, "What the API shows, and when") -----------------------------
#
# A match's cards derive from its seed (and the tournament's), so a seed is a secret until
# nothing it decides is still to be played. In duplicate play every table of a round plays the
# same cards, so one table's result, replay or seed says something about the cards of the
# tables still playing: they stay hidden until the whole round is over.

def outcome_public(match: Match) -> bool:
    """May anyone see ``match``'s seed, result and replay? Once it is finished, and, in
    duplicate play, once its round is over."""
    if match.status != Match.Status.FINISHED:
        return False
    return match.deal is None or match.round.status == Round.Status.FINISHED


# The same rule as a query, for lists.
OUTCOME_PUBLIC = Q(status=Match.Status.FINISHED) & (Q(deal__isnull=True) | Q(round__status=Round.Status.FINISHED))


def tournament_seed_public(tournament: Tournament) -> bool:
    """A tournament's seed (every deal derives from it) is shown once it is finished."""
    return tournament.status == Tournament.Status.FINISHED


def tournament_table_results(tournament: Tournament) -> tuple[list[formats.TableResult], list[int]]:
    """Every table of the tournament whose outcome is public (:func:`outcome_public`), as the
    standings see it, and every bye."""
    public = Match.objects.filter(OUTCOME_PUBLIC, round__tournament=tournament)
    seats = (
        Seat.objects.filter(match__in=public)
        .order_by("match__round__number", "match__table", "position")
        .values_list("match_id", "player_id", "place", "score")
    )
    tables = [table for _, table in table_results(seats)]
    byes = [p for rnd in tournament.rounds.order_by("number") for p in rnd.byes]
    return tables, byes


def table_results(rows: Iterable[tuple]) -> Iterator[tuple[Any, formats.TableResult]]:
    """Seat rows ``(table key, player id, place, score)``, sorted by table and then seat, as
    (table key, TableResult): the one place a table's result is built from its seats."""
    for key, seats in itertools.groupby(rows, key=operator.itemgetter(0)):
        seats = list(seats)
        yield key, formats.TableResult(seats=tuple(r[1] for r in seats), places=tuple(r[2] for r in seats),
                                       scores=tuple(r[3] for r in seats))


@dataclass(frozen=True)
class StandingLine:
    rank: int
    player: Player
    match_points: Any
    game_score: Any
    tiebreaks: dict
    explanation: str
    played: int
    withdrawn: bool
    reached: str | None  # how far in the bracket, for elimination formats


STANDINGS_CACHE_SECONDS = 7 * 24 * 3600  # a key names one exact state: it is never stale, only unused


def tournament_standings(tournament: Tournament, phrases: standings_algo.Phrases | None = None) -> list[StandingLine]:
    """The standings with their tie-breaks and an explanation of each rank. In an elimination
    format, how far each entrant went in the bracket comes first (``Format.reached``, read
    from the rounds closed so far).

    Computing them reads every public table; they change only when a result is recorded, a
    round made or closed, an entry or an entrant's name changes. So they are kept in the cache
    under the key of that state (:func:`standings_key`: the tournament's scoring and its
    standings version, one small query): a read after any change computes them afresh, and
    every other read is a cache hit."""
    phrases = phrases or standings_algo.ENGLISH
    key = f"{standings_key(tournament.pk)}:{phrases.language}"  # the explanations are in its language
    entries = list(tournament.entries.select_related("player").order_by("seed_rank"))
    by_id = {e.player_id: e for e in entries}
    rows = cache.get(key)
    if rows is None:
        rows = _standings_rows(tournament, entries, phrases)
        cache.set(key, rows, STANDINGS_CACHE_SECONDS)
    return [StandingLine(rank, by_id[player_id].player, *rest) for rank, player_id, *rest in rows]


def standings_key(tournament_id: int) -> str | None:
    """A name for the state the tournament's standings are computed from: its scoring and status,
    and its standings version, which every change of the other rows they read adds one to (its
    entries and their names, its rounds, its results: services.versions). None: no such
    tournament. Read on every request for the standings, so one plain statement on one row."""
    state = plain.standings_state(tournament_id)
    if state is None:
        return None
    # The JSON columns come as text on both backends here (no converter): the same text, the same key.
    return f"standings:{tournament_id}:{state[-1]}:" + hashlib.sha256(repr(state[:-1]).encode()).hexdigest()[:32]


def _standings_rows(tournament: Tournament, entries: list,
                    phrases: standings_algo.Phrases = standings_algo.ENGLISH) -> list[tuple]:
    """The standings computed from every public table: (rank, player id, match points, game
    score, tie-breaks, explanation, played, withdrawn, reached) a line."""
    tables, byes = tournament_table_results(tournament)
    fmt = tournament_format(tournament)
    rows = standings_algo.standings(
        [e.player_id for e in entries],
        tables,
        byes=byes,
        points_by_place=tournament.points_by_place,
        tiebreaks=tournament.tiebreaks,
        names={e.player_id: str(e.player) for e in entries},
        # Entrants still competing, as the format sees them: one in the history but not here
        # withdrew, and loses its next table by walkover.
        reached=fmt.reached(active_entrants(tournament), round_history(tournament)),
        phrases=phrases,
    )
    by_id = {e.player_id: e for e in entries}
    played: dict[int, int] = {}
    for table in tables:
        for p in table.seats:
            played[p] = played.get(p, 0) + 1
    return [
        (
            row.rank, row.entrant,
            standings_algo.json_number(row.match_points),
            standings_algo.json_number(row.game_score),
            {k: None if v is None else standings_algo.json_number(v) for k, v in row.tiebreak_values.items()},
            row.explanation,
            played.get(row.entrant, 0),
            not by_id[row.entrant].active,
            row.reached,
        )
        for row in rows
    ]


@dataclass(frozen=True)
class LeaderboardLine:
    rank: int
    player: Player
    rating: float
    mu: float
    sigma: float | None
    games: int
    provisional: bool


class Leaderboard:
    """A ladder's leaderboard, best first (the system's leaderboard value, then the player who
    came first: their id), read a page at a time: ``board[a:b]`` is :func:`board_rows` (one
    query on the index however deep) and its players, ``len(board)`` a count. Ranks are
    positions: 1 for the first line of the board."""

    def __init__(self, ladder: RatingLadder) -> None:
        self.ladder_id = ladder.pk

    def count(self) -> int:
        return board_count(self.ladder_id)

    __len__ = count

    def __getitem__(self, window: slice) -> list[LeaderboardLine]:
        if not isinstance(window, slice) or window.step not in (None, 1):
            raise TypeError("a leaderboard is read by slices")
        start = window.start or 0
        stop = window.stop if window.stop is not None else self.count()
        rows = board_rows(self.ladder_id, limit=max(0, stop - start), offset=start) if stop > start else []
        players = Player.objects.in_bulk([row[0] for row in rows])
        return [LeaderboardLine(rank, players[player], value, mu, sigma, games, provisional)
                for rank, (player, _, value, mu, sigma, games, provisional) in enumerate(rows, start=start + 1)]

    def __iter__(self):
        return iter(self[0:None])


BOARD_ORDER = ("-value", "player_id")  # the index rating_leaderboard, in this order
BOARD_COLUMNS = ("player_id", "player name", "value", "mu", "sigma", "games", "provisional")


def ladder_leaderboard(ladder: RatingLadder, limit: int | None = None) -> Leaderboard | list[LeaderboardLine]:
    """Players by the system's leaderboard value (Elo: the rating; openskill: mu − 3σ): the
    whole board, read by pages, or its first ``limit`` lines."""
    board = Leaderboard(ladder)
    return board[:limit] if limit else board


def board_rows(ladder_id: int, *, limit: int, offset: int = 0, after: tuple[float, int] | None = None,
               before: tuple[float, int] | None = None) -> list[tuple]:
    """Lines of a leaderboard as plain rows (:data:`BOARD_COLUMNS`), best first: ``limit``
    of them from ``offset``, or just after (or just before) the line ``(value, player id)``.

    One query, in plain SQL because its shape is what makes it fast: the window of lines is
    read off the covering index alone (however deep the offset), and only the lines in it are
    joined to their players' names."""
    return plain.board_rows(ladder_id, limit=limit, offset=offset, after=after, before=before)


def board_ahead(ladder_id: int, value: float, player_id: int, *, including: bool) -> int:
    """How many lines of a leaderboard come before the line ``(value, player id)`` (and that
    line too, ``including`` it, if it is there)."""
    same = Q(value=value, player_id__lte=player_id) if including else Q(value=value, player_id__lt=player_id)
    return Rating.objects.filter(Q(value__gt=value) | same, ladder_id=ladder_id).count()


def ladder_version(ladder_id: int) -> RatingLadder | None:
    """The ladder with its id and ``applied`` alone (what a read of its board or a history is
    kept under), or None: no such ladder. Read on every such request, so in plain SQL: the
    ORM's query builder cost more than the query."""
    row = plain.ladder_applied(ladder_id)
    return None if row is None else plain.partial(RatingLadder, {"id": ladder_id, "applied": row[0]})


def board_count(ladder_id: int) -> int:
    return Rating.objects.filter(ladder_id=ladder_id).count()


def rating_history(ladder: RatingLadder, player: Player | int) -> QuerySet[RatingChange]:
    """A player's rating changes on a ladder, in the order applied (without the matches'
    replay records, which a line of history does not show)."""
    return ladder_ledger(ladder).filter(player=player).order_by("sequence")


HISTORY_COLUMNS = ("sequence", "match_id", "match__round__tournament_id", "player_id", "before_mu", "before_sigma",
                   "after_mu", "after_sigma", "games", "expected_place", "actual_place", "created_at")


def history_rows(ladder_id: int, player_id: int, *, limit: int, after: int | None = None,
                 before: int | None = None) -> list[dict]:
    """A player's rating changes on a ladder as plain rows (:data:`HISTORY_COLUMNS`): the first
    ``limit`` in the order applied after the sequence number ``after``, or the last ``limit``
    before ``before``, nearest first. One plain statement (a history's page is read on every
    miss of the API's kept answers)."""
    found = plain.history_rows(ladder_id, player_id, HISTORY_COLUMNS, limit=limit, after=after, before=before)
    return [dict(zip(HISTORY_COLUMNS, values)) for values in found]


def ladder_ledger(ladder: RatingLadder) -> QuerySet[RatingChange]:
    """Every rating change of a ladder, with the round of its match (not the match's replay
    record: kilobytes a line that no ledger line shows)."""
    return RatingChange.objects.filter(ladder=ladder).select_related("match__round").defer("match__record")


def current_ladder(slug: str) -> RatingLadder | None:
    return RatingLadder.objects.filter(slug=slug).order_by("-version").first()


def tournament_rounds(tournament: Tournament) -> QuerySet[Round]:
    """Rounds with their matches and seats, for brackets and round pages."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    matches = Prefetch("matches", queryset=Match.objects.order_by("table").prefetch_related(seats))
    return tournament.rounds.order_by("number").prefetch_related(matches)


def match_outcome_state(match_id: int) -> Match | None:
    """The match with what decides whether its outcome is public (its status, deal and finishing
    time, its round's status) and nothing else, or None: no such match. Read on every request
    for a replay, so in one plain statement (the ORM's builder cost more than the query)."""
    row = plain.match_outcome_row(match_id)
    if row is None:
        return None
    status, deal, finished_at, round_id, round_status = row
    match = plain.partial(Match, {"id": match_id, "status": status, "deal": deal, "finished_at": finished_at,
                                  "round_id": round_id})
    Match._meta.get_field("round").set_cached_value(match, plain.partial(Round, {"id": round_id, "status": round_status}))
    return match


def match_record(match_id: int) -> dict | None:
    """A match's replay record (its engine's ``to_json()``), None when it has none (a result
    reported by people), in one plain statement."""
    return plain.match_record(match_id)


def replay_available(match: Match) -> tuple[bool, str]:
    """A match may be replayed once its outcome is public (:func:`outcome_public`); else why not."""
    if match.status != Match.Status.FINISHED:
        return False, "the match is not finished"
    if not outcome_public(match):
        return False, "other tables of this round play the same deal: its replay opens when the round ends"
    return True, ""


def match_log(record: dict) -> list[dict]:
    """A match's complete event log, rebuilt by replaying its record through the engine."""
    return engine.load(record).log


# --- online play ---------------------------------------------------------------------------------

def online_seats(user, bot_id: int | None = None) -> QuerySet[Seat]:
    """The seats ``user``'s players hold in online matches being played (only ``bot_id``'s, for
    a token tied to that bot), the match's deadline and whether it awaits that seat
    (``your_turn``), those awaited first, then the soonest deadline. Only seats played through
    the API (a person's, a remote bot's): a seat the service plays is nobody's to read
    (tournaments.permissions.sees_seat), so neither this list nor the turn stream shows it."""
    seats = Seat.objects.filter(
        plays_online("player__"), match__status=Match.Status.RUNNING, match__round__tournament__online=True,
        player__owner=user,
    ).exclude(match__round__tournament__status=Tournament.Status.CANCELLED)
    if bot_id is not None:
        seats = seats.filter(player_id=bot_id)
    return (
        seats.select_related("player", "match__round__tournament")
        .annotate(your_turn=ExpressionWrapper(Q(match__awaiting_seat=F("position")), output_field=BooleanField()))
        .order_by("-your_turn", F("match__deadline_at").asc(nulls_last=True), "match_id")
    )


# --- what is left to play -------------------------------------------------------------------------

@dataclass(frozen=True)
class LeaseHeld:
    """A bot match another worker's live lease holds."""

    match_id: int
    owner: str
    expires_at: Any  # datetime


def open_bot_matches(tournament: Tournament, owner: str) -> tuple[list[int], list[LeaseHeld]]:
    """The tournament's bot matches still to play, in round and table order, split in two:
    those ``owner`` may play now — pending, or running but leased to ``owner`` (a run killed
    half way left them so) or with their lease run out (a dead worker) — and those someone
    else's live lease holds."""
    now = timezone.now()
    rows = (
        Match.objects.filter(round__tournament=tournament, status__in=[Match.Status.PENDING, Match.Status.RUNNING])
        .exclude(seats_online())
        .order_by("round__number", "table")
        .values_list("pk", "status", "lease_owner", "lease_expires_at")
    )
    playable, held = [], []
    for pk, status, lease_owner, expires in rows:
        if status == Match.Status.PENDING or lease_owner == owner or expires is None or expires <= now:
            playable.append(pk)
        else:
            held.append(LeaseHeld(pk, lease_owner, expires))
    return playable, held


# --- what the formats see -------------------------------------------------------------------


def active_entrants(tournament: Tournament) -> list[int]:
    """Player ids still competing, best seed first."""
    return list(
        tournament.entries.filter(withdrawn_at__isnull=True, disqualified="")
        .order_by("seed_rank")
        .values_list("player_id", flat=True)
    )


def round_history(tournament: Tournament, *, open_rounds: bool = False) -> list[formats.RoundResult]:
    """Finished rounds as the formats see them: seats, places and scores of every table, in
    the order the rounds and tables were made (elimination reads its seeding back from it).

    With ``open_rounds``, rounds still being played come too, every seat of their tables tied
    (place 1, score 0): for a format that does not read results (``uses_results``), which may
    then make rounds ahead."""
    rounds = tournament.rounds.order_by("number")
    if not open_rounds:
        rounds = rounds.filter(status=Round.Status.FINISHED)
    made = list(rounds.values_list("pk", "number", "byes", "status"))
    seats = (
        Seat.objects.filter(match__round__in=[pk for pk, *_ in made])
        .order_by("match__round__number", "match__table", "position")
        .values_list("match__round_id", "match_id", "player_id", "place", "score")
    )
    finished = {pk for pk, _, _, status in made if status == Round.Status.FINISHED}
    tables: dict[int, list[formats.TableResult]] = {pk: [] for pk, *_ in made}
    for (round_id, _), table in table_results(((r[0], r[1]), *r[2:]) for r in seats):
        if round_id not in finished:  # still being played: every seat tied
            table = formats.TableResult.unplayed(table.seats)
        tables[round_id].append(table)
    return [formats.RoundResult(number=n, tables=tuple(tables[pk]), byes=tuple(byes)) for pk, n, byes, _ in made]
