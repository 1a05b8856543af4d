"""Building tournaments of built-in bots for the tests; reading event streams."""

from __future__ import annotations

import json

from rest_framework.test import APIClient

from tournaments import selectors
from tournaments.models import Match, Player, Rating, RatingChange
from tournaments.services.ladders import ladder_create
from tournaments.services.play import tournament_play_out
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
    in eager mode (services.play.tournament_play_out). Returns the number of matches played."""
    tournament.refresh_from_db()
    if tournament.status == "registration":
        tournament_start(tournament=tournament)  # nothing is sent: the matches are played here
    played = tournament_play_out(tournament=tournament, owner=owner).played
    tournament.refresh_from_db()
    return played


def pending_bot_matches(tournament) -> list[int]:
    """The tournament's bot matches nobody has claimed, in round and table order."""
    return list(
        Match.objects.filter(round__tournament=tournament, status=Match.Status.PENDING)
        .exclude(seats__player__kind=Player.Kind.PERSON)
        .order_by("round__number", "table")
        .values_list("pk", flat=True)
    )


def started_round_robin(n: int = 4):
    """A started round robin of ``n`` random bots at tables of 4, nothing played (services
    send nothing: the caller does). Returns (tournament, round 1's matches by table)."""
    tournament = make_tournament(bot_players(n), format="round_robin", format_config={})
    tournament_start(tournament=tournament)
    return tournament, list(Match.objects.filter(round__tournament=tournament, round__number=1).order_by("table"))


def schedule(tournament):
    """(round, table, seats in turn order) of every match, in the order made."""
    matches = (Match.objects.filter(round__tournament=tournament).select_related("round")
               .prefetch_related("seats").order_by("round__number", "table"))
    return [(m.round.number, m.table, tuple(s.player_id for s in sorted(m.seats.all(), key=lambda s: s.position)))
            for m in matches]


def outcome(tournament):
    """All a tournament came to, for comparing two runs: its schedule, standings with their
    tie-breaks, ratings, the ledger in the order applied, and the replay records."""
    standings = [(line.player.pk, line.rank, line.match_points, line.game_score, line.tiebreaks)
                 for line in selectors.tournament_standings(tournament)]
    ratings = sorted(Rating.objects.filter(ladder=tournament.ladder).values_list("player_id", "mu", "sigma", "games"))
    ledger = list(RatingChange.objects.filter(ladder=tournament.ladder).order_by("sequence")
                  .values_list("match__round__number", "match__table", "player_id", "after_mu"))
    records = list(Match.objects.filter(round__tournament=tournament).order_by("round__number", "table")
                   .values_list("record", flat=True))
    return schedule(tournament), standings, ratings, ledger, records


def as_user(user) -> APIClient:
    """An API client signed in as ``user`` (as a session: every scope)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def parse_events(body: bytes) -> list[dict]:
    """Server-sent events as a client parses them: {"id", "event", "data"}; comments dropped."""
    out = []
    for block in body.decode().split("\n\n"):
        event = {}
        for line in block.splitlines():
            key, _, value = line.partition(": ")
            if key in ("id", "event"):
                event[key] = value
            elif key == "data":
                event["data"] = json.loads(value)
        if "event" in event:
            out.append(event)
    return out


def error(answer) -> dict:
    """An API refusal's ``error`` object: ``code``, ``message`` and, when fields are at fault,
    ``fields`` (docs/api.md, "Errors")."""
    body = answer.json()
    assert set(body) == {"error"}, body
    return body["error"]


def fields(answer) -> dict[str, list[str]]:
    """The fields at fault of an API refusal, each with its messages ({} when none)."""
    return error(answer).get("fields", {})


def moved(done):
    """What an online change made, sent on as the request or task that made it sends it
    (dispatch.send_progress): with the ``service_turns`` fixture, the service's seats play up to
    the next online turn here. ``done``: a rounds.Progress, or a services.online.Acted; returned."""
    from tournaments.services import dispatch

    dispatch.send_progress(getattr(done, "progress", done))
    return done
