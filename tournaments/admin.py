"""The Django admin: a read-mostly window on the data for organisers and operators. Changes
that matter (results, entries, starting a tournament) go through the API, which calls the
services; the admin does not bypass them for results or ratings.

What the admin never changes (tests/tournaments/test_admin.py):

- the records: the audit log, result submissions and the rating ledger are read-only (nothing
  added, changed or deleted here; a tournament deleted before it started takes its audit along,
  as services.tournaments.tournament_delete does);
- what a service owns while an event runs: a running tournament, its entries, rounds, matches
  and seats (and a match a worker is playing) are read-only until it ends, and nothing is added
  to a running tournament's rounds; a tournament's status moves through the services only
  (start, cancel, finish), and only a tournament not yet started is deleted, as the API does.

A draft's or a finished tournament's name, a player's name and the like stay editable.
"""

from django.contrib import admin

from . import models
from .services.versions import standings_changed

RUNNING = models.Tournament.Status.RUNNING
NOT_STARTED = (models.Tournament.Status.DRAFT, models.Tournament.Status.REGISTRATION)


def running(tournament_id: int | None) -> bool:
    """Is this tournament running: its rounds, matches and seats the services'?"""
    return tournament_id is not None and models.Tournament.objects.filter(pk=tournament_id, status=RUNNING).exists()


class ReadOnly:
    """The admin of a record: looked at, never added, changed or deleted here."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class LockedWhileRunning:
    """The admin of rows a service owns while their tournament runs (``tournament_of``): then
    they are read-only (the change form shows them, a POST is refused) and not deleted; and a new
    or moved row cannot be put in a running tournament (its choices leave those out)."""

    def tournament_of(self, obj) -> int | None:
        raise NotImplementedError

    def locked(self, obj) -> bool:
        return obj is not None and running(self.tournament_of(obj))

    def has_change_permission(self, request, obj=None):
        return not self.locked(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not self.locked(obj) and super().has_delete_permission(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "tournament" and db_field.related_model is models.Tournament:
            kwargs["queryset"] = models.Tournament.objects.exclude(status=RUNNING)
        elif db_field.name == "round" and db_field.related_model is models.Round:
            kwargs["queryset"] = models.Round.objects.exclude(tournament__status=RUNNING)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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
    """A tournament's entries; a running tournament's are the services' (withdrawals,
    disqualifications: the API)."""

    model = models.Entry
    extra = 0
    fields = ["player", "seed_rank", "checked_in", "withdrawn_at", "disqualified"]
    raw_id_fields = ["player"]

    def has_add_permission(self, request, obj=None):  # obj: the tournament
        return not (obj is not None and obj.status == RUNNING) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not (obj is not None and obj.status == RUNNING) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not (obj is not None and obj.status == RUNNING) and super().has_delete_permission(request, obj)


@admin.register(models.Tournament)
class TournamentAdmin(StandingsInputs, LockedWhileRunning, admin.ModelAdmin):
    list_display = ["name", "game", "format", "table_size", "status", "owner", "created_at", "finished_at"]
    list_filter = ["game", "format", "status", "online", "duplicate", "several_seats", "confirmation"]
    search_fields = ["name", "slug"]
    raw_id_fields = ["owner"]
    filter_horizontal = ["organisers"]
    exclude = ["seed"]  # secret until the tournament is finished, even in the admin
    readonly_fields = ["status", "finished_at"]  # moved by the services: start, cancel, finish
    inlines = [EntryInline]

    def tournaments_of(self, objs):
        return {o.pk for o in objs if o.pk is not None}

    def tournament_of(self, obj):
        return obj.pk

    def locked(self, obj):
        return obj is not None and obj.status == RUNNING

    def has_delete_permission(self, request, obj=None):
        """Only a tournament not yet started, and not a league's division, as the API deletes
        (services.tournaments.tournament_delete): a started one's matches are history."""
        if obj is not None and (obj.status not in NOT_STARTED or obj.season_id is not None):
            return False
        return super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs, request):
        """A tournament not yet started goes with its audit (its "created", "entered" ...), as
        the service deletes it: the audit's own admin, read-only, does not hold it back."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if all(o.status in NOT_STARTED for o in objs):
            perms_needed.discard(models.AuditEvent._meta.verbose_name)
        return deleted, counts, perms_needed, protected


class SeatInline(admin.TabularInline):
    model = models.Seat
    extra = 0
    readonly_fields = ["position", "player", "score", "place", "forfeit_reason", "decisions", "think_seconds"]
    fields = readonly_fields
    can_delete = False

    def has_add_permission(self, request, obj=None):  # seats are the pairings' (services.rounds)
        return False


@admin.register(models.Match)
class MatchAdmin(StandingsInputs, LockedWhileRunning, admin.ModelAdmin):
    list_display = ["id", "round", "table", "status", "attempts", "interrupted", "started_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["record", "lease_owner", "lease_expires_at", "attempts", "interrupted"]
    exclude = ["seed", "deck"]  # the cards of a match still being played
    inlines = [SeatInline]

    def tournaments_of(self, objs):
        return set(models.Round.objects.filter(pk__in=[o.round_id for o in objs]).values_list("tournament_id", flat=True))

    def tournament_of(self, obj):
        return models.Round.objects.filter(pk=obj.round_id).values_list("tournament_id", flat=True).first()

    def locked(self, obj):  # and a match a worker is playing, whatever its tournament's status
        return obj is not None and (obj.status == models.Match.Status.RUNNING or super().locked(obj))


@admin.register(models.RatingLadder)
class RatingLadderAdmin(admin.ModelAdmin):
    list_display = ["slug", "version", "name", "game", "system", "applied"]
    readonly_fields = ["config", "config_hash", "applied"]


@admin.register(models.RatingChange)
class RatingChangeAdmin(ReadOnly, admin.ModelAdmin):  # the ledger is append-only, by services.ladders
    list_display = ["ladder", "sequence", "player", "match", "before_mu", "after_mu", "expected_place", "actual_place"]
    list_filter = ["ladder"]


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
class RoundAdmin(StandingsInputs, LockedWhileRunning, admin.ModelAdmin):
    list_display = ["tournament", "number", "status", "created_at", "finished_at"]

    def tournaments_of(self, objs):
        return {o.tournament_id for o in objs}

    def tournament_of(self, obj):
        return obj.tournament_id


@admin.register(models.ResultSubmission)
class ResultSubmissionAdmin(ReadOnly, admin.ModelAdmin):
    """Reports of results: made, confirmed and rejected through the API (services.results)."""

    list_display = ["match", "version", "status", "submitted_by", "confirmed_by", "created_at"]
    list_filter = ["status"]


@admin.register(models.AuditEvent)
class AuditEventAdmin(ReadOnly, admin.ModelAdmin):
    """Who did what to a tournament's results: append-only, by the services."""

    list_display = ["created_at", "tournament", "match", "actor", "action"]
    list_filter = ["action"]


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
