"""The REST API: thin views over services (writes) and selectors (reads). Who may do what is
decided by tournaments.permissions; what each caller is shown, by the serializers."""

from __future__ import annotations

import django_filters
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import authentication, generics, mixins, status, viewsets
from rest_framework import permissions as drf_permissions
from rest_framework.decorators import action
from rest_framework.exceptions import AuthenticationFailed, NotFound, PermissionDenied, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings

from tournaments import feeds, online_reads, selectors
from tournaments import permissions as rules
from tournaments.formats import FORMATS
from tournaments.models import ApiToken, Entry, League, Match, Player, RatingLadder, ResultSubmission, Seat, Tournament
from tournaments.services import ServiceError, dispatch, ladders, leagues, leases, online, players, results, tokens, tournaments
from tournaments.services.organisers import organiser_add, organiser_remove

from . import auth, boards, exports, histories, streams
from . import serializers as s
from .kept import kept_response
from .pagination import Ordering, cursor_by, whole_number
from .schema import api_errors
from .throttles import ScopeThrottle

ORDERED = [*api_settings.DEFAULT_FILTER_BACKENDS, Ordering]  # the filters, and ?ordering=
STREAM = {"renderer_classes": [JSONRenderer], "content_negotiation_class": streams.JsonAnswers}
STREAM_RESPONSE = {(200, "text/event-stream"): OpenApiResponse(
    OpenApiTypes.STR, description="server-sent events, each `id`, `event` and one line of JSON `data` (docs/online.md)")}
EXPORT_RESPONSE = {
    (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR, description="one JSON object a line"),
    (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="a header line, then one row a line"),
}
EXPORT_PARAMETERS = [OpenApiParameter("as", str, enum=list(exports.KINDS), required=False,
                                      description="ndjson (the default) or csv")]
MATCH_COLUMNS = ["match", "tournament", "round", "table", "status", "started_at", "finished_at", "position", "player",
                 "player_name", "score", "place", "forfeit_reason"]
STREAM_PARAMETERS = [
    OpenApiParameter("Last-Event-ID", str, OpenApiParameter.HEADER, required=False,
                     description="the id of the last event you have: the stream resumes after it"),
    OpenApiParameter("last_event_id", str, required=False, description="the same, as a query parameter"),
    OpenApiParameter("follow", bool, required=False,
                     description="false: send what there is now and close (default true: follow until over)"),
]
YOUR_TURN = OpenApiParameter("your_turn", bool, description="only the seats awaited now")


def query_names(parameters: list[OpenApiParameter]) -> tuple[str, ...]:
    """The query parameters among an operation's documented ``parameters`` (not its headers)."""
    return tuple(p.name for p in parameters if p.location == OpenApiParameter.QUERY)


def caller_of(request) -> rules.Caller:
    return rules.Caller(user=request.user, scopes=auth.scopes(request), bot_id=auth.token_bot_id(request))


def require(allowed: bool, why: str) -> None:
    """403 with the reason, unless ``allowed``."""
    if not allowed:
        raise PermissionDenied(why)


def url_id(value) -> int | None:
    """A URL's id as a row's id can be (1 to 18 ASCII digits), or None: no row has it. For the
    reads that go to the database by the id itself, not through get_object."""
    text = str(value)
    return int(text) if whole_number(text, 18) else None


_QUERY_PARAMETERS: dict[tuple[type, str], frozenset[str]] = {}


def refuse_unknown_parameters(request, known: frozenset[str]) -> None:
    """400 naming each query parameter the endpoint does not take (a misspelt filter would
    otherwise be ignored, and the whole list answered as if it were the one asked for)."""
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        takes = ", ".join(sorted(known)) or "none"
        raise ValidationError({name: [f"{name} is not a parameter of this endpoint (it takes {takes})"]
                               for name in unknown})


class ReadOrAuthenticated(drf_permissions.IsAuthenticatedOrReadOnly):
    """Anyone may browse; changing anything needs a signed-in user (then each action checks
    what that user may do: tournaments.permissions)."""


class ApiViewSet(viewsets.GenericViewSet):
    permission_classes = [ReadOrAuthenticated]
    #: The actions besides ``list`` that answer a page (docs/api.md, "Lists"): they take its
    #: parameters (``limit``, ``offset`` or ``cursor``).
    page_actions: frozenset[str] = frozenset()
    #: The query parameters an action takes beyond its pages and its filters, as its
    #: ``extend_schema(parameters=...)`` documents them (tests/tournaments/test_api_query.py holds
    #: the two equal).
    action_parameters: dict[str, tuple[str, ...]] = {}

    @property
    def caller(self) -> rules.Caller:
        return caller_of(self.request)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method in ("GET", "HEAD") and request.query_params:
            refuse_unknown_parameters(request, self.query_parameters())

    def query_parameters(self) -> frozenset[str]:
        """What this GET takes in its query string: DRF's ``format``, the action's own
        parameters, its page's and, for a top-level list, its filters' and ``ordering``: exactly
        what /api/schema/ documents for it. The same for every request of the action: worked
        out once a process."""
        key = (type(self), self.action)
        if key not in _QUERY_PARAMETERS:
            _QUERY_PARAMETERS[key] = self._query_parameters()
        return _QUERY_PARAMETERS[key]

    def _query_parameters(self) -> frozenset[str]:
        names = {api_settings.URL_FORMAT_OVERRIDE, *self.action_parameters.get(self.action, ())}
        if self.action == "list":
            for backend in (backend_class() for backend_class in self.filter_backends):
                if isinstance(backend, DjangoFilterBackend):
                    queryset = self.queryset if self.queryset is not None else self.get_queryset()
                    filterset = backend.get_filterset_class(self, queryset)
                    names.update(filterset.base_filters if filterset is not None else ())
                else:
                    names.update(parameter["name"] for parameter in backend.get_schema_operation_parameters(self))
        if (self.action == "list" or self.action in self.page_actions) and self.paginator is not None:
            names.update(parameter["name"] for parameter in self.paginator.get_schema_operation_parameters(self))
        return frozenset(names)

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "caller": self.caller}

    def valid(self, serializer_class, **kwargs) -> dict:
        """The request's body, checked by ``serializer_class`` (400 naming the fields if not)."""
        ser = serializer_class(data=self.request.data, **kwargs)
        ser.is_valid(raise_exception=True)
        return ser.validated_data

    def paginated(self, items, serializer_class):
        """A page of ``items`` (a queryset or a list), as every list of the API is sent."""
        page = self.paginate_queryset(items)
        return self.get_paginated_response(serializer_class(page, many=True, context=self.get_serializer_context()).data)


class OrganisersMixin:
    """``GET/POST {event}/organisers/`` and ``DELETE {event}/organisers/{username}/``: the
    co-organisers of an event, named by its owner."""

    @extend_schema(responses=s.OrganiserSerializer(many=True), filters=False)
    @action(detail=True, methods=["get"])
    def organisers(self, request, pk=None):
        event = self.get_object()
        names = [{"username": u.get_username()} for u in event.organisers.order_by("username")]
        return self.paginated(names, s.OrganiserSerializer)

    @extend_schema(request=s.OrganiserSerializer, responses={201: s.OrganiserSerializer})
    @organisers.mapping.post
    def add_organiser(self, request, pk=None):
        event = self.get_object()
        require(rules.owns(self.caller, event), "only the owner names co-organisers")
        data = self.valid(s.OrganiserSerializer)
        user = get_user_model().objects.filter(username=data["username"], is_active=True).first()
        if user is None:
            raise ValidationError({"username": [f"no account {data['username']!r}"]})
        organiser_add(event=event, user=user)
        return Response({"username": user.get_username()}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=r"organisers/(?P<username>[\w.@+-]+)")
    def remove_organiser(self, request, pk=None, username=None):
        event = self.get_object()
        require(rules.owns(self.caller, event), "only the owner names co-organisers")
        user = get_object_or_404(event.organisers, username=username)
        organiser_remove(event=event, user=user)  # and their webhooks on it
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    queryset = Player.objects.select_related("owner")
    serializer_class = s.PlayerSerializer
    filterset_fields = ["kind", "bot_kind", "active"]
    filter_backends = ORDERED
    ordering_fields = ["name", "created_at", "id"]

    def perform_create(self, serializer):
        require(self.caller.can(rules.ORGANISE), "registering a player needs the organise scope")
        data = serializer.validated_data
        serializer.instance = players.player_create(
            name=data["name"], kind=data["kind"], display_name=data.get("display_name", ""),
            bot_kind=data.get("bot_kind", ""), bot_config=data.get("bot_config"), owner=self.request.user,
        )

    @extend_schema(request=s.PlayerUpdateSerializer, responses=s.PlayerSerializer)
    def partial_update(self, request, pk=None):
        """Change a player's display name, bot configuration or active flag: its owner only."""
        player = self.get_object()
        require(rules.owns(self.caller, player), "only the player's owner changes it")
        data = self.valid(s.PlayerUpdateSerializer, partial=True)  # a field left out stays as it is
        player = players.player_update(player=player, **data)
        return Response(self.get_serializer(player).data)


class LadderViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganisersMixin,
                    ApiViewSet):
    queryset = RatingLadder.objects.select_related("owner").prefetch_related("organisers")
    serializer_class = s.LadderSerializer
    filterset_fields = ["game", "slug", "system"]
    filter_backends = ORDERED
    ordering_fields = ["name", "slug", "created_at", "id"]
    page_actions = frozenset({"organisers", "leaderboard", "history"})
    action_parameters = {"export": query_names(EXPORT_PARAMETERS)}

    def perform_create(self, serializer):
        require(self.caller.can(rules.ORGANISE), "creating a ladder needs the organise scope")
        data = serializer.validated_data
        latest = selectors.current_ladder(data["slug"])
        require(latest is None or rules.may_use_ladder(self.caller, latest),
                f"ladder {data['slug']} belongs to someone else: only its organisers make new versions")
        serializer.instance = ladders.ladder_create(
            slug=data["slug"], name=data["name"], game=data["game"], system=data["system"], config=data.get("config"),
            owner=self.request.user,
        )

    @extend_schema(request=s.LadderNameSerializer, responses=s.LadderSerializer)
    def partial_update(self, request, pk=None):
        """Rename a ladder: its organisers. Nothing else of a ladder changes (a new configuration
        is a new version: POST)."""
        ladder = self.get_object()
        require(rules.organises(self.caller, ladder), "only the ladder's organisers rename it")
        data = self.valid(s.LadderNameSerializer)
        return Response(self.get_serializer(ladders.ladder_rename(ladder=ladder, name=data["name"])).data)

    @extend_schema(responses=EXPORT_RESPONSE, parameters=EXPORT_PARAMETERS, filters=False)
    @action(detail=True, **STREAM)
    def export(self, request, pk=None):
        """The ladder's ledger, every rating change in the order applied, streamed as ndjson or
        CSV (the rows of ``history/``, for every player)."""
        ladder = self.get_object()
        kind = exports.kind_param(request)
        changes = selectors.ladder_ledger(ladder)
        fetch = exports.pages_of(changes, lambda page: s.RatingChangeSerializer(page, many=True).data)
        columns = list(s.RatingChangeSerializer.Meta.fields)
        return exports.export_response(request, fetch, kind=kind, columns=columns, rows_of=lambda change: [change],
                                       filename=f"{ladder.slug}-v{ladder.version}-ledger")

    def _ladder(self) -> RatingLadder:
        """The ladder of a read of its board or history: its id and version alone (every ladder
        is public)."""
        pk = url_id(self.kwargs["pk"])
        ladder = selectors.ladder_version(pk) if pk is not None else None
        if ladder is None:
            raise NotFound(f"no ladder {self.kwargs['pk']}")
        return ladder

    @extend_schema(responses=s.LeaderboardSerializer(many=True), filters=False)
    @action(detail=True, pagination_class=boards.BoardPages)
    def leaderboard(self, request, pk=None):
        """The ladder's players, best first, a page at a time: by the cursors of the ``next``
        and ``previous`` links, or by ``offset`` (docs/api.md, "Lists")."""
        return self.paginator.page(request, self._ladder())

    @extend_schema(responses=s.RatingChangeSerializer(many=True), filters=False)
    @action(detail=True, url_path=r"history/(?P<player_id>\d{1,18})", pagination_class=histories.HistoryPages)
    def history(self, request, pk=None, player_id=None):
        """A player's rating changes on the ladder, in the order applied, a page at a time by
        the cursors of the ``next`` and ``previous`` links."""
        ladder = self._ladder()

        def page() -> dict:
            body = self.paginator.body(request, ladder.pk, int(player_id))
            if not body["results"] and not Player.objects.filter(pk=player_id).exists():
                raise NotFound(f"no player {player_id}")
            return body

        # A history changes only as ratings are applied: kept under the ladder's ``applied``.
        return kept_response(request, f"history:{ladder.pk}:{ladder.applied}", page)


def _ladder_allowed(caller: rules.Caller, ladder: RatingLadder | None) -> None:
    require(ladder is None or rules.may_use_ladder(caller, ladder),
            "only the ladder's organisers attach events to it")


def _match_rows(match: dict) -> list[dict]:
    """A match as CSV rows: one a seat."""
    head = {"match": match["id"], **{k: match[k] for k in ("tournament", "round", "table", "status", "started_at",
                                                            "finished_at")}}
    return [{**head, **{k: seat[k] for k in ("position", "player", "player_name", "score", "place", "forfeit_reason")}}
            for seat in match["seats"]]


class TournamentFilter(django_filters.FilterSet):
    # Not "format": DRF reads ?format= as the answer's media type (json, api).
    tournament_format = django_filters.ChoiceFilter(field_name="format", choices=[(f, f) for f in sorted(FORMATS)],
                                                    label="the tournament's format")

    class Meta:
        model = Tournament
        fields = ["game", "status", "tournament_format"]


class TournamentViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganisersMixin,
                        ApiViewSet):
    queryset = Tournament.objects.select_related("ladder", "owner").prefetch_related("organisers")
    serializer_class = s.TournamentSerializer
    filterset_class = TournamentFilter
    filter_backends = ORDERED
    ordering_fields = ["name", "starts_at", "created_at", "id"]
    page_actions = frozenset({"organisers", "standings", "rounds", "audit", "entries"})
    action_parameters = {"export": query_names(EXPORT_PARAMETERS)}
    lookup_value_regex = r"\d+"

    def _organised(self) -> Tournament:
        tournament = self.get_object()
        require(rules.organises(self.caller, tournament), "only the tournament's organisers may do this")
        return tournament

    def perform_create(self, serializer):
        require(self.caller.can(rules.ORGANISE), "creating a tournament needs the organise scope")
        data = dict(serializer.validated_data)
        _ladder_allowed(self.caller, data.get("ladder"))
        serializer.instance = tournaments.tournament_create(actor=self.request.user, owner=self.request.user, **data)

    @api_errors(409)
    @extend_schema(request=s.TournamentSerializer, responses=s.TournamentSerializer)
    def partial_update(self, request, pk=None):
        """Change a tournament before it starts (any setting it was created with, checked as at
        creation): its organisers. 409 once started."""
        tournament = self._organised()
        serializer = self.get_serializer(tournament, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        if data.get("ladder") is not None:
            _ladder_allowed(self.caller, data["ladder"])
        tournament = tournaments.tournament_update(tournament=tournament, actor=request.user, **data)
        return Response(self.get_serializer(self.get_queryset().get(pk=tournament.pk)).data)

    @api_errors(409)
    @extend_schema(responses={204: None})
    def destroy(self, request, pk=None):
        """Delete a tournament that has not started: its owner. 409 once started (cancel it)."""
        tournament = self.get_object()
        require(rules.owns(self.caller, tournament), "only the tournament's owner deletes it")
        tournaments.tournament_delete(tournament=tournament, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @api_errors(409)
    @extend_schema(request=None, responses={202: s.TournamentSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request, pk=None):
        """Close registration and make the first round: 202 at once, with the tournament as it
        is now; its matches are played by the workers (without a broker, by this process's
        background thread: tournaments/embedded.py)."""
        tournament, progress = tournaments.tournament_start(tournament=self._organised(), actor=request.user)
        dispatch.send_progress(progress)
        return Response(self.get_serializer(tournament).data, status=status.HTTP_202_ACCEPTED)

    @api_errors(409)
    @extend_schema(request=None, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        tournament = tournaments.tournament_cancel(tournament=self._organised(), actor=request.user)
        return Response(self.get_serializer(tournament).data)

    @extend_schema(responses=s.StandingSerializer(many=True), filters=False)
    @action(detail=True)
    def standings(self, request, pk=None):
        """The standings, with each rank's tie-breaks and its explanation."""
        tournament_id = url_id(pk)
        key = selectors.standings_key(tournament_id) if tournament_id is not None else None
        if key is None:
            raise NotFound(f"no tournament {pk}")

        def page() -> dict:
            lines = self.paginate_queryset(selectors.tournament_standings(Tournament.objects.get(pk=pk)))
            return self.get_paginated_response(s.StandingSerializer(lines, many=True).data).data

        # Read in one query (the tournament and its state's key); computed only when that changed,
        # once for every process (kept_response shares it: a big tournament's are dear).
        return kept_response(request, key, page)

    @extend_schema(responses=EXPORT_RESPONSE, parameters=EXPORT_PARAMETERS, filters=False)
    @action(detail=True, **STREAM)
    def export(self, request, pk=None):
        """The tournament's matches, streamed as ndjson (each as ``GET /api/matches/{id}/``
        shows it) or CSV (a row per seat)."""
        tournament = self.get_object()
        kind = exports.kind_param(request)
        matches = Match.objects.filter(round__tournament=tournament).select_related("round__tournament") \
            .prefetch_related("seats__player")
        context = self.get_serializer_context()
        fetch = exports.pages_of(matches, lambda page: s.MatchSerializer(page, many=True, context=context).data)
        return exports.export_response(request, fetch, kind=kind, columns=MATCH_COLUMNS, rows_of=_match_rows,
                                       filename=f"{tournament.slug}-matches")

    @extend_schema(responses=s.RoundSerializer(many=True), filters=False)
    @action(detail=True)
    def rounds(self, request, pk=None):
        return self.paginated(selectors.tournament_rounds(self.get_object()), s.RoundSerializer)

    @extend_schema(responses=s.AuditSerializer(many=True), filters=False)
    @action(detail=True, pagination_class=cursor_by("id"))
    def audit(self, request, pk=None):
        return self.paginated(self.get_object().audit.select_related("match__round"), s.AuditSerializer)

    @extend_schema(responses=s.EntrySerializer(many=True), filters=False)
    @action(detail=True, methods=["get"])
    def entries(self, request, pk=None):
        return self.paginated(self.get_object().entries.select_related("player"), s.EntrySerializer)

    @extend_schema(request=s.EntrySerializer, responses={201: s.EntrySerializer})
    @entries.mapping.post
    def enter(self, request, pk=None):
        """Enter a player: organisers enter built-in bots and their own players; where entry is
        open, a player's owner enters it."""
        tournament = self.get_object()
        data = self.valid(s.EntrySerializer)
        player = data["player"]
        require(rules.may_enter(self.caller, tournament, player),
                "organisers enter built-in bots and their own players; a player's owner enters it where entry is open")
        entry = tournaments.entry_add(
            tournament=tournament, player=player, seed_rank=data.get("seed_rank"), actor=request.user,
        )
        return Response(s.EntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class EntryViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    queryset = Entry.objects.select_related("player", "tournament")
    serializer_class = s.EntrySerializer
    filterset_fields = ["tournament", "player"]

    @api_errors(409)
    @extend_schema(request=None, responses=s.EntrySerializer)
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        entry = self.get_object()
        require(rules.may_withdraw(self.caller, entry.tournament, entry.player),
                "an organiser, or the player's owner, withdraws an entry")
        entry, progress = tournaments.entry_withdraw(entry=entry, actor=request.user)
        dispatch.send_progress(progress)
        return Response(s.EntrySerializer(entry).data)

    @api_errors(409)
    @extend_schema(request=s.ReasonSerializer, responses=s.EntrySerializer)
    @action(detail=True, methods=["post"])
    def disqualify(self, request, pk=None):
        entry = self.get_object()
        require(rules.organises(self.caller, entry.tournament), "only the tournament's organisers disqualify")
        data = self.valid(s.ReasonSerializer)
        entry, progress = tournaments.entry_disqualify(entry=entry, reason=data["reason"], actor=request.user)
        dispatch.send_progress(progress)
        return Response(s.EntrySerializer(entry).data)


class MatchFilter(django_filters.FilterSet):
    """A match's filters are named as its fields: ``tournament`` (its id), ``round`` (the
    round's number), ``status``."""

    tournament = django_filters.NumberFilter(field_name="round__tournament", label="the tournament's id")
    round = django_filters.NumberFilter(field_name="round__number", label="the round's number")

    class Meta:
        model = Match
        fields = ["tournament", "round", "status"]


class MatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    queryset = Match.objects.select_related("round__tournament").prefetch_related("seats__player")
    serializer_class = s.MatchSerializer
    pagination_class = cursor_by("id")  # in the order made: a page never repeats nor skips a match
    filterset_class = MatchFilter
    page_actions = frozenset({"submissions"})
    action_parameters = {"events": query_names(STREAM_PARAMETERS), "seat_events": query_names(STREAM_PARAMETERS)}

    @extend_schema(responses={200: s.ReplaySerializer, 409: OpenApiResponse(description="not yet: the reason")})
    @action(detail=True)
    def replay(self, request, pk=None):
        """The match's inputs, actions and complete log, once its outcome is public: finished
        and, in duplicate play, its round over."""
        match_id = url_id(pk)
        match = selectors.match_outcome_state(match_id) if match_id is not None else None
        if match is None:
            raise NotFound(f"no match {pk}")
        ok, why = selectors.replay_available(match)
        if not ok:
            raise ServiceError(why, code="conflict")

        def replay() -> dict:
            record = selectors.match_record(match.pk)
            if record is None:  # reported by people: no engine record to replay
                return {"format": s.REPLAY_FORMAT, "match": match.pk, "record": None, "log": None}
            return {"format": s.REPLAY_FORMAT, "match": match.pk, "record": record,
                    "log": selectors.match_log(record)}

        # A finished match's replay never changes (its finishing time is in the key all the same).
        return kept_response(request, f"replay:{s.REPLAY_FORMAT}:{match.pk}:{match.finished_at}", replay)

    @api_errors(409)
    @extend_schema(request=None, responses=s.MatchSerializer)
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Play a bot match again from scratch: one given up after MATCH_MAX_ATTEMPTS claims."""
        match = self.get_object()
        require(rules.organises(self.caller, match.round.tournament), "only the tournament's organisers retry a match")
        match = leases.match_retry(match_id=match.pk, actor=request.user)
        dispatch.send([match.pk])
        return Response(self.get_serializer(self.get_queryset().get(pk=match.pk)).data)

    # --- online play (docs/online.md) ---

    def _online_match(self) -> Match:
        """The match of an online-play request: as get_object, without the list's prefetching
        and filters (every move of every online seat comes here)."""
        return generics.get_object_or_404(Match.objects.select_related("round__tournament"), pk=self.kwargs["pk"])

    def _seat(self, match: Match, position: str) -> Seat:
        seat = match.seats.select_related("player").filter(position=int(position)).first()
        if seat is None:
            raise NotFound(f"match {match.pk} has no seat {position}")
        return seat

    @api_errors(409)
    @extend_schema(responses=s.SeatViewSerializer, filters=False)
    @action(detail=True, methods=["get"], url_path=r"seats/(?P<position>[0-9]{1,2})")
    def seat(self, request, pk=None, position=None):
        """What this seat of an online match sees now: its own cards, the public table, whose
        turn it is and, on its turn, its legal actions. Only for its player's owner."""
        match = self._online_match()
        seat = self._seat(match, position)
        require(rules.sees_seat(self.caller, seat.player), rules.seat_refusal(seat.player))
        return Response(online_reads.seat_view(match=match, position=seat.position))

    @api_errors(409, 422)
    @extend_schema(request=s.SeatActionSerializer, responses=s.ActedSerializer,
                   parameters=[OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=False,
                                                description="the same key again answers as the first time, the "
                                                            "action applied once (at most 64 characters)")])
    @action(detail=True, methods=["post"], url_path=r"seats/(?P<position>[0-9]{1,2})/actions")
    def act(self, request, pk=None, position=None):
        """Play this seat's action (one of its legal_actions). 422: not legal now, the engine's
        reason; 409: not this seat's turn, the match over or not started."""
        # Every move of every online seat comes here: the service loads and locks the match and
        # its seats once, and asks who may act for the seat there (nothing is read twice).
        match_id = url_id(pk)
        if match_id is None:
            raise NotFound(f"no match {pk}")
        data = self.valid(s.SeatActionSerializer)
        caller = self.caller
        require(not caller.signed_in or caller.can(rules.PLAY),
                f"this token's scopes are {', '.join(sorted(caller.scopes)) or 'none'}: a move needs the play scope")
        try:
            acted = online.seat_act(match_id=match_id, position=int(position), action=data["action"],
                                    idempotency_key=request.headers.get("Idempotency-Key", ""), actor=request.user,
                                    may_act=lambda player: rules.acts_for(caller, player),
                                    answers=data.get("actions"))
        except online.LateMove as late:
            dispatch.send_progress(late.progress)  # the timeout policy it applied
            raise
        dispatch.send_progress(acted.progress)
        return Response({"seq": acted.seq, "action": acted.action, "repeated": acted.repeated})

    @api_errors(409)
    @extend_schema(request=s.ReasonSerializer, responses=s.SeatViewSerializer)
    @action(detail=True, methods=["post"], url_path=r"seats/(?P<position>[0-9]{1,2})/forfeit")
    def forfeit(self, request, pk=None, position=None):
        """An organiser forfeits a seat whose player is gone: the fallback bot plays it and it
        ranks last."""
        match = self._online_match()
        seat = self._seat(match, position)
        require(rules.organises(self.caller, match.round.tournament), "only the tournament's organisers forfeit a seat")
        data = self.valid(s.ReasonSerializer)
        progress = online.seat_forfeit(match_id=match.pk, position=seat.position, reason=data["reason"],
                                       actor=request.user)
        dispatch.send_progress(progress)
        return Response(self.get_serializer(self.get_queryset().get(pk=match.pk)).data)

    @api_errors(409)
    @extend_schema(responses=s.TableViewSerializer, filters=False)
    @action(detail=True, methods=["get"])
    def table(self, request, pk=None):
        """What anyone may see of an online match as it is played: public information only."""
        return Response(online_reads.table_view(match=self._online_match()))

    @api_errors(409)
    @extend_schema(responses=STREAM_RESPONSE, parameters=STREAM_PARAMETERS, filters=False)
    @action(detail=True, methods=["get"], url_path=r"seats/(?P<position>[0-9]{1,2})/events", **STREAM)
    def seat_events(self, request, pk=None, position=None):
        """This seat's events (text/event-stream): after each action, its own view as
        ``GET seats/{position}/`` shows it (event ``view``, id = the actions applied), then
        ``over`` with the result. Only for its player's owner. docs/online.md."""
        match = self._online_match()
        seat = self._seat(match, position)
        require(rules.sees_seat(self.caller, seat.player), rules.seat_refusal(seat.player))
        follow = streams.follow_param(request)
        feed = feeds.SeatFeed(match, seat.position, after=feeds.view_event_id(streams.last_event_id(request)))
        return streams.event_stream(request, feed, follow=follow)

    @api_errors(409)
    @extend_schema(responses=STREAM_RESPONSE, parameters=STREAM_PARAMETERS, filters=False)
    @action(detail=True, methods=["get"], **STREAM)
    def events(self, request, pk=None):
        """A spectator's events of an online match (text/event-stream): after each action,
        the public view as ``table/`` shows it, then ``over`` with the result."""
        match = self._online_match()
        follow = streams.follow_param(request)
        feed = feeds.SeatFeed(match, None, after=feeds.view_event_id(streams.last_event_id(request)))
        return streams.event_stream(request, feed, follow=follow)

    @extend_schema(responses=s.SubmissionSerializer(many=True), filters=False)
    @action(detail=True, methods=["get"])
    def submissions(self, request, pk=None):
        match = self.get_object()
        return self.paginated(_visible_submissions(self.caller).filter(match=match), s.SubmissionSerializer)

    @api_errors(409)
    @extend_schema(request=s.SubmissionSerializer,
                   responses={201: s.SubmissionSerializer, 200: OpenApiResponse(s.SubmissionSerializer,
                              description="the same result was reported already: the original submission")})
    @submissions.mapping.post
    def submit(self, request, pk=None):
        """Report a result: an organiser, or the owner of a seated player. It counts at once
        (status ``confirmed``) or awaits confirmation (``pending``) as the tournament's
        ``confirmation`` says (docs/tournaments.md, "Reported results")."""
        match = self.get_object()
        require(rules.reports_for(self.caller, match), "an organiser or a seated player's owner reports a result")
        data = self.valid(s.SubmissionSerializer)
        reported = results.result_submit(
            match=match, scores=data["scores"], places=data.get("places"),
            user=request.user, organiser=rules.organises(self.caller, match.round.tournament),
        )
        dispatch.send_progress(reported.progress)
        code = status.HTTP_201_CREATED if reported.created else status.HTTP_200_OK
        return Response(s.SubmissionSerializer(reported.submission).data, status=code)


def _visible_submissions(caller: rules.Caller):
    """Reported results: public, except in duplicate play while the round is played, when
    only the match's seated players' owners and the organisers see them."""
    qs = ResultSubmission.objects.select_related("match__round__tournament")
    if caller.staff:
        return qs
    public = Q(match__deal__isnull=True) | Q(match__round__status="finished")
    if not caller.signed_in:
        return qs.filter(public)
    organiser = rules.organised_by(caller.user, "match__round__tournament")
    return qs.filter(public | organiser | Q(match__seats__player__owner=caller.user)).distinct()


class SubmissionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ApiViewSet):
    serializer_class = s.SubmissionSerializer
    filterset_fields = ["match", "status"]

    def get_queryset(self):
        return _visible_submissions(self.caller).order_by("pk")

    def _decided_by_someone_seated(self) -> ResultSubmission:
        submission = self.get_object()
        require(rules.reports_for(self.caller, submission.match),
                "an organiser or a seated player's owner confirms or rejects a result")
        return submission

    @api_errors(409)
    @extend_schema(request=None, responses=s.SubmissionSerializer)
    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        """Confirm a reported result: who may is the tournament's ``confirmation`` (403 saying
        why otherwise); it then counts."""
        submission = self._decided_by_someone_seated()
        _, progress = results.result_confirm(submission=submission, user=request.user,
                                             organiser=rules.organises(self.caller, submission.match.round.tournament))
        dispatch.send_progress(progress)
        return Response(s.SubmissionSerializer(ResultSubmission.objects.get(pk=submission.pk)).data)

    @api_errors(409)
    @extend_schema(request=s.ReasonSerializer, responses=s.SubmissionSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        submission = self._decided_by_someone_seated()
        data = self.valid(s.ReasonSerializer)
        submission = results.result_reject(submission=submission, reason=data["reason"], user=request.user)
        return Response(s.SubmissionSerializer(submission).data)


class LeagueViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, OrganisersMixin,
                    ApiViewSet):
    queryset = League.objects.select_related("owner").prefetch_related("players", "organisers")
    serializer_class = s.LeagueSerializer
    filterset_fields = ["game"]
    filter_backends = ORDERED
    ordering_fields = ["name", "created_at", "id"]
    page_actions = frozenset({"organisers", "seasons"})

    def perform_create(self, serializer):
        require(self.caller.can(rules.ORGANISE), "creating a league needs the organise scope")
        _ladder_allowed(self.caller, serializer.validated_data.get("ladder"))
        serializer.instance = leagues.league_create(owner=self.request.user, **serializer.validated_data)

    @extend_schema(request=s.JoinSerializer, responses=s.LeagueSerializer)
    @action(detail=True, methods=["post"])
    def join(self, request, pk=None):
        league = self.get_object()
        data = self.valid(s.JoinSerializer)
        player = data["player"]
        require(rules.may_enter(self.caller, league, player),
                "organisers add built-in bots and their own players; a player's owner adds it where entry is open")
        league = leagues.league_join(league=league, player=player)
        return Response(self.get_serializer(league).data)

    @extend_schema(responses=s.SeasonSerializer(many=True), filters=False)
    @action(detail=True, methods=["get"])
    def seasons(self, request, pk=None):
        league = self.get_object()
        return self.paginated(league.seasons.prefetch_related("divisions").order_by("number"), s.SeasonSerializer)

    @api_errors(409)
    @extend_schema(request=None, responses={201: s.SeasonSerializer})
    @seasons.mapping.post
    def start_season(self, request, pk=None):
        league = self.get_object()
        require(rules.organises(self.caller, league), "only the league's organisers start a season")
        season, progress = leagues.season_start(league=league)
        dispatch.send_progress(progress)
        return Response(s.SeasonSerializer(season).data, status=status.HTTP_201_CREATED)


class OnlineSeatViewSet(ApiViewSet):
    """The caller's seats in online matches being played: what a person's client or a remote
    bot polls for its turns (docs/online.md)."""

    permission_classes = [drf_permissions.IsAuthenticated]
    serializer_class = s.OnlineSeatSerializer
    queryset = Seat.objects.none()  # for the schema; each caller sees their own
    action_parameters = {"list": query_names([YOUR_TURN]), "events": query_names(STREAM_PARAMETERS)}

    @extend_schema(responses=s.OnlineSeatSerializer(many=True), parameters=[YOUR_TURN])
    def list(self, request):
        seats = selectors.online_seats(request.user, self.caller.bot_id)
        your_turn = request.query_params.get("your_turn")
        if your_turn is not None:
            if your_turn not in ("true", "false"):
                raise ServiceError("your_turn is true or false", "your_turn")
            seats = seats.filter(your_turn=your_turn == "true")
        return self.paginated(seats, s.OnlineSeatSerializer)


    @extend_schema(responses=STREAM_RESPONSE, parameters=STREAM_PARAMETERS, filters=False)
    @action(detail=False, methods=["get"], **STREAM)
    def events(self, request):
        """Your turns as they come (text/event-stream): a ``turn`` event, with the seat's view
        as ``GET /api/matches/{id}/seats/{position}/`` shows it, each time one of your online
        seats (of your bot, for a token tied to it) is awaited. docs/online.md."""
        follow = streams.follow_param(request)
        after = feeds.turn_event_id(streams.last_event_id(request))
        return streams.event_stream(request, feeds.TurnFeed(request.user, self.caller.bot_id, after=after),
                                    follow=follow)


class TokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, ApiViewSet):
    """Your personal API tokens. Managed from a session (the browser) or with your username
    and password (HTTP Basic, for a program's first token); never with a token."""

    serializer_class = s.TokenSerializer
    authentication_classes = [authentication.BasicAuthentication, authentication.SessionAuthentication]
    permission_classes = [drf_permissions.IsAuthenticated]
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, ScopeThrottle]
    throttle_scope = "tokens"

    queryset = ApiToken.objects.none()  # for the schema; each caller sees their own

    def permission_denied(self, request, message=None, code=None):
        # A token was sent, and these endpoints never take one: say so, rather than DRF's
        # "credentials were not provided".
        if auth.bearer_sent(request) and not request.successful_authenticator:
            raise AuthenticationFailed(
                "tokens are made and managed with the account's username and password (HTTP Basic, e.g. "
                "curl -u username:password) or from a signed-in session, never with a token")
        super().permission_denied(request, message, code)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return ApiToken.objects.filter(user=self.request.user).select_related("bot")

    @api_errors(409)
    @extend_schema(responses={201: s.TokenCreatedSerializer})
    def create(self, request):
        data = self.valid(s.TokenSerializer)
        row, token = tokens.token_create(user=request.user, name=data["name"], scopes=data["scopes"],
                                         bot=data.get("bot"), expires_at=data.get("expires_at"))
        body = s.TokenCreatedSerializer(row).data
        body["token"] = token
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(responses={204: None})
    def destroy(self, request, pk=None):
        """Revoke the token: from now on it authenticates nobody."""
        tokens.token_revoke(token=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)
