"""DRF serializers: shapes of the API's requests and answers. Validation of the rules lives
in the services; these only check shapes."""

from __future__ import annotations

from rest_framework import serializers

from tournaments.models import (
    AuditEvent, Entry, League, Match, Player, Rating, RatingChange, RatingLadder, ResultSubmission, Round, Season, Seat,
    Tournament,
)


class PlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name", "display_name", "kind", "bot_kind", "bot_config", "active", "created_at"]
        read_only_fields = ["id", "active", "created_at"]
        extra_kwargs = {"name": {"validators": []}}  # uniqueness is the service's, with its message


class LadderSerializer(serializers.ModelSerializer):
    class Meta:
        model = RatingLadder
        fields = ["id", "slug", "version", "name", "game", "system", "config", "config_hash", "applied", "created_at"]
        read_only_fields = ["id", "version", "config_hash", "applied", "created_at"]
        extra_kwargs = {"config": {"required": False}, "slug": {"validators": []}}


class TournamentSerializer(serializers.ModelSerializer):
    ladder = serializers.PrimaryKeyRelatedField(queryset=RatingLadder.objects.all(), required=False, allow_null=True)
    entrants = serializers.IntegerField(source="entries.count", read_only=True)

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "slug", "game", "options", "format", "format_config", "table_size", "duplicate",
            "points_by_place", "tiebreaks", "seed", "ladder", "starts_at", "round_interval", "status",
            "entrants", "created_at", "finished_at",
        ]
        read_only_fields = ["id", "status", "entrants", "created_at", "finished_at"]
        extra_kwargs = {
            "slug": {"validators": []},
            "seed": {"required": False},
            "options": {"required": False},
            "format_config": {"required": False},
            "points_by_place": {"required": False},
            "tiebreaks": {"required": False},
        }


class EntrySerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.name", read_only=True)
    active = serializers.BooleanField(read_only=True)

    class Meta:
        model = Entry
        fields = ["id", "player", "player_name", "seed_rank", "checked_in", "withdrawn_at", "disqualified", "active"]
        read_only_fields = ["id", "checked_in", "withdrawn_at", "disqualified"]
        extra_kwargs = {"seed_rank": {"required": False}}
        validators = []


class SeatSerializer(serializers.ModelSerializer):
    player_name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = Seat
        fields = ["position", "player", "player_name", "score", "place", "forfeit_reason", "forfeit_detail",
                  "decisions", "think_seconds"]


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    round = serializers.IntegerField(source="round.number", read_only=True)
    tournament = serializers.IntegerField(source="round.tournament_id", read_only=True)

    class Meta:
        model = Match
        fields = ["id", "tournament", "round", "table", "seed", "deal", "status", "notes", "scheduled_at",
                  "started_at", "finished_at", "attempts", "seats"]


class RoundSerializer(serializers.ModelSerializer):
    matches = MatchSerializer(many=True, read_only=True)

    class Meta:
        model = Round
        fields = ["id", "number", "status", "notes", "byes", "created_at", "finished_at", "matches"]


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


class SubmissionSerializer(serializers.ModelSerializer):
    class Meta:
        model = ResultSubmission
        fields = ["id", "match", "version", "scores", "places", "status", "reason", "submitted_by", "confirmed_by", "created_at"]
        read_only_fields = ["id", "match", "version", "status", "reason", "submitted_by", "confirmed_by", "created_at"]


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200)


class AuditSerializer(serializers.ModelSerializer):
    class Meta:
        model = AuditEvent
        fields = ["id", "match", "actor", "action", "detail", "created_at"]


class LeagueSerializer(serializers.ModelSerializer):
    ladder = serializers.PrimaryKeyRelatedField(queryset=RatingLadder.objects.all(), required=False, allow_null=True)
    players = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = League
        fields = ["id", "name", "slug", "game", "options", "table_size", "division_size", "promote", "relegate",
                  "round_interval", "format", "format_config", "continuous", "ladder", "players", "created_at"]
        read_only_fields = ["id", "players", "created_at"]
        extra_kwargs = {"slug": {"validators": []}, "options": {"required": False}, "format_config": {"required": False}}


class SeasonSerializer(serializers.ModelSerializer):
    divisions = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Season
        fields = ["id", "number", "starts_at", "finished_at", "divisions", "next_divisions"]


class JoinSerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
