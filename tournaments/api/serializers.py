"""DRF serializers: shapes of the API's requests and answers. Validation of the rules lives
in the services; these check shapes, and decide what each caller is shown (the context's
``caller``, a :class:`tournaments.permissions.Caller`): secrets to their owner only, seeds and
results once they are public (:mod:`tournaments.selectors`)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tournaments import permissions, ratings, selectors
from tournaments.models import (
    ApiToken,
    AuditEvent,
    Entry,
    League,
    Match,
    Player,
    Rating,
    RatingChange,
    RatingLadder,
    ResultSubmission,
    Round,
    Season,
    Seat,
    Tournament,
)

SEED_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1


def _caller(serializer: serializers.Serializer) -> permissions.Caller:
    return serializer.context.get("caller", permissions.ANONYMOUS)


class _Usernames(serializers.ListField):
    """The co-organisers of an event, by username."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.CharField(), read_only=True, **kwargs)

    def to_representation(self, manager):
        return [user.get_username() for user in manager.all()]


class _Username(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def get_attribute(self, instance):
        owner = getattr(instance, self.source)
        return None if owner is None else owner.get_username()


class PlayerSerializer(serializers.ModelSerializer):
    bot_config = serializers.JSONField(
        required=False, allow_null=True,
        help_text="the bot's configuration (built-in: {bot, options}; http: {url, headers, limits}; "
                  "subprocess: {command, limits}). Write; shown to the player's owner only, null to others.",
    )
    bot = serializers.SerializerMethodField(help_text="the built-in bot a player plays with, and its options")
    owner = _Username(help_text="the account that acts for this player")

    class Meta:
        model = Player
        fields = ["id", "name", "display_name", "kind", "bot_kind", "bot_config", "bot", "owner", "active", "created_at"]
        read_only_fields = ["id", "active", "created_at"]
        extra_kwargs = {"name": {"validators": []}}  # uniqueness is the service's, with its message

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "name": {"type": "string"}, "options": {"type": "object", "additionalProperties": True}}})
    def get_bot(self, player: Player) -> dict | None:
        if player.bot_kind != Player.BotKind.BUILTIN:
            return None  # an external bot's address and command are its owner's business
        return {"name": player.bot_config.get("bot"), "options": player.bot_config.get("options", {})}

    def to_representation(self, player: Player) -> dict:
        data = super().to_representation(player)
        if not permissions.sees_secrets(_caller(self), player):
            data["bot_config"] = None
        return data


class PlayerUpdateSerializer(serializers.Serializer):
    display_name = serializers.CharField(max_length=120, required=False, allow_blank=True)
    bot_config = serializers.JSONField(required=False)
    active = serializers.BooleanField(required=False)


class LadderSerializer(serializers.ModelSerializer):
    owner = _Username()
    organisers = _Usernames()
    system = serializers.ChoiceField(choices=sorted(ratings.SYSTEMS), default="elo",
                                     help_text="the rating system: elo (the default) or openskill (Plackett-Luce)")

    class Meta:
        model = RatingLadder
        fields = ["id", "slug", "version", "name", "game", "system", "config", "config_hash", "applied", "owner",
                  "organisers", "created_at"]
        read_only_fields = ["id", "version", "config_hash", "applied", "created_at"]
        extra_kwargs = {"config": {"required": False}, "slug": {"validators": []}}
        validators = []  # a slug's next version is the service's to number


class LadderNameSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)


class TournamentSerializer(serializers.ModelSerializer):
    ladder = serializers.PrimaryKeyRelatedField(queryset=RatingLadder.objects.all(), required=False, allow_null=True)
    entrants = serializers.IntegerField(source="entries.count", read_only=True)
    seed = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=SEED_MAX,
        help_text="every deal derives from it: drawn at random unless given (then seed_chosen is true); "
                  "null in answers until the tournament is finished",
    )
    owner = _Username()
    organisers = _Usernames()

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "slug", "game", "options", "format", "format_config", "table_size", "duplicate",
            "points_by_place", "tiebreaks", "seed", "seed_chosen", "ladder", "starts_at", "round_interval",
            "open_entry", "several_seats", "online", "move_seconds", "bank_seconds", "timeout_bot", "confirmation",
            "status", "owner", "organisers",
            "entrants", "created_at", "finished_at",
        ]
        read_only_fields = ["id", "seed_chosen", "status", "entrants", "created_at", "finished_at"]
        extra_kwargs = {
            "slug": {"validators": []},
            "options": {"required": False},
            "format_config": {"required": False},
            "points_by_place": {"required": False},
            "tiebreaks": {"required": False},
            "table_size": {"min_value": 1, "max_value": 32767},
        }

    def to_representation(self, tournament: Tournament) -> dict:
        data = super().to_representation(tournament)
        if not selectors.tournament_seed_public(tournament):
            data["seed"] = None
        return data


class EntrySerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.name", read_only=True)
    active = serializers.BooleanField(read_only=True)

    class Meta:
        model = Entry
        fields = ["id", "tournament", "player", "player_name", "seed_rank", "checked_in", "withdrawn_at",
                  "disqualified", "active"]
        read_only_fields = ["id", "tournament", "checked_in", "withdrawn_at", "disqualified"]
        extra_kwargs = {"seed_rank": {"required": False, "min_value": 1, "max_value": INT32_MAX}}
        validators = []


class SeatSerializer(serializers.ModelSerializer):
    """A seat, with its outcome once the match's outcome is public; a forfeit's detail (it may
    quote a bot's address or error output) to the player's owner only."""

    player_name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = Seat
        fields = ["position", "player", "player_name", "score", "place", "forfeit_reason", "forfeit_detail",
                  "decisions", "think_seconds"]
        extra_kwargs = {
            "forfeit_reason": {"allow_null": True}, "forfeit_detail": {"allow_null": True},
            "decisions": {"allow_null": True}, "think_seconds": {"allow_null": True},
        }

    def to_representation(self, seat: Seat) -> dict:
        data = super().to_representation(seat)
        if not self.context.get("outcome_public", {}).get(seat.match_id, False):
            for name in ("score", "place", "forfeit_reason", "forfeit_detail", "decisions", "think_seconds"):
                data[name] = None
        elif not permissions.sees_secrets(_caller(self), seat.player):
            data["forfeit_detail"] = None
        return data


class MatchSerializer(serializers.ModelSerializer):
    """A table. Its seed, its seats' outcomes and its finishing time are null until its outcome
    is public (finished, and in duplicate play its round over)."""

    seats = SeatSerializer(many=True, read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    tournament = serializers.IntegerField(source="round.tournament_id", read_only=True)
    seed = serializers.IntegerField(read_only=True, allow_null=True)
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True)

    class Meta:
        model = Match
        fields = ["id", "tournament", "round", "table", "seed", "deal", "status", "notes", "scheduled_at",
                  "started_at", "finished_at", "deadline_at", "attempts", "interrupted", "seats"]

    def to_representation(self, match: Match) -> dict:
        public = selectors.outcome_public(match)
        # The seats' serializer reads it from the context: one decision per match.
        self.context.setdefault("outcome_public", {})[match.pk] = public
        data = super().to_representation(match)
        if not public:
            data["seed"] = None
            data["finished_at"] = None
        return data


class RoundSerializer(serializers.ModelSerializer):
    matches = MatchSerializer(many=True, read_only=True)

    class Meta:
        model = Round
        fields = ["id", "number", "status", "notes", "byes", "created_at", "finished_at", "matches"]


REPLAY_FORMAT = 1  # docs/api.md, "Replays": raised when a field changes meaning or goes away


class ReplaySerializer(serializers.Serializer):
    format = serializers.IntegerField(help_text="the replay format's version (docs/api.md, \"Replays\")")
    match = serializers.IntegerField()
    record = serializers.JSONField(allow_null=True, help_text="engine to_json(): inputs and actions; null when reported")
    log = serializers.ListField(child=serializers.DictField(), allow_null=True,
                                help_text="every event of the match, private parts included")


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField(source="player.id")
    player_name = serializers.CharField(source="player.name")
    played = serializers.IntegerField()
    match_points = serializers.JSONField()
    game_score = serializers.JSONField()
    tiebreaks = serializers.JSONField()
    explanation = serializers.CharField()
    withdrawn = serializers.BooleanField()
    reached = serializers.CharField(allow_null=True, help_text="elimination formats: how far in the bracket")


class LeaderboardSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.IntegerField(source="player.id")
    player_name = serializers.CharField(source="player.name")
    rating = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()


class RatingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Rating
        fields = ["player", "mu", "sigma", "games", "updated_at"]


class RatingChangeSerializer(serializers.ModelSerializer):
    tournament = serializers.IntegerField(source="match.round.tournament_id", read_only=True)

    class Meta:
        model = RatingChange
        fields = ["sequence", "match", "tournament", "player", "before_mu", "before_sigma", "after_mu", "after_sigma",
                  "games", "expected_place", "actual_place", "created_at"]


_WHEN = serializers.DateTimeField()
_RENAMED = {"match_id": "match", "match__round__tournament_id": "tournament", "player_id": "player"}


def rating_change_rows(rows: list[dict]) -> list[dict]:
    """Rows of selectors.history_rows as RatingChangeSerializer shows a change (the
    same keys, in the same order, the same values), at a fraction of its cost."""
    # The reader's time zone read once, not once a line (DRF looks it up on each datetime).
    when = serializers.DateTimeField(default_timezone=_WHEN.default_timezone()) if settings.USE_TZ else _WHEN
    out = []
    for row in rows:
        line = {_RENAMED.get(key, key): value for key, value in row.items()}
        line["created_at"] = when.to_representation(line["created_at"])
        out.append(line)
    return out


class SubmissionSerializer(serializers.ModelSerializer):
    places = serializers.ListField(
        child=serializers.IntegerField(), required=False,
        help_text="each seat's place; omit it to have the places follow the scores as the game ranks them",
    )
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="each seat's score, in seat order")

    class Meta:
        model = ResultSubmission
        fields = ["id", "match", "version", "scores", "places", "status", "reason", "submitted_by", "confirmed_by", "created_at"]
        read_only_fields = ["id", "match", "version", "status", "reason", "submitted_by", "confirmed_by", "created_at"]


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200)


class SeatViewSerializer(serializers.Serializer):
    """What one seat of an online match sees (docs/online.md)."""

    match = serializers.IntegerField()
    position = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.CharField()
    turn = serializers.IntegerField(allow_null=True, help_text="the seat to act; null once the match is over")
    waiting_for = serializers.IntegerField(allow_null=True, help_text="the online seat whose action the match awaits")
    forfeited = serializers.BooleanField()
    deadline_at = serializers.DateTimeField(allow_null=True, help_text="when the seat awaited runs out of time")
    bank_left = serializers.FloatField(allow_null=True, help_text="seconds this seat has left of its bank (null: no "
                                                                  "bank); counted in its deadline")
    actions = serializers.IntegerField(help_text="actions applied so far")
    view = serializers.JSONField(help_text="the engine's view(seat): this seat's cards, the public table, and on its "
                                           "turn its legal_actions")


class TableViewSerializer(serializers.Serializer):
    """What a spectator sees of an online match: public information only."""

    match = serializers.IntegerField()
    status = serializers.CharField()
    turn = serializers.IntegerField(allow_null=True)
    waiting_for = serializers.IntegerField(allow_null=True)
    deadline_at = serializers.DateTimeField(allow_null=True)
    actions = serializers.IntegerField()
    view = serializers.JSONField(help_text="the engine's view(None)")


class OnlineSeatSerializer(serializers.Serializer):
    """One of the caller's seats in an online match being played."""

    match = serializers.IntegerField(source="match_id")
    position = serializers.IntegerField()
    player = serializers.CharField(source="player.name")
    tournament = serializers.IntegerField(source="match.round.tournament_id")
    game = serializers.CharField(source="match.round.tournament.game")
    your_turn = serializers.BooleanField(help_text="the match awaits this seat's action")
    deadline_at = serializers.DateTimeField(source="match.deadline_at", allow_null=True)


class SeatActionSerializer(serializers.Serializer):
    action = serializers.JSONField(help_text="one of the seat's legal_actions, e.g. {\"type\": \"pass\"}")
    actions = serializers.IntegerField(
        required=False, min_value=0, max_value=1_000_000,
        help_text="the decision this move answers: the `actions` of the view it was chosen from. When the match "
                  "has moved on since (the seat's time ran out and its turn came again), the move is refused 409 "
                  "instead of answering a decision its player never saw. Optional; every client should send it")


class ActedSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the action's number in the match, from 0")
    action = serializers.JSONField()
    repeated = serializers.BooleanField(help_text="true: this Idempotency-Key was seen before; nothing was applied again")


class AuditSerializer(serializers.ModelSerializer):
    """An audit event; what it says of a match's result stays hidden while that result is."""

    class Meta:
        model = AuditEvent
        fields = ["id", "match", "actor", "action", "detail", "created_at"]

    def to_representation(self, event: AuditEvent) -> dict:
        data = super().to_representation(event)
        if event.match_id is not None and not selectors.outcome_public(event.match):
            data["detail"] = {}
        return data


class LeagueSerializer(serializers.ModelSerializer):
    ladder = serializers.PrimaryKeyRelatedField(queryset=RatingLadder.objects.all(), required=False, allow_null=True)
    players = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    owner = _Username()
    organisers = _Usernames()

    class Meta:
        model = League
        fields = ["id", "name", "slug", "game", "options", "table_size", "division_size", "promote", "relegate",
                  "round_interval", "format", "format_config", "continuous", "open_entry", "ladder", "players",
                  "owner", "organisers", "created_at"]
        read_only_fields = ["id", "players", "created_at"]
        extra_kwargs = {
            "slug": {"validators": []}, "options": {"required": False}, "format_config": {"required": False},
            "table_size": {"min_value": 1, "max_value": 32767}, "division_size": {"min_value": 1, "max_value": 32767},
            "promote": {"min_value": 0, "max_value": 32767}, "relegate": {"min_value": 0, "max_value": 32767},
        }


class SeasonSerializer(serializers.ModelSerializer):
    divisions = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Season
        fields = ["id", "number", "starts_at", "finished_at", "divisions", "next_divisions"]


class JoinSerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())


class OrganiserSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)


class TokenSerializer(serializers.ModelSerializer):
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=ApiToken.Scope.choices), min_length=1, max_length=len(ApiToken.Scope.values),
        help_text="read: private reads; organise: create and change what you own; play: act for your players",
    )
    bot = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.filter(kind=Player.Kind.BOT), required=False, allow_null=True,
        help_text="tie the token to this one remote bot of yours: it then acts only as that bot (scopes read and "
                  "play); the service plays every other kind of bot, and nobody reads their seats",
    )

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "bot", "created_at", "last_used_at", "expires_at", "revoked_at"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at", "revoked_at"]


class TokenCreatedSerializer(TokenSerializer):
    token = serializers.CharField(read_only=True, help_text="the token itself: shown this once, never again")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]
