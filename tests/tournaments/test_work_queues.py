"""Each class of work on its own queue and its own worker, as docker/compose.yaml runs them:
matches, clocks and housekeeping, webhooks. Two receivers that hold every POST sent to them
(one never answers, one trickles a byte every 3 s) delay nothing but their own deliveries: a
bot tournament plays as fast as without them, an online match's clock fires on time while they
hold the webhooks worker, and a healthy receiver gets every event once, within a minute.

Real worker processes on queues of their own, on PostgreSQL and Redis: the services leg
(scripts/test-services). Celery beat is this test's loop, sending the periodic tasks by name
at beat's intervals, routed as beat's are (tournaments.services.dispatch.route).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F, Max
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments.models import AuditEvent, Match, Tournament, WebhookDelivery
from tournaments.services import dispatch, players
from tournaments.services.tournaments import entry_add, tournament_create, tournament_start
from tournaments.tasks import expire_deadlines, reclaim_matches, retry_webhooks

from .helpers import bot_players, make_tournament
from .test_webhooks import receiver, subscribe  # noqa: F401 - receiver: the fixture
from .test_workers import ROOT, database_url, stop, wait_for

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),  # the workers read what this test commits
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL and PostgreSQL"),
]


def start_worker(name: str, queue: str, concurrency: int, queues: dict[str, str]) -> subprocess.Popen:
    """A worker consuming ``queue`` only, as compose's are, its processes sending their tasks to
    this test's ``queues`` (MATCH_QUEUE, CLOCK_QUEUE, WEBHOOK_QUEUE)."""
    env = dict(os.environ, DATABASE_URL=database_url(), DATABASE_CONN_MAX_AGE="0", HTTP_BOTS_ALLOWED_HOSTS="127.0.0.1",
               **queues)
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "tournaments", "worker", "-Q", queue, "-n", name,
         f"--concurrency={concurrency}", "--pool=prefork", "--loglevel=warning", "--without-gossip",
         "--without-mingle"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


class Beat:
    """Celery beat, run by the test's loop: each periodic task sent by name when due, routed
    to its class's queue as beat's are (it names no queue)."""

    def __init__(self, settings):
        self.every = {expire_deadlines: settings.DEADLINE_CHECK_SECONDS, retry_webhooks: settings.WEBHOOK_RETRY_SECONDS,
                      reclaim_matches: settings.RECLAIM_INTERVAL_SECONDS}
        self.last = dict.fromkeys(self.every, 0.0)

    def tick(self) -> None:
        for task, every in self.every.items():
            if time.monotonic() - self.last[task] >= every:
                task.apply_async()
                self.last[task] = time.monotonic()


def online_tournament(slug: str, seed: int) -> Tournament:
    """An online Stoppa match of a person, a remote bot and a built-in bot, whose person and
    remote bot never move: each of their turns ends at its deadline (5 s: forfeit)."""
    ada = get_user_model().objects.create_user(f"ada-{slug}")
    entrants = [players.player_create(name=f"ada-{slug}", kind="person", owner=ada),
                players.player_create(name=f"remote-{slug}", kind="bot", bot_kind="remote", owner=ada),
                players.builtin_bot_get_or_create(bot="heuristic", name="heuristic")]
    tournament = tournament_create(name=slug, slug=slug, game="stoppa", table_size=3, format="round_robin",
                                   format_config={}, options={"hands": 1}, online=True, move_seconds=5, seed=seed,
                                   several_seats=True)
    for player in entrants:
        entry_add(tournament=tournament, player=player)
    return tournament


class Run:
    """A bot Swiss and an online match started together; the online match's deadlines as
    seen while they play."""

    def __init__(self, swiss: Tournament, online: Tournament):
        self.swiss, self.online, self.deadlines = swiss, online, set()

    def start(self) -> None:
        self.began, self.began_at = time.monotonic(), timezone.now()
        for tournament in (self.online, self.swiss):
            _, progress = tournament_start(tournament=tournament)
            dispatch.send_progress(progress)
        self.match = Match.objects.get(round__tournament=self.online)

    def watch(self) -> bool:
        """Note the online match's deadline; whether the Swiss has finished (its time kept)."""
        self.deadlines.update(Match.objects.filter(pk=self.match.pk, deadline_at__isnull=False)
                              .values_list("deadline_at", flat=True))
        if Tournament.objects.filter(pk=self.swiss.pk, status=Tournament.Status.FINISHED).exists():
            self.seconds = getattr(self, "seconds", None) or time.monotonic() - self.began
            return True
        return False

    def timeouts_late(self) -> list[tuple[datetime, float]]:
        """Each timeout applied to the online match: when, and how long after its deadline."""
        applied = (AuditEvent.objects.filter(match=self.match, action="move_timeout")
                   .values_list("created_at", flat=True))
        return [(at, (at - max(d for d in self.deadlines if d <= at)).total_seconds()) for at in applied]


def test_receivers_that_never_answer_or_trickle_delay_nothing_but_their_own_deliveries(settings, receiver):
    queues = {"MATCH_QUEUE": f"matches-{os.getpid()}", "CLOCK_QUEUE": f"clocks-{os.getpid()}",
              "WEBHOOK_QUEUE": f"webhooks-{os.getpid()}"}
    for setting, queue in queues.items():
        setattr(settings, setting, queue)
    healthy, silent, trickling = receiver(), receiver(delay=3600), receiver(trickle=3)
    owner = get_user_model().objects.create_user("olga")
    client = APIClient()
    client.force_login(owner)
    field = bot_players(48)

    def run(slug: str, urls: list[str], seed: int) -> Run:
        # 48 bots at tables of 4, 10 rounds: 120 matches, about 15 s on two worker processes.
        swiss = make_tournament(field, slug=slug, ladder_slug=None, seed=29, format_config={"rounds": 10},
                                options={"hands": 200}, owner=owner)
        for url in urls:
            subscribe(client, url, tournament=swiss.pk)
        return Run(swiss, online_tournament(f"{slug}-online", seed))

    # The clean run's receivers all answer at once: as many deliveries written, none held.
    clean = run("clean", [healthy.url, receiver().url, receiver().url], seed=3)
    troubled = run("troubled", [healthy.url, silent.url, trickling.url], seed=4)  # online: its own cards
    names = [f"{queue}@test" for queue in queues.values()]
    workers = [start_worker(f"{queue}@test", queue, concurrency, queues)
               for queue, concurrency in zip(queues.values(), (2, 1, 2), strict=True)]  # as compose's
    beat, holding = Beat(settings), []  # holding: when the silent receiver held a POST
    try:
        wait_for(names)
        for current in (clean, troubled):
            current.start()
            while not current.watch():
                assert time.monotonic() - current.began < 300, "the tournament did not finish"
                beat.tick()
                if silent.in_flight:
                    holding.append(timezone.now())
                time.sleep(0.2)
        delivered = WebhookDelivery.objects.filter(webhook__url=healthy.url)
        online = Match.objects.filter(round__tournament__in=[clean.online, troubled.online])
        waited = time.monotonic() + 90
        while delivered.exclude(status="delivered").exists() or online.exclude(status="finished").exists():
            assert time.monotonic() < waited, "the healthy receiver's deliveries or the online matches are not done"
            beat.tick()
            clean.watch(), troubled.watch()
            time.sleep(0.2)
    finally:
        for worker in workers:
            stop(worker)

    # The bad receivers cost the tournament nothing (sharing the matches' worker, they made a
    # Swiss 7.5 times as long).
    assert troubled.seconds <= 1.5 * clean.seconds, (troubled.seconds, clean.seconds)
    # The online clocks fired on time (DEADLINE_CHECK_SECONDS: 1 s), the troubled run's while
    # the silent receiver held POSTs of the webhooks worker. (Not necessarily at the very
    # moment of a timeout: a failing receiver is sent its deliveries by the sweep only, each
    # POST cut at WEBHOOK_TIMEOUT_SECONDS, so there are gaps between its holds.)
    for current in (clean, troubled):
        timeouts = current.timeouts_late()
        assert len(timeouts) == 2 and max(late for _, late in timeouts) < 2.5, timeouts
    assert any(troubled.began_at <= held for held in holding), "the silent receiver never held a POST"
    # The healthy receiver got every event of both runs once, each within a minute.
    assert delivered.count() == len(healthy.got) > 2 * 120
    assert Counter(healthy.delivery_ids()).most_common(1)[0][1] == 1
    slowest = delivered.aggregate(slowest=Max(F("delivered_at") - F("created_at")))["slowest"]
    assert slowest < timedelta(seconds=60), slowest
    # The bad receivers' were tried, cut off at the deadline, and wait for their retries.
    bad = WebhookDelivery.objects.filter(webhook__url__in=[silent.url, trickling.url])
    assert not bad.filter(status="delivered").exists()
    assert {entry["error"] for d in bad.exclude(attempts=0) for entry in d.log} == {"no answer in time"}
    assert silent.got and trickling.got
