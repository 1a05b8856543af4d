"""The embedded worker (tournaments/embedded.py): without a broker, a web process runs the tasks
its requests send in a background thread, so ``POST .../start/`` answers 202 at once while the
tournament plays."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tournaments import embedded
from tournaments.models import Match, Tournament

from .helpers import bot_players, make_tournament

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
