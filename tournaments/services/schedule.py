"""Time: tournaments that start at their hour, rounds that open once a period, seasons that
end. The periodic ``tick`` task (Celery beat) calls :func:`schedule_tick`; every step here is
safe to repeat."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from tournaments.models import Round, Season, Tournament

from .errors import ServiceError
from .leagues import season_close_if_done
from .tournaments import round_create_next, tournament_start

log = logging.getLogger(__name__)


def round_due_at(tournament: Tournament, number: int) -> datetime | None:
    """When round ``number`` may open: ``starts_at`` (or the first round's making) plus one
    ``round_interval`` per earlier round; None when rounds follow one another at once."""
    if tournament.round_interval is None:
        return None
    base = tournament.starts_at
    if base is None:
        first = tournament.rounds.order_by("number").values_list("created_at", flat=True).first()
        base = first or timezone.now()
    return base + (number - 1) * tournament.round_interval


def next_round_due(tournament: Tournament, now: datetime | None = None) -> bool:
    if tournament.round_interval is None:  # rounds follow one another at once
        return True
    due = round_due_at(tournament, tournament.rounds.count() + 1)
    return due is None or due <= (now or timezone.now())


def schedule_tick(now: datetime | None = None) -> dict[str, int]:
    """Start due tournaments, open due rounds, close finished seasons. Returns counts."""

    now = now or timezone.now()
    counts = {"started": 0, "rounds": 0, "seasons": 0}
    for pk in Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now).values_list("pk", flat=True):
        try:
            tournament_start(tournament=Tournament(pk=pk))
            counts["started"] += 1
        except ServiceError as exc:
            log.warning("tournament %s could not start at its time: %s", pk, exc.message)
    waiting = Tournament.objects.filter(status=Tournament.Status.RUNNING, round_interval__isnull=False)
    for pk in waiting.values_list("pk", flat=True):
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().get(pk=pk)
            if tournament.status != Tournament.Status.RUNNING:
                continue
            if tournament.rounds.exclude(status=Round.Status.FINISHED).exists() or not next_round_due(tournament, now):
                continue
            round_create_next(tournament=tournament)
            counts["rounds"] += 1
    for season in Season.objects.filter(finished_at__isnull=True):
        with transaction.atomic():
            if season_close_if_done(season=season):
                counts["seasons"] += 1
    return counts
