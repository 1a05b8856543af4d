"""`manage.py run_tournament`: create built-in bots, run a whole tournament and print its
standings and the ladder's leaderboard. Any game, format and bots; any database and broker.

Without a broker (eager Celery) the matches are played here, one after another, with a
progress bar. With CELERY_BROKER_URL set they go to the workers and this command follows
their progress in the database until the tournament ends.
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tournaments.models import Match, Tournament
from tournaments.services import ServiceError
from tournaments.services.dispatch import held
from tournaments.services.ladders import ladder_create
from tournaments.services.matches import match_play_batch, pending_bot_matches
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start
from tournaments.selectors import ladder_leaderboard, tournament_standings


def parse_value(text: str) -> Any:
    """Option values on the command line: JSON where it parses (numbers, true, null, lists),
    else the plain string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_pairs(pairs: list[str], what: str) -> dict[str, Any]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"{what} must look like key=value, got {pair!r}")
        out[key] = parse_value(value)
    return out


def parse_bots(specs: list[str]) -> list[tuple[str, int]]:
    """``random:4 heuristic`` → [("random", 4), ("heuristic", 1)]."""
    out = []
    for spec in specs:
        name, _, count = spec.partition(":")
        try:
            n = int(count) if count else 1
        except ValueError:
            raise CommandError(f"--bots takes NAME or NAME:COUNT, got {spec!r}") from None
        if n < 1:
            raise CommandError(f"{spec!r}: the count must be at least 1")
        out.append((name, n))
    return out


def standings_table(tournament: Tournament, lines=None) -> Table:
    lines = tournament_standings(tournament) if lines is None else lines
    table = Table(title=f"Standings — {tournament.name}")
    table.add_column("#", justify="right")
    table.add_column("Player")
    table.add_column("Played", justify="right")
    table.add_column("Points", justify="right")
    table.add_column("Game score", justify="right")
    for name in tournament.tiebreaks:
        if name not in ("match_points", "game_score"):
            table.add_column(name.replace("_", " ").title(), justify="right")
    for line in lines:
        extra = [
            _fmt(line.tiebreaks.get(name)) for name in tournament.tiebreaks if name not in ("match_points", "game_score")
        ]
        table.add_row(
            str(line.rank), str(line.player), str(line.played), _fmt(line.match_points), _fmt(line.game_score),
            *extra,
        )
    return table


def print_standings(console: Console, tournament: Tournament) -> None:
    """The standings table, then why each rank is where it is."""
    lines = tournament_standings(tournament)
    console.print(standings_table(tournament, lines))
    for line in lines:
        console.print(f"  {line.rank}. {line.player}: {line.explanation}", highlight=False)


def leaderboard_table(tournament: Tournament) -> Table | None:
    if tournament.ladder is None:
        return None
    table = Table(title=f"Leaderboard — {tournament.ladder}")
    table.add_column("#", justify="right")
    table.add_column("Player")
    table.add_column("Rating", justify="right")
    table.add_column("Games", justify="right")
    for line in ladder_leaderboard(tournament.ladder):
        mark = " (provisional)" if line.provisional else ""
        table.add_row(str(line.rank), str(line.player), f"{line.rating:.1f}{mark}", str(line.games))
    return table


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def play_here(tournament: Tournament, console: Console) -> None:
    """Eager mode: play every bot match in this process, round after round."""
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=False,
    ) as progress:
        task = progress.add_task("matches", total=None)
        done = 0
        while True:
            tournament.refresh_from_db()
            pending = pending_bot_matches(tournament)
            if not pending:
                break
            rnd = Match.objects.get(pk=pending[0]).round.number
            progress.update(task, description=f"round {rnd}", total=done + len(pending))

            def played(_match_id: int) -> None:
                nonlocal done
                done += 1
                progress.update(task, completed=done)

            with held():  # the next round's matches are picked up by this loop
                claims = match_play_batch(match_ids=pending, owner="run_tournament", on_played=played)
            failed = sorted(pk for pk, claim in claims.items() if claim.status == "failed")
            if failed:
                raise CommandError(f"match(es) {failed} could not be played: see the error logged above")


def follow_workers(tournament: Tournament, console: Console, timeout: float) -> None:
    """Broker mode: the workers play; show their progress until the tournament ends."""
    deadline = time.monotonic() + timeout
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("matches", total=None)
        while True:
            tournament.refresh_from_db()
            matches = Match.objects.filter(round__tournament=tournament)
            finished = matches.filter(status=Match.Status.FINISHED).count()
            progress.update(task, completed=finished, total=matches.count(),
                            description=f"round {tournament.rounds.count()}")
            if tournament.status != Tournament.Status.RUNNING:
                return
            if time.monotonic() > deadline:
                raise CommandError(f"the tournament did not finish within {timeout:g}s; it goes on on the workers")
            time.sleep(0.5)


class Command(BaseCommand):
    help = "Run a tournament between built-in bots to the end and print standings and leaderboard."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help="engine game name, e.g. stoppa")
        parser.add_argument("--bots", nargs="+", default=["random:8"], help="NAME or NAME:COUNT entrants (default random:8)")
        parser.add_argument("--format", default="swiss", help="round_robin, swiss, single_elimination, ... (default swiss)")
        parser.add_argument("--format-option", action="append", default=[], metavar="KEY=VALUE",
                            help="format setting, e.g. rounds=5 (repeatable)")
        parser.add_argument("--table-size", type=int, help="seats per table (default: the game's minimum, or 4)")
        parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="engine option (repeatable)")
        parser.add_argument("--duplicate", action="store_true", help="the same deal at every table of a round")
        parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
        parser.add_argument("--name", help="tournament name")
        parser.add_argument("--rating", default="elo", help="rating system of the ladder: elo or openskill")
        parser.add_argument("--ladder", help="ladder slug (default: <game>-bots)")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for workers (broker mode)")

    def handle(self, *args: Any, **opts: Any) -> None:
        import engine

        tty = self.stdout.isatty()
        console = Console(file=self.stdout, force_terminal=tty, width=None if tty else 120)
        try:
            rules = engine.game(opts["game"])
        except engine.UnknownGame as exc:
            raise CommandError(str(exc)) from None
        table_size = opts["table_size"] or (4 if rules.min_players <= 4 <= rules.max_players else rules.min_players)
        try:
            tournament = self._create(rules, table_size, opts)
        except ServiceError as exc:
            raise CommandError(f"{exc.field or 'request'}: {exc.message}") from None
        console.print(
            f"[bold]{tournament.name}[/]: {tournament.entries.count()} entrants, {rules.title}, "
            f"{tournament.format}, tables of {tournament.table_size}, seed {tournament.seed}"
        )
        eager = getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
        if eager:
            with held():
                tournament_start(tournament=tournament)
            play_here(tournament, console)
        else:
            tournament_start(tournament=tournament)
            follow_workers(tournament, console, opts["timeout"])
        tournament.refresh_from_db()
        print_standings(console, tournament)
        board = leaderboard_table(tournament)
        if board is not None:
            console.print(board)

    def _create(self, rules, table_size: int, opts: dict) -> Tournament:
        from django.utils.text import slugify

        ladder = ladder_create(
            slug=opts["ladder"] or f"{rules.name.replace('_', '-')}-bots",
            name=f"{rules.title} bots",
            game=rules.name,
            system=opts["rating"],
        )
        name = opts["name"] or f"{rules.title} {opts['format'].replace('_', ' ')} (seed {opts['seed']})"
        base = slugify(name)[:60] or "tournament"
        slug, n = base, 1
        while Tournament.objects.filter(slug=slug).exists():
            n += 1
            slug = f"{base}-{n}"
        tournament = tournament_create(
            name=name, slug=slug, game=rules.name, table_size=table_size, format=opts["format"],
            options=parse_pairs(opts["option"], "--option"),
            format_config=parse_pairs(opts["format_option"], "--format-option"),
            duplicate=opts["duplicate"], seed=opts["seed"], ladder=ladder,
        )
        for bot, count in parse_bots(opts["bots"]):
            for i in range(1, count + 1):
                player = builtin_bot_get_or_create(bot=bot, name=f"{bot}-{i}" if count > 1 else bot)
                entry_add(tournament=tournament, player=player)
        return tournament
