"""Webhooks through the API (docs/api.md, "Webhooks"): an organiser subscribes a URL to a
tournament's or a league's events, and reads, replays and pings its deliveries. Each account
sees and changes its own webhooks only (someone else's is a 404), and changes, pings and
replays one only while it organises the webhook's event (a 403 once it no longer does)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response

from tournaments import permissions as rules
from tournaments.models import League, Tournament, Webhook, WebhookDelivery
from tournaments.services import webhooks

from .schema import api_errors
from .views import ApiViewSet, require


class WebhookSerializer(serializers.ModelSerializer):
    tournament = serializers.PrimaryKeyRelatedField(queryset=Tournament.objects.all(), required=False, allow_null=True)
    league = serializers.PrimaryKeyRelatedField(queryset=League.objects.all(), required=False, allow_null=True)
    events = serializers.ListField(child=serializers.ChoiceField(choices=webhooks.EVENTS), min_length=1, max_length=4)
    url = serializers.CharField(max_length=2000)

    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "tournament", "league", "active", "created_at"]
        read_only_fields = ["id", "created_at"]


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(read_only=True, help_text="the HMAC key of every delivery's signature: shown once")

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]


class DeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = ["id", "delivery_id", "event_id", "event", "status", "attempts", "next_attempt_at", "delivered_at",
                  "created_at", "payload", "log"]


class WebhookViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, ApiViewSet):
    """Your webhooks."""

    serializer_class = WebhookSerializer
    permission_classes = [permissions.IsAuthenticated]
    queryset = Webhook.objects.none()  # for the schema; each caller sees their own
    page_actions = frozenset({"deliveries"})

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Webhook.objects.none()
        return Webhook.objects.filter(owner=self.request.user)

    def following(self) -> Webhook:
        """The caller's webhook (404 if not theirs), which they may change or have sent only
        while they organise its event: who may subscribe to it (403 otherwise)."""
        hook = self.get_object()
        require(rules.organises(self.caller, hook.tournament or hook.league),
                "only the event's organisers change its webhooks or have them sent")
        return hook

    @api_errors(409)
    @extend_schema(request=WebhookSerializer, responses={201: WebhookCreatedSerializer})
    def create(self, request):
        """Subscribe a URL to a tournament's or a league's events: its organisers. The answer
        holds the secret that signs every delivery, this once."""
        data = self.valid(WebhookSerializer)
        event = data.get("tournament") or data.get("league")
        require(event is None or rules.organises(self.caller, event),
                "only the event's organisers subscribe to it")
        hook = webhooks.webhook_create(owner=request.user, url=data["url"], events=data["events"],
                                       tournament=data.get("tournament"), league=data.get("league"))
        return Response(WebhookCreatedSerializer(hook).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=WebhookSerializer, responses=WebhookSerializer)
    def partial_update(self, request, pk=None):
        """Change the URL, the events, or pause it (``active``: false)."""
        require(self.caller.can(rules.ORGANISE), "changing a webhook needs the organise scope")
        hook = self.following()
        serializer = WebhookSerializer(hook, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if {"tournament", "league"} & set(data):
            raise ValidationError({"tournament": ["a webhook's event does not change: make another"]})
        hook = webhooks.webhook_update(webhook=hook, url=data.get("url"), events=data.get("events"),
                                       active=data.get("active"))
        return Response(WebhookSerializer(hook).data)

    def perform_destroy(self, instance):
        require(self.caller.can(rules.ORGANISE), "deleting a webhook needs the organise scope")
        webhooks.webhook_delete(webhook=instance)

    @extend_schema(responses=DeliverySerializer(many=True), filters=False)
    @action(detail=True)
    def deliveries(self, request, pk=None):
        """The webhook's deliveries, newest first, each with its attempts' answers."""
        return self.paginated(self.get_object().deliveries.all(), DeliverySerializer)

    @extend_schema(request=None, responses={202: DeliverySerializer})
    @action(detail=True, methods=["post"], url_path=r"deliveries/(?P<delivery>\d+)/redeliver")
    def redeliver(self, request, pk=None, delivery=None):
        """Send a delivery's event again (a new delivery: the same event id and body)."""
        require(self.caller.can(rules.ORGANISE), "redelivering needs the organise scope")
        past = get_object_or_404(WebhookDelivery, webhook=self.following(), pk=delivery)
        return Response(DeliverySerializer(webhooks.delivery_redeliver(delivery=past)).data,
                        status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: DeliverySerializer})
    @action(detail=True, methods=["post"])
    def ping(self, request, pk=None):
        """Send a ``ping`` event, to check the receiver and its signature check."""
        require(self.caller.can(rules.ORGANISE), "pinging needs the organise scope")
        return Response(DeliverySerializer(webhooks.webhook_ping(webhook=self.following())).data,
                        status=status.HTTP_202_ACCEPTED)
