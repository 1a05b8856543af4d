"""Time: tournaments that start at their hour, rounds that open once a period, seasons that
end. The periodic ``tick`` task (Celery beat) calls :func:`schedule_tick`; every step here is
safe to repeat."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import Round, Season, Tournament

from .leagues import season_close_if_done
from .rounds import NOTHING, Progress, next_round_due, round_create_next
from .tournaments import tournament_start

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ticked:
    """What a tick did: counts of tournaments started, rounds opened and seasons closed, and
    the rounds made (their bot matches for the caller to send)."""

    started: int = 0
    rounds: int = 0
    seasons: int = 0
    progress: Progress = field(default=NOTHING)

    def counts(self) -> dict[str, int]:
        return {"started": self.started, "rounds": self.rounds, "seasons": self.seasons}


def schedule_tick(now: datetime | None = None) -> Ticked:
    """Start due tournaments, open due rounds, close finished seasons. A tournament or season
    another transaction holds (a result being recorded, an organiser's change) is left for the
    next tick, never waited for: a periodic task must not queue behind a request or a worker."""
    now = now or timezone.now()
    started = rounds = seasons = 0
    progress = NOTHING
    for pk in Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now).values_list("pk", flat=True):
        try:
            with transaction.atomic():
                if _held(Tournament, pk):
                    continue
                progress += tournament_start(tournament=Tournament(pk=pk))[1]
                started += 1
        except ServiceError as exc:
            log.warning("tournament %s could not start at its time: %s", pk, exc.message)
    waiting = Tournament.objects.filter(status=Tournament.Status.RUNNING, round_interval__isnull=False)
    for pk in waiting.values_list("pk", flat=True):
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if tournament is None or tournament.status != Tournament.Status.RUNNING:
                continue
            if tournament.rounds.exclude(status=Round.Status.FINISHED).exists() or not next_round_due(tournament, now):
                continue
            progress += round_create_next(tournament=tournament)
            rounds += 1
    for season in Season.objects.filter(finished_at__isnull=True):
        with transaction.atomic():
            if _held(Season, season.pk):
                continue
            closed, made = season_close_if_done(season=season)
            seasons += closed
            progress += made
    return Ticked(started, rounds, seasons, progress)


def _held(model, pk: int) -> bool:
    """Lock ``model``'s row ``pk`` for this transaction unless another holds it: True if it
    does (or the row is gone). The service called next locks it again, at once."""
    return not model.objects.select_for_update(skip_locked=True).filter(pk=pk).exists()
