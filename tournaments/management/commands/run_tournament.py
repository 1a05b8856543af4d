"""`manage.py run_tournament`: create built-in bots, run a whole tournament and print its
standings and the ladder's leaderboard. Any game, format and bots; any database and broker.

Without a broker (eager Celery) the matches are played here, one after another, with a
progress bar. With CELERY_BROKER_URL set they go to the workers and this command follows
their progress in the database until the tournament ends.

A run that stopped half way (Ctrl-C, a killed process, a timeout) is finished with
``--resume SLUG``: the same tournament, no new one, every match recorded and rated once. So
that nothing is rated twice by accident, a new run never takes the slug of an existing
tournament (it is refused, naming ``--resume``), and it is rated on a fresh ladder of its own,
named after it, unless ``--ladder`` names a ladder to share with other tournaments.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

from django import db
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone
from django.utils.text import slugify
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import engine
from tournaments import ratings
from tournaments.formats.stored import tournament_format
from tournaments.models import Match, Player, RatingChange, RatingLadder, Round, Tournament
from tournaments.selectors import active_entrants, current_ladder, ladder_leaderboard, open_bot_matches, tournament_standings
from tournaments.services import ServiceError, dispatch
from tournaments.services.ladders import ladder_create
from tournaments.services.leases import ClaimStatus
from tournaments.services.play import tournament_play_out
from tournaments.services.players import builtin_bot_get_or_create
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start

# The lease owner of the matches this command plays (eager mode). A run killed half way leaves
# the matches it had claimed running under this name; --resume claims them again at once (a
# claim by a lease's own owner never waits for the lease to run out).
OWNER = "run_tournament"

# Options that describe a new tournament: --resume finishes one as it was made.
CREATION_OPTIONS = {
    "bots": "--bots", "format": "--format", "format_option": "--format-option", "table_size": "--table-size",
    "option": "--option", "duplicate": "--duplicate", "seed": "--seed", "name": "--name", "slug": "--slug",
    "rating": "--rating", "ladder": "--ladder",
}


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


# --- where a tournament stands -------------------------------------------------------------------

def resume_hint(tournament: Tournament) -> str:
    return f"`manage.py run_tournament --resume {tournament.slug}`"


def _planned_rounds(tournament: Tournament) -> int | None:
    """The rounds the format plans for the field, when it knows ahead (for the summary only)."""
    try:
        return tournament_format(tournament).planned_rounds(len(active_entrants(tournament)))
    except (ServiceError, NotImplementedError, TypeError, ValueError):
        return None


def matches_expected(tournament: Tournament) -> int:
    """The progress bar's total: the tournament's matches made so far, and for each round the
    format plans but has not made yet as many as its latest round has (a Swiss's rounds are
    alike; an elimination's later rounds are smaller, and the bar is closed at what was played)."""
    matches = Match.objects.filter(round__tournament=tournament)
    made = matches.count()
    rounds = tournament.rounds.count()
    planned = _planned_rounds(tournament)
    if not rounds or planned is None or planned <= rounds:
        return made
    return made + (planned - rounds) * matches.filter(round__number=rounds).count()


def progress_summary(tournament: Tournament) -> str:
    """Where a tournament stands: "round 3 of 5, 41 of the 48 matches made so far played, 2
    running (leased to run_tournament)"."""
    if tournament.status in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        return f"not started yet, {tournament.entries.count()} entrants"
    matches = Match.objects.filter(round__tournament=tournament)
    made = matches.count()
    finished = matches.filter(status=Match.Status.FINISHED).count()
    current = (
        tournament.rounds.exclude(status=Round.Status.FINISHED).order_by("number")
        .values_list("number", flat=True).first()
        or tournament.rounds.count()
    )
    planned = _planned_rounds(tournament)
    text = f"round {current}" + (f" of {planned}" if planned else "")
    text += f", {finished} of the {made} matches made so far played"
    owners = sorted(set(matches.filter(status=Match.Status.RUNNING).values_list("lease_owner", flat=True)))
    running = matches.filter(status=Match.Status.RUNNING).count()
    if running:
        text += f", {running} running (leased to {', '.join(o or '?' for o in owners)})"
    return text


def why_unfinished(tournament: Tournament) -> str:
    if tournament.status == Tournament.Status.CANCELLED:
        return f"{tournament.slug} was cancelled"
    people = (
        Match.objects.filter(round__tournament=tournament, status__in=[Match.Status.PENDING, Match.Status.RUNNING],
                             seats__player__kind=Player.Kind.PERSON)
        .distinct().count()
    )
    if people:
        reason = f"{people} match(es) wait for the results people report"
    elif tournament.round_interval is not None:
        reason = "its next round opens on schedule (the periodic tick makes it)"
    else:
        reason = "nothing is left here for bots to play"
    return (f"{tournament.slug} is not finished ({progress_summary(tournament)}): {reason}; "
            f"{resume_hint(tournament)} goes on later")


# --- playing -------------------------------------------------------------------------------------

@contextlib.contextmanager
def ctrl_c_stops() -> Iterator[threading.Event]:
    """While inside, a first Ctrl-C (SIGINT) sets the event instead of interrupting: the match in
    hand is recorded and the rest handed back (match_play_batch's ``should_stop``), so nothing
    is left leased. A second Ctrl-C interrupts at once. Only in the main thread (where Python
    delivers signals); elsewhere the event is never set."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_sigint(signum, frame) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


def play_here(tournament: Tournament, console: Console, *, timeout: float) -> int:
    """Eager mode: play every bot match in this process (services.play.tournament_play_out),
    round after round, and return how many were played. Matches a killed run of this command
    left running are claimed again at once; a match someone else's live lease holds is waited
    for, at most ``timeout`` seconds."""
    played_now = 0
    with ctrl_c_stops() as stop, Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=False,
    ) as progress:
        task = progress.add_task("matches", total=None)
        waiting_since: float | None = None
        told: set[str] = set()
        while True:
            tournament.refresh_from_db()
            done = Match.objects.filter(round__tournament=tournament, status=Match.Status.FINISHED).count()
            if tournament.status != Tournament.Status.RUNNING:
                progress.update(task, completed=done, total=done)  # over: the bar ends full
                break
            playable, held_elsewhere = open_bot_matches(tournament, OWNER)
            total = max(matches_expected(tournament), done + len(playable) + len(held_elsewhere))
            progress.update(task, completed=done, total=total)
            if not playable:
                if not held_elsewhere:
                    break  # nothing for bots to play here: people's matches, or a round not due yet
                now = time.monotonic()
                waiting_since = waiting_since or now
                if now - waiting_since >= timeout:
                    raise CommandError(
                        f"match(es) {[held.match_id for held in held_elsewhere]} are still leased to "
                        f"{', '.join(sorted({held.owner for held in held_elsewhere}))} after {timeout:g}s: "
                        f"{resume_hint(tournament)} again once their leases have run out"
                    )
                for held in held_elsewhere:
                    if held.owner not in told:
                        told.add(held.owner)
                        console.print(f"waiting for {held.owner}, whose lease on match {held.match_id} runs until "
                                      f"{timezone.localtime(held.expires_at):%H:%M:%S}", soft_wrap=True)
                progress.update(task, description="waiting")
                soonest = min(held.expires_at for held in held_elsewhere)
                time.sleep(min(1.0, max(0.05, (soonest - timezone.now()).total_seconds())))
                continue
            waiting_since = None
            progress.update(task, description="playing")

            def played(match_id: int) -> None:
                nonlocal done, total
                done += 1
                if done >= total:  # a round made since: the format's plan counted again
                    total = max(matches_expected(tournament), done)
                progress.update(task, completed=done, total=total)

            result = tournament_play_out(tournament=tournament, owner=OWNER, on_played=played, should_stop=stop.is_set)
            played_now += result.played
            if stop.is_set():
                left = Match.objects.filter(round__tournament=tournament).exclude(status=Match.Status.FINISHED).count()
                raise CommandError(
                    f"stopped (Ctrl-C): {played_now} match(es) played in this run, {left} still to play; the "
                    f"matches not played were handed back: finish the tournament with {resume_hint(tournament)}"
                )
            if failed := result.with_status(ClaimStatus.FAILED):
                raise CommandError(
                    f"match(es) {failed} could not be played: see the error logged above; once it is fixed, "
                    f"{resume_hint(tournament)} plays them again"
                )
            if exhausted := result.with_status(ClaimStatus.EXHAUSTED):
                raise CommandError(
                    f"match(es) {exhausted} were given up after {settings.MATCH_MAX_ATTEMPTS} plays without a "
                    f"result: once the cause is fixed, retry them (POST /api/matches/ID/retry/) and "
                    f"{resume_hint(tournament)}"
                )
            if not result.played:
                time.sleep(0.2)  # claimed elsewhere between our read and our claim
    return played_now


def follow_workers(tournament: Tournament, console: Console, timeout: float) -> None:
    """Broker mode: the workers play; show their progress until the tournament ends. When no
    match has finished for a lease's time (at least STALLED_SECONDS) — its messages lost, or
    their workers' plays failed (the database restarted under them) — the matches still to play
    whose leases have run out are sent again: harmless if they were not lost (a worker finds a
    match played, or in play), and the tournament ends without anyone's help."""
    deadline = time.monotonic() + timeout
    last_finished, moved_at = -1, time.monotonic()
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
                raise CommandError(f"the tournament did not finish within {timeout:g}s; it goes on on the workers: "
                                   f"follow it again with {resume_hint(tournament)}")
            if finished != last_finished:
                last_finished, moved_at = finished, time.monotonic()
            elif time.monotonic() - moved_at > max(STALLED_SECONDS, settings.MATCH_LEASE_SECONDS):
                playable, _ = open_bot_matches(tournament, OWNER)
                if playable:
                    dispatch.send(playable)
                    console.print(f"no match finished for a while: sent the {len(playable)} still to play to the "
                                  "workers again", soft_wrap=True)
                moved_at = time.monotonic()
            time.sleep(0.5)


#: Following the workers, a tournament where no match has finished for this long (or a lease's
#: time, if longer) has its matches still to play sent again.
STALLED_SECONDS = 10.0

#: How long the command waits for its database to come back (a restart, a failover) before it
#: gives up and says how to go on.
DATABASE_GONE_SECONDS = 300.0


def while_the_database_restarts(follow, console: Console) -> None:
    """``follow()`` (playing here, or following the workers) to its end, called again whenever
    the database goes away under it (PostgreSQL restarted: OperationalError, InterfaceError) and
    answers again, for at most DATABASE_GONE_SECONDS without it. Nothing is lost: each result is
    recorded in a transaction, and a match this command held when its connection died is
    claimed again at once (services.play), so playing on from the database is resuming."""
    gone_since: float | None = None
    while True:
        try:
            follow()
            return
        except (OperationalError, InterfaceError) as exc:
            gone_since = gone_since or time.monotonic()
            while True:
                db.connections.close_all()  # the dead connections: the next query opens a new one
                waited = time.monotonic() - gone_since
                if waited > DATABASE_GONE_SECONDS:
                    raise CommandError(f"the database has not answered for {waited:.0f} s ({exc}); once it is back, "
                                       f"run the command again with --resume") from None
                console.print(f"the database went away ({str(exc).strip().splitlines()[0]}); trying again",
                              soft_wrap=True)
                time.sleep(min(5.0, 0.5 + waited / 4))
                try:
                    db.connection.ensure_connection()
                    break
                except (OperationalError, InterfaceError) as again:
                    exc = again
            gone_since = None


# --- the command ---------------------------------------------------------------------------------

class Command(BaseCommand):
    help = (
        "Run a tournament between built-in bots to the end and print standings and leaderboard; "
        "--resume SLUG finishes one that stopped half way."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", nargs="?", help="engine game name, e.g. stoppa (not needed with --resume)")
        parser.add_argument("--resume", metavar="SLUG",
                            help="finish the tournament SLUG (started or not) instead of making a new one: no new "
                                 "entries, nothing played or rated twice; a finished one just prints its standings")
        parser.add_argument("--bots", nargs="+", help="NAME or NAME:COUNT entrants (default random:8)")
        parser.add_argument("--format", help="round_robin, swiss, single_elimination, ... (default swiss)")
        parser.add_argument("--format-option", action="append", metavar="KEY=VALUE",
                            help="format setting, e.g. rounds=5 (repeatable)")
        parser.add_argument("--table-size", type=int, help="seats per table (default: the game's minimum, or 4)")
        parser.add_argument("--option", action="append", metavar="KEY=VALUE", help="engine option (repeatable)")
        parser.add_argument("--duplicate", action="store_true", help="the same deal at every table of a round")
        parser.add_argument("--seed", type=int, help="tournament seed (default 1)")
        parser.add_argument("--name", help="tournament name (default: game, format and seed)")
        parser.add_argument("--slug", help="tournament slug (default: from the name); refused if it is taken")
        parser.add_argument("--rating", choices=sorted(ratings.SYSTEMS),
                            help="rating system of a new ladder: elo (default) or openskill")
        parser.add_argument("--ladder", metavar="SLUG",
                            help="rate on this ladder, shared with the other tournaments it rates (created if new); "
                                 "default: a fresh ladder named after the tournament")
        parser.add_argument("--timeout", type=float, default=3600,
                            help="seconds to wait for workers (broker mode) or for another's lease (default 3600)")

    def handle(self, *args: Any, **opts: Any) -> None:
        tty = self.stdout.isatty()
        console = Console(file=self.stdout, force_terminal=tty, width=None if tty else 120)
        eager = settings.CELERY_TASK_ALWAYS_EAGER
        if opts["resume"]:
            tournament = self._resume(opts, console)
            if tournament is None:
                return
        else:
            tournament = self._create(opts, console, eager)
        try:
            self._run(tournament, console, eager, opts["timeout"], resumed=bool(opts["resume"]))
        except KeyboardInterrupt:
            if eager:
                raise CommandError(
                    f"interrupted: the matches in hand stay leased to {OWNER}; {resume_hint(tournament)} takes them "
                    "back and finishes the tournament"
                ) from None
            raise CommandError(
                f"stopped following: the workers go on; {resume_hint(tournament)} follows it again"
            ) from None
        tournament.refresh_from_db()
        print_standings(console, tournament)
        board = leaderboard_table(tournament)
        if board is not None:
            console.print(board)
        if tournament.status != Tournament.Status.FINISHED:
            raise CommandError(why_unfinished(tournament))

    def _run(self, tournament: Tournament, console: Console, eager: bool, timeout: float, *, resumed: bool) -> None:
        if tournament.status in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
            try:
                _, progress = tournament_start(tournament=tournament)
            except ServiceError as exc:
                raise CommandError(f"{tournament.slug} cannot start: {exc.message}") from None
            if not eager:  # eager: play_here plays them
                dispatch.send_progress(progress)
            tournament.refresh_from_db()
        elif not eager and resumed:
            # Its messages may be lost (or never sent: a run without a broker made the round).
            # Sending a match twice is harmless: a worker finds it played, or in play.
            playable, _ = open_bot_matches(tournament, OWNER)
            if playable:
                dispatch.send(playable)
                console.print(f"sent the {len(playable)} match(es) still to play to the workers", soft_wrap=True)
        follow = (lambda: play_here(tournament, console, timeout=timeout)) if eager else (
            lambda: follow_workers(tournament, console, timeout))
        while_the_database_restarts(follow, console)

    # --- finishing a tournament ---

    def _resume(self, opts: dict, console: Console) -> Tournament | None:
        """The tournament to finish, or None when it is finished already (its standings printed)."""
        slug = opts["resume"]
        given = [flag for dest, flag in CREATION_OPTIONS.items()
                 if opts.get(dest) is not None and opts.get(dest) is not False and opts.get(dest) != []]
        if given:
            raise CommandError(
                f"--resume finishes {slug} as it was made: {', '.join(given)} only describe a new tournament"
            )
        tournament = Tournament.objects.select_related("ladder").filter(slug=slug).first()
        if tournament is None:
            unfinished = list(
                Tournament.objects.filter(status__in=[Tournament.Status.DRAFT, Tournament.Status.REGISTRATION,
                                                      Tournament.Status.RUNNING])
                .order_by("-created_at", "-id").values_list("slug", flat=True)[:5]
            )
            hint = f" (not finished: {', '.join(unfinished)})" if unfinished else ""
            raise CommandError(f"no tournament with slug {slug!r} to resume{hint}")
        if opts["game"]:
            game = self._rules(opts["game"]).name
            if game != tournament.game:
                raise CommandError(f"{slug} plays {tournament.game}, not {game}")
        if tournament.status == Tournament.Status.CANCELLED:
            raise CommandError(f"{slug} was cancelled: there is nothing to finish")
        if tournament.status == Tournament.Status.FINISHED:
            console.print(f"[bold]{tournament.name}[/] ({slug}) is finished: nothing is left to play, and nothing "
                          "is rated again.", soft_wrap=True)
            print_standings(console, tournament)
            board = leaderboard_table(tournament)
            if board is not None:
                console.print(board)
            return None
        console.print(f"resuming [bold]{slug}[/]: {progress_summary(tournament)}", soft_wrap=True)
        return tournament

    # --- a new tournament ---

    @staticmethod
    def _rules(game: str):
        try:
            return engine.game(game)
        except engine.UnknownGame as exc:
            raise CommandError(str(exc)) from None

    def _create(self, opts: dict, console: Console, eager: bool) -> Tournament:
        """A new tournament, its ladder and entries, started: all in one transaction, so a field
        that cannot start leaves nothing behind (its slug free for a corrected run)."""
        if not opts["game"]:
            raise CommandError("name the GAME to play (e.g. stoppa), or --resume SLUG to finish a tournament")
        rules = self._rules(opts["game"])
        table_size = opts["table_size"] or (4 if rules.min_players <= 4 <= rules.max_players else rules.min_players)
        fmt = opts["format"] or "swiss"
        seed = 1 if opts["seed"] is None else opts["seed"]
        name = opts["name"] or f"{rules.title} {fmt.replace('_', ' ')} (seed {seed})"
        slug = opts["slug"] or slugify(name)[:60] or "tournament"
        try:
            validate_slug(slug)
        except ValidationError:
            raise CommandError(f"--slug takes letters, digits, hyphens and underscores, not {slug!r}") from None
        if len(slug) > Tournament._meta.get_field("slug").max_length:
            raise CommandError(f"--slug is at most {Tournament._meta.get_field('slug').max_length} characters")
        existing = Tournament.objects.filter(slug=slug).first()
        if existing is not None:
            raise CommandError(self._taken(existing))
        bots = parse_bots(opts["bots"] or ["random:8"])
        try:
            # All or nothing: a refused entrant or a field that cannot start leaves no tournament
            # (nor ladder) behind. Eager, the matches are played here; else sent once committed.
            with transaction.atomic():
                ladder, note = self._ladder(rules, name, slug, opts)
                tournament = tournament_create(
                    name=name, slug=slug, game=rules.name, table_size=table_size, format=fmt,
                    options=parse_pairs(opts["option"] or [], "--option"),
                    format_config=parse_pairs(opts["format_option"] or [], "--format-option"),
                    duplicate=opts["duplicate"], seed=seed, ladder=ladder,
                )
                for bot, count in bots:
                    for i in range(1, count + 1):
                        player = builtin_bot_get_or_create(bot=bot, name=f"{bot}-{i}" if count > 1 else bot)
                        if player.bot_kind != Player.BotKind.BUILTIN:  # a player of that name, someone's own
                            raise CommandError(f"--bots {bot}: the player named {player.name} is not a built-in "
                                               f"bot ({player.kind}, {player.bot_kind or 'no bot kind'}): this "
                                               "command enters only built-in bots, named after them, and that "
                                               "name is taken")
                        entry_add(tournament=tournament, player=player)
                tournament, progress = tournament_start(tournament=tournament)
                if not eager:
                    dispatch.send_progress(progress)
        except ServiceError as exc:
            if exc.field == "slug":  # made meanwhile by another run
                raise CommandError(self._taken(Tournament.objects.get(slug=slug))) from None
            raise CommandError(f"{exc.field or 'request'}: {exc.message}") from None
        console.print(
            f"[bold]{tournament.name}[/] ({tournament.slug}): {tournament.entries.count()} entrants, {rules.title}, "
            f"{tournament.format}, tables of {tournament.table_size}, seed {tournament.seed}", soft_wrap=True,
        )
        console.print(note, soft_wrap=True)
        console.print(f"Ctrl-C stops after the match in hand; {resume_hint(tournament)} finishes it later.",
                      highlight=False, soft_wrap=True)
        return tournament

    @staticmethod
    def _taken(existing: Tournament) -> str:
        if existing.status == Tournament.Status.FINISHED:
            what = "is finished: --resume prints its standings"
        elif existing.status == Tournament.Status.CANCELLED:
            what = "was cancelled"
        else:
            what = f"is not finished ({progress_summary(existing)}): {resume_hint(existing)} finishes it"
        return (
            f"a tournament {existing.slug!r} already exists and {what}. A second run of the same event would rate "
            "its players twice: to make another tournament, give it another --name or --slug (the default name "
            "comes from the game, the format and the seed)"
        )

    def _ladder(self, rules, name: str, slug: str, opts: dict) -> tuple[RatingLadder, str]:
        """The ladder a new tournament is rated on, and a line saying so. By default a fresh one
        named after the tournament; a ladder that already exists (and may rate others) only when
        --ladder names it."""
        shared = opts["ladder"]
        ladder_slug = shared or slug[: RatingLadder._meta.get_field("slug").max_length]
        if not shared and current_ladder(ladder_slug) is not None:
            raise CommandError(
                f"a ladder {ladder_slug!r} already exists: a new tournament is rated on a fresh ladder named after "
                f"it unless --ladder names one to share; pass --ladder {ladder_slug} to rate this one on it too, or "
                "give the tournament another --slug"
            )
        try:
            ladder = ladder_create(slug=ladder_slug, name=name if not shared else f"{rules.title} bots",
                                   game=rules.name, system=opts["rating"] or "elo")
        except ServiceError as exc:
            raise CommandError(f"--ladder {ladder_slug}: {exc.message}") from None
        if not shared:
            return ladder, f"rated on a ladder of its own: {ladder_slug}"
        changes = RatingChange.objects.filter(ladder=ladder).count()
        others = list(ladder.tournaments.order_by("created_at", "id").values_list("slug", flat=True))
        if not changes and not others:
            return ladder, f"rated on ladder {ladder_slug} (v{ladder.version}), new"
        listed = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        return ladder, (
            f"rated on the shared ladder {ladder_slug} (v{ladder.version}), which already holds {changes} rating "
            f"change(s) from {len(others)} other tournament(s): {listed or 'none'}"
        )
