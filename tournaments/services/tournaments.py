"""Tournaments: creation, entries, starting, and the rounds that follow one another."""

from __future__ import annotations

import dataclasses
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

import engine
from tournaments import formats, limits, standings
from tournaments.selectors import active_entrants, round_history
from tournaments.models import AuditEvent, Entry, Match, Player, RatingLadder, Round, Seat, Tournament

from .dispatch import batch_size, dispatch_matches
from .errors import ServiceError
from .pairing import make_format, tournament_format
from .players import builtin_problem
from .seeds import derive_rng, derive_seed


def check_game(game: str, table_size: Any, options: Any) -> dict:
    """The engine options as given, checked for every table size the tournament may use
    (a knockout's last tables can be smaller), by the engine and then against the
    tournament ceilings (tournaments.limits.GAME_OPTION_BOUNDS: scores that fit their column,
    matches that end in seconds). Defaults that depend on the table size, such as the dealer
    seat, are left to each match."""
    try:
        rules = engine.game(game)
    except engine.UnknownGame as exc:
        raise ServiceError(str(exc), "game") from None
    if (isinstance(table_size, bool) or not isinstance(table_size, int)
            or not rules.min_players <= table_size <= rules.max_players):
        raise ServiceError(
            f"{rules.title} is played by {rules.min_players} to {rules.max_players} at a table, not {table_size!r}",
            "table_size",
        )
    if not isinstance(options, dict):
        raise ServiceError("options must be an object of engine options", "options")
    for players in range(rules.min_players, table_size + 1):
        where = "" if players == table_size else f" (at a table of {players})"
        try:
            resolved = rules.resolve_options(players, options)
        except engine.InvalidOptions as exc:
            raise ServiceError(f"{exc}{where}", "options") from None
        try:
            limits.check_game_options(game, players, resolved)
        except ServiceError as exc:
            raise ServiceError(f"{exc.message}{where}", "options") from None
    return dict(options)


def check_format(name: str, config: Any, table_size: int, duplicate: bool, points_by_place: list | None = None):
    """A new tournament's (or league's) format: its settings within the service's bounds
    (tournaments.limits.check_format_config), then as the format checks them. Formats of
    existing tournaments are made with :func:`pairing.make_format` alone, so a bound never stops one
    already running. A format that scores takes the tournament's ``points_by_place`` (None: the
    default) and the standings' bye value: ``format_config`` may repeat them, never contradict
    them."""
    if isinstance(config, dict):
        limits.check_format_config(config)
    fmt = make_format(name, config, table_size, duplicate, points_by_place)
    fields = {f.name for f in dataclasses.fields(fmt)}
    given = config.get("points")

    def exact(points: Any) -> list | None:
        if not isinstance(points, (list, tuple)):
            return None
        return [formats.base.exact(p, "points") for p in points]

    if "points" in fields and given is not None and exact(given) != exact(fmt.points):
        raise ServiceError(
            f"format_config points {given} differ from the tournament's points_by_place {list(fmt.points)}: "
            f"the {name} pairs on the points the standings show, so set them once, as points_by_place",
            "format_config",
        )
    if "bye_points" in fields and config.get("bye_points") is not None:
        raise ServiceError(
            f"format_config bye_points cannot be set: the {name} pairs on the points the standings show, "
            "where a bye is worth the average points of a table",
            "format_config",
        )
    return fmt


def _check_scoring(points_by_place: Any, tiebreaks: Any, table_size: int) -> tuple[list, list]:
    if points_by_place in (None, []):
        points_by_place = list(standings.default_points_by_place(table_size))
    if not (
        isinstance(points_by_place, list)
        and len(points_by_place) == table_size
        and all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in points_by_place)
    ):
        raise ServiceError(f"points_by_place must list {table_size} numbers, for places 1 to {table_size}", "points_by_place")
    limits.check_points_by_place(points_by_place)
    if tiebreaks in (None, []):
        tiebreaks = list(standings.DEFAULT_TIEBREAKS)
    if not isinstance(tiebreaks, list) or not all(isinstance(t, str) for t in tiebreaks):
        raise ServiceError("tiebreaks must be a list of names", "tiebreaks")
    limits.check_tiebreaks(tiebreaks)
    unknown = [t for t in tiebreaks if t not in standings.TIEBREAKS]
    if unknown:
        raise ServiceError(
            f"unknown tie-break(s) {', '.join(unknown)}; valid: {', '.join(sorted(standings.TIEBREAKS))}", "tiebreaks"
        )
    return points_by_place, tiebreaks


@transaction.atomic
def tournament_create(
    *,
    name: str,
    slug: str,
    game: str,
    table_size: int,
    format: str,
    options: dict | None = None,
    format_config: dict | None = None,
    duplicate: bool = False,
    points_by_place: list | None = None,
    tiebreaks: list | None = None,
    seed: int | None = None,
    ladder: RatingLadder | None = None,
    starts_at: datetime | None = None,
    round_interval: timedelta | None = None,
    open_entry: bool = False,
    owner=None,
    actor=None,
) -> Tournament:
    """A new tournament, open for registration, run by ``owner``. Every rule and format choice
    is checked now, so a tournament that starts can always be played. Without a ``seed`` one
    is drawn that nobody knows; with one, ``seed_chosen`` says so (its chooser knows every
    deal)."""
    resolved = check_game(game, table_size, options or {})
    points_by_place, tiebreaks = _check_scoring(points_by_place, tiebreaks, table_size)
    check_format(format, format_config or {}, table_size, duplicate, points_by_place)
    if seed is not None:
        limits.check_seed(seed)
    limits.check_round_interval(round_interval)
    limits.check_starts_at(starts_at, timezone.now())
    if ladder is not None and ladder.game != game:
        raise ServiceError(f"ladder {ladder.slug} rates {ladder.game}, not {game}", "ladder")
    if Tournament.objects.filter(slug=slug).exists():
        raise ServiceError(f"a tournament with slug {slug!r} already exists", "slug", code="unique")
    seed_chosen = seed is not None
    if seed is None:
        # Drawn, not derived from the slug and the hour: both are public, and every deal
        # derives from the seed.
        seed = secrets.randbits(63)
    tournament = Tournament.objects.create(
        name=name,
        slug=slug,
        game=game,
        options=resolved,
        format=format,
        format_config=format_config or {},
        table_size=table_size,
        duplicate=duplicate,
        points_by_place=points_by_place,
        tiebreaks=tiebreaks,
        seed=seed,
        ladder=ladder,
        starts_at=starts_at,
        round_interval=round_interval,
        status=Tournament.Status.REGISTRATION,
        seed_chosen=seed_chosen,
        open_entry=open_entry,
        owner=owner,
    )
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="created", detail={"format": format})
    return tournament


def _can_play(player: Player, game: str) -> None:
    """An active player, and for a built-in bot one that plays ``game`` with its options
    (a bot registered for one game's budget may be beyond another's: tournaments.limits)."""
    if not player.active:
        raise ServiceError(f"{player.name} is not active", "player")
    if player.kind == Player.Kind.BOT and player.bot_kind == Player.BotKind.BUILTIN:
        problem = builtin_problem(player.bot_config, game)  # the bot plays the game, its options fit
        if problem is not None:
            raise ServiceError(f"{player.name} cannot play {game}: {problem}", "player")


@transaction.atomic
def entry_add(*, tournament: Tournament, player: Player, seed_rank: int | None = None, actor=None) -> Entry:
    """Enter ``player``; seeds default to the order of entry. A seed is from 1 to 2**31 - 1,
    a tournament holds at most MAX_ENTRIES entrants, and a periodic tournament's rounds for
    the field must all fall due within a century (tournaments.limits)."""
    if seed_rank is not None:
        limits.check_int(seed_rank, "seed_rank", 1, limits.POSITIVE_INT_MAX)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        raise ServiceError(f"entries are closed: the tournament is {tournament.status}", "tournament")
    _can_play(player, tournament.game)
    if tournament.entries.filter(player=player).exists():
        raise ServiceError(f"{player.name} is already entered", "player", code="unique")
    taken = set(tournament.entries.values_list("seed_rank", flat=True))
    if len(taken) >= limits.MAX_ENTRIES:
        raise ServiceError(f"a tournament holds at most {limits.MAX_ENTRIES} entrants", "tournament")
    if tournament.round_interval is not None:
        fmt = tournament_format(tournament)
        limits.check_schedule(tournament.round_interval, fmt.planned_rounds(len(active_entrants(tournament)) + 1),
                              "tournament")
    if seed_rank is None:
        seed_rank = max(taken, default=0) + 1
        if seed_rank > limits.POSITIVE_INT_MAX:  # the last seed is taken: the first free one
            seed_rank = next(rank for rank in range(1, len(taken) + 2) if rank not in taken)
    elif seed_rank in taken:
        raise ServiceError(f"seed {seed_rank} is taken", "seed_rank", code="unique")
    entry = Entry.objects.create(tournament=tournament, player=player, seed_rank=seed_rank)
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="entered", detail={"player": player.name})
    return entry


@transaction.atomic
def entry_withdraw(*, entry: Entry, actor=None) -> Entry:
    """Withdraw from the rounds after the current one; matches of the current round, and of
    rounds made ahead that have started, are played or reported. Refused (conflict) once the
    tournament is finished or cancelled."""
    _check_entries_open(entry)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.withdrawn_at is None:
        entry.withdrawn_at = timezone.now()
        entry.save(update_fields=["withdrawn_at"])
        AuditEvent.objects.create(tournament_id=entry.tournament_id, actor=actor, action="withdrew",
                                  detail={"player": entry.player.name})
        rounds_remake_ahead(tournament=entry.tournament, why=f"{entry.player.name} withdrew")
    return entry


@transaction.atomic
def entry_disqualify(*, entry: Entry, reason: str, actor=None) -> Entry:
    """Disqualify from the rounds after the current one (as a withdrawal), with a reason of at
    most 200 characters. Refused (conflict) once the tournament is finished or cancelled."""
    if not reason:
        raise ServiceError("a disqualification needs a reason", "reason")
    limits.check_text(reason, "reason", limits.REASON_MAX)
    _check_entries_open(entry)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    entry.disqualified = reason
    entry.save(update_fields=["disqualified"])
    AuditEvent.objects.create(tournament_id=entry.tournament_id, actor=actor, action="disqualified",
                              detail={"player": entry.player.name, "reason": reason})
    rounds_remake_ahead(tournament=entry.tournament, why=f"{entry.player.name} was disqualified")
    return entry


def _check_entries_open(entry: Entry) -> None:
    """Lock the entry's tournament (before the entry, as entry_add does) and refuse a change
    once it is finished or cancelled: nothing is accepted for an event that is over."""
    tournament = Tournament.objects.select_for_update().get(pk=entry.tournament_id)
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise ServiceError(f"the tournament is {tournament.status}: its entries no longer change", "tournament",
                           code="conflict")


def rounds_remake_ahead(*, tournament: Tournament, why: str) -> int:
    """After the field changed: the rounds made ahead (after the current round) of which no
    match has started are deleted and made again for the field as it is now, so a withdrawal
    or disqualification counts from the next round however far ahead rounds were made. A round
    with a started match stays, and so does every round before it. Returns the rounds deleted.
    Call inside a transaction."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != Tournament.Status.RUNNING:
        return 0
    ahead = list(tournament.rounds.exclude(status=Round.Status.FINISHED).order_by("number")[1:])
    if not ahead:
        return 0
    # Lock the waiting matches: a worker claiming one now finishes its claim first (claims
    # never wait for the tournament's row), and later claims find them gone. Recorders lock
    # only running matches, save one whose lease ran out and was handed back while its slow
    # worker records it: then PostgreSQL aborts one of the two on the deadlock, and nothing is
    # half-written. Then the rounds where a match has started (claimed, even once) stay.
    list(Match.objects.select_for_update().filter(round__in=ahead, status=Match.Status.PENDING).values_list("pk"))
    started = set(
        Match.objects.filter(round__in=ahead)
        .filter(~Q(status=Match.Status.PENDING) | Q(started_at__isnull=False))
        .values_list("round__number", flat=True)
    )
    doomed = [rnd for rnd in ahead if rnd.number > max(started, default=0)]
    if not doomed:
        return 0
    Round.objects.filter(pk__in=[rnd.pk for rnd in doomed]).delete()
    AuditEvent.objects.create(tournament=tournament, action="rounds_remade", detail={
        "from_round": doomed[0].number, "rounds": len(doomed), "why": why,
    })
    rounds_top_up(tournament=tournament)
    return len(doomed)


@transaction.atomic
def entry_check_in(*, entry: Entry) -> Entry:
    Entry.objects.filter(pk=entry.pk).update(checked_in=True)
    entry.refresh_from_db()
    return entry


@transaction.atomic
def tournament_start(*, tournament: Tournament, actor=None) -> Tournament:
    """Close registration and make round 1 (and, where rounds do not depend on results, the
    rounds after it that :func:`rounds_ahead` allows)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        raise ServiceError(f"the tournament is already {tournament.status}", "status", code="conflict")
    entrants = active_entrants(tournament)
    if len(entrants) < tournament.table_size:
        raise ServiceError(
            f"{len(entrants)} entrants cannot fill a table of {tournament.table_size}", "entries"
        )
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="started", detail={"entrants": len(entrants)})
    round_create_next(tournament=tournament)
    return tournament


def rounds_ahead(tournament: Tournament, fmt: formats.Format | None = None, entrants: list[int] | None = None) -> int:
    """How many matches not yet played a tournament keeps made ahead: 0 (one round at a time)
    unless its format's rounds do not depend on results (a round robin), every entrant is a
    bot and rounds follow one another at once. Then ROUNDS_AHEAD_MATCHES (default: two
    batches, as ``dispatch.batch_size`` sizes them, for each of MATCH_BATCH_SPREAD workers),
    so workers go from one round to the next without waiting for the round to close, and make
    and record rounds several at a time.
    A withdrawal or disqualification remakes those not started (:func:`rounds_remake_ahead`)."""
    fmt = fmt or tournament_format(tournament)
    if fmt.uses_results or tournament.round_interval is not None:
        return 0
    entrants = active_entrants(tournament) if entrants is None else entrants
    if Player.objects.filter(pk__in=entrants).exclude(kind=Player.Kind.BOT).exists():
        return 0  # people are told their tables a round at a time
    return _ahead_matches()


def _ahead_matches() -> int:
    configured = settings.ROUNDS_AHEAD_MATCHES
    if configured is not None:
        return max(0, int(configured))
    return 2 * batch_size() * max(1, settings.MATCH_BATCH_SPREAD)


def open_matches(tournament: Tournament) -> int:
    return Match.objects.filter(round__tournament=tournament).exclude(status=Match.Status.FINISHED).count()


def rounds_top_up(*, tournament: Tournament, waiting: int | None = None) -> list[Round]:
    """After rounds closed: make the next round when none is open, or, for a tournament that
    makes rounds ahead, more rounds once half of those made ahead are played; finish the
    tournament when the format has no more and every round is over. ``waiting``: the matches
    still to play, when the caller knows. Call inside a transaction holding the tournament's
    row."""
    if tournament.status != Tournament.Status.RUNNING:
        return []
    waiting = open_matches(tournament) if waiting is None else waiting
    if waiting > _ahead_matches() // 2:
        return []  # enough made ahead whatever the format: no need to ask
    fmt = tournament_format(tournament)
    entrants = active_entrants(tournament)
    ahead = rounds_ahead(tournament, fmt, entrants)
    if waiting > ahead // 2:
        return []
    return round_create_next(tournament=tournament, fmt=fmt, entrants=entrants, ahead=ahead, waiting=waiting)


def round_create_next(*, tournament: Tournament, fmt: formats.Format | None = None,
                      entrants: list[int] | None = None, ahead: int | None = None,
                      waiting: int | None = None) -> list[Round]:
    """Ask the format for the next round and make its matches; for a tournament that makes
    rounds ahead (:func:`rounds_ahead`), go on until that many matches are open. Finish the
    tournament when the format has no more and no round is open. Returns the rounds made.
    ``fmt``, ``entrants``, ``ahead`` and ``waiting`` (open matches), when the caller has them.
    Call inside a transaction holding the tournament's row."""
    fmt = fmt or tournament_format(tournament)
    entrants = active_entrants(tournament) if entrants is None else entrants
    ahead = rounds_ahead(tournament, fmt, entrants) if ahead is None else ahead
    history = round_history(tournament, open_rounds=bool(ahead))
    number = tournament.rounds.count() + 1
    if not ahead:
        waiting = 0  # one round at a time: the next is made once the last closed
    elif waiting is None:
        waiting = open_matches(tournament)
    planned_rounds: list[formats.Round] = []
    while True:
        rng = derive_rng(tournament.seed, "round", number)
        planned = fmt.next_round(entrants, history, rng)
        if planned is None:
            break
        planned = dataclasses.replace(planned, number=number)
        planned_rounds.append(planned)
        history.append(formats.RoundResult(
            number=number, byes=planned.byes,
            tables=tuple(formats.TableResult(seats=t.seats, places=(1,) * len(t.seats), scores=(0,) * len(t.seats))
                         for t in planned.tables),
        ))
        number += 1
        waiting += len(planned.tables)
        # A round of byes only (double elimination keeps its round numbers in step this
        # way) is over as soon as it is made: go on to the next.
        if planned.tables and waiting >= ahead:
            break
    made = _rounds_create(tournament, planned_rounds)
    if not any(p.tables for p in planned_rounds) and not tournament.rounds.exclude(status=Round.Status.FINISHED).exists():
        tournament_finish(tournament=tournament)
    return made


def _rounds_create(tournament: Tournament, planned_rounds: list[formats.Round]) -> list[Round]:
    """The rounds, their tables and seats, four INSERTs however many rounds (PostgreSQL and
    SQLite >= 3.35 return the new ids); then the bot matches are dispatched, together."""
    if not planned_rounds:
        return []
    now = timezone.now()
    rounds = Round.objects.bulk_create(
        Round(tournament=tournament, number=planned.number, notes=list(planned.notes), byes=list(planned.byes),
              **({} if planned.tables else {"status": Round.Status.FINISHED, "finished_at": now}))
        for planned in planned_rounds
    )
    people = set(
        Player.objects.filter(pk__in={p for planned in planned_rounds for table in planned.tables for p in table.seats})
        .exclude(kind=Player.Kind.BOT).values_list("pk", flat=True)
    )
    matches, tables = [], []
    for rnd, planned in zip(rounds, planned_rounds):
        for index, table in enumerate(planned.tables, start=1):
            # Duplicate play: tables with one deal key share the seed, so they share the cards.
            if table.deal is not None:
                seed = derive_seed(tournament.seed, "round", rnd.number, "deal", table.deal)
            else:
                seed = derive_seed(tournament.seed, "round", rnd.number, "table", index)
            matches.append(Match(
                round=rnd, table=index, seed=seed, deal=table.deal, notes=list(table.notes),
                scheduled_at=tournament.starts_at if rnd.number == 1 else None,
            ))
            tables.append(table)
    Match.objects.bulk_create(matches)
    Seat.objects.bulk_create(
        Seat(match=match, position=pos, player_id=pid)
        for match, table in zip(matches, tables)
        for pos, pid in enumerate(table.seats)
    )
    AuditEvent.objects.bulk_create(
        AuditEvent(tournament=tournament, action="round_made",
                   detail={"round": planned.number, "tables": len(planned.tables), "byes": list(planned.byes)})
        for planned in planned_rounds
    )
    dispatch_matches(match.pk for match, table in zip(matches, tables) if people.isdisjoint(table.seats))
    return rounds


def tournament_finish(*, tournament: Tournament) -> Tournament:
    """Mark the tournament finished (inside the transaction that completed its last round)."""
    if tournament.status != Tournament.Status.FINISHED:
        tournament.status = Tournament.Status.FINISHED
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "finished_at"])
        AuditEvent.objects.create(tournament=tournament, action="finished", detail={})
        if tournament.season_id is not None:
            from .leagues import season_close_if_done

            season_close_if_done(season=tournament.season)
    return tournament


@transaction.atomic
def tournament_cancel(*, tournament: Tournament, actor=None) -> Tournament:
    """Cancel a tournament: its matches are no longer played, reported or recorded. Refused
    (conflict) for a tournament already finished or cancelled."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status == Tournament.Status.FINISHED:
        raise ServiceError("a finished tournament cannot be cancelled", "status", code="conflict")
    if tournament.status == Tournament.Status.CANCELLED:
        raise ServiceError("the tournament is already cancelled", "status", code="conflict")
    tournament.status = Tournament.Status.CANCELLED
    tournament.save(update_fields=["status"])
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="cancelled", detail={})
    return tournament
