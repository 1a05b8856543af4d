"""The Django admin: a read-mostly window on the data for organisers and operators. Changes
that matter (results, entries, starting a tournament) go through the API, which calls the
services; the admin does not bypass them for results or ratings."""

from django.contrib import admin

from . import models


@admin.register(models.Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "display_name", "kind", "bot_kind", "active", "created_at"]
    list_filter = ["kind", "bot_kind", "active"]
    search_fields = ["name", "display_name"]


class EntryInline(admin.TabularInline):
    model = models.Entry
    extra = 0
    fields = ["player", "seed_rank", "checked_in", "withdrawn_at", "disqualified"]
    raw_id_fields = ["player"]


@admin.register(models.Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "format", "table_size", "status", "owner", "created_at", "finished_at"]
    list_filter = ["game", "format", "status"]
    search_fields = ["name", "slug"]
    raw_id_fields = ["owner"]
    filter_horizontal = ["organisers"]
    exclude = ["seed"]  # secret until the tournament is finished, even in the admin
    inlines = [EntryInline]


class SeatInline(admin.TabularInline):
    model = models.Seat
    extra = 0
    readonly_fields = ["position", "player", "score", "place", "forfeit_reason", "decisions", "think_seconds"]
    fields = readonly_fields
    can_delete = False


@admin.register(models.Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "round", "table", "status", "attempts", "interrupted", "started_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["record", "lease_owner", "lease_expires_at", "attempts", "interrupted"]
    exclude = ["seed", "deck"]  # the cards of a match still being played
    inlines = [SeatInline]


@admin.register(models.RatingLadder)
class RatingLadderAdmin(admin.ModelAdmin):
    list_display = ["slug", "version", "name", "game", "system", "applied"]
    readonly_fields = ["config", "config_hash", "applied"]


@admin.register(models.RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ["ladder", "sequence", "player", "match", "before_mu", "after_mu", "expected_place", "actual_place"]
    list_filter = ["ladder"]

    def has_change_permission(self, request, obj=None):  # the ledger is append-only
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "table_size", "division_size", "promote", "relegate", "round_interval", "owner"]
    exclude = ["seed"]  # the divisions' deals derive from it


@admin.register(models.ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens can be looked at and revoked here; the token itself was shown once and is not stored."""

    list_display = ["name", "user", "prefix", "scopes", "bot", "created_at", "last_used_at", "expires_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "prefix", "user__username"]
    readonly_fields = ["user", "name", "prefix", "digest", "scopes", "bot", "created_at", "last_used_at"]
    fields = [*readonly_fields, "expires_at", "revoked_at"]

    def has_add_permission(self, request):  # made through the API or manage.py token_create
        return False


admin.site.register(models.Season)
admin.site.register(models.Round)
admin.site.register(models.ResultSubmission)
admin.site.register(models.AuditEvent)


@admin.register(models.Webhook)
class WebhookAdmin(admin.ModelAdmin):
    """Webhooks can be looked at, paused and deleted here; they are made through the API."""

    list_display = ["url", "owner", "tournament", "league", "events", "active", "created_at"]
    list_filter = ["active"]
    search_fields = ["url", "owner__username"]
    exclude = ["secret"]  # the HMAC key: shown to its owner once

    def has_add_permission(self, request):
        return False


@admin.register(models.WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["event", "webhook", "status", "attempts", "next_attempt_at", "delivered_at", "created_at"]
    list_filter = ["status", "event"]
    readonly_fields = ["webhook", "delivery_id", "event_id", "event", "payload", "attempts", "log", "created_at",
                       "delivered_at"]
