"""The REST API: thin views over services (writes) and selectors (reads)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from tournaments import selectors
from tournaments.models import Entry, League, Match, Player, RatingLadder, ResultSubmission, Tournament
from tournaments.services import ladders, leagues, matches, players, results, tournaments

from . import serializers as s


class ReadOrAuthenticated(permissions.IsAuthenticatedOrReadOnly):
    """Anyone may browse; changing anything needs a signed-in user."""


class PlayerViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Player.objects.all()
    serializer_class = s.PlayerSerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["kind", "bot_kind", "active"]

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = players.player_create(
            name=data["name"], kind=data["kind"], display_name=data.get("display_name", ""),
            bot_kind=data.get("bot_kind", ""), bot_config=data.get("bot_config"), owner=self.request.user,
        )


class LadderViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = RatingLadder.objects.all()
    serializer_class = s.LadderSerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["game", "slug", "system"]

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = ladders.ladder_create(
            slug=data["slug"], name=data["name"], game=data["game"], system=data["system"], config=data.get("config"),
        )

    @extend_schema(responses=s.LeaderboardSerializer(many=True))
    @action(detail=True)
    def leaderboard(self, request, pk=None):
        ladder = self.get_object()
        return Response(s.LeaderboardSerializer(selectors.ladder_leaderboard(ladder), many=True).data)

    @extend_schema(responses=s.RatingChangeSerializer(many=True))
    @action(detail=True, url_path=r"history/(?P<player_id>\d+)")
    def history(self, request, pk=None, player_id=None):
        ladder = self.get_object()
        player = get_object_or_404(Player, pk=player_id)
        return Response(s.RatingChangeSerializer(selectors.rating_history(ladder, player), many=True).data)


class TournamentViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Tournament.objects.select_related("ladder")
    serializer_class = s.TournamentSerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["game", "status", "format"]
    lookup_value_regex = r"\d+"

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        serializer.instance = tournaments.tournament_create(actor=self.request.user, **data)

    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        tournament = tournaments.tournament_start(tournament=self.get_object(), actor=request.user)
        return Response(s.TournamentSerializer(tournament).data)

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        tournament = tournaments.tournament_cancel(tournament=self.get_object(), actor=request.user)
        return Response(s.TournamentSerializer(tournament).data)

    @extend_schema(responses=s.StandingSerializer(many=True))
    @action(detail=True)
    def standings(self, request, pk=None):
        return Response(s.StandingSerializer(selectors.tournament_standings(self.get_object()), many=True).data)

    @extend_schema(responses=s.RoundSerializer(many=True))
    @action(detail=True)
    def rounds(self, request, pk=None):
        return Response(s.RoundSerializer(selectors.tournament_rounds(self.get_object()), many=True).data)

    @extend_schema(responses=s.AuditSerializer(many=True))
    @action(detail=True)
    def audit(self, request, pk=None):
        return Response(s.AuditSerializer(self.get_object().audit.all(), many=True).data)

    @extend_schema(request=s.EntrySerializer, responses=s.EntrySerializer(many=True))
    @action(detail=True, methods=["get", "post"])
    def entries(self, request, pk=None):
        tournament = self.get_object()
        if request.method == "POST":
            ser = s.EntrySerializer(data=request.data)
            ser.is_valid(raise_exception=True)
            entry = tournaments.entry_add(
                tournament=tournament, player=ser.validated_data["player"],
                seed_rank=ser.validated_data.get("seed_rank"), actor=request.user,
            )
            return Response(s.EntrySerializer(entry).data, status=status.HTTP_201_CREATED)
        entries = tournament.entries.select_related("player")
        return Response(s.EntrySerializer(entries, many=True).data)


class EntryViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Entry.objects.select_related("player")
    serializer_class = s.EntrySerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["tournament", "player"]

    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        return Response(s.EntrySerializer(tournaments.entry_withdraw(entry=self.get_object(), actor=request.user)).data)

    @extend_schema(request=s.ReasonSerializer)
    @action(detail=True, methods=["post"])
    def disqualify(self, request, pk=None):
        ser = s.ReasonSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        entry = tournaments.entry_disqualify(entry=self.get_object(), reason=ser.validated_data["reason"], actor=request.user)
        return Response(s.EntrySerializer(entry).data)


class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Match.objects.select_related("round").prefetch_related("seats__player")
    serializer_class = s.MatchSerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["status", "round__tournament", "round__number"]

    @action(detail=True)
    def replay(self, request, pk=None):
        """The match's inputs, actions and complete log, once it may be shown (see selectors)."""
        match = self.get_object()
        ok, why = selectors.replay_available(match)
        if not ok:
            return Response({"detail": why}, status=status.HTTP_409_CONFLICT)
        if match.record is None:  # reported by people: no engine record to replay
            return Response({"match": match.pk, "record": None, "log": None})
        return Response({"match": match.pk, "record": match.record, "log": selectors.match_log(match)})

    @extend_schema(request=None, responses=s.MatchSerializer)
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Play a bot match again from scratch: one given up after MATCH_MAX_ATTEMPTS claims."""
        match = matches.match_retry(match_id=self.get_object().pk, actor=request.user)
        return Response(s.MatchSerializer(self.get_queryset().get(pk=match.pk)).data)

    @extend_schema(request=s.SubmissionSerializer, responses=s.SubmissionSerializer)
    @action(detail=True, methods=["get", "post"])
    def submissions(self, request, pk=None):
        match = self.get_object()
        if request.method == "POST":
            ser = s.SubmissionSerializer(data=request.data)
            ser.is_valid(raise_exception=True)
            submission, created = results.result_submit(
                match=match, scores=ser.validated_data["scores"], places=ser.validated_data["places"], user=request.user,
            )
            code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
            return Response(s.SubmissionSerializer(submission).data, status=code)
        return Response(s.SubmissionSerializer(match.submissions.all(), many=True).data)


class SubmissionViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = ResultSubmission.objects.all()
    serializer_class = s.SubmissionSerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["match", "status"]

    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        results.result_confirm(submission=self.get_object(), user=request.user)
        return Response(s.SubmissionSerializer(ResultSubmission.objects.get(pk=pk)).data)

    @extend_schema(request=s.ReasonSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        ser = s.ReasonSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        submission = results.result_reject(submission=self.get_object(), reason=ser.validated_data["reason"], user=request.user)
        return Response(s.SubmissionSerializer(submission).data)


class LeagueViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = League.objects.prefetch_related("players")
    serializer_class = s.LeagueSerializer
    permission_classes = [ReadOrAuthenticated]
    filterset_fields = ["game"]

    def perform_create(self, serializer):
        serializer.instance = leagues.league_create(**serializer.validated_data)

    @extend_schema(request=s.JoinSerializer, responses=s.LeagueSerializer)
    @action(detail=True, methods=["post"])
    def join(self, request, pk=None):
        ser = s.JoinSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        league = leagues.league_join(league=self.get_object(), player=ser.validated_data["player"])
        return Response(s.LeagueSerializer(league).data)

    @extend_schema(request=None, responses=s.SeasonSerializer(many=True))
    @action(detail=True, methods=["get", "post"])
    def seasons(self, request, pk=None):
        league = self.get_object()
        if request.method == "POST":
            season = leagues.season_start(league=league)
            return Response(s.SeasonSerializer(season).data, status=status.HTTP_201_CREATED)
        return Response(s.SeasonSerializer(league.seasons.order_by("number"), many=True).data)
