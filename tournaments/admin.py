"""The Django admin: a read-mostly window on the data for organisers and operators. Changes
that matter (results, entries, starting a tournament) go through the API, which calls the
services; the admin does not bypass them for results or ratings."""

from django.contrib import admin

from . import models
from .services.versions import standings_changed


class StandingsInputs:
    """The admin of a model the standings are computed from (players' names, entries, rounds,
    matches): a save or a delete there gives the tournaments it touches a new standings
    version, as the services do (services.versions), in the admin's transaction."""

    def tournaments_of(self, objs) -> set[int]:
        raise NotImplementedError

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        standings_changed(tournament_ids=self.tournaments_of([obj]))

    def save_related(self, request, form, formsets, change):  # inlines: a tournament's entries
        super().save_related(request, form, formsets, change)
        standings_changed(tournament_ids=self.tournaments_of([form.instance]))

    def delete_model(self, request, obj):
        touched = self.tournaments_of([obj])
        super().delete_model(request, obj)
        standings_changed(tournament_ids=touched)

    def delete_queryset(self, request, queryset):
        touched = self.tournaments_of(list(queryset))
        super().delete_queryset(request, queryset)
        standings_changed(tournament_ids=touched)


@admin.register(models.Player)
class PlayerAdmin(StandingsInputs, admin.ModelAdmin):
    list_display = ["name", "display_name", "kind", "bot_kind", "active", "created_at"]
    list_filter = ["kind", "bot_kind", "active"]
    search_fields = ["name", "display_name"]

    def tournaments_of(self, objs):
        return set(models.Tournament.objects.filter(entries__player__in=[o.pk for o in objs])
                   .values_list("pk", flat=True))


class EntryInline(admin.TabularInline):
    model = models.Entry
    extra = 0
    fields = ["player", "seed_rank", "checked_in", "withdrawn_at", "disqualified"]
    raw_id_fields = ["player"]


@admin.register(models.Tournament)
class TournamentAdmin(StandingsInputs, admin.ModelAdmin):
    list_display = ["name", "game", "format", "table_size", "status", "owner", "created_at", "finished_at"]
    list_filter = ["game", "format", "status", "online", "duplicate", "several_seats", "confirmation"]
    search_fields = ["name", "slug"]
    raw_id_fields = ["owner"]
    filter_horizontal = ["organisers"]
    exclude = ["seed"]  # secret until the tournament is finished, even in the admin
    inlines = [EntryInline]

    def tournaments_of(self, objs):
        return {o.pk for o in objs if o.pk is not None}


class SeatInline(admin.TabularInline):
    model = models.Seat
    extra = 0
    readonly_fields = ["position", "player", "score", "place", "forfeit_reason", "decisions", "think_seconds"]
    fields = readonly_fields
    can_delete = False


@admin.register(models.Match)
class MatchAdmin(StandingsInputs, admin.ModelAdmin):
    list_display = ["id", "round", "table", "status", "attempts", "interrupted", "started_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["record", "lease_owner", "lease_expires_at", "attempts", "interrupted"]
    exclude = ["seed", "deck"]  # the cards of a match still being played
    inlines = [SeatInline]

    def tournaments_of(self, objs):
        return set(models.Round.objects.filter(pk__in=[o.round_id for o in objs]).values_list("tournament_id", flat=True))


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


@admin.register(models.Round)
class RoundAdmin(StandingsInputs, admin.ModelAdmin):
    def tournaments_of(self, objs):
        return {o.tournament_id for o in objs}


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
