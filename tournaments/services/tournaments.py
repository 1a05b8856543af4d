"""Tournaments: creation, entries, starting, and the rounds that follow one another."""

from __future__ import annotations

import dataclasses
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

import engine
from tournaments import events, formats, limits, standings
from tournaments.errors import ServiceError
from tournaments.formats.stored import stored_format, tournament_format
from tournaments.models import AuditEvent, Entry, Match, Player, RatingLadder, Seat, Tournament
from tournaments.selectors import active_entrants

from .players import builtin_problem, sandbox_refusal
from .rounds import NOTHING, Progress, round_create_next, rounds_remake_ahead
from .versions import standings_changed


def check_game(game: str, table_size: Any, options: Any) -> dict:
    """The engine options as given, checked for every table size the tournament may use
    (a knockout's last tables can be smaller), by the engine and then against the
    tournament ceilings (tournaments/games/, read by tournaments.limits: scores that fit their column,
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
    existing tournaments are made with :func:`formats.stored.stored_format` alone, so a bound never stops one
    already running. A format that scores takes the tournament's ``points_by_place`` (None: the
    default) and the standings' bye value: ``format_config`` may repeat them, never contradict
    them."""
    if isinstance(config, dict):
        limits.check_format_config(config)
    fmt = stored_format(name, config, table_size, duplicate, points_by_place)
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


def _check_settings(*, game, table_size, options, format, format_config, duplicate, points_by_place, tiebreaks,
                    seed, ladder, starts_at, round_interval, online, move_seconds, bank_seconds,
                    timeout_bot, several_seats=False, confirmation=Tournament.Confirmation.OTHER
                    ) -> tuple[dict, list, list]:
    """Every rule a tournament's settings follow, at creation and at each change before the
    start. Returns the game's options resolved, the points by place and the tie-breaks."""
    if confirmation not in Tournament.Confirmation.values:  # who confirms reported results: services.results
        raise ServiceError(f"confirmation must be one of {', '.join(Tournament.Confirmation.values)}, "
                           f"not {confirmation!r}", "confirmation")
    resolved = check_game(game, table_size, options or {})
    points_by_place, tiebreaks = _check_scoring(points_by_place, tiebreaks, table_size)
    check_format(format, format_config or {}, table_size, duplicate, points_by_place)
    if move_seconds is not None:
        limits.check_int(move_seconds, "move_seconds", limits.MOVE_SECONDS_MIN, limits.MOVE_SECONDS_MAX)
    if bank_seconds is not None:
        limits.check_int(bank_seconds, "bank_seconds", 1, limits.BANK_SECONDS_MAX)
        if move_seconds is None:
            raise ServiceError("bank_seconds is a reserve beyond each move's move_seconds: set move_seconds too",
                               "bank_seconds")
    if (move_seconds is not None or timeout_bot) and not online:
        raise ServiceError("move_seconds and timeout_bot are online play's clock: set online too", "online")
    if timeout_bot:
        if timeout_bot in limits.SEARCH_BOTS:
            # It moves when a clock runs out, under the match's lock, given no time to think.
            raise ServiceError(f"timeout_bot must be a bot that does not search (it moves at once when a seat's "
                               f"time runs out), not {timeout_bot}", "timeout_bot")
        problem = builtin_problem({"bot": timeout_bot}, game)
        if problem:
            raise ServiceError(problem, "timeout_bot")
    if online and duplicate:
        # A duplicate round seats each group at every rotation of one deal: a person seeing
        # their hand at one table would know a hand they face at the next.
        raise ServiceError("duplicate play is for bots: online seats would see one deal at several tables",
                           "duplicate")
    if several_seats and ladder is not None:
        raise ServiceError(f"several seats for one account are never allowed in a rated tournament: ladder "
                           f"{ladder.slug}'s ratings would rest on tables where one account reads several hands",
                           "several_seats")
    if seed is not None:
        limits.check_seed(seed)
    limits.check_round_interval(round_interval)
    limits.check_starts_at(starts_at, timezone.now())
    if ladder is not None and ladder.game != game:
        raise ServiceError(f"ladder {ladder.slug} rates {ladder.game}, not {game}", "ladder")
    return resolved, points_by_place, tiebreaks


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
    several_seats: bool = False,
    online: bool = False,
    move_seconds: int | None = None,
    bank_seconds: int | None = None,
    timeout_bot: str = "",
    confirmation: str = Tournament.Confirmation.OTHER,
    owner=None,
    actor=None,
) -> Tournament:
    """A new tournament, open for registration, run by ``owner``. Every rule and format choice
    is checked now, so a tournament that starts can always be played. Without a ``seed`` one
    is drawn that nobody knows; with one, ``seed_chosen`` says so (its chooser knows every
    deal). ``confirmation``: who must confirm the results people report (services.results)."""
    resolved, points_by_place, tiebreaks = _check_settings(
        game=game, table_size=table_size, options=options, format=format, format_config=format_config,
        duplicate=duplicate, points_by_place=points_by_place, tiebreaks=tiebreaks, seed=seed, ladder=ladder,
        starts_at=starts_at, round_interval=round_interval, online=online, move_seconds=move_seconds,
        bank_seconds=bank_seconds, timeout_bot=timeout_bot, several_seats=several_seats, confirmation=confirmation)
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
        several_seats=several_seats,
        online=online,
        move_seconds=move_seconds,
        bank_seconds=bank_seconds,
        timeout_bot=timeout_bot,
        confirmation=confirmation,
        owner=owner,
    )
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="created", detail={"format": format})
    return tournament


def _can_play(player: Player, tournament: Tournament) -> None:
    """An active player, and for a built-in bot one that plays the game with its options
    (a bot registered for one game's budget may be beyond another's: tournaments.limits). A
    remote bot plays through the API, so only in an online tournament (docs/online.md)."""
    game = tournament.game
    if not player.active:
        raise ServiceError(f"{player.name} is not active", "player")
    if player.bot_kind == Player.BotKind.REMOTE and not tournament.online:
        raise ServiceError(f"{player.name} is a remote bot: it plays through the API, so only in online tournaments",
                           "player")
    if player.kind == Player.Kind.BOT and player.bot_kind == Player.BotKind.BUILTIN:
        problem = builtin_problem(player.bot_config, game)  # the bot plays the game, its options fit
        if problem is not None:
            raise ServiceError(f"{player.name} cannot play {game}: {problem}", "player")


# --- deals and seats that must not be shared -------------------------------------------------------

def carries_deals(player: Player, tournament: Tournament) -> bool:
    """Whether a deal ``player`` is shown at one of ``tournament``'s tables can go with it to
    another table: an external bot (subprocess or HTTP, a program that can remember what it
    saw), and in an online tournament a seat played through the API (a person, a remote bot).
    Not the service's built-in bots, made afresh for each match, nor people at real tables,
    whom the service deals no cards."""
    return player.is_external_bot or (tournament.online and player.plays_online)


def _seed_shared_with(tournament: Tournament) -> Tournament | None:
    """Another tournament of the game with this one's seed, which deals the same cards at the
    same tables: only a chosen seed can be another's (a drawn one is 63 random bits), and a
    finished tournament's seed is public."""
    if not tournament.seed_chosen:
        return None
    return (Tournament.objects.filter(seed=tournament.seed, game=tournament.game).exclude(pk=tournament.pk)
            .order_by("pk").first())


def shared_deal_problem(player: Player, tournament: Tournament, seed_shared_with: Tournament | None) -> str | None:
    """Why ``player`` may not play ``tournament`` because a deal of it is dealt at other tables
    too (None: it may). A shared deal is only for seats that cannot carry it from one table to
    another (:func:`carries_deals`):

    * in **duplicate** play every table of a round plays one deal, and each entrant plays every
      seat rotation of its table's: an external bot would see the deal at each of them, and
      know at its second table one opponent's starting hand, at its last every one's;
    * a **chosen seed** another tournament has (``seed_shared_with``) deals that tournament's
      cards again, table for table; that one's seed is public once it is finished."""
    if not carries_deals(player, tournament):
        return None
    who = "an external bot" if player.is_external_bot else "a seat played online"
    if tournament.duplicate:
        return (f"{player.name} is {who}: in duplicate play each entrant plays every seat rotation of its table's "
                "deal, and what remembers it would know its opponents' hands at its later tables; duplicate play "
                "is for built-in bots (and people at real tables)")
    if seed_shared_with is not None:
        return (f"{player.name} is {who}, and seed {tournament.seed} is also tournament {seed_shared_with.slug}'s: "
                "both deal the same cards at the same tables, which it could know from there; draw a new seed "
                "(or choose another) for a field with programs or online seats")
    return None


def reads_own_seat(player: Player, tournament: Tournament) -> bool:
    """Whether the cards of ``player``'s seats reach its owner's account: a person's or a
    remote bot's in an online tournament (read through the API), an external bot's (its
    owner's program is sent its view). Not a built-in bot's (its seats are nobody's to read:
    tournaments.permissions.sees_seat), nor a person's at a real table."""
    return player.owner_id is not None and carries_deals(player, tournament)


def seats_per_account_problem(tournament: Tournament, players: list[Player]) -> str | None:
    """The seats-per-account rule: one account holds at most one seat whose cards it reads
    (:func:`reads_own_seat`) among a tournament's entrants, so never two at one table, unless
    the organisers allow several (``several_seats``: a person and her remote bot, two bots of
    one author), which a rated tournament never does. None when ``players`` keep it."""
    if tournament.several_seats:
        return None
    held: dict[int, Player] = {}
    for player in players:
        if not reads_own_seat(player, tournament):
            continue
        first = held.setdefault(player.owner_id, player)
        if first is not player:
            allowance = (f"never in a rated tournament (this one is rated on ladder {tournament.ladder.slug})"
                         if tournament.ladder_id is not None else "unless its organisers allow several (several_seats)")
            return (f"{first.name} and {player.name} are one account's: an account holds at most one seat whose "
                    f"cards it reads in a tournament, so as not to read two hands at one table, {allowance}")
    return None


def _check_field(tournament: Tournament, players: list[Player], field: str) -> None:
    """The field as a whole keeps the shared-deal and seats-per-account rules: at the start and
    at each change of the settings (an entry made before a rule existed, or past the services,
    is refused there)."""
    shared = _seed_shared_with(tournament)
    for player in players:
        problem = shared_deal_problem(player, tournament, shared)
        if problem is not None:
            raise ServiceError(f"{problem} (withdraw it first)", field, code="conflict")
    problem = seats_per_account_problem(tournament, players)
    if problem is not None:
        raise ServiceError(problem, field, code="conflict")


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
    _can_play(player, tournament)
    problem = shared_deal_problem(player, tournament, _seed_shared_with(tournament))
    if problem is not None:
        raise ServiceError(problem, "player")
    if tournament.entries.filter(player=player).exists():
        raise ServiceError(f"{player.name} is already entered", "player", code="unique")
    if reads_own_seat(player, tournament) and not tournament.several_seats:
        mine = [entry.player for entry in tournament.entries.filter(
            player__owner_id=player.owner_id, withdrawn_at__isnull=True, disqualified="").select_related("player")]
        problem = seats_per_account_problem(tournament, [*mine, player])
        if problem is not None:
            raise ServiceError(problem, "player", code="conflict")
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
    standings_changed(tournament_ids=[tournament.pk])
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="entered", detail={"player": player.name})
    return entry


@transaction.atomic
def entry_withdraw(*, entry: Entry, actor=None) -> tuple[Entry, Progress]:
    """Withdraw from the rounds after the current one; matches of the current round, and of
    rounds made ahead that have started, are played or reported. Refused (conflict) once the
    tournament is finished or cancelled. Returns the entry and the rounds remade without it
    (rounds.rounds_remake_ahead)."""
    _check_entries_open(entry)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.withdrawn_at is not None:
        return entry, NOTHING
    entry.withdrawn_at = timezone.now()
    entry.save(update_fields=["withdrawn_at"])
    standings_changed(tournament_ids=[entry.tournament_id])
    AuditEvent.objects.create(tournament_id=entry.tournament_id, actor=actor, action="withdrew",
                              detail={"player": entry.player.name})
    return entry, rounds_remake_ahead(tournament=entry.tournament, why=f"{entry.player.name} withdrew")


@transaction.atomic
def entry_disqualify(*, entry: Entry, reason: str, actor=None) -> tuple[Entry, Progress]:
    """Disqualify from the rounds after the current one (as a withdrawal), with a reason of at
    most 200 characters. Refused (conflict) once the tournament is finished or cancelled.
    Returns the entry and the rounds remade without it."""
    if not reason:
        raise ServiceError("a disqualification needs a reason", "reason")
    limits.check_text(reason, "reason", limits.REASON_MAX)
    _check_entries_open(entry)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    entry.disqualified = reason
    entry.save(update_fields=["disqualified"])
    standings_changed(tournament_ids=[entry.tournament_id])
    AuditEvent.objects.create(tournament_id=entry.tournament_id, actor=actor, action="disqualified",
                              detail={"player": entry.player.name, "reason": reason})
    return entry, rounds_remake_ahead(tournament=entry.tournament, why=f"{entry.player.name} was disqualified")


def _check_entries_open(entry: Entry) -> None:
    """Lock the entry's tournament (before the entry, as entry_add does) and refuse a change
    once it is finished or cancelled: nothing is accepted for an event that is over."""
    tournament = Tournament.objects.select_for_update().get(pk=entry.tournament_id)
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise ServiceError(f"the tournament is {tournament.status}: its entries no longer change", "tournament",
                           code="conflict")


@transaction.atomic
def entry_check_in(*, entry: Entry) -> Entry:
    Entry.objects.filter(pk=entry.pk).update(checked_in=True)
    entry.refresh_from_db()
    return entry


@transaction.atomic
def tournament_start(*, tournament: Tournament, actor=None) -> tuple[Tournament, Progress]:
    """Close registration and make round 1 (and, where rounds do not depend on results, the
    rounds after it that rounds.rounds_ahead allows). Returns the tournament and the rounds
    made, whose bot matches the caller sends to the workers or plays."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        raise ServiceError(f"the tournament is already {tournament.status}", "status", code="conflict")
    entrants = active_entrants(tournament)
    if len(entrants) < tournament.table_size:
        raise ServiceError(
            f"{len(entrants)} entrants cannot fill a table of {tournament.table_size}", "entries"
        )
    # Subprocess bots run only in the sandbox: where it cannot start, their every seat would be
    # forfeited, so the tournament does not start with them.
    programs = list(Player.objects.filter(pk__in=entrants, bot_kind=Player.BotKind.SUBPROCESS)
                    .order_by("name").values_list("name", flat=True))
    if programs and (refusal := sandbox_refusal()):
        raise ServiceError(f"{refusal}; entered: {', '.join(programs)} (withdraw them to start without them)",
                           "entries")
    _check_field(tournament, list(Player.objects.filter(pk__in=entrants)), "entries")
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="started", detail={"entrants": len(entrants)})
    return tournament, round_create_next(tournament=tournament, start=True)


# What a change before the start may set: every setting given at creation.
EDITABLE = ("name", "slug", "game", "table_size", "format", "options", "format_config", "duplicate",
            "points_by_place", "tiebreaks", "seed", "ladder", "starts_at", "round_interval", "open_entry",
            "several_seats", "online", "move_seconds", "bank_seconds", "timeout_bot", "confirmation")


@transaction.atomic
def tournament_update(*, tournament: Tournament, actor=None, **changes) -> Tournament:
    """Change a tournament before it starts: any setting it was created with, checked as at
    creation, and its entrants must all still be able to play it. A new game starts from its
    default options, a new format from its default settings and a new table size from its
    default points, unless they are given; a
    seed given is chosen (``seed_chosen``), a null seed draws a new secret one. Refused
    (conflict) once started, and for a league's division (its league sets it)."""
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ServiceError(f"{', '.join(unknown)} cannot be changed", unknown[0])
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        raise ServiceError(f"the tournament is {tournament.status}: it changes only before it starts", "status",
                           code="conflict")
    if tournament.season_id is not None:
        raise ServiceError("a league's division is set by its league", "season", code="conflict")
    fields = {name: getattr(tournament, name) for name in EDITABLE}
    if "game" in changes and changes["game"] != tournament.game:
        fields["options"] = {}
    if "format" in changes and changes["format"] != tournament.format:
        fields["format_config"] = {}
    if "table_size" in changes and changes["table_size"] != tournament.table_size:
        fields["points_by_place"] = None
    fields.update(changes)
    if "slug" in changes and Tournament.objects.filter(slug=fields["slug"]).exclude(pk=tournament.pk).exists():
        raise ServiceError(f"a tournament with slug {fields['slug']!r} already exists", "slug", code="unique")
    check = {name: fields[name] for name in EDITABLE if name not in ("name", "slug", "open_entry")}
    check["starts_at"] = changes.get("starts_at")  # a start already past is refused only when set now
    fields["options"], fields["points_by_place"], fields["tiebreaks"] = _check_settings(**check)
    if "seed" in changes:
        tournament.seed_chosen = fields["seed"] is not None
        if fields["seed"] is None:
            fields["seed"] = secrets.randbits(63)
    changed = sorted(name for name in EDITABLE if fields[name] != getattr(tournament, name))
    for name in changed:
        setattr(tournament, name, fields[name])
    players = [entry.player for entry in
               tournament.entries.filter(withdrawn_at__isnull=True, disqualified="").select_related("player")]
    for player in players:
        try:
            _can_play(player, tournament)
        except ServiceError as exc:
            raise ServiceError(f"{exc.message} (withdraw it first)", changed[0] if changed else "entries") from None
    _check_field(tournament, players, changed[0] if changed else "entries")
    tournament.save(update_fields=[*changed, "seed_chosen"])
    if changed:  # the scoring, the format, the table size: what the standings are computed by
        standings_changed(tournament_ids=[tournament.pk])
    AuditEvent.objects.create(tournament=tournament, actor=actor, action="updated",
                              detail={"fields": [name for name in changed if name != "seed"]})
    return tournament


@transaction.atomic
def tournament_delete(*, tournament: Tournament, actor=None) -> None:
    """Delete a tournament that has not started, with its entries and its audit. Refused
    (conflict) once started: its matches and results are history, and ratings may rest on
    them (cancel it instead); and for a league's division."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        raise ServiceError(f"the tournament is {tournament.status}: only one not yet started is deleted "
                           "(cancel it instead)", "status", code="conflict")
    if tournament.season_id is not None:
        raise ServiceError("a league's division is set by its league", "season", code="conflict")
    tournament.delete()


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
    # No clock runs for a match that will not be played: its last view shows no deadline, and
    # the clock check has nothing to apply.
    Match.objects.filter(round__tournament=tournament).exclude(status=Match.Status.FINISHED).filter(
        deadline_at__isnull=False).update(deadline_at=None, awaiting_seat=None, awaiting_since=None)
    # The streams of its matches being played online end ("cancelled"), and their seats leave
    # their players' turns.
    running = Seat.objects.filter(match__round__tournament=tournament, match__status=Match.Status.RUNNING)
    events.publish_on_commit(
        [events.match_channel(m) for m in running.values_list("match_id", flat=True).distinct()]
        + [events.user_channel(u) for u in running.exclude(player__owner=None)
           .values_list("player__owner_id", flat=True).distinct()])
    return tournament
