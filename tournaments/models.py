"""The service's data: players, tournaments and their rounds, matches and seats, results,
rating ladders and their append-only ledger.

Invariants live in the database, not only in code: one result per match, one seat per
player per match, one rating change per ladder, match and player. Only
``tournaments.services`` writes these models; ``tournaments.selectors`` reads them.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q


def secret_seed() -> int:
    """A fresh 63-bit seed nobody can guess (deals derive from it: see services/seeds.py)."""
    return secrets.randbits(63)


class Player(models.Model):
    """Someone or something that sits at tables: a person, or a bot with its configuration."""

    class Kind(models.TextChoices):
        PERSON = "person"
        BOT = "bot"

    class BotKind(models.TextChoices):
        BUILTIN = "builtin", "built-in bot"
        SUBPROCESS = "subprocess", "program (JSON lines on stdin/stdout)"
        HTTP = "http", "HTTP endpoint"
        # No code of its author's runs here: it reads its seat's view and posts its actions
        # through the API with its owner's token (docs/online.md), like a person.
        REMOTE = "remote", "remote (plays through the API)"

    name = models.SlugField(max_length=64, unique=True, help_text="unique handle, e.g. 'ada' or 'stoppa-mcts-v2'")
    display_name = models.CharField(max_length=120, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    bot_kind = models.CharField(max_length=12, choices=BotKind.choices, blank=True)
    # Built-in: {"bot": "ismcts", "options": {...}}; subprocess: {"command": [...], "limits": {...}};
    # http: {"url": "...", "headers": {...}, "limits": {...}}. Bounds: tournaments/limits.py.
    # Secret: shown to the owner only (an http bot's URL or headers may carry its token).
    bot_config = models.JSONField(default=dict, blank=True)
    # The account that acts for this player: a bot's author, a person's own account (or the
    # organiser who registered a guest). Only the owner (or staff) changes the player, reads
    # its bot_config, and acts for it at a table (docs/api.md, "Who may do what").
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="players"
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="person", bot_kind="") | Q(kind="bot") & ~Q(bot_kind=""),
                name="player_bot_kind_matches_kind",
            )
        ]

    def __str__(self) -> str:
        return self.display_name or self.name

    @property
    def plays_online(self) -> bool:
        """Sits at its tables through the API (a person, or a remote bot), never in a worker."""
        return self.kind == self.Kind.PERSON or self.bot_kind == self.BotKind.REMOTE

    @property
    def is_external_bot(self) -> bool:
        """Its author's program: a subprocess the workers run, or an HTTP endpoint they call."""
        return self.bot_kind in (self.BotKind.SUBPROCESS, self.BotKind.HTTP)


def plays_online(prefix: str = "") -> Q:
    """:attr:`Player.plays_online` as a query on players (``prefix``: the path to them, e.g.
    "seats__player__")."""
    return Q(**{f"{prefix}kind": Player.Kind.PERSON}) | Q(**{f"{prefix}bot_kind": Player.BotKind.REMOTE})


def seats_online() -> Q:
    """On matches: those where a seat plays online (a person, or a remote bot)."""
    return Q(pk__in=Seat.objects.filter(plays_online("player__")).values("match_id"))


class RatingLadder(models.Model):
    """A rating pool for one game. Its system and parameters never change: a new
    configuration is a new version of the ladder (same slug, version + 1)."""

    slug = models.SlugField(max_length=64)
    version = models.PositiveIntegerField(default=1)
    name = models.CharField(max_length=120)
    game = models.CharField(max_length=32)
    system = models.CharField(max_length=32, help_text="'elo' or 'openskill'")
    config = models.JSONField(help_text="the rating system's full parameters, frozen at creation")
    config_hash = models.CharField(max_length=64)
    # The ledger's last sequence number (the next change is applied + 1). It only grows, a
    # recomputed ledger numbered on from it: one value names one state of the ratings.
    applied = models.PositiveIntegerField(default=0)
    # Only the owner and the organisers attach tournaments and leagues to the ladder (its
    # ratings are as trustworthy as the events that feed it) or make a new version of it.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="owned_ladders"
    )
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organised_ladders")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug", "-version"]
        constraints = [models.UniqueConstraint(fields=["slug", "version"], name="ladder_slug_version_unique")]

    def __str__(self) -> str:
        return f"{self.name} (v{self.version})"


class League(models.Model):
    """A standing competition: seasons of periodic rounds, players in divisions, the best
    promoted and the worst relegated between seasons. Each division of a season is a
    Tournament (a round robin played a round every ``round_interval``)."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=80, unique=True)
    game = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField()
    division_size = models.PositiveSmallIntegerField()
    promote = models.PositiveSmallIntegerField(default=2, help_text="players moving up after a season")
    relegate = models.PositiveSmallIntegerField(default=2, help_text="players moving down after a season")
    round_interval = models.DurationField(help_text="time between two rounds of a season")
    format = models.CharField(max_length=32, default="round_robin", help_text="each division's format")
    format_config = models.JSONField(default=dict, blank=True)
    continuous = models.BooleanField(default=True, help_text="start the next season when one ends")
    ladder = models.ForeignKey("RatingLadder", null=True, blank=True, on_delete=models.PROTECT, related_name="leagues")
    players = models.ManyToManyField("Player", related_name="leagues", blank=True)
    # Secret: every division's deals derive from it (never shown; see services/leagues.py).
    seed = models.BigIntegerField(default=secret_seed)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="owned_leagues"
    )
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organised_leagues")
    open_entry = models.BooleanField(default=False, help_text="players' owners may join them themselves")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Season(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    starts_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    # Next season's divisions (player ids, best first), set when this one ends.
    next_divisions = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["league", "number"]
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="season_number_unique")]


class Tournament(models.Model):
    """A competition at one game: its rules, format, schedule and entrants."""

    class Status(models.TextChoices):
        DRAFT = "draft"
        REGISTRATION = "registration"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Confirmation(models.TextChoices):
        NONE = "none", "nobody: every report counts at once"
        OTHER = "other", ("someone other than its author: a player's report counts once an organiser or another "
                          "seated player's owner confirms it; an organiser's counts at once")
        ORGANISER = "organiser", ("an organiser: a player's report counts once an organiser confirms it; an "
                                  "organiser's counts at once")
        STRICT = "strict", ("someone other than its author, for every report: an organiser's too waits for "
                            "another organiser or a seated player's owner")

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=80, unique=True)
    game = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True, help_text="engine options for every match")
    format = models.CharField(max_length=32)
    format_config = models.JSONField(default=dict, blank=True)
    table_size = models.PositiveSmallIntegerField()
    duplicate = models.BooleanField(default=False, help_text="the same deal at every table of a round")
    points_by_place = models.JSONField(default=list, blank=True, help_text="match points for places 1..N")
    tiebreaks = models.JSONField(default=list, blank=True)
    # Secret until the tournament is finished: every deal derives from it.
    seed = models.BigIntegerField(help_text="every deal and pairing derives from it")
    seed_chosen = models.BooleanField(default=False, help_text="the organiser chose the seed (and so knows the deals)")
    ladder = models.ForeignKey(RatingLadder, null=True, blank=True, on_delete=models.PROTECT, related_name="tournaments")
    starts_at = models.DateTimeField(null=True, blank=True)
    round_interval = models.DurationField(null=True, blank=True, help_text="leagues: time between rounds")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.CASCADE, related_name="divisions")
    division = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 = top division")
    # The owner and the co-organisers run the event (a league division: the league's).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="owned_tournaments"
    )
    organisers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organised_tournaments")
    open_entry = models.BooleanField(default=False, help_text="players' owners may enter them themselves")
    # One account reads one seat of a table unless the organiser allows several: never in a
    # rated tournament (the constraint below), whose ladder would rest on tables where one
    # account reads several hands (services.tournaments: the seats-per-account rule).
    several_seats = models.BooleanField(
        default=False,
        help_text="one account may hold several seats whose cards it reads (a person and her remote bot, two "
                  "bots of one author); never in a rated tournament",
    )
    online = models.BooleanField(
        default=False,
        help_text="people and remote bots play their matches through the API (docs/online.md); "
                  "otherwise people play on real tables and report the results",
    )
    # Online play's clock: an online seat has this long for each action; when it runs out the
    # tournament's timeout policy applies (services.online.deadlines_expire).
    move_seconds = models.PositiveIntegerField(null=True, blank=True,
                                               help_text="seconds an online seat has for each action; null: no limit")
    bank_seconds = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="a reserve each online seat has for the whole match, spent once a move's move_seconds are used "
                  "up; null: none",
    )
    timeout_bot = models.CharField(
        max_length=40, blank=True,
        help_text="when a move's time runs out: empty, the seat is forfeited (the fallback bot plays it on, it "
                  "ranks last); a built-in bot's name, that bot plays the move and the seat plays on",
    )
    # Who must confirm a result people report from a real table before it counts
    # (services.results: docs/tournaments.md, "Reported results"). An organiser's report counts
    # at once unless ``strict``; a player's (its owner's, for its seat) waits for the confirmer
    # the setting names, never for its own author.
    confirmation = models.CharField(
        max_length=10, choices=Confirmation.choices, default=Confirmation.OTHER,
        help_text="who must confirm a reported result before it counts: none, anyone but its author (other), "
                  "an organiser, or anyone but its author even for an organiser's report (strict)",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # One more whenever something the standings are computed from changes outside this row (a
    # result, a round made or closed, an entry, an entrant's name), in the transaction that
    # changes it (services.versions.standings_changed): with the row's own scoring and status, it
    # names the standings' exact state, which is what caches keep them under.
    standings_version = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "division"], name="division_once_per_season"),
            models.CheckConstraint(condition=Q(several_seats=False) | Q(ladder__isnull=True),
                                   name="several_seats_unrated",
                                   violation_error_message="several seats for one account are never allowed in "
                                                           "a rated tournament"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        # standings_version is only ever added to, by an UPDATE (services.versions): saving an
        # instance read earlier (the admin's form) must not write back the number it read.
        if not self._state.adding and kwargs.get("update_fields") is None and not kwargs.get("force_insert"):
            kwargs["update_fields"] = [f.name for f in self._meta.concrete_fields
                                       if not f.primary_key and f.name != "standings_version"]
        super().save(*args, **kwargs)


class Entry(models.Model):
    """A player entered in a tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    seed_rank = models.PositiveIntegerField(help_text="1 = top seed")
    checked_in = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    disqualified = models.CharField(max_length=200, blank=True, help_text="reason, if disqualified")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seed_rank"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="entry_one_per_player"),
            models.UniqueConstraint(fields=["tournament", "seed_rank"], name="entry_seed_rank_unique"),
        ]

    @property
    def active(self) -> bool:
        return self.withdrawn_at is None and not self.disqualified


class Round(models.Model):
    """One round of a tournament: a set of tables played together."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    notes = models.JSONField(default=list, blank=True, help_text="why the round looks as it does")
    byes = models.JSONField(default=list, blank=True, help_text="player ids with a bye")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_number_unique")]


class Match(models.Model):
    """One table: a complete, scoreable match through the engine."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        FINISHED = "finished"

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    table = models.PositiveIntegerField(help_text="table number within the round, from 1")
    seed = models.BigIntegerField()
    deck = models.JSONField(null=True, blank=True, help_text="a stacked deck, for shared deals")
    deal = models.PositiveIntegerField(
        null=True, blank=True, help_text="duplicate play: tables with one deal key share the cards")
    notes = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    scheduled_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The run lease: a worker owns the match until lease_expires_at; a dead worker's match is
    # claimed again once it has passed.
    lease_owner = models.CharField(max_length=120, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # Plays of this match that started: charged when a worker records it, or, for a match
    # whose earlier worker died (``interrupted``), before its worker starts it. A match that
    # reaches MATCH_MAX_ATTEMPTS without a result is given up (services.leases).
    attempts = models.PositiveIntegerField(default=0)
    # Times a worker holding it died or lost its lease before recording it. Such a match is
    # played alone and charged first, so the one that kills its worker is found out, and the
    # others of a dead worker's batch are not charged for plays that never started.
    interrupted = models.PositiveIntegerField(default=0)
    # The engine's to_json(): the match's inputs and actions. The full event log is derived
    # from it by replaying (engine.load), so it is not stored twice.
    record = models.JSONField(null=True, blank=True, help_text="engine to_json(): inputs and actions, for replays")
    # Online matches: the online seat whose action the match awaits, and when its time runs out
    # (null: not waiting for an online seat; no clock running).
    awaiting_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True)
    # Since when it awaits that seat: what a move took, charged to the seat's bank.
    awaiting_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "table"]
        verbose_name_plural = "matches"
        constraints = [models.UniqueConstraint(fields=["round", "table"], name="match_table_unique")]
        indexes = [
            models.Index(fields=["status", "lease_expires_at"], name="match_status_lease"),
            models.Index(fields=["deadline_at"], name="match_deadline", condition=Q(deadline_at__isnull=False)),
        ]


class Seat(models.Model):
    """A player at a match, in turn order, with the outcome."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(help_text="0 acts first")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit_reason = models.CharField(max_length=40, blank=True)
    forfeit_detail = models.TextField(blank=True)
    decisions = models.PositiveIntegerField(default=0)
    think_seconds = models.FloatField(default=0.0)
    # Online play: what the seat has left of its bank (null: all of it): of its tournament's
    # bank_seconds for a seat played through the API, of its limits' time bank for an external
    # bot, which is asked one decision at a time (services.online.online_bots_move).
    bank_left = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="seat_one_per_player"),
            models.UniqueConstraint(fields=["match", "position"], name="seat_position_unique"),
        ]


class Result(models.Model):
    """A match's recorded outcome: exactly one per match."""

    class Source(models.TextChoices):
        ENGINE = "engine", "played through the engine"
        REPORTED = "reported", "reported by people"

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="result")
    scores = models.JSONField()
    places = models.JSONField()
    source = models.CharField(max_length=10, choices=Source.choices)
    recorded_at = models.DateTimeField(auto_now_add=True)


class ResultSubmission(models.Model):
    """A result reported by a person for a match played on a real table. Versioned: each
    new submission for a match gets the next version; the first confirmed one becomes the
    Result."""

    class Status(models.TextChoices):
        PENDING = "pending"
        CONFIRMED = "confirmed"
        REJECTED = "rejected"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="submissions")
    version = models.PositiveIntegerField()
    scores = models.JSONField()
    places = models.JSONField()
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "version"]
        constraints = [models.UniqueConstraint(fields=["match", "version"], name="submission_version_unique")]


class MatchAction(models.Model):
    """One action a seat chose in an online match, in order: the match so far is the engine
    replaying them from the match's seed (docs/online.md). Append-only."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField(help_text="0, 1, 2 ... in the order applied")
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    # Who chose it: the seat's own (its owner, through the API), its built-in bot, or the
    # fallback bot playing a forfeited seat.
    by = models.CharField(max_length=12)
    # The client's Idempotency-Key: the same key again gets the first answer, never a second move.
    idempotency_key = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="match_action_seq_unique"),
            models.UniqueConstraint(fields=["match", "seat", "idempotency_key"], condition=~Q(idempotency_key=""),
                                    name="match_action_idempotency_unique"),
        ]


class AuditEvent(models.Model):
    """Who did what to a tournament's results: append-only."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="audit")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=40)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class Rating(models.Model):
    """A player's current rating on a ladder (the ledger's latest entry, kept for reads)."""

    ladder = models.ForeignKey(RatingLadder, on_delete=models.CASCADE, related_name="ratings")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    # What the leaderboard sorts by and shows (the ladder's system: Elo the rating, openskill
    # mu - 3 sigma), written with the rating so that a page of the leaderboard is one indexed
    # query, not a sort of the whole ladder.
    value = models.FloatField(default=0.0)
    provisional = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["ladder", "-mu"]
        constraints = [models.UniqueConstraint(fields=["ladder", "player"], name="rating_one_per_player")]
        # The board's order (selectors.BOARD_ORDER): a page, at any depth, is read off the index.
        # It carries the line's numbers too (PostgreSQL), so that the scan never visits the table.
        indexes = [models.Index(fields=["ladder", "-value", "player"], include=["mu", "sigma", "games", "provisional"],
                                name="rating_board")]


class RatingChange(models.Model):
    """The append-only ledger: one change per ladder, match and player, in applied order."""

    ladder = models.ForeignKey(RatingLadder, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    sequence = models.PositiveIntegerField(help_text="order of application within the ladder")
    before_mu = models.FloatField()
    before_sigma = models.FloatField(null=True, blank=True)
    after_mu = models.FloatField()
    after_sigma = models.FloatField(null=True, blank=True)
    games = models.PositiveIntegerField(help_text="rated matches after this one")
    expected_place = models.FloatField()
    actual_place = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ladder", "sequence", "player"]
        constraints = [
            models.UniqueConstraint(fields=["ladder", "match", "player"], name="rating_change_once"),
        ]
        # A player's history, a page at a time in the order applied (selectors.history_rows).
        indexes = [models.Index(fields=["ladder", "player", "sequence"], name="rating_change_history")]


class ApiToken(models.Model):
    """A personal API token: how programs act for a user (tournaments/api/auth.py).

    The token itself is shown once, at creation; only its prefix (to find it) and the SHA-256
    of the whole token are stored, so a database leak gives no working token (the token is 32
    random bytes: a plain hash is enough, no password stretching is needed). ``scopes`` bound
    what it may do (``read``, ``organise``, ``play``); ``bot`` restricts it to acting as that
    one bot. A revoked or expired token authenticates nobody."""

    class Scope(models.TextChoices):
        READ = "read", "read everything the user may read, private fields included"
        ORGANISE = "organise", "create and change what the user owns: players, tournaments, leagues, ladders"
        PLAY = "play", "act at the table for the user's players: results, withdrawals, entries"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="what the token is for, e.g. 'my bot on the laptop'")
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    scopes = models.JSONField(default=list)
    bot = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE, related_name="api_tokens")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class Webhook(models.Model):
    """A URL an organiser subscribed to the events of a tournament or of a league (its
    divisions' events), docs/api.md "Webhooks". Each delivery is signed with ``secret`` (an
    HMAC key shown to the owner when the webhook is made)."""

    class Event(models.TextChoices):
        ROUND_PUBLISHED = "round.published", "a round's tables were made"
        MATCH_FINISHED = "match.finished", "a match's result was recorded"
        STANDINGS_CHANGED = "standings.changed", "results changed the standings"
        TOURNAMENT_FINISHED = "tournament.finished", "the tournament is over"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    league = models.ForeignKey(League, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=2000)
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=64)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(tournament__isnull=False, league__isnull=True)
                                   | Q(tournament__isnull=True, league__isnull=False), name="webhook_one_event"),
        ]


class WebhookDelivery(models.Model):
    """One event sent (or to send) to one webhook: an outbox row written in the transaction of
    the change it tells of, then POSTed by the workers with retries (services.webhooks)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"  # claimed by a worker until claimed_until
        DELIVERED = "delivered"
        FAILED = "failed"  # no 2xx after every attempt

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    delivery_id = models.UUIDField(unique=True, help_text="sent as X-Mazziere-Delivery")
    event_id = models.UUIDField(help_text="the event's: a redelivery of it carries the same")
    event = models.CharField(max_length=40)
    payload = models.JSONField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    log = models.JSONField(default=list, help_text="each attempt: when, the status code, the answer's start, the error")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due")]
