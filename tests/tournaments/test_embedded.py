"""The embedded worker (tournaments/embedded.py): without a broker, a web process runs the tasks
its requests send in a background thread, so ``POST .../start/`` answers 202 at once while the
tournament plays, and the periodic work beat sends in a deployment runs in that thread too, so
that online clocks hold.

The tests' database is SQLite in memory, which two threads may not write at once: while the
background thread works, the test thread waits without touching the database."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from tournaments import embedded, online_reads, tasks
from tournaments.models import AuditEvent, Match, MatchAction, Tournament
from tournaments.services import online

from .helpers import bot_players, error, make_tournament
from .test_online_clock import online_match, player_client, rewind, timed_out_once, waiting

pytestmark = pytest.mark.django_db(transaction=True)


def test_start_answers_at_once_and_the_embedded_worker_plays_the_tournament(settings, broker_configured):
    if broker_configured:
        pytest.skip("with a broker the workers play it (test_workers.py)")
    settings.EMBEDDED_WORKER = True
    tournament = make_tournament(bot_players(4), format="round_robin", format_config={}, slug="in-the-background")
    organiser = APIClient()
    organiser.force_authenticate(get_user_model().objects.create_user("olga", is_staff=True))
    release = threading.Event()

    class Hold:  # a task that keeps the worker's thread busy until the test has its answer
        name = "hold"

        def apply(self, args, throw):
            release.wait(30)

    embedded.submit(Hold(), ())
    try:
        answer = organiser.post(f"/api/tournaments/{tournament.pk}/start/")
        assert answer.status_code == 202 and answer.json()["status"] == "running"
        assert not Match.objects.filter(round__tournament=tournament, status="finished").exists()
    finally:
        release.set()
    assert embedded.drain(timeout=120)
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
    assert Match.objects.filter(round__tournament=tournament).exclude(status="finished").count() == 0


def test_outside_a_web_process_tasks_run_in_the_caller(settings):
    settings.EMBEDDED_WORKER = None  # the default: on in web processes only
    was = embedded.web_process
    try:
        embedded.web_process = False
        assert not embedded.active()
        embedded.web_process = True
        assert embedded.active() is (not settings.CELERY_BROKER_URL)
    finally:
        embedded.web_process = was


@pytest.fixture
def web_process():
    """This test process as a web process (as tournaments/wsgi.py makes one); afterwards the
    embedded clock is stopped and every task it sent has run, before the database is flushed."""
    was = embedded.web_process
    try:
        yield
    finally:
        embedded.stop_clock()
        assert embedded.drain(timeout=60)
        embedded.web_process = was


class Recorded:
    """A periodic task that notes when and in which thread it ran, and whether it ran beside
    another task."""

    running = 0

    def __init__(self, name, runs, seconds=0.0):
        self.name, self.runs, self.seconds = name, runs, seconds

    def __call__(self):
        Recorded.running += 1
        self.runs.append((self.name, threading.current_thread().name, time.monotonic(), Recorded.running))
        time.sleep(self.seconds)
        Recorded.running -= 1


def test_the_clock_sends_each_periodic_task_to_the_worker_thread_at_its_interval_until_stopped(web_process):
    runs: list = []
    release = threading.Event()

    class Hold:  # a long task ahead of the periodic ones, holding the worker's thread
        name = "hold"

        def __call__(self):
            Recorded.running += 1
            release.wait(30)
            Recorded.running -= 1

    schedule = {"often": (Recorded("often", runs, 0.02), 0.1), "seldom": (Recorded("seldom", runs), 0.35)}
    started = time.monotonic()
    embedded.submit(Hold(), (), quiet=True)
    assert embedded.start_clock(schedule)
    assert not embedded.start_clock(schedule)  # once per process
    time.sleep(0.5)
    assert runs == []  # waiting behind the long task: each sent once, not once per interval
    release.set()
    released = time.monotonic()
    time.sleep(1.0)
    embedded.stop_clock()
    elapsed = time.monotonic() - released
    assert embedded.drain(timeout=10)
    stopped = len(runs)
    time.sleep(0.3)
    assert len(runs) == stopped  # nothing is sent once the clock stops

    assert {thread for _, thread, _, _ in runs} == {"mazziere-embedded-worker_0"}
    assert {beside for _, _, _, beside in runs} == {1}  # never beside another task
    often = [at for name, _, at, _ in runs if name == "often"]
    seldom = [at for name, _, at, _ in runs if name == "seldom"]
    assert often[0] - started >= 0.5 and seldom[0] - started >= 0.5  # one each after the long task
    # Then at their intervals for a second: each sent at most once an interval (a loaded machine
    # may run fewer).
    assert 3 <= len(often) <= elapsed / 0.1 + 2 and 2 <= len(seldom) <= elapsed / 0.35 + 2


def test_a_web_process_starts_the_clock_only_where_the_embedded_worker_runs(settings, monkeypatch, web_process):
    runs: list = []
    monkeypatch.setattr(embedded, "beat_schedule", lambda: {"beat": (Recorded("beat", runs), 0.05)})
    settings.EMBEDDED_WORKER = None  # the default: on in web processes, without a broker
    settings.CELERY_BROKER_URL = "redis://broker.invalid:6379/0"
    embedded.serve()  # with a broker, beat sends the periodic work to the workers
    settings.EMBEDDED_WORKER = False
    settings.CELERY_BROKER_URL = ""
    embedded.serve()  # turned off
    time.sleep(0.2)
    assert runs == []
    settings.EMBEDDED_WORKER = None
    embedded.serve()
    time.sleep(0.2)
    assert runs and runs[0][0] == "beat"


@pytest.mark.parametrize("timeout_bot", ["", "random"])
def test_on_the_embedded_defaults_the_timeout_is_applied_without_beat_and_the_late_move_refused(
        settings, monkeypatch, broker_configured, web_process, timeout_bot):
    """Nobody moves: the web process's own clock applies the seat's timeout policy within a
    couple of seconds of its deadline; the move that comes after it is refused (409)."""
    if broker_configured:
        pytest.skip("with a broker, beat checks the clocks (test_online_clock.py)")
    match = online_match(slug=f"embedded-clock-{timeout_bot or 'forfeit'}", move_seconds=30, timeout_bot=timeout_bot)
    seat = waiting(match)
    legal = online_reads.seat_view(match=match, position=seat)["view"]["legal_actions"]
    rewind(match, 29)  # one second left
    deadline = match.deadline_at
    before = MatchAction.objects.filter(match=match).count()

    applied = threading.Event()
    expire = tasks.deadlines_expire

    def noted(**kwargs):  # the periodic check, noting when it first applied a timeout
        done = expire(**kwargs)
        if not applied.is_set() and AuditEvent.objects.filter(match=match, action="move_timeout").exists():
            noted.at = timezone.now()
            applied.set()
        return done

    monkeypatch.setattr(tasks, "deadlines_expire", noted)
    settings.DEADLINE_CHECK_SECONDS = 0.25
    settings.EMBEDDED_WORKER = None  # the embedded defaults: on in a web process without a broker
    embedded.serve()
    # The test thread waits; the web process's background thread works.
    assert applied.wait(timeout=(deadline - timezone.now()).total_seconds() + 2)
    embedded.stop_clock()
    assert embedded.drain(timeout=60)
    assert deadline <= noted.at <= deadline + timedelta(seconds=2)

    timed_out_once(match, seat, timeout_bot, before)
    # The move chosen in time arrives after the deadline: refused, and nothing more applied.
    answer = player_client(match, seat).post(f"/api/matches/{match.pk}/seats/{seat}/actions/",
                                             {"action": legal[0]}, format="json", HTTP_IDEMPOTENCY_KEY="late")
    assert embedded.drain(timeout=60)
    assert answer.status_code == 409, answer.json()
    assert error(answer)["code"] == "conflict"
    assert not MatchAction.objects.filter(match=match, seat=seat, by=online.BY_SEAT).exists()
    assert AuditEvent.objects.filter(match=match, action="move_timeout").count() == 1
